//! The instance attributes a method binds on `self`: `self.x = ...`, `setattr(self, "x", ...)`,
//! and whether it also binds names its source cannot list.
//!
//! A method that sets attributes under names taken from data (`setattr(self, key, value)` for
//! the keys of `**kwargs`, `self.__dict__.update(d)`, `self.__dict__[key] = ...`,
//! `vars(self).update(d)`) gives its instances attributes no release lists: transformers'
//! `ProcessorMixin.__init__` sets `setattr(self, attribute_name, arg)` for the names of
//! `self.attributes`, `PretrainedConfig.__init__` every key of `**kwargs`. Such a class answers
//! the instance's own data beyond its members, like a `__getattr__` that reads
//! `self.__dict__` (`Openness::InstanceData`).
//!
//! A key is listed, not dynamic, when it is a constant (a literal, a module-level constant, the
//! variable of a loop over constants), names the instance already has (a loop over
//! `self.__dict__`, `vars(self)`, `dir(self)`, `dataclasses.fields(self)`), or is set only where
//! `hasattr(self, key)` holds (inside `if hasattr(self, key):`, or after
//! `if not hasattr(self, key): raise/continue/return`).

use std::collections::HashMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::consts::{self, Env};

/// Statements and expressions nested deeper than this inside one method are not read: the
/// method counts as setting names it cannot list.
const MAX_DEPTH: usize = 200;

/// Methods whose writes under computed names do not add names: attribute assignment itself,
/// deletion, unpickling (it restores what the instance had), and `__getattr__`, which
/// `crate::getattr` classifies.
const DATA_HOOKS: &[&str] = &[
    "__setattr__",
    "__delattr__",
    "__setstate__",
    "__getattr__",
    "__getattribute__",
];

/// What one method binds on its first parameter.
#[derive(Debug, Default)]
pub(crate) struct SelfAttrs {
    /// Names it binds.
    pub names: Vec<String>,
    /// It also binds names that cannot be listed.
    pub dynamic: bool,
}

/// What a loop variable takes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    /// One of these strings.
    Names(Vec<String>),
    /// A name the instance already has (or a field of it, read as `var.name`).
    Own,
}

/// The attributes method `f` binds on its first parameter; `env` holds its module's constants.
pub(crate) fn self_attributes(f: &ast::StmtFunctionDef, env: &Env) -> SelfAttrs {
    let Some(&first) = crate::consts::positional_names(&f.parameters).first() else {
        return SelfAttrs::default();
    };
    let mut scan = Scan {
        this: first,
        env,
        loops: HashMap::new(),
        guarded: Vec::new(),
        out: SelfAttrs::default(),
        depth: 0,
        classes: 0,
    };
    scan.visit_body(&f.body);
    let static_method = f
        .decorator_list
        .iter()
        .any(|d| consts::last_name(&d.expression) == Some("staticmethod"));
    if static_method || DATA_HOOKS.contains(&f.name.as_str()) {
        scan.out.dynamic = false;
    }
    scan.out
}

struct Scan<'n> {
    this: &'n str,
    env: &'n Env,
    loops: HashMap<String, Key>,
    /// Variables `k` for which `hasattr(self, k)` holds here.
    guarded: Vec<String>,
    out: SelfAttrs,
    depth: usize,
    /// Nested class bodies entered: their methods' `self` is another object.
    classes: usize,
}

