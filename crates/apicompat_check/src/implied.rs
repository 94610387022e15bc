//! Package predicates in tests: `if is_xpu_available():` (accelerate) guards `torch.xpu.*`.
//!
//! A test that calls a function of an indexed package leaves a mark
//! ([`crate::collect::INDEXED_CALL`] and the function's path) in the requirements of what it
//! guards. Once the targets are chosen, the mark becomes the paths the function's true result
//! implies ([`apicompat_surface::Symbol::implies`], read from each release's source by
//! `apicompat_extract::implies`) in **every** targeted release of its package that has it:
//! what all of them agree on, nothing when one of them is unknown. A mark that names no
//! predicate is dropped. As for the project's own predicates ([`crate::presence`]), the
//! implication goes one way: under `not f()` nothing is assumed.

use std::sync::Arc;

use apicompat_hash::HashMap;
use apicompat_index::{PackageView, Status};

use crate::collect::{PathTest, INDEXED_CALL};
use crate::evaluate::Evaluator;
use crate::files::Analyzed;

fn marked(t: &PathTest) -> Option<&str> {
    t.path.strip_prefix(INDEXED_CALL)
}

fn has_marks(requires: &[PathTest]) -> bool {
    requires
        .iter()
        .any(|t| marked(t).is_some() || conditional(t))
}

/// A test a project helper's true result holds only where the package predicates it may
/// return instead also imply it (`collect/reads.rs` `true_returns`): its alternatives are
/// their marks.
fn conditional(t: &PathTest) -> bool {
    t.alternatives.iter().any(|a| a.starts_with(INDEXED_CALL))
}

/// Replaces the marks of package predicates in every file's requirements (a file is copied
/// only when it has some); `releases` gives the targeted releases of a package (`check`:
/// those chosen; `range`: all of them).
pub(crate) fn apply(
    eval: &Evaluator<'_>,
    releases: impl Fn(&PackageView) -> Option<Vec<usize>>,
    files: &mut [Arc<Analyzed>],
) {
    let mut memo: HashMap<String, Vec<PathTest>> = HashMap::default();
    let mut implied = |path: &str| -> Vec<PathTest> {
        if let Some(t) = memo.get(path) {
            return t.clone();
        }
        let t = implied_by(eval, &releases, path)
            .into_iter()
            .map(|p| PathTest {
                path: p,
                present: true,
                instance: false,
                alternatives: Vec::new(),
            })
            .collect::<Vec<_>>();
        memo.insert(path.to_string(), t.clone());
        t
    };
    let mut expand = |requires: &[PathTest]| -> Option<Vec<PathTest>> {
        if !has_marks(requires) {
            return None;
        }
        let mut out: Vec<PathTest> = Vec::with_capacity(requires.len());
        for t in requires {
            let found = match marked(t) {
                Some(path) => implied(path),
                None if conditional(t) => {
                    let implied_everywhere = t.alternatives.iter().all(|a| {
                        a.strip_prefix(INDEXED_CALL).is_some_and(|p| {
                            implied(p)
                                .iter()
                                .any(|i| i.path == t.path && i.present == t.present)
                        })
                    });
                    let plain = PathTest {
                        alternatives: Vec::new(),
                        ..t.clone()
                    };
                    implied_everywhere.then_some(plain).into_iter().collect()
                }
                None => vec![t.clone()],
            };
            for f in found {
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
        Some(out)
    };
    for a in files.iter_mut() {
        crate::presence::rewrite_requires(a, has_marks, &mut expand);
    }
}

/// The paths the predicate at `path` implies in every targeted release of its package that
/// has it.
fn implied_by(
    eval: &Evaluator<'_>,
    releases: &impl Fn(&PackageView) -> Option<Vec<usize>>,
    path: &str,
) -> Vec<String> {
    let root = path.split('.').next().unwrap_or(path);
    let Some(view) = eval.package_for(root) else {
        return Vec::new();
    };
    let Some(targeted) = releases(view) else {
        return Vec::new();
    };
    let mut common: Option<Vec<String>> = None;
    for r in targeted {
        let implies = match implies_at(view, path, r) {
            Some(Some(i)) => i,
            // The call fails there (reported on its own): it guards nothing there.
            Some(None) => continue,
            None => return Vec::new(),
        };
        common = Some(match common {
            None => implies,
            Some(c) => c.into_iter().filter(|p| implies.contains(p)).collect(),
        });
    }
    common.unwrap_or_default()
}

/// What release `r` says the function at `path` implies: `Some(None)` where it is absent,
/// `None` where that cannot be known.
fn implies_at(view: &PackageView, path: &str, r: usize) -> Option<Option<Vec<String>>> {
    match view.status(path, r).ok()? {
        Status::Present { symbol, .. } => {
            if !symbol.implies.is_empty() {
                return Some(Some(symbol.implies));
            }
            // A re-export keeps its definition's facts there.
            match &symbol.canonical {
                Some(c) if c != path => match view.status(c, r).ok()? {
                    Status::Present { symbol, .. } => Some(Some(symbol.implies)),
                    _ => None,
                },
                _ => Some(Some(Vec::new())),
            }
        }
        Status::Absent { .. } => Some(None),
        Status::Unknown { .. } => None,
    }
}
