use apicompat_surface::Signature;

use super::{guard, Breaks, Rule, RuleInfo, Works};
use crate::model::{Fix, Severity};

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

/// Whether a release whose callee has these signatures accepts the keyword (`None`: the
/// signatures are not known).
pub(crate) fn accepts(signatures: &[Signature], keyword: &str) -> Option<bool> {
    (!signatures.is_empty()).then(|| signatures.iter().any(|s| s.accepts_keyword(keyword)))
}

pub(crate) fn message(b: &Breaks, keyword: &str) -> String {
    let tail = match b.works {
        Works::Nowhere => "no indexed release accepts it".to_string(),
        Works::NotKnown => "whether the other indexed releases accept it is not known".to_string(),
        Works::In(from_on) => format!("it is accepted {from_on}"),
    };
    format!(
        "`{}` does not accept the keyword `{keyword}` in {} {} ({}); {tail}",
        b.path, b.package, b.listed, b.target
    )
}

/// Pass the keyword only where it is accepted (`since`: the release it is accepted from).
pub(crate) fn guard_fix(path: &str, keyword: &str, since: Option<&str>) -> Fix {
    let root = path.split('.').next().unwrap_or(path);
    guard(match since.filter(|s| !s.is_empty()) {
        Some(v) => format!("pass `{keyword}=` only where `{root}.__version__ >= \"{v}\"`"),
        None => format!("pass `{keyword}=` only on releases that accept it"),
    })
}
