//! Lists of another module's names that a module stores under `globals()` / `vars()`.
//!
//! torch's `torch/_numpy/_ufuncs.py` (2.1 on) builds
//! `_binary = [name for name in dir(_binary_ufuncs_impl) if not name.startswith("_") and
//! name not in ["torch", ...]]`, stores `vars()[name] = deco_binary_ufunc(...)` for each, and
//! sets `__all__ = _binary + _unary`; `torch/_numpy/_funcs.py` loops over
//! `itertools.chain(_public_functions(_funcs_impl), ...)`, where `_public_functions(mod)`
//! returns `inspect.getmembers(mod, is_public_function)` (functions whose name does not start
//! with `_`), stores `vars()[name] = decorated` and appends `name` to `__all__`. Those are the
//! ~480 names of `torch._numpy` a real import has.
//!
//! Rule: a loop `for name in L` / `for name, _ in L` at module level, whose body stores
//! `globals()[name]` or `vars()[name]`, binds the names `L` lists, when `L` is
//! - a comprehension `[n for n in dir(M) if C]`, `C` made of `not n.startswith("_")`,
//!   `n not in [...]`, `n != "..."` joined by `and`;
//! - `inspect.getmembers(M, pred)`, or a call of a module-level function of the file that
//!   returns `inspect.getmembers(param, pred)`, `pred` a function or lambda whose body tests
//!   only `isfunction` / `isclass` and `not x.startswith("_")` (anything else is not read);
//! - `itertools.chain(...)` of those, a module-level variable holding such a list, or `+` of
//!   lists and constants.
//!
//! The same lists in `__all__` (`__all__ = L + ...`, `__all__.append(name)` in the loop) are
//! exported. What the loop stores is a new object (a decorated function), so a name bound this
//! way is known to exist, not what it is (kind unknown).

use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::consts::{self, Env};

/// Which names of a module a copy takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Not starting with `_`.
    pub public_only: bool,
    /// Only functions of the module (`inspect.isfunction`).
    pub functions_only: bool,
    /// Only classes of the module (`inspect.isclass`).
    pub classes_only: bool,
    pub except: Vec<String>,
}

impl Filter {
    /// Whether a name passes the tests that need nothing but the name.
    pub fn admits_name(&self, name: &str) -> bool {
        let private = self.public_only && name.starts_with('_');
        !private && !self.except.iter().any(|e| e == name)
    }
}

/// Names of module `module` that a module takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copy {
    /// As written in the copying module (an alias is resolved by the caller).
    pub module: String,
    pub filter: Filter,
    /// The value stored is the other module's own object (`getattr(m, k)`): the copied name
    /// is that definition. Otherwise it exists with an unknown kind.
    pub exact: bool,
}

impl Copy {
    pub fn all(module: String) -> Copy {
        Copy {
            module,
            filter: Filter::default(),
            exact: true,
        }
    }
}

/// A list of names: copies of other modules' names and constants.
#[derive(Debug, Clone, Default)]
pub struct NameList {
    pub copies: Vec<Copy>,
    pub names: Vec<String>,
}

/// Module-level variables holding name lists.
pub type Lists = Vec<(String, NameList)>;

/// Module-level functions of a file that return `inspect.getmembers(param, pred)`, with the
/// filter `pred` stands for.
pub fn member_helpers(suite: &[Stmt]) -> Vec<(String, Filter)> {
    suite
        .iter()
        .filter_map(|stmt| {
            let Stmt::FunctionDef(f) = stmt else {
                return None;
            };
            let param = f.parameters.args.first()?.parameter.name.as_str();
            let Some(Stmt::Return(r)) = f.body.last() else {
                return None;
            };
            let Expr::Call(call) = r.value.as_deref()? else {
                return None;
            };
            let (module, pred) = getmembers_args(call)?;
            if !matches!(module, Expr::Name(n) if n.id.as_str() == param) {
                return None;
            }
            let filter = match pred {
                None => Filter::default(),
                Some(p) => predicate(p, &f.body)?,
            };
            Some((f.name.to_string(), filter))
        })
        .collect()
}

/// `inspect.getmembers(M[, pred])`: M and pred.
fn getmembers_args(call: &ast::ExprCall) -> Option<(&Expr, Option<&Expr>)> {
    if consts::last_name(&call.func) != Some("getmembers") {
        return None;
    }
    match call.arguments.args.as_ref() {
        [m] => Some((m, None)),
        [m, p] => Some((m, Some(p))),
        _ => None,
    }
}

