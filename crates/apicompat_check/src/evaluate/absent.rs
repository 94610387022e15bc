//! Which segment of a used path each release lacks first, for the messages of AC001 and
//! AC002 (`torch._six` in 2.0 and later; in 1.13 only its `PY3`).

use crate::rules;

/// A segment of a used path that some releases lack first, and those releases.
pub(super) type AbsentIn = (String, Vec<usize>);

/// Groups `missing` (positions of releases, oldest first) by the first segment each lacks
/// (`absent`, one per release of `missing`), the newest release's segment first.
pub(super) fn groups(missing: &[usize], absent: &[Option<String>]) -> Vec<AbsentIn> {
    let mut groups: Vec<AbsentIn> = Vec::new();
    for (&r, a) in missing.iter().zip(absent).rev() {
        let Some(a) = a else { continue };
        match groups.iter_mut().find(|(m, _)| m == a) {
            Some((_, at)) => at.insert(0, r),
            None => groups.push((a.clone(), vec![r])),
        }
    }
    groups
}

/// Each segment with the releases that lack it (`versions` named as ranges), or `None` when
/// that is all `listed` releases.
pub(super) fn rendered(
    groups: &[AbsentIn],
    listed: usize,
    versions: &[String],
) -> Vec<(String, Option<String>)> {
    groups
        .iter()
        .map(|(m, at)| {
            let ranges = (at.len() < listed).then(|| {
                apicompat_index::ranges(versions, &rules::mask(versions.len(), at)).join(", ")
            });
            (m.clone(), ranges)
        })
        .collect()
}
