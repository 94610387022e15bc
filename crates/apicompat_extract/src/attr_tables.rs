//! Tables of names with messages that a module `__getattr__` looks names up in: numpy's
//! `__deprecated_attrs__` (`{name: (value, message)}`, answered with a `DeprecationWarning`),
//! `__former_attrs__` and `__expired_attributes__` (`{name: message}`, raised as the
//! `AttributeError`). Built by dict literals, dict comprehensions over lists of tuples,
//! `.update(...)` and `T["name"] = ...` at module level; messages by string constants,
//! `str.format` and f-strings over them.

use std::collections::HashMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, CmpOp, Expr, Stmt};

use crate::consts::{self, Const, Env};

/// A table: each name with its message, when the message can be read.
pub type Table = Vec<(String, Option<String>)>;

/// At most this many rows in one table or list.
const MAX_ROWS: usize = 4096;

/// How a module `__getattr__` uses a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableUse {
    /// Its names are answered with a deprecation warning (the table's message).
    Deprecated,
    /// Its names raise `AttributeError` (the message is the migration note).
    Removed,
}

/// Module-level tables and lists of tuples, as the module body builds them.
#[derive(Debug, Clone, Default)]
pub struct Tables {
    pub tables: HashMap<String, Table>,
    rows: HashMap<String, Vec<Vec<Option<String>>>>,
}

impl Tables {
    /// `name = value` at module level.
    pub fn assign(&mut self, name: &str, value: &Expr, env: &Env) {
        self.tables.remove(name);
        self.rows.remove(name);
        if let Some(t) = self.table(value, env) {
            self.tables.insert(name.to_string(), t);
        } else if let Some(r) = rows(value, env) {
            self.rows.insert(name.to_string(), r);
        }
    }

    /// `T.update({...})` as a statement.
    pub fn call(&mut self, call: &ast::ExprCall, env: &Env) {
        let Expr::Attribute(a) = &*call.func else {
            return;
        };
        let Expr::Name(n) = &*a.value else {
            return;
        };
        if a.attr.as_str() != "update" || !self.tables.contains_key(n.id.as_str()) {
            return;
        }
        let more = match call.arguments.args.as_ref() {
            [arg] => self.table(arg, env),
            _ => None,
        };
        match more {
            Some(more) => self.extend(n.id.as_str(), more),
            None => {
                self.tables.remove(n.id.as_str());
            }
        }
    }

    /// `T["name"] = value`.
    pub fn set_item(&mut self, target: &ast::ExprSubscript, value: &Expr, env: &Env) {
        let Expr::Name(n) = &*target.value else {
            return;
        };
        if !self.tables.contains_key(n.id.as_str()) {
            return;
        }
        match consts::string(&target.slice, env) {
            Some(key) => self.extend(n.id.as_str(), vec![(key, message(value, env))]),
            None => {
                self.tables.remove(n.id.as_str());
            }
        }
    }

    fn extend(&mut self, name: &str, more: Table) {
        if let Some(t) = self.tables.get_mut(name) {
            for (k, m) in more {
                t.retain(|(old, _)| old != &k);
                if t.len() < MAX_ROWS {
                    t.push((k, m));
                }
            }
        }
    }

    /// A dict literal with constant keys, or a comprehension over a list of this module.
    fn table(&self, value: &Expr, env: &Env) -> Option<Table> {
        match value {
            Expr::Dict(d) => {
                let mut out = Vec::new();
                for item in &d.items {
                    let key = consts::string(item.key.as_ref()?, env)?;
                    out.push((key, message(&item.value, env)));
                }
                Some(out)
            }
            Expr::DictComp(c) => {
                let [generator] = c.generators.as_slice() else {
                    return None;
                };
                if !generator.ifs.is_empty() {
                    return None;
                }
                let names: Vec<&str> = match &generator.target {
                    Expr::Name(n) => vec![n.id.as_str()],
                    Expr::Tuple(t) => t
                        .elts
                        .iter()
                        .map(|e| match e {
                            Expr::Name(n) => Some(n.id.as_str()),
                            _ => None,
                        })
                        .collect::<Option<_>>()?,
                    _ => return None,
                };
                let items = match &generator.iter {
                    Expr::Name(n) => self.rows.get(n.id.as_str()).cloned(),
                    e => rows(e, env),
                }?;
                let mut out = Vec::new();
                for row in items.iter().take(MAX_ROWS) {
                    let mut local = env.clone();
                    if names.len() == 1 && row.len() == 1 {
                        bind(&mut local, names[0], row[0].as_ref());
                    } else if names.len() == row.len() {
                        for (n, v) in names.iter().zip(row) {
                            bind(&mut local, n, v.as_ref());
                        }
                    } else {
                        return None;
                    }
                    let key = consts::string(c.key.as_deref()?, &local)?;
                    out.push((key, message(&c.value, &local)));
                }
                Some(out)
            }
            _ => None,
        }
    }
}

