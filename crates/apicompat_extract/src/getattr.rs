//! What a `__getattr__` answers, read from its body: a module's (`def __getattr__(name)`) or a
//! class's (`def __getattr__(self, name)`).

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, CmpOp, Expr, Stmt};

use crate::attr_tables::{raise_only, returns};
use crate::consts::{self, Env};

/// The kinds of `__getattr__`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GetattrRule {
    /// Ends in `raise AttributeError` and answers only names tested against constants
    /// (`if name == "x"`, `if name in _LAZY`, `_TABLE[name]`): exactly those names.
    Closed(Vec<String>),
    /// A class's: ends in `raise AttributeError` and otherwise answers only names found in
    /// the instance's own data (`self.__dict__[...]`, `self._modules`, locals read from them),
    /// besides the constant names listed (torch's `nn.Module`: registered parameters,
    /// buffers and submodules).
    InstanceData(Vec<String>),
    /// Answers any name.
    Open,
}

/// Reads a `__getattr__`. `method`: a class's (the name is the second parameter).
pub fn getattr_rule(f: &ast::StmtFunctionDef, method: bool, env: &Env) -> GetattrRule {
    let mut params = f
        .parameters
        .posonlyargs
        .iter()
        .chain(&f.parameters.args)
        .map(|p| p.name().to_string());
    let this = if method { params.next() } else { None };
    let ends_in_raise = ends_in_attribute_error(&f.body, 0);
    let Some(param) = params.next().filter(|_| ends_in_raise) else {
        return GetattrRule::Open;
    };
    if method && this.is_none() {
        return GetattrRule::Open;
    }
    let mut scan = GetattrScan {
        param: &param,
        env,
        instance: this.map(|t| InstanceData::of(t, &f.body)),
        names: Vec::new(),
        open: false,
        uses_instance: false,
    };
    for stmt in &f.body {
        scan.visit_stmt(stmt);
    }
    // A class's `__getattr__` must not use the name beyond those tests (`getattr(self.inner,
    // name)` answers anything).
    if method && !scan.open {
        let mut escapes = Escapes {
            scan: &scan,
            found: false,
        };
        for stmt in &f.body {
            escapes.visit_stmt(stmt);
        }
        scan.open = escapes.found;
    }
    match scan {
        GetattrScan { open: true, .. } => GetattrRule::Open,
        GetattrScan {
            uses_instance: true,
            names,
            ..
        } => GetattrRule::InstanceData(names),
        GetattrScan { names, .. } => GetattrRule::Closed(names),
    }
}

/// A body that ends in `raise AttributeError`, also as the `else:` of a final `if` (numpy
/// 1.25's `numpy.lib.__getattr__`).
fn ends_in_attribute_error(body: &[Stmt], depth: usize) -> bool {
    match body.last() {
        Some(Stmt::Raise(r)) => {
            r.exc.as_deref().and_then(|e| match e {
                Expr::Call(c) => consts::last_name(&c.func),
                e => consts::last_name(e),
            }) == Some("AttributeError")
        }
        Some(Stmt::If(i)) if depth < 8 => i
            .elif_else_clauses
            .last()
            .is_some_and(|c| c.test.is_none() && ends_in_attribute_error(&c.body, depth + 1)),
        _ => false,
    }
}

/// Expressions that read the instance's own data: chains of attributes, subscripts and calls
/// on `self` (or `vars(self)`), and locals assigned from them.
struct InstanceData {
    this: String,
    locals: Vec<String>,
}

