//! `apicompat env [PATH]... [--python PATH]`: an installed Python environment inspected from
//! its metadata (nothing is imported or run), then `check` of the project against exactly the
//! releases installed there, in one report.
//!
//! The environment part is [`apicompat_env::inspect`]; the project part is
//! [`apicompat_check::check`] with the environment as `--python`, so installed releases are
//! the targets. Exit code: 2 when metadata could not be read or a project file could not be
//! read, 1 when the environment has problems or the check has errors, else 0.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use apicompat_env::{EnvReport, PinGroup};
use apicompat_index::Catalog;
use apicompat_requirements::{release_of, InstalledEnvironment, Platform};

use crate::ui;
use crate::{CmdResult, Failure, Format};

#[derive(Args, Debug)]
pub struct EnvArgs {
    /// Project files and directories to check against the installed releases (default: the
    /// current directory).
    pub paths: Vec<PathBuf>,
    /// A Python interpreter (`.venv/bin/python`) or an environment directory (default: the
    /// active virtual environment, `VIRTUAL_ENV`).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Only inspect the environment; do not check the project.
    #[arg(long)]
    pub no_check: bool,
    #[arg(long, value_enum, default_value = "text")]
    pub output_format: Format,
}

/// An indexed package installed in the environment.
#[derive(Serialize)]
struct Indexed {
    package: String,
    version: String,
    release: String,
    /// Whether the index has that release (else `check` cannot check it).
    in_index: bool,
}

#[derive(Serialize)]
struct JsonOut<'a> {
    version: u32,
    #[serde(flatten)]
    env: &'a EnvReport,
    /// `pip check`'s lines, word for word.
    pip_check: Vec<String>,
    indexed: &'a [Indexed],
    /// The `check` report (the schema of `apicompat check --output-format json`), or null with
    /// `--no-check`.
    check: Option<serde_json::Value>,
    exit_code: u8,
}

