use super::{guard, missing_message, Breaks, Rule, RuleInfo};
use crate::model::{Fix, Severity};

/// ## What it does
/// Finds imports (`import a.b`, `from a.b import c`, `from a.b import *`) of a module or name
/// that some of the targeted releases of an indexed package do not have.
///
/// ## Why is this bad?
/// The import raises `ImportError` (or `ModuleNotFoundError`) on those releases. At module top
/// level it breaks every importer of the module; inside a function, every call.
///
/// ## Example
/// With `torch>=2.3.0` declared:
/// ```python
/// from torch.distributed.pipelining import pipeline  # not in torch 2.3.0, 2.3.1
/// ```
///
/// ## How to fix
/// Use the location the object has in the targeted releases (the finding names it when the
/// object moved), raise the lower bound of the requirement to the first release that has it,
/// or guard the import:
/// ```python
/// try:
///     from torch.distributed.pipelining import pipeline
/// except ImportError:
///     pipeline = None
/// ```
pub struct MissingImport;

impl RuleInfo for MissingImport {
    const RULE: Rule = Rule {
        code: "AC001",
        name: "missing-import",
        severity: Severity::Error,
        summary: "an imported module or name is missing in targeted releases",
    };
}

/// The message: the path, where it is missing and where it exists.
pub(crate) fn message(b: &Breaks) -> String {
    missing_message(b)
}

/// Guard the import.
pub(crate) fn guard_fix() -> Fix {
    guard("guard the import with `try: ... except ImportError:`".to_string())
}
