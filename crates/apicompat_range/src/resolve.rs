//! The joint answer: which combinations of indexed releases work for the project, taking into
//! account what each package's API uses need, the Requires-Dist of each release on the other
//! indexed packages (markers evaluated for one environment), and Requires-Python against the
//! project's `requires-python`. Exact over the indexed releases: arc consistency first, then
//! every remaining release is confirmed by a search for a full combination that includes it.

use serde::Serialize;

use apicompat_check::pins::requirement_line;
use apicompat_index::{ranges, Catalog, PackageView};

use apicompat_requirements::{
    normalize_name, parse_requirement, parse_specifiers, satisfies, Declared, Version,
    VersionSpecifiers,
};

pub use crate::setup::Setup;
use crate::{DeclaredRef, PackageRange};

/// The most steps one confirming search may take (the index has a handful of packages with
/// tens of releases each; this is never reached in practice).
const MAX_STEPS: usize = 200_000;

/// A group of releases left out of a package's set, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Exclusion {
    pub releases: Vec<String>,
    pub ranges: Vec<String>,
    pub reason: String,
}

/// Which releases of another package a group of releases accepts.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Accepts {
    /// Releases of this package (ranges).
    pub ranges: Vec<String>,
    pub package: String,
    /// The releases of `package` they can be combined with (ranges).
    pub with: Vec<String>,
}

/// One package in the joint answer.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct JointPackage {
    pub package: String,
    /// Whether the project uses it (else it is in the answer because a used package requires
    /// it).
    pub used: bool,
    /// Releases that belong to at least one working combination.
    pub releases: Vec<String>,
    pub ranges: Vec<String>,
    /// The requirement that admits exactly `releases` among the indexed ones.
    pub requirement: Option<String>,
    /// Releases the uses allow but the metadata rules out, grouped by reason.
    pub excluded: Vec<Exclusion>,
    /// Which releases of the other packages each group of `releases` works with.
    pub accepts: Vec<Accepts>,
    /// Releases kept without a confirming combination: the search budget ended first.
    pub unconfirmed: Vec<String>,
}

/// The joint answer.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Joint {
    /// `needs` (what the uses need) or `declared` (within the declared requirements too).
    pub scope: &'static str,
    /// The environment markers are evaluated for.
    pub environment: String,
    /// The project's requires-python, when declared.
    pub requires_python: Option<DeclaredRef>,
    /// Whether some combination of releases works.
    pub possible: bool,
    /// Whether every release listed was confirmed by a full combination (else `unconfirmed`
    /// of each package says which are approximate).
    pub exact: bool,
    pub packages: Vec<JointPackage>,
    /// When no combination works: why, one sentence per package that has no release left.
    pub conflicts: Vec<String>,
}

#[derive(Debug, Clone)]
enum Reason {
    Python {
        spec: String,
        why: String,
    },
    /// Only wheels, none for the Python of `why` (`have`: the Pythons they are for).
    Wheels {
        have: String,
        why: String,
    },
    Requires {
        package: String,
        raw: String,
        /// What was left of the required package then.
        left: Vec<String>,
    },
    Combination,
}

struct Var<'c> {
    name: String,
    view: &'c PackageView,
    used: bool,
    versions: Vec<String>,
    parsed: Vec<Version>,
    /// What the uses (and, in declared scope, the declarations) allow.
    start: Vec<bool>,
    domain: Vec<bool>,
    reasons: Vec<Option<Reason>>,
    /// Per release: (variable, specifier, text) of each Requires-Dist on another variable.
    deps: Vec<Vec<(usize, VersionSpecifiers, String)>>,
    /// A sentence on where `start` comes from.
    origin: String,
}

fn index_name(catalog: &Catalog, requirement_name: &str) -> Option<String> {
    catalog.name_of(requirement_name).map(str::to_string)
}

fn declared_mask(
    declared: &Declared,
    name: &str,
    view: &PackageView,
    parsed: &[Version],
) -> Option<Vec<bool>> {
    let reqs = declared.requirements_for(name);
    if reqs.is_empty() {
        return None;
    }
    let platforms = view.wheel_platforms();
    let admitted = apicompat_check::targets::admitted_by(&reqs, parsed, &platforms);
    Some(parsed.iter().map(|v| admitted.contains(v)).collect())
}

fn describe_bounds(p: &PackageRange) -> String {
    let mut parts = Vec::new();
    for b in p.bounds.iter().filter(|b| b.scope == "all") {
        let uses: Vec<String> = b
            .uses
            .iter()
            .take(2)
            .map(|u| format!("`{}` at {}, {}", u.symbol, u.location(), u.reach))
            .collect();
        parts.push(format!(
            "{} {} because of {}",
            b.op,
            b.version,
            uses.join("; ")
        ));
    }
    parts.join("; ")
}

