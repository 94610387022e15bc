//! Functions of the project that list the parameters of the callable they are given
//!
//! ```python
//! def get_func_args(func):
//!     sig = inspect.signature(func)
//!     return [arg.name for arg in sig.parameters.values()]
//!
//! if "symmetric" in get_func_args(torch.cuda.MemPool):
//!     pool = torch.cuda.MemPool(allocator, symmetric=True)   # the keyword is tested
//! ```
//!
//! A test `"k" in h(f)` with such an `h` (defined at the top of the same module) guards the
//! keyword `k` of calls of `f`, as `"k" in inspect.signature(f).parameters` does (Megatron-LM,
//! `megatron/core/nccl_allocator.py`).

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use super::*;

/// Whether a function returns (something built from) the parameters of its first parameter:
/// its body, at most four statements after a docstring, calls `inspect.signature(p)`,
/// `getfullargspec(p)` or `getargspec(p)` on that parameter and ends with a `return`.
pub(super) fn lists_parameters(f: &ast::StmtFunctionDef) -> bool {
    let Some(first) = f.parameters.iter_non_variadic_params().next() else {
        return false;
    };
    let param = first.parameter.name.as_str();
    let body = match &*f.body {
        [Stmt::Expr(e), rest @ ..] if e.value.is_string_literal_expr() => rest,
        b => b,
    };
    if body.len() > 4 || !matches!(body.last(), Some(Stmt::Return(_))) {
        return false;
    }
    struct Finder<'p> {
        param: &'p str,
        found: bool,
    }
    impl<'b> Visitor<'b> for Finder<'_> {
        fn visit_expr(&mut self, e: &'b Expr) {
            if let Expr::Call(c) = e {
                let inspects = dotted(&c.func).is_some_and(|d| {
                    matches!(
                        last_segment(&d),
                        "signature" | "getfullargspec" | "getargspec"
                    )
                });
                let on_param = matches!(
                    c.arguments.args.first(),
                    Some(Expr::Name(n)) if n.id.as_str() == self.param
                );
                self.found |= inspects && on_param;
            }
            visitor::walk_expr(self, e);
        }
        fn visit_stmt(&mut self, s: &'b Stmt) {
            // Nested functions and classes are not this function's result.
            if !matches!(s, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                visitor::walk_stmt(self, s);
            }
        }
    }
    let mut finder = Finder {
        param,
        found: false,
    };
    for s in body {
        finder.visit_stmt(s);
    }
    finder.found
}

impl<'a> Walker<'a> {
    /// `"k" in h(f)` with `h` a function of this module that lists parameters: the path of
    /// `f` with the keyword (`f(k=)`), as [`Walker::keyword_test`] gives.
    pub(super) fn listed_keyword(&self, k: &str, right: &Expr) -> Option<String> {
        let Expr::Call(call) = right else {
            return None;
        };
        let Expr::Name(h) = &*call.func else {
            return None;
        };
        if !self.signature_helpers.contains(h.id.as_str()) {
            return None;
        }
        let (path, _) = self.resolve(call.arguments.args.first()?)?;
        Some(format!("{path}({k}=)"))
    }
}
