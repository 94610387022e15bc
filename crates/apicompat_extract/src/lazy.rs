//! A module that replaces itself in `sys.modules` with a lazy module built from a table of
//! names it writes out.
//!
//! transformers 4.30 - 4.50 and diffusers (`__init__.py`, and each model's package):
//!
//! ```python
//! _import_structure = {"models.albert": ["AlbertConfig"], "utils": ["is_torch_available"]}
//! try:
//!     if not is_torch_available():
//!         raise OptionalDependencyNotAvailable()
//! except OptionalDependencyNotAvailable:
//!     from .utils import dummy_pt_objects
//!     _import_structure["utils.dummy_pt_objects"] = [
//!         name for name in dir(dummy_pt_objects) if not name.startswith("_")
//!     ]
//! else:
//!     _import_structure["models.albert"].extend(["AlbertModel"])
//! ...
//! sys.modules[__name__] = _LazyModule(__name__, globals()["__file__"], _import_structure,
//!                                     module_spec=__spec__, extra_objects={"__version__": v})
//! ```
//!
//! The lazy module answers the names the table lists (each from the submodule its key names,
//! relative to the module), the submodules, and `extra_objects`, and raises `AttributeError`
//! for any other name. Where every statement of the module body that touches the table is
//! one of the forms read here (a dict literal of string lists, `T["k"] = [...]`,
//! `T["k"].extend([...])`, `T["k"].append("n")`, `T["k"] += [...]`, and `[n for n in dir(m)
//! ...]`, which lists the public names of module `m` like a star import), the module is
//! closed: those names present (the branches of a `try` taken together), every other name
//! absent. The module's own star imports are not its names then (the lazy module replaced
//! it; transformers 4.30's `if TYPE_CHECKING:` block star-imports a module that does not
//! exist, which would open it). Otherwise (a computed key or value, `T.update(...)`, a table built by a call) the
//! module stays open, as any module that replaces itself. Functions that would change the
//! table when called are not followed.

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::consts;
use std::collections::HashMap;

/// Statements nested deeper than this make the table unreadable.
const MAX_DEPTH: usize = 64;
/// Names a table may list.
const MAX_NAMES: usize = 100_000;

/// What a readable table lists.
#[derive(Debug, Default)]
pub(crate) struct Lazy {
    /// `(name, module)`: the name is module's.
    pub names: Vec<(String, String)>,
    /// Modules whose public names it lists.
    pub stars: Vec<String>,
    /// `extra_objects` keys.
    pub extra: Vec<String>,
}

/// The table the module body registers itself with, when it is readable.
pub(crate) fn read(
    suite: &[Stmt],
    module: &str,
    imports: &HashMap<&str, Option<String>>,
) -> Option<Lazy> {
    let mut statements = Vec::new();
    flatten(suite, &mut statements, 0)?;
    let registrations: Vec<&ast::ExprCall> =
        statements.iter().filter_map(|s| registration(s)).collect();
    let [call] = registrations[..] else {
        return None;
    };
    let table = call
        .arguments
        .args
        .iter()
        .chain(call.arguments.keywords.iter().map(|k| &k.value))
        .filter_map(|a| match a {
            Expr::Name(n) => Some(n.id.as_str()),
            _ => None,
        })
        .find(|t| {
            statements.iter().any(|s| {
                matches!(s, Stmt::Assign(a) if matches!(&a.targets[..], [Expr::Name(n)] if n.id.as_str() == *t)
                    && matches!(&*a.value, Expr::Dict(_)))
            })
        })?;
    let mut out = Lazy::default();
    if let Some(k) = call.arguments.find_keyword("extra_objects") {
        let Expr::Dict(d) = &k.value else {
            return None;
        };
        for item in &d.items {
            out.extra.push(string(item.key.as_ref()?)?);
        }
    }
    let module_of = |key: &str| format!("{module}.{key}");
    let mut assigned = false;
    for s in statements {
        if registration(s).is_some() || !mentions(s, table) {
            continue;
        }
        match s {
            // Its test only reads the table (its branches are statements of their own).
            Stmt::If(_) => continue,
            Stmt::Assign(a) => match &a.targets[..] {
                [Expr::Name(n)] if n.id.as_str() == table => {
                    let Expr::Dict(d) = &*a.value else {
                        return None;
                    };
                    if assigned {
                        return None;
                    }
                    assigned = true;
                    for item in &d.items {
                        let key = string(item.key.as_ref()?)?;
                        names(&item.value, &module_of(&key), module, imports, &mut out)?;
                    }
                }
                [target] => {
                    let key = entry(target, table)?;
                    names(&a.value, &module_of(&key), module, imports, &mut out)?;
                }
                _ => return None,
            },
            Stmt::AugAssign(a) if a.op == ast::Operator::Add => {
                let key = entry(&a.target, table)?;
                names(&a.value, &module_of(&key), module, imports, &mut out)?;
            }
            Stmt::Expr(e) => {
                let Expr::Call(c) = &*e.value else {
                    return None;
                };
                let Expr::Attribute(m) = &*c.func else {
                    return None;
                };
                let key = entry(&m.value, table)?;
                let ([arg], true) = (&c.arguments.args[..], c.arguments.keywords.is_empty()) else {
                    return None;
                };
                match m.attr.as_str() {
                    "extend" => names(arg, &module_of(&key), module, imports, &mut out)?,
                    "append" => out.names.push((string(arg)?, module_of(&key))),
                    _ => return None,
                }
            }
            _ => return None,
        }
        if out.names.len() > MAX_NAMES {
            return None;
        }
    }
    assigned.then_some(out)
}

