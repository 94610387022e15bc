//! `apicompat check`: every use of an indexed package in a Python project, checked against the
//! releases the project may run on. [`check_project`] runs four stages:
//!
//! 1. [`settings`]: the `--target` specs, the environments, the project's declarations and the
//!    rules selected, read before any file.
//! 2. [`project`]: [`files::discover`] walks the paths (gitignore-aware); each file is parsed
//!    with ruff's error-tolerant parser and walked by [`collect`] on threads with a large
//!    stack; [`targets::choose`] picks the releases of each package used (`--target`,
//!    `--python`, `[tool.apicompat] targets`, declared requirements, `VIRTUAL_ENV`, else the
//!    newest).
//! 3. [`run_rules`]: [`evaluate`] resolves each use in each targeted release through the
//!    index, the semantic model ([`objects`]) adds the members of typed objects, and the
//!    other rules run beside it ([`members`], [`pgcopy`], [`stability`]).
//! 4. [`finish`]: `# noqa` comments, rule selection and per-file ignores, AC008, sorting and
//!    fixes.

pub mod add_noqa;
mod behind;
mod behind_in_function;
mod callers;
pub mod chains;
pub mod collect;
mod def_scan;
mod drift;
mod evaluate;
pub mod exclude;
mod extras_files;
mod file_problems;
pub mod files;
mod finish;
pub mod fix;
mod implied;
mod importers;
pub mod indexed_helpers;
mod judge;
pub mod link;
mod local_imports;
pub mod members;
pub mod model;
pub mod objects;
pub mod pgcopy;
mod pin_advice;
pub mod pins;
mod plugins;
mod presence;
mod project;
pub mod python_target;
mod requirers;
pub mod rules;
mod run_rules;
mod scopes;
mod settings;
mod stability;
mod stdlib;
pub mod subprojects;
mod suppress;
pub mod survey;
mod syspath;
pub mod targets;
mod templates;
pub mod version_terms;
pub mod versions;
pub mod warm;

use std::path::PathBuf;

use apicompat_index::Catalog;

pub use model::{
    Applicability, Autofix, BaselineCounts, Edit, Finding, Fix, FixKind, Reach, Report, Severity,
    Summary, TargetInfo,
};
pub use rules::ac008_requirement_admits_broken as admitted;
pub use rules::{add_unfetched, FirstImport, Rule, RuleSelection, UnindexedImport};
pub use settings::file_filter;

use crate::evaluate::Evaluator;
use crate::settings::Settings;

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
    /// Report uses behind an earlier failure of their module as errors of their own (for
    /// `--add-noqa` and `--write-baseline`, which must cover what a fix of the first failure
    /// brings back), not as `behind` (`crate::behind`).
    pub every_failure: bool,
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
    /// For a sub-project installed in an environment of its own
    /// (`subprojects::separate_projects`): the enclosing project bounds only the packages it
    /// names.
    pub inherit_named_only: bool,
    /// For a sub-project the install instructions install (`pip install -r sub/reqs.txt` in
    /// the enclosing project's README, or its own README's): the files they install for it,
    /// read as its requirements, and every package those name (bare too) is bounded by them
    /// alone (`subprojects::inherit`).
    pub installed: Vec<apicompat_requirements::InstalledFile>,
    pub names_own: bool,
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
        Checked::Split(plan) => subprojects::run(catalog, options, *plan),
    }
}

/// What [`check_project`] did.
pub(crate) enum Checked {
    Done(Box<Report>),
    /// The tree holds sub-projects to check apart (asked for with `split`).
    Split(Box<subprojects::Plan>),
}

