use super::{Rule, RuleInfo};
use crate::model::Severity;

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
