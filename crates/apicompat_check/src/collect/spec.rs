//! Comparators that read a pip-style specifier: `check_version(current, required)` whose
//! body splits `required` on commas and compares each piece's operator (ultralytics'
//! `utils/checks.py`: `check_version(TORCH_VERSION, "2.4.0")` is `torch>=2.4.0`,
//! `check_version(np.__version__, ">=2.0,<3")` two bounds; `docs/false-alarm-study-14.md`,
//! F-A). Also a call given only a requirement string (lightning-utilities'
//! `RequirementCache("torch>=2.8.0")`, true where the requirement holds;
//! `docs/false-alarm-study-15.md`, F-A).

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use super::conditions::positional_names;
use super::HashSet;
use crate::versions::{parse_spec, Bound as VBound, Op, Pred, VersionHelper};

/// The operators a specifier comparator tests its pieces for.
const OPERATORS: [&str; 6] = ["==", "!=", ">=", "<=", ">", "<"];

/// A function whose first two positional parameters are the version compared and a
/// specifier, recognised by its body: a `for` loop among its statements over the specifier
/// split on `","` that compares what it takes apart with two or more operator strings, and
/// the version passed to a call (parsed). Its result is taken to be whether the version
/// satisfies the specifier (a bare version meaning `>=`).
pub(super) fn spec_comparator(params: &ast::Parameters, body: &[Stmt]) -> Option<VersionHelper> {
    let positional = positional_names(params);
    let [version, spec, ..] = positional.as_slice() else {
        return None;
    };
    // Most functions stop here: no such loop among their statements.
    let pieces = body.iter().find_map(|s| match s {
        Stmt::For(f) if splits_on_commas(&f.iter, spec) => Some(f),
        _ => None,
    })?;
    let mut finder = Finder {
        version,
        operators: Vec::new(),
        version_parsed: false,
        in_loop: true,
    };
    for stmt in &pieces.body {
        finder.visit_stmt(stmt);
    }
    finder.in_loop = false;
    for stmt in body {
        finder.visit_stmt(stmt);
    }
    (finder.operators.len() >= 2 && finder.version_parsed).then(|| VersionHelper {
        version_param: Some(0),
        spec: true,
        ..VersionHelper::comparison(String::new(), Op::Ge, spec.to_string(), 1)
    })
}

/// A string literal that is a specifier with operators (`">=2.0"`, `">1.2,<2"`); a bare
/// version is not one (it is read as a version).
pub(super) fn spec_literal(e: &Expr) -> Option<Vec<(Op, VBound)>> {
    let Expr::StringLiteral(s) = e else {
        return None;
    };
    let text = s.value.to_str();
    if !text.contains(['<', '>', '=', '!', ',']) {
        return None;
    }
    parse_spec(text)
}

struct Finder<'p> {
    version: &'p str,
    /// The operator strings compared inside the loop over the specifier's pieces.
    operators: Vec<String>,
    /// The version is an argument of some call.
    version_parsed: bool,
    in_loop: bool,
}

impl<'a> Visitor<'a> for Finder<'_> {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            s => visitor::walk_stmt(self, s),
        }
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Call(call) => {
                let passes = |a: &Expr| matches!(a, Expr::Name(n) if n.id.as_str() == self.version);
                if call.arguments.args.iter().any(passes) {
                    self.version_parsed = true;
                }
            }
            Expr::Compare(c) if self.in_loop => {
                for side in c.comparators.iter().chain([&*c.left]) {
                    let literals: Vec<&Expr> = match side {
                        Expr::Tuple(t) => t.elts.iter().collect(),
                        Expr::List(l) => l.elts.iter().collect(),
                        other => vec![other],
                    };
                    for lit in literals {
                        if let Expr::StringLiteral(s) = lit {
                            let text = s.value.to_str();
                            if OPERATORS.contains(&text)
                                && !self.operators.iter().any(|o| o == text)
                            {
                                self.operators.push(text.to_string());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        visitor::walk_expr(self, e);
    }
}

/// `spec.split(",")`, also after other string methods (`spec.strip(",").split(",")`).
fn splits_on_commas(iter: &Expr, spec: &str) -> bool {
    let Expr::Call(call) = iter else {
        return false;
    };
    let Expr::Attribute(a) = &*call.func else {
        return false;
    };
    let comma = matches!(call.arguments.args.first(), Some(Expr::StringLiteral(s)) if s.value.to_str() == ",");
    if a.attr.as_str() != "split" || !comma {
        return false;
    }
    let mut receiver = &*a.value;
    for _ in 0..8 {
        match receiver {
            Expr::Name(n) => return n.id.as_str() == spec,
            Expr::Call(c) => match &*c.func {
                Expr::Attribute(inner) => receiver = &inner.value,
                _ => return false,
            },
            _ => return false,
        }
    }
    false
}

/// A requirement string on an indexed package (`"torch>=2.8.0"`): its import name and the
/// condition its specifier sets. Only names that are an indexed top-level module as written
/// (`-` read as `_`), no extras, no markers.
pub(super) fn requirement_literal(e: &Expr, roots: &HashSet<String>) -> Option<(String, Pred)> {
    let Expr::StringLiteral(s) = e else {
        return None;
    };
    let text = s.value.to_str().trim();
    let split = text.find(['<', '>', '=', '!', '~'])?;
    let (name, spec) = text.split_at(split);
    let root = name.trim().replace('-', "_").to_ascii_lowercase();
    if root.is_empty() || !roots.contains(root.as_str()) || spec.contains([';', '[', '@']) {
        return None;
    }
    let clauses = parse_spec(spec)?;
    let mut preds: Vec<Pred> = clauses
        .into_iter()
        .map(|(op, b)| Pred::Cmp(op, b))
        .collect();
    let pred = if preds.len() == 1 {
        preds.pop()?
    } else {
        Pred::And(preds)
    };
    Some((root, pred))
}
