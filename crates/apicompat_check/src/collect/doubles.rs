//! Test doubles installed in `sys.modules`. A file that puts its own object under a module's
//! name decides itself what its imports of that name give:
//!
//! ```python
//! for name in ("transformers", "transformers.integrations"):
//!     sys.modules[name] = types.ModuleType(name)
//! tp = types.ModuleType("transformers.integrations.tensor_parallel")
//! sys.modules[tp.__name__] = tp
//! from transformers.integrations.tensor_parallel import EmbeddingParallel   # the stub's
//! ```
//!
//! Its uses of such a module, and of what is under it, are not judged against the package's
//! releases (anywhere in the file: doubles are installed in fixtures and used in tests).
//! Forms read: `sys.modules[KEY] = ...`, `sys.modules.update({KEY: ...})`,
//! `sys.modules.setdefault(KEY, ...)`, `monkeypatch.setitem(sys.modules, KEY, ...)`,
//! `patch.dict(sys.modules, {KEY: ...})` (also `"sys.modules"`); a KEY is a string, a name a
//! `for` loop binds to strings, or `X.__name__` of `X = ModuleType("...")`. A `None` put there
//! is no double: it makes the import fail (a test of the code's fallback), and the file's
//! other uses are of the real module (unsloth's `test_dataset_cache_safe.py` reads
//! `huggingface_hub.file_download` in the tests before the one that sets it to `None`).

use apicompat_hash::HashMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use super::dotted;

/// The module names the file installs doubles for.
pub(super) fn stubbed(suite: &[Stmt]) -> Vec<String> {
    let mut v = Doubles::default();
    v.visit_body(suite);
    let mut out: Vec<String> = Vec::new();
    for key in &v.keys {
        let names: Vec<String> = match key {
            Key::Literal(s) => vec![s.clone()],
            Key::Name(n) => v
                .loops
                .get(n)
                .cloned()
                .or_else(|| v.modules.get(n).map(|m| vec![m.clone()]))
                .unwrap_or_default(),
            Key::NameOf(n) => v
                .modules
                .get(n)
                .map(|m| vec![m.clone()])
                .unwrap_or_default(),
        };
        for n in names {
            if !n.is_empty() && !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// Whether `path` is `module` or under it.
pub(super) fn under(path: &str, module: &str) -> bool {
    path == module
        || path
            .strip_prefix(module)
            .is_some_and(|rest| rest.starts_with('.'))
}

enum Key {
    Literal(String),
    /// A variable: a loop's strings, or a module object's name.
    Name(String),
    /// `X.__name__`.
    NameOf(String),
}

#[derive(Default)]
struct Doubles {
    keys: Vec<Key>,
    /// Names `for` loops bind to string literals.
    loops: HashMap<String, Vec<String>>,
    /// Names bound to `ModuleType("...")`.
    modules: HashMap<String, String>,
}

/// A value that replaces the module (anything but `None`).
fn replaces(value: Option<&Expr>) -> bool {
    value.is_some_and(|v| !v.is_none_literal_expr())
}

fn string(e: &Expr) -> Option<String> {
    match e {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

fn is_sys_modules(e: &Expr) -> bool {
    dotted(e).is_some_and(|d| d == "sys.modules") || string(e).as_deref() == Some("sys.modules")
}

fn key(e: &Expr) -> Option<Key> {
    match e {
        Expr::StringLiteral(_) => string(e).map(Key::Literal),
        Expr::Name(n) => Some(Key::Name(n.id.to_string())),
        Expr::Attribute(a) if a.attr.as_str() == "__name__" => match &*a.value {
            Expr::Name(n) => Some(Key::NameOf(n.id.to_string())),
            _ => None,
        },
        _ => None,
    }
}

/// `ModuleType("name")` / `types.ModuleType("name")`.
fn module_type_name(e: &Expr) -> Option<String> {
    let Expr::Call(c) = e else { return None };
    let callee = dotted(&c.func)?;
    if callee != "ModuleType" && !callee.ends_with(".ModuleType") {
        return None;
    }
    c.arguments.args.first().and_then(string)
}

impl Doubles {
    fn dict_keys(&mut self, e: &Expr) {
        if let Expr::Dict(d) = e {
            for item in &d.items {
                if !replaces(Some(&item.value)) {
                    continue;
                }
                if let Some(k) = item.key.as_ref().and_then(key) {
                    self.keys.push(k);
                }
            }
        }
    }

    fn call(&mut self, c: &ast::ExprCall) {
        let args = &c.arguments.args;
        let Some(callee) = dotted(&c.func) else {
            return;
        };
        let method = callee.rsplit('.').next().unwrap_or(&callee);
        match method {
            // sys.modules.update({...}) / sys.modules.setdefault(KEY, ...)
            "update" | "setdefault" => {
                let Expr::Attribute(a) = &*c.func else { return };
                if !is_sys_modules(&a.value) {
                    return;
                }
                if method == "update" {
                    if let Some(d) = args.first() {
                        self.dict_keys(d);
                    }
                } else if let Some(k) = args.first().and_then(key).filter(|_| replaces(args.get(1)))
                {
                    self.keys.push(k);
                }
            }
            // monkeypatch.setitem(sys.modules, KEY, value)
            "setitem" if args.first().is_some_and(is_sys_modules) && replaces(args.get(2)) => {
                if let Some(k) = args.get(1).and_then(key) {
                    self.keys.push(k);
                }
            }
            // patch.dict(sys.modules, {...})
            "dict" if callee != "dict" && args.first().is_some_and(is_sys_modules) => {
                if let Some(d) = args.get(1) {
                    self.dict_keys(d);
                }
            }
            _ => {}
        }
    }
}

impl<'a> Visitor<'a> for Doubles {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Assign(a) => {
                for t in &a.targets {
                    if let Expr::Subscript(s) = t {
                        if is_sys_modules(&s.value) && replaces(Some(&a.value)) {
                            if let Some(k) = key(&s.slice) {
                                self.keys.push(k);
                            }
                        }
                    }
                    if let (Expr::Name(n), Some(m)) = (t, module_type_name(&a.value)) {
                        self.modules.insert(n.id.to_string(), m);
                    }
                }
            }
            Stmt::For(f) => {
                if let Expr::Name(n) = &*f.target {
                    let items = match &*f.iter {
                        Expr::Tuple(t) => Some(&t.elts),
                        Expr::List(l) => Some(&l.elts),
                        _ => None,
                    };
                    if let Some(items) = items {
                        let names: Vec<String> = items.iter().filter_map(string).collect();
                        if !names.is_empty() {
                            self.loops
                                .entry(n.id.to_string())
                                .or_default()
                                .extend(names);
                        }
                    }
                }
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(c) = expr {
            self.call(c);
        }
        visitor::walk_expr(self, expr);
    }
}
