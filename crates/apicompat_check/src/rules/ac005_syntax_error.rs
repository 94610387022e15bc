use super::{Rule, RuleInfo};
use crate::files::Analyzed;
use crate::model::{Finding, Severity};
use ruff_text_size::TextRange;

/// At most this many syntax errors are reported per file.
pub(crate) const MAX_SYNTAX_ERRORS: usize = 20;

/// ## What it does
/// Reports syntax errors. The parser recovers: the rest of the file and the project are still
/// checked, but uses in the broken statement may be missed.
///
/// ## Why is this bad?
/// Python refuses to import the file at all.
///
/// ## Example
/// ```python
/// from torch.distributed import (
/// ```
///
/// ## How to fix
/// Fix the syntax.
pub struct SyntaxError;

impl RuleInfo for SyntaxError {
    const RULE: Rule = Rule {
        code: "AC005",
        name: "syntax-error",
        severity: Severity::Error,
        summary: "the file has a syntax error",
    };
}

/// The first [`MAX_SYNTAX_ERRORS`] syntax errors of a file, and a note when there are more.
/// A file whose errors are Python 2 statements (`print "x"`, `exec code`, `except E, e:`)
/// gets one finding that says so.
pub(crate) fn findings(file: &Analyzed) -> (Vec<Finding>, Option<String>) {
    if let Some(f) = python2(file) {
        return (vec![f], None);
    }
    let out = file
        .syntax_errors
        .iter()
        .take(MAX_SYNTAX_ERRORS)
        .map(|(range, message)| {
            Finding::of_file(
                SyntaxError::RULE,
                &file.path,
                file.span(*range),
                format!("syntax error: {message}"),
            )
        })
        .collect();
    let more = (file.syntax_errors.len() > MAX_SYNTAX_ERRORS).then(|| {
        format!(
            "{}: {} more syntax errors not shown",
            file.path.display(),
            file.syntax_errors.len() - MAX_SYNTAX_ERRORS
        )
    });
    (out, more)
}

/// Whether a file is a Git LFS pointer (a checkout without Git LFS: `version
/// https://git-lfs.github.com/spec/v1`, `oid sha256:<64 hex>`, `size N`, under 1 KiB), whose
/// content is elsewhere: not Python source, so no syntax error (study 53, F-2).
pub(crate) fn lfs_pointer(file: &Analyzed) -> bool {
    let text = &file.text;
    if text.len() >= 1024 {
        return false;
    }
    let mut lines = text.lines().map(str::trim_end);
    lines.next() == Some("version https://git-lfs.github.com/spec/v1")
        && lines.any(|l| {
            l.strip_prefix("oid sha256:")
                .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        })
}

/// One finding for a Python 2 file: at least half of its syntax errors sit on lines that are
/// Python 2 statements.
fn python2(file: &Analyzed) -> Option<Finding> {
    /// Errors read to decide, and bytes of a line read around one: a file of millions of
    /// errors on one line costs no more than a small one.
    const SAMPLE: usize = 64;
    const WINDOW: usize = 512;
    let errors = &file.syntax_errors;
    let text = &file.text;
    let line_of = |range: TextRange| -> &str {
        let at = range.start().to_usize().min(text.len());
        let lo = at.saturating_sub(WINDOW);
        let bytes = &text.as_bytes()[lo..at];
        let start = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(i) => lo + i + 1,
            None if lo == 0 => 0,
            None => return "",
        };
        let mut end = (start + WINDOW).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let line = text.get(start..end).unwrap_or("");
        line.split('\n').next().unwrap_or("")
    };
    let sample = &errors[..errors.len().min(SAMPLE)];
    let py2: Vec<&(TextRange, String)> = sample
        .iter()
        .filter(|(r, _)| python2_statement(line_of(*r)).is_some())
        .collect();
    let first = *py2.first()?;
    if py2.len() * 2 < sample.len() {
        return None;
    }
    let what = python2_statement(line_of(first.0))?;
    let rest = errors.len() - 1;
    Some(Finding::of_file(
        SyntaxError::RULE,
        &file.path,
        file.span(first.0),
        format!(
            "syntax error: Python 2 code (a `{what}` statement){}; the file runs on Python 2 only",
            match rest {
                0 => String::new(),
                1 => " and 1 more syntax error".to_string(),
                n => format!(" and {n} more syntax errors"),
            }
        ),
    ))
}

/// The Python 2 statement a line holds: `print "x"`, `print x`, `exec code`, `except E, e:`.
fn python2_statement(line: &str) -> Option<&'static str> {
    let t = line.trim_start();
    let word_then = |w: &str| {
        t.strip_prefix(w).is_some_and(|rest| {
            rest.starts_with([' ', '\t'])
                && !rest
                    .trim_start()
                    .starts_with(['(', '=', '.', '[', ',', ')'])
                && !rest.trim_start().is_empty()
        })
    };
    if word_then("print") {
        Some("print")
    } else if word_then("exec") {
        Some("exec")
    } else if t.starts_with("except ")
        && t.trim_end().ends_with(':')
        && t.contains(',')
        && !t.contains('(')
    {
        Some("except E, e")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::python2_statement as p;

    #[test]
    fn python2_statements() {
        assert_eq!(p("print \"x\""), Some("print"));
        assert_eq!(p("\tprint 'a %s' % b"), Some("print"));
        assert_eq!(p("print x, y"), Some("print"));
        assert_eq!(p("exec code in ns"), Some("exec"));
        assert_eq!(p("except ValueError, e:"), Some("except E, e"));
        assert_eq!(p("print(x)"), None);
        assert_eq!(p("print (x)"), None);
        assert_eq!(p("print = 3"), None);
        assert_eq!(p("printer x"), None);
        assert_eq!(p("except (A, B) as e:"), None);
        assert_eq!(p("def f(:"), None);
    }
}
