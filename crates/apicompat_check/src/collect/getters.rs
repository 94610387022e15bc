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
    let params: Vec<(&str, usize)> = positional
        .iter()
        .enumerate()
        .map(|(i, p)| (*p, i))
        .collect();
    installed_param(returned, &params)
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

/// Statements nested deeper than this are not searched for a tuple getter's parts.
const MAX_GETTER_DEPTH: usize = 8;

/// For a function that returns a tuple one of whose items is the installed version of the
/// distribution a parameter names: the parameter's position and the item's.
///
/// ```python
/// def _is_package_available(pkg_name, return_version=False):   # transformers, diffusers
///     package_exists = importlib.util.find_spec(pkg_name) is not None
///     package_version = "N/A"
///     if package_exists:
///         try:
///             package_version = importlib.metadata.version(pkg_name)
///         except importlib.metadata.PackageNotFoundError:
///             package_exists = False
///     if return_version:
///         return package_exists, package_version
///     return package_exists
///
/// _torch_available, _torch_version = _is_package_available("torch", return_version=True)
/// ```
///
/// Every local the version is assigned to counts (a literal assigned besides, `"N/A"`, is the
/// value where the distribution is not installed, where no release of it runs), also the
/// version of a distribution name computed from the parameter (`distributions =
/// PACKAGE_DISTRIBUTION_MAPPING[pkg_name]`, `distribution_name = distributions[0]`:
/// transformers 5; a loop over candidate names computed from it, 5.17); every tuple returned with one of them must have it at the same place, for
/// the same parameter (others, `return package_exists, None`, say nothing).
pub(super) fn tuple_version_getter(
    params: &ast::Parameters,
    body: &[Stmt],
) -> Option<(usize, usize)> {
    let positional = positional_names(params);
    let mut assigns: Vec<(&str, &Expr)> = Vec::new();
    let mut tuples: Vec<&ast::ExprTuple> = Vec::new();
    collect_getter_parts(body, &mut assigns, &mut tuples, 0);
    if tuples.is_empty() || assigns.len() > MAX_GETTER_ASSIGNS {
        return None;
    }
    // The names that hold the parameter or a value computed from it, with its position.
    let mut derived: Vec<(&str, usize)> = positional
        .iter()
        .enumerate()
        .map(|(i, p)| (*p, i))
        .collect();
    for _ in 0..MAX_GETTER_DEPTH {
        let before = derived.len();
        for (target, value) in &assigns {
            if derived.iter().any(|(d, _)| d == target) {
                continue;
            }
            if let Some(p) = mentioned(value, &derived) {
                derived.push((target, p));
            }
        }
        if derived.len() == before {
            break;
        }
    }
    let installed: Vec<(&str, usize)> = assigns
        .iter()
        .filter_map(|(target, value)| Some((*target, installed_param(value, &derived)?)))
        .collect();
    let mut found: Option<(usize, usize)> = None;
    for t in &tuples {
        let at = t.elts.iter().enumerate().find_map(|(i, e)| match e {
            Expr::Name(n) => installed
                .iter()
                .find(|(l, _)| *l == n.id.as_str())
                .map(|(_, p)| (*p, i)),
            _ => None,
        });
        match (at, found) {
            (None, _) => {}
            (Some(a), Some(f)) if a != f => return None,
            (Some(a), _) => found = Some(a),
        }
    }
    found
}

/// Assignments of a getter read, at most.
const MAX_GETTER_ASSIGNS: usize = 64;

/// The position of the first of `names` that `e` reads (a name, or the value of an
/// attribute, subscript or call that reads one).
fn mentioned(e: &Expr, names: &[(&str, usize)]) -> Option<usize> {
    mentioned_in(e, names, 0)
}

fn mentioned_in(e: &Expr, names: &[(&str, usize)], depth: usize) -> Option<usize> {
    if depth > MAX_GETTER_DEPTH {
        return None;
    }
    let d = depth + 1;
    match e {
        Expr::Name(n) => names
            .iter()
            .find(|(name, _)| *name == n.id.as_str())
            .map(|(_, p)| *p),
        Expr::Attribute(a) => mentioned_in(&a.value, names, d),
        // `MAPPING[pkg_name]`, `candidates[0]`.
        Expr::Subscript(s) => {
            mentioned_in(&s.value, names, d).or_else(|| mentioned_in(&s.slice, names, d))
        }
        // `pkg_name.replace(...)`, `candidates(pkg_name)`.
        Expr::Call(c) => {
            let object = match &*c.func {
                Expr::Attribute(a) => mentioned_in(&a.value, names, d),
                _ => None,
            };
            object.or_else(|| {
                c.arguments
                    .args
                    .iter()
                    .find_map(|a| mentioned_in(a, names, d))
            })
        }
        _ => None,
    }
}

/// The single-name assignments and the tuples returned in `body` and the blocks nested in it
/// (not in nested functions).
fn collect_getter_parts<'a>(
    body: &'a [Stmt],
    assigns: &mut Vec<(&'a str, &'a Expr)>,
    tuples: &mut Vec<&'a ast::ExprTuple>,
    depth: usize,
) {
    if depth > MAX_GETTER_DEPTH {
        return;
    }
    for s in body {
        match s {
            Stmt::Assign(a) => {
                if let [Expr::Name(t)] = &*a.targets {
                    assigns.push((t.id.as_str(), &a.value));
                }
            }
            Stmt::Return(r) => {
                if let Some(Expr::Tuple(t)) = r.value.as_deref() {
                    tuples.push(t);
                }
            }
            // `for distribution_name in _candidate_distribution_names(pkg_name):`
            // (transformers 5.17).
            Stmt::For(f) => {
                if let Expr::Name(t) = &*f.target {
                    assigns.push((t.id.as_str(), &f.iter));
                }
            }
            _ => {}
        }
        for nested in apicompat_extract::nesting::nested_bodies(s) {
            collect_getter_parts(nested, assigns, tuples, depth + 1);
        }
    }
}

/// The position of the parameter whose installed version `e` is
/// (`importlib.metadata.version(name)`, through any version parser; `name` one of `derived`).
fn installed_param(e: &Expr, derived: &[(&str, usize)]) -> Option<usize> {
    let mut e = e;
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
            return derived
                .iter()
                .find(|(d, _)| *d == p.id.as_str())
                .map(|(_, i)| *i);
        }
        if !VERSION_PARSERS.contains(&last_segment(&name)) {
            return None;
        }
        e = arg;
    }
    None
}
