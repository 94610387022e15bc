//! Module-level flags that hold one constant: `DEBUG = False` at the top level of a module,
//! and no other store of that name anywhere in the file. While the module is imported, a test
//! of it is that constant (`if DEBUG:` never runs there); a function may run after another
//! module changed it, so only the module's own top-level tests read it.
//!
//! A store that cannot run on Python 3 does not count: in the body of a `try` whose handlers
//! catch `NameError`, the statements after one that reads a builtin only Python 2 has
//! (`file`, `unicode`, ...) and the file never binds (yacs' `_PY2 = False`, then `(file,
//! io.IOBase)` and `_PY2 = True` in such a `try`: `docs/false-alarm-study-34.md`, F-K).

use apicompat_hash::{HashMap, HashSet};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::{Ranged, TextSize};

use super::MAX_DEPTH;

/// Builtins of Python 2 that Python 3 does not have: reading one raises `NameError` there.
const PYTHON2_BUILTINS: &[&str] = &[
    "file",
    "unicode",
    "basestring",
    "long",
    "xrange",
    "raw_input",
    "unichr",
    "execfile",
    "cmp",
    "buffer",
    "apply",
    "intern",
    "coerce",
];

/// The constant flags of a module: name -> (truth, where its assignment ends).
pub(super) fn constant_flags(suite: &[Stmt]) -> HashMap<String, (bool, TextSize)> {
    let mut candidates: HashMap<String, (bool, TextSize)> = HashMap::default();
    for stmt in suite {
        let (target, value) = match stmt {
            Stmt::Assign(a) => match &*a.targets {
                [t] => (t, &*a.value),
                _ => continue,
            },
            Stmt::AnnAssign(a) => match &a.value {
                Some(v) => (&*a.target, &**v),
                None => continue,
            },
            _ => continue,
        };
        if let (Expr::Name(n), Some(truth)) = (target, super::flow::literal_truth(value)) {
            candidates.insert(n.id.to_string(), (truth, stmt.end()));
        }
    }
    // Only a flag the module's top level tests can decide anything.
    let mut tested = HashSet::default();
    module_tests(suite, 0, &mut tested);
    candidates.retain(|name, _| tested.contains(name.as_str()));
    if candidates.is_empty() {
        return candidates;
    }
    // Every name the file binds, then the stores of the candidates that can run on Python 3.
    let mut all = Stores::default();
    all.visit_body(suite);
    let mut counted = Stores {
        python3: Some(&all.count),
        ..Stores::default()
    };
    counted.visit_body(suite);
    candidates.retain(|name, _| counted.count.get(name) == Some(&1) && !all.star);
    candidates
}

/// The names the `if` tests of the module's top level (not in functions or classes) are, or
/// negate (`if NAME:`, `if not NAME:`).
fn module_tests<'a>(body: &'a [Stmt], depth: usize, out: &mut HashSet<&'a str>) {
    if depth > MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    for stmt in body {
        match stmt {
            Stmt::If(s) => {
                let mut test = &*s.test;
                while let Expr::UnaryOp(u) = test {
                    test = &u.operand;
                }
                if let Expr::Name(n) = test {
                    out.insert(n.id.as_str());
                }
                module_tests(&s.body, d, out);
                for c in &s.elif_else_clauses {
                    module_tests(&c.body, d, out);
                }
            }
            Stmt::Try(t) => {
                module_tests(&t.body, d, out);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    module_tests(&h.body, d, out);
                }
                module_tests(&t.orelse, d, out);
                module_tests(&t.finalbody, d, out);
            }
            Stmt::With(w) => module_tests(&w.body, d, out),
            Stmt::For(f) => module_tests(&f.body, d, out),
            Stmt::While(w) => module_tests(&w.body, d, out),
            _ => {}
        }
    }
}

