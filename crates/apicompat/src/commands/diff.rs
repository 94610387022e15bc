//! `apicompat diff PACKAGE A B [--used-by PATH]`: what changed between two releases (names
//! added, removed, moved, signatures changed, newly deprecated); with `--used-by`, only what a
//! project uses, with every affected line and its fix.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use apicompat_index::Catalog;
use apicompat_range::render;
use apicompat_range::upgrade::{run as diff, DiffOptions};

use crate::{ui, CmdResult, Failure};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
    Markdown,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The package (`torch`, `colossalai`).
    pub package: String,
    /// The older release.
    pub from: String,
    /// The newer release.
    pub to: String,
    /// A project directory or file: report only what it uses, line by line, with fixes.
    #[arg(long, value_name = "PATH")]
    pub used_by: Option<PathBuf>,
    /// Only paths under this prefix (`torch.distributed`).
    #[arg(long, value_name = "P", default_value = "")]
    pub prefix: String,
    #[arg(long, value_enum, default_value = "text")]
    pub output_format: DiffFormat,
}

pub fn run(catalog: &Catalog, args: DiffArgs) -> CmdResult {
    let options = DiffOptions {
        package: args.package,
        from: args.from,
        to: args.to,
        prefix: args.prefix,
        used_by: args.used_by,
    };
    let report = diff(catalog, &options).map_err(|e| Failure::usage(e.0))?;
    let out = match args.output_format {
        DiffFormat::Text => render::diff_text(&report, false, ui::verbose()),
        DiffFormat::Markdown => render::diff_text(&report, true, ui::verbose()),
        DiffFormat::Json => render::diff_json(&report),
    };
    print!("{out}");
    // With --used-by: 1 when a line breaks on the newer release.
    let breaks = report
        .used_by
        .as_ref()
        .is_some_and(|u| u.breaks.iter().any(|a| a.reach != "guarded"));
    Ok(ExitCode::from(u8::from(breaks)))
}
