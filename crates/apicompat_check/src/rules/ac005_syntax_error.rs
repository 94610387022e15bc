use super::{Rule, RuleInfo};
use crate::files::Analyzed;
use crate::model::{Finding, Severity};

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
pub(crate) fn findings(file: &Analyzed) -> (Vec<Finding>, Option<String>) {
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
