//! What changed between two releases of a package: paths added and removed, definitions that
//! moved, signatures that changed, deprecations that appeared.

use std::collections::{BTreeMap, BTreeSet};

use apicompat_surface::{Kind, ParamKind, Signature, Symbol};
use serde::Serialize;

use crate::catalog::PackageView;
use crate::IndexError;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Added {
    pub path: String,
    pub kind: &'static str,
    /// Other paths of the same object that the older release already had.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub same_object_as: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Removed {
    pub path: String,
    pub kind: &'static str,
    /// Where the same object can still be reached in the newer release.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub still_at: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Moved {
    pub path: String,
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SignatureChange {
    pub path: String,
    pub before: String,
    pub after: String,
    pub changes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Deprecated {
    pub path: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct Diff {
    pub package: String,
    pub from: String,
    pub to: String,
    pub added: Vec<Added>,
    pub removed: Vec<Removed>,
    pub moved: Vec<Moved>,
    pub signatures: Vec<SignatureChange>,
    pub deprecated: Vec<Deprecated>,
}

/// Compares release positions `a` and `b` of a package, for paths under `prefix` (all when
/// empty). A path under an added or removed parent is counted with its parent, not listed.
pub fn diff(view: &PackageView, a: usize, b: usize, prefix: &str) -> Result<Diff, IndexError> {
    let (ia, pa) = view
        .index_of(a)
        .ok_or_else(|| IndexError::Invalid("no such release".into()))?;
    let (ib, pb) = view
        .index_of(b)
        .ok_or_else(|| IndexError::Invalid("no such release".into()))?;
    let mut before: BTreeMap<String, Symbol> = BTreeMap::new();
    let mut after: BTreeMap<String, Symbol> = BTreeMap::new();
    let mut error = None;
    let mut collect = |index: &crate::PackageIndex, pos: usize, out: &mut BTreeMap<String, Symbol>| {
        for path in index.paths_with_prefix(prefix) {
            match index.facet_in(&path, pos).and_then(|f| f.map(|f| index.symbol(f)).transpose()) {
                Ok(Some(s)) => {
                    out.insert(path, s);
                }
                Ok(None) => {}
                Err(e) => error = Some(e),
            }
        }
    };
    collect(ia, pa, &mut before);
    collect(ib, pb, &mut after);
    if let Some(e) = error {
        return Err(e);
    }
    let definition = |path: &str, s: &Symbol| s.canonical.clone().unwrap_or_else(|| path.to_string());
    let by_object = |side: &BTreeMap<String, Symbol>| {
        let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (p, s) in side {
            m.entry(definition(p, s)).or_default().insert(p.clone());
        }
        m
    };
    let (objects_before, objects_after) = (by_object(&before), by_object(&after));
    let versions = view.versions();
    let mut out = Diff {
        package: view.name().to_string(),
        from: versions.get(a).cloned().unwrap_or_default(),
        to: versions.get(b).cloned().unwrap_or_default(),
        ..Diff::default()
    };
    let top_most = |path: &str, set: &BTreeMap<String, Symbol>, other: &BTreeMap<String, Symbol>| {
        // Listed only if its parent exists on both sides.
        path.rsplit_once('.')
            .is_none_or(|(parent, _)| !(set.contains_key(parent) && !other.contains_key(parent)))
    };
    for (path, s) in &after {
        if before.contains_key(path)
            || !top_most(path, &after, &before)
            || view.status(path, a)?.is_present()
        {
            continue;
        }
        let object = definition(path, s);
        let same: Vec<String> = objects_before
            .get(&object)
            .map(|ps| ps.iter().filter(|p| *p != path).cloned().collect())
            .unwrap_or_default();
        out.added.push(Added {
            path: path.clone(),
            kind: s.kind().as_str(),
            same_object_as: same,
        });
    }
    for (path, s) in &before {
        if after.contains_key(path)
            || !top_most(path, &before, &after)
            || view.status(path, b)?.is_present()
        {
            continue;
        }
        let object = definition(path, s);
        let still: Vec<String> = objects_after
            .get(&object)
            .map(|ps| ps.iter().cloned().collect())
            .unwrap_or_default();
        out.removed.push(Removed {
            path: path.clone(),
            kind: s.kind().as_str(),
            still_at: still,
        });
    }
    for (path, old) in &before {
        let Some(new) = after.get(path) else { continue };
        let (from, to) = (definition(path, old), definition(path, new));
        // Report a move once, at the path that names the object's definition site or its
        // first re-export; not for every re-export.
        if from != to && old.kind() != Kind::Unknown {
            out.moved.push(Moved {
                path: path.clone(),
                from,
                to,
            });
        }
        // Signatures and deprecations are reported at definitions only.
        if new.canonical.is_some() {
            continue;
        }
        if old.signatures != new.signatures && !old.signatures.is_empty() && !new.signatures.is_empty() {
            let changes = signature_changes(&old.signatures, &new.signatures);
            if !changes.is_empty() {
                out.signatures.push(SignatureChange {
                    path: path.clone(),
                    before: render(&old.signatures),
                    after: render(&new.signatures),
                    changes,
                });
            }
        }
        if new.deprecated.is_some() && old.deprecated.is_none() {
            out.deprecated.push(Deprecated {
                path: path.clone(),
                message: new.deprecated.clone().unwrap_or_default(),
            });
        }
    }
    Ok(out)
}

fn render(sigs: &[Signature]) -> String {
    sigs.iter().map(Signature::render).collect::<Vec<_>>().join(" | ")
}

/// What a caller notices, comparing the most permissive signature of each side.
fn signature_changes(old: &[Signature], new: &[Signature]) -> Vec<String> {
    let accepts = |sigs: &[Signature], name: &str| sigs.iter().any(|s| s.accepts_keyword(name));
    let named = |sigs: &[Signature]| -> BTreeSet<String> {
        sigs.iter()
            .flat_map(|s| s.params.iter())
            .filter(|p| !matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword))
            .map(|p| p.name.clone())
            .collect()
    };
    let (old_names, new_names) = (named(old), named(new));
    let mut out = Vec::new();
    let removed: Vec<&String> = old_names.difference(&new_names).collect();
    let added: Vec<&String> = new_names.difference(&old_names).collect();
    for name in &removed {
        if !accepts(new, name) {
            out.push(format!("parameter `{name}` removed"));
        }
    }
    for name in &added {
        let required = new.iter().all(|s| {
            s.params
                .iter()
                .any(|p| &&p.name == name && !p.default && !matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword))
        });
        out.push(if required {
            format!("required parameter `{name}` added")
        } else {
            format!("parameter `{name}` added")
        });
    }
    for name in old_names.intersection(&new_names) {
        let param = |sigs: &[Signature]| {
            sigs.iter()
                .flat_map(|s| s.params.iter())
                .find(|p| &p.name == name)
                .cloned()
        };
        if let (Some(o), Some(n)) = (param(old), param(new)) {
            if o.default && !n.default {
                out.push(format!("parameter `{name}` made required"));
            }
            if o.kind != ParamKind::KeywordOnly && n.kind == ParamKind::KeywordOnly {
                out.push(format!("parameter `{name}` made keyword-only"));
            }
            if o.kind != ParamKind::PositionalOnly && n.kind == ParamKind::PositionalOnly {
                out.push(format!("parameter `{name}` made positional-only"));
            }
        }
    }
    // A name no parameter has is accepted only through `**kwargs`.
    if accepts(old, "\u{0}") != accepts(new, "\u{0}") {
        out.push(if accepts(new, "\u{0}") {
            "now accepts **kwargs".to_string()
        } else {
            "no longer accepts **kwargs".to_string()
        });
    }
    out
}
