//! Version helpers with optional bounds (verl's `verl/utils/transformers_compat.py`):
//!
//! ```python
//! def is_transformers_version_in_range(min_version=None, max_version=None) -> bool:
//!     try:
//!         transformers_version_str = importlib.metadata.version("transformers")
//!     except importlib.metadata.PackageNotFoundError as e:
//!         raise ModuleNotFoundError("...") from e
//!     transformers_version = version.parse(transformers_version_str)
//!     lower_bound_check = True
//!     if min_version is not None:
//!         lower_bound_check = version.parse(min_version) <= transformers_version
//!     upper_bound_check = True
//!     if max_version is not None:
//!         upper_bound_check = transformers_version <= version.parse(max_version)
//!     return lower_bound_check and upper_bound_check
//! ```
//!
//! A call stands for every bound it gives (`in_range(min_version="4.52.0")`: the version
//! `>= 4.52.0`). Recognised by shape: names assigned a package's version (directly or through
//! a version parser of such a name, in the body or its `try`), then `if P is not None: F = V
//! op parse(P)` for parameters `P`, and `return` of those `F` joined by `and`.

use apicompat_hash::HashMap;

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::conditions::{positional_names, version_param_of};
use super::*;

impl<'a> Walker<'a> {
    /// A helper with bounds (see the module doc), from a function's body (docstring removed).
    pub(super) fn range_helper(
        &self,
        params: &ast::Parameters,
        body: &[Stmt],
    ) -> Option<VersionHelper> {
        let Some(Stmt::Return(ret)) = body.last() else {
            return None;
        };
        let returned = returned_names(ret.value.as_deref()?)?;
        let versions = self.version_names(body);
        let positional = positional_names(params);
        let mut root: Option<String> = None;
        let mut bounds: Vec<(usize, String, Op)> = Vec::new();
        let mut flags: Vec<&str> = Vec::new();
        for stmt in body {
            let Stmt::If(i) = stmt else {
                continue;
            };
            let Some(param) = is_not_none(&i.test) else {
                continue;
            };
            let ([Stmt::Assign(a)], true) = (&*i.body, i.elif_else_clauses.is_empty()) else {
                continue;
            };
            let ([Expr::Name(flag)], Expr::Compare(c)) = (&*a.targets, &*a.value) else {
                continue;
            };
            let ([op], [right]) = (&*c.ops, &*c.comparators) else {
                continue;
            };
            let op = op_of(*op)?;
            let Some((r, op, p)) = self.param_bound(&c.left, op, right, params, &versions) else {
                continue;
            };
            if p != param || root.as_ref().is_some_and(|x| *x != r) {
                return None;
            }
            let position = positional.iter().position(|n| *n == p)?;
            root = Some(r);
            bounds.push((position, p, op));
            flags.push(flag.id.as_str());
        }
        // What is returned is those tests, joined by `and`.
        if bounds.is_empty() || returned.iter().any(|n| !flags.contains(n)) {
            return None;
        }
        with_bounds(root?, bounds)
    }

