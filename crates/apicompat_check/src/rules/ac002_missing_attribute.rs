use super::{Rule, RuleInfo};
use crate::model::Severity;

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
