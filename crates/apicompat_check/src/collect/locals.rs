//! The names a scope binds (found before its body is walked).

use apicompat_hash::HashSet;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};

use super::MAX_DEPTH;

/// Names a function body (or comprehension target) binds, not looking into nested scopes.
#[derive(Default)]
pub(super) struct LocalNames {
    pub(super) names: HashSet<String>,
    pub(super) globals: HashSet<String>,
    pub(super) depth: usize,
    /// Whether an expression may bind a name (`:=`); else only targets are looked into.
    pub(super) walrus: bool,
    /// Names bound by `from M import n` (with `M`'s top-level module, `None` for a relative
    /// import) and names bound any other way: a name in the first and not the second is
    /// bound only by imports ([`LocalNames::imported_only`]).
    pub(super) from_imports: Vec<(String, Option<String>)>,
    pub(super) others: HashSet<String>,
    /// Functions defined in the body without a decorator (`def helper(...):` inside it).
    pub(super) plain_defs: Vec<String>,
}

impl<'a> Visitor<'a> for LocalNames {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.local_stmt(stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.local_expr(expr);
        self.depth -= 1;
    }
}

impl LocalNames {
    /// A name bound other than by `from M import n`.
    fn bound(&mut self, name: String) {
        self.others.insert(name.clone());
        self.names.insert(name);
    }

    /// The names bound only by `from M import n` with `M` not one of `indexed` (a relative
    /// import, or a module of the project): a function-local import of a project flag is
    /// that flag, as a module-level one is (`flags.rs`).
    pub(super) fn imported_only(&self, indexed: &HashSet<String>) -> HashSet<String> {
        self.from_imports
            .iter()
            .filter(|(n, root)| {
                !self.others.contains(n)
                    && !self.globals.contains(n)
                    && root.as_ref().is_none_or(|r| !indexed.contains(r))
            })
            .map(|(n, _)| n.clone())
            .collect()
    }

    fn local_stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                if f.decorator_list.is_empty() {
                    self.plain_defs.push(f.name.to_string());
                }
                self.bound(f.name.to_string())
            }
            Stmt::ClassDef(c) => self.bound(c.name.to_string()),
            Stmt::Import(imp) => {
                for a in &imp.names {
                    let full = a.name.as_str();
                    let n = a
                        .asname
                        .as_ref()
                        .map_or(full.split('.').next().unwrap_or(full), |n| n.as_str());
                    self.bound(n.to_string());
                }
            }
            Stmt::ImportFrom(imp) => {
                let root = match (&imp.module, imp.level) {
                    (Some(m), 0) => Some(m.as_str().split('.').next().unwrap_or("").to_string()),
                    _ => None,
                };
                for a in &imp.names {
                    let n = a.asname.as_ref().unwrap_or(&a.name).to_string();
                    self.names.insert(n.clone());
                    self.from_imports.push((n, root.clone()));
                }
            }
            Stmt::Global(g) => self.globals.extend(g.names.iter().map(|n| n.to_string())),
            Stmt::Nonlocal(g) => self.globals.extend(g.names.iter().map(|n| n.to_string())),
            Stmt::Try(t) => {
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(n) = &h.name {
                        self.bound(n.to_string());
                    }
                }
                visitor::walk_stmt(self, stmt);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn local_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Name(n) if n.ctx != ExprContext::Load => self.bound(n.id.to_string()),
            Expr::Name(_)
            | Expr::Lambda(_)
            | Expr::ListComp(_)
            | Expr::SetComp(_)
            | Expr::DictComp(_)
            | Expr::Generator(_) => {}
            // Targets: `a, *b = ...`, `for (i, x) in ...`.
            Expr::Tuple(_) | Expr::List(_) | Expr::Starred(_) => visitor::walk_expr(self, expr),
            _ if self.walrus => visitor::walk_expr(self, expr),
            // A value without `:=` binds nothing.
            _ => {}
        }
    }
}

/// A 32-bit key for a name, the same for the whole run. Two names may share a key: users of
/// keys must stay correct, only less precise, when they do.
pub(crate) fn name_key(name: &str) -> u32 {
    apicompat_hash::key32(name)
}

/// The key the calls through a dict named `name` are recorded under (`NAME[k](...)`).
pub(crate) fn dispatch_key(name: &str) -> u32 {
    apicompat_hash::key32(&format!("{name}[]"))
}

/// Names that make every local of a function reachable by a string.
const DYNAMIC_LOOKUPS: &[&str] = &["locals", "vars", "eval", "exec"];

/// Of the functions `defs` a body defines, those it never names again: no call, no return, no
/// decorator, nothing that reads the name anywhere below (nested functions included). Their
/// bodies never run. Empty when the body reads `locals()` and the like.
pub(super) fn never_named(body: &[Stmt], defs: &[String]) -> HashSet<String> {
    struct Loads<'n> {
        wanted: &'n HashSet<&'n str>,
        read: HashSet<&'n str>,
        dynamic: bool,
        depth: usize,
    }
    impl<'a> Visitor<'a> for Loads<'_> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if self.depth >= MAX_DEPTH || self.dynamic {
                return;
            }
            self.depth += 1;
            match stmt {
                // `global name` / `nonlocal name` hand the name to another scope.
                Stmt::Global(ast::StmtGlobal { names, .. })
                | Stmt::Nonlocal(ast::StmtNonlocal { names, .. }) => {
                    for n in names {
                        if let Some(w) = self.wanted.get(n.as_str()) {
                            self.read.insert(w);
                        }
                    }
                }
                _ => visitor::walk_stmt(self, stmt),
            }
            self.depth -= 1;
        }

        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.depth >= MAX_DEPTH || self.dynamic {
                return;
            }
            self.depth += 1;
            match expr {
                Expr::Name(n) if n.ctx == ExprContext::Load => {
                    let id = n.id.as_str();
                    if let Some(w) = self.wanted.get(id) {
                        self.read.insert(w);
                    } else if DYNAMIC_LOOKUPS.contains(&id) {
                        self.dynamic = true;
                    }
                }
                _ => visitor::walk_expr(self, expr),
            }
            self.depth -= 1;
        }
    }
    let wanted: HashSet<&str> = defs.iter().map(String::as_str).collect();
    let mut loads = Loads {
        wanted: &wanted,
        read: HashSet::default(),
        dynamic: false,
        depth: 0,
    };
    for stmt in body {
        loads.visit_stmt(stmt);
    }
    if loads.dynamic {
        return HashSet::default();
    }
    wanted
        .iter()
        .filter(|n| !loads.read.contains(*n))
        .map(|n| n.to_string())
        .collect()
}