fn bind(env: &mut Env, name: &str, value: Option<&String>) {
    match value {
        Some(v) => env.insert(name.to_string(), Const::Str(vec![v.clone()])),
        None => env.remove(name),
    };
}

/// A list or tuple of strings or of tuples (`[("float", msg), ...]`): each row's string
/// items, `None` for an item that is not a string.
fn rows(value: &Expr, env: &Env) -> Option<Vec<Vec<Option<String>>>> {
    let elts = match value {
        Expr::List(l) => &l.elts,
        Expr::Tuple(t) => &t.elts,
        _ => return None,
    };
    if elts.len() > MAX_ROWS {
        return None;
    }
    elts.iter()
        .map(|e| match e {
            Expr::Tuple(t) => Some(t.elts.iter().map(|x| text(x, env)).collect()),
            e => Some(vec![Some(text(e, env)?)]),
        })
        .collect()
}

/// A table value's message: the string, or the last item of a `(value, message)` tuple.
fn message(value: &Expr, env: &Env) -> Option<String> {
    match value {
        Expr::Tuple(t) => text(t.elts.last()?, env),
        e => text(e, env),
    }
}

/// A string constant, with `"...".format(...)` over constants.
pub fn text(e: &Expr, env: &Env) -> Option<String> {
    if let Expr::Call(c) = e {
        if let Expr::Attribute(a) = &*c.func {
            if a.attr.as_str() == "format" {
                let template = text(&a.value, env)?;
                let args: Vec<String> = c
                    .arguments
                    .args
                    .iter()
                    .map(|x| text(x, env))
                    .collect::<Option<_>>()?;
                let mut kwargs = Vec::new();
                for k in c.arguments.keywords.iter() {
                    kwargs.push((k.arg.as_ref()?.as_str(), text(&k.value, env)?));
                }
                return format(&template, &args, &kwargs);
            }
        }
    }
    consts::string(e, env)
}

/// `str.format` for plain fields (`{}`, `{0}`, `{name}`, `{{`); `None` for format specs.
fn format(template: &str, args: &[String], kwargs: &[(&str, String)]) -> Option<String> {
    let mut out = String::new();
    let mut next = 0usize;
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let mut field = String::new();
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                    field.push(c);
                }
                let value = if field.is_empty() {
                    next += 1;
                    args.get(next - 1)?
                } else if let Ok(i) = field.parse::<usize>() {
                    args.get(i)?
                } else {
                    &kwargs.iter().find(|(k, _)| *k == field)?.1
                };
                out.push_str(value);
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// The tables a module `__getattr__(param)` uses, read from its top-level statements:
/// `if param in T:` whose body raises and never returns (removed names); `try: T[param]`
/// with an `else:` that warns and returns, or `if param in T:` that warns and returns
/// (deprecated names).
pub fn getattr_tables(f: &ast::StmtFunctionDef) -> Vec<(String, TableUse)> {
    let Some(param) = crate::consts::positional_names(&f.parameters)
        .first()
        .map(|p| p.to_string())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for stmt in &f.body {
        match stmt {
            Stmt::If(i) => {
                let Some(table) = in_table(&i.test, &param) else {
                    continue;
                };
                if raise_only(&i.body) {
                    out.push((table, TableUse::Removed));
                } else if warns(&i.body) && returns(&i.body) {
                    out.push((table, TableUse::Deprecated));
                }
            }
            Stmt::Try(t) => {
                let Some(table) = t.body.iter().find_map(|s| subscript_table(s, &param)) else {
                    continue;
                };
                if warns(&t.orelse) && returns(&t.orelse) {
                    out.push((table, TableUse::Deprecated));
                }
            }
            _ => {}
        }
    }
    out
}

/// `param in T`: `T`.
fn in_table(test: &Expr, param: &str) -> Option<String> {
    let Expr::Compare(c) = test else {
        return None;
    };
    match (&*c.left, c.ops.as_ref(), c.comparators.as_ref()) {
        (Expr::Name(l), [CmpOp::In], [Expr::Name(t)]) if l.id.as_str() == param => {
            Some(t.id.to_string())
        }
        _ => None,
    }
}

