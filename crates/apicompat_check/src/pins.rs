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
        clauses.push(format!("<{}", short(&versions[hi + 1])));
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
        assert_eq!(short(&parse_version("2.0.0").unwrap()), "2.0");
        assert_eq!(short(&parse_version("2.4.0rc1").unwrap()), "2.4.0rc1");
    }
}
