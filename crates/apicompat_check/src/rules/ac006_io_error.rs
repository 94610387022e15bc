use super::{Rule, RuleInfo};
use crate::model::Severity;

/// ## What it does
/// Reports a path given on the command line that does not exist, and files or directories of
/// the project that cannot be read. The rest is still checked; `check` then exits with 2.
///
/// ## Why is this bad?
/// Code that was not read was not checked.
///
/// ## Example
/// ```text
/// apicompat check src/ missing_dir/
/// ```
///
/// ## How to fix
/// Pass existing paths; fix the permissions of the file.
pub struct IoError;

impl RuleInfo for IoError {
    const RULE: Rule = Rule {
        code: "AC006",
        name: "io-error",
        severity: Severity::Error,
        summary: "a path could not be read",
    };
}
