//! A pin a finding suggests for its own use (`require numpy<1.24.0`) is printed only when it
//! breaks no other use of the project. Each pin is weighed on the releases it would leave:
//! the targeted releases it admits, or, when it admits none of them (it contradicts the
//! declaration, or nothing is declared and only the newest release is targeted), every
//! indexed release it admits. A use that works on some targeted release today and is missing
//! from every release the pin leaves is broken by the pin: the pin is then replaced by a line
//! that names that use, and the other fixes (the moved import, a guard) remain.
//!
//! Cost: the targeted case reads the other findings of the package (pins x findings); the
//! other case evaluates the package's uses on the pin's releases through the shared
//! evaluator (its rows are cached), stopping at the first use the pin breaks.

use std::collections::{BTreeMap, HashSet};

use apicompat_index::{Catalog, PackageView};
use apicompat_requirements::{admits, parse_requirement};

use crate::evaluate::Evaluator;
use crate::files::Analyzed;
use crate::model::{Finding, Fix, FixKind, Reach, Severity};
use crate::rules::{RequirementAdmitsBroken, RuleInfo};
use crate::targets::Target;

/// A finding whose use breaks on some targeted release (not guarded, not AC008's own joint
/// pin, which already weighs every use).
fn is_break(f: &Finding) -> bool {
    f.severity == Severity::Error
        && f.reach != Reach::Guarded
        && !f.package.is_empty()
        && f.code != RequirementAdmitsBroken::RULE.code
}

/// The per-use pin of a finding, if it has one.
fn pin_of(f: &Finding) -> Option<&str> {
    f.fixes
        .iter()
        .find(|x| x.kind == FixKind::Pin)
        .and_then(|x| x.requirement.as_deref())
}

/// Whether a breaking use has its symbol on some targeted release: one that is missing from
/// every targeted release it runs on is broken whatever the pin.
fn works_somewhere(f: &Finding, targeted: &HashSet<String>) -> bool {
    f.present_in.iter().any(|v| targeted.contains(v))
}

/// Replaces every per-use pin that breaks another use (see the module doc).
pub(crate) fn vet(
    catalog: &Catalog,
    eval: &Evaluator<'_>,
    chosen: &BTreeMap<String, Target>,
    analyzed: &[Analyzed],
    findings: &mut [(usize, Finding, Vec<u32>)],
) {
    // (package, requirement) -> the findings that suggest it.
    let mut pins: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, (_, f, _)) in findings.iter().enumerate() {
        if !is_break(f) {
            continue;
        }
        if let Some(req) = pin_of(f) {
            pins.entry((f.package.clone(), req.to_string()))
                .or_default()
                .push(i);
        }
    }
    for ((package, req), group) in pins {
        let (Ok(Some(view)), Some(target)) = (catalog.package(&package), chosen.get(&package))
        else {
            continue;
        };
        let Some(breaker) = breaker(eval, view, target, analyzed, findings, &req, &group) else {
            continue;
        };
        for &i in &group {
            let f = &mut findings[i].1;
            if let Some(fix) = f.fixes.iter_mut().find(|x| x.kind == FixKind::Pin) {
                *fix = Fix {
                    kind: FixKind::Pin,
                    message: format!(
                        "no requirement fixes it alone: `{req}` would break {breaker}"
                    ),
                    replacement: None,
                    releases: Vec::new(),
                    requirement: None,
                };
            }
        }
    }
}

/// The first use (described for a message) that `req` breaks, if any.
fn breaker(
    eval: &Evaluator<'_>,
    view: &PackageView,
    target: &Target,
    analyzed: &[Analyzed],
    findings: &[(usize, Finding, Vec<u32>)],
    req: &str,
    group: &[usize],
) -> Option<String> {
    let spec = parse_requirement(req).ok()?.specifier;
    let releases = view.releases();
    let admitted: Vec<usize> = (0..releases.len())
        .filter(|&r| admits(&spec, &releases[r].version))
        .collect();
    if admitted.is_empty() {
        return None;
    }
    let kept: Vec<usize> = target
        .releases
        .iter()
        .copied()
        .filter(|r| admitted.contains(r))
        .collect();
    let targeted: HashSet<String> = target
        .releases
        .iter()
        .map(|&r| releases[r].version.to_string())
        .collect();
    if !kept.is_empty() {
        // Narrowing within the targets: only uses that already break somewhere can be left
        // with no working release.
        let kept: HashSet<String> = kept
            .iter()
            .map(|&r| releases[r].version.to_string())
            .collect();
        let mut candidates: Vec<&(usize, Finding, Vec<u32>)> = findings
            .iter()
            .enumerate()
            .filter(|(i, (_, g, _))| {
                !group.contains(i)
                    && g.package == view.name()
                    && is_break(g)
                    && pin_of(g) != Some(req)
                    && works_somewhere(g, &targeted)
                    && kept.iter().all(|v| g.missing_in.contains(v))
            })
            .map(|(_, x)| x)
            .collect();
        candidates.sort_by(|a, b| (&a.1.path, a.1.line).cmp(&(&b.1.path, b.1.line)));
        let g = &candidates.first()?.1;
        return Some(format!(
            "`{}` ({}:{}), which is missing from every targeted release it admits",
            g.symbol,
            crate::survey::display(&g.path),
            g.line
        ));
    }
    // Outside the targets: every use of the package, on the releases the pin admits.
    let outside = Target {
        info: target.info.clone(),
        releases: admitted.clone(),
        short: target.short.clone(),
    };
    let pinned: HashSet<&str> = group
        .iter()
        .map(|&i| findings[i].1.symbol.as_str())
        .collect();
    for file in analyzed {
        for u in &file.uses.uses {
            let root = u.path.split('.').next().unwrap_or(&u.path);
            if eval
                .package_for(root)
                .is_none_or(|v| v.name() != view.name())
            {
                continue;
            }
            let Some(there) = eval.evaluate(u, view, &outside) else {
                continue;
            };
            let f = &there.finding;
            if !is_break(f)
                || f.missing_in.len() < admitted.len()
                || pinned.contains(f.symbol.as_str())
            {
                continue;
            }
            // It must work on some targeted release today.
            let works_now = eval
                .evaluate(u, view, target)
                .is_none_or(|p| !is_break(&p.finding) || works_somewhere(&p.finding, &targeted));
            if !works_now {
                continue;
            }
            let (line, _) = file.position(u.range.start());
            let (first, last) = (admitted[0], admitted[admitted.len() - 1]);
            return Some(format!(
                "`{}` ({}:{line}), which works on the targeted releases ({}) and is missing from {} {} - {}",
                f.symbol,
                crate::survey::display(&file.path),
                target.short,
                view.name(),
                releases[first].version,
                releases[last].version
            ));
        }
    }
    None
}