impl InstanceData {
    fn of(this: String, body: &[Stmt]) -> InstanceData {
        struct Assigns<'a>(Vec<(&'a str, &'a Expr)>);
        impl<'a> Visitor<'a> for Assigns<'a> {
            fn visit_stmt(&mut self, stmt: &'a Stmt) {
                match stmt {
                    Stmt::Assign(a) => {
                        for t in &a.targets {
                            if let Expr::Name(n) = t {
                                self.0.push((n.id.as_str(), &a.value));
                            }
                        }
                    }
                    Stmt::AnnAssign(a) => {
                        if let (Expr::Name(n), Some(v)) = (&*a.target, a.value.as_deref()) {
                            self.0.push((n.id.as_str(), v));
                        }
                    }
                    // Nested scopes have their own locals.
                    Stmt::FunctionDef(_) | Stmt::ClassDef(_) => return,
                    _ => {}
                }
                visitor::walk_stmt(self, stmt);
            }
        }
        let mut assigns = Assigns(Vec::new());
        for stmt in body {
            assigns.visit_stmt(stmt);
        }
        let mut data = InstanceData {
            this,
            locals: Vec::new(),
        };
        // A local counts when every assignment to it reads instance data (in any order).
        let mut changed = true;
        while changed {
            changed = false;
            for (name, _) in &assigns.0 {
                if data.locals.iter().any(|l| l == name) {
                    continue;
                }
                let all = assigns
                    .0
                    .iter()
                    .filter(|(n, _)| n == name)
                    .all(|(_, v)| data.reads(v));
                if all {
                    data.locals.push(name.to_string());
                    changed = true;
                }
            }
        }
        data
    }

    fn reads(&self, e: &Expr) -> bool {
        match e {
            Expr::Name(n) => {
                n.id.as_str() == self.this || self.locals.iter().any(|l| l == n.id.as_str())
            }
            Expr::Attribute(a) => self.reads(&a.value),
            Expr::Subscript(s) => self.reads(&s.value),
            Expr::Call(c) => match &*c.func {
                // `self.__dict__.get("_modules")`, `vars(self)`.
                Expr::Attribute(a) => self.reads(&a.value),
                f => {
                    consts::dotted(f).as_deref() == Some("vars")
                        && matches!(c.arguments.args.as_ref(), [a] if self.reads(a))
                }
            },
            _ => false,
        }
    }
}

struct GetattrScan<'a> {
    param: &'a str,
    env: &'a Env,
    /// For a class's `__getattr__`: what reads the instance's data.
    instance: Option<InstanceData>,
    names: Vec<String>,
    open: bool,
    uses_instance: bool,
}

impl GetattrScan<'_> {
    fn is_param(&self, e: &Expr) -> bool {
        matches!(e, Expr::Name(n) if n.id.as_str() == self.param)
    }

    fn reads_instance(&self, e: &Expr) -> bool {
        self.instance.as_ref().is_some_and(|i| i.reads(e))
    }

    fn mentions_param(&self, e: &Expr) -> bool {
        struct Finder<'p> {
            param: &'p str,
            found: bool,
        }
        impl<'a> Visitor<'a> for Finder<'_> {
            fn visit_expr(&mut self, e: &'a Expr) {
                if matches!(e, Expr::Name(n) if n.id.as_str() == self.param) {
                    self.found = true;
                }
                visitor::walk_expr(self, e);
            }
        }
        let mut f = Finder {
            param: self.param,
            found: false,
        };
        f.visit_expr(e);
        f.found
    }

    /// The names a table looked up with the parameter admits: constant keys, or none when it
    /// is the instance's data; `None` when it cannot be read.
    fn table_names(&mut self, table: &Expr) -> Option<Vec<String>> {
        if let Some(names) = consts::strings(table, self.env) {
            return Some(names);
        }
        if self.reads_instance(table) {
            self.uses_instance = true;
            return Some(Vec::new());
        }
        None
    }

    /// A test on the parameter: names it admits, or `None` when it cannot be read.
    fn test_names(&mut self, test: &Expr) -> Option<Vec<String>> {
        match test {
            Expr::Compare(c) if c.ops.len() == 1 && self.is_param(&c.left) => {
                let right = &c.comparators[0];
                match c.ops[0] {
                    CmpOp::In => self.table_names(right),
                    CmpOp::Eq => consts::string(right, self.env).map(|s| vec![s]),
                    // `name not in X` / `!=` guard the raising path, not the answering one.
                    CmpOp::NotIn | CmpOp::NotEq => Some(Vec::new()),
                    _ => None,
                }
            }
            Expr::BoolOp(b) => {
                let mut out = Vec::new();
                for v in &b.values {
                    if self.mentions_param(v) {
                        out.extend(self.test_names(v)?);
                    }
                }
                Some(out)
            }
            Expr::UnaryOp(u) => self.test_names(&u.operand).map(|_| Vec::new()),
            _ => None,
        }
    }

    /// `TABLE.get(name)`: the table.
    fn get_call_table<'e>(&self, c: &'e ast::ExprCall) -> Option<&'e Expr> {
        match &*c.func {
            Expr::Attribute(a)
                if a.attr.as_str() == "get"
                    && c.arguments.args.first().is_some_and(|e| self.is_param(e)) =>
            {
                Some(&a.value)
            }
            _ => None,
        }
    }
}

