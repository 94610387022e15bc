//! Requirement lines that admit exactly a set of indexed releases: `torch>=2.5`,
//! `colossalai>=0.3,<0.4.1`, `torch>=2.4,!=2.5.0`.

use apicompat_requirements::{
    release_of, DeclaredRequirement, Operator, Version, VersionSpecifiers,
};

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

/// The series of a version: epoch and its first two components (`2.5` of `2.5.1`), or three
/// when those are zero (`0.0.18` of xformers: each such release is a series of its own).
pub fn series(v: &Version) -> (u64, Vec<u64>) {
    let r = v.release();
    let take = if r.iter().take(2).all(|&x| x == 0) {
        3
    } else {
        2
    };
    let mut parts: Vec<u64> = r.iter().copied().take(take).collect();
    parts.resize(take, 0);
    (v.epoch(), parts)
}

/// Where the run of releases starting at `versions[i]` (oldest first) begins, for a bound
/// (`>=B` keeps it, `<B` leaves it out), when that is not `versions[i]` itself: the start of
/// its series (`1.0` for `1.0.1`) when no release of that series is indexed before it, since
/// the releases the index leaves out (indexes that keep the newest patch of each series) are
/// likely to behave alike. `None` for a release that starts its series (`2.4.0`), or follows
/// one of its series, or is not a plain release.
pub fn series_start<V: std::borrow::Borrow<Version>>(versions: &[V], i: usize) -> Option<String> {
    let v = versions.get(i)?.borrow();
    let same_series = i > 0 && series(versions[i - 1].borrow()) == series(v);
    let plain = v.epoch() == 0 && !v.any_prerelease() && v.post().is_none() && v.local().is_empty();
    let (_, start) = series(v);
    let starts_it = v.release().iter().skip(start.len()).all(|&x| x == 0);
    (plain && !same_series && !starts_it).then(|| {
        start
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(".")
    })
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
    line(package, versions, set, &[], cap, false)
}

/// [`requirement_line`] for narrowing a declaration (AC008): a set that starts at the oldest
/// indexed release stays open below (older releases were not checked: the declaration's own
/// lower bound stands, [`narrowed`]). None when the set is every indexed release. The releases
/// `unchecked` marks get no `!=`: the declaration admits them but they were not checked because
/// the project's other requirements rule them out (`accelerate` 0.32.1 - 0.33.0 beside
/// `numpy>=2`), so pip never installs them and excluding them again says nothing.
pub fn narrowing_line(
    package: &str,
    versions: &[Version],
    set: &[bool],
    unchecked: &[bool],
) -> Option<String> {
    line(package, versions, set, unchecked, false, true)
}

fn line(
    package: &str,
    versions: &[Version],
    set: &[bool],
    unchecked: &[bool],
    cap: bool,
    open_below: bool,
) -> Option<String> {
    let members: Vec<usize> = (0..versions.len())
        .filter(|&i| set.get(i).copied().unwrap_or(false))
        .collect();
    let (&lo, &hi) = (members.first()?, members.last()?);
    let n = versions.len();
    if lo == hi && hi + 1 < n {
        return Some(format!("{package}=={}", versions[lo]));
    }
    let bound = |i: usize| series_start(versions, i).unwrap_or_else(|| short(&versions[i]));
    let mut clauses = Vec::new();
    if lo > 0 || !open_below {
        clauses.push(format!(">={}", bound(lo)));
    }
    for (i, v) in versions.iter().enumerate().take(hi).skip(lo + 1) {
        if !set.get(i).copied().unwrap_or(false) && !unchecked.get(i).copied().unwrap_or(false) {
            clauses.push(format!("!={v}"));
        }
    }
    if hi + 1 < n {
        clauses.push(format!("<{}", bound(hi + 1)));
    } else if cap {
        clauses.push(format!("<{}", next_minor(&versions[hi])));
    }
    if clauses.is_empty() {
        // Every indexed release: nothing to narrow.
        return None;
    }
    Some(format!("{package}{}", clauses.join(",")))
}

