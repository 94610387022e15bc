//! `apicompat check [PATH]...`: every use of an indexed package in a project, checked against
//! the releases it may run on.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use apicompat_check::{check, Options, StdinSource};
use apicompat_index::Catalog;

use crate::commands::on_demand::{self, OnDemand, Wanted};
use crate::{CmdResult, Failure};

/// The `--target` specs whose package the index lacks.
pub fn target_wants(catalog: &Catalog, targets: &[String]) -> Vec<Wanted> {
    let mut out: Vec<Wanted> = Vec::new();
    for t in targets {
        let Ok(req) = apicompat_requirements::parse_requirement(t) else {
            continue;
        };
        let name = apicompat_requirements::normalize_name(&req.name);
        if matches!(catalog.package(&name), Ok(Some(_))) {
            continue;
        }
        let spec = req.specifier.to_string();
        match out.iter_mut().find(|w| w.distribution == name) {
            Some(w) => w.specifiers.push(spec),
            None => out.push(Wanted {
                distribution: name,
                specifiers: vec![spec],
                requirements_known: false,
            }),
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Sarif,
    Github,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files and directories to check (default: the current directory); `-` reads standard input.
    pub paths: Vec<PathBuf>,
    /// Releases to check against: `torch==2.4.1`, `torch>=2.3` (repeatable; a range checks
    /// every release in it). Default: the project's declared requirements.
    #[arg(long = "target", value_name = "SPEC")]
    pub targets: Vec<String>,
    /// A Python interpreter or environment whose installed releases are the targets.
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// The project directory whose requirements are read (default: found from the first path).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    pub output_format: CheckFormat,
    /// Rule codes or prefixes to enable (comma-separated or repeated; default: all).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub select: Vec<String>,
    /// Rule codes or prefixes to disable.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub ignore: Vec<String>,
    /// Also report uses that are missing somewhere but guarded by the code.
    #[arg(long)]
    pub show_guarded: bool,
    /// The file name to report standard input under.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// Go on when a declaration cannot be read (a malformed `pyproject.toml`, an include
    /// outside the project): check without the requirements it would have declared.
    #[arg(long)]
    pub ignore_bad_declarations: bool,
    #[command(flatten)]
    pub fixing: crate::commands::fix::FixArgs,
    /// A requirement scope to check with the main requirements: an extra, a dependency group
    /// or another requirements file (`dev` for `requirements-dev.txt`); repeatable.
    #[arg(long = "scope", value_name = "NAME")]
    pub scopes: Vec<String>,
    #[command(flatten)]
    pub files: crate::commands::check_files::FileArgs,
    #[command(flatten)]
    pub adopt: crate::baseline::BaselineArgs,
}

pub fn run(open: &dyn Fn() -> Catalog, on_demand: &OnDemand, args: CheckArgs) -> CmdResult {
    // `--target` packages the index lacks are fetched first (the run needs their releases).
    let mut catalog = open();
    let targeted = target_wants(&catalog, &args.targets);
    let before = on_demand.fetch(&targeted);
    if before.added {
        catalog = open();
    }
    let mut paths = Vec::new();
    let mut stdin = None;
    for p in args.paths {
        if p.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::usage(format!("cannot read standard input: {e}")))?;
            stdin = Some(StdinSource {
                name: args
                    .stdin_filename
                    .clone()
                    .unwrap_or_else(|| PathBuf::from("-")),
                bytes,
            });
        } else {
            paths.push(p);
        }
    }
    let options = Options {
        paths,
        stdin,
        project: args.project,
        targets: args.targets,
        python: args.python,
        virtual_env: std::env::var_os("VIRTUAL_ENV")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        select: args.select,
        ignore: args.ignore,
        show_guarded: args.show_guarded,
        // Comments and baselines cover every failing use: fixing the first failure of a
        // module brings back the uses behind it.
        every_failure: args.adopt.add_noqa || args.adopt.write_baseline.is_some(),
        files: args.files.settings()?,
        scopes: args.scopes,
        ..Options::default()
    };
    let mut report = check(&catalog, &options).map_err(|e| Failure::usage(e.0))?;
    // Imported packages the project names a distribution of, fetched, then the run again.
    let after = on_demand.fetch(&on_demand::wanted(&report.summary.unindexed, &catalog));
    if after.added {
        catalog = open();
        report = check(&catalog, &options).map_err(|e| Failure::usage(e.0))?;
    }
    report.summary.notes.extend(before.notes);
    report.summary.notes.extend(after.notes);
    // A package the project names that could not be fetched: a warning where it is imported.
    apicompat_check::add_unfetched(&mut report, &after.failed);
    let catalog = &catalog;
    if !report.summary.bad_declarations.is_empty() && !args.ignore_bad_declarations {
        let lines: Vec<String> = report
            .summary
            .bad_declarations
            .iter()
            .map(|d| format!("  {}", apicompat_render::escape_control(d)))
            .collect();
        return Err(Failure::usage(format!(
            "the project's declarations could not be read, so the releases to check are not \
             known:\n{}\nfix them, or pass --ignore-bad-declarations to check without them",
            lines.join("\n")
        )));
    }
    if let Some(code) =
        crate::baseline::after_check(&args.adopt, &mut report).map_err(Failure::usage)?
    {
        return Ok(ExitCode::from(code));
    }
    if args.fixing.wanted() {
        let format = args.output_format;
        let render = move |r: &apicompat_check::Report| render(r, format);
        return crate::commands::fix::run(catalog, &options, report, &args.fixing, render);
    }
    crate::ui::print_stdout(&render(&report, args.output_format))?;
    Ok(ExitCode::from(report.exit_code()))
}

fn render(report: &apicompat_check::Report, format: CheckFormat) -> String {
    match format {
        // `--quiet`: errors only (the summary still counts everything, files included).
        CheckFormat::Text if crate::ui::quiet() => {
            apicompat_render::text_of(report, crate::ui::color_stdout(), |f| {
                f.severity == apicompat_check::Severity::Error
            })
        }
        CheckFormat::Text => apicompat_render::text(report, crate::ui::color_stdout()),
        CheckFormat::Json => apicompat_render::json(report) + "\n",
        CheckFormat::Sarif => apicompat_render::sarif(report, env!("CARGO_PKG_VERSION")) + "\n",
        CheckFormat::Github => apicompat_render::github(report),
    }
}
