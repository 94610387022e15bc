//! What changed between two releases of a package: paths added and removed, definitions that
//! moved, signatures that changed, deprecations that appeared.

use std::collections::{BTreeMap, BTreeSet};

use apicompat_surface::{Kind, ParamKind, Signature, Symbol};
use serde::Serialize;

use crate::catalog::PackageView;
use crate::reader::{FacetId, PackageIndex};
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

/// A path's object: where it is defined (its canonical path, or itself).
fn definition(path: &str, s: &Symbol) -> String {
    s.canonical.clone().unwrap_or_else(|| path.to_string())
}

fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// Compares release positions `a` and `b` of a package, for paths under `prefix` (all when
/// empty). A path under an added or removed parent is counted with its parent, not listed.
///
/// Only paths whose stored facts differ between the two releases are decoded (facets are
/// deduplicated, so equal facet ids mean equal facts); other paths of the same objects are
/// found afterwards by name, for `same_object_as` and `still_at`.
pub fn diff(view: &PackageView, a: usize, b: usize, prefix: &str) -> Result<Diff, IndexError> {
    let (ia, pa) = view
        .index_of(a)
        .ok_or_else(|| IndexError::Invalid("no such release".into()))?;
    let (ib, pb) = view
        .index_of(b)
        .ok_or_else(|| IndexError::Invalid("no such release".into()))?;
    let mut before: BTreeMap<String, Symbol> = BTreeMap::new();
    let mut after: BTreeMap<String, Symbol> = BTreeMap::new();
    if std::ptr::eq(ia, ib) {
        let mut changed: Vec<(String, Option<FacetId>, Option<FacetId>)> = Vec::new();
        ia.for_each_pair(prefix, pa, pb, |path, fa, fb| {
            if fa != fb {
                changed.push((path.to_string(), fa, fb));
            }
        })?;
        for (path, fa, fb) in changed {
            if let Some(f) = fa {
                before.insert(path.clone(), ia.symbol(f)?);
            }
            if let Some(f) = fb {
                after.insert(path, ia.symbol(f)?);
            }
        }
    } else {
        // Releases from two indexes (embedded and cached): compare what they say.
        let side = |index: &PackageIndex, pos: usize, out: &mut BTreeMap<String, Symbol>| {
            let mut found: Vec<(String, FacetId)> = Vec::new();
            let r = index.for_each_pair(prefix, pos, pos, |path, f, _| {
                if let Some(f) = f {
                    found.push((path.to_string(), f));
                }
            });
            r.and_then(|()| {
                for (path, f) in found {
                    out.insert(path, index.symbol(f)?);
                }
                Ok(())
            })
        };
        side(ia, pa, &mut before)?;
        side(ib, pb, &mut after)?;
        let same: Vec<String> = before
            .iter()
            .filter(|(p, s)| after.get(*p) == Some(*s))
            .map(|(p, _)| p.clone())
            .collect();
        for p in same {
            before.remove(&p);
            after.remove(&p);
        }
    }
    let versions = view.versions();
    let mut out = Diff {
        package: view.name().to_string(),
        from: versions.get(a).cloned().unwrap_or_default(),
        to: versions.get(b).cloned().unwrap_or_default(),
        ..Diff::default()
    };
    // Listed only if its parent exists on both sides (a parent absent from both maps has the
    // same facts in both releases).
    let top_most = |path: &str,
                    set: &BTreeMap<String, Symbol>,
                    other: &BTreeMap<String, Symbol>| {
        path.rsplit_once('.')
            .is_none_or(|(parent, _)| !(set.contains_key(parent) && !other.contains_key(parent)))
    };
    let mut added: Vec<(String, &'static str, String)> = Vec::new();
    for (path, s) in &after {
        if before.contains_key(path)
            || !top_most(path, &after, &before)
            || view.status(path, a)?.is_present()
        {
            continue;
        }
        added.push((path.clone(), s.kind().as_str(), definition(path, s)));
    }
    let mut removed: Vec<(String, &'static str, String)> = Vec::new();
    for (path, s) in &before {
        if after.contains_key(path)
            || !top_most(path, &before, &after)
            || view.status(path, b)?.is_present()
        {
            continue;
        }
        removed.push((path.clone(), s.kind().as_str(), definition(path, s)));
    }
    // Objects whose definition moved: old definition -> new one.
    let mut moved_to: BTreeMap<String, String> = BTreeMap::new();
    for (path, old) in &before {
        let Some(new) = after.get(path) else { continue };
        let (from, to) = (definition(path, old), definition(path, new));
        if from != to && old.kind() != Kind::Unknown {
            moved_to.insert(from.clone(), to.clone());
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
        if old.signatures != new.signatures
            && !old.signatures.is_empty()
            && !new.signatures.is_empty()
        {
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
    // Other paths of the same objects, found by the last segment of their names.
    let mut names: BTreeSet<String> = BTreeSet::new();
    for (path, _, def) in added.iter().chain(&removed) {
        names.insert(last_segment(path).to_string());
        names.insert(last_segment(def).to_string());
        if let Some(to) = moved_to.get(def) {
            names.insert(last_segment(to).to_string());
        }
    }
    let mut candidates: Vec<String> = Vec::new();
    if !names.is_empty() {
        let mut visit = |p: &str| {
            if names.contains(last_segment(p)) {
                candidates.push(p.to_string());
            }
        };
        ia.for_each_path(&mut visit);
        if !std::ptr::eq(ia, ib) {
            ib.for_each_path(&mut visit);
        }
        candidates.sort();
        candidates.dedup();
    }
    // Each candidate's definition in each release, if the release stores it.
    let mut defs: BTreeMap<&str, (Option<String>, Option<String>)> = BTreeMap::new();
    for c in &candidates {
        let at = |index: &PackageIndex, pos: usize| -> Result<Option<String>, IndexError> {
            Ok(match index.facet_in(c, pos)? {
                Some(f) => Some(definition(c, &index.symbol(f)?)),
                None => None,
            })
        };
        defs.insert(c.as_str(), (at(ia, pa)?, at(ib, pb)?));
    }
    for (path, kind, def) in added {
        let mut olds: BTreeSet<&str> = BTreeSet::new();
        olds.insert(def.as_str());
        for (from, to) in &moved_to {
            if *to == def {
                olds.insert(from.as_str());
            }
        }
        let same: Vec<String> = defs
            .iter()
            .filter(|(c, (da, db))| {
                **c != path
                    && da.is_some()
                    && (da.as_deref().is_some_and(|d| olds.contains(d))
                        || db.as_deref() == Some(def.as_str()))
            })
            .map(|(c, _)| c.to_string())
            .collect();
        out.added.push(Added {
            path,
            kind,
            same_object_as: same,
        });
    }
    for (path, kind, def) in removed {
        let mut news: BTreeSet<&str> = BTreeSet::new();
        news.insert(def.as_str());
        if let Some(to) = moved_to.get(&def) {
            news.insert(to.as_str());
        }
        let still: Vec<String> = defs
            .iter()
            .filter(|(c, (_, db))| **c != path && db.as_deref().is_some_and(|d| news.contains(d)))
            .map(|(c, _)| c.to_string())
            .collect();
        out.removed.push(Removed {
            path,
            kind,
            still_at: still,
        });
    }
    Ok(out)
}

fn render(sigs: &[Signature]) -> String {
    sigs.iter()
        .map(Signature::render)
        .collect::<Vec<_>>()
        .join(" | ")
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
    let mut removed: Vec<&String> = old_names.difference(&new_names).collect();
    let mut added: Vec<&String> = new_names.difference(&old_names).collect();
    // A parameter removed and another added at the same position of the first signature: a
    // rename.
    if let (Some(o), Some(n)) = (old.first(), new.first()) {
        for (po, pn) in o.params.iter().zip(&n.params) {
            let (Some(ri), Some(ai)) = (
                removed.iter().position(|r| **r == po.name),
                added.iter().position(|a| **a == pn.name),
            ) else {
                continue;
            };
            if po.kind == pn.kind
                && !matches!(po.kind, ParamKind::VarPositional | ParamKind::VarKeyword)
            {
                out.push(format!("parameter `{}` renamed to `{}`", po.name, pn.name));
                removed.remove(ri);
                added.remove(ai);
            }
        }
    }
    for name in &removed {
        if !accepts(new, name) {
            out.push(format!("parameter `{name}` removed"));
        }
    }
    for name in &added {
        let required = new.iter().all(|s| {
            s.params.iter().any(|p| {
                &&p.name == name
                    && !p.default
                    && !matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword)
            })
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