/// Where the version specifier of a requirement lies: after the name and extras, before the
/// marker. An empty span after the name when there is none.
pub(crate) fn specifier_span(raw: &str) -> Option<(usize, usize)> {
    let name_end = raw
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(raw.len());
    if name_end == 0 {
        return None;
    }
    let mut i = name_end;
    let rest = &raw[i..];
    let trimmed = rest.trim_start();
    if trimmed.starts_with('[') {
        i += rest.len() - trimmed.len();
        i += raw[i..].find(']')? + 1;
    }
    let rest = &raw[i..];
    let spec_from = i + (rest.len() - rest.trim_start().len());
    let spec_to = raw[spec_from..]
        .find(';')
        .map_or(raw.len(), |j| spec_from + j);
    if raw[spec_from..spec_to].trim_start().starts_with('(') {
        return None;
    }
    if spec_from == spec_to || raw[spec_from..spec_to].trim().is_empty() {
        return Some((name_end.max(i), name_end.max(i)));
    }
    Some((spec_from, spec_to))
}

/// The new clauses, with the old upper bounds when the new ones leave the top open, and the
/// old lower bounds when they leave the bottom open (the releases below the index's oldest
/// were not checked).
pub(crate) fn narrowed(new: &str, old: &str) -> String {
    let wildcard = |c: &str| c.starts_with("==") && c.ends_with('*');
    let bounded_above = |c: &str| {
        let c = c.trim();
        c.starts_with('<') || c.starts_with("~=") || wildcard(c)
    };
    let bounded_below = |c: &str| {
        let c = c.trim();
        c.starts_with('>') || c.starts_with("~=") || wildcard(c)
    };
    let exact = new.split(',').any(|c| c.trim().starts_with("=="));
    let sep = if old.contains(", ") { ", " } else { "," };
    let old_clauses: Vec<&str> = old.split(',').map(str::trim).collect();
    let below: Vec<&str> = if !exact && !new.split(',').any(bounded_below) {
        old_clauses
            .iter()
            .copied()
            .filter(|c| bounded_below(c))
            .collect()
    } else {
        Vec::new()
    };
    let above: Vec<&str> = if !exact && !new.split(',').any(bounded_above) {
        old_clauses
            .iter()
            .copied()
            .filter(|c| bounded_above(c) && !below.contains(c))
            .collect()
    } else {
        Vec::new()
    };
    let mut out: Vec<&str> = below;
    out.push(new);
    out.extend(above);
    out.join(sep)
}

/// The version every declaration pins exactly (`==4.38.0`), if they agree on one.
pub(crate) fn exact_pin(reqs: &[&DeclaredRequirement]) -> Option<Version> {
    let mut pinned: Option<Version> = None;
    for r in reqs {
        let v = pin_of(&r.specifier)?;
        if pinned.as_ref().is_some_and(|p| *p != v) {
            return None;
        }
        pinned = Some(v);
    }
    pinned
}

/// Whether the declarations admit some version together, indexed or not: a version one of
/// them names that every one admits (nnFormer's `torch==1.8.1` beside `torch>=1.6.0a`, study
/// 42's F-AB: they agree on a release older than the index, which is no contradiction).
/// Ranges that meet only between the versions they name (`>1.6,<1.7`) are not seen.
pub(crate) fn agree_on_some_version(reqs: &[&DeclaredRequirement]) -> bool {
    agreed_version(reqs).is_some()
}

/// The first version a declaration names that every one admits ([`agree_on_some_version`]).
pub(crate) fn agreed_version(reqs: &[&DeclaredRequirement]) -> Option<Version> {
    reqs.iter()
        .flat_map(|r| r.specifier.iter().map(|c| release_of(c.version())))
        .find(|v| {
            reqs.iter()
                .all(|r| apicompat_requirements::admits(&r.specifier, v))
        })
}

/// The version a specifier pins (`==4.38.0`, its only clause), or the lowest version its
/// clauses name that it admits (`>=4.46.1,<=4.46.1`: a pin written as a range).
pub(crate) fn pin_of(specifier: &VersionSpecifiers) -> Option<Version> {
    let mut clauses = specifier.iter();
    if let (Some(c), None) = (clauses.next(), clauses.next()) {
        if matches!(c.operator(), Operator::Equal | Operator::ExactEqual) {
            return Some(release_of(c.version()));
        }
        // Conda's `=4.33.2` (`==4.33.2.*`): that release and its post-releases.
        if c.operator() == &Operator::EqualStar && c.version().release().len() >= 3 {
            return Some(release_of(c.version()));
        }
    }
    let bounded_above = specifier.iter().any(|c| {
        matches!(
            c.operator(),
            Operator::LessThan | Operator::LessThanEqual | Operator::Equal | Operator::ExactEqual
        )
    });
    if !bounded_above {
        return None;
    }
    specifier
        .iter()
        .map(|c| release_of(c.version()))
        .filter(|v| apicompat_requirements::satisfies(specifier, v))
        .min()
}

