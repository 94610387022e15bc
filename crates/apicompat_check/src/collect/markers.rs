//! Test markers written as functions (the form of accelerate's and transformers' `testing.py`):
//!
//! ```python
//! def require_fsdp2(test_case):
//!     return unittest.skipUnless(is_torch_version(">=", "2.5.0"), "needs FSDP2")(test_case)
//! ```
//!
//! A function whose body (after a docstring) returns a test-skipping decorator applied to its
//! first parameter is a marker like `require_fsdp2 = unittest.skipUnless(...)`: what it
//! decorates runs under the decorator's condition (resolved by name in other modules, as
//! helpers are).

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::*;

impl<'a> Walker<'a> {
    /// The condition a marker function lets what it decorates run under, as a helper that
    /// implies it.
    pub(super) fn marker_function(&self, f: &ast::StmtFunctionDef) -> Option<VersionHelper> {
        let body = match &*f.body {
            [Stmt::Expr(e), rest @ ..] if e.value.is_string_literal_expr() => rest,
            b => b,
        };
        let [Stmt::Return(ret)] = body else {
            return None;
        };
        let Some(Expr::Call(outer)) = ret.value.as_deref() else {
            return None;
        };
        let first = f.parameters.iter_non_variadic_params().next()?;
        let [Expr::Name(arg)] = &*outer.arguments.args else {
            return None;
        };
        if arg.id.as_str() != first.parameter.name.as_str() {
            return None;
        }
        self.skip_condition(&outer.func).and_then(implying)
    }
}
