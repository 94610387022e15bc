use apicompat_surface::{ParamKind, Signature};

use super::{Rule, RuleInfo};
use crate::model::Severity;

/// ## What it does
/// Finds calls of indexed functions, classes and methods of objects whose arguments do not
/// bind to the callee's signature in some targeted releases: more positional arguments than it
/// takes, or a required parameter not given. Only a change of the signature is reported: the
/// call must bind in some other indexed release. Calls with `*args` or `**kwargs`, callees
/// whose signature is not known statically, and methods called through their class
/// (`Class.method(obj, ...)`) are not judged. Unknown keywords are AC003's.
///
/// ## Why is this bad?
/// The call raises `TypeError` (`takes 2 positional arguments but 3 were given`, `missing 1
/// required positional argument`) on those releases.
///
/// ## Example
/// A parameter that became required, or one that was dropped:
/// ```python
/// scheduler.step(epoch)  # the `epoch` parameter was removed in a later release
/// ```
///
/// ## How to fix
/// Pass the arguments the targeted releases take (by keyword where the order changed), or pin
/// the releases where the call binds.
pub struct CallDoesNotBind;

impl RuleInfo for CallDoesNotBind {
    const RULE: Rule = Rule {
        code: "AC013",
        name: "call-does-not-bind",
        severity: Severity::Error,
        summary: "a call's arguments do not bind to the callee's signature in targeted releases",
    };
}

/// The arguments of a call: how many positional ones, and the keywords given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallShape {
    pub positional: u32,
    pub keywords: Vec<String>,
}

impl CallShape {
    /// `2 positional arguments and the keyword dim`.
    pub fn describe(&self) -> String {
        let n = self.positional;
        let mut out = format!("{n} positional argument{}", if n == 1 { "" } else { "s" });
        if !self.keywords.is_empty() {
            let names: Vec<String> = self.keywords.iter().map(|k| format!("`{k}`")).collect();
            let word = if names.len() == 1 {
                "keyword"
            } else {
                "keywords"
            };
            out.push_str(&format!(" and the {word} {}", names.join(", ")));
        }
        out
    }
}

/// Whether a call with `shape` binds to `sig`: not too many positional arguments, and every
/// required parameter given. A keyword the signature does not take is left to AC003 (it is
/// not counted against binding).
pub fn binds(sig: &Signature, shape: &CallShape) -> bool {
    let mut positional_slots = 0u32;
    let mut var_positional = false;
    for p in &sig.params {
        match p.kind {
            ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword => positional_slots += 1,
            ParamKind::VarPositional => var_positional = true,
            _ => {}
        }
    }
    if shape.positional > positional_slots && !var_positional {
        return false;
    }
    let mut filled = 0u32;
    for p in &sig.params {
        let by_position = matches!(
            p.kind,
            ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword
        ) && {
            filled += 1;
            filled <= shape.positional
        };
        let required = !p.default
            && matches!(
                p.kind,
                ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword | ParamKind::KeywordOnly
            );
        let by_keyword = p.kind != ParamKind::PositionalOnly && shape.keywords.contains(&p.name);
        if required && !by_position && !by_keyword {
            return false;
        }
    }
    true
}