impl<'a> Visitor<'a> for GetattrScan<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::If(i) = stmt {
            let clauses = std::iter::once((Some(&*i.test), &i.body)).chain(
                i.elif_else_clauses
                    .iter()
                    .map(|c| (c.test.as_ref(), &c.body)),
            );
            for (test, body) in clauses {
                // A clause that only raises answers nothing (numpy's `if attr in
                // __former_attrs__: raise AttributeError(__former_attrs__[attr])`).
                if raise_only(body) {
                    continue;
                }
                if let Some(test) = test {
                    // A clause that never returns falls through to the final raise.
                    if self.mentions_param(test) && returns(body) {
                        match self.test_names(test) {
                            Some(names) => self.names.extend(names),
                            None => self.open = true,
                        }
                    }
                    self.visit_expr(test);
                }
                self.visit_body(body);
            }
            return;
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        // `TABLE.get(name)` / `TABLE[name]` on a constant table or the instance's data.
        let table = match expr {
            Expr::Call(c) => self.get_call_table(c),
            Expr::Subscript(s) if self.is_param(&s.slice) => Some(&*s.value),
            _ => None,
        };
        if let Some(table) = table {
            match self.table_names(table) {
                Some(names) => self.names.extend(names),
                None => self.open = true,
            }
        }
        visitor::walk_expr(self, expr);
    }
}

/// Whether a class's `__getattr__` uses the name anywhere but in the tests and lookups
/// [`GetattrScan`] reads, or in the bodies those tests guard, or in the final `raise`.
struct Escapes<'s, 'a> {
    scan: &'s GetattrScan<'a>,
    found: bool,
}

impl Escapes<'_, '_> {
    /// A test whose body runs only for the names the test admits (`name in X`,
    /// `name == "x"`, and combinations of them).
    fn guards(&self, test: &Expr) -> bool {
        match test {
            Expr::Compare(c) => {
                c.ops.len() == 1
                    && matches!(c.ops[0], CmpOp::In | CmpOp::Eq)
                    && self.scan.is_param(&c.left)
            }
            Expr::BoolOp(b) if b.op == ast::BoolOp::Or => b.values.iter().all(|v| self.guards(v)),
            Expr::BoolOp(b) => b.values.iter().any(|v| self.guards(v)),
            _ => false,
        }
    }
}

