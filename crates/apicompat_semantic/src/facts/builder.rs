//! The walk that reads a module's facts (see [`super::extract`]).

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::narrow;
use super::*;
use crate::atom::atom;
use crate::ir::{self, Sym};

mod defs;
mod exprs;
mod targets;

/// Walks a module; the bindings come back sorted.
pub(super) fn read(suite: &[Stmt], module: &ModuleName) -> ModuleFacts {
    let mut b = Builder {
        module,
        out: ModuleFacts::default(),
        scope: 0,
        func: None,
        depth: 0,
        cond: 0,
        nonlocals: Vec::new(),
        narrows: narrow::Active::default(),
    };
    b.out.scopes.push(ScopeFacts {
        kind: ScopeKind::Module,
        parent: None,
        bindings: Bindings::default(),
        globals: Vec::new(),
        items: Vec::new(),
    });
    b.body(suite);
    // `nonlocal x`: the bindings of `x` made before it in that scope are not local (the
    // enclosing function's binding is found by the lookup). Removed once per scope, not once
    // per statement.
    b.nonlocals.sort_unstable();
    for run in b.nonlocals.chunk_by(|a, b| a.0 == b.0) {
        // For each name, the bindings before its last `nonlocal` statement.
        let before: apicompat_hash::HashMap<Atom, usize> =
            run.iter().map(|&(_, name, at)| (name, at)).collect();
        if let Some(scope) = b.out.scopes.get_mut(run[0].0 as usize) {
            scope.bindings.remove_before(&before);
        }
    }
    for scope in &mut b.out.scopes {
        scope.bindings.finish();
    }
    for class in &mut b.out.classes {
        class.stores.finish();
    }
    b.out
}

struct Builder<'m> {
    module: &'m ModuleName,
    out: ModuleFacts,
    scope: ScopeId,
    /// The function whose body is being walked (not inside nested classes).
    func: Option<FuncId>,
    depth: usize,
    /// Inside an `if`, loop, `try` or `match` of the current function or module body.
    cond: u32,
    /// Names declared `nonlocal`: the scope, the name, and how many bindings the scope had
    /// made by then.
    nonlocals: Vec<(ScopeId, Atom, usize)>,
    /// The `isinstance` tests in force.
    narrows: narrow::Active,
}