/// The filter of a predicate: a function defined in `scope` or a lambda whose body is an
/// `and` of `isfunction(x)` / `isclass(x)` and `not <...>.startswith("_")`.
fn predicate(pred: &Expr, scope: &[Stmt]) -> Option<Filter> {
    if let Some(last) = consts::last_name(pred) {
        match last {
            "isfunction" => {
                return Some(Filter {
                    functions_only: true,
                    ..Filter::default()
                })
            }
            "isclass" => {
                return Some(Filter {
                    classes_only: true,
                    ..Filter::default()
                })
            }
            _ => {}
        }
    }
    let body: &Expr = match pred {
        Expr::Lambda(l) => &l.body,
        Expr::Name(n) => scope.iter().find_map(|s| match s {
            Stmt::FunctionDef(f) if f.name.as_str() == n.id.as_str() => match f.body.as_slice() {
                [Stmt::Return(r)] => r.value.as_deref(),
                _ => None,
            },
            _ => None,
        })?,
        _ => return None,
    };
    let mut filter = Filter::default();
    for test in conjuncts(body) {
        match test {
            Expr::Call(c) if consts::last_name(&c.func) == Some("isfunction") => {
                filter.functions_only = true
            }
            Expr::Call(c) if consts::last_name(&c.func) == Some("isclass") => {
                filter.classes_only = true
            }
            e if is_not_private_test(e) => filter.public_only = true,
            _ => return None,
        }
    }
    Some(filter)
}

/// The operands of an `and` (the expression itself otherwise).
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::BoolOp(b) if b.op == ast::BoolOp::And => b.values.iter().collect(),
        e => vec![e],
    }
}

/// `not <x>.startswith("_")`.
fn is_not_private_test(e: &Expr) -> bool {
    let Expr::UnaryOp(u) = e else { return false };
    if u.op != ast::UnaryOp::Not {
        return false;
    }
    let Expr::Call(c) = &*u.operand else {
        return false;
    };
    matches!(&*c.func, Expr::Attribute(a) if a.attr.as_str() == "startswith")
        && matches!(c.arguments.args.as_ref(), [Expr::StringLiteral(s)] if s.value.to_str() == "_")
}

/// The names a list expression holds.
pub fn list_of(e: &Expr, lists: &Lists, env: &Env) -> Option<NameList> {
    if let Some(names) = consts::strings(e, env) {
        return Some(NameList {
            copies: Vec::new(),
            names,
        });
    }
    match e {
        Expr::Name(n) => lists
            .iter()
            .rev()
            .find(|(v, _)| v == n.id.as_str())
            .map(|(_, l)| l.clone()),
        Expr::BinOp(b) if b.op == ast::Operator::Add => {
            let mut left = list_of(&b.left, lists, env)?;
            let right = list_of(&b.right, lists, env)?;
            left.copies.extend(right.copies);
            left.names.extend(right.names);
            Some(left)
        }
        Expr::ListComp(c) => comprehension(c),
        _ => None,
    }
}

/// `[n for n in dir(M) if C]`.
fn comprehension(c: &ast::ExprListComp) -> Option<NameList> {
    let [g] = c.generators.as_slice() else {
        return None;
    };
    let (Expr::Name(elt), Expr::Name(var)) = (&*c.elt, &g.target) else {
        return None;
    };
    if elt.id != var.id || g.is_async {
        return None;
    }
    let Expr::Call(call) = &g.iter else {
        return None;
    };
    let module = match (
        consts::dotted(&call.func).as_deref(),
        call.arguments.args.as_ref(),
    ) {
        (Some("dir"), [m]) => consts::dotted(m)?,
        _ => return None,
    };
    let mut filter = Filter::default();
    for cond in &g.ifs {
        for test in conjuncts(cond) {
            if is_not_private_test(test) {
                filter.public_only = true;
                continue;
            }
            let Expr::Compare(cmp) = test else {
                return None;
            };
            let ([op], [right]) = (cmp.ops.as_ref(), cmp.comparators.as_ref()) else {
                return None;
            };
            if !matches!(&*cmp.left, Expr::Name(n) if n.id == var.id) {
                return None;
            }
            let values = consts::strings(right, &Env::new())?;
            match op {
                ast::CmpOp::NotIn | ast::CmpOp::NotEq => filter.except.extend(values),
                _ => return None,
            }
        }
    }
    Some(NameList {
        copies: vec![Copy {
            module,
            filter,
            exact: false,
        }],
        names: Vec::new(),
    })
}

