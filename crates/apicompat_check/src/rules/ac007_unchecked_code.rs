use super::{Rule, RuleInfo};
use crate::model::Severity;

/// ## What it does
/// Reports code that was read but only partly checked: a file that is not valid UTF-8 (read
/// with replacement characters), or statements nested deeper than the checker follows.
///
/// ## Why is this bad?
/// A break in the unchecked part would go unnoticed.
///
/// ## Example
/// A source file saved as Latin-1 with `é` in a string.
///
/// ## How to fix
/// Save the file as UTF-8; flatten the nesting.
pub struct UncheckedCode;

impl RuleInfo for UncheckedCode {
    const RULE: Rule = Rule {
        code: "AC007",
        name: "unchecked-code",
        severity: Severity::Warning,
        summary: "part of a file could not be checked",
    };
}
