//! `apicompat range` and `apicompat diff`.
//!
//! - [`range`]: for every indexed package a project uses, the releases on which every unguarded
//!   use exists (as ranges, holes allowed), import-time and call-time apart, each bound with the
//!   uses that set it; the declared requirement next to it, the releases it admits that break
//!   (rule AC008 of `check`) and those it excludes that would work; then a joint answer across
//!   packages ([`resolve`]): an exact search over the indexed releases that intersects each
//!   package's set with the Requires-Dist between indexed packages and with Requires-Python
//!   against the project's `requires-python`, and the requirement lines to declare.
//! - [`upgrade`]: what changes between two releases of a package (`apicompat_index::diff`), and
//!   with a project, every line an upgrade affects with its fix.
//!
//! The uses and their status in every release come from [`apicompat_check::survey`], the same
//! collection `check` makes.

pub mod blocking;
pub mod render;
pub mod resolve;
pub mod scopes;
mod setup;
pub mod upgrade;

use apicompat_hash::HashMap;
use std::path::PathBuf;

use serde::Serialize;

use apicompat_check::admitted::{requirement_finding, BreakingUse};
use apicompat_check::pins::requirement_line;
use apicompat_check::survey::{survey, Presence, Survey, SurveyOptions, SurveyedUse};
use apicompat_check::{Finding, Reach, UsageError};
use apicompat_index::{ranges, Catalog};
use apicompat_requirements::{select, Version};

/// What `range` reads and how it answers.
#[derive(Debug, Clone, Default)]
pub struct RangeOptions {
    /// Files and directories (empty: the current directory).
    pub paths: Vec<PathBuf>,
    /// Where requirements are read from (default: found from the first path).
    pub project: Option<PathBuf>,
    /// The Python version markers and Requires-Python are evaluated for (default: the lowest
    /// the project's `requires-python` admits, else 3.11).
    pub python_version: Option<String>,
    /// Cap recommended requirements that reach the newest indexed release below the next minor
    /// series (`torch>=2.5,<2.16`).
    pub cap: bool,
}

/// A set of releases of one package.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Releases {
    pub releases: Vec<String>,
    /// Runs of consecutive indexed releases: `2.4.0 - 2.15.0`.
    pub ranges: Vec<String>,
}

impl Releases {
    pub fn of(versions: &[String], mask: &[bool]) -> Releases {
        Releases {
            releases: versions
                .iter()
                .zip(mask)
                .filter(|(_, &m)| m)
                .map(|(v, _)| v.clone())
                .collect(),
            ranges: ranges(versions, mask),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.releases.is_empty()
    }
}

/// A use (or several uses of the same symbol that behave alike), as reports show it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct UseRef {
    pub symbol: String,
    /// The rule `check` reports it under (`AC001` ...).
    pub code: &'static str,
    /// The first place (`src/train.py`), line and column.
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// `import-time` or `call-time`.
    pub reach: &'static str,
    /// The releases where it works (has the name or accepts the keyword, or cannot be known).
    pub works_in: Vec<String>,
    /// How many places use it alike.
    pub places: usize,
}

impl UseRef {
    /// `src/train.py:49`.
    pub fn location(&self) -> String {
        format!("{}:{}", self.path, self.line)
    }
}

/// A bound of a set of releases, with the uses that set it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Bound {
    /// `all`, `import-time` or `call-time`: which uses the set is made of.
    pub scope: &'static str,
    /// `lower` (`>=`) or `upper` (`<`).
    pub kind: &'static str,
    pub op: &'static str,
    pub version: String,
    /// The release just outside the bound, which the uses break.
    pub excluded: String,
    pub uses: Vec<UseRef>,
}

/// A declared requirement.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct DeclaredRef {
    pub requirement: String,
    /// `requirements.txt:1`.
    pub source: String,
}

/// A release the declared requirements admit on which the project breaks.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct BrokenRelease {
    pub release: String,
    /// `import-time` when importing fails there, else `call-time`.
    pub reach: &'static str,
    /// The symbols that break there.
    pub uses: Vec<String>,
}

