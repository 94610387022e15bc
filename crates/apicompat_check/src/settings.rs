//! The first stage of a check: what the run reads before any file of the project (the
//! targets asked for, the environments, the project's declarations, the rules selected and
//! the files left out).

use apicompat_hash::HashSet;
use std::path::{Path, PathBuf};

use apicompat_index::Catalog;
use apicompat_requirements::{
    open_environment, open_environment_at, read_project, Declared, InstalledEnvironment,
    Severity as DiagSeverity,
};

use crate::model::Summary;
use crate::rules::{self, RuleSelection};
use crate::targets::{self, TargetSpec};
use crate::{exclude, subprojects, Options, UsageError};

/// What a run reads before the files.
pub(crate) struct Settings {
    /// `--target` specs.
    pub specs: Vec<TargetSpec>,
    /// `--python`'s environment.
    pub python_env: Option<InstalledEnvironment>,
    /// The active virtual environment, when it could be read.
    pub virtual_env: Option<InstalledEnvironment>,
    /// The paths to check (the current directory when none is given).
    pub paths: Vec<PathBuf>,
    pub project_root: PathBuf,
    /// The directory the declarations' files are named from: the enclosing project's for a
    /// sub-project (its own files are named with the sub-project's directory, `verl/pyproject.toml`,
    /// beside the enclosing project's `setup.py`), else `project_root`.
    pub declarations_root: PathBuf,
    /// Every declaration, the scopes not checked included.
    pub all_declared: Declared,
    /// The declarations of the scopes checked.
    pub declared: Declared,
    /// A sub-project's packages whose declarations are the enclosing project's: AC008 on them
    /// belongs to that project's run.
    pub inherited: HashSet<String>,
    /// The command line's rules over `[tool.apicompat]`'s.
    pub selection: RuleSelection,
    pub filter: exclude::FileFilter,
}

impl Settings {
    /// Reads them; a bad `--target`, rule code or `--python` fails the run, the rest are
    /// notes in `summary`.
    pub fn read(
        catalog: &Catalog,
        options: &Options,
        summary: &mut Summary,
    ) -> Result<Settings, UsageError> {
        let specs = cli_targets(catalog, options)?;
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
        let paths: Vec<PathBuf> = if options.paths.is_empty()
            && options.stdin.is_none()
            && options.documents.is_empty()
        {
            vec![PathBuf::from(".")]
        } else {
            options.paths.clone()
        };
        let project_root = options
            .project
            .clone()
            .unwrap_or_else(|| project_root_of(&paths, options));
        let (all_declared, inherited) = declarations(&project_root, options);
        let wanted = crate::scopes::documented(&all_declared, &project_root, options, summary);
        let scopes = crate::scopes::scope_names(&all_declared, &wanted);
        let declared = all_declared.in_scopes(&scopes);
        crate::scopes::scope_notes(catalog, &all_declared, &scopes, &mut summary.notes);
        declaration_problems(&declared, &project_root, summary);
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
        let filter = file_filter(&project_root, config, &options.files, &mut summary.notes);
        let declarations_root = options
            .inherit
            .clone()
            .unwrap_or_else(|| project_root.clone());
        Ok(Settings {
            specs,
            python_env,
            virtual_env,
            paths,
            project_root,
            declarations_root,
            all_declared,
            declared,
            inherited,
            selection,
            filter,
        })
    }
}

/// The `--target` specs, each of a package the index has.
fn cli_targets(catalog: &Catalog, options: &Options) -> Result<Vec<TargetSpec>, UsageError> {
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
    Ok(specs)
}

/// The project of the first path (or of standard input's name, or of the first document).
fn project_root_of(paths: &[PathBuf], options: &Options) -> PathBuf {
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
}

/// The project's declarations (completed by the enclosing project's for a sub-project), and
/// the packages only the enclosing project declares.
fn declarations(project_root: &Path, options: &Options) -> (Declared, HashSet<String>) {
    let mut declared = apicompat_requirements::read_project_with(project_root, &options.installed);
    let Some(parent) = &options.inherit else {
        return (declared, HashSet::default());
    };
    // Named from the enclosing project, like the enclosing project's own declarations.
    if let Some(dir) = subprojects::relative_dir(project_root, parent) {
        for r in &mut declared.requirements {
            r.source.file = dir.join(&r.source.file);
        }
        for d in &mut declared.direct {
            d.source.file = dir.join(&d.source.file);
        }
    }
    let own: HashSet<String> = declared
        .requirements
        .iter()
        .filter(|r| options.names_own || !r.specifier.is_empty())
        .map(|r| r.name.clone())
        .collect();
    let how = subprojects::Inherit {
        named_only: options.inherit_named_only,
        names_own: options.names_own,
    };
    let declared = subprojects::inherit(&read_project(parent), declared, how);
    let inherited = declared
        .requirements
        .iter()
        .filter(|r| !own.contains(&r.name))
        .map(|r| r.name.clone())
        .collect();
    (declared, inherited)
}

/// A declaration that could not be read is a note; shown when nothing else was read, so
/// "declares no package requirements" says why (`install_requires` built at run time).
/// Unreadable declarations are kept apart too: the CLI fails closed on them (exit 2).
fn declaration_problems(declared: &Declared, project_root: &Path, summary: &mut Summary) {
    let nothing_read = declared.requirements.is_empty();
    let shown = |d: &apicompat_requirements::Diagnostic| {
        let file = project_root.join(&d.file);
        match d.line {
            Some(line) => format!("{}:{line}: {}", file.display(), d.message),
            None => format!("{}: {}", file.display(), d.message),
        }
    };
    for d in &declared.diagnostics {
        if d.severity >= DiagSeverity::Warning || nothing_read {
            summary.notes.push(shown(d));
        }
    }
    summary.bad_declarations = declared
        .diagnostics
        .iter()
        .filter(|d| d.severity == DiagSeverity::Error)
        .map(shown)
        .collect();
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

fn split_codes(list: &[String]) -> Vec<String> {
    list.iter()
        .flat_map(|s| s.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}
