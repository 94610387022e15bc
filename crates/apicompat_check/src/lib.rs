//! `apicompat check`: every use of an indexed package in a Python project, checked against the
//! releases the project may run on.
//!
//! 1. [`files::discover`] walks the paths (gitignore-aware); each file is parsed with ruff's
//!    error-tolerant parser and walked by [`collect`] on threads with a large stack.
//! 2. [`targets::choose`] picks the releases of each package used: `--target`, `--python`,
//!    `[tool.apicompat] targets`, declared requirements, `VIRTUAL_ENV`, else the newest.
//! 3. [`evaluate`] resolves each use in each targeted release through the index and turns
//!    breaks into [`Finding`]s, with fixes; `# noqa` comments and rule selection apply last.

pub mod add_noqa;
mod callers;
pub mod chains;
pub mod collect;
mod def_scan;
mod drift;
mod evaluate;
pub mod exclude;
mod file_problems;
pub mod files;
pub mod fix;
mod importers;
mod judge;
pub mod link;
pub mod members;
pub mod model;
pub mod objects;
pub mod pgcopy;
mod pin_advice;
pub mod pins;
mod presence;
pub mod python_target;
mod requirers;
pub mod rules;
mod stability;
mod stdlib;
pub mod subprojects;
mod suppress;
pub mod survey;
pub mod targets;
pub mod versions;
pub mod warm;

use apicompat_hash::{HashMap, HashSet};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use apicompat_index::Catalog;
use apicompat_requirements::{
    open_environment, open_environment_at, read_project, Severity as DiagSeverity,
};

pub use model::{
    Applicability, Autofix, BaselineCounts, Edit, Finding, Fix, FixKind, Reach, Report, Severity,
    Summary, TargetInfo,
};
pub use rules::ac008_requirement_admits_broken as admitted;
pub use rules::{add_unfetched, FirstImport, Rule, RuleSelection, UnindexedImport};

use crate::collect::UseKind;
use crate::evaluate::Evaluator;
use crate::files::Analyzed;
use crate::rules::{MissingAttribute, RequirementAdmitsBroken, RuleInfo, UnindexedPackage};

/// Stack of the threads that parse and walk files: 10,000-deep nesting must not overflow.
const STACK_SIZE: usize = 256 * 1024 * 1024;

/// Source read from standard input.
#[derive(Debug, Clone)]
pub struct StdinSource {
    /// The name to report it under (`-` unless `--stdin-filename` is given).
    pub name: PathBuf,
    pub bytes: Vec<u8>,
}

/// What to check and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Files and directories (empty with no stdin: the current directory).
    pub paths: Vec<PathBuf>,
    pub stdin: Option<StdinSource>,
    /// Files given by their text (the server's open documents), checked as the files of the
    /// project at their paths (with their module names), in place of what is on disk.
    pub documents: Vec<StdinSource>,
    /// Where requirements are read from (default: found from the first path).
    pub project: Option<PathBuf>,
    /// `--target` specs: `torch==2.4.1`, `torch>=2.3`.
    pub targets: Vec<String>,
    /// `--python`: an interpreter or environment whose installed releases are targets.
    pub python: Option<PathBuf>,
    /// An active virtual environment (`VIRTUAL_ENV`), used when nothing is declared.
    pub virtual_env: Option<PathBuf>,
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    /// Report guarded uses too (as `info`).
    pub show_guarded: bool,
    /// `--exclude`, `--extend-exclude`, `--per-file-ignores`, `--force-exclude` (merged with
    /// `[tool.apicompat]`).
    pub files: exclude::FileSettings,
    /// `--scope NAME`: requirement scopes (extras, dependency groups, other requirements
    /// files) checked with the main requirements.
    pub scopes: Vec<String>,
    /// Directories left out of this run (sub-projects checked on their own, see
    /// [`subprojects`]); with none, the tree is split into its projects.
    pub skip_dirs: Vec<PathBuf>,
    /// For a sub-project: the project whose declarations complete its own.
    pub inherit: Option<PathBuf>,
    /// For a sub-project: the top-level packages the enclosing project provides (its examples
    /// import them from the same tree).
    pub own_roots: Vec<String>,
    /// Directories read for what they tell about the others (helpers, callers, classes of the
    /// enclosing project), whose own findings are not reported.
    pub context: Vec<PathBuf>,
    /// Report the findings of `documents` only: the files under `paths` are read for what
    /// they tell about them (the language server: the open documents in their project).
    pub documents_only: bool,
    /// Per-file analyses kept between checks (the language server): unchanged files are not
    /// parsed again ([`warm`]).
    pub warm: Option<std::sync::Arc<warm::Warm>>,
}