/// How many uses a package has, and of what sort.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct UseCounts {
    pub total: usize,
    /// Neither guarded nor silenced: these make the range.
    pub counted: usize,
    pub guarded: usize,
    pub suppressed: usize,
    /// Counted uses that some release lacks.
    pub restricting: usize,
}

/// One package's answer.
#[derive(Debug, Clone, Serialize)]
pub struct PackageRange {
    pub package: String,
    /// Every indexed release, oldest first.
    pub releases: Vec<String>,
    pub uses: UseCounts,
    /// Releases where every counted use works.
    pub needs: Releases,
    /// The requirement that admits exactly `needs` among the indexed releases.
    pub requirement: Option<String>,
    /// Releases where every import-time use works (importing the project's modules works).
    pub import_time: Releases,
    /// Releases where every call-time use works.
    pub call_time: Releases,
    /// The bounds of `needs`, `import_time` and `call_time`, each with the uses that set it.
    pub bounds: Vec<Bound>,
    /// Every counted use that some release lacks, with where it works.
    pub restricting: Vec<UseRef>,
    /// Counted uses that no indexed release has (left out of `needs`: no release fixes them).
    pub missing_everywhere: Vec<UseRef>,
    /// When `needs` is empty: uses whose releases do not meet.
    pub conflict: Vec<UseRef>,
    pub declared: Vec<DeclaredRef>,
    /// The releases the declared requirements admit (every release when none is declared).
    pub admitted: Releases,
    pub admitted_broken: Vec<BrokenRelease>,
    /// Releases the declared requirements exclude on which every use works.
    pub excluded_working: Releases,
    /// The AC008 finding `check` raises for the declaration, if any.
    pub finding: Option<Finding>,
    /// The requirement line to declare for this package, from the joint answer.
    pub recommended: Option<String>,
    /// Whether the main scope (the package, or the project without one) uses it: only those
    /// are in the joint answer and the recommendation.
    pub in_main: bool,
    /// The other scopes that use it (tests, examples, ...), each answered apart.
    pub scopes: Vec<ScopeRange>,
    /// When no release has every use: the fewest uses to fix, and the answer once fixed.
    pub blocking: Option<blocking::Blocking>,
    #[serde(skip)]
    pub(crate) needs_mask: Vec<bool>,
    #[serde(skip)]
    pub(crate) admitted_mask: Vec<bool>,
}

/// What one scope other than the main one needs of a package.
#[derive(Debug, Clone, Serialize)]
pub struct ScopeRange {
    /// `tests`, `examples`, `benchmarks`, `scripts`, `docs` or `other`.
    pub scope: &'static str,
    pub uses: UseCounts,
    pub needs: Releases,
    pub requirement: Option<String>,
    /// The bounds of `needs`, with the uses that set them.
    pub bounds: Vec<Bound>,
    /// Whether it rules out releases the main scope needs.
    pub narrower: bool,
    /// For uses that rule out releases the main scope needs: the path of the same object
    /// there (`symbol at path:line: import it from X, the same object in torch 2.5.0`).
    pub fixes: Vec<String>,
}

/// Everything `range` answers.
#[derive(Debug, Clone, Serialize)]
pub struct RangeReport {
    /// The directory whose requirements were read.
    pub project: String,
    pub files: usize,
    /// The main scope: `package` (what `pip install` ships) or `project` (no packaging).
    pub main_scope: &'static str,
    /// Where the package was found (`pyproject.toml [tool.setuptools.packages.find]`, ...).
    pub package_source: String,
    pub packages: Vec<PackageRange>,
    /// Across packages, with the metadata of the indexed releases.
    pub joint: resolve::Joint,
    /// The same within the declared requirements (absent when nothing indexed is declared).
    pub joint_declared: Option<resolve::Joint>,
    /// Requirement lines to declare, from `joint`.
    pub recommended: Vec<String>,
    /// When some package has no release with every use: the joint answer once the blocking
    /// uses are fixed, and its requirement lines.
    pub joint_after_fixes: Option<resolve::Joint>,
    pub recommended_after_fixes: Vec<String>,
    pub notes: Vec<String>,
    /// A path could not be read (exit code 2).
    pub io_failure: bool,
    /// The imported packages that are not indexed (what the CLI fetches on demand).
    #[serde(skip)]
    pub unindexed: Vec<apicompat_check::UnindexedImport>,
}