pub fn run(catalog: &Catalog, args: EnvArgs) -> CmdResult {
    let virtual_env = std::env::var_os("VIRTUAL_ENV")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let env = apicompat_env::open(args.python.as_deref(), virtual_env.as_deref())
        .map_err(|e| Failure::usage(e.0))?;
    let report = apicompat_env::inspect(&env, Platform::host());
    let indexed = indexed_packages(catalog, &env);

    // The project, against the installed releases.
    let check = if args.no_check {
        None
    } else {
        let options = apicompat_check::Options {
            paths: args.paths.clone(),
            python: args.python.clone().or(virtual_env),
            ..apicompat_check::Options::default()
        };
        Some(apicompat_check::check(catalog, &options).map_err(|e| Failure::usage(e.0))?)
    };

    let env_code = if report.has_errors() {
        2
    } else {
        u8::from(report.problem_count() > 0)
    };
    let check_code = check.as_ref().map_or(0, apicompat_check::Report::exit_code);
    let code = env_code.max(check_code);

    match args.output_format {
        Format::Json => {
            let check_json = match &check {
                Some(r) => Some(serde_json::from_str(&apicompat_render::json(r))?),
                None => None,
            };
            let out = JsonOut {
                version: 1,
                env: &report,
                pip_check: report.pip_check_lines(),
                indexed: &indexed,
                check: check_json,
                exit_code: code,
            };
            println!("{}", serde_json::to_string_pretty(&out)?);
        }
        Format::Text => {
            let color = ui::color_stdout();
            let mut out = render_text(&report, &indexed, color);
            if let Some(r) = &check {
                let paths = if args.paths.is_empty() {
                    ".".to_string()
                } else {
                    args.paths
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                out.push('\n');
                out.push_str(&ui::bold(
                    &format!("Check of {paths} against the installed releases:"),
                    color,
                ));
                out.push('\n');
                out.push_str(&apicompat_render::text(r, color));
            }
            print!("{}", out.trim_start_matches('\n'));
        }
    }
    Ok(ExitCode::from(code))
}

fn indexed_packages(catalog: &Catalog, env: &InstalledEnvironment) -> Vec<Indexed> {
    let mut out = Vec::new();
    for name in catalog.names() {
        let Some(dist) = env.get(name) else {
            continue;
        };
        let release = release_of(&dist.version);
        let in_index =
            matches!(catalog.package(name), Ok(Some(view)) if view.position(&release).is_some());
        out.push(Indexed {
            package: dist.name.clone(),
            version: dist.version.to_string(),
            release: release.to_string(),
            in_index,
        });
    }
    out
}

fn render_text(r: &EnvReport, indexed: &[Indexed], color: bool) -> String {
    use std::fmt::Write;
    let quiet = ui::quiet();
    let verbose = ui::verbose();
    let mut s = String::new();
    let e = &r.environment;

    if !quiet {
        let python = e.python_version.as_deref().map_or_else(
            || "Python (version unknown)".to_string(),
            |v| format!("Python {v}"),
        );
        let _ = writeln!(
            s,
            "{}",
            ui::bold(&format!("{python} environment {}", e.root.display()), color)
        );
        for dir in &e.site_packages {
            let _ = writeln!(s, "  site-packages: {}", dir.display());
        }
        let labelled: Vec<String> = r
            .distributions
            .iter()
            .filter(|d| d.local_label.is_some())
            .map(|d| format!("{} {}", d.name, d.version))
            .collect();
        let _ = write!(s, "  {} distribution(s) installed", r.distributions.len());
        if labelled.is_empty() {
            s.push('\n');
        } else {
            let _ = writeln!(s, "; with local labels: {}", labelled.join(", "));
        }
        for i in indexed {
            if i.in_index {
                let _ = writeln!(
                    s,
                    "  indexed: {} {} (release {} is in the index)",
                    i.package, i.version, i.release
                );
            } else {
                let _ = writeln!(
                    s,
                    "  indexed: {} {} (release {} is not in the index; add it with `apicompat index fetch {}=={}`)",
                    i.package, i.version, i.release, i.package, i.release
                );
            }
        }
        if verbose {
            let _ = writeln!(s, "\n{}", ui::bold("Distributions:", color));
            for d in &r.distributions {
                let rp = d
                    .requires_python
                    .as_deref()
                    .map(|rp| format!("  (Requires-Python {rp})"))
                    .unwrap_or_default();
                let _ = writeln!(s, "  {} {}{rp}", d.display_name, d.version);
            }
        }
    }

    let pip = r.pip_check_lines();
    if !pip.is_empty() || !quiet {
        let _ = writeln!(
            s,
            "\n{}",
            ui::bold("Requirements (as pip check reports them):", color)
        );
        if pip.is_empty() {
            s.push_str("No broken requirements found.\n");
        }
        for line in &pip {
            let _ = writeln!(s, "{line}");
        }
    }

    if !r.requires_python.is_empty() {
        let _ = writeln!(s, "\n{}", ui::bold("Requires-Python:", color));
        for m in &r.requires_python {
            let _ = writeln!(
                s,
                "{} {} requires Python {}, but the interpreter is {}.",
                m.package, m.version, m.requires_python, m.python
            );
        }
    }

    if !r.label_mismatches.is_empty() {
        let _ = writeln!(
            s,
            "\n{}",
            ui::bold("Build variants (local labels) that disagree:", color)
        );
        for m in &r.label_mismatches {
            let _ = writeln!(
                s,
                "{} {} {} and {} {} are different builds ({} vs {}): {}.",
                ui::red("mismatch:", color),
                m.reference.package,
                m.reference.version,
                m.other.package,
                m.other.version,
                m.reference.local_label,
                m.other.local_label,
                m.via
            );
        }
    }

    if !quiet && !r.exact_pins.is_empty() {
        let _ = writeln!(
            s,
            "\n{}",
            ui::bold("Exact pins (builds of one release of another):", color)
        );
        s.push_str(&render_pins(&r.exact_pins));
    }

    let shown_diags: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| d.severity == "error" || !quiet)
        .collect();
    if !shown_diags.is_empty() {
        let _ = writeln!(s, "\n{}", ui::bold("Metadata problems:", color));
        for d in shown_diags {
            let at = match d.line {
                Some(l) => format!("{}:{l}", d.file.display()),
                None => d.file.display().to_string(),
            };
            let sev = if d.severity == "error" {
                ui::red("error:", color)
            } else {
                format!("{}:", d.severity)
            };
            let _ = writeln!(s, "{sev} {at}: {}", d.message);
        }
    }
    if !quiet {
        for n in &r.notes {
            let _ = writeln!(s, "note: {n}");
        }
        let n = r.problem_count();
        let _ = writeln!(
            s,
            "\n{}",
            if n == 0 {
                "The environment is consistent.".to_string()
            } else {
                format!("{n} problem(s) in the environment.")
            }
        );
    }
    s
}

/// Pins grouped for reading: a package pinned by several is listed with its pinners; the
/// packages pinned by one only are listed under that one (torch's triton and CUDA libraries).
fn render_pins(groups: &[PinGroup]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let mut by_single: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for g in groups {
        let anchor = format!("{} {}", g.package, g.version);
        if let [only] = g.pinned_by.as_slice() {
            let item = if only.satisfied {
                anchor
            } else {
                format!("{anchor} (wants {})", only.requirement)
            };
            by_single
                .entry((only.package.clone(), only.version.clone()))
                .or_default()
                .push(item);
            continue;
        }
        let pinners: Vec<String> = g
            .pinned_by
            .iter()
            .map(|p| {
                let ok = if p.satisfied { "" } else { ", not satisfied" };
                format!("{} {} ({}{ok})", p.package, p.version, p.requirement)
            })
            .collect();
        let _ = writeln!(s, "{anchor} is required exactly by {}", pinners.join(", "));
    }
    for ((name, version), anchors) in by_single {
        let _ = writeln!(
            s,
            "{name} {version} requires exactly: {}",
            anchors.join(", ")
        );
    }
    s
}
