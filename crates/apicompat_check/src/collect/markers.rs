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
//!
//! A *guarding decorator* returns a wrapper that leaves (raises, returns) unless a test holds
//! before it calls the function (LLaMA-Factory's `v1/accelerator/helper.py`):
//!
//! ```python
//! def requires_accelerator(fn):
//!     @wraps(fn)
//!     def wrapper(*args, **kwargs):
//!         if not hasattr(torch, "accelerator"):
//!             raise RuntimeError("... upgrade torch to 2.7.0 or higher.")
//!         return fn(*args, **kwargs)
//!     return wrapper
//! ```
//!
//! What it decorates runs only where every early exit's test is false: the version conditions
//! that says, and the paths it reads for sure (`torch.accelerator` exists), as an early exit in
//! the function itself would. Decorators of the same file only.

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

    /// For a guarding decorator (see the module doc): what the function it wraps runs under.
    pub(super) fn guarding_decorator(&self, f: &ast::StmtFunctionDef) -> Option<Guarding> {
        let wrapped = f.parameters.iter_non_variadic_params().next()?;
        let wrapped = wrapped.parameter.name.as_str();
        let body = match &*f.body {
            [Stmt::Expr(e), rest @ ..] if e.value.is_string_literal_expr() => rest,
            b => b,
        };
        let [.., Stmt::FunctionDef(wrapper), Stmt::Return(ret)] = body else {
            return None;
        };
        match ret.value.as_deref() {
            Some(Expr::Name(n)) if n.id.as_str() == wrapper.name.as_str() => {}
            _ => return None,
        }
        let mut out = Guarding::default();
        let mut calls_it = false;
        for stmt in &*wrapper.body {
            match stmt {
                Stmt::If(i) if i.elif_else_clauses.is_empty() && leaves(&i.body) => {
                    if let Some(neg) = self.cond_info(&i.test).restriction.negate() {
                        out.versions.extend(neg.parts);
                    }
                    self.reads_when_false(&i.test, &mut out.requires);
                }
                Stmt::Return(r) => {
                    calls_it = matches!(r.value.as_deref(), Some(Expr::Call(c))
                        if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == wrapped));
                    break;
                }
                Stmt::Expr(e) if e.value.is_string_literal_expr() => {}
                _ => break,
            }
        }
        (calls_it && !(out.versions.is_empty() && out.requires.is_empty())).then_some(out)
    }
}

/// What a guarding decorator lets the function it wraps run under.
#[derive(Debug, Clone, Default)]
pub(super) struct Guarding {
    pub versions: Vec<(String, Pred)>,
    pub requires: Vec<PathTest>,
}
