//! `importlib.util.find_spec("m.sub")` in a test: it finds a spec where the module exists
//! (peft's `is_mistral_available()`, docs/false-alarm-study-46.md F-AJ).

use ruff_python_ast::{self as ast, Expr};

use super::reads::identifier;
use super::string_lit;
use super::Walker;

impl Walker<'_> {
    /// The module `importlib.util.find_spec("m.sub")` looks for, when `call` is one with a
    /// literal name: it returns a spec where the module exists, else `None` (or raises, where
    /// `m` itself is missing), so a true result says `m.sub` exists and a false one that it
    /// does not.
    pub(super) fn found_spec(&self, call: &ast::ExprCall) -> Option<String> {
        let (path, _) = self.resolve(&call.func)?;
        if path != "importlib.util.find_spec" {
            return None;
        }
        match &*call.arguments.args {
            [name] if call.arguments.keywords.is_empty() => {
                string_lit(name).filter(|n| n.split('.').all(identifier))
            }
            _ => None,
        }
    }

    /// `find_spec("m.sub") is not None` (or `is None`, `!=`, `==`) being `truth`: the module
    /// and whether it exists there.
    pub(super) fn spec_compared(
        &self,
        c: &ast::ExprCompare,
        truth: bool,
    ) -> Option<(String, bool)> {
        let ([op], [right]) = (&*c.ops, &*c.comparators) else {
            return None;
        };
        let Expr::Call(call) = &*c.left else {
            return None;
        };
        if !matches!(right, Expr::NoneLiteral(_)) {
            return None;
        }
        let found_when_true = match op {
            ast::CmpOp::IsNot | ast::CmpOp::NotEq => true,
            ast::CmpOp::Is | ast::CmpOp::Eq => false,
            _ => return None,
        };
        Some((self.found_spec(call)?, truth == found_when_true))
    }
}
