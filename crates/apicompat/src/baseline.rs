//! Baselines for gradual adoption: `check --write-baseline FILE` records today's findings,
//! `check --baseline FILE` (or `[tool.apicompat] baseline`) reports only the new ones.
//!
//! A finding is known by its fingerprint: rule code, file (relative to the project root, `/`
//! separators), symbol and the text of its line with whitespace runs collapsed. Line numbers
//! are not part of it, so code moving up or down leaves the baseline valid; identical lines
//! count as a multiset (two identical findings recorded, three now: one is new).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use apicompat_check::{BaselineCounts, Finding, Report, Severity};

/// The file's format version.
const VERSION: u32 = 1;

/// Largest baseline file read.
const MAX_BYTES: u64 = 64 << 20;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
struct Entry {
    code: String,
    path: String,
    symbol: String,
    /// The finding's line, whitespace collapsed.
    line: String,
    /// How many findings have this fingerprint.
    count: usize,
}

#[derive(Debug, Serialize, Deserialize)]
struct File {
    version: u32,
    findings: Vec<Entry>,
}

type Key = (String, String, String, String);

/// The fingerprint of a finding in `report`.
fn key(report: &Report, f: &Finding) -> Key {
    let text = report
        .sources
        .get(&f.path)
        .and_then(|s| s.lines().nth(usize::try_from(f.line).ok()?.checked_sub(1)?))
        .unwrap_or("");
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (
        f.code.to_string(),
        relative(&report.project_root, &f.path),
        f.symbol.clone(),
        line,
    )
}

/// `path` relative to the project root, with `/` separators; as displayed when outside it.
fn relative(root: &Path, path: &Path) -> String {
    let anchored = apicompat_check::exclude::anchor(path);
    let root = apicompat_check::exclude::anchor(root);
    match anchored.strip_prefix(&root) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => apicompat_render::display_path(path),
    }
}

/// Writes every finding of `report` to `file`; returns how many.
pub fn write(report: &Report, file: &Path) -> Result<usize, String> {
    let mut counts: BTreeMap<Key, usize> = BTreeMap::new();
    for f in &report.findings {
        *counts.entry(key(report, f)).or_default() += 1;
    }
    let findings: Vec<Entry> = counts
        .into_iter()
        .map(|((code, path, symbol, line), count)| Entry {
            code,
            path,
            symbol,
            line,
            count,
        })
        .collect();
    let out = File {
        version: VERSION,
        findings,
    };
    let text = serde_json::to_string_pretty(&out).map_err(|e| e.to_string())? + "\n";
    std::fs::write(file, text).map_err(|e| format!("cannot write `{}`: {e}", file.display()))?;
    Ok(report.findings.len())
}

/// Leaves out of `report` the findings `file` records, recounts the summary and records what
/// was left out in `summary.baseline` and a note.
pub fn apply(report: &mut Report, file: &Path) -> Result<(), String> {
    let bytes = apicompat_requirements::read_regular_file(file, MAX_BYTES)
        .map_err(|e| format!("cannot read the baseline `{}`: {e}", file.display()))?;
    let parsed: File = serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "the baseline `{}` is not a baseline file: {e}",
            file.display()
        )
    })?;
    if parsed.version != VERSION {
        return Err(format!(
            "the baseline `{}` has version {}; this apicompat writes version {VERSION}: write it again with --write-baseline",
            file.display(),
            parsed.version
        ));
    }
    let mut left: BTreeMap<Key, usize> = BTreeMap::new();
    for e in parsed.findings {
        *left.entry((e.code, e.path, e.symbol, e.line)).or_default() += e.count;
    }
    let findings = std::mem::take(&mut report.findings);
    let mut known = 0;
    for f in findings {
        let slot = left.get_mut(&key(report, &f)).filter(|n| **n > 0);
        match slot {
            Some(n) => {
                *n -= 1;
                known += 1;
            }
            None => report.findings.push(f),
        }
    }
    let disappeared: usize = left.values().sum();
    let s = &mut report.summary;
    s.errors = count(&report.findings, Severity::Error);
    s.warnings = count(&report.findings, Severity::Warning);
    s.infos = count(&report.findings, Severity::Info);
    let shown = apicompat_render::display_path(file);
    s.notes.push(format!(
        "baseline `{shown}`: {known} known finding(s) not reported, {disappeared} gone since it was written{}",
        if disappeared > 0 {
            " (write it again with --write-baseline to drop them)"
        } else {
            ""
        }
    ));
    s.baseline = Some(BaselineCounts {
        file: shown,
        known,
        disappeared,
    });
    Ok(())
}

fn count(findings: &[Finding], severity: Severity) -> usize {
    findings.iter().filter(|f| f.severity == severity).count()
}

/// `check`'s adoption flags.
#[derive(clap::Args, Debug, Default)]
pub struct BaselineArgs {
    /// Report only findings that the baseline FILE does not record (default: `[tool.apicompat]
    /// baseline`, when set).
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<std::path::PathBuf>,
    /// Record every finding of this run in FILE (a baseline for `--baseline`), then exit 0.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<std::path::PathBuf>,
    /// Write `# noqa: CODE` on every line with a finding (merged into an existing `# noqa`),
    /// then exit 0.
    #[arg(long, conflicts_with = "write_baseline")]
    pub add_noqa: bool,
}

/// What the adoption flags do after the check: Some(exit code) when the run ends here
/// (a baseline or noqa comments written), None to report as usual (with a baseline applied).
pub fn after_check(args: &BaselineArgs, report: &mut Report) -> Result<Option<u8>, String> {
    if let Some(file) = &args.write_baseline {
        let n = write(report, file)?;
        eprintln!(
            "wrote {n} finding(s) to the baseline `{}`; `apicompat check --baseline {}` reports only new ones",
            apicompat_render::display_path(file),
            apicompat_render::display_path(file)
        );
        return Ok(Some(0));
    }
    let given = args.baseline.clone();
    let configured = report.config_baseline.clone();
    match (given, configured) {
        (Some(file), _) => apply(report, &file)?,
        (None, Some(file)) => {
            if std::fs::symlink_metadata(&file).is_ok() {
                apply(report, &file)?;
            } else {
                report.summary.notes.push(format!(
                    "[tool.apicompat] baseline `{}` does not exist yet: write it with `apicompat check --write-baseline {}`",
                    apicompat_render::display_path(&file),
                    apicompat_render::display_path(&file)
                ));
            }
        }
        (None, None) => {}
    }
    if args.add_noqa {
        let (added, files, refused) = crate::noqa::write_all(report)?;
        eprintln!("added {added} noqa code(s) in {files} file(s)");
        for r in refused {
            eprintln!("warning: {r}");
        }
        return Ok(Some(0));
    }
    Ok(None)
}
