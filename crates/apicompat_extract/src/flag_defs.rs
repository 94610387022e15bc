//! Names a module binds by calling its own setter with a constant name.
//!
//! torch's `torch/testing/_internal/common_utils.py` (2.1 - 2.4) defines
//! `TestEnvironment.def_flag(name, env_var=None, ...)`, a static method whose body ends in
//! `globals()[name] = enabled`, and then calls `TestEnvironment.def_flag("IS_CI", ...)`,
//! `def_flag("TEST_WITH_ROCM", ...)`... at module level: each call binds its first argument in
//! the module. Rule: a function of the module (module level, or a method of a module-level
//! class) that stores `globals()[p]` / `vars()[p]` (also through a local `g = globals()`), `p`
//! one of its parameters, binds in the module the constant string each module-level call of
//! it (`f(...)`, `Class.f(...)`, in any branch but not in a function) passes for `p`, by
//! position or keyword. Calls with any other argument add nothing here (a module-level
//! function with a computed `globals()` key already makes the module open).

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};

use crate::consts;

/// Statements nested deeper than this are not read.
const MAX_DEPTH: usize = 200;

/// A setter: how it is called (`f` or `Class.f`), its parameter's position in a call, and
/// the parameter's name.
struct Setter {
    callee: String,
    position: usize,
    param: String,
}

/// The names `suite`'s module-level calls of its own setters bind.
pub fn names(suite: &[Stmt]) -> Vec<String> {
    let mut setters = Vec::new();
    for stmt in suite {
        match stmt {
            Stmt::FunctionDef(f) => setters.extend(setter(f, f.name.to_string(), false)),
            Stmt::ClassDef(c) => {
                for s in c.body.iter() {
                    let Stmt::FunctionDef(f) = s else { continue };
                    let is_static = f
                        .decorator_list
                        .iter()
                        .any(|d| consts::dotted(&d.expression).as_deref() == Some("staticmethod"));
                    setters.extend(setter(f, format!("{}.{}", c.name, f.name), !is_static));
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if !setters.is_empty() {
        calls(suite, &setters, &mut out, 0);
    }
    out
}

/// `f` as a setter, when it stores `globals()[p]` for a parameter `p` (`bound`: the first
/// parameter is the instance or class, not passed in the call).
fn setter(f: &ruff_python_ast::StmtFunctionDef, callee: String, bound: bool) -> Option<Setter> {
    let params: Vec<&str> = f
        .parameters
        .posonlyargs
        .iter()
        .chain(f.parameters.args.iter())
        .map(|p| p.parameter.name.as_str())
        .skip(usize::from(bound))
        .collect();
    let mut scan = GlobalsKeys {
        aliases: Vec::new(),
        keys: Vec::new(),
        depth: 0,
    };
    scan.visit_body(&f.body);
    let (position, param) = params
        .iter()
        .enumerate()
        .find(|(_, p)| scan.keys.iter().any(|k| k == *p))?;
    Some(Setter {
        callee,
        position,
        param: param.to_string(),
    })
}

/// The plain names a body uses as `globals()` keys in stores.
struct GlobalsKeys {
    aliases: Vec<String>,
    keys: Vec<String>,
    depth: usize,
}

fn is_globals_call(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if c.arguments.is_empty()
        && matches!(consts::dotted(&c.func).as_deref(), Some("globals" | "vars")))
}

impl<'a> Visitor<'a> for GlobalsKeys {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth > MAX_DEPTH {
            return;
        }
        if let Stmt::Assign(a) = stmt {
            for t in &a.targets {
                match t {
                    Expr::Name(n) if is_globals_call(&a.value) => {
                        self.aliases.push(n.id.to_string())
                    }
                    Expr::Subscript(s) => {
                        let on_globals = is_globals_call(&s.value)
                            || matches!(&*s.value, Expr::Name(n) if self.aliases.iter().any(|a| a == n.id.as_str()));
                        if let (true, Expr::Name(k)) = (on_globals, &*s.slice) {
                            self.keys.push(k.id.to_string());
                        }
                    }
                    _ => {}
                }
            }
        }
        self.depth += 1;
        visitor::walk_stmt(self, stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, _expr: &'a Expr) {}
}

/// Module-level calls of the setters, in any branch but not in functions or classes.
fn calls(body: &[Stmt], setters: &[Setter], out: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for stmt in body {
        match stmt {
            Stmt::Expr(e) => {
                if let Expr::Call(c) = &*e.value {
                    let Some(callee) = consts::dotted(&c.func) else {
                        continue;
                    };
                    for s in setters.iter().filter(|s| s.callee == callee) {
                        let arg = c.arguments.args.get(s.position).or_else(|| {
                            c.arguments
                                .keywords
                                .iter()
                                .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == s.param))
                                .map(|k| &k.value)
                        });
                        if let Some(Expr::StringLiteral(lit)) = arg {
                            out.push(lit.value.to_str().to_string());
                        }
                    }
                }
            }
            Stmt::If(i) => {
                calls(&i.body, setters, out, depth + 1);
                for clause in &i.elif_else_clauses {
                    calls(&clause.body, setters, out, depth + 1);
                }
            }
            Stmt::Try(t) => {
                calls(&t.body, setters, out, depth + 1);
                for handler in &t.handlers {
                    let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                    calls(&h.body, setters, out, depth + 1);
                }
                calls(&t.orelse, setters, out, depth + 1);
                calls(&t.finalbody, setters, out, depth + 1);
            }
            Stmt::With(w) => calls(&w.body, setters, out, depth + 1),
            Stmt::For(f) => {
                calls(&f.body, setters, out, depth + 1);
                calls(&f.orelse, setters, out, depth + 1);
            }
            Stmt::While(w) => {
                calls(&w.body, setters, out, depth + 1);
                calls(&w.orelse, setters, out, depth + 1);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::tree;

    /// torch 2.1's `common_utils.py`: `TestEnvironment.def_flag("IS_CI", ...)`.
    #[test]
    fn constant_names_passed_to_a_globals_setter_are_bound() {
        let src = "class TestEnvironment:\n    @staticmethod\n    def def_flag(name, env_var=None, default=False):\n        enabled = default\n        assert name not in globals()\n        globals()[name] = enabled\n\n    def other(self, key):\n        g = globals()\n        g[key] = 1\n\n\
            TestEnvironment.def_flag(\"IS_CI\", env_var=\"CI\")\n\
            if True:\n    TestEnvironment.def_flag(name=\"TEST_WITH_ROCM\")\n\
            TestEnvironment.def_flag(computed)\n\
            def f():\n    TestEnvironment.def_flag(\"IN_FUNCTION\")\n\
            TestEnvironment().other(\"NOT_A_CLASS_CALL\")\n";
        let s = crate::extract(&tree(&[("pkg/__init__.py", src)]), "pkg", "1.0");
        let has = |p: &str| s.symbols.contains_key(p);
        assert!(has("pkg.IS_CI"));
        assert!(has("pkg.TEST_WITH_ROCM"));
        assert!(!has("pkg.IN_FUNCTION"));
        assert!(!has("pkg.NOT_A_CLASS_CALL"));
        assert!(!has("pkg.name"));
    }
}
