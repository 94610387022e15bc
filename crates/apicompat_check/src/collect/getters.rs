//! Functions of the project that return a distribution's installed version: a comparison with
//! their result is a version condition on that distribution, like `torch.__version__`.
//!
//! ```python
//! def _get_package_version(name: str) -> "Version":     # LLaMA-Factory's extras/packages.py
//!     try:
//!         return version.parse(importlib.metadata.version(name))
//!     except Exception:
//!         return version.parse("0.0.0")
//!
//! @lru_cache
//! def is_transformers_version_greater_than(content: str):
//!     return _get_package_version("transformers") >= version.parse(content)
//! ```

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::conditions::positional_names;
use super::{dotted, is_metadata_version, last_segment, VERSION_PARSERS};

/// For a function whose one `return` (or the `return` of the `try` its body is) gives the
/// installed version of the distribution a parameter names (`version.parse(importlib.metadata
/// .version(name))`, through any version parser): that parameter's position.
pub(super) fn version_getter(params: &ast::Parameters, body: &[Stmt]) -> Option<usize> {
    let body = match body {
        [Stmt::Expr(e), rest @ ..] if e.value.is_string_literal_expr() => rest,
        b => b,
    };
    let returned = match body {
        [Stmt::Return(r)] => r.value.as_deref()?,
        [Stmt::Try(t)] => match &*t.body {
            [Stmt::Return(r)] => r.value.as_deref()?,
            _ => return None,
        },
        _ => return None,
    };
    let mut e = returned;
    for _ in 0..8 {
        let Expr::Call(call) = e else {
            return None;
        };
        let name = dotted(&call.func)?;
        let [arg] = &*call.arguments.args else {
            return None;
        };
        if is_metadata_version(&name) {
            let Expr::Name(p) = arg else {
                return None;
            };
            return positional_names(params)
                .iter()
                .position(|n| *n == p.id.as_str());
        }
        if !VERSION_PARSERS.contains(&last_segment(&name)) {
            return None;
        }
        e = arg;
    }
    None
}
