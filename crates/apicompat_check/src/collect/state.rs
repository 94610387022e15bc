//! Conditions on an object's state that its constructor ties to a release: a class whose
//! `__init__` (or `__post_init__`) raises for old releases in one state
//!
//! ```python
//! def __post_init__(self):
//!     if self.fsdp_version == 2:
//!         if not is_torch_version(">=", "2.6.0"):
//!             raise ImportError("FSDP2 requires PyTorch >= 2.6.0")
//! ```
//!
//! makes every test `X.fsdp_version == 2` imply `torch >= 2.6.0` where it is true: no object
//! in that state exists on older releases. Properties that return such a test carry it
//! (`def is_fsdp2(self): return ... and self.fsdp_plugin.fsdp_version == 2`, read as `if
//! self.is_fsdp2:`). Both are matched by attribute name across the project, as helpers are:
//! when two classes record different facts for one name, neither counts. The implication goes
//! one way (under `not X.is_fsdp2` nothing is assumed), and the state is assumed not to change
//! after construction.
//!
//! An attribute a method sets to a version condition is such a fact too: `self.datasets_4 =
//! version.parse(datasets.__version__) >= version.parse("4.0")` makes `if self.datasets_4:`
//! imply `datasets >= 4.0`, unless the file also sets `self.datasets_4` to something that may be
//! true without it (`False` and `None` keep the implication).

use ruff_python_ast::{self as ast, CmpOp, Expr, Stmt};

use super::*;

/// The name under which a state test waits for its fact (not a Python identifier, so no
/// function of the project can share it): `.fsdp_version==2`, and `.is_fsdp2` for a property.
fn state_key(attr: &str, value: &str) -> String {
    format!(".{attr}=={value}")
}

/// `X.attr == K` with `K` an int or string literal: the attribute and the constant's text.
fn attr_equals(e: &Expr) -> Option<(&Expr, &str, String)> {
    let Expr::Compare(c) = e else {
        return None;
    };
    let ([CmpOp::Eq], [right]) = (&*c.ops, &*c.comparators) else {
        return None;
    };
    let lit = |e: &Expr| match e {
        Expr::NumberLiteral(n) => match &n.value {
            ast::Number::Int(i) => Some(i.to_string()),
            _ => None,
        },
        Expr::StringLiteral(s) => Some(format!("{:?}", s.value.to_str())),
        _ => None,
    };
    let (attr, value) = match (&*c.left, lit(right), lit(&c.left)) {
        (Expr::Attribute(a), Some(v), _) => (a, v),
        (_, _, Some(v)) => match right {
            Expr::Attribute(a) => (a, v),
            _ => return None,
        },
        _ => return None,
    };
    Some((&attr.value, attr.attr.as_str(), value))
}

fn is_self(e: &Expr) -> bool {
    matches!(e, Expr::Name(n) if n.id.as_str() == "self")
}

fn state_pred(name: String) -> (String, Pred) {
    let call = HelperCall::default();
    (HELPER_ROOT.to_string(), Pred::Helper { name, call })
}

impl<'a> Walker<'a> {
    /// `self.x = value` in a method: a version condition records a fact for `.x`; another
    /// value that may be true spoils it.
    pub(super) fn self_store(&mut self, target: &ast::ExprAttribute, value: &Expr) {
        if !is_self(&target.value) || !self.ctx.in_function {
            return;
        }
        let attr = target.attr.as_str();
        let fact = matches!(
            value,
            Expr::Compare(_) | Expr::BoolOp(_) | Expr::UnaryOp(_) | Expr::Call(_)
        )
        .then(|| {
            let info = self.cond_info(value);
            if !info.restriction.complete {
                return None;
            }
            let mut h = implying(info.restriction.parts)?;
            h.exact = true;
            Some(h)
        })
        .flatten();
        let falsy =
            value.is_none_literal_expr() || matches!(value, Expr::BooleanLiteral(b) if !b.value);
        match (fact, self.self_flags.get_mut(attr)) {
            (Some(h), None) => {
                self.self_flags.insert(attr.to_string(), Some(h));
            }
            (Some(h), Some(prev)) => {
                if prev.as_ref() != Some(&h) {
                    *prev = None;
                }
            }
            (None, Some(prev)) if !falsy => *prev = None,
            (None, None) if !falsy => {
                self.self_flags.insert(attr.to_string(), None);
            }
            (None, _) => {}
        }
    }

