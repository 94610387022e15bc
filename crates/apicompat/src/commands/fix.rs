//! `check --diff`, `check --fix` and `--unsafe-fixes`: the edits attached to findings
//! (`apicompat_check::fix`) shown as a unified diff or written to the files.

use std::path::Path;
use std::process::ExitCode;

use clap::Args;

use apicompat_check::fix::{plan, unified_diff, FileOutcome};
use apicompat_check::{check, Options, Report};
use apicompat_index::Catalog;

use crate::{CmdResult, Failure};

/// At most this many rounds of `--fix` (a round re-checks the project and applies the fixes
/// that overlapped one applied in the round before).
const MAX_ROUNDS: usize = 10;

#[derive(Args, Debug, Default)]
pub struct FixArgs {
    /// Apply the safe fixes (with --unsafe-fixes, the unsafe ones too), then report what is
    /// left.
    #[arg(long)]
    pub fix: bool,
    /// Also apply fixes that change behaviour on some release (fallback imports, narrowed
    /// requirements).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff and change nothing (exit 1 when there are edits).
    #[arg(long, conflicts_with = "fix")]
    pub diff: bool,
}

impl FixArgs {
    pub fn wanted(&self) -> bool {
        self.fix || self.diff
    }
}

/// Runs `--diff` or `--fix` on a report; `render` prints the report left after `--fix`.
pub fn run(
    catalog: &Catalog,
    options: &Options,
    report: Report,
    args: &FixArgs,
    render: impl Fn(&Report) -> String,
) -> CmdResult {
    if args.diff {
        return diff(&report, args.unsafe_fixes);
    }
    if options.stdin.is_some() {
        return Err(Failure::usage(
            "--fix does not write standard input; use --diff",
        ));
    }
    let mut report = report;
    let mut fixed = 0;
    for _ in 0..MAX_ROUNDS {
        let mut wrote = false;
        for o in plan(&report, args.unsafe_fixes) {
            if let Some(why) = &o.refused {
                refusal(&o.path, why);
                continue;
            }
            if o.fixed == o.original {
                continue;
            }
            match write(&o) {
                Ok(()) => {
                    fixed += o.applied;
                    wrote = true;
                }
                Err(why) => refusal(&o.path, &why),
            }
        }
        if !wrote {
            break;
        }
        report = check(catalog, options).map_err(|e| Failure::usage(e.0))?;
    }
    crate::ui::print_stdout(&render(&report))?;
    if !crate::ui::quiet() {
        eprintln!(
            "Fixed {fixed} finding{}.",
            if fixed == 1 { "" } else { "s" }
        );
    }
    Ok(ExitCode::from(report.exit_code()))
}

/// Prints the diff of every file with fixes; exit 1 when there are edits.
fn diff(report: &Report, unsafe_fixes: bool) -> CmdResult {
    let mut out = String::new();
    let (mut files, mut fixes, mut deferred) = (0, 0, 0);
    for o in plan(report, unsafe_fixes) {
        if let Some(why) = &o.refused {
            refusal(&o.path, why);
            continue;
        }
        if o.fixed == o.original {
            continue;
        }
        out.push_str(&unified_diff(&o));
        files += 1;
        fixes += o.applied;
        deferred += o.deferred;
    }
    crate::ui::print_stdout(&out)?;
    if !crate::ui::quiet() {
        let more = if deferred > 0 {
            format!(" ({deferred} more after these are applied)")
        } else {
            String::new()
        };
        eprintln!(
            "Would fix {fixes} finding{} in {files} file{}{more}.",
            if fixes == 1 { "" } else { "s" },
            if files == 1 { "" } else { "s" }
        );
    }
    Ok(ExitCode::from(u8::from(files > 0)))
}

fn refusal(path: &Path, why: &str) {
    eprintln!(
        "apicompat: {} not fixed: {}",
        apicompat_render::escape_control(&apicompat_render::display_path(path)),
        apicompat_render::escape_control(why)
    );
}

/// Writes a fixed file, unless it changed since it was read.
fn write(o: &FileOutcome) -> Result<(), String> {
    let now = apicompat_requirements::read_regular_file(&o.path, 16 << 20)
        .map_err(|e| format!("cannot read it again: {e}"))?;
    if now != o.original.as_bytes() {
        return Err("it changed while it was checked".to_string());
    }
    std::fs::write(&o.path, &o.fixed).map_err(|e| format!("cannot write it: {e}"))
}
