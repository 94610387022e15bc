//! Two extensions of AC009 (attributes that indexed classes define only in some releases,
//! [`crate::members`]):
//!
//! - a receiver whose class is known (built by calling an indexed class, or a parameter
//!   annotated with one: [`crate::pgcopy::TypedRead`]) is checked against that class alone,
//!   and the finding says so;
//! - a finding gets replacements from the data: the member of the same class that the rest of
//!   the chain names in the releases that lack the attribute
//!   (`optimizer._param_store.working_to_master_param` -> `optimizer.working_to_master_param`),
//!   and, best, a related member present in every release the use runs on
//!   (`optimizer.get_working_to_master_map()`).

use apicompat_hash::HashSet;

use apicompat_index::{ranges, PackageView, Status};
use apicompat_surface::Kind;

use crate::collect::MemberUse;
use crate::files::Analyzed;
use crate::members::{MemberChecker, MemberDef, Packages};
use crate::model::{Finding, Fix, FixKind};
use crate::pgcopy::TypeSource;
use crate::rules::ac009_drifting_attribute::finding;
use crate::targets::Target;

/// Words that say little about what a member is.
const STOP_WORDS: &[&str] = &[
    "get", "set", "to", "of", "the", "a", "an", "is", "by", "for", "and", "in", "on", "with",
];

/// The longest run of words two names share in the same order (`working_to_master` in
/// `get_working_to_master_map` and `working_to_master_param`), counting only runs with a word
/// that is not a stop word.
fn common_run(a: &str, b: &str) -> usize {
    let words = |s: &str| -> Vec<String> {
        s.split('_')
            .filter(|t| !t.is_empty())
            .map(str::to_ascii_lowercase)
            .collect()
    };
    let (a, b) = (words(a), words(b));
    let mut best = 0;
    for i in 0..a.len() {
        for j in 0..b.len() {
            let mut k = 0;
            while i + k < a.len() && j + k < b.len() && a[i + k] == b[j + k] {
                k += 1;
            }
            let meaningful = a[i..i + k]
                .iter()
                .any(|w| !STOP_WORDS.contains(&w.as_str()));
            if meaningful {
                best = best.max(k);
            }
        }
    }
    best
}

fn tokens(name: &str) -> HashSet<String> {
    name.split('_')
        .filter(|t| !t.is_empty() && !STOP_WORDS.contains(t))
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The attribute read right after a member read (`working_to_master_param` after
/// `optimizer._param_store`), from the source text.
fn next_segment<'t>(file: &'t Analyzed, m: &MemberUse) -> Option<&'t str> {
    let rest = file.text.get(m.range.end().to_usize()..)?;
    let rest = rest.strip_prefix('.')?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    (!name.is_empty()).then_some(name)
}

/// An indexed class: its canonical path, if `path` names one in some release.
fn indexed_class(view: &PackageView, path: &str) -> Option<String> {
    (0..view.releases().len())
        .rev()
        .find_map(|r| match view.status(path, r) {
            Ok(Status::Present {
                path: found,
                symbol,
            }) if symbol.kind() == Kind::Class => Some(symbol.canonical.unwrap_or(found)),
            _ => None,
        })
}

/// What a release says about a path: present (with its kind), absent, or unknown.
fn presence(view: &PackageView, path: &str, release: usize) -> Option<Option<Kind>> {
    match view.status(path, release) {
        Ok(Status::Present { symbol, .. }) => Some(Some(symbol.kind())),
        Ok(Status::Absent { .. }) => Some(None),
        _ => None,
    }
}