/// Runs a check of one project; with `split`, a tree that holds sub-projects is not checked
/// but planned ([`subprojects::plan`], from the files found here: one walk of the tree).
///
/// The stages: [`settings`] (what the run reads before the files), [`project`] (the files
/// and the targets of what they use), [`run_rules`] (every rule), [`finish`] (suppressions,
/// selection, AC008, fixes).
pub(crate) fn check_project(
    catalog: &Catalog,
    options: &Options,
    split: bool,
) -> Result<Checked, UsageError> {
    let mut summary = Summary::default();
    let settings = Settings::read(catalog, options, &mut summary)?;
    let discovered = match project::discover(options, &settings, split, &mut summary) {
        project::Found::Files(d) => d,
        project::Found::Split(plan) => return Ok(Checked::Split(Box::new(plan))),
    };
    let mut files = project::read(catalog, options, &settings, discovered, &mut summary)?;
    let mut findings: Vec<Finding> = Vec::new();
    for (path, message) in &files.discovered.errors {
        summary.io_failure = true;
        findings.push(rules::ac006_io_error::unreadable(path, message));
    }

    // Targets of the packages used.
    let eval = Evaluator::new(catalog);
    let requirers = requirers::Requirers::new(catalog, &settings.declared);
    let sources = targets::Sources {
        cli: &settings.specs,
        python: settings.python_env.as_ref(),
        declared: &settings.declared,
        virtual_env: settings.virtual_env.as_ref(),
        requirers: Some(&requirers),
        unscoped: &settings.all_declared,
        parent: options.inherit.as_deref(),
    };
    let project::FirstPass {
        mut chosen,
        unindexed,
        mut per_file,
    } = project::first_pass(&eval, &sources, &files, &mut summary);
    // A package with no targets (installed from a VCS URL, a path) is read as what every
    // indexed release of it says (LLamaTuner's transformers from git,
    // docs/false-alarm-study-40.md, F-V).
    implied::apply(
        &eval,
        |v| {
            Some(match chosen.get(v.name()) {
                Some(t) if !t.releases.is_empty() => t.releases.clone(),
                _ => (0..v.releases().len()).collect(),
            })
        },
        &mut files.analyzed,
    );
    // `distutils` from a declared setuptools, or one the declared packages require (their
    // requirements are read only when the project uses `distutils`).
    let uses_distutils = files
        .analyzed
        .iter()
        .any(|f| f.uses.uses.iter().any(evaluate::uses_distutils));
    let restores = evaluate::Restores::new(files.analyzed.iter().flat_map(|f| {
        let shown = survey::display(&f.path);
        f.uses.restores.iter().map(move |(path, value, at)| {
            let (line, _) = f.position(at.start());
            (path.clone(), value.clone(), format!("{shown}:{line}"))
        })
    }));
    let plugins = plugins::Plugins::new(files.analyzed.iter().flat_map(|f| {
        let shown = survey::display(
            f.path
                .strip_prefix(&settings.project_root)
                .unwrap_or(&f.path),
        );
        f.uses.foreign.iter().map(move |(module, at)| {
            let (line, _) = f.position(at.start());
            (module.as_str(), format!("{shown}:{line}"))
        })
    }));
    let eval = eval
        .with_restores(restores)
        .with_plugins(plugins)
        .with_distutils_shim(
            collect::declares_distutils_shim(&settings.declared)
                || uses_distutils
                    && requirers::requirements_supply_distutils(
                        catalog,
                        &settings.declared,
                        &chosen,
                    ),
        );
    project::unindexed_imports(
        catalog,
        &settings,
        &files,
        unindexed,
        &mut per_file,
        &mut summary,
    );

    // Every rule.
    let cx = run_rules::Context {
        catalog,
        eval: &eval,
        requirers: &requirers,
        sources: &sources,
        options,
    };
    run_rules::run(
        &cx,
        &mut files,
        &mut chosen,
        &mut summary.notes,
        &mut per_file,
    );
    per_file.retain(|(fi, _, _)| files.reported.get(*fi).copied().unwrap_or(true));
    crate::syspath::drop_unsure(&files, &mut per_file, &mut summary.notes);
    summary.notes.append(&mut eval.take_notes());
    summary.targets = chosen.into_values().map(|t| t.info).collect();

    let report = finish::report(
        catalog,
        &settings,
        (options.show_guarded, !options.every_failure),
        files.pool,
        files.analyzed,
        per_file,
        findings,
        summary,
    );
    Ok(Checked::Done(Box::new(report)))
}

/// Findings in the order they are reported: by file, position, rule and symbol.
fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (&a.path, a.line, a.column, a.code, &a.symbol)
            .cmp(&(&b.path, b.line, b.column, b.code, &b.symbol))
    });
}

/// The last segment of a dotted path (`Module` of `torch.nn.Module`).
pub(crate) fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}
