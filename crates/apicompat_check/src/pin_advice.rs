//! A pin a finding suggests for its own use (`require numpy<1.24.0`) is printed only when it
//! breaks no other use of the project. Each pin is weighed on the releases it would leave:
//! the targeted releases it admits, or, when it admits none of them (it contradicts the
//! declaration, or nothing is declared and only the newest release is targeted), every
//! indexed release it admits. A use that works on some targeted release today and is missing
//! from every release the pin leaves is broken by the pin: the pin is then replaced by a line
//! that names that use, and the other fixes (the moved import, a guard) remain. A pin that
//! admits no targeted release and none the other declared packages let be installed
//! (`torchvision<0.16` beside `torch>=2.5.1`: every torchvision 0.15 requires torch 2.0) is
//! replaced by a line that says why.
//!
//! Cost: the targeted case reads the other findings of the package (pins x findings); the
//! other case evaluates each use of the package once, on every release any such pin admits,
//! through the shared evaluator (its rows are cached), stopping when every pin has a use it
//! breaks.

use apicompat_hash::HashSet;
use std::collections::BTreeMap;
use std::sync::Arc;

use apicompat_index::{Catalog, PackageView};
use apicompat_requirements::{admits, parse_requirement};

use crate::evaluate::Evaluator;
use crate::files::Analyzed;
use crate::model::{Finding, Fix, FixKind, Reach, Severity};
use crate::requirers::Requirers;
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
    requirers: &Requirers<'_>,
    chosen: &BTreeMap<String, Target>,
    analyzed: &[Arc<Analyzed>],
    findings: &mut [(usize, Finding, Vec<u32>)],
) {
    // package -> requirement -> the findings that suggest it.
    let mut pins: BTreeMap<String, BTreeMap<String, Vec<usize>>> = BTreeMap::new();
    for (i, (_, f, _)) in findings.iter().enumerate() {
        if !is_break(f) {
            continue;
        }
        if let Some(req) = pin_of(f) {
            pins.entry(f.package.clone())
                .or_default()
                .entry(req.to_string())
                .or_default()
                .push(i);
        }
    }
    for (package, reqs) in pins {
        let (Ok(Some(view)), Some(target)) = (catalog.package(&package), chosen.get(&package))
        else {
            continue;
        };
        let weighed: Vec<Pin> = reqs
            .into_iter()
            .filter_map(|(req, group)| Pin::new(view, target, req, group))
            .collect();
        let mut breakers: Vec<Option<String>> = weighed
            .iter()
            .map(|pin| pin.breaks_a_finding(view, target, findings))
            .collect();
        let outside: Vec<usize> = (0..weighed.len())
            .filter(|&i| weighed[i].kept.is_empty())
            .collect();
        if !outside.is_empty() {
            let found = breaks_a_use(eval, view, target, analyzed, &weighed, &outside);
            for (i, b) in outside.into_iter().zip(found) {
                breakers[i] = b;
            }
        }
        for (pin, breaker) in weighed.iter().zip(breakers) {
            // A pin outside the targets whose every release the other declared packages rule
            // out (`torchvision<0.16` beside `torch>=2.5.1`) cannot be installed at all.
            let refused = if pin.kept.is_empty() {
                requirers.refuses_all(view, &pin.admitted)
            } else {
                None
            };
            let message = match (refused, breaker) {
                (Some(why), _) => format!(
                    "no requirement fixes it: the releases `{}` admits cannot be installed beside the project's other requirements: {why}",
                    pin.req
                ),
                (None, Some(breaker)) => format!(
                    "no requirement fixes it alone: `{}` would break {breaker}",
                    pin.req
                ),
                (None, None) => continue,
            };
            for &i in &pin.group {
                let f = &mut findings[i].1;
                if let Some(fix) = f.fixes.iter_mut().find(|x| x.kind == FixKind::Pin) {
                    *fix = Fix {
                        kind: FixKind::Pin,
                        message: message.clone(),
                        replacement: None,
                        releases: Vec::new(),
                        requirement: None,
                    };
                }
            }
        }
    }
}

/// One suggested requirement of a package and the releases it would leave.
struct Pin {
    req: String,
    /// The findings that suggest it.
    group: Vec<usize>,
    /// The indexed releases it admits (positions in the view), oldest first.
    admitted: Vec<usize>,
    /// Those of them that are targeted.
    kept: Vec<usize>,
}

impl Pin {
    fn new(view: &PackageView, target: &Target, req: String, group: Vec<usize>) -> Option<Pin> {
        let spec = parse_requirement(&req).ok()?.specifier;
        let releases = view.releases();
        let admitted: Vec<usize> = (0..releases.len())
            .filter(|&r| admits(&spec, &releases[r].version))
            .collect();
        if admitted.is_empty() {
            return None;
        }
        let kept = target
            .releases
            .iter()
            .copied()
            .filter(|r| admitted.contains(r))
            .collect();
        Some(Pin {
            req,
            group,
            admitted,
            kept,
        })
    }