/// AC009 for a member read whose receiver's class is known. `None` when it is not known to be
/// an indexed class (the by-name check applies); `Some(None)` when the class settles it
/// without a finding.
pub(crate) fn typed_check(
    packages: &mut Packages<'_>,
    checker: &mut MemberChecker,
    file: &Analyzed,
    m: &MemberUse,
    chosen: &std::collections::BTreeMap<String, Target>,
) -> Option<Option<Finding>> {
    let typed = file
        .process_groups()
        .typed
        .iter()
        .find(|t| t.range == m.range)?;
    let root = typed.class.split('.').next().unwrap_or(&typed.class);
    let view = packages.for_root(root)?;
    let class = indexed_class(view, &typed.class)?;
    let name = &m.name;
    if checker.defines(name) || (name.starts_with("__") && name.ends_with("__")) {
        return Some(None);
    }
    let Some(target) = chosen.get(view.name()) else {
        return Some(None);
    };
    let member = format!("{class}.{name}");
    let n = view.releases().len();
    let mut present = vec![false; n];
    let mut kind = None;
    for (r, slot) in present.iter_mut().enumerate() {
        if let Some(Some(k)) = presence(view, &member, r) {
            *slot = true;
            kind = Some(k);
        }
    }
    // A member the class has in no release is not one that comes and goes: an annotation
    // admits subclasses, which may add it, and other code may set it on the object
    // (`lr_scheduler` sets `optimizer._step_count`). Only drift is reported.
    if !present.iter().any(|&b| b) {
        return Some(None);
    }
    let mut missing = Vec::new();
    let mut admitted = Vec::new();
    for &r in &target.releases {
        if !checker.admitted(m, view, r) || !matches!(presence(view, &class, r), Some(Some(_))) {
            continue;
        }
        admitted.push(r);
        if presence(view, &member, r) == Some(None) {
            missing.push(r);
        }
    }
    if missing.is_empty() {
        return Some(None);
    }
    let def = MemberDef {
        releases: present.clone(),
        unknown: vec![false; n],
        classes: vec![class.clone()],
    };
    let mut f = finding(
        m,
        view,
        &def,
        &missing,
        Some(&target.info.description),
        &target.short,
    );
    let versions = view.versions();
    let (line, _) = file.position(match typed.how {
        TypeSource::Built(r) | TypeSource::Annotated(r) | TypeSource::Checked(r) => r.start(),
    });
    let how = match typed.how {
        TypeSource::Built(_) => format!("built at line {line}"),
        TypeSource::Annotated(_) => format!("a parameter annotated with it at line {line}"),
        TypeSource::Checked(_) => format!("checked with `isinstance` at line {line}"),
    };
    let verb = if kind == Some(Kind::Attribute) {
        "set"
    } else {
        "defined"
    };
    let pkg = view.name();
    let listed = if missing.len() <= 3 {
        missing
            .iter()
            .map(|&r| versions[r].clone())
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        f.missing_ranges.join(", ")
    };
    let had = format!(
        "`{name}` is {verb} by it only in {pkg} {}",
        f.present_ranges.join(", ")
    );
    f.message = format!(
        "`{}` is a `{class}` ({how}), so only that class counts: {had}; {pkg} {listed} ({}) do not have it",
        m.receiver, target.short
    );
    add_replacements(&mut f, file, m, view, &[class], &missing, &admitted);
    Some(Some(f))
}

