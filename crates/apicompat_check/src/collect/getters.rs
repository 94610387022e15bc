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

use super::conditions::{positional_names, version_param_of};
use super::{dotted, is_metadata_version, last_segment, op_of, VERSION_PARSERS};
use crate::versions::{Op, VersionHelper};

/// For a function whose one `return` (or the `return` of the `try` its body is) gives the
/// installed version of the distribution a parameter names (`version.parse(importlib.metadata
/// .version(name))`, through any version parser): that parameter's position.
pub(super) fn version_getter(params: &ast::Parameters, body: &[Stmt]) -> Option<usize> {
    let body = match body {
        [Stmt::Expr(e), rest @ ..] if e.value.is_string_literal_expr() => rest,
        b => b,
    };
    let positional = positional_names(params);
    // `name = DISTRIBUTIONS[name][0]` (under an `if`): the parameter mapped from a module's
    // name to its distribution's (nequip's `get_version_safe`), still the package it names.
    let remaps = |s: &Stmt| {
        let assigns_param = |s: &Stmt| {
            matches!(s, Stmt::Assign(a) if matches!(&*a.targets,
                [Expr::Name(n)] if positional.contains(&n.id.as_str())))
        };
        match s {
            Stmt::If(i) => i.elif_else_clauses.is_empty() && i.body.iter().all(assigns_param),
            s => assigns_param(s),
        }
    };
    let returned = match body {
        [Stmt::Return(r)] => r.value.as_deref()?,
        [Stmt::Try(t)] => match t.body.split_last() {
            Some((Stmt::Return(r), before)) if before.len() <= 4 && before.iter().all(remaps) => {
                r.value.as_deref()?
            }
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
            return positional.iter().position(|n| *n == p.id.as_str());
        }
        if !VERSION_PARSERS.contains(&last_segment(&name)) {
            return None;
        }
        e = arg;
    }
    None
}

/// A function that returns `True` at its end after an early `return False` when the installed
/// version of the distribution a parameter names compares badly with another parameter (LMFlow's
/// `is_package_version_at_least(package_name, min_version)`: `package_version =
/// metadata.version(package_name)`, `if Version(package_version) < Version(min_version): return
/// False`, inside a `try` whose handler returns `False` too): a comparator given the package's
/// name (`is_package_version_at_least("transformers", "4.46.0")`), true where the early exit's
/// test is false.
pub(super) fn exit_comparator(params: &ast::Parameters, body: &[Stmt]) -> Option<VersionHelper> {
    let body = match body {
        [Stmt::Expr(e), rest @ ..] if e.value.is_string_literal_expr() => rest,
        b => b,
    };
    let (Stmt::Return(last), before) = body.split_last()? else {
        return None;
    };
    if !matches!(last.value.as_deref(), Some(Expr::BooleanLiteral(b)) if b.value) {
        return None;
    }
    // The statements before it, and those of the bodies of its `try` statements.
    let mut stmts: Vec<&Stmt> = Vec::new();
    for s in before {
        match s {
            Stmt::Try(t) => stmts.extend(t.body.iter()),
            s => stmts.push(s),
        }
    }
    let positional = positional_names(params);
    let param_at = |e: &Expr| match e {
        Expr::Name(n) => positional.iter().position(|p| *p == n.id.as_str()),
        _ => None,
    };
    // Locals bound to the installed version of the distribution a parameter names.
    let mut installed: Vec<(&str, usize)> = Vec::new();
    let version_of = |e: &Expr, installed: &[(&str, usize)]| -> Option<usize> {
        let mut e = e;
        for _ in 0..8 {
            match e {
                Expr::Name(n) => {
                    return installed
                        .iter()
                        .find(|(l, _)| *l == n.id.as_str())
                        .map(|(_, p)| *p)
                }
                Expr::Call(call) => {
                    let name = dotted(&call.func)?;
                    let [arg] = &*call.arguments.args else {
                        return None;
                    };
                    if is_metadata_version(&name) {
                        return param_at(arg);
                    }
                    if !VERSION_PARSERS.contains(&last_segment(&name)) {
                        return None;
                    }
                    e = arg;
                }
                _ => return None,
            }
        }
        None
    };
    for s in stmts {
        match s {
            Stmt::Assign(a) => {
                if let [Expr::Name(t)] = &*a.targets {
                    if let Some(p) = version_of(&a.value, &installed) {
                        installed.push((t.id.as_str(), p));
                    }
                }
            }
            Stmt::If(i) if i.elif_else_clauses.is_empty() => {
                let [Stmt::Return(r)] = &*i.body else {
                    continue;
                };
                if !matches!(r.value.as_deref(), Some(Expr::BooleanLiteral(b)) if !b.value) {
                    continue;
                }
                let Expr::Compare(c) = &*i.test else {
                    continue;
                };
                let ([op], [right]) = (&*c.ops, &*c.comparators) else {
                    continue;
                };
                let Some(op) = op_of(*op) else {
                    continue;
                };
                let (dist, op, bound) = match (
                    version_of(&c.left, &installed),
                    version_param_of(params, right),
                ) {
                    (Some(d), Some(b)) => (d, op, b),
                    _ => match (
                        version_param_of(params, &c.left),
                        version_of(right, &installed),
                    ) {
                        (Some(b), Some(d)) => (d, op.flipped(), b),
                        _ => continue,
                    },
                };
                let position = positional.iter().position(|p| *p == bound)?;
                // True where the exit's test is false.
                let holds = match op {
                    Op::Lt => Op::Ge,
                    Op::Le => Op::Gt,
                    Op::Gt => Op::Le,
                    Op::Ge => Op::Lt,
                    Op::Eq => Op::Ne,
                    Op::Ne => Op::Eq,
                };
                return Some(VersionHelper {
                    version_param: Some(dist),
                    ..VersionHelper::comparison(String::new(), holds, bound, position)
                });
            }
            _ => {}
        }
    }
    None
}