/// `x = T[param]` / `a, b = T[param]`: `T`.
fn subscript_table(stmt: &Stmt, param: &str) -> Option<String> {
    let Stmt::Assign(a) = stmt else {
        return None;
    };
    match &*a.value {
        Expr::Subscript(s) => match (&*s.value, &*s.slice) {
            (Expr::Name(t), Expr::Name(p)) if p.id.as_str() == param => Some(t.id.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// A body that ends in `raise` and never returns.
pub fn raise_only(body: &[Stmt]) -> bool {
    matches!(body.last(), Some(Stmt::Raise(_))) && !returns(body)
}

/// A `return` anywhere in a body, outside nested functions and classes.
pub fn returns(body: &[Stmt]) -> bool {
    struct Finder(bool);
    impl<'a> Visitor<'a> for Finder {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::Return(_) => self.0 = true,
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
                s => visitor::walk_stmt(self, s),
            }
        }
    }
    let mut f = Finder(false);
    body.iter().for_each(|s| f.visit_stmt(s));
    f.0
}

/// A call of `warn`/`warnings.warn` in a body.
fn warns(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Expr(e) => matches!(&*e.value, Expr::Call(c)
            if consts::last_name(&c.func) == Some("warn")),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(src: &str) -> (Tables, Vec<(String, TableUse)>) {
        let parsed = ruff_python_parser::parse_module(src).expect("parses");
        let mut tables = Tables::default();
        let mut env = Env::new();
        let mut uses = Vec::new();
        for stmt in parsed.suite() {
            match stmt {
                Stmt::Assign(a) => {
                    if let Expr::Name(n) = &a.targets[0] {
                        tables.assign(n.id.as_str(), &a.value, &env);
                        if let Some(c) = consts::eval(&a.value, &env) {
                            env.insert(n.id.to_string(), c);
                        }
                    } else if let Expr::Subscript(s) = &a.targets[0] {
                        tables.set_item(s, &a.value, &env);
                    }
                }
                Stmt::Expr(e) => {
                    if let Expr::Call(c) = &*e.value {
                        tables.call(c, &env);
                    }
                }
                Stmt::FunctionDef(f) => uses = getattr_tables(f),
                _ => {}
            }
        }
        (tables, uses)
    }

    #[test]
    fn numpy_tables_and_their_getattr() {
        // numpy 1.25's __init__.py, shortened.
        let src = r#"
__deprecated_attrs__ = {}
_msg = (
    "module 'numpy' has no attribute '{n}'.\n"
    "`np.{n}` was a deprecated alias for the builtin `{n}`. {extended_msg}")
_specific_msg = "If you specifically wanted the numpy scalar type, use `np.{}` here."
_type_info = [
    ("object", ""),
    ("float", _specific_msg.format("float64")),
]
__former_attrs__ = {
     n: _msg.format(n=n, extended_msg=extended_msg)
     for n, extended_msg in _type_info
}
_msg = "`np.{n}` is a deprecated alias for `{an}`.  (Deprecated NumPy 1.24)"
_type_info = [("bool8", bool_, "np.bool_"), ("int0", intp, "np.intp")]
__deprecated_attrs__.update({
    n: (alias, _msg.format(n=n, an=an)) for n, alias, an in _type_info})
__deprecated_attrs__["typeDict"] = (core.typeDict, "`np.typeDict` is a deprecated alias.")
def __getattr__(attr):
    import warnings
    try:
        val, msg = __deprecated_attrs__[attr]
    except KeyError:
        pass
    else:
        warnings.warn(msg, DeprecationWarning, stacklevel=2)
        return val
    if attr in __former_attrs__:
        raise AttributeError(__former_attrs__[attr])
    if attr in __future_scalars__:
        warnings.warn("future", FutureWarning, stacklevel=2)
    raise AttributeError(attr)
"#;
        let (tables, uses) = module(src);
        assert_eq!(
            uses,
            vec![
                ("__deprecated_attrs__".to_string(), TableUse::Deprecated),
                ("__former_attrs__".to_string(), TableUse::Removed)
            ]
        );
        let former = &tables.tables["__former_attrs__"];
        assert_eq!(former.len(), 2);
        assert_eq!(
            former[1],
            (
                "float".to_string(),
                Some("module 'numpy' has no attribute 'float'.\n`np.float` was a deprecated alias for the builtin `float`. If you specifically wanted the numpy scalar type, use `np.float64` here.".to_string())
            )
        );
        let deprecated = &tables.tables["__deprecated_attrs__"];
        assert_eq!(
            deprecated
                .iter()
                .map(|(k, m)| format!("{k}: {}", m.as_deref().unwrap_or("-")))
                .collect::<Vec<_>>(),
            vec![
                "bool8: `np.bool8` is a deprecated alias for `np.bool_`.  (Deprecated NumPy 1.24)",
                "int0: `np.int0` is a deprecated alias for `np.intp`.  (Deprecated NumPy 1.24)",
                "typeDict: `np.typeDict` is a deprecated alias.",
            ]
        );
    }

    #[test]
    fn unreadable_tables_are_dropped() {
        let (tables, _) = module("T = {}\nT.update(other)\nU = {k: 1 for k in compute()}\n");
        assert!(tables.tables.is_empty());
        assert_eq!(
            format("{0}{x}{{", &["a".into()], &[("x", "b".into())]),
            Some("ab{".into())
        );
        assert_eq!(format("{:>3}", &["a".into()], &[]), None);
    }
}
