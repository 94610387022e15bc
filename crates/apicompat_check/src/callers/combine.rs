//! How covers combine: the sites of a name joined, a function's callers within its module.

use super::{Context, Cover, Step};
use crate::collect::GuardAt;
use crate::versions::Pred;

/// Where a function runs: where its calls run (`called`, matched by name, so over every
/// function of that name), but never beyond where its own module is imported when that is a
/// condition (`module`): the function exists only there. The module's `try` is not the
/// function's (a later call is not in it), as in [`apply`]. verl's vendored copies of one
/// module for vllm 0.3.1, 0.4.2, 0.5.4 and 0.6.3 are each imported under `if package_version
/// == '0.3.1':` and the like; a method they share by name imports `.worker` in its body, which
/// then runs only under its own copy's condition, not under the union of the four.
pub(super) fn within_module(called: Option<Cover>, module: Option<Cover>) -> Option<Cover> {
    let Some(Cover::Limited {
        versions, has, at, ..
    }) = module
    else {
        return called;
    };
    Some(match called {
        None => Cover::Limited {
            versions,
            has,
            at,
            caught: false,
        },
        Some(Cover::Guarded { at: caught_at }) => Cover::Limited {
            versions,
            has,
            at: caught_at,
            caught: true,
        },
        Some(Cover::Limited {
            versions: mut v,
            has: mut h,
            at,
            caught,
        }) => {
            v.extend(versions);
            h.extend(has);
            Cover::Limited {
                versions: v,
                has: h,
                at,
                caught,
            }
        }
    })
}

/// The cover of sites none of which runs unconditionally: guarded when all are, else where
/// the limited ones run.
pub(super) fn join(steps: Vec<Step>) -> Option<Cover> {
    let mut guarded_at: Option<GuardAt> = None;
    let mut contexts: Vec<Context> = Vec::new();
    for s in steps {
        match s {
            Step::Guarded(at) => guarded_at = guarded_at.or(Some(at)),
            Step::Limited(c) => contexts.push(c),
            Step::Free => return None,
        }
    }
    if contexts.is_empty() {
        return guarded_at.map(|at| Cover::Guarded { at });
    }
    let versions = union_versions(&contexts);
    let has: Vec<String> = contexts[0]
        .has
        .iter()
        .filter(|h| contexts[1..].iter().all(|c| c.has.contains(h)))
        .cloned()
        .collect();
    // Caught everywhere: where a site is guarded without a condition, and where the limited
    // ones are caught too.
    let caught = contexts.iter().all(|c| c.caught);
    if versions.is_empty() && has.is_empty() {
        return match (caught, guarded_at) {
            (true, Some(at)) => Some(Cover::Guarded { at }),
            (true, None) => Some(Cover::Guarded { at: contexts[0].at }),
            _ => None,
        };
    }
    Some(Cover::Limited {
        versions,
        has,
        at: contexts[0].at,
        caught,
    })
}

/// Where any of the contexts holds, one condition per top-level module: a module is
/// restricted only where every context restricts it (projecting each context on its modules
/// admits at least every release that any context admits).
fn union_versions(contexts: &[Context]) -> Vec<(String, Pred)> {
    let mut roots: Vec<&str> = contexts[0]
        .versions
        .iter()
        .map(|(r, _)| r.as_str())
        .collect();
    roots.sort_unstable();
    roots.dedup();
    let mut out = Vec::new();
    for root in roots {
        let mut alternatives = Vec::new();
        for c in contexts {
            let parts: Vec<Pred> = c
                .versions
                .iter()
                .filter(|(r, _)| r == root)
                .map(|(_, p)| p.clone())
                .collect();
            if parts.is_empty() {
                alternatives.clear();
                break;
            }
            alternatives.push(if parts.len() == 1 {
                parts.into_iter().next().unwrap_or(Pred::And(Vec::new()))
            } else {
                Pred::And(parts)
            });
        }
        match alternatives.len() {
            0 => {}
            1 => out.push((root.to_string(), alternatives.remove(0))),
            _ => out.push((root.to_string(), Pred::Or(alternatives))),
        }
    }
    out
}
