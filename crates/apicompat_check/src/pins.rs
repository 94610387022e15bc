//! Requirement lines that admit exactly a set of indexed releases: `torch>=2.5`,
//! `colossalai>=0.3,<0.4.1`, `torch>=2.4,!=2.5.0`.

use apicompat_requirements::Version;

/// `2.5.0` -> `2.5`, `2.10.0` -> `2.10`, `0.4.1` -> `0.4.1`: trailing zero components dropped
/// (at least two kept), which PEP 440 compares as equal. Versions with pre, post, dev or local
/// parts, or an epoch, are written in full.
pub fn short(version: &Version) -> String {
    let plain = version.epoch() == 0
        && !version.any_prerelease()
        && version.post().is_none()
        && version.local().is_empty();
    if !plain {
        return version.to_string();
    }
    let mut parts: Vec<u64> = version.release().to_vec();
    while parts.len() > 2 && parts.last() == Some(&0) {
        parts.pop();
    }
    parts
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// The next minor series after a version: `2.15.0` -> `2.16`.
pub fn next_minor(version: &Version) -> String {
    let r = version.release();
    match r {
        [major, minor, ..] => format!("{major}.{}", minor + 1),
        [major] => format!("{}", major + 1),
        [] => version.to_string(),
    }
}

/// The bound `<B` that leaves out `versions[i]` (oldest first) and keeps the release indexed
/// before it: `B` is the start of `versions[i]`'s series (`1.0` for `1.0.1`) when the release
/// before is of an earlier series, since the releases of the series the index leaves out
/// (indexes that keep the newest patch of each series) are likely to break alike; otherwise
/// `versions[i]` itself (shortened).
pub fn upper_bound(versions: &[Version], i: usize) -> String {
    let v = &versions[i];
    let series = |x: &Version| x.release().get(..2).map(<[u64]>::to_vec);
    let same_series =
        i > 0 && series(&versions[i - 1]).is_some() && series(&versions[i - 1]) == series(v);
    let plain = v.epoch() == 0 && !v.any_prerelease() && v.post().is_none() && v.local().is_empty();
    match v.release() {
        [major, minor, ..] if plain && !same_series => format!("{major}.{minor}"),
        _ => short(v),
    }
}

/// [`upper_bound`] for versions written as text; `versions[i]` as written when one does not
/// parse.
pub fn upper_bound_of(versions: &[String], i: usize) -> String {
    let parsed: Option<Vec<Version>> = versions
        .iter()
        .map(|v| apicompat_requirements::parse_version(v).ok())
        .collect();
    match parsed {
        Some(p) if i < p.len() => upper_bound(&p, i),
        _ => versions.get(i).cloned().unwrap_or_default(),
    }
}

/// A requirement on `package` that admits exactly the releases of `versions` (oldest first)
/// marked in `set`, among the indexed ones: a lower bound at the first, `!=` for releases left
/// out in between, and an upper bound `<` the first indexed release after the last. When the
/// set reaches the newest indexed release it stays open above (later releases are unknown,
/// not broken) unless `cap` asks for `<` the next minor series. None for an empty set.
pub fn requirement_line(
    package: &str,
    versions: &[Version],
    set: &[bool],
    cap: bool,
) -> Option<String> {
    let members: Vec<usize> = (0..versions.len())
        .filter(|&i| set.get(i).copied().unwrap_or(false))
        .collect();
    let (&lo, &hi) = (members.first()?, members.last()?);
    let n = versions.len();
    if lo == hi && hi + 1 < n {
        return Some(format!("{package}=={}", versions[lo]));
    }
    let mut clauses = vec![format!(">={}", short(&versions[lo]))];
    for (i, v) in versions.iter().enumerate().take(hi).skip(lo + 1) {
        if !set.get(i).copied().unwrap_or(false) {
            clauses.push(format!("!={v}"));
        }
    }
    if hi + 1 < n {
        clauses.push(format!("<{}", upper_bound(versions, hi + 1)));
    } else if cap {
        clauses.push(format!("<{}", next_minor(&versions[hi])));
    }
    Some(format!("{package}{}", clauses.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use apicompat_requirements::parse_version;

    fn vs(list: &[&str]) -> Vec<Version> {
        list.iter().map(|v| parse_version(v).unwrap()).collect()
    }

    #[test]
    fn lines_admit_exactly_the_set() {
        let v = vs(&["2.3.0", "2.3.1", "2.4.0", "2.4.1", "2.5.0", "2.15.0"]);
        let line = |set: &[bool], cap| requirement_line("torch", &v, set, cap);
        assert_eq!(
            line(&[false, false, false, false, true, true], false).as_deref(),
            Some("torch>=2.5")
        );
        assert_eq!(
            line(&[false, false, false, false, true, true], true).as_deref(),
            Some("torch>=2.5,<2.16")
        );
        assert_eq!(
            line(&[true, true, true, false, false, false], false).as_deref(),
            Some("torch>=2.3,<2.4.1")
        );
        assert_eq!(
            line(&[false, false, true, false, true, true], false).as_deref(),
            Some("torch>=2.4,!=2.4.1")
        );
        assert_eq!(
            line(&[false, true, false, false, false, false], false).as_deref(),
            Some("torch==2.3.1")
        );
        assert_eq!(line(&[false; 6], false), None);
        // An index of the newest patch of each series: the bound is the series' start.
        let hub = vs(&["0.35.3", "0.36.0", "1.0.1", "1.3.7"]);
        assert_eq!(
            requirement_line("hub", &hub, &[true, true, false, false], false).as_deref(),
            Some("hub>=0.35.3,<1.0")
        );
        assert_eq!(upper_bound(&hub, 3), "1.3");
        assert_eq!(upper_bound(&v, 3), "2.4.1");
        assert_eq!(short(&parse_version("2.0.0").unwrap()), "2.0");
        assert_eq!(short(&parse_version("2.4.0rc1").unwrap()), "2.4.0rc1");
    }
}
