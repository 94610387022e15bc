use super::{Rule, RuleInfo};
use crate::model::Severity;

/// ## What it does
/// Reports, once per package, a third-party package the project imports whose releases are
/// not in the index, with the `apicompat index fetch` command that adds them.
///
/// ## Why is this bad?
/// Its uses cannot be checked: a break in them would go unnoticed.
///
/// ## Example
/// ```python
/// import deepspeed  # the index knows torch and colossalai only
/// ```
///
/// ## How to fix
/// Run the command in the message (`apicompat index fetch deepspeed`), or ignore the rule for
/// packages you don't want checked.
pub struct UnindexedPackage;

impl RuleInfo for UnindexedPackage {
    const RULE: Rule = Rule {
        code: "AC004",
        name: "unindexed-package",
        severity: Severity::Warning,
        summary: "an imported third-party package is not in the index",
    };
}