    /// A helper whose result compares the version with two (or more) parameters at once:
    /// `return parse(lo) <= parse(v) <= parse(hi)` after `v =
    /// importlib.metadata.version("transformers")`, or `return V >= parse(lo) and V <
    /// parse(hi)` (TinyZero's `is_transformers_version_in_range(min_version, max_version)`).
    /// A call stands for every bound it gives, as for [`Walker::range_helper`].
    pub(super) fn chained_range_helper(
        &self,
        params: &ast::Parameters,
        body: &[Stmt],
    ) -> Option<VersionHelper> {
        let Some((Stmt::Return(ret), before)) = body.split_last() else {
            return None;
        };
        let versions = self.version_names(before);
        let compares: Vec<&ast::ExprCompare> = match ret.value.as_deref()? {
            Expr::Compare(c) if c.ops.len() >= 2 => vec![c],
            Expr::BoolOp(b) if b.op == ast::BoolOp::And => b
                .values
                .iter()
                .map(|v| match v {
                    Expr::Compare(c) => Some(c),
                    _ => None,
                })
                .collect::<Option<_>>()?,
            _ => return None,
        };
        let positional = positional_names(params);
        let mut root: Option<String> = None;
        let mut bounds: Vec<(usize, String, Op)> = Vec::new();
        for c in compares {
            let mut left: &Expr = &c.left;
            for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
                let (r, op, p) = self.param_bound(left, op_of(*op)?, right, params, &versions)?;
                if root.get_or_insert_with(|| r.clone()) != &r {
                    return None;
                }
                let position = positional.iter().position(|n| *n == p)?;
                bounds.push((position, p, op));
                left = right;
            }
        }
        if bounds.len() < 2 {
            return None;
        }
        with_bounds(root?, bounds)
    }

    /// `V op parse(P)` or `parse(P) op V`, `V` the version of a package (through `versions`) and
    /// `P` a parameter: the package, the comparison with the version on the left, and `P`.
    fn param_bound(
        &self,
        left: &Expr,
        op: Op,
        right: &Expr,
        params: &ast::Parameters,
        versions: &HashMap<&str, String>,
    ) -> Option<(String, Op, String)> {
        if let (Some(r), Some(p)) = (
            self.root_of(left, versions, 0),
            version_param_of(params, right),
        ) {
            return Some((r, op, p));
        }
        let p = version_param_of(params, left)?;
        Some((self.root_of(right, versions, 0)?, op.flipped(), p))
    }

    /// Names `body` binds to a package's version (name -> package), in its statements and
    /// the bodies of its `try` statements.
    fn version_names<'b>(&self, body: &'b [Stmt]) -> HashMap<&'b str, String> {
        let mut versions: HashMap<&str, String> = HashMap::default();
        let mut assigns: Vec<&ast::StmtAssign> = Vec::new();
        for stmt in body {
            match stmt {
                Stmt::Assign(a) => assigns.push(a),
                Stmt::Try(t) => assigns.extend(t.body.iter().filter_map(|s| match s {
                    Stmt::Assign(a) => Some(a),
                    _ => None,
                })),
                _ => {}
            }
        }
        for a in assigns {
            if let [Expr::Name(t)] = &*a.targets {
                if let Some(root) = self.root_of(&a.value, &versions, 0) {
                    versions.insert(t.id.as_str(), root);
                }
            }
        }
        versions
    }

    /// The package whose version `e` is: a name of `versions`, a version parser of one, or
    /// what [`Walker::version_root`] recognises.
    fn root_of(&self, e: &Expr, versions: &HashMap<&str, String>, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        match e {
            Expr::Name(n) => versions.get(n.id.as_str()).cloned(),
            Expr::Call(call) => {
                let name = dotted(&call.func)?;
                if VERSION_PARSERS.contains(&last_segment(&name)) {
                    if let [arg] = &*call.arguments.args {
                        if let Some(r) = self.root_of(arg, versions, depth + 1) {
                            return Some(r);
                        }
                    }
                }
                self.version_root(e, 0)
            }
            _ => self.version_root(e, 0),
        }
    }
}

/// `P is not None` (or `None is not P`): `P`.
fn is_not_none(test: &Expr) -> Option<String> {
    let Expr::Compare(c) = test else {
        return None;
    };
    let ([ast::CmpOp::IsNot], [right]) = (&*c.ops, &*c.comparators) else {
        return None;
    };
    match (&*c.left, right) {
        (Expr::Name(n), r) if r.is_none_literal_expr() => Some(n.id.to_string()),
        (l, Expr::Name(n)) if l.is_none_literal_expr() => Some(n.id.to_string()),
        _ => None,
    }
}

/// The names `return a and b` returns (`return a`: one).
fn returned_names(e: &Expr) -> Option<Vec<&str>> {
    match e {
        Expr::Name(n) => Some(vec![n.id.as_str()]),
        Expr::BoolOp(b) if b.op == ast::BoolOp::And => b
            .values
            .iter()
            .map(|v| match v {
                Expr::Name(n) => Some(n.id.as_str()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// The helper of a package's version with these bounds (position, parameter, comparison).
fn with_bounds(root: String, bounds: Vec<(usize, String, Op)>) -> Option<VersionHelper> {
    let (position, param, _) = bounds.first()?.clone();
    Some(VersionHelper {
        bounds,
        spec: false,
        ..VersionHelper::comparison(root, Op::Eq, param, position)
    })
}
