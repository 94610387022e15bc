use super::{Rule, RuleInfo};
use crate::model::Severity;

/// ## What it does
/// Reports, once per package, a declared requirement (`requirements.txt`, `pyproject.toml`, ...)
/// that admits releases on which an unguarded use in the project breaks: the releases, the
/// uses that break there (import-time or call-time), and the requirement that admits only the
/// releases that work. The finding is placed on the declaration's line.
///
/// ## Why is this bad?
/// `pip install` may pick any release the requirement admits; on the broken ones the project
/// fails at import or when the code runs. The requirement, not only the code, is wrong.
///
/// ## Example
/// ```text
/// # requirements.txt
/// torch>=2.3.0   # admits 2.3.0 and 2.3.1, which lack torch.distributed.pipelining
/// ```
///
/// ## How to fix
/// Raise (or cap) the requirement to the one the finding gives (`torch>=2.4`), or change the
/// uses. `apicompat range` shows the releases every use needs and why.
pub struct RequirementAdmitsBroken;

impl RuleInfo for RequirementAdmitsBroken {
    const RULE: Rule = Rule {
        code: "AC008",
        name: "requirement-admits-broken",
        severity: Severity::Error,
        summary: "a declared requirement admits releases on which the project breaks",
    };
}