/// The module-level statements, through `if`, `try` and `with` blocks (not into functions or
/// classes).
fn flatten<'s>(body: &'s [Stmt], out: &mut Vec<&'s Stmt>, depth: usize) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    let d = depth + 1;
    for s in body {
        match s {
            Stmt::If(i) => {
                out.push(s);
                flatten(&i.body, out, d)?;
                for c in &i.elif_else_clauses {
                    flatten(&c.body, out, d)?;
                }
            }
            Stmt::Try(t) => {
                flatten(&t.body, out, d)?;
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    flatten(&h.body, out, d)?;
                }
                flatten(&t.orelse, out, d)?;
                flatten(&t.finalbody, out, d)?;
            }
            Stmt::With(w) => flatten(&w.body, out, d)?,
            _ => out.push(s),
        }
    }
    Some(())
}

/// `sys.modules[__name__] = <call>`: the call.
fn registration(s: &Stmt) -> Option<&ast::ExprCall> {
    let Stmt::Assign(a) = s else { return None };
    let [Expr::Subscript(sub)] = &a.targets[..] else {
        return None;
    };
    if consts::dotted(&sub.value).as_deref() != Some("sys.modules")
        || !crate::facts::is_dunder_name(&sub.slice)
    {
        return None;
    }
    match &*a.value {
        Expr::Call(c) => Some(c),
        _ => None,
    }
}

/// `T["key"]`: the key.
fn entry(e: &Expr, table: &str) -> Option<String> {
    let Expr::Subscript(s) = e else { return None };
    match &*s.value {
        Expr::Name(n) if n.id.as_str() == table => string(&s.slice),
        _ => None,
    }
}

fn string(e: &Expr) -> Option<String> {
    match e {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

/// The names a list value gives the module of `key`: string literals, or the public names of
/// a module (`[n for n in dir(m) if ...]`).
fn names(
    value: &Expr,
    key_module: &str,
    module: &str,
    imports: &HashMap<&str, Option<String>>,
    out: &mut Lazy,
) -> Option<()> {
    let elts = match value {
        Expr::List(l) => &l.elts,
        Expr::Tuple(t) => &t.elts,
        Expr::ListComp(c) => {
            let [g] = &c.generators[..] else { return None };
            let Expr::Call(call) = &g.iter else {
                return None;
            };
            let ([Expr::Name(m)], Expr::Name(f)) = (&call.arguments.args[..], &*call.func) else {
                return None;
            };
            if f.id.as_str() != "dir" || !matches!(&*c.elt, Expr::Name(_)) {
                return None;
            }
            let listed = imports.get(m.id.as_str())?.clone()?;
            // A module of this package: its names are listed like a star import's.
            if !listed.starts_with(&format!("{module}.")) {
                return None;
            }
            out.stars.push(listed);
            return Some(());
        }
        _ => return None,
    };
    for e in elts {
        out.names.push((string(e)?, key_module.to_string()));
    }
    Some(())
}

/// Whether a statement reads or writes the name `table`.
fn mentions(s: &Stmt, table: &str) -> bool {
    struct Finder<'a> {
        table: &'a str,
        found: bool,
    }
    impl<'a> Visitor<'a> for Finder<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if self.found {
                return;
            }
            if matches!(e, Expr::Name(n) if n.id.as_str() == self.table) {
                self.found = true;
                return;
            }
            visitor::walk_expr(self, e);
        }
        fn visit_stmt(&mut self, s: &'a Stmt) {
            // Functions and classes are not followed.
            if !matches!(s, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                visitor::walk_stmt(self, s);
            }
        }
    }
    let mut f = Finder {
        table,
        found: false,
    };
    match s {
        // The branches of a module-level `if` are statements of their own (`flatten`); those
        // of a loop are not, and are read whole.
        Stmt::If(i) => f.visit_expr(&i.test),
        s => f.visit_stmt(s),
    }
    f.found
}
