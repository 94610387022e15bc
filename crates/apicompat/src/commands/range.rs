//! `apicompat range [PATH]`: the releases of each indexed package on which every unguarded use
//! of the project works, why (the use behind each bound), the declared requirement next to it,
//! and a joint answer across packages with the requirement lines to declare.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use apicompat_index::Catalog;
use apicompat_range::{range, render, RangeOptions};

use crate::commands::on_demand::{self, OnDemand};
use crate::{ui, CmdResult, Failure, Format};

#[derive(Args, Debug)]
pub struct RangeArgs {
    /// Files and directories to read (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// The project directory whose requirements are read (default: found from the first path).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The Python version markers and Requires-Python are evaluated for (default: the oldest
    /// the project's requires-python admits, else 3.11 for markers only).
    #[arg(long, value_name = "VERSION")]
    pub python_version: Option<String>,
    /// Cap recommended requirements that reach the newest indexed release below the next minor
    /// series (`torch>=2.5,<2.16`).
    #[arg(long)]
    pub cap: bool,
    #[arg(long, value_enum, default_value = "text")]
    pub output_format: Format,
}

pub fn run(open: &dyn Fn() -> Catalog, on_demand: &OnDemand, args: RangeArgs) -> CmdResult {
    let options = RangeOptions {
        paths: args.paths,
        project: args.project,
        python_version: args.python_version,
        cap: args.cap,
    };
    let catalog = open();
    let mut report = range(&catalog, &options).map_err(|e| Failure::usage(e.0))?;
    // Imported packages the project names a distribution of, fetched, then the run again.
    let fetched = on_demand.fetch(&on_demand::wanted(&report.unindexed, &catalog));
    if fetched.added {
        report = range(&open(), &options).map_err(|e| Failure::usage(e.0))?;
    }
    report.notes.extend(fetched.notes);
    let out = match args.output_format {
        Format::Text => render::range_text(&report, ui::verbose(), ui::quiet()),
        Format::Json => render::range_json(&report),
    };
    print!("{out}");
    // 2 when a path could not be read; 1 when a declared requirement admits releases that
    // break, or no combination works.
    if report.io_failure {
        return Ok(ExitCode::from(2));
    }
    let broken = report
        .packages
        .iter()
        .any(|p| !p.admitted_broken.is_empty())
        || (!report.packages.is_empty() && !report.joint.possible);
    Ok(ExitCode::from(u8::from(broken)))
}
