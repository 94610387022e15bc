use super::{Rule, RuleInfo};
use crate::model::Severity;

/// ## What it does
/// Finds uses of a private module or name of an indexed package: a dotted path with a
/// segment that starts with an underscore (`torch.distributed._tensor`,
/// `torch.distributed._functional_collectives.all_reduce`), reported where the private part is
/// written (an import, an attribute chain), not at every later use of the name bound to it.
/// The finding says how many indexed releases have had it, and where the same object (the
/// same canonical definition) is public in the targeted releases:
/// `torch.distributed.tensor.Partial` from torch 2.5.0 for `torch.distributed._tensor.Partial`.
/// A private path that already has its fallback is not reported: one in a `try` whose
/// handler catches `ImportError` (or `AttributeError`, `Exception`...), and one in such a
/// handler that does not raise again (the fallback itself, as in "How to fix" below).
///
/// ## Why is this bad?
/// Private APIs change or disappear without deprecation; code that uses them breaks on an
/// upgrade with no warning.
///
/// ## Example
/// With `torch>=2.4` declared:
/// ```python
/// from torch.distributed._tensor import Partial  # public as torch.distributed.tensor.Partial from 2.5.0
/// ```
///
/// ## How to fix
/// Use the public path the finding names (raising the lower bound if it is public only in
/// newer releases), or keep a fallback for when the private name goes away:
/// ```python
/// try:
///     from torch.distributed.tensor import Partial
/// except ImportError:
///     from torch.distributed._tensor import Partial
/// ```
pub struct PrivateApi;

impl RuleInfo for PrivateApi {
    const RULE: Rule = Rule {
        code: "AC011",
        name: "private-api",
        severity: Severity::Warning,
        summary: "a private module or name of an indexed package is used",
    };
}