    /// The facts of [`Walker::self_store`] the file never spoiled, exported as properties'
    /// facts are (another file's different fact for the name cancels both).
    pub(super) fn export_self_flags(&mut self) {
        let mut flags: Vec<(String, Option<VersionHelper>)> = self.self_flags.drain().collect();
        flags.sort_by(|a, b| a.0.cmp(&b.0));
        for (attr, fact) in flags {
            if fact.is_some() {
                self.out.helpers.push((format!(".{attr}"), fact));
            }
        }
    }

    /// What a test on an object's state says, to be resolved once every file is read: `X.a ==
    /// K` and a property read `X.p` (not a path of an indexed package).
    pub(super) fn state_test(&self, e: &Expr) -> Option<(String, Pred)> {
        if let Some((_, attr, value)) = attr_equals(e) {
            return Some(state_pred(state_key(attr, &value)));
        }
        let Expr::Attribute(a) = e else {
            return None;
        };
        if self.resolve(e).is_some() {
            return None;
        }
        Some(state_pred(format!(".{}", a.attr.as_str())))
    }

    /// The facts a method of a class gives (see the module doc): the invariants its
    /// constructor establishes, or what a property's true result implies.
    pub(super) fn state_facts(&mut self, f: &ast::StmtFunctionDef) {
        match f.name.as_str() {
            "__init__" | "__post_init__" => {
                for s in &f.body {
                    self.invariant(s);
                }
            }
            name => {
                let is_property = f
                    .decorator_list
                    .iter()
                    .any(|d| dotted(&d.expression).as_deref() == Some("property"));
                if !is_property {
                    return;
                }
                let body = match &*f.body {
                    [Stmt::Expr(e), rest @ ..] if e.value.is_string_literal_expr() => rest,
                    b => b,
                };
                let value = match body {
                    [Stmt::Return(r)] => r.value.as_deref(),
                    _ => None,
                };
                // `return self.state.is_fsdp2`: the other class's property says it.
                if let Some(Expr::Attribute(a)) = value {
                    if a.attr.as_str() == name {
                        return;
                    }
                }
                let fact = value.and_then(|v| {
                    let info = self.cond_info(v);
                    let mut h = implying(info.restriction.parts)?;
                    h.exact = info.restriction.complete;
                    Some(h)
                });
                self.out.helpers.push((format!(".{name}"), fact));
            }
        }
    }

    /// `if self.a == K: if not C: raise ...` (or `if self.a == K and not C: raise ...`) in a
    /// constructor: `a == K` implies `C`.
    fn invariant(&mut self, s: &Stmt) {
        let Stmt::If(i) = s else {
            return;
        };
        let raises = |b: &[Stmt]| matches!(b.last(), Some(Stmt::Raise(_)));
        let mut found: Option<(String, Restriction)> = None;
        if let Some((recv, attr, value)) = attr_equals(&i.test) {
            if is_self(recv) && i.elif_else_clauses.is_empty() {
                // The exit inside the branch.
                for inner in &i.body {
                    if let Stmt::If(j) = inner {
                        if j.elif_else_clauses.is_empty() && raises(&j.body) {
                            let r = self.cond_info(&j.test).restriction;
                            found = Some((state_key(attr, &value), r));
                            break;
                        }
                    }
                }
            }
        } else if let Expr::BoolOp(b) = &*i.test {
            if b.op == ast::BoolOp::And && raises(&i.body) && i.elif_else_clauses.is_empty() {
                let state = b
                    .values
                    .iter()
                    .position(|v| attr_equals(v).is_some_and(|(recv, _, _)| is_self(recv)));
                if let Some(k) = state {
                    if let Some((_, attr, value)) = attr_equals(&b.values[k]) {
                        let mut r = Restriction {
                            parts: Vec::new(),
                            complete: true,
                        };
                        for (n, v) in b.values.iter().enumerate() {
                            if n != k {
                                r = r.and(self.cond_info(v).restriction);
                            }
                        }
                        found = Some((state_key(attr, &value), r));
                    }
                }
            }
        }
        let Some((key, r)) = found else {
            return;
        };
        if r.parts.is_empty() {
            return;
        }
        // The constructor goes on only where the exit's condition is false.
        if let Some(h) = r.negate().and_then(|n| implying(n.parts)) {
            self.out.helpers.push((key, Some(h)));
        }
    }
}