/// The indexed release of the series (epoch, major, minor) of `version`: the first one at or
/// after it, else the newest before it (the index keeps the newest patch of each series for
/// most packages).
pub(crate) fn same_series(all: &[Version], version: &Version) -> Option<usize> {
    let series = series;
    let want = series(version);
    let same: Vec<usize> = (0..all.len())
        .filter(|&i| series(&all[i]) == want && !all[i].any_prerelease())
        .collect();
    same.iter()
        .copied()
        .filter(|&i| all[i] >= *version)
        .min_by(|&a, &b| all[a].cmp(&all[b]))
        .or_else(|| same.iter().copied().max_by(|&a, &b| all[a].cmp(&all[b])))
}

pub(crate) fn series_note(package: &str, wanted: &Version, used: &Version) -> String {
    format!(
        "{package} {wanted} is not indexed; checked against {used}, the indexed release of the same series (patch releases seldom change the API; `apicompat index fetch '{package}=={wanted}'` adds it)"
    )
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
        // Narrowing a declaration: from the oldest indexed release, open below.
        let narrowing = |set: &[bool]| narrowing_line("torch", &v, set, &[]);
        assert_eq!(
            narrowing(&[true, true, true, false, false, false]).as_deref(),
            Some("torch<2.4.1")
        );
        assert_eq!(
            narrowing(&[false, true, true, false, false, false]).as_deref(),
            Some("torch>=2.3.1,<2.4.1")
        );
        assert_eq!(narrowing(&[true; 6]), None);
        // A release the declaration admits that was not checked (the other requirements rule
        // it out) gets no `!=`; a broken one does.
        let set = [true, true, false, false, true, false];
        assert_eq!(
            narrowing_line("torch", &v, &set, &[]).as_deref(),
            Some("torch!=2.4.0,!=2.4.1,<2.15")
        );
        let unchecked = [false, false, true, false, false, false];
        assert_eq!(
            narrowing_line("torch", &v, &set, &unchecked).as_deref(),
            Some("torch!=2.4.1,<2.15")
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
        let hub = vs(&["0.34.0", "0.35.3", "0.36.0", "1.0.1", "1.3.7"]);
        assert_eq!(
            requirement_line("hub", &hub, &[false, true, true, false, false], false).as_deref(),
            Some("hub>=0.35,<1.0")
        );
        assert_eq!(series_start(&hub, 4).as_deref(), Some("1.3"));
        assert_eq!(series_start(&v, 3), None);
        assert_eq!(series_start(&v, 2), None);
        // xformers' 0.0.x releases are series of their own.
        let xf = vs(&["0.0.18", "0.0.23.post1"]);
        assert_eq!(series(&xf[0]), (0, vec![0, 0, 18]));
        assert_eq!(series_start(&xf, 1), None);
        assert_eq!(short(&parse_version("2.0.0").unwrap()), "2.0");
        assert_eq!(short(&parse_version("2.4.0rc1").unwrap()), "2.4.0rc1");
    }

    #[test]
    fn specifier_spans() {
        fn span(r: &str) -> Option<&str> {
            specifier_span(r).map(|(a, b)| &r[a..b])
        }
        assert_eq!(span("torch>=2.0"), Some(">=2.0"));
        assert_eq!(
            span("torch [cuda] >= 2.0 ; python_version > '3.8'"),
            Some(">= 2.0 ")
        );
        assert_eq!(span("torch"), Some(""));
        assert_eq!(span("torch; sys_platform == 'linux'"), Some(""));
    }

    #[test]
    fn upper_bounds_are_kept() {
        assert_eq!(narrowed(">=2.4", ">=2.0,<3"), ">=2.4,<3");
        assert_eq!(narrowed(">=2.4,<2.6", ">=2.0,<3"), ">=2.4,<2.6");
        assert_eq!(narrowed(">=2.4", "~=2.0"), ">=2.4,~=2.0");
        assert_eq!(narrowed(">=2.4", ">=2.0"), ">=2.4");
        // Open below (from the index's oldest release): the declared floor stays.
        assert_eq!(narrowed("<5.0", ">=4.28.1"), ">=4.28.1,<5.0");
        assert_eq!(narrowed("<5.0", ">=4.28.1, <6"), ">=4.28.1, <5.0");
        assert_eq!(narrowed("!=4.31.0", ">=4.28.1,<6"), ">=4.28.1,!=4.31.0,<6");
        assert_eq!(narrowed("<2.4", ""), "<2.4");
    }
}
