use super::{Rule, RuleInfo};
use crate::model::Severity;

/// ## What it does
/// Finds uses (imports, attribute chains, `getattr` with a literal name) of modules, classes
/// and functions that a targeted release marks as deprecated: a `DeprecationWarning` or
/// `FutureWarning` raised in the body, a `@deprecated` decorator, or a deprecation note that
/// the index recorded. The finding gives the release that first deprecated it, the message
/// (with the replacement it names), and the release that removed it, if one did.
///
/// ## Why is this bad?
/// The code works today but warns, and a later release removes the API.
///
/// ## Example
/// With `torch>=2.4` declared:
/// ```python
/// from torch.cuda.amp import autocast  # deprecated since 2.4.0: use torch.amp.autocast("cuda")
/// ```
///
/// ## How to fix
/// Use the replacement the message names:
/// ```python
/// from torch.amp import autocast
/// with autocast("cuda"):
///     ...
/// ```
pub struct DeprecatedApi;

impl RuleInfo for DeprecatedApi {
    const RULE: Rule = Rule {
        code: "AC012",
        name: "deprecated-api",
        severity: Severity::Warning,
        summary: "an API that targeted releases mark as deprecated is used",
    };
}
