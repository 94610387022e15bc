//! Applying the edits of many findings to their files.
//!
//! Per file, fixes are taken in order of their first edit (then the last, then the finding's
//! order); a fix whose edits overlap or touch an edit already taken is left for the next round
//! (`check --fix` runs again until nothing changes). The edited text must parse again
//! (Python with ruff's parser, `pyproject.toml` as TOML): otherwise the file is left as it
//! was and the refusal is reported.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ruff_python_ast::PySourceType;

use crate::model::{Applicability, Edit, Report};

/// What the fixes of one file come to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOutcome {
    pub path: PathBuf,
    pub original: String,
    /// The text with the fixes applied (equal to `original` when refused).
    pub fixed: String,
    /// Findings whose fix was applied.
    pub applied: usize,
    /// Fixes left out because they overlap one applied before (for a later round).
    pub deferred: usize,
    /// Why the edited text was not accepted.
    pub refused: Option<String>,
}

/// The fixed text of every file that has fixes of the allowed applicability.
pub fn plan(report: &Report, unsafe_fixes: bool) -> Vec<FileOutcome> {
    let mut per_file: BTreeMap<&PathBuf, Vec<&[Edit]>> = BTreeMap::new();
    for f in &report.findings {
        let Some(fix) = &f.fix else { continue };
        if fix.applicability == Applicability::Unsafe && !unsafe_fixes {
            continue;
        }
        if !fix.edits.is_empty() {
            per_file.entry(&f.path).or_default().push(&fix.edits);
        }
    }
    let mut out = Vec::new();
    for (path, fixes) in per_file {
        let Some(original) = report.sources.get(path) else {
            continue;
        };
        let (fixed, applied, deferred) = apply_edits(original, &fixes);
        let refused = reparse(path, &fixed).err();
        out.push(FileOutcome {
            path: path.clone(),
            original: original.clone(),
            fixed: if refused.is_some() {
                original.clone()
            } else {
                fixed
            },
            applied: if refused.is_some() { 0 } else { applied },
            deferred,
            refused,
        });
    }
    out
}

/// `text` with the fixes (each a list of edits) applied: the fixed text, how many fixes were
/// applied, and how many were deferred because they overlap one applied.
pub fn apply_edits(text: &str, fixes: &[&[Edit]]) -> (String, usize, usize) {
    let mut order: Vec<(usize, usize, usize)> = fixes
        .iter()
        .enumerate()
        .filter_map(|(i, edits)| {
            let start = edits.iter().map(|e| e.start).min()?;
            let end = edits.iter().map(|e| e.end).max()?;
            Some((start, end, i))
        })
        .collect();
    order.sort_unstable();
    let mut taken: Vec<&Edit> = Vec::new();
    let (mut applied, mut deferred) = (0, 0);
    for (_, _, i) in order {
        let edits = fixes[i];
        let valid = edits.iter().all(|e| {
            e.start <= e.end
                && text.is_char_boundary(e.start)
                && text.is_char_boundary(e.end)
                && e.end <= text.len()
        });
        // Touching counts as overlapping: two insertions at one place have no order.
        let clash = edits
            .iter()
            .any(|e| taken.iter().any(|t| e.start <= t.end && t.start <= e.end));
        if !valid || clash {
            deferred += 1;
            continue;
        }
        taken.extend(edits.iter());
        applied += 1;
    }
    taken.sort_by_key(|e| (e.start, e.end));
    let mut fixed = String::with_capacity(text.len());
    let mut at = 0;
    for e in taken {
        fixed.push_str(&text[at..e.start]);
        fixed.push_str(&e.content);
        at = e.end;
    }
    fixed.push_str(&text[at..]);
    (fixed, applied, deferred)
}

/// Whether an edited file still reads: Python parses without errors, `pyproject.toml` as
/// TOML; requirement lines were parsed when the edit was made.
fn reparse(path: &std::path::Path, text: &str) -> Result<(), String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext == "py" || ext == "pyi" {
        apicompat_extract::nesting::check(text, apicompat_extract::nesting::MAX_NESTING_ESTIMATE)
            .map_err(|e| e.to_string())?;
        let source_type = if ext == "pyi" {
            PySourceType::Stub
        } else {
            PySourceType::Python
        };
        let parsed = ruff_python_parser::parse_unchecked_source(text, source_type);
        if let Some(e) = parsed.errors().first() {
            let (line, _) = super::position(text, e.location.start().to_usize());
            return Err(format!(
                "the fixed file would not parse (line {line}: {})",
                e.error
            ));
        }
    } else if ext == "toml" {
        toml::de::DeTable::parse(text)
            .map_err(|e| format!("the fixed file would not read as TOML: {e}"))?;
    }
    Ok(())
}

/// A unified diff of one file's fix (`a/PATH`, `b/PATH`, three lines of context).
pub fn unified_diff(outcome: &FileOutcome) -> String {
    let shown = outcome.path.to_string_lossy().replace('\\', "/");
    let name = shown.trim_start_matches("./");
    similar::TextDiff::from_lines(&outcome.original, &outcome.fixed)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}