/// A failure of the run itself (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Runs a check: each project of the tree against its own declarations ([`subprojects`]).
pub fn check(catalog: &Catalog, options: &Options) -> Result<Report, UsageError> {
    match check_project(catalog, options, true)? {
        Checked::Done(report) => Ok(*report),
        Checked::Split(plan) => subprojects::run(catalog, options, plan),
    }
}

/// What [`check_project`] did.
pub(crate) enum Checked {
    Done(Box<Report>),
    /// The tree holds sub-projects to check apart (asked for with `split`).
    Split(subprojects::Plan),
}

/// Runs a check of one project; with `split`, a tree that holds sub-projects is not checked
/// but planned ([`subprojects::plan`], from the files found here: one walk of the tree).
pub(crate) fn check_project(
    catalog: &Catalog,
    options: &Options,
    split: bool,
) -> Result<Checked, UsageError> {
    let specs = options
        .targets
        .iter()
        .map(|t| targets::parse_target(t))
        .collect::<Result<Vec<_>, _>>()
        .map_err(UsageError)?;
    if let Some(s) = specs.iter().find(|s| !catalog.knows(&s.name)) {
        let hint = match catalog.unavailable().iter().find(|u| u.package == s.name) {
            Some(u) => format!(
                "it is indexed in the data file shipped beside apicompat, but {} (reinstall apicompat, or set APICOMPAT_DATA_FILE)",
                u.reason
            ),
            None => format!("add it with `apicompat index fetch {}`", s.name),
        };
        return Err(UsageError(format!(
            "--target `{}`: `{}` is not in the index; {hint}",
            s.text, s.name
        )));
    }
    let cli_selection = RuleSelection {
        select: split_codes(&options.select),
        ignore: split_codes(&options.ignore),
    };
    let unknown = cli_selection.unknown_codes();
    if !unknown.is_empty() {
        return Err(UsageError(format!(
            "unknown rule code(s): {}; the rules are {}",
            unknown.join(", "),
            rules::ALL
                .iter()
                .map(|r| r.code)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let python_env = match &options.python {
        Some(p) => Some(open_environment(Some(p)).map_err(|e| UsageError(e.to_string()))?),
        None => None,
    };

    let mut summary = Summary::default();
    let paths: Vec<PathBuf> =
        if options.paths.is_empty() && options.stdin.is_none() && options.documents.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            options.paths.clone()
        };
    let project_root = options.project.clone().unwrap_or_else(|| {
        let start = paths
            .first()
            .cloned()
            .or_else(|| options.stdin.as_ref().map(|s| s.name.clone()))
            .or_else(|| options.documents.first().map(|s| s.name.clone()))
            .unwrap_or_else(|| PathBuf::from("."));
        let start = if start.exists() {
            start
        } else {
            PathBuf::from(".")
        };
        targets::find_project_root(&start)
    });
    let mut all_declared = read_project(&project_root);
    // A sub-project's packages whose declarations are the enclosing project's: AC008 on them
    // belongs to that project's run.
    let mut inherited: HashSet<String> = HashSet::default();
    if let Some(parent) = &options.inherit {
        let own: HashSet<String> = all_declared
            .requirements
            .iter()
            .filter(|r| !r.specifier.is_empty())
            .map(|r| r.name.clone())
            .collect();
        all_declared = subprojects::inherit(&read_project(parent), all_declared);
        inherited = all_declared
            .requirements
            .iter()
            .filter(|r| !own.contains(&r.name))
            .map(|r| r.name.clone())
            .collect();
    }
    let scopes = targets::scope_names(&all_declared, &options.scopes);
    let declared = all_declared.in_scopes(&scopes);
    targets::scope_notes(catalog, &all_declared, &scopes, &mut summary.notes);
    // A declaration that could not be read is a note; shown when nothing else was read, so
    // "declares no package requirements" says why (`install_requires` built at run time).
    let nothing_read = declared.requirements.is_empty();
    for d in &declared.diagnostics {
        if d.severity >= DiagSeverity::Warning || nothing_read {
            summary.notes.push(format!(
                "{}: {}",
                project_root.join(&d.file).display(),
                strip_severity(&d.to_string())
            ));
        }
    }
    // Unreadable declarations: the CLI fails closed on them (exit 2).
    let bad = declared
        .diagnostics
        .iter()
        .filter(|d| d.severity == DiagSeverity::Error);
    summary.bad_declarations = bad
        .map(|d| {
            format!(
                "{}: {}",
                project_root.join(&d.file).display(),
                strip_severity(&d.to_string())
            )
        })
        .collect();
    let config = &declared.tool_config;
    let selection = RuleSelection {
        select: if cli_selection.select.is_empty() {
            config.select.clone()
        } else {
            cli_selection.select.clone()
        },
        ignore: config
            .ignore
            .iter()
            .cloned()
            .chain(cli_selection.ignore.iter().cloned())
            .collect(),
    };
    for code in selection.unknown_codes() {
        summary.notes.push(format!(
            "[tool.apicompat]: unknown rule code `{code}` ignored"
        ));
    }
    let virtual_env = options.virtual_env.as_ref().and_then(|p| {
        open_environment_at(p)
            .map_err(|e| summary.notes.push(format!("VIRTUAL_ENV: {e}")))
            .ok()
    });

    // Files.
    let filter = file_filter(&project_root, config, &options.files, &mut summary.notes);
    let walked: Vec<PathBuf> = paths.iter().chain(&options.context).cloned().collect();
    let mut discovered = match &options.warm {
        Some(w) => w.discover(
            &walked,
            &filter,
            &project_root,
            &exclude::FileSettings::merge(config, &options.files),
        ),
        None => files::discover(&walked, &filter),
    };
    if !options.skip_dirs.is_empty() {
        discovered
            .files
            .retain(|f| !subprojects::skipped(f, &options.skip_dirs));
    }
    discovered
        .own_packages
        .extend(options.own_roots.iter().cloned());
    let may_split = split
        && options.project.is_none()
        && options.stdin.is_none()
        && options.documents.is_empty();
    if may_split {
        if let Some(plan) = subprojects::plan(&project_root, &all_declared, &discovered, &filter) {
            if plan.affordable {
                return Ok(Checked::Split(plan));
            }
            summary.notes.push(plan.note());
        }
    }

    // Top-level modules of every indexed package, but those the project provides itself.
    // (A package of the data file is not decoded for this: the file's table names its roots.)
    let mut roots: HashSet<String> = HashSet::default();
    for name in catalog.names() {
        match catalog.roots(name) {
            Ok(r) => roots.extend(r),
            Err(e) => summary
                .notes
                .push(format!("the index of {name} cannot be read: {e}")),
        }
    }
    for name in discovered.own_roots(&roots, catalog) {
        roots.remove(&name);
        summary.notes.push(files::own_root_note(&name));
    }
    let (pool, mut analyzed) = files::analyze_project(
        &discovered.files,
        options.stdin.as_ref(),
        &options.documents,
        &roots,
        &project_root,
        options.warm.as_deref(),
    )?;
    let documents: HashSet<&Path> = options.documents.iter().map(|d| d.name.as_path()).collect();
    let reported: Vec<bool> = analyzed
        .iter()
        .map(|a| {
            if options.documents_only {
                documents.contains(a.path.as_path())
            } else {
                !subprojects::skipped(&a.path, &options.context)
            }
        })
        .collect();
    summary.files = reported.iter().filter(|&&r| r).count();

    let mut findings: Vec<Finding> = Vec::new();
    for (path, message) in &discovered.errors {
        summary.io_failure = true;
        findings.push(rules::ac006_io_error::unreadable(path, message));
    }

    // Targets of the packages used.
    let eval = Evaluator::new(catalog);
    let requirers = requirers::Requirers::new(catalog, &declared);
    let target_sources = targets::Sources {
        cli: &specs,
        python: python_env.as_ref(),
        declared: &declared,
        virtual_env: virtual_env.as_ref(),
        requirers: Some(&requirers),
        unscoped: &all_declared,
        parent: options.inherit.as_deref(),
    };
    let mut chosen: BTreeMap<String, targets::Target> = BTreeMap::new();
    let mut unindexed = rules::Unindexed::default();
    let mut per_file: Vec<(usize, Finding, Vec<u32>)> = Vec::new();
    for (fi, file) in analyzed.iter().enumerate() {
        if file_problems::of(fi, file, &mut per_file, &mut summary) {
            continue;
        }
        for (root, range) in &file.uses.foreign {
            if reported[fi] && !stdlib::is_stdlib(root) && !discovered.first_party.contains(root) {
                unindexed.note(root, fi, *range);
            }
        }
        // The targets of the packages used, chosen in the order of first use (their notes too).
        let mut last_root: Option<&str> = None;
        for u in &file.uses.uses {
            let root = u.path.split('.').next().unwrap_or(&u.path);
            if last_root == Some(root) {
                continue;
            }
            last_root = Some(root);
            let Some(view) = eval.package_for(root) else {
                continue;
            };
            if !chosen.contains_key(view.name()) {
                let t = targets::choose(view, &target_sources, &mut summary.notes);
                chosen.insert(view.name().to_string(), t);
            }
        }
    }

    // `distutils` from a declared setuptools, or one the declared packages require (their
    // requirements are read only when the project uses `distutils`).
    let uses_distutils = analyzed
        .iter()
        .any(|f| f.uses.uses.iter().any(evaluate::uses_distutils));
    let eval = eval.with_distutils_shim(
        collect::declares_distutils_shim(&declared)
            || uses_distutils
                && requirers::requirements_supply_distutils(catalog, &declared, &chosen),
    );
    let envs: Vec<&apicompat_requirements::InstalledEnvironment> =
        python_env.iter().chain(virtual_env.iter()).collect();
    let ac004 = selection.enabled(UnindexedPackage::RULE.code);
    summary.unindexed = unindexed.imports(&declared, &envs, |fi, range| {
        let file = &analyzed[fi];
        let span = file.span(range);
        let silenced = filter.ignores(&file.path, UnindexedPackage::RULE.code)
            || file
                .suppressions
                .silences(&[span.0], UnindexedPackage::RULE.code);
        (ac004 && !silenced).then(|| rules::FirstImport {
            path: file.path.clone(),
            span,
        })
    });
    for u in catalog.unavailable() {
        if summary
            .unindexed
            .iter()
            .any(|i| u.roots.contains(&i.import))
        {
            summary.notes.push(format!(
                "{} is indexed in the data file shipped beside apicompat, but {}: its uses are not checked (reinstall apicompat, or set APICOMPAT_DATA_FILE)",
                u.package, u.reason
            ));
        }
    }
    if selection.enabled(UnindexedPackage::RULE.code) {
        unindexed.report(
            selection.names(UnindexedPackage::RULE.code),
            &analyzed,
            &declared,
            &envs,
            &mut per_file,
            &mut summary.notes,
        );
    }

    // Every use against its targets, files in parallel (the index lookups are shared), while
    // the semantic model finds the members of objects whose class it knows and AC010 follows
    // process groups (both walk on one thread each: together they keep both cores busy).
    let modules = objects::module_facts(&analyzed);
    let stored = invented_paths(&eval, &analyzed);
    let mut by_pgcopy = Vec::new();
    let ((typed, origins), (mut evaluated, mut places)) = pool.install(|| {
        rayon::join(
            || objects::member_uses(&eval, modules, &analyzed, &reported, &roots, &chosen),
            || {
                rayon::join(
                    || {
                        // The files read for context only are not judged.
                        let reported = &reported;
                        let uses = analyzed
                            .par_iter()
                            .enumerate()
                            .filter(move |(fi, _)| reported[*fi])
                            .flat_map_iter(|(fi, f)| f.uses.uses.iter().map(move |u| (fi, u)));
                        evaluate_uses(&eval, &chosen, &analyzed, &stored, uses)
                    },
                    || {
                        pgcopy::check_files(
                            catalog,
                            &analyzed,
                            &reported,
                            options.warm.as_deref().map(|w| &w.process_groups),
                            &mut by_pgcopy,
                        )
                    },
                )
                .0
            },
        )
    });
    // AC010's own facts are not read again (AC009 and AC012 read the rest).
    // (A file kept for the next check is left whole.)
    // They are freed on the pool while the other rules run.
    let ac010_only: Vec<_> = analyzed
        .iter_mut()
        .filter_map(|a| Some(Arc::get_mut(a)?.process_groups.take_ac010_only()))
        .collect();
    pool.spawn(move || drop(ac010_only));
    // The members of objects: their packages' targets, then the same evaluation.
    for (_, u) in &typed {
        let root = u.path.split('.').next().unwrap_or(&u.path);
        if let Some(view) = eval.package_for(root) {
            if !chosen.contains_key(view.name()) {
                let t = targets::choose(view, &target_sources, &mut summary.notes);
                chosen.insert(view.name().to_string(), t);
            }
        }
    }
    let (more, more_places) = pool.install(|| {
        evaluate_uses(
            &eval,
            &chosen,
            &analyzed,
            &stored,
            typed.par_iter().map(|(fi, u)| (*fi, u)),
        )
    });
    evaluated.extend(more);
    places.extend(more_places);
    for (fi, u) in typed {
        Arc::make_mut(&mut analyzed[fi]).uses.uses.push(u);
    }
    // The `moved` fixes (one pass over the index's paths) while the other rules run.
    pgcopy::add_targets(catalog, &chosen, &mut by_pgcopy);
    let (mut by_members, mut by_stability) = (Vec::new(), Vec::new());
    pool.install(|| {
        rayon::join(
            || eval.add_moved(&mut evaluated),
            || {
                rayon::join(
                    || {
                        members::check_files(
                            catalog,
                            &analyzed,
                            &reported,
                            &chosen,
                            &origins,
                            &mut by_members,
                        )
                    },
                    || {
                        stability::check_files(
                            &eval,
                            catalog,
                            &analyzed,
                            &reported,
                            &chosen,
                            &mut by_stability,
                        )
                    },
                )
            },
        )
    });
    // A read AC009 reports on an object of a known class (with the replacements it finds)
    // is not reported again as a missing member.
    let drifting: HashSet<(usize, u32, u32)> = by_members
        .iter()
        .map(|(fi, f, _)| (*fi, f.line, f.column))
        .collect();
    let mut found: Vec<(usize, Finding, Vec<u32>)> = evaluated
        .into_iter()
        .zip(places)
        .map(|((_, p), (fi, lines))| (fi, p.finding, lines))
        .filter(|(fi, f, _)| {
            !(f.code == MissingAttribute::RULE.code && drifting.contains(&(*fi, f.line, f.column)))
        })
        .collect();
    rules::ac013_call_does_not_bind::drop_explained(&mut found);
    per_file.extend(found);
    per_file.extend(by_members);
    per_file.extend(by_pgcopy);
    per_file.extend(by_stability);
    // A per-use pin is printed only when it breaks no other use.
    pin_advice::vet(
        catalog,
        &eval,
        &requirers,
        &chosen,
        &analyzed,
        &mut per_file,
    );
    per_file.retain(|(fi, _, _)| reported.get(*fi).copied().unwrap_or(true));
    summary.notes.append(&mut eval.take_notes());
    summary.targets = chosen.into_values().map(|t| t.info).collect();

    // Suppressions and selection.
    let mut sources: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut seen: HashMap<(usize, u32, u32, &'static str, String), ()> = HashMap::default();
    let mut breaking = admitted::Collector::default();
    // The import chains from the entry points, for the files with import-time findings
    // (computed at the first one).
    let mut chain_of: Option<HashMap<usize, Vec<String>>> = None;
    let mut import_chains: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    for (fi, f, lines) in per_file {
        let file = &analyzed[fi];
        if !file.suppressions.silences(&lines, f.code) {
            breaking.note(&f);
        }
        if !selection.enabled(f.code) || filter.ignores(&file.path, f.code) {
            continue;
        }
        if file.suppressions.silences(&lines, f.code) {
            summary.suppressed += 1;
            continue;
        }
        if f.reach == Reach::Guarded {
            summary.guarded += 1;
            if !options.show_guarded {
                continue;
            }
        }
        if seen
            .insert((fi, f.line, f.column, f.code, f.symbol.clone()), ())
            .is_some()
        {
            continue;
        }
        if !file.text.is_empty() {
            sources
                .entry(file.path.clone())
                .or_insert_with(|| file.text.clone());
        }
        if f.reach == Reach::ImportTime {
            let chain_of = chain_of.get_or_insert_with(|| {
                let files: Vec<(&Path, &collect::FileUses)> = analyzed
                    .iter()
                    .map(|a| (a.path.as_path(), &a.uses))
                    .collect();
                let scripts = chains::script_modules(&project_root.join("pyproject.toml"));
                chains::chains(&files, &scripts)
            });
            if let Some(chain) = chain_of.get(&fi) {
                import_chains
                    .entry(file.path.clone())
                    .or_insert_with(|| chain.clone());
            }
        }
        findings.push(f);
    }
    if selection.enabled(RequirementAdmitsBroken::RULE.code) {
        for (f, text) in breaking.findings(catalog, &summary.targets, &declared, &project_root) {
            if filter.ignores(&f.path, f.code)
                || inherited.contains(&apicompat_requirements::normalize_name(&f.package))
            {
                continue;
            }
            if let Some(text) = text {
                sources.entry(f.path.clone()).or_insert(text);
            }
            findings.push(f);
        }
    }
    sort_findings(&mut findings);
    suppress::drop_deprecations_of_missing(&mut findings);
    for f in &findings {
        match f.severity {
            Severity::Error => summary.errors += 1,
            Severity::Warning => summary.warnings += 1,
            Severity::Info => summary.infos += 1,
        }
    }
    // Freeing a large project's files takes a while: on the pool's threads, while the report
    // is finished and printed (a process that exits first leaves it to the system).
    pool.spawn(move || analyzed.into_par_iter().for_each(drop));
    let config_baseline = declared
        .tool_config
        .baseline
        .as_ref()
        .map(|b| project_root.join(b));
    let mut report = Report {
        findings,
        summary,
        sources,
        chains: import_chains,
        project_root,
        config_baseline,
    };
    fix::attach(catalog, &mut report);
    Ok(Checked::Done(Box::new(report)))
}

/// Evaluates uses (file number, use) against the chosen targets, in parallel: the pending
/// findings, and for each its file and the lines a `noqa` may be on.
#[allow(clippy::type_complexity)]
fn evaluate_uses<'c, 'u>(
    eval: &Evaluator<'c>,
    chosen: &BTreeMap<String, targets::Target>,
    analyzed: &[Arc<Analyzed>],
    stored: &HashSet<String>,
    uses: impl ParallelIterator<Item = (usize, &'u collect::Use)>,
) -> (
    Vec<(&'c apicompat_index::PackageView, evaluate::Pending)>,
    Vec<(usize, Vec<u32>)>,
) {
    uses.filter_map(|(fi, u)| {
        if u.kind != UseKind::Store && under_stored(&u.path, stored) {
            return None;
        }
        let file = &analyzed[fi];
        let root = u.path.split('.').next().unwrap_or(&u.path);
        let view = eval.package_for(root)?;
        let target = chosen.get(view.name())?;
        if eval.never_runs(u, view, chosen) {
            return None;
        }
        let mut p = eval.evaluate(u, view, target)?;
        let f = &mut p.finding;
        // A fallback import already sits in a handler: no advice to wrap it in another.
        let fallbacks = &file.uses.fallbacks;
        if u.kind == UseKind::Import
            && fallbacks.iter().any(|&i| {
                file.uses
                    .uses
                    .get(i as usize)
                    .is_some_and(|x| x.range == u.range)
            })
        {
            f.fixes.retain(|x| x.kind != model::FixKind::Guard);
        }
        let (l, c, el, ec) = file.span(u.range);
        f.path = file.path.clone();
        if f.reach == Reach::Guarded {
            f.guard = u.guard_at.and_then(|g| guard_note(analyzed, fi, g));
        }
        (f.line, f.column, f.end_line, f.end_column) = (l, c, el, ec);
        let (stmt_line, _) = file.position(u.stmt_start);
        Some(((view, p), (fi, vec![l, stmt_line])))
    })
    .unzip()
}

/// Findings in the order they are reported: by file, position, rule and symbol.
fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (&a.path, a.line, a.column, a.code, &a.symbol)
            .cmp(&(&b.path, b.line, b.column, b.code, &b.symbol))
    });
}

/// The paths of indexed packages the project assigns that no release of the package has
/// (`masking_utils.origin_mask = masking_utils.create_causal_mask`): names the project puts
/// there itself, in any file. A name some release has is judged as usual where it is read
/// (the original is read before a patch replaces it: `orig = mod.f; mod.f = patched`).
fn invented_paths(eval: &Evaluator<'_>, analyzed: &[Arc<Analyzed>]) -> HashSet<String> {
    let mut stored: Vec<&str> = analyzed
        .iter()
        .flat_map(|f| f.uses.uses.iter())
        .filter(|u| u.kind == UseKind::Store)
        .map(|u| u.path.as_str())
        .collect();
    stored.sort_unstable();
    stored.dedup();
    // Each is looked up in every release: a bounded number (the others are judged as usual).
    stored.truncate(MAX_STORED_PATHS);
    stored
        .into_iter()
        .filter(|path| {
            let root = path.split('.').next().unwrap_or(path);
            eval.package_for(root).is_some_and(|view| {
                (0..view.releases().len()).all(|r| {
                    !matches!(
                        view.status(path, r),
                        Ok(apicompat_index::Status::Present { .. })
                    )
                })
            })
        })
        .map(str::to_string)
        .collect()
}

/// Assigned paths looked up in the index at most (see [`invented_paths`]).
const MAX_STORED_PATHS: usize = 4096;

/// `path` is a path the project invents, or something read through one.
fn under_stored(path: &str, stored: &HashSet<String>) -> bool {
    !stored.is_empty()
        && (stored.contains(path)
            || path
                .match_indices('.')
                .any(|(i, _)| stored.contains(&path[..i])))
}

/// A guard as written (its first line) and where: `` `if hasattr(torch, "xpu"):` (line 12) ``,
/// with the file when it is another one.
fn guard_note(analyzed: &[Arc<Analyzed>], fi: usize, at: collect::GuardAt) -> Option<String> {
    let file = match at.file {
        Some(other) => analyzed.get(other as usize)?,
        None => analyzed.get(fi)?,
    };
    let (line, _) = file.position(at.range.start());
    let start = at.range.start().to_usize();
    let line_start = file.text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
    let first = file.text.get(line_start..)?.lines().next()?.trim();
    let shown: String = if first.chars().count() > 72 {
        first.chars().take(69).chain("...".chars()).collect()
    } else {
        first.to_string()
    };
    Some(match at.file {
        Some(other) if other as usize != fi => {
            format!("`{shown}` ({}:{line})", crate::survey::display(&file.path))
        }
        _ => format!("`{shown}` (line {line})"),
    })
}

/// The exclusions and per-file ignores of the project, the command line over
/// `[tool.apicompat]`; globs that do not compile and unknown codes become notes.
pub fn file_filter(
    project_root: &Path,
    config: &apicompat_requirements::ToolConfig,
    cli: &exclude::FileSettings,
    notes: &mut Vec<String>,
) -> exclude::FileFilter {
    let settings = exclude::FileSettings::merge(config, cli);
    let (filter, errors) = exclude::FileFilter::new(project_root, &settings);
    notes.extend(errors.into_iter().map(|e| format!("{e} (ignored)")));
    let codes = RuleSelection {
        select: filter.codes().map(str::to_string).collect(),
        ignore: Vec::new(),
    };
    for code in codes.unknown_codes() {
        notes.push(format!(
            "per-file-ignores: unknown rule code `{code}` ignored"
        ));
    }
    filter
}

fn strip_severity(s: &str) -> String {
    // `file:3: error: message` -> `3: error: message` keeps the line; the file is prefixed.
    match s.split_once(": ") {
        Some((_, rest)) => rest.to_string(),
        None => s.to_string(),
    }
}

fn split_codes(list: &[String]) -> Vec<String> {
    list.iter()
        .flat_map(|s| s.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}