fn reach_str(r: Reach) -> &'static str {
    match r {
        Reach::ImportTime => "import-time",
        _ => "call-time",
    }
}

fn works(p: Presence) -> bool {
    p != Presence::Absent
}

/// Uses grouped by what they are and how they behave.
pub(crate) struct Group<'a> {
    pub(crate) first: &'a SurveyedUse,
    places: usize,
    /// The first place's file, as shown.
    shown: String,
}

fn group<'a>(
    uses: impl Iterator<Item = &'a SurveyedUse>,
    root: &std::path::Path,
) -> Vec<Group<'a>> {
    let mut out: Vec<Group<'a>> = Vec::new();
    let mut index: HashMap<(&'a str, Reach, &'a [Presence]), usize> = HashMap::default();
    for u in uses {
        let key = (u.symbol.as_str(), u.reach, u.presence.as_slice());
        match index.get(&key) {
            Some(&i) => out[i].places += 1,
            None => {
                index.insert(key, out.len());
                out.push(Group {
                    first: u,
                    places: 1,
                    shown: shown(&u.path, root),
                });
            }
        }
    }
    out
}

/// A path as shown: relative to the project directory when inside it.
fn shown(path: &std::path::Path, root: &std::path::Path) -> String {
    render::display(path.strip_prefix(root).unwrap_or(path))
}

pub(crate) fn use_ref(g: &Group<'_>, versions: &[String]) -> UseRef {
    let u = g.first;
    let mask: Vec<bool> = u.presence.iter().map(|&p| works(p)).collect();
    UseRef {
        symbol: u.symbol.clone(),
        code: u.code,
        path: g.shown.clone(),
        line: u.line,
        column: u.column,
        reach: reach_str(u.reach),
        works_in: ranges(versions, &mask),
        places: g.places,
    }
}

