use super::{Rule, RuleInfo};
use crate::model::Severity;

/// ## What it does
/// Finds keyword arguments in calls of indexed functions and classes that the callee does not
/// accept in some targeted releases. A callee that takes `**kwargs`, or whose signature is not
/// known statically, is never reported.
///
/// ## Why is this bad?
/// The call raises `TypeError: got an unexpected keyword argument` on those releases.
///
/// ## Example
/// With `torch>=1.12` declared:
/// ```python
/// torch.load(path, weights_only=True)  # `weights_only` is not accepted before 1.13.0
/// ```
///
/// ## How to fix
/// Pin the first release that accepts the keyword, or pass it only where it is accepted:
/// ```python
/// if torch.__version__ >= "1.13":
///     state = torch.load(path, weights_only=True)
/// else:
///     state = torch.load(path)
/// ```
pub struct UnsupportedKeyword;

impl RuleInfo for UnsupportedKeyword {
    const RULE: Rule = Rule {
        code: "AC003",
        name: "unsupported-keyword",
        severity: Severity::Error,
        summary: "a keyword argument is not accepted by the callee in targeted releases",
    };
}