/// Adds the replacements the data suggests to an AC009 finding, and says "set" rather than
/// "defined" for attributes. `missing` and `admitted` are positions in `view`: the targeted
/// releases that lack the name, and all the targeted releases the use runs on.
pub(crate) fn add_replacements(
    f: &mut Finding,
    file: &Analyzed,
    m: &MemberUse,
    view: &PackageView,
    classes: &[String],
    missing: &[usize],
    admitted: &[usize],
) {
    let name = &m.name;
    let next = next_segment(file, m);
    let receiver = if m.receiver == "(...)" {
        "obj"
    } else {
        m.receiver.as_str()
    };
    let versions = view.versions();
    let n = versions.len();
    let mask = |set: &[usize]| -> Vec<bool> { (0..n).map(|i| set.contains(&i)).collect() };
    let reference_name = next.unwrap_or(name);
    let reference = tokens(reference_name);
    let need = reference.len().min(2);
    let mut all_attributes = true;
    // The member the rest of the chain names, and the best related member present in every
    // admitted release, with its score.
    type Score = (bool, usize, usize, usize);
    let mut chain: Option<(String, Kind)> = None;
    let mut stable: Option<(Score, String, Kind)> = None;
    for class in classes {
        let prefix = format!("{class}.");
        for path in view.paths_with_prefix(&prefix) {
            let Some(k) = path.strip_prefix(&prefix) else {
                continue;
            };
            if k.contains('.') || (k.starts_with("__") && k.ends_with("__")) {
                continue;
            }
            let kinds: Vec<Option<Kind>> = (0..n)
                .map(|r| {
                    let (index, pos) = view.index_of(r)?;
                    let facet = index.facet_in(&path, pos).ok()??;
                    index.kind(facet).ok().map(|k| k.0)
                })
                .collect();
            let kind = kinds.iter().rev().find_map(|k| *k).unwrap_or(Kind::Unknown);
            if k == name.as_str() {
                all_attributes &= kind == Kind::Attribute;
                continue;
            }
            let has = |rs: &[usize]| {
                rs.iter()
                    .all(|&r| kinds.get(r).copied().flatten().is_some())
            };
            if Some(k) == next && has(missing) && chain.is_none() {
                chain = Some((k.to_string(), kind));
            }
            if !has(admitted) {
                continue;
            }
            let overlap = tokens(k).intersection(&reference).count();
            if overlap < need.max(1) {
                continue;
            }
            // Public names first, then the longest run of words in common, more words in
            // common, fewer other words.
            let score = (
                !k.starts_with('_'),
                common_run(k, reference_name),
                overlap,
                usize::MAX - tokens(k).len(),
            );
            if stable.as_ref().is_none_or(|(s, _, _)| score > *s) {
                stable = Some((score, k.to_string(), kind));
            }
        }
    }
    let call = |k: &str, kind: Kind| match kind {
        Kind::Function => format!("{receiver}.{k}()"),
        _ => format!("{receiver}.{k}"),
    };
    let pkg = view.name();
    let mut fixes = Vec::new();
    let mut tail = Vec::new();
    let listed_admitted: Vec<String> = admitted.iter().map(|&r| versions[r].clone()).collect();
    if let Some((_, k, kind)) = &stable {
        let code = call(k, *kind);
        fixes.push(Fix {
            kind: FixKind::Moved,
            // Found by its name (words in common), not by what it holds.
            message: format!(
                "`{code}`, a member with a similar name, exists in every targeted release \
                 ({pkg} {}): check that it holds the same",
                ranges(&versions, &mask(admitted)).join(", ")
            ),
            replacement: Some(code.clone()),
            releases: listed_admitted.clone(),
            requirement: None,
        });
        tail.push(format!(
            "`{code}` (a similar name) exists in every targeted release"
        ));
    }
    if let Some((k, kind)) = &chain {
        let code = call(k, *kind);
        if stable.as_ref().is_none_or(|(_, s, _)| s != k) {
            let listed: Vec<String> = missing.iter().map(|&r| versions[r].clone()).collect();
            fixes.push(Fix {
                kind: FixKind::Moved,
                message: format!(
                    "in {pkg} {} the class has `{k}` itself: `{code}`",
                    ranges(&versions, &mask(missing)).join(", ")
                ),
                replacement: Some(code.clone()),
                releases: listed,
                requirement: None,
            });
            tail.insert(0, format!("`{code}` replaces it there"));
        }
    }
    if all_attributes {
        let old = format!("`{name}` is defined only by");
        if f.message.starts_with(&old) {
            f.message = f
                .message
                .replacen(&old, &format!("`{name}` is set only by"), 1);
        }
    }
    if !tail.is_empty() {
        f.message.push_str("; ");
        f.message.push_str(&tail.join(", and "));
    }
    f.fixes.splice(0..0, fixes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_names() {
        let t = tokens("get_working_to_master_map");
        let r = tokens("working_to_master_param");
        assert_eq!(t.intersection(&r).count(), 2);
        assert!(!t.contains("get"));
        assert_eq!(
            common_run("get_working_to_master_map", "working_to_master_param"),
            3
        );
        assert_eq!(
            common_run("_working_param_groups", "working_to_master_param"),
            1
        );
        assert_eq!(common_run("to_do", "to_be"), 0);
    }
}
