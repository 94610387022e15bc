//! Findings about a file itself rather than a use in it: it cannot be read, is not valid
//! UTF-8, is nested too deep to walk, or has syntax errors (AC005, AC006, AC007).

use ruff_text_size::TextSize;

use crate::files::Analyzed;
use crate::model::{Finding, Summary};
use crate::rules::{IoError, RuleInfo, SyntaxError, UncheckedCode};
use crate::{collect, file_finding, span};

/// At most this many syntax errors are reported per file.
pub(crate) const MAX_SYNTAX_ERRORS: usize = 20;

/// Adds file `fi`'s own problems to `per_file` (with the lines a `noqa` may be on); true when
/// it could not be read at all (nothing else is known of it).
pub(crate) fn of(
    fi: usize,
    file: &Analyzed,
    per_file: &mut Vec<(usize, Finding, Vec<u32>)>,
    summary: &mut Summary,
) -> bool {
    if let Some(message) = &file.io_error {
        summary.io_failure = true;
        per_file.push((
            fi,
            file_finding(
                IoError::RULE,
                &file.path,
                (1, 1, 1, 1),
                format!("cannot read `{}`: {message}", file.path.display()),
            ),
            vec![],
        ));
        return true;
    }
    if let Some(at) = file.bad_utf8_at {
        let offset = at.min(file.text.len());
        let (line, col) = file.position(TextSize::try_from(offset).unwrap_or_default());
        per_file.push((
            fi,
            file_finding(
                UncheckedCode::RULE,
                &file.path,
                (line, col, line, col),
                format!(
                    "not valid UTF-8 (first bad byte at offset {at}); read with replacement characters"
                ),
            ),
            vec![line],
        ));
    }
    if let Some(reason) = &file.not_parsed {
        per_file.push((
            fi,
            file_finding(
                UncheckedCode::RULE,
                &file.path,
                (1, 1, 1, 1),
                format!("{reason}: the file is not checked"),
            ),
            vec![1],
        ));
    }
    if let Some(range) = file.uses.too_deep {
        let (l, c, el, ec) = span(file, range);
        per_file.push((
            fi,
            file_finding(
                UncheckedCode::RULE,
                &file.path,
                (l, c, el, ec),
                format!(
                    "nesting deeper than {} levels; the code inside is not checked",
                    collect::MAX_DEPTH
                ),
            ),
            vec![l],
        ));
    }
    for (range, message) in file.syntax_errors.iter().take(MAX_SYNTAX_ERRORS) {
        let (l, c, el, ec) = span(file, *range);
        per_file.push((
            fi,
            file_finding(
                SyntaxError::RULE,
                &file.path,
                (l, c, el, ec),
                format!("syntax error: {message}"),
            ),
            vec![l],
        ));
    }
    if file.syntax_errors.len() > MAX_SYNTAX_ERRORS {
        summary.notes.push(format!(
            "{}: {} more syntax errors not shown",
            file.path.display(),
            file.syntax_errors.len() - MAX_SYNTAX_ERRORS
        ));
    }
    false
}
