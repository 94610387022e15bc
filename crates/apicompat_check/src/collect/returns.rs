//! What the `return` statements of a block say: whether it returns, whether it returns a
//! value, whether it ends returning a false value.

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};

/// Whether a statement holds a `return` (not looking into nested functions or classes).
pub(super) fn has_return(stmt: &Stmt) -> bool {
    finds_return(stmt, false)
}

/// Whether a statement returns a value (`return x`), outside nested functions and classes.
pub(super) fn returns_value(stmt: &Stmt) -> bool {
    finds_return(stmt, true)
}

/// A `return` in `stmt` (one with a value only, when `value_only`), outside nested functions
/// and classes.
fn finds_return(stmt: &Stmt, value_only: bool) -> bool {
    struct Finder {
        found: bool,
        value_only: bool,
    }
    impl<'a> Visitor<'a> for Finder {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            match s {
                Stmt::Return(r) if r.value.is_some() || !self.value_only => self.found = true,
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
                s if !self.found => visitor::walk_stmt(self, s),
                _ => {}
            }
        }
        fn visit_expr(&mut self, _: &'a Expr) {}
    }
    let mut f = Finder {
        found: false,
        value_only,
    };
    f.visit_stmt(stmt);
    f.found
}

/// A block that ends by returning a false value (`False`, `None`, nothing) and returns nowhere
/// else.
pub(super) fn returns_false(body: &[Stmt]) -> bool {
    let Some((Stmt::Return(r), before)) = body.split_last() else {
        return false;
    };
    let falsy = match r.value.as_deref() {
        None => true,
        Some(Expr::BooleanLiteral(b)) => !b.value,
        Some(Expr::NoneLiteral(_)) => true,
        _ => false,
    };
    falsy && !before.iter().any(has_return)
}
