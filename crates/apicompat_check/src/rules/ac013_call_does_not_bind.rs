use apicompat_surface::{ParamKind, Signature};

use super::{guard, Breaks, Rule, RuleInfo, UnsupportedKeyword, Works};
use crate::model::{Finding, Fix, Severity};

/// ## What it does
/// Finds calls of indexed functions, classes and methods of objects that do not give a
/// parameter the callee requires in some targeted releases (a parameter that became required,
/// or a keyword-only one the call does not pass). Only a change of the signature is reported:
/// the call must bind in some other indexed release. Calls with `*args` or `**kwargs`, callees
/// whose signature is not known statically, and methods called through their class
/// (`Class.method(obj, ...)`) are not judged. Too many positional arguments are not judged
/// either: a decorator may accept the old form (torch's `_api_bc_check` takes
/// `dcp.load(state_dict, reader)` although `load`'s own signature takes one positional
/// argument), and the index does not know decorators yet. Unknown keywords are AC003's.
///
/// ## Why is this bad?
/// The call raises `TypeError: missing 1 required positional argument` (or keyword-only
/// argument) on those releases.
///
/// ## Example
/// A parameter that became required, or a required one a later release dropped:
/// ```python
/// colossalai.launch_from_torch()  # colossalai < 0.3.8 requires `config`
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
        summary: "a call does not give a parameter the callee requires in targeted releases",
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

/// Whether a call with `shape` gives every parameter `sig` requires. Extra positional
/// arguments and keywords the signature does not take are not counted against binding (see
/// the rule's documentation; keywords are AC003's).
pub fn binds(sig: &Signature, shape: &CallShape) -> bool {
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

/// `signature`: the callee's signature in the newest release that breaks, rendered.
pub(crate) fn message(b: &Breaks, shape: &CallShape, signature: Option<&str>) -> String {
    let tail = match b.works {
        Works::Nowhere | Works::NotKnown => String::new(),
        Works::In(from_on) => format!("; it binds {from_on}"),
    };
    let signature = signature
        .map(|s| format!(": the signature there is `{s}`"))
        .unwrap_or_default();
    format!(
        "the call of `{}` with {} does not bind in {} {} ({}){signature}{tail}",
        b.path,
        shape.describe(),
        b.package,
        b.listed,
        b.target
    )
}

pub(crate) fn guard_fix() -> Fix {
    guard("pass the arguments each release takes, behind a version check (by keyword where the order changed)".to_string())
}

/// Where an AC003 is (its line) and the releases it names.
type KeywordBreak<'a> = (u32, &'a [String]);

/// Drops a finding of this rule on a call that an AC003 on a keyword of the same call explains
/// on every release it names: a keyword renamed (`np.reshape(a, newshape=...)`, `shape` from
/// numpy 2.1) leaves the new parameter unfilled, one break with one cause.
pub(crate) fn drop_explained(findings: &mut Vec<(usize, Finding, Vec<u32>)>) {
    // The AC003 findings by file and callee: (line, releases).
    let mut keywords: apicompat_hash::HashMap<(usize, &str), Vec<KeywordBreak>> =
        apicompat_hash::HashMap::default();
    for (fi, g, _) in findings.iter() {
        if g.code != UnsupportedKeyword::RULE.code {
            continue;
        }
        if let Some((callee, _)) = g.symbol.split_once('(') {
            keywords
                .entry((*fi, callee))
                .or_default()
                .push((g.line, &g.missing_in));
        }
    }
    if keywords.is_empty() {
        return;
    }
    let explained: Vec<bool> = findings
        .iter()
        .map(|(fi, f, _)| {
            let Some(callee) = f.symbol.strip_suffix("()") else {
                return false;
            };
            f.code == CallDoesNotBind::RULE.code
                && keywords.get(&(*fi, callee)).is_some_and(|ks| {
                    ks.iter().any(|(line, missing)| {
                        (f.line..=f.end_line).contains(line)
                            && f.missing_in.iter().all(|v| missing.contains(v))
                    })
                })
        })
        .collect();
    let mut i = 0;
    findings.retain(|_| {
        i += 1;
        !explained[i - 1]
    });
}
