use std::path::Path;

use super::{Rule, RuleInfo};
use crate::files::Analyzed;
use crate::model::{Finding, Severity};

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

/// The finding for a file that could not be read.
pub(crate) fn finding(file: &Analyzed) -> Option<Finding> {
    Some(unreadable(&file.path, file.io_error.as_ref()?))
}

/// The finding for a path that could not be read (a file or a directory), with the reason.
pub(crate) fn unreadable(path: &Path, message: &str) -> Finding {
    Finding::of_file(
        IoError::RULE,
        path,
        (1, 1, 1, 1),
        format!("cannot read `{}`: {message}", path.display()),
    )
}