/// What a `for` loop's iterable yields as its first item: a list (see [`list_of`]),
/// `inspect.getmembers(M, pred)`, a member helper's call, or `itertools.chain` of those.
pub fn loop_names(
    iter: &Expr,
    lists: &Lists,
    helpers: &[(String, Filter)],
    env: &Env,
) -> Option<NameList> {
    if let Some(l) = list_of(iter, lists, env) {
        return Some(l);
    }
    let Expr::Call(call) = iter else {
        return None;
    };
    let callee = consts::dotted(&call.func)?;
    if callee == "itertools.chain" || callee == "chain" {
        let mut out = NameList::default();
        for arg in call.arguments.args.iter() {
            let l = loop_names(arg, lists, helpers, env)?;
            out.copies.extend(l.copies);
            out.names.extend(l.names);
        }
        return Some(out);
    }
    let copy = |module: &Expr, filter: Filter| {
        Some(NameList {
            copies: vec![Copy {
                module: consts::dotted(module)?,
                filter,
                exact: false,
            }],
            names: Vec::new(),
        })
    };
    if let Some((module, pred)) = getmembers_args(call) {
        let filter = match pred {
            None => Filter::default(),
            Some(p) => predicate(p, &[])?,
        };
        return copy(module, filter);
    }
    let (_, filter) = helpers.iter().find(|(h, _)| *h == callee)?;
    match call.arguments.args.as_ref() {
        [m] => copy(m, filter.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use apicompat_surface::Kind;

    use crate::tests::tree;

    /// torch 2.1's `torch/_numpy/_ufuncs.py` and `_funcs.py`, cut down.
    #[test]
    fn names_stored_from_lists_of_another_modules_names_are_bound_and_exported() {
        let ufuncs = "from . import _binary_impl\n\
            _binary = [\n    name\n    for name in dir(_binary_impl)\n    if not name.startswith(\"_\") and name not in [\"torch\", \"matmul\"]\n]\n\
            for name in _binary:\n    ufunc = getattr(_binary_impl, name)\n    vars()[name] = deco(ufunc)\n\
            def matmul(x, y):\n    pass\n\
            _binary = _binary + [\"matmul\"]\n\
            __all__ = _binary\n";
        let funcs = "import inspect\nimport itertools\nfrom . import _funcs_impl, _reductions_impl\n\
            def _public_functions(mod):\n    def is_public_function(f):\n        return inspect.isfunction(f) and not f.__name__.startswith(\"_\")\n\n    return inspect.getmembers(mod, is_public_function)\n\
            __all__ = []\n\
            for name, func in itertools.chain(_public_functions(_funcs_impl), _public_functions(_reductions_impl)):\n    vars()[name] = normalizer(func)\n    __all__.append(name)\n\
            __all__ += [\"s_\"]\ns_ = 1\n";
        let s = crate::extract(
            &tree(&[
                ("np/__init__.py", "from ._ufuncs import *\nfrom ._funcs import *\n"),
                (
                    "np/_binary_impl.py",
                    "import torch\nfrom torch import add\ndef hypot(x, y):\n    pass\ndef _private(x):\n    pass\n",
                ),
                ("np/_ufuncs.py", ufuncs),
                (
                    "np/_funcs_impl.py",
                    "import torch\nfrom typing import Optional\nArrayLike = object\ndef clip(a):\n    pass\ndef _helper():\n    pass\n",
                ),
                ("np/_reductions_impl.py", "def amax(a):\n    pass\n"),
                ("np/_funcs.py", funcs),
            ]),
            "np",
            "1.0",
        );
        let has = |p: &str| s.symbols.contains_key(p);
        for p in [
            "np._ufuncs.hypot",
            "np._ufuncs.add",
            "np.hypot",
            "np.add",
            "np.matmul",
        ] {
            assert!(has(p), "{p}");
        }
        // Excluded, private, or not a function of the module.
        for p in [
            "np._ufuncs._private",
            "np.torch",
            "np._private",
            "np._funcs.ArrayLike",
        ] {
            assert!(!has(p), "{p}");
        }
        for p in [
            "np._funcs.clip",
            "np._funcs.amax",
            "np.clip",
            "np.amax",
            "np.s_",
        ] {
            assert!(has(p), "{p}");
        }
        for p in [
            "np._funcs.Optional",
            "np._funcs._helper",
            "np.ArrayLike",
            "np.Optional",
        ] {
            assert!(!has(p), "{p}");
        }
        // A decorated copy: it exists, what it is is not known.
        assert_eq!(s.symbols["np._funcs.clip"].kind, Some(Kind::Unknown));
        // Closed: a name neither list has is missing, not unknown.
        assert!(!s.symbols["np._funcs"].open && !s.symbols["np"].open);
    }
}