impl Scan<'_> {
    fn is_this(&self, e: &Expr) -> bool {
        matches!(e, Expr::Name(n) if n.id.as_str() == self.this)
    }

    /// `f(self)` for a function whose last name is `name`.
    fn call_on_this(&self, e: &Expr, names: &[&str]) -> bool {
        match e {
            Expr::Call(c) => {
                consts::last_name(&c.func).is_some_and(|n| names.contains(&n))
                    && matches!(c.arguments.args.as_ref(), [a] if self.is_this(a))
                    && c.arguments.keywords.is_empty()
            }
            _ => false,
        }
    }

    /// `self.__dict__` or `vars(self)`.
    fn own_dict(&self, e: &Expr) -> bool {
        match e {
            Expr::Attribute(a) => a.attr.as_str() == "__dict__" && self.is_this(&a.value),
            _ => self.call_on_this(e, &["vars"]),
        }
    }

    /// An iterable of names the instance already has.
    fn own_names(&self, e: &Expr) -> bool {
        let e = match e {
            Expr::Call(c)
                if c.arguments.is_empty()
                    && matches!(&*c.func, Expr::Attribute(a) if matches!(a.attr.as_str(), "keys" | "items")) =>
            {
                match &*c.func {
                    Expr::Attribute(a) => &*a.value,
                    _ => return false,
                }
            }
            e => e,
        };
        self.own_dict(e)
            || self.call_on_this(e, &["dir", "fields"])
            || matches!(e, Expr::Attribute(a) if a.attr.as_str() == "__dataclass_fields__" && self.is_this(&a.value))
    }

    /// An attribute name set on `self`.
    fn key(&mut self, k: &Expr) {
        if self.classes > 0 {
            // Another class's instance: its literal names, as the enclosing class always had.
            self.out.names.extend(consts::string(k, &Env::new()));
            return;
        }
        match k {
            Expr::Name(n) => {
                let id = n.id.as_str();
                match self.loops.get(id) {
                    Some(Key::Names(v)) => {
                        let v = v.clone();
                        self.out.names.extend(v);
                        return;
                    }
                    Some(Key::Own) => return,
                    None if self.guarded.iter().any(|g| g == id) => return,
                    None => {}
                }
            }
            Expr::Attribute(a) if a.attr.as_str() == "name" => {
                if let Expr::Name(n) = &*a.value {
                    if self.loops.get(n.id.as_str()) == Some(&Key::Own) {
                        return;
                    }
                }
            }
            _ => {}
        }
        match consts::eval(k, self.env) {
            Some(c) => self.out.names.extend(c.into_items()),
            None => self.out.dynamic = true,
        }
    }

    /// `d.update(...)` on the instance's dict: a dict literal or keywords list their names.
    fn update(&mut self, c: &ast::ExprCall) {
        match c.arguments.args.as_ref() {
            [] => {}
            [Expr::Dict(d)] => {
                for item in &d.items {
                    match &item.key {
                        Some(k) => self.key(k),
                        None => self.out.dynamic = true,
                    }
                }
            }
            _ => self.out.dynamic = true,
        }
        for kw in c.arguments.keywords.iter() {
            match &kw.arg {
                Some(name) => self.out.names.push(name.to_string()),
                None => self.out.dynamic = true,
            }
        }
    }

    fn target(&mut self, t: &Expr) {
        match t {
            Expr::Attribute(a) if self.is_this(&a.value) => {
                self.out.names.push(a.attr.to_string());
            }
            Expr::Subscript(s) if self.own_dict(&s.value) => self.key(&s.slice),
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.target(e)),
            Expr::List(l) => l.elts.iter().for_each(|e| self.target(e)),
            Expr::Starred(s) => self.target(&s.value),
            _ => {}
        }
    }

    /// What the variable of `for target in iter` takes.
    fn bind_loop(&mut self, target: &Expr, iter: &Expr) {
        let key = if self.own_names(iter) {
            Some(Key::Own)
        } else {
            consts::strings(iter, self.env).map(Key::Names)
        };
        // `for k, v in d.items()`: the key is the first element.
        let var = match target {
            Expr::Name(n) => Some(n.id.as_str()),
            Expr::Tuple(t) if key == Some(Key::Own) => match t.elts.first() {
                Some(Expr::Name(n)) => Some(n.id.as_str()),
                _ => None,
            },
            _ => None,
        };
        if let Some(var) = var {
            match key {
                Some(k) => self.loops.insert(var.to_string(), k),
                None => self.loops.remove(var),
            };
        }
    }

    /// `k` when `test` is `hasattr(self, k)`, alone or in an `and`.
    fn hasattr_var(&self, test: &Expr) -> Option<String> {
        match test {
            Expr::Call(c) if consts::last_name(&c.func) == Some("hasattr") => {
                match c.arguments.args.as_ref() {
                    [obj, Expr::Name(k)] if self.is_this(obj) => Some(k.id.to_string()),
                    _ => None,
                }
            }
            Expr::BoolOp(b) if b.op == ast::BoolOp::And => {
                b.values.iter().find_map(|v| self.hasattr_var(v))
            }
            _ => None,
        }
    }

    /// `k` when `stmt` is `if not hasattr(self, k): ... raise/continue/return` with no else.
    fn exit_unless_hasattr(&self, stmt: &Stmt) -> Option<String> {
        let Stmt::If(i) = stmt else { return None };
        if !i.elif_else_clauses.is_empty() {
            return None;
        }
        let exits = matches!(
            i.body.last(),
            Some(Stmt::Raise(_) | Stmt::Continue(_) | Stmt::Return(_))
        );
        match &*i.test {
            Expr::UnaryOp(u) if exits && u.op == ast::UnaryOp::Not => self.hasattr_var(&u.operand),
            _ => None,
        }
    }

    /// A branch's body, with `hasattr(self, k)` known true there when its test says so.
    fn branch(&mut self, test: Option<&Expr>, body: &[Stmt]) {
        let guard = test.and_then(|t| self.hasattr_var(t));
        if let Some(t) = test {
            self.visit_expr(t);
        }
        let mark = self.guarded.len();
        self.guarded.extend(guard);
        self.visit_body(body);
        self.guarded.truncate(mark);
    }
}

