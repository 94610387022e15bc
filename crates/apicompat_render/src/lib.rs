//! Renders a check [`Report`]:
//!
//! - [`text`]: rustc/Ruff-style code frames (annotate-snippets) and a summary line, coloured
//!   only when asked (the CLI asks on a terminal without `NO_COLOR`);
//! - [`json`]: `{"version": 1, "findings": [...], "summary": {...}}`, the stable schema in
//!   `docs/json-schema.md` of this crate;
//! - [`sarif`]: SARIF 2.1.0 for GitHub code scanning;
//! - [`github`]: `::error file=...,line=...` workflow commands.

mod sarif;

use std::fmt::Write;
use std::path::Path;

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use serde::Serialize;

use apicompat_check::{Applicability, Finding, Reach, Report, Severity};

pub use sarif::sarif;

/// The version of the JSON output schema.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// Whether `c` must not reach a terminal as is: control characters (newlines that forge
/// lines, ESC that starts terminal sequences) and the Unicode bidirectional overrides that
/// reorder what a reader sees.
fn is_hostile(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with control characters and bidirectional overrides escaped (`\n`, `\x1b`,
/// `\u{202e}`): file names and string literals from a project cannot forge lines, workflow
/// commands or terminal sequences in human-readable output.
pub fn escape_control(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(is_hostile) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_hostile(c) && (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_hostile(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Source lines for a code frame: hostile characters (see [`escape_control`]) other than
/// newlines, tabs and the `\r` of `\r\n` become `?`, one per byte, so that byte offsets
/// into the text stay valid.
fn mask_source(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let keep = match c {
            '\n' | '\t' => true,
            '\r' => chars.peek() == Some(&'\n'),
            c => !is_hostile(c),
        };
        if keep {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        }
    }
    out
}

/// Paths as shown: forward slashes, no leading `./`.
pub fn display_path(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    let mut s = s.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_string()
}

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    findings: Vec<JsonFinding<'a>>,
    summary: &'a apicompat_check::Summary,
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    #[serde(flatten)]
    finding: &'a Finding,
    /// The path with forward slashes and no leading `./`.
    display_path: String,
    /// Import-time findings in a module an entry point imports: the modules from the entry
    /// point to this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    chain: Option<&'a [String]>,
}

/// The JSON report.
pub fn json(report: &Report) -> String {
    let out = JsonReport {
        version: JSON_SCHEMA_VERSION,
        findings: report
            .findings
            .iter()
            .map(|f| JsonFinding {
                finding: f,
                display_path: display_path(&f.path),
                chain: report.chain(f),
            })
            .collect(),
        summary: &report.summary,
    };
    serde_json::to_string_pretty(&out).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

fn level(severity: Severity) -> Level<'static> {
    match severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
    }
}

/// Byte offset of a 1-based (line, character column) in `text`, with the byte offset of the
/// line's start.
fn byte_offset(text: &str, line: u32, column: u32) -> Option<(usize, usize)> {
    let mut start = 0usize;
    for _ in 1..line {
        start += text.get(start..)?.find('\n')? + 1;
    }
    let line_text = &text[start..];
    let col = column.saturating_sub(1) as usize;
    let within = line_text
        .char_indices()
        .nth(col)
        .map_or(line_text.len(), |(i, _)| i);
    Some((start, start + within))
}

fn reach_label(f: &Finding) -> String {
    // Warnings about uses that work everywhere (private or deprecated APIs) break nowhere.
    if f.missing_in.is_empty() {
        return String::new();
    }
    let on = if f.missing_in.len() <= 3 {
        f.missing_in.join(", ")
    } else {
        f.missing_ranges.join(", ")
    };
    // A requirement is no module: its message says which releases fail how.
    if f.code == "AC008" {
        return format!("admits {} {on}, where the project breaks", f.package);
    }
    match f.reach {
        Reach::ImportTime => format!(
            "import-time: importing this module fails on {} {on}",
            f.package
        ),
        Reach::CallTime => format!(
            "call-time: fails when this function runs on {} {on}",
            f.package
        ),
        Reach::Script => format!(
            "script: fails when this file runs as a script (`__main__`) on {} {on}",
            f.package
        ),
        Reach::Behind => match &f.guard {
            Some(g) => format!("behind {g}: never reached on {} {on}", f.package),
            None => format!(
                "behind an earlier failure: never reached on {} {on}",
                f.package
            ),
        },
        Reach::Guarded => match &f.guard {
            Some(g) => format!("guarded by {g}: handled by the code on {} {on}", f.package),
            None => format!("guarded: handled by the code on {} {on}", f.package),
        },
        Reach::None => String::new(),
    }
}

fn frame(
    f: &Finding,
    source: Option<&str>,
    path: &str,
    chain: Option<&[String]>,
    renderer: &Renderer,
) -> String {
    let message = escape_control(&f.message);
    // `[*]`: `--fix` fixes it (as in Ruff: safe fixes only).
    let message = match &f.fix {
        Some(x) if x.applicability == Applicability::Safe => format!("[*] {message}"),
        _ => message.into_owned(),
    };
    let title = level(f.severity).primary_title(message).id(f.code);
    let label = escape_control(&reach_label(f)).into_owned();
    let mut groups: Vec<Group<'_>> = Vec::new();
    let located = source.and_then(|text| {
        let (line_start, start) = byte_offset(text, f.line, f.column)?;
        let (_, end) = byte_offset(text, f.end_line.max(f.line), f.end_column)?;
        // Only the lines of the finding go into the frame.
        let last_line_end = text[end.min(text.len())..]
            .find('\n')
            .map_or(text.len(), |i| end + i);
        let slice = text.get(line_start..last_line_end)?;
        let span = (start - line_start)..(end.max(start) - line_start).min(slice.len());
        Some((slice, span))
    });
    match located {
        Some((slice, span)) => {
            let mut annotation = AnnotationKind::Primary.span(span);
            if !label.is_empty() {
                annotation = annotation.label(label.clone());
            }
            groups.push(
                title.element(
                    Snippet::source(slice)
                        .line_start(f.line as usize)
                        .path(path)
                        .annotation(annotation),
                ),
            );
        }
        None => groups.push(
            title.element(
                annotate_snippets::Origin::path(path)
                    .line(f.line as usize)
                    .char_column(f.column as usize),
            ),
        ),
    }
    if let Some(chain) = chain {
        let how = if chain.len() > 1 {
            format!("imported at start-up: {}", chain.join(" -> "))
        } else {
            format!("`{}` is an entry point of the project", chain.join(""))
        };
        let how = escape_control(&how).into_owned();
        groups.push(Group::with_level(Level::NOTE).element(Level::NOTE.message(how)));
    }
    let mut help: Vec<String> = f
        .fixes
        .iter()
        .map(|x| escape_control(&x.message).into_owned())
        .collect();
    if let Some(x) = &f.fix {
        help.insert(
            0,
            format!(
                "{} fix: {}",
                x.applicability.as_str(),
                escape_control(&x.message)
            ),
        );
    }
    if let Some(src) = &f.target_source {
        help.push(format!("checked against {}", escape_control(src)));
    }
    if !help.is_empty() {
        let mut g = Group::with_level(Level::HELP);
        for h in &help {
            g = g.element(Level::HELP.message(h.clone()));
        }
        groups.push(g);
    }
    renderer.render(&groups)
}

/// The text report: a code frame per finding, then notes and a summary line.
pub fn text(report: &Report, color: bool) -> String {
    text_of(report, color, |_| true)
}

/// [`text`] showing only the findings `shown` keeps (`--quiet`: errors); the notes, the
/// summary and the fixable count still speak of every finding.
pub fn text_of(report: &Report, color: bool, shown: impl Fn(&Finding) -> bool) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    // Each file's text masked once, for all its findings.
    let mut masked: std::collections::HashMap<&Path, String> = std::collections::HashMap::new();
    for f in report.findings.iter().filter(|f| shown(f)) {
        let path = escape_control(&display_path(&f.path)).into_owned();
        let source = report.sources.get(&f.path).map(|s| {
            masked
                .entry(f.path.as_path())
                .or_insert_with(|| mask_source(s))
                .as_str()
        });
        out.push_str(&frame(f, source, &path, report.chain(f), &renderer));
        out.push_str("\n\n");
    }
    for note in &report.summary.notes {
        let _ = writeln!(out, "note: {}", escape_control(note));
    }
    out.push_str(&escape_control(&summary_line(report)));
    out.push('\n');
    if let Some(line) = fixable_line(report) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `[*] 2 fixable with --fix (1 more with --unsafe-fixes).`, when some finding has a fix.
pub fn fixable_line(report: &Report) -> Option<String> {
    let count = |a: Applicability| {
        report
            .findings
            .iter()
            .filter(|f| f.fix.as_ref().is_some_and(|x| x.applicability == a))
            .count()
    };
    let (safe, unsafe_) = (count(Applicability::Safe), count(Applicability::Unsafe));
    match (safe, unsafe_) {
        (0, 0) => None,
        (0, u) => Some(format!(
            "{} available with --fix --unsafe-fixes.",
            plural(u, "fix", "fixes")
        )),
        (s, 0) => Some(format!("[*] {s} fixable with --fix.")),
        (s, u) => Some(format!(
            "[*] {s} fixable with --fix ({u} more with --unsafe-fixes)."
        )),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `Found 4 errors (3 import-time, 1 call-time) in 2 files; checked 5 files against torch
/// 2.3.0 - 2.5.0 (declared ...).`
pub fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    let mut line = String::new();
    if s.errors == 0 && s.warnings == 0 {
        line.push_str("No errors");
        // Not a clean bill when a target was checked against nothing.
        let unchecked: Vec<&str> = s
            .targets
            .iter()
            .filter(|t| t.releases.is_empty())
            .map(|t| t.package.as_str())
            .collect();
        if !unchecked.is_empty() {
            let _ = write!(
                line,
                " in what was checked ({} not checked)",
                unchecked.join(", ")
            );
        }
    } else {
        let import = count_reach(report, Reach::ImportTime);
        let call = count_reach(report, Reach::CallTime);
        let script = count_reach(report, Reach::Script);
        let mut parts = Vec::new();
        if import > 0 {
            parts.push(format!("{import} import-time"));
        }
        if call > 0 {
            parts.push(format!("{call} call-time"));
        }
        if script > 0 {
            parts.push(format!("{script} script"));
        }
        let detail = if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        };
        let mut files: Vec<&Path> = report
            .findings
            .iter()
            .filter(|f| f.severity >= Severity::Warning)
            .map(|f| f.path.as_path())
            .collect();
        files.sort();
        files.dedup();
        let mut counts = Vec::new();
        if s.errors > 0 {
            counts.push(format!("{}{detail}", plural(s.errors, "error", "errors")));
        }
        if s.warnings > 0 {
            counts.push(plural(s.warnings, "warning", "warnings"));
        }
        let _ = write!(line, "Found {}", counts.join(" and "));
        let _ = write!(line, " in {}", plural(files.len(), "file", "files"));
    }
    let _ = write!(line, "; checked {}", plural(s.files, "file", "files"));
    if !s.targets.is_empty() {
        let targets: Vec<String> = s
            .targets
            .iter()
            .map(|t| {
                let all: Vec<String> = t.releases.clone();
                let span = match (all.first(), all.last()) {
                    (Some(a), Some(b)) if a != b => format!("{a} - {b}"),
                    (Some(a), _) => a.clone(),
                    _ => {
                        return format!(
                            "{} (not checked: no indexed release; {})",
                            t.package, t.description
                        )
                    }
                };
                format!("{} {span} ({})", t.package, t.description)
            })
            .collect();
        let _ = write!(line, " against {}", targets.join(", "));
    }
    let hidden: Vec<String> = [
        (s.guarded, "guarded use", "guarded uses"),
        (
            s.behind,
            "use behind an earlier failure",
            "uses behind earlier failures",
        ),
    ]
    .iter()
    .filter(|(n, _, _)| *n > 0)
    .map(|(n, one, many)| plural(*n, one, many))
    .collect();
    if !hidden.is_empty() {
        let _ = write!(line, "; {} (--show-guarded)", hidden.join(", "));
    }
    if s.suppressed > 0 {
        let _ = write!(line, "; {} suppressed", s.suppressed);
    }
    line.push('.');
    line
}

fn count_reach(report: &Report, reach: Reach) -> usize {
    report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error && f.reach == reach)
        .count()
}

/// Workflow-command data: `%`, `\r`, `\n` as GitHub's runner decodes them (`%25`, `%0D`,
/// `%0A`); other control characters escaped (see [`escape_control`]) so that none reaches the
/// log as is.
fn escape_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    escape_control(&s).into_owned()
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands, one per finding.
pub fn github(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let _ = writeln!(
            out,
            "::{command} title={},file={},line={},col={},endLine={},endColumn={}::{}",
            escape_property(&format!("{} {}", f.code, f.rule)),
            escape_property(&display_path(&f.path)),
            f.line,
            f.column,
            f.end_line,
            f.end_column,
            escape_data(&f.message)
        );
    }
    out
}