/// The names a file stores (anywhere: every scope) and how often.
#[derive(Default)]
struct Stores<'n> {
    count: HashMap<String, u32>,
    /// The file has `from M import *`: any name may be bound.
    star: bool,
    /// Count only stores that can run on Python 3, given every name the file binds.
    python3: Option<&'n HashMap<String, u32>>,
    depth: usize,
}

impl Stores<'_> {
    fn store(&mut self, name: &str) {
        *self.count.entry(name.to_string()).or_default() += 1;
    }

    /// Whether `stmt` reads a builtin only Python 2 has that the file never binds.
    fn fails_on_python3(&self, stmt: &Stmt) -> bool {
        let Some(bound) = self.python3 else {
            return false;
        };
        let mut reads = Python2Reads {
            bound,
            found: false,
            depth: 0,
        };
        reads.visit_stmt(stmt);
        reads.found
    }
}

impl<'a> Visitor<'a> for Stores<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        match stmt {
            Stmt::Import(i) => {
                for a in &i.names {
                    let full = a.name.as_str();
                    let name = a
                        .asname
                        .as_ref()
                        .map_or(full.split('.').next().unwrap_or(full), |n| n.as_str());
                    self.store(name);
                }
            }
            Stmt::ImportFrom(i) => {
                for a in &i.names {
                    if a.name.as_str() == "*" {
                        self.star = true;
                    }
                    self.store(a.asname.as_ref().unwrap_or(&a.name).as_str());
                }
            }
            Stmt::FunctionDef(f) => self.store(f.name.as_str()),
            Stmt::ClassDef(c) => self.store(c.name.as_str()),
            Stmt::Try(t) if catches_name_error(t) => {
                // The statements after one that fails on Python 3 never run there.
                for s in &t.body {
                    self.visit_stmt(s);
                    if self.fails_on_python3(s) {
                        break;
                    }
                }
                for h in &t.handlers {
                    self.visit_except_handler(h);
                }
                self.visit_body(&t.orelse);
                self.visit_body(&t.finalbody);
                self.depth -= 1;
                return;
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        if let Expr::Name(n) = expr {
            if matches!(n.ctx, ExprContext::Store | ExprContext::Del) {
                self.store(n.id.as_str());
            }
        }
        visitor::walk_expr(self, expr);
        self.depth -= 1;
    }

    fn visit_except_handler(&mut self, handler: &'a ast::ExceptHandler) {
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        if let Some(name) = &h.name {
            self.store(name.as_str());
        }
        visitor::walk_except_handler(self, handler);
    }
}

fn catches_name_error(t: &ast::StmtTry) -> bool {
    t.handlers.iter().any(|h| {
        let ast::ExceptHandler::ExceptHandler(h) = h;
        match h.type_.as_deref() {
            Some(Expr::Name(n)) => n.id.as_str() == "NameError",
            Some(Expr::Tuple(t)) => t
                .elts
                .iter()
                .any(|e| matches!(e, Expr::Name(n) if n.id.as_str() == "NameError")),
            _ => false,
        }
    })
}

/// Finds a read of a Python-2-only builtin the file never binds.
struct Python2Reads<'n> {
    bound: &'n HashMap<String, u32>,
    found: bool,
    depth: usize,
}

impl<'a> Visitor<'a> for Python2Reads<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        // Not into nested definitions: their bodies do not run here.
        if self.found
            || self.depth >= MAX_DEPTH
            || matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_))
        {
            return;
        }
        self.depth += 1;
        visitor::walk_stmt(self, stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.found || self.depth >= MAX_DEPTH {
            return;
        }
        if let Expr::Name(n) = expr {
            let name = n.id.as_str();
            if n.ctx == ExprContext::Load
                && PYTHON2_BUILTINS.contains(&name)
                && !self.bound.contains_key(name)
            {
                self.found = true;
                return;
            }
        }
        if matches!(expr, Expr::Lambda(_)) {
            return;
        }
        self.depth += 1;
        visitor::walk_expr(self, expr);
        self.depth -= 1;
    }
}
