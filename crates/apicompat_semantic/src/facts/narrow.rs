//! `isinstance` tests: what they say about an expression where they hold or fail, and the
//! tests in force while the builder walks a function's body (see [`super::Site::narrow`]).

use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::ir::{self, Sym};

/// Classes named in one test at most (a longer tuple says nothing here).
const MAX_CLASSES: usize = 8;
/// Tests in force at once at most (deeper ones are not recorded: less is known, never more).
const MAX_ACTIVE: usize = 64;

/// What an `isinstance(subject, classes)` test says where the code runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Narrow {
    /// The tested expression: a name or a chain of attributes of one.
    pub subject: Sym,
    /// The classes of the test (one, or the items of a tuple).
    pub classes: Vec<Sym>,
    /// The test holds here (`if isinstance(x, C):`), or it failed (its `else`, the code
    /// after `if isinstance(x, C): return`).
    pub holds: bool,
}

/// The tests in force while a body is walked, with whether each still holds (a binding of
/// its subject's name ends it).
#[derive(Debug, Default)]
pub(super) struct Active {
    tests: Vec<(Narrow, bool)>,
}

impl Active {
    pub(super) fn len(&self) -> usize {
        self.tests.len()
    }

    pub(super) fn push_all(&mut self, list: Vec<Narrow>) {
        for n in list {
            if self.tests.len() >= MAX_ACTIVE {
                return;
            }
            self.tests.push((n, true));
        }
    }

    pub(super) fn truncate(&mut self, len: usize) {
        self.tests.truncate(len);
    }

    /// The tests of an enclosing function do not hold in a nested one (it runs later).
    pub(super) fn take(&mut self) -> Active {
        std::mem::take(self)
    }

    /// `name` (or, for an attribute store, `name.attr`) is bound again: the tests of
    /// expressions rooted there end.
    pub(super) fn rebound(&mut self, path: &Sym) {
        for (n, alive) in &mut self.tests {
            if *alive && is_prefix(path, &n.subject) {
                *alive = false;
            }
        }
    }

    /// The tests in force on `receiver` or a part of it.
    pub(super) fn on(&self, receiver: &Sym) -> Vec<Narrow> {
        self.tests
            .iter()
            .filter(|(n, alive)| *alive && is_prefix(&n.subject, receiver))
            .map(|(n, _)| n.clone())
            .collect()
    }
}

/// What `test` says where it holds (`holds`) or where it failed: `isinstance` calls, under
/// `not`, the operands of `and` where it holds, those of `or` where it failed.
pub(super) fn implied(test: &Expr, holds: bool) -> Vec<Narrow> {
    let mut out = Vec::new();
    collect(test, holds, &mut out, 0);
    out
}

fn collect(test: &Expr, holds: bool, out: &mut Vec<Narrow>, depth: usize) {
    if depth >= ir::MAX_SYM_DEPTH || out.len() >= MAX_ACTIVE {
        return;
    }
    match test {
        Expr::Call(c) => {
            let Expr::Name(f) = &*c.func else {
                return;
            };
            let args = &c.arguments.args;
            if f.id.as_str() != "isinstance" || args.len() != 2 || !c.arguments.keywords.is_empty()
            {
                return;
            }
            let subject = ir::value(&args[0]);
            if !is_path(&subject) {
                return;
            }
            let classes: Vec<Sym> = match &args[1] {
                Expr::Tuple(t) if t.elts.len() <= MAX_CLASSES => {
                    t.elts.iter().map(ir::value).collect()
                }
                Expr::Tuple(_) | Expr::Starred(_) => return,
                e => vec![ir::value(e)],
            };
            if classes.is_empty() || classes.iter().any(|c| !is_path(c)) {
                return;
            }
            out.push(Narrow {
                subject,
                classes,
                holds,
            });
        }
        Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => {
            collect(&u.operand, !holds, out, depth + 1)
        }
        Expr::BoolOp(b) if (b.op == ast::BoolOp::And) == holds => {
            for v in &b.values {
                collect(v, holds, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// A name or a chain of attributes of one.
fn is_path(sym: &Sym) -> bool {
    match sym {
        Sym::Name(_) => true,
        Sym::Attr(v, _) => is_path(v),
        _ => false,
    }
}

/// `part` is `whole` or an expression `whole` reads through (its receiver, its callee, the
/// mapping it subscripts).
pub(crate) fn is_prefix(part: &Sym, whole: &Sym) -> bool {
    let mut w = whole;
    loop {
        if w == part {
            return true;
        }
        w = match w {
            Sym::Attr(v, _) | Sym::Subscript(v) => v,
            Sym::Call(c) => &c.func,
            _ => return false,
        };
    }
}

/// The body ends in a jump: the code after its `if` runs only where the test failed.
pub(super) fn ends_in_jump(body: &[Stmt]) -> bool {
    matches!(
        body.last(),
        Some(Stmt::Return(_) | Stmt::Raise(_) | Stmt::Continue(_) | Stmt::Break(_))
    )
}