/// The releases where every use of `groups` works.
pub(crate) fn meet(n: usize, groups: &[&Group<'_>]) -> Vec<bool> {
    (0..n)
        .map(|r| {
            groups
                .iter()
                .all(|g| g.first.presence.get(r).is_none_or(|&p| works(p)))
        })
        .collect()
}

fn bounds(
    scope: &'static str,
    set: &[bool],
    groups: &[&Group<'_>],
    versions: &[String],
) -> Vec<Bound> {
    let n = set.len();
    let blockers = |r: usize| -> Vec<UseRef> {
        groups
            .iter()
            .filter(|g| g.first.presence.get(r) == Some(&Presence::Absent))
            .map(|g| use_ref(g, versions))
            .collect()
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        if !set[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && set[i] {
            i += 1;
        }
        let end = i - 1;
        if start > 0 {
            out.push(Bound {
                scope,
                kind: "lower",
                op: ">=",
                version: versions[start].clone(),
                excluded: versions[start - 1].clone(),
                uses: blockers(start - 1),
            });
        }
        if end + 1 < n {
            out.push(Bound {
                scope,
                kind: "upper",
                op: "<",
                version: versions[end + 1].clone(),
                excluded: versions[end + 1].clone(),
                uses: blockers(end + 1),
            });
        }
    }
    out
}

/// A few uses whose releases have nothing in common (a greedy cover of the releases by the
/// uses that break them).
fn conflict(n: usize, groups: &[&Group<'_>], versions: &[String]) -> Vec<UseRef> {
    let mut left: Vec<bool> = vec![true; n];
    let mut chosen = Vec::new();
    while left.iter().any(|&b| b) {
        let best = groups
            .iter()
            .map(|g| {
                let covers = (0..n)
                    .filter(|&r| left[r] && g.first.presence.get(r) == Some(&Presence::Absent))
                    .count();
                (covers, g)
            })
            .max_by_key(|(c, _)| *c);
        match best {
            Some((c, g)) if c > 0 => {
                for (r, slot) in left.iter_mut().enumerate() {
                    if g.first.presence.get(r) == Some(&Presence::Absent) {
                        *slot = false;
                    }
                }
                chosen.push(use_ref(g, versions));
            }
            _ => break,
        }
    }
    chosen
}

/// One package's answer from its surveyed uses.
fn package_range(
    catalog: &Catalog,
    survey: &Survey,
    ps: &apicompat_check::survey::PackageSurvey,
    uses: &[&SurveyedUse],
    with_declared: bool,
) -> PackageRange {
    let versions = &ps.versions;
    let n = versions.len();
    let parsed: Vec<Version> = catalog
        .package(&ps.package)
        .ok()
        .flatten()
        .map(|v| v.releases().iter().map(|r| r.version.clone()).collect())
        .unwrap_or_default();
    let counted: Vec<&SurveyedUse> = uses.iter().copied().filter(|u| u.counts()).collect();
    let counts = UseCounts {
        total: uses.len(),
        counted: counted.len(),
        guarded: uses.iter().filter(|u| u.guarded).count(),
        suppressed: uses.iter().filter(|u| u.suppressed && !u.guarded).count(),
        restricting: counted
            .iter()
            .filter(|u| u.presence.contains(&Presence::Absent))
            .count(),
    };
    let groups = group(counted.iter().copied(), &survey.project_root);
    let everywhere = |g: &&Group<'_>| {
        g.first.presence.contains(&Presence::Absent)
            && g.first
                .presence
                .iter()
                .all(|p| matches!(p, Presence::Absent | Presence::NotRun))
    };
    let missing_everywhere: Vec<UseRef> = groups
        .iter()
        .filter(everywhere)
        .map(|g| use_ref(g, versions))
        .collect();
    let live: Vec<&Group<'_>> = groups
        .iter()
        .filter(|g| !everywhere(g) && g.first.presence.contains(&Presence::Absent))
        .collect();
    let import: Vec<&Group<'_>> = live
        .iter()
        .copied()
        .filter(|g| g.first.reach == Reach::ImportTime)
        .collect();
    let call: Vec<&Group<'_>> = live
        .iter()
        .copied()
        .filter(|g| g.first.reach != Reach::ImportTime)
        .collect();
    let import_mask = meet(n, &import);
    let call_mask = meet(n, &call);
    let needs_mask: Vec<bool> = (0..n).map(|r| import_mask[r] && call_mask[r]).collect();
    let mut all_bounds = bounds("all", &needs_mask, &live, versions);
    all_bounds.extend(bounds("import-time", &import_mask, &import, versions));
    all_bounds.extend(bounds("call-time", &call_mask, &call, versions));
    let (conflict, blocking) = if needs_mask.iter().any(|&b| b) {
        (Vec::new(), None)
    } else {
        (
            conflict(n, &live, versions),
            blocking::blocking(catalog, &ps.package, &parsed, &live, versions),
        )
    };

    // The declaration.
    let reqs = if with_declared {
        survey.declared.requirements_for(&ps.package)
    } else {
        Vec::new()
    };
    let declared: Vec<DeclaredRef> = reqs
        .iter()
        .map(|r| DeclaredRef {
            requirement: r.raw.clone(),
            source: r.source.to_string(),
        })
        .collect();
    let admitted_mask: Vec<bool> = if reqs.is_empty() || parsed.len() != n {
        vec![true; n]
    } else {
        let mut admitted: Vec<Version> = parsed.clone();
        for r in &reqs {
            let picked = select(&r.specifier, &parsed);
            admitted.retain(|v| picked.contains(v));
        }
        if admitted.is_empty() {
            for r in &reqs {
                admitted.extend(select(&r.specifier, &parsed));
            }
        }
        parsed.iter().map(|v| admitted.contains(v)).collect()
    };
    let mut admitted_broken = Vec::new();
    let mut excluded_working = vec![false; n];
    let mut finding = None;
    if !reqs.is_empty() {
        for r in 0..n {
            if admitted_mask[r] && !needs_mask[r] {
                let reach = if import_mask[r] {
                    "call-time"
                } else {
                    "import-time"
                };
                let mut syms: Vec<String> = Vec::new();
                for g in import.iter().chain(call.iter()) {
                    if g.first.presence.get(r) == Some(&Presence::Absent)
                        && !syms.contains(&g.first.symbol)
                    {
                        syms.push(g.first.symbol.clone());
                    }
                }
                admitted_broken.push(BrokenRelease {
                    release: versions[r].clone(),
                    reach,
                    uses: syms,
                });
            }
            excluded_working[r] = !admitted_mask[r] && needs_mask[r];
        }
        let breaking: Vec<BreakingUse> = live
            .iter()
            .map(|g| BreakingUse {
                symbol: g.first.symbol.clone(),
                location: format!("{}:{}", g.shown, g.first.line),
                reach: g.first.reach,
                releases: (0..n)
                    .filter(|&r| g.first.presence.get(r) == Some(&Presence::Absent))
                    .collect(),
            })
            .collect();
        let admitted: Vec<usize> = (0..n).filter(|&r| admitted_mask[r]).collect();
        if parsed.len() == n {
            finding = requirement_finding(
                &ps.package,
                &parsed,
                &reqs,
                &admitted,
                &breaking,
                &survey.project_root,
            )
            .map(|(f, _)| f);
        }
    }
    let restricting = live.iter().map(|g| use_ref(g, versions)).collect();
    PackageRange {
        package: ps.package.clone(),
        releases: versions.clone(),
        uses: counts,
        needs: Releases::of(versions, &needs_mask),
        requirement: if parsed.len() == n {
            requirement_line(&ps.package, &parsed, &needs_mask, false)
        } else {
            None
        },
        import_time: Releases::of(versions, &import_mask),
        call_time: Releases::of(versions, &call_mask),
        bounds: all_bounds,
        restricting,
        missing_everywhere,
        conflict,
        declared,
        admitted: Releases::of(versions, &admitted_mask),
        admitted_broken,
        excluded_working: Releases::of(versions, &excluded_working),
        finding,
        recommended: None,
        in_main: !uses.is_empty(),
        scopes: Vec::new(),
        blocking,
        needs_mask,
        admitted_mask,
    }
}

/// Runs `range`.
pub fn range(catalog: &Catalog, options: &RangeOptions) -> Result<RangeReport, UsageError> {
    let s = survey(
        catalog,
        &SurveyOptions {
            paths: options.paths.clone(),
            project: options.project.clone(),
        },
    )?;
    Ok(range_of_survey(catalog, &s, options))
}

/// `range` over uses already surveyed.
pub fn range_of_survey(catalog: &Catalog, s: &Survey, options: &RangeOptions) -> RangeReport {
    let scopes = scopes::Scopes::read(&s.project_root);
    let main = scopes.main();
    let scope_of = |u: &SurveyedUse| -> &'static str {
        match u.path.strip_prefix(&s.project_root) {
            Ok(rel) => scopes.of(rel),
            Err(_) => scopes.of(&u.path),
        }
    };
    let mut packages: Vec<PackageRange> = Vec::new();
    for ps in &s.packages {
        let mut by_scope: Vec<(&'static str, Vec<&SurveyedUse>)> = Vec::new();
        for u in &ps.uses {
            let sc = scope_of(u);
            match by_scope.iter_mut().find(|(n, _)| *n == sc) {
                Some((_, v)) => v.push(u),
                None => by_scope.push((sc, vec![u])),
            }
        }
        let main_uses: Vec<&SurveyedUse> = by_scope
            .iter()
            .find(|(n, _)| *n == main)
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let mut p = package_range(catalog, s, ps, &main_uses, true);
        by_scope.sort_by_key(|(n, _)| *n);
        for (name, uses) in by_scope.iter().filter(|(n, _)| *n != main) {
            let sub = package_range(catalog, s, ps, uses, false);
            // The main scope's releases this scope rules out.
            let lost: Vec<usize> = (0..sub.needs_mask.len())
                .filter(|&r| p.needs_mask.get(r) == Some(&true) && !sub.needs_mask[r])
                .collect();
            let main_needs = &p.needs.releases;
            let mut bounds: Vec<Bound> = sub
                .bounds
                .into_iter()
                .filter(|b| b.scope == "all")
                .collect();
            // The bounds that cut into the main scope's releases first.
            bounds.sort_by_key(|b| !main_needs.contains(&b.excluded));
            let fixes = match lost.first() {
                Some(&r) => {
                    scope_fixes(catalog, &ps.package, uses, r, &ps.versions, &s.project_root)
                }
                None => Vec::new(),
            };
            p.scopes.push(ScopeRange {
                scope: name,
                uses: sub.uses,
                needs: sub.needs,
                requirement: sub.requirement,
                bounds,
                narrower: !lost.is_empty(),
                fixes,
            });
        }
        packages.push(p);
    }
    let mut notes = s.notes.clone();
    let mut setup = resolve::Setup::new(catalog, s, options, &mut notes);
    let in_main: Vec<PackageRange> = packages.iter().filter(|p| p.in_main).cloned().collect();
    let mut joint = resolve::solve(catalog, &in_main, &setup, false, options.cap);
    // The project's requires-python bounds the releases only as far as their own
    // Requires-Python says: when no combination supports its oldest Python, the answer is for
    // the oldest newer one it admits with which some combination works.
    if !joint.possible && !in_main.is_empty() {
        let oldest = setup.floor().cloned();
        for v in setup.raises().to_vec() {
            let raised = setup.raised(&v);
            let j = resolve::solve(catalog, &in_main, &raised, false, options.cap);
            if j.possible {
                if let Some(o) = oldest {
                    notes.push(format!(
                        "no combination of indexed releases supports Python {o}, the oldest the project's requires-python admits: the answer is for Python {v}, the oldest it admits that they support"
                    ));
                }
                joint = j;
                setup = raised;
                break;
            }
        }
    }
    let joint_declared = in_main
        .iter()
        .any(|p| !p.declared.is_empty())
        .then(|| resolve::solve(catalog, &in_main, &setup, true, options.cap));
    for p in &mut packages {
        p.recommended = joint
            .packages
            .iter()
            .find(|j| j.package == p.package)
            .and_then(|j| j.requirement.clone());
    }
    let recommended = lines(&joint);
    // Once the blocking uses are fixed.
    let joint_after_fixes = in_main.iter().any(|p| p.blocking.is_some()).then(|| {
        let fixed: Vec<PackageRange> = in_main
            .iter()
            .map(|p| {
                let mut p = p.clone();
                if let Some(b) = &p.blocking {
                    p.needs_mask = b.then_mask.clone();
                    p.needs = b.then.clone();
                    p.bounds.clear();
                }
                p
            })
            .collect();
        resolve::solve(catalog, &fixed, &setup, false, options.cap)
    });
    let recommended_after_fixes = joint_after_fixes.as_ref().map(lines).unwrap_or_default();
    RangeReport {
        project: render::display(&s.project_root),
        files: s.files,
        main_scope: main,
        package_source: scopes.source.clone(),
        packages,
        joint,
        joint_declared,
        recommended,
        joint_after_fixes,
        recommended_after_fixes,
        notes,
        io_failure: s.io_failure,
        unindexed: s.unindexed.clone(),
    }
}

/// For a scope's counted uses absent in release `r` (one the main scope needs): where the same
/// object is there.
fn scope_fixes(
    catalog: &Catalog,
    package: &str,
    uses: &[&SurveyedUse],
    r: usize,
    versions: &[String],
    root: &std::path::Path,
) -> Vec<String> {
    let absent: Vec<&SurveyedUse> = uses
        .iter()
        .copied()
        .filter(|u| u.counts() && u.presence.get(r) == Some(&Presence::Absent))
        .collect();
    let moved = blocking::moved_paths(catalog, package, &absent, r);
    let mut out: Vec<String> = Vec::new();
    for u in &absent {
        let Some(found) = moved.get(u.symbol.as_str()) else {
            continue;
        };
        let line = format!(
            "`{}` at {}:{}: {}",
            u.symbol,
            shown(&u.path, root),
            u.line,
            found.advice(
                package,
                versions.get(r).map(String::as_str).unwrap_or_default()
            )
        );
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

/// The requirement lines of a joint answer, for the packages the project uses.
fn lines(joint: &resolve::Joint) -> Vec<String> {
    joint
        .packages
        .iter()
        .filter(|p| p.used)
        .filter_map(|p| p.requirement.clone())
        .collect()
}