impl<'a> Visitor<'a> for Scan<'_> {
    fn visit_body(&mut self, body: &'a [Stmt]) {
        let mark = self.guarded.len();
        for stmt in body {
            self.visit_stmt(stmt);
            if let Some(k) = self.exit_unless_hasattr(stmt) {
                self.guarded.push(k);
            }
        }
        self.guarded.truncate(mark);
    }

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth > MAX_DEPTH {
            self.out.dynamic = true;
            return;
        }
        self.depth += 1;
        match stmt {
            Stmt::Assign(a) => a.targets.iter().for_each(|t| self.target(t)),
            Stmt::AnnAssign(a) => self.target(&a.target),
            Stmt::AugAssign(a) => self.target(&a.target),
            Stmt::For(f) => {
                self.target(&f.target);
                self.bind_loop(&f.target, &f.iter);
            }
            Stmt::With(w) => w
                .items
                .iter()
                .filter_map(|i| i.optional_vars.as_deref())
                .for_each(|t| self.target(t)),
            _ => {}
        }
        match stmt {
            Stmt::If(i) => {
                self.branch(Some(&i.test), &i.body);
                for clause in &i.elif_else_clauses {
                    self.branch(clause.test.as_ref(), &clause.body);
                }
            }
            Stmt::ClassDef(_) => {
                self.classes += 1;
                visitor::walk_stmt(self, stmt);
                self.classes -= 1;
            }
            _ => visitor::walk_stmt(self, stmt),
        }
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth > MAX_DEPTH {
            self.out.dynamic = true;
            return;
        }
        self.depth += 1;
        if let Expr::Call(c) = expr {
            let args = c.arguments.args.as_ref();
            match &*c.func {
                Expr::Name(n) if n.id.as_str() == "setattr" => {
                    if let [obj, key, ..] = args {
                        if self.is_this(obj) {
                            self.key(key);
                        }
                    }
                }
                Expr::Attribute(a) if a.attr.as_str() == "__setattr__" => {
                    // `self.__setattr__(k, v)`, `super().__setattr__(k, v)`,
                    // `object.__setattr__(self, k, v)`.
                    let on_this = self.is_this(&a.value)
                        || matches!(&*a.value, Expr::Call(s) if consts::last_name(&s.func) == Some("super"));
                    match args {
                        [key, _] if on_this => self.key(key),
                        [obj, key, _] if self.is_this(obj) => self.key(key),
                        _ => {}
                    }
                }
                Expr::Attribute(a)
                    if a.attr.as_str() == "update"
                        && self.own_dict(&a.value)
                        && self.classes == 0 =>
                {
                    self.update(c);
                }
                _ => {}
            }
        }
        visitor::walk_expr(self, expr);
        self.depth -= 1;
    }
}

#[cfg(test)]
mod tests {
    use crate::extract;
    use crate::tests::tree;

