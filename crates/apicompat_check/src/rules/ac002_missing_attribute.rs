use super::{guard, missing_message, Breaks, Rule, RuleInfo};
use crate::model::{Fix, Severity};

/// ## What it does
/// Finds attribute chains on imported modules and classes (`torch.distributed.pipelining.
/// Schedule1F1B`, `dist.all_gather_into_tensor` after `import torch.distributed as dist`,
/// `DTensor.from_local`, inherited members included) and `getattr(module, "name")` with a
/// literal name, where the attribute is missing in some targeted releases.
///
/// ## Why is this bad?
/// The expression raises `AttributeError` on those releases.
///
/// ## Example
/// With `torch>=2.0` declared:
/// ```python
/// import torch
/// torch.compiler.disable(fn)  # `torch.compiler` is not in torch 2.0.0, 2.0.1
/// ```
///
/// ## How to fix
/// Use the attribute's location in the targeted releases, pin the first release that has it,
/// or guard the use:
/// ```python
/// if hasattr(torch, "compiler"):
///     torch.compiler.disable(fn)
/// ```
pub struct MissingAttribute;

impl RuleInfo for MissingAttribute {
    const RULE: Rule = Rule {
        code: "AC002",
        name: "missing-attribute",
        severity: Severity::Error,
        summary: "an attribute of an imported module or class is missing in targeted releases",
    };
}

/// The message: the path, where it is missing (and which segment) and where it exists.
pub(crate) fn message(b: &Breaks) -> String {
    missing_message(b)
}

/// For a member that no release of the package defines, read on an object of the project's
/// class `own` (a subclass of an indexed class): no version has it, so the fix is in the
/// project's code.
pub(crate) fn define_fix(own: &str, path: &str) -> Fix {
    let member = path.rsplit('.').next().unwrap_or(path);
    Fix {
        kind: crate::model::FixKind::Rewrite,
        message: format!("no release defines it: define `{member}` in `{own}`, or check the name"),
        replacement: None,
        releases: Vec::new(),
        requirement: None,
    }
}

/// Guard the use with `hasattr` on the first missing segment (`missing`, else the path).
pub(crate) fn guard_fix(path: &str, missing: Option<&str>) -> Fix {
    let seg = missing.unwrap_or(path);
    guard(match seg.rsplit_once('.') {
        Some((parent, last)) => format!("guard the use with `if hasattr({parent}, \"{last}\"):`"),
        None => "guard the use with `try: ... except AttributeError:`".to_string(),
    })
}