impl Builder<'_> {
    fn new_scope(&mut self, kind: ScopeKind) -> ScopeId {
        let id = self.out.scopes.len() as ScopeId;
        self.out.scopes.push(ScopeFacts {
            kind,
            parent: Some(self.scope),
            bindings: Bindings::default(),
            globals: Vec::new(),
            items: Vec::new(),
        });
        id
    }

    fn bind(&mut self, name: &str, def: Def) {
        if self.narrows.len() > 0 {
            self.narrows.rebound(&Sym::Name(atom(name)));
        }
        let scope = &mut self.out.scopes[self.scope as usize];
        // A `global x` in a function binds the module's `x`.
        let target = if scope.globals.iter().any(|g| &**g == name) {
            0
        } else {
            self.scope
        };
        self.out.scopes[target as usize].bindings.push(name, def);
    }

    /// The class and receiver name when walking a method's body (`self` of `def f(self)`).
    fn receiver(&self) -> Option<(ClassId, &str)> {
        let f = &self.out.functions[self.func? as usize];
        match (f.class, f.kind) {
            (Some(c), MethodKind::Plain | MethodKind::Property) => {
                f.params.first().map(|p| (c, p.name))
            }
            _ => None,
        }
    }

    fn is_receiver(&self, e: &Expr) -> Option<ClassId> {
        let Expr::Name(n) = e else {
            return None;
        };
        let (class, name) = self.receiver()?;
        (n.id.as_str() == name).then_some(class)
    }

    /// A block: the tests an `assert` or an early exit (`if not isinstance(x, C): return`)
    /// put in force hold until its end.
    fn body(&mut self, body: &[Stmt]) {
        let active = self.narrows.len();
        for s in body {
            self.stmt(s);
            match s {
                Stmt::Assert(a) => self.narrows.push_all(narrow::implied(&a.test, true)),
                Stmt::If(i) if narrow::ends_in_jump(&i.body) => {
                    // With every branch a jump and no `else`, each test failed after it.
                    let clauses = &i.elif_else_clauses;
                    if clauses
                        .iter()
                        .all(|c| c.test.is_some() && narrow::ends_in_jump(&c.body))
                    {
                        self.narrows.push_all(narrow::implied(&i.test, false));
                        for c in clauses {
                            if let Some(t) = &c.test {
                                self.narrows.push_all(narrow::implied(t, false));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        self.narrows.truncate(active);
    }

    /// A body that may not run (a branch, a loop, a `try`).
    fn cond_body(&mut self, body: &[Stmt]) {
        self.cond += 1;
        self.body(body);
        self.cond -= 1;
    }

    /// A branch that runs where `holds` tests held and `failed` ones failed.
    fn branch(&mut self, holds: &[&Expr], failed: &[&Expr], body: &[Stmt]) {
        let active = self.narrows.len();
        for t in holds {
            self.narrows.push_all(narrow::implied(t, true));
        }
        for t in failed {
            self.narrows.push_all(narrow::implied(t, false));
        }
        self.cond_body(body);
        self.narrows.truncate(active);
    }

    /// An expression evaluated where `test` held (`holds`) or failed.
    fn expr_where(&mut self, test: &Expr, holds: bool, e: &Expr, depth: usize) {
        let active = self.narrows.len();
        self.narrows.push_all(narrow::implied(test, holds));
        self.expr_at(e, depth);
        self.narrows.truncate(active);
    }

    /// `key` set on `name`'s mapping here (`None`: a change the model cannot follow). A key
    /// set only on some paths (in a branch, a loop, a `try`) may be missing: not recorded.
    fn push_item(&mut self, name: &str, key: Option<Atom>) {
        if key.is_some() && self.cond > 0 {
            return;
        }
        self.out.scopes[self.scope as usize]
            .items
            .push((atom(name), key));
    }

    fn stmt(&mut self, stmt: &Stmt) {
        if self.depth >= MAX_STMT_DEPTH {
            self.out.truncated = true;
            return;
        }
        self.depth += 1;
        self.stmt_inner(stmt);
        self.depth -= 1;
    }

    fn stmt_inner(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => self.function(f),
            Stmt::ClassDef(c) => self.class(c),
            Stmt::Assign(a) => {
                self.expr(&a.value);
                for t in &a.targets {
                    self.target(t, || Def::Value(ir::value(&a.value)), &a.value);
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.expr(v);
                }
                self.annotation_sites(&a.annotation);
                let declared = Def::Declared(ir::annotation(&a.annotation));
                match &*a.target {
                    Expr::Name(n) => self.bind(n.id.as_str(), declared),
                    Expr::Attribute(t) => {
                        self.expr(&t.value);
                        self.store(t, declared);
                    }
                    t => self.expr(t),
                }
            }
            Stmt::AugAssign(a) => {
                self.expr(&a.value);
                match &*a.target {
                    Expr::Name(n) => self.bind(n.id.as_str(), Def::Unknown),
                    t => self.expr(t),
                }
            }
            Stmt::For(f) => {
                self.expr(&f.iter);
                self.unknown_target(&f.target);
                self.cond_body(&f.body);
                self.cond_body(&f.orelse);
            }
            Stmt::While(w) => {
                self.expr(&w.test);
                self.branch(&[&w.test], &[], &w.body);
                self.cond_body(&w.orelse);
            }
            Stmt::If(i) => {
                self.expr(&i.test);
                self.branch(&[&i.test], &[], &i.body);
                let mut failed: Vec<&Expr> = vec![&i.test];
                for c in &i.elif_else_clauses {
                    match &c.test {
                        Some(t) => {
                            let active = self.narrows.len();
                            for f in &failed {
                                self.narrows.push_all(narrow::implied(f, false));
                            }
                            self.expr(t);
                            self.narrows.truncate(active);
                            self.branch(&[t], &failed, &c.body);
                            failed.push(t);
                        }
                        None => self.branch(&[], &failed, &c.body),
                    }
                }
            }
            Stmt::With(w) => {
                for item in &w.items {
                    self.expr(&item.context_expr);
                    match item.optional_vars.as_deref() {
                        // What the manager's `__enter__` gives (`with Pool(n) as p`).
                        Some(Expr::Name(n)) => {
                            self.bind(n.id.as_str(), Def::Entered(ir::value(&item.context_expr)))
                        }
                        Some(v) => self.unknown_target(v),
                        None => {}
                    }
                }
                self.body(&w.body);
            }
            Stmt::Try(t) => {
                self.cond_body(&t.body);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(ty) = &h.type_ {
                        self.expr(ty);
                    }
                    if let Some(n) = &h.name {
                        self.bind(n.as_str(), Def::Unknown);
                    }
                    self.cond_body(&h.body);
                }
                self.cond_body(&t.orelse);
                self.body(&t.finalbody);
            }
            Stmt::Match(m) => {
                self.expr(&m.subject);
                for case in &m.cases {
                    let mut names = Vec::new();
                    pattern_names(&case.pattern, &mut names, 0);
                    for n in names {
                        self.bind(&n, Def::Unknown);
                    }
                    if let Some(g) = &case.guard {
                        self.expr(g);
                    }
                    self.cond_body(&case.body);
                }
            }
            Stmt::Import(i) => {
                for alias in &i.names {
                    let full = alias.name.as_str();
                    match &alias.asname {
                        Some(a) => self.bind(a.as_str(), Def::Import(atom(full))),
                        None => {
                            let root = full.split('.').next().unwrap_or(full);
                            self.bind(root, Def::Import(atom(root)));
                        }
                    }
                }
            }
            Stmt::ImportFrom(i) => {
                let Some(module) = self.absolute(i.level, i.module.as_ref().map(|m| m.as_str()))
                else {
                    for alias in &i.names {
                        let name = alias.asname.as_ref().unwrap_or(&alias.name);
                        self.bind(name.as_str(), Def::Unknown);
                    }
                    return;
                };
                for alias in &i.names {
                    if alias.name.as_str() == "*" {
                        continue;
                    }
                    let name = alias.asname.as_ref().unwrap_or(&alias.name);
                    self.bind(
                        name.as_str(),
                        Def::ImportFrom {
                            module: atom(module.as_str()),
                            name: atom(alias.name.as_str()),
                        },
                    );
                }
            }
            Stmt::Global(g) => {
                let names: Vec<Atom> = g.names.iter().map(|n| atom(n.as_str())).collect();
                self.out.scopes[self.scope as usize].globals.extend(names);
            }
            Stmt::Nonlocal(g) => {
                // Not local here: removed from the scope's bindings at the end.
                let scope = self.scope;
                let made = self.out.scopes[scope as usize].bindings.len();
                self.nonlocals
                    .extend(g.names.iter().map(|n| (scope, atom(n.as_str()), made)));
            }
            Stmt::Delete(d) => {
                for t in &d.targets {
                    self.unknown_target(t);
                }
            }
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.expr(v);
                }
                if let Some(f) = self.func {
                    let value = r.value.as_deref().map_or(Sym::None, ir::value);
                    self.out.functions[f as usize].return_values.push(value);
                }
            }
            Stmt::Expr(e) => self.expr(&e.value),
            Stmt::Assert(a) => {
                self.expr(&a.test);
                if let Some(m) = &a.msg {
                    self.expr(m);
                }
            }
            Stmt::Raise(r) => {
                if let Some(e) = &r.exc {
                    self.expr(e);
                }
            }
            Stmt::TypeAlias(t) => self.bind_target_unknown(&t.name),
            _ => {}
        }
    }

    /// `from .x import y` made absolute.
    fn absolute(&self, level: u32, module: Option<&str>) -> Option<String> {
        if level == 0 {
            return module.map(str::to_string);
        }
        let name = self.module.name.as_deref()?;
        let mut parts: Vec<&str> = name.split('.').collect();
        // A package's own name counts as the first level.
        let up = if self.module.is_package {
            level - 1
        } else {
            level
        };
        for _ in 0..up {
            parts.pop()?;
        }
        if let Some(m) = module {
            parts.push(m);
        }
        (!parts.is_empty()).then(|| parts.join("."))
    }
}

fn pattern_names(p: &ast::Pattern, out: &mut Vec<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    use ast::Pattern;
    match p {
        Pattern::MatchAs(m) => {
            if let Some(n) = &m.name {
                out.push(n.to_string());
            }
            if let Some(p) = &m.pattern {
                pattern_names(p, out, depth + 1);
            }
        }
        Pattern::MatchStar(m) => {
            if let Some(n) = &m.name {
                out.push(n.to_string());
            }
        }
        Pattern::MatchMapping(m) => {
            if let Some(n) = &m.rest {
                out.push(n.to_string());
            }
            m.patterns
                .iter()
                .for_each(|p| pattern_names(p, out, depth + 1));
        }
        Pattern::MatchSequence(m) => m
            .patterns
            .iter()
            .for_each(|p| pattern_names(p, out, depth + 1)),
        Pattern::MatchClass(m) => {
            m.arguments
                .patterns
                .iter()
                .for_each(|p| pattern_names(p, out, depth + 1));
            m.arguments
                .keywords
                .iter()
                .for_each(|k| pattern_names(&k.pattern, out, depth + 1));
        }
        Pattern::MatchOr(m) => m
            .patterns
            .iter()
            .for_each(|p| pattern_names(p, out, depth + 1)),
        Pattern::MatchValue(_) | Pattern::MatchSingleton(_) => {}
    }
}
