//! Module-level patches of a package's attribute: `if np.__version__ >= "2.0": np.NaN =
//! np.nan`, `if not hasattr(np, "NaN"): np.NaN = np.nan`, or an unconditional `mod.f = g`.
//! After the patch has run, a read of the path in the same file finds the name wherever the
//! patch ran, so such a read fails only on releases where the patch's condition does not hold
//! (and the package lacks the name): the read runs under the negation of that condition.
//!
//! Reads that follow the patch: those inside functions of the file (they run once the module
//! is imported) and the module-level statements after it. A read before the patch, or in the
//! patch's own statement (`torch.load = wrap(torch.load)`), reads the original and is judged
//! as usual; so are reads in other files, which may run before this module is imported.

use ruff_text_size::TextSize;

use super::{PathTest, Use, UseKind};
use crate::model::Reach;
use crate::versions::Pred;

/// Patches looked at, at most, per file (each is compared with every use of the file).
const MAX_PATCHES: usize = 64;

/// A patch: the path it assigns, where, and the conditions under which the read of the path
/// is still judged (the negation of the patch's own).
struct Patch {
    path: String,
    stmt_start: TextSize,
    unless: Unless,
}

enum Unless {
    /// The patch always runs: later reads never fail.
    Never,
    /// Reads are judged only where this version condition holds.
    Version(String, Pred),
    /// Reads are judged only where this path test holds.
    Test(PathTest),
}

/// Adds to every read that follows a module-level patch of its path the negation of the
/// patch's condition (see the module documentation).
pub(super) fn apply(uses: &mut [Use]) {
    let patches: Vec<Patch> = uses
        .iter()
        .filter(|u| u.kind == UseKind::Store && u.func.is_none() && u.reach != Reach::CallTime)
        .filter_map(patch_of)
        .take(MAX_PATCHES)
        .collect();
    if patches.is_empty() {
        return;
    }
    for u in uses.iter_mut() {
        if matches!(u.kind, UseKind::Store) {
            continue;
        }
        for p in &patches {
            let under = u.path == p.path
                || (u.path.starts_with(&p.path)
                    && u.path.as_bytes().get(p.path.len()) == Some(&b'.'));
            let after = u.func.is_some() || u.stmt_start > p.stmt_start;
            if !under || !after {
                continue;
            }
            match &p.unless {
                Unless::Never => u.requires.push(PathTest {
                    path: p.path.clone(),
                    present: true,
                    instance: true,
                    or_absent: Vec::new(),
                }),
                Unless::Version(root, pred) => u.versions.push((root.clone(), pred.clone())),
                Unless::Test(t) => u.requires.push(t.clone()),
            }
        }
    }
}

/// The patch a store is, if its condition can be negated: no condition, version conditions on
/// one package, or a single test of a path.
fn patch_of(u: &Use) -> Option<Patch> {
    let unless = match (u.versions.as_slice(), u.requires.as_slice()) {
        ([], []) => Unless::Never,
        (versions, []) => {
            let root = &versions[0].0;
            if versions.iter().any(|(r, _)| r != root) {
                return None;
            }
            let all: Vec<Pred> = versions.iter().map(|(_, p)| p.clone()).collect();
            let cond = if all.len() == 1 {
                all.into_iter().next()?
            } else {
                Pred::And(all)
            };
            Unless::Version(root.clone(), Pred::Not(Box::new(cond)))
        }
        ([], [t]) if t.or_absent.is_empty() => Unless::Test(PathTest {
            path: t.path.clone(),
            present: !t.present,
            instance: t.instance,
            or_absent: Vec::new(),
        }),
        _ => return None,
    };
    Some(Patch {
        path: u.path.clone(),
        stmt_start: u.stmt_start,
        unless,
    })
}