    /// Whether each class of a one-file package is open, and how.
    fn openness(src: &str, classes: &[&str]) -> Vec<(bool, bool)> {
        let s = extract(&tree(&[("pkg/__init__.py", src)]), "pkg", "1");
        classes
            .iter()
            .map(|c| {
                let sym = &s.symbols[&format!("pkg.{c}")];
                (sym.open, sym.open_instance_only)
            })
            .collect()
    }

    #[test]
    fn attributes_set_under_names_from_data_open_the_class() {
        let src = r#"
class Processor:
    attributes = ["image_processor", "tokenizer"]
    def __init__(self, *args, **kwargs):
        for attribute_name, arg in zip(self.attributes, args):
            setattr(self, attribute_name, arg)
    def apply(self): ...

class Config:
    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            setattr(self, key, value)

class Bag:
    def __init__(self, d):
        self.__dict__.update(d)

class Slots:
    def put(self, key, value):
        self.__dict__[key] = value

class Vars:
    def load(self, d):
        vars(self).update(d)

class Frozen:
    def __init__(self, **kw):
        for k, v in kw.items():
            object.__setattr__(self, k, v)

class Sub(Processor):
    pass
"#;
        let got = openness(
            src,
            &[
                "Processor",
                "Config",
                "Bag",
                "Slots",
                "Vars",
                "Frozen",
                "Sub",
            ],
        );
        let open = [true, true, true, true, true, true, false];
        for ((o, inst), want) in got.iter().zip(open) {
            assert_eq!(*o, want);
            assert_eq!(*inst, want, "open from the instance's data only");
        }
        // The subclass inherits it through its base, not a flag of its own.
        let s = extract(&tree(&[("pkg/__init__.py", src)]), "pkg", "1");
        assert_eq!(s.symbols["pkg.Sub"].bases, ["pkg.Processor"]);
    }

    #[test]
    fn keys_the_source_lists_keep_the_class_closed() {
        let src = r#"
NAMES = ("alpha", "beta")

class Literal:
    def __init__(self):
        setattr(self, "gamma", 1)
        self.__dict__["delta"] = 2
        self.__dict__.update({"eps": 3}, zeta=4)

class Constants:
    def __init__(self):
        for name in NAMES:
            setattr(self, name, None)
        for field in ["x", "y"]:
            setattr(self, field, 0)

class Existing:
    def update(self, **kwargs):
        for key, value in kwargs.items():
            if hasattr(self, key):
                setattr(self, key, value)
    def strict(self, **kwargs):
        for key, value in kwargs.items():
            if not hasattr(self, key):
                raise ValueError(key)
            setattr(self, key, value)
    def reset(self):
        for key in self.__dict__:
            setattr(self, key, None)
        for f in fields(self):
            setattr(self, f.name, None)

class Hooks:
    def __setattr__(self, key, value):
        self.__dict__[key] = value
    def __setstate__(self, state):
        self.__dict__.update(state)
    @staticmethod
    def put(obj, key, value):
        setattr(obj, key, value)

class Other:
    def set(self, other, key):
        setattr(other, key, 1)
"#;
        let got = openness(src, &["Literal", "Constants", "Existing", "Hooks", "Other"]);
        assert!(got.iter().all(|&(o, _)| !o), "{got:?}");
        let s = extract(&tree(&[("pkg/__init__.py", src)]), "pkg", "1");
        for name in [
            "Literal.gamma",
            "Literal.delta",
            "Literal.eps",
            "Literal.zeta",
            "Constants.alpha",
            "Constants.beta",
            "Constants.x",
            "Constants.y",
        ] {
            assert!(
                s.symbols.contains_key(&format!("pkg.{name}")),
                "{name} is not listed"
            );
        }
    }

    #[test]
    fn a_hasattr_guard_holds_only_in_its_branch() {
        let src = r#"
class After:
    def update(self, **kwargs):
        for key, value in kwargs.items():
            if hasattr(self, key):
                pass
            setattr(self, key, value)

class Else:
    def update(self, key, value):
        if hasattr(self, key):
            pass
        else:
            setattr(self, key, value)
"#;
        assert_eq!(
            openness(src, &["After", "Else"]),
            [(true, true), (true, true)]
        );
    }
}
