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
    /// Other paths (re-exports) of the same object, which moved with it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SignatureChange {
    pub path: String,
    pub before: String,
    pub after: String,
    pub changes: Vec<String>,
    /// Some change can break a call that worked (a parameter removed, renamed, made required
    /// or keyword-only, a required one added, `**kwargs` dropped); without one, every call
    /// that bound before still binds (an optional parameter added, `**kwargs` accepted).
    pub breaking: bool,
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

/// Paths with the fewest private segments first, then the shortest.
fn by_publicness(paths: BTreeSet<&str>) -> Vec<String> {
    let mut keyed: Vec<(usize, usize, &str)> = paths
        .into_iter()
        .map(|p| {
            (
                p.split('.').filter(|s| s.starts_with('_')).count(),
                p.len(),
                p,
            )
        })
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, _, p)| p.to_string()).collect()
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
    let mut every_buf = String::new();
    let mut every: Vec<(usize, usize, Option<FacetId>, Option<FacetId>)> = Vec::new();
    if std::ptr::eq(ia, ib) {
        let mut changed: Vec<(String, Option<FacetId>, Option<FacetId>)> = Vec::new();
        let keep_all = prefix.is_empty();
        ia.for_each_pair(prefix, pa, pb, |path, _, fa, fb| {
            if fa != fb {
                changed.push((path.to_string(), fa, fb));
            }
            // Every path, for the search of other names of the same objects below (one walk
            // of the path map instead of two).
            if keep_all && (fa.is_some() || fb.is_some()) {
                let start = every_buf.len();
                every_buf.push_str(path);
                every.push((start, every_buf.len(), fa, fb));
            }
        })?;
        for (path, fa, fb) in changed {
            // Paths on one side only need their kind and definition; both sides, everything.
            let decode = |f: FacetId, full: bool| -> Result<Symbol, IndexError> {
                if full {
                    return ia.symbol(f);
                }
                let (kind, canonical) = ia.kind_and_canonical(f)?;
                Ok(Symbol {
                    kind: Some(kind),
                    canonical,
                    ..Symbol::default()
                })
            };
            let both = fa.is_some() && fb.is_some();
            if let Some(f) = fa {
                before.insert(path.clone(), decode(f, both)?);
            }
            if let Some(f) = fb {
                after.insert(path, decode(f, both)?);
            }
        }
    } else {
        // Releases from two indexes (embedded and cached): compare what they say.
        let side = |index: &PackageIndex, pos: usize, out: &mut BTreeMap<String, Symbol>| {
            let mut found: Vec<(String, FacetId)> = Vec::new();
            let r = index.for_each_pair(prefix, pos, pos, |path, _, f, _| {
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
    // Whether a path is stored in the older (`a`) or newer release: the changed paths say;
    // others are the same in both (or outside the prefix: looked up).
    let stored = |path: &str, newer: bool| -> bool {
        let (mine, other) = if newer {
            (&after, &before)
        } else {
            (&before, &after)
        };
        if mine.contains_key(path) {
            return true;
        }
        if other.contains_key(path) {
            return false;
        }
        let (index, pos) = if newer { (ib, pb) } else { (ia, pa) };
        matches!(index.facet_in(path, pos), Ok(Some(_)))
    };
    // Listed only if its parent is in both releases (else it is counted with the parent).
    let top_most = |path: &str| {
        path.rsplit_once('.')
            .is_none_or(|(parent, _)| stored(parent, false) && stored(parent, true))
    };
    let mut added: Vec<(String, &'static str, String)> = Vec::new();
    for (path, s) in &after {
        if before.contains_key(path) || !top_most(path) || view.status(path, a)?.is_present() {
            continue;
        }
        added.push((path.clone(), s.kind().as_str(), definition(path, s)));
    }
    let mut removed: Vec<(String, &'static str, String)> = Vec::new();
    for (path, s) in &before {
        if after.contains_key(path) || !top_most(path) || view.status(path, b)?.is_present() {
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
            // One entry per moved object; its re-exports are listed with it.
            match out.moved.iter_mut().find(|m| m.from == from && m.to == to) {
                Some(m) if *path == from => {
                    let old_path = std::mem::replace(&mut m.path, path.clone());
                    m.also.push(old_path);
                }
                Some(m) => m.also.push(path.clone()),
                None => out.moved.push(Moved {
                    path: path.clone(),
                    from,
                    to,
                    also: Vec::new(),
                }),
            }
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
                let breaking = changes.iter().any(|(_, breaks)| *breaks);
                let changes = changes.into_iter().map(|(c, _)| c).collect();
                out.signatures.push(SignatureChange {
                    path: path.clone(),
                    before: render(&old.signatures),
                    after: render(&new.signatures),
                    changes,
                    breaking,
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
    // Only objects the package defines: a `typing.Any` imported into many modules is not one
    // of its objects.
    let roots: BTreeSet<String> = view.roots().into_iter().collect();
    let own = |def: &str| roots.contains(def.split('.').next().unwrap_or(def));
    let mut names: BTreeSet<String> = BTreeSet::new();
    for (path, _, def) in added.iter().chain(&removed) {
        if !own(def) {
            continue;
        }
        names.insert(last_segment(path).to_string());
        names.insert(last_segment(def).to_string());
        if let Some(to) = moved_to.get(def) {
            names.insert(last_segment(to).to_string());
        }
    }
    // Each candidate's definition in each release that stores it, indexed by definition.
    let mut in_a: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut in_b: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if !names.is_empty() {
        let mut add = |index: &PackageIndex,
                       path: &str,
                       fa: Option<FacetId>,
                       fb: Option<FacetId>|
         -> Result<(), IndexError> {
            if let Some(f) = fa {
                let def = index
                    .kind_and_canonical(f)?
                    .1
                    .unwrap_or_else(|| path.to_string());
                in_a.entry(def).or_default().push(path.to_string());
            }
            if let Some(f) = fb {
                let def = index
                    .kind_and_canonical(f)?
                    .1
                    .unwrap_or_else(|| path.to_string());
                in_b.entry(def).or_default().push(path.to_string());
            }
            Ok(())
        };
        let mut error = None;
        if !every.is_empty() {
            for &(start, end, fa, fb) in &every {
                let path = &every_buf[start..end];
                if names.contains(last_segment(path)) {
                    add(ia, path, fa, fb)?;
                }
            }
        } else if std::ptr::eq(ia, ib) {
            ia.for_each_pair("", pa, pb, |path, _, fa, fb| {
                if names.contains(last_segment(path)) {
                    if let Err(e) = add(ia, path, fa, fb) {
                        error = Some(e);
                    }
                }
            })?;
        } else {
            ia.for_each_pair("", pa, pa, |path, _, fa, _| {
                if names.contains(last_segment(path)) {
                    if let Err(e) = add(ia, path, fa, None) {
                        error = Some(e);
                    }
                }
            })?;
            ib.for_each_pair("", pb, pb, |path, _, fb, _| {
                if names.contains(last_segment(path)) {
                    if let Err(e) = add(ib, path, None, fb) {
                        error = Some(e);
                    }
                }
            })?;
        }
        if let Some(e) = error {
            return Err(e);
        }
    }
    let stored_a: BTreeSet<&str> = in_a.values().flatten().map(String::as_str).collect();
    for (path, kind, def) in added {
        let mut same: BTreeSet<&str> = BTreeSet::new();
        if !own(&def) {
            out.added.push(Added {
                path,
                kind,
                same_object_as: Vec::new(),
            });
            continue;
        }
        // Paths the older release had for the object: by its old definition (where it was
        // defined before a move) or by what they name in the newer release.
        for (from, to) in &moved_to {
            if *to == def {
                same.extend(in_a.get(from).into_iter().flatten().map(String::as_str));
            }
        }
        same.extend(in_a.get(&def).into_iter().flatten().map(String::as_str));
        same.extend(
            in_b.get(&def)
                .into_iter()
                .flatten()
                .map(String::as_str)
                .filter(|c| stored_a.contains(c)),
        );
        same.remove(path.as_str());
        out.added.push(Added {
            kind,
            same_object_as: by_publicness(same),
            path,
        });
    }
    for (path, kind, def) in removed {
        let mut still: BTreeSet<&str> = BTreeSet::new();
        if !own(&def) {
            out.removed.push(Removed {
                path,
                kind,
                still_at: Vec::new(),
            });
            continue;
        }
        still.extend(in_b.get(&def).into_iter().flatten().map(String::as_str));
        if let Some(to) = moved_to.get(&def) {
            still.extend(in_b.get(to).into_iter().flatten().map(String::as_str));
        }
        still.remove(path.as_str());
        out.removed.push(Removed {
            kind,
            still_at: by_publicness(still),
            path,
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

/// What a caller notices, comparing the most permissive signature of each side; each change
/// says whether it can break a call that bound before.
fn signature_changes(old: &[Signature], new: &[Signature]) -> Vec<(String, bool)> {
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
    // A parameter removed and another added at the same position of first signatures of the
    // same length: a rename.
    if let (Some(o), Some(n)) = (
        old.first(),
        new.first()
            .filter(|n| Some(n.params.len()) == old.first().map(|o| o.params.len())),
    ) {
        for (po, pn) in o.params.iter().zip(&n.params) {
            let (Some(ri), Some(ai)) = (
                removed.iter().position(|r| **r == po.name),
                added.iter().position(|a| **a == pn.name),
            ) else {
                continue;
            };
            let variadic =
                |k: ParamKind| matches!(k, ParamKind::VarPositional | ParamKind::VarKeyword);
            if !variadic(po.kind) && !variadic(pn.kind) {
                out.push((
                    format!("parameter `{}` renamed to `{}`", po.name, pn.name),
                    true,
                ));
                removed.remove(ri);
                added.remove(ai);
            }
        }
    }
    for name in &removed {
        if !accepts(new, name) {
            out.push((format!("parameter `{name}` removed"), true));
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
            (format!("required parameter `{name}` added"), true)
        } else {
            (format!("parameter `{name}` added"), false)
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
                out.push((format!("parameter `{name}` made required"), true));
            }
            if o.kind != ParamKind::KeywordOnly && n.kind == ParamKind::KeywordOnly {
                out.push((format!("parameter `{name}` made keyword-only"), true));
            }
            if o.kind != ParamKind::PositionalOnly && n.kind == ParamKind::PositionalOnly {
                out.push((format!("parameter `{name}` made positional-only"), true));
            }
        }
    }
    // A name no parameter has is accepted only through `**kwargs`.
    if accepts(old, "\u{0}") != accepts(new, "\u{0}") {
        out.push(if accepts(new, "\u{0}") {
            ("now accepts **kwargs".to_string(), false)
        } else {
            ("no longer accepts **kwargs".to_string(), true)
        });
    }
    out
}