impl<'b> Visitor<'b> for Escapes<'_, '_> {
    fn visit_stmt(&mut self, stmt: &'b Stmt) {
        match stmt {
            Stmt::Raise(_) => {}
            Stmt::If(i) => {
                let clauses = std::iter::once((Some(&*i.test), &i.body)).chain(
                    i.elif_else_clauses
                        .iter()
                        .map(|c| (c.test.as_ref(), &c.body)),
                );
                for (test, body) in clauses {
                    match test {
                        // Read by the scan; the body sees only the names the test admits.
                        Some(t) if self.scan.mentions_param(t) && self.guards(t) => {}
                        Some(t) if self.scan.mentions_param(t) => self.visit_body(body),
                        Some(t) => {
                            self.visit_expr(t);
                            self.visit_body(body);
                        }
                        None => self.visit_body(body),
                    }
                }
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'b Expr) {
        match expr {
            Expr::Name(_) if self.scan.is_param(expr) => self.found = true,
            Expr::Subscript(s) if self.scan.is_param(&s.slice) => self.visit_expr(&s.value),
            Expr::Call(c) if self.scan.get_call_table(c).is_some() => {
                if let Some(table) = self.scan.get_call_table(c) {
                    self.visit_expr(table);
                }
                c.arguments
                    .args
                    .iter()
                    .skip(1)
                    .for_each(|a| self.visit_expr(a));
            }
            _ => visitor::walk_expr(self, expr),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(src: &str, method: bool) -> GetattrRule {
        let parsed = ruff_python_parser::parse_module(src).unwrap();
        let suite = parsed.suite();
        let f = match &suite[0] {
            Stmt::FunctionDef(f) => f,
            Stmt::ClassDef(c) => match &c.body[0] {
                Stmt::FunctionDef(f) => f,
                _ => panic!(),
            },
            _ => panic!(),
        };
        getattr_rule(f, method, &Env::new())
    }

    #[test]
    fn instance_data_lookups_are_told_from_delegation() {
        // torch.nn.Module.
        let module = r#"
class M:
    def __getattr__(self, name):
        if '_parameters' in self.__dict__:
            _parameters = self.__dict__['_parameters']
            if name in _parameters:
                return _parameters[name]
        if '_modules' in self.__dict__:
            modules = self.__dict__['_modules']
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
"#;
        assert_eq!(rule(module, true), GetattrRule::InstanceData(vec![]));
        let attrs = r#"
class M:
    def __getattr__(self, name):
        if name == "legacy":
            return 1
        value = self._fields.get(name)
        if value is not None:
            return value
        raise AttributeError(name)
"#;
        assert_eq!(
            rule(attrs, true),
            GetattrRule::InstanceData(vec!["legacy".into()])
        );
        let closed = r#"
class M:
    def __getattr__(self, name):
        if name in ("a", "b"):
            return self._load(name)
        raise AttributeError(name)
"#;
        assert_eq!(
            rule(closed, true),
            GetattrRule::Closed(vec!["a".into(), "b".into()])
        );
        for open in [
            // Delegation answers anything.
            "class M:\n    def __getattr__(self, name):\n        return getattr(self.inner, name)\n",
            "class M:\n    def __getattr__(self, name):\n        if name in self._d:\n            return 1\n        x = getattr(self.inner, name)\n        raise AttributeError(name)\n",
            // A table that is not the instance's data.
            "class M:\n    def __getattr__(self, name):\n        if name in registry():\n            return 1\n        raise AttributeError(name)\n",
            // Does not end by raising AttributeError.
            "class M:\n    def __getattr__(self, name):\n        if name in self._d:\n            return self._d[name]\n        return None\n",
            // A local that is not always instance data.
            "class M:\n    def __getattr__(self, name):\n        d = self._d\n        d = GLOBAL\n        if name in d:\n            return d[name]\n        raise AttributeError(name)\n",
            "class M:\n    def __getattr__(self):\n        raise AttributeError\n",
        ] {
            assert_eq!(rule(open, true), GetattrRule::Open, "{open}");
        }
    }

    #[test]
    fn module_getattr_ending_in_an_else_that_raises_is_closed() {
        // numpy 1.25's numpy/lib/__init__.py.
        let src = "def __getattr__(attr):\n    import math\n    if attr == 'math':\n        return math\n    else:\n        raise AttributeError(attr)\n";
        assert_eq!(rule(src, false), GetattrRule::Closed(vec!["math".into()]));
        // A name tested by a clause that only raises is not answered.
        let src = "def __getattr__(attr):\n    if attr in _GONE:\n        raise AttributeError(_GONE[attr])\n    if attr == 'x':\n        return 1\n    raise AttributeError(attr)\n";
        assert_eq!(rule(src, false), GetattrRule::Closed(vec!["x".into()]));
        let src = "def __getattr__(attr):\n    if attr == 'x':\n        return 1\n    else:\n        return 2\n";
        assert_eq!(rule(src, false), GetattrRule::Open);
    }

    #[test]
    fn module_getattr_never_reads_instance_data() {
        let src = "def __getattr__(name):\n    if name in self_d:\n        return 1\n    raise AttributeError(name)\n";
        assert_eq!(rule(src, false), GetattrRule::Open);
        let src = "def __getattr__(name):\n    if name == 'x':\n        return 1\n    raise AttributeError(name)\n";
        assert_eq!(rule(src, false), GetattrRule::Closed(vec!["x".into()]));
    }
}