/// Solves for the used packages (and the indexed packages they require).
pub fn solve(
    catalog: &Catalog,
    packages: &[PackageRange],
    setup: &Setup,
    declared_scope: bool,
    cap: bool,
) -> Joint {
    let mut vars: Vec<Var<'_>> = Vec::new();
    for p in packages {
        let Ok(Some(view)) = catalog.package(&p.package) else {
            continue;
        };
        let parsed: Vec<Version> = view.releases().iter().map(|r| r.version.clone()).collect();
        let mut start = p.needs_mask.clone();
        let mut origin = if p.needs.is_empty() {
            let uses: Vec<String> = p
                .conflict
                .iter()
                .take(3)
                .map(|u| {
                    format!(
                        "`{}` at {} works in {}",
                        u.symbol,
                        u.location(),
                        if u.works_in.is_empty() {
                            "no release".to_string()
                        } else {
                            u.works_in.join(", ")
                        }
                    )
                })
                .collect();
            if uses.is_empty() {
                format!("no release of {} has every use", p.package)
            } else {
                format!(
                    "no release of {} has every use ({})",
                    p.package,
                    uses.join("; ")
                )
            }
        } else {
            let b = describe_bounds(p);
            if b.is_empty() {
                format!("{} needs {}", p.package, p.needs.ranges.join(", "))
            } else {
                format!("{} needs {} ({b})", p.package, p.needs.ranges.join(", "))
            }
        };
        if declared_scope && !p.declared.is_empty() {
            for (s, a) in start.iter_mut().zip(&p.admitted_mask) {
                *s &= *a;
            }
            let decl: Vec<String> = p
                .declared
                .iter()
                .map(|d| format!("`{}`", d.requirement))
                .collect();
            origin = format!("{origin}, within {}", decl.join(", "));
        }
        vars.push(Var {
            name: p.package.clone(),
            view,
            used: true,
            versions: view.versions(),
            parsed,
            domain: start.clone(),
            reasons: vec![None; start.len()],
            start,
            deps: Vec::new(),
            origin,
        });
    }
    // Indexed packages the used ones require, transitively.
    let mut i = 0;
    while i < vars.len() {
        let view = vars[i].view;
        let extras = setup.extras(&vars[i].name);
        for r in 0..vars[i].versions.len() {
            let Some(h) = view.header(r) else { continue };
            for text in &h.requires_dist {
                let Ok(req) = parse_requirement(text) else {
                    continue;
                };
                let applies = setup
                    .env
                    .as_ref()
                    .is_none_or(|env| req.marker_tree.evaluate(env, &extras));
                if !applies {
                    continue;
                }
                let Some(name) = index_name(catalog, &req.name) else {
                    continue;
                };
                if vars.iter().any(|v| v.name == name) {
                    continue;
                }
                let Ok(Some(dview)) = catalog.package(&name) else {
                    continue;
                };
                let parsed: Vec<Version> =
                    dview.releases().iter().map(|r| r.version.clone()).collect();
                let mut start = vec![true; parsed.len()];
                let mut origin = format!("{name} (required by {})", vars[i].name);
                if declared_scope {
                    if let Some(mask) = declared_mask(&setup.declared, &name, dview, &parsed) {
                        start = mask;
                        origin.push_str(", within its declared requirement");
                    }
                }
                vars.push(Var {
                    name,
                    view: dview,
                    used: false,
                    versions: dview.versions(),
                    parsed,
                    domain: start.clone(),
                    reasons: vec![None; start.len()],
                    start,
                    deps: Vec::new(),
                    origin,
                });
            }
        }
        i += 1;
    }
    // Requires-Dist between the variables, and Requires-Python.
    let names: Vec<String> = vars.iter().map(|v| v.name.clone()).collect();
    for v in vars.iter_mut() {
        let n = v.versions.len();
        let extras = setup.extras(&v.name);
        let mut deps = vec![Vec::new(); n];
        for (r, slot) in deps.iter_mut().enumerate() {
            let Some(h) = v.view.header(r) else { continue };
            for text in &h.requires_dist {
                let Ok(req) = parse_requirement(text) else {
                    continue;
                };
                if !setup
                    .env
                    .as_ref()
                    .is_none_or(|env| req.marker_tree.evaluate(env, &extras))
                {
                    continue;
                }
                let wanted = normalize_name(&req.name);
                if let Some(j) = names.iter().position(|n| normalize_name(n) == wanted) {
                    slot.push((j, req.specifier.clone(), text.clone()));
                }
            }
            if !v.domain[r] {
                continue;
            }
            if let (Some((floor, why)), Some(rp)) = (&setup.python_floor, &h.requires_python) {
                if let Ok(spec) = parse_specifiers(rp) {
                    if !satisfies(&spec, floor) {
                        v.domain[r] = false;
                        v.reasons[r] = Some(Reason::Python {
                            spec: rp.clone(),
                            why: why.clone(),
                        });
                    }
                }
            }
            if let Some((floor, why)) = v.domain[r].then_some(()).and(setup.python_floor.as_ref()) {
                let f = floor.release();
                let (major, minor) = (f.first().copied(), f.get(1).copied().unwrap_or(0));
                if major.is_some_and(|major| !h.has_wheel_for(major, minor)) {
                    v.domain[r] = false;
                    v.reasons[r] = Some(Reason::Wheels {
                        have: h.wheel_pythons_text(),
                        why: why.clone(),
                    });
                }
            }
        }
        v.deps = deps;
    }
    // Arc consistency.
    loop {
        let mut changed = false;
        for a in 0..vars.len() {
            for x in 0..vars[a].versions.len() {
                if !vars[a].domain[x] {
                    continue;
                }
                let mut failed = None;
                for (b, spec, raw) in &vars[a].deps[x] {
                    let ok = (0..vars[*b].versions.len())
                        .any(|y| vars[*b].domain[y] && satisfies(spec, &vars[*b].parsed[y]));
                    if !ok {
                        failed = Some(Reason::Requires {
                            package: vars[*b].name.clone(),
                            raw: raw.clone(),
                            left: ranges(&vars[*b].versions, &vars[*b].domain),
                        });
                        break;
                    }
                }
                if let Some(reason) = failed {
                    vars[a].domain[x] = false;
                    vars[a].reasons[x] = Some(reason);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Confirm each remaining release with a full combination.
    let mut confirmed: Vec<Vec<bool>> = vars.iter().map(|v| vec![false; v.domain.len()]).collect();
    let mut with: Vec<Vec<Vec<Vec<bool>>>> = vars
        .iter()
        .map(|v| {
            (0..v.domain.len())
                .map(|_| vars.iter().map(|w| vec![false; w.domain.len()]).collect())
                .collect()
        })
        .collect();
    let mut unconfirmed: Vec<Vec<bool>> =
        vars.iter().map(|v| vec![false; v.domain.len()]).collect();
    for a in 0..vars.len() {
        for x in 0..vars[a].domain.len() {
            if !vars[a].domain[x] || confirmed[a][x] {
                continue;
            }
            let mut assignment: Vec<Option<usize>> = vec![None; vars.len()];
            assignment[a] = Some(x);
            let mut steps = 0;
            match search(&vars, &mut assignment, &mut steps) {
                Some(found) => {
                    for (b, &y) in found.iter().enumerate() {
                        confirmed[b][y] = true;
                        unconfirmed[b][y] = false;
                    }
                    for (b, &y) in found.iter().enumerate() {
                        for (c, &z) in found.iter().enumerate() {
                            with[b][y][c][z] = true;
                        }
                    }
                }
                None if steps >= MAX_STEPS => {
                    unconfirmed[a][x] = true;
                    confirmed[a][x] = true;
                }
                None => {}
            }
        }
    }
    // Every combination each release is in, for `accepts` (only pairs between variables
    // with a Requires-Dist between them matter to a reader).
    for (v, ok) in vars.iter_mut().zip(&confirmed) {
        for (x, &ok) in ok.iter().enumerate() {
            if v.domain[x] && !ok {
                v.domain[x] = false;
                v.reasons[x] = Some(Reason::Combination);
            }
        }
    }
    fill_pairs(&vars, &mut with);
    let possible = !vars.is_empty() && vars.iter().all(|v| v.domain.iter().any(|&d| d));
    let mut out_packages = Vec::new();
    for (a, v) in vars.iter().enumerate() {
        let final_mask: Vec<bool> = if possible {
            v.domain.clone()
        } else {
            vec![false; v.domain.len()]
        };
        let excluded = exclusions(v).into_iter().map(|(e, _)| e).collect();
        let mut accepts = Vec::new();
        if possible {
            for (b, w) in vars.iter().enumerate() {
                let related = v.deps.iter().any(|d| d.iter().any(|(j, _, _)| *j == b));
                if b == a || !related {
                    continue;
                }
                let mut groups: Vec<(Vec<bool>, Vec<bool>)> = Vec::new();
                for x in 0..v.domain.len() {
                    if !v.domain[x] {
                        continue;
                    }
                    let set = with[a][x][b].clone();
                    match groups.iter_mut().find(|(s, _)| *s == set) {
                        Some((_, mine)) => mine[x] = true,
                        None => {
                            let mut mine = vec![false; v.domain.len()];
                            mine[x] = true;
                            groups.push((set, mine));
                        }
                    }
                }
                for (set, mine) in groups {
                    accepts.push(Accepts {
                        ranges: ranges(&v.versions, &mine),
                        package: w.name.clone(),
                        with: ranges(&w.versions, &set),
                    });
                }
            }
        }
        out_packages.push(JointPackage {
            package: v.name.clone(),
            used: v.used,
            releases: v
                .versions
                .iter()
                .zip(&final_mask)
                .filter(|(_, &m)| m)
                .map(|(s, _)| s.clone())
                .collect(),
            ranges: ranges(&v.versions, &final_mask),
            requirement: requirement_line(&v.name, &v.parsed, &final_mask, cap),
            excluded,
            accepts,
            unconfirmed: if possible {
                ranges(&v.versions, &unconfirmed[a])
            } else {
                Vec::new()
            },
        });
    }
    let mut conflicts = Vec::new();
    if !possible {
        // The packages emptied by their uses or by metadata; those emptied only because no
        // combination is left follow from them.
        for v in &vars {
            let root_cause = !v.start.iter().any(|&s| s)
                || v.reasons.iter().any(|r| {
                    matches!(
                        r,
                        Some(
                            Reason::Python { .. } | Reason::Wheels { .. } | Reason::Requires { .. }
                        )
                    )
                });
            if v.domain.iter().any(|&d| d) || !root_cause {
                continue;
            }
            conflicts.push(explain(v, &vars));
        }
        if conflicts.is_empty() && !vars.is_empty() {
            conflicts.push(
                "no combination of the remaining releases satisfies every Requires-Dist together"
                    .to_string(),
            );
        }
    }
    let exact = unconfirmed.iter().all(|u| !u.contains(&true));
    Joint {
        scope: if declared_scope { "declared" } else { "needs" },
        environment: setup.environment.clone(),
        requires_python: setup.requires_python.clone(),
        possible,
        exact,
        packages: out_packages,
        conflicts,
    }
}

/// Depth-first search for a full assignment extending `assignment`.
fn search(
    vars: &[Var<'_>],
    assignment: &mut Vec<Option<usize>>,
    steps: &mut usize,
) -> Option<Vec<usize>> {
    *steps += 1;
    if *steps >= MAX_STEPS {
        return None;
    }
    let Some(next) = assignment.iter().position(Option::is_none) else {
        return Some(assignment.iter().map(|a| a.unwrap_or(0)).collect());
    };
    for y in (0..vars[next].domain.len()).rev() {
        if !vars[next].domain[y] {
            continue;
        }
        assignment[next] = Some(y);
        if consistent(vars, assignment) {
            if let Some(found) = search(vars, assignment, steps) {
                return Some(found);
            }
        }
        assignment[next] = None;
        if *steps >= MAX_STEPS {
            return None;
        }
    }
    None
}

fn consistent(vars: &[Var<'_>], assignment: &[Option<usize>]) -> bool {
    for (a, x) in assignment.iter().enumerate() {
        let Some(x) = *x else { continue };
        for (b, spec, _) in &vars[a].deps[x] {
            if let Some(y) = assignment[*b] {
                if !satisfies(spec, &vars[*b].parsed[y]) {
                    return false;
                }
            }
        }
    }
    true
}

/// Every pair of releases of two variables that some full combination contains: completes
/// `with` for pairs the confirming searches did not visit.
fn fill_pairs(vars: &[Var<'_>], with: &mut [Vec<Vec<Vec<bool>>>]) {
    for a in 0..vars.len() {
        for b in 0..vars.len() {
            let related = vars[a]
                .deps
                .iter()
                .any(|d| d.iter().any(|(j, _, _)| *j == b));
            if a == b || !related {
                continue;
            }
            let xs: Vec<usize> = (0..vars[a].domain.len())
                .filter(|&x| vars[a].domain[x])
                .collect();
            let ys: Vec<usize> = (0..vars[b].domain.len())
                .filter(|&y| vars[b].domain[y])
                .collect();
            for &x in &xs {
                for &y in &ys {
                    if with[a][x][b][y] {
                        continue;
                    }
                    let mut assignment: Vec<Option<usize>> = vec![None; vars.len()];
                    assignment[a] = Some(x);
                    assignment[b] = Some(y);
                    let mut steps = 0;
                    if consistent(vars, &assignment)
                        && search(vars, &mut assignment, &mut steps).is_some()
                    {
                        with[a][x][b][y] = true;
                        with[b][y][a][x] = true;
                    }
                }
            }
        }
    }
}

fn reason_text(reason: &Reason, plural: bool) -> String {
    let s = if plural { "" } else { "s" };
    match reason {
        Reason::Python { spec, why } => format!("require{s} Python `{spec}`, which excludes {why}"),
        Reason::Wheels { have, why } => {
            let have_s = if plural { "have" } else { "has" };
            format!("{have_s} wheels for Python {have} only (no sdist), which excludes {why}")
        }
        Reason::Requires { package, raw, left } => {
            if left.is_empty() {
                format!("require{s} `{raw}`, and no {package} release is left")
            } else {
                format!(
                    "require{s} `{raw}`, which admits none of {package} {}",
                    left.join(", ")
                )
            }
        }
        Reason::Combination => {
            format!("belong{s} to no combination that satisfies every Requires-Dist")
        }
    }
}

/// Releases the start set had and the metadata removed, grouped by reason (the reasons of
/// every release in a group read the same), with the reason of the group's first release.
fn exclusions(v: &Var<'_>) -> Vec<(Exclusion, Reason)> {
    // Grouped by what the releases run into: one Python requirement, or the same required
    // package with the same releases left (whatever each release's own specifier is).
    let key = |r: &Reason| -> String {
        match r {
            Reason::Python { spec, .. } => format!("python {spec}"),
            Reason::Wheels { have, .. } => format!("wheels {have}"),
            Reason::Requires { package, left, .. } => format!("requires {package} {left:?}"),
            Reason::Combination => "combination".to_string(),
        }
    };
    let mut groups: Vec<(String, Vec<bool>, Vec<String>, Reason)> = Vec::new();
    for x in 0..v.domain.len() {
        if !v.start[x] || v.domain[x] {
            continue;
        }
        let Some(reason) = &v.reasons[x] else {
            continue;
        };
        let k = key(reason);
        let raw = match reason {
            Reason::Requires { raw, .. } => Some(raw.clone()),
            _ => None,
        };
        match groups.iter_mut().find(|(g, _, _, _)| *g == k) {
            Some((_, mask, raws, _)) => {
                mask[x] = true;
                raws.extend(raw.filter(|r| !raws.contains(r)));
            }
            None => {
                let mut mask = vec![false; v.domain.len()];
                mask[x] = true;
                groups.push((k, mask, raw.into_iter().collect(), reason.clone()));
            }
        }
    }
    groups
        .into_iter()
        .map(|(_, mask, raws, reason)| {
            let releases: Vec<String> = v
                .versions
                .iter()
                .zip(&mask)
                .filter(|(_, &m)| m)
                .map(|(s, _)| s.clone())
                .collect();
            let plural = releases.len() > 1;
            let text = match (&reason, raws.len()) {
                (Reason::Requires { package, left, .. }, n) if n > 1 => {
                    let mut shown: Vec<String> =
                        raws.iter().take(3).map(|r| format!("`{r}`")).collect();
                    if n > 3 {
                        shown.push(format!("{} more", n - 3));
                    }
                    let tail = if left.is_empty() {
                        format!("and no {package} release is left")
                    } else {
                        format!("which admit none of {package} {}", left.join(", "))
                    };
                    format!("require {}, {tail}", shown.join(", "))
                }
                _ => reason_text(&reason, plural),
            };
            (
                Exclusion {
                    releases,
                    ranges: ranges(&v.versions, &mask),
                    reason: text,
                },
                reason,
            )
        })
        .collect()
}

/// Why a variable has no release left.
fn explain(v: &Var<'_>, vars: &[Var<'_>]) -> String {
    if !v.start.iter().any(|&s| s) {
        return format!("{}: {}", v.name, v.origin);
    }
    let mut parts = vec![v.origin.clone()];
    for (e, reason) in exclusions(v) {
        let mut text = format!("{} {} {}", v.name, e.ranges.join(", "), e.reason);
        // Say what the required package is limited to, and by what.
        if let Reason::Requires { package, .. } = &reason {
            if let Some(other) = vars.iter().find(|w| &w.name == package) {
                text.push_str(&format!(" ({})", other.origin));
            }
        }
        parts.push(text);
    }
    format!("{}: no release of {} is left", parts.join("; "), v.name)
}