    /// Narrowing within the targets: only uses that already break somewhere can be left with
    /// no working release. The first such finding, described for a message.
    fn breaks_a_finding(
        &self,
        view: &PackageView,
        target: &Target,
        findings: &[(usize, Finding, Vec<u32>)],
    ) -> Option<String> {
        if self.kept.is_empty() {
            return None;
        }
        let releases = view.releases();
        let targeted = versions(view, &target.releases);
        let kept: HashSet<String> = self
            .kept
            .iter()
            .map(|&r| releases[r].version.to_string())
            .collect();
        let g = findings
            .iter()
            .enumerate()
            .filter(|(i, (_, g, _))| {
                !self.group.contains(i)
                    && g.package == view.name()
                    && is_break(g)
                    && pin_of(g) != Some(self.req.as_str())
                    && works_somewhere(g, &targeted)
                    && kept.iter().all(|v| g.missing_in.contains(v))
            })
            .map(|(_, (_, g, _))| g)
            .min_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)))?;
        Some(format!(
            "`{}` ({}:{}), which is missing from every targeted release it admits",
            g.symbol,
            crate::survey::display(&g.path),
            g.line
        ))
    }
}

/// The versions of some releases of a view.
fn versions(view: &PackageView, positions: &[usize]) -> HashSet<String> {
    let releases = view.releases();
    positions
        .iter()
        .filter_map(|&r| releases.get(r))
        .map(|r| r.version.to_string())
        .collect()
}

/// For the pins at `outside` (which keep no targeted release), the first use of the package
/// (in file order) that works on some targeted release today and is missing from every
/// release the pin admits. Each use is evaluated once, on every release any of them admits.
fn breaks_a_use(
    eval: &Evaluator<'_>,
    view: &PackageView,
    target: &Target,
    analyzed: &[Arc<Analyzed>],
    pins: &[Pin],
    outside: &[usize],
) -> Vec<Option<String>> {
    let mut union: Vec<usize> = outside
        .iter()
        .flat_map(|&i| pins[i].admitted.iter().copied())
        .collect();
    union.sort_unstable();
    union.dedup();
    let everywhere = Target {
        info: target.info.clone(),
        releases: union,
        short: target.short.clone(),
    };
    let targeted = versions(view, &target.releases);
    let releases = view.releases();
    let admitted: Vec<HashSet<String>> = outside
        .iter()
        .map(|&i| versions(view, &pins[i].admitted))
        .collect();
    let mut out: Vec<Option<String>> = vec![None; outside.len()];
    'files: for file in analyzed {
        for u in &file.uses.uses {
            if out.iter().all(Option::is_some) {
                break 'files;
            }
            let root = u.path.split('.').next().unwrap_or(&u.path);
            if eval
                .package_for(root)
                .is_none_or(|v| v.name() != view.name())
            {
                continue;
            }
            // Most uses work where the pins lead: one cached lookup each says so.
            if !outside
                .iter()
                .enumerate()
                .any(|(k, &i)| out[k].is_none() && eval.absent_at(u, view, pins[i].admitted[0]))
            {
                continue;
            }
            let Some(there) = eval.evaluate(u, view, &everywhere) else {
                continue;
            };
            let f = &there.finding;
            if !is_break(f) {
                continue;
            }
            let missing: HashSet<&str> = f.missing_in.iter().map(String::as_str).collect();
            let mut works_now: Option<bool> = None;
            for (k, &i) in outside.iter().enumerate() {
                // The pinned use itself has its symbol where the pin admits: never missing
                // from all of them.
                if out[k].is_some() || !admitted[k].iter().all(|v| missing.contains(v.as_str())) {
                    continue;
                }
                // It must work on some targeted release today.
                let works = *works_now.get_or_insert_with(|| {
                    eval.evaluate(u, view, target).is_none_or(|p| {
                        !is_break(&p.finding) || works_somewhere(&p.finding, &targeted)
                    })
                });
                if !works {
                    break;
                }
                let (line, _) = file.position(u.range.start());
                let pin = &pins[i];
                let (first, last) = (pin.admitted[0], pin.admitted[pin.admitted.len() - 1]);
                out[k] = Some(format!(
                    "`{}` ({}:{line}), which breaks on none of the targeted releases ({}) and is missing from {} {} - {}",
                    f.symbol,
                    crate::survey::display(&file.path),
                    target.short,
                    view.name(),
                    releases[first].version,
                    releases[last].version
                ));
            }
        }
    }
    out
}
