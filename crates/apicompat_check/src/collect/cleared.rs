//! A local flag cleared under a negated test (study 14, F-B; ultralytics' `torch_safe_load`):
//!
//! ```python
//! def load(weight, safe_only=False):
//!     if safe_only and not SUPPORTED:      # SUPPORTED = hasattr(torch.serialization, "...")
//!         safe_only = False
//!     if safe_only:                        # SUPPORTED holds here
//!         register(weight)
//! ```
//!
//! After `if C: x = <falsy>` in a function, `x` true means `C` was false. When `C` is `x and
//! R`, `R and x` or `R` alone (`R` any test the walker reads: a flag, `hasattr`, a version
//! comparison, a helper's call; usually `not T`), `x` true means `R` was false: a *fact* about
//! `x`, read where `x` is tested (`if x:`, `x and ...`, `assert x`), one way only (`x` false
//! says nothing). The fact holds until the next store of `x` in walk order and to the end of
//! the block the `if` is in; a function defined after it (a closure reading `x`) keeps it when
//! the enclosing function stores `x` nowhere after the definition. No fact is made when `x`
//! is stored in a loop of the function (a later iteration may store it again before the
//! test), declared `nonlocal` in a nested function, `global`, stored elsewhere in the `if`
//! body, or used as an object in the function (`x.append(...)`, `x[k] = v`: an empty `x`
//! may become true without a store).

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::Ranged;

use super::*;

/// Facts made in one function, at most (each costs one scan of the function's body).
const MAX_FACTS: u8 = 8;

/// What a function scope knows of its cleared flags.
#[derive(Debug, Default)]
pub(super) struct Facts {
    /// Facts in force: the name, what its truth says, the block depth of the `if`.
    live: Vec<(String, CondInfo, u32)>,
    /// Names with a fact made in this scope, and the tick of their latest store since.
    watch: Vec<(String, u32)>,
    /// Facts of an enclosing function about its names, valid in this (nested) function.
    outer: Vec<(String, CondInfo)>,
    /// Facts made so far.
    made: u8,
}

impl Facts {
    fn is_empty(&self) -> bool {
        self.live.is_empty() && self.outer.is_empty()
    }

    /// A store of `name`: its facts end; a watched name records when (`tick`).
    pub(super) fn forget(&mut self, name: &str, tick: &mut u32) {
        if self.watch.is_empty() {
            return;
        }
        self.live.retain(|(n, _, _)| n != name);
        if let Some((_, last)) = self.watch.iter_mut().find(|(n, _)| n == name) {
            *tick = tick.saturating_add(1);
            *last = *tick;
        }
    }
}

/// A fact of the enclosing function, taken where a nested function is defined: with the
/// tick then for a fact made there (kept only if its name is not stored after), none for one
/// it inherited itself.
#[derive(Debug, Clone)]
pub(super) struct Snapshot {
    name: String,
    info: CondInfo,
    tick: Option<u32>,
}

impl<'a> Walker<'a> {
    /// After the `if` statement `s`: the facts of the flags its body clears.
    pub(super) fn clearing_if(&mut self, s: &'a ast::StmtIf) {
        if !s.elif_else_clauses.is_empty() {
            return;
        }
        let Some(scope) = self.scopes.last() else {
            return;
        };
        if scope.kind != ScopeKind::Function || scope.facts.made >= MAX_FACTS {
            return;
        }
        let Some(fn_body) = self.bodies.last().copied() else {
            return;
        };
        for stmt in &s.body {
            let Some(name) = falsy_store(stmt) else {
                continue;
            };
            let Some(scope) = self.scopes.last() else {
                return;
            };
            if scope.globals.contains(name) || scope.facts.made >= MAX_FACTS {
                continue;
            }
            // The rest of the test, beside `x` itself: one conjunct.
            let conjuncts: &[Expr] = match &*s.test {
                Expr::BoolOp(b) if b.op == ast::BoolOp::And => &b.values,
                t => std::slice::from_ref(t),
            };
            let mut rest = conjuncts
                .iter()
                .filter(|c| !matches!(c, Expr::Name(n) if n.id.as_str() == name));
            let (Some(r), None) = (rest.next(), rest.next()) else {
                continue;
            };
            // The scans below stay within the walk's depth bound.
            let limit = MAX_DEPTH.saturating_sub(self.depth);
            let in_if = StoreScan::of(&s.body, name, limit);
            if in_if.stores != 1 || in_if.cut {
                continue;
            }
            let mut info = self.false_info(r);
            if !info.says_when_true() {
                continue;
            }
            if let Some(scope) = self.scopes.last_mut() {
                scope.facts.made += 1;
            }
            let whole = StoreScan::of(fn_body, name, limit);
            if whole.loop_stores > 0 || whole.closure || whole.object || whole.cut {
                continue;
            }
            info.at = Some(s.test.range());
            let (block, tick) = (self.block, self.tick);
            if let Some(scope) = self.scopes.last_mut() {
                let facts = &mut scope.facts;
                facts.live.retain(|(n, _, _)| n != name);
                facts.live.push((name.to_string(), info, block));
                match facts.watch.iter_mut().find(|(n, _)| n == name) {
                    Some((_, last)) => *last = tick,
                    None => facts.watch.push((name.to_string(), tick)),
                }
            }
        }
    }

    /// What the test `r` being false says, one way: `not T` false is `T` true.
    fn false_info(&self, r: &Expr) -> CondInfo {
        let (restriction, has, reads) = match r {
            Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => {
                let t = self.test_info(&u.operand);
                (t.restriction, t.has, t.reads_true)
            }
            _ => {
                let t = self.test_info(r);
                let negated = t.restriction.negate().unwrap_or(Restriction {
                    parts: t.false_parts,
                    complete: false,
                });
                (negated, t.has_neg, t.reads_false)
            }
        };
        CondInfo {
            restriction: Restriction {
                parts: restriction.parts,
                complete: false,
            },
            has,
            reads_true: reads,
            ..CondInfo::default()
        }
    }

    /// The fact about `name` where it is read: the function binding it has one in force, or
    /// it is a name of an enclosing function that has one (a closure defined after it).
    /// Lambdas and comprehensions (run later, or lazily) get none.
    pub(super) fn cleared_fact(&self, name: &str) -> Option<CondInfo> {
        if self.scopes.iter().all(|s| s.facts.is_empty()) {
            return None;
        }
        let innermost = self.scopes.len().saturating_sub(1);
        for (i, scope) in self.scopes.iter().enumerate().rev() {
            match scope.kind {
                ScopeKind::Module | ScopeKind::Comprehension => return None,
                ScopeKind::Class => {
                    if i == innermost && scope.names.contains_key(name) {
                        return None;
                    }
                }
                ScopeKind::Function => {
                    if scope.globals.contains(name) {
                        return None;
                    }
                    let facts = &scope.facts;
                    if scope.locals.contains(name) || scope.names.contains_key(name) {
                        return facts
                            .live
                            .iter()
                            .find(|(n, _, _)| n == name)
                            .map(|(_, info, _)| info.clone());
                    }
                    return facts
                        .outer
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, info)| info.clone());
                }
            }
        }
        None
    }

    /// The end of a block: the facts its `if`s made end with it.
    pub(super) fn end_block(&mut self) {
        let block = self.block;
        if let Some(scope) = self.scopes.last_mut() {
            if !scope.facts.live.is_empty() {
                scope.facts.live.retain(|(_, _, b)| *b < block);
            }
        }
    }

    /// The facts a function defined here may inherit.
    pub(super) fn facts_snapshot(&self) -> Vec<Snapshot> {
        let Some(scope) = self.scopes.last() else {
            return Vec::new();
        };
        if scope.kind != ScopeKind::Function || scope.facts.is_empty() {
            return Vec::new();
        }
        let live = scope.facts.live.iter().map(|(n, info, _)| Snapshot {
            name: n.clone(),
            info: info.clone(),
            tick: Some(self.tick),
        });
        let outer = scope
            .facts
            .outer
            .iter()
            .filter(|(n, _)| !scope.locals.contains(n))
            .map(|(n, info)| Snapshot {
                name: n.clone(),
                info: info.clone(),
                tick: None,
            });
        live.chain(outer).collect()
    }

    /// Of the facts taken where a function was defined, those still true when its body runs:
    /// the enclosing function (the innermost scope now) stored the name nowhere after.
    pub(super) fn inherited(&self, snapshot: Vec<Snapshot>) -> Vec<(String, CondInfo)> {
        let Some(enclosing) = self.scopes.last() else {
            return Vec::new();
        };
        snapshot
            .into_iter()
            .filter(|s| match s.tick {
                None => true,
                Some(t) => enclosing
                    .facts
                    .watch
                    .iter()
                    .find(|(n, _)| *n == s.name)
                    .is_some_and(|(_, last)| *last <= t),
            })
            .map(|s| (s.name, s.info))
            .collect()
    }

    /// The scope of a function body being walked gets the facts it inherits.
    pub(super) fn set_outer_facts(scope: &mut Scope, outer: Vec<(String, CondInfo)>) {
        scope.facts.outer = outer
            .into_iter()
            .filter(|(n, _)| !scope.locals.contains(n) && !scope.globals.contains(n))
            .collect();
    }
}

/// `x = False` (or `None`, `0`, `""`, `()`: values no method makes true): the name.
pub(super) fn falsy_store(stmt: &Stmt) -> Option<&str> {
    let (target, value) = match stmt {
        Stmt::Assign(a) => match &*a.targets {
            [t] => (t, &*a.value),
            _ => return None,
        },
        Stmt::AnnAssign(a) => (&*a.target, a.value.as_deref()?),
        _ => return None,
    };
    let Expr::Name(n) = target else {
        return None;
    };
    let falsy = match value {
        Expr::BooleanLiteral(b) => !b.value,
        Expr::NoneLiteral(_) => true,
        Expr::NumberLiteral(num) => match &num.value {
            ast::Number::Int(i) => i.as_u64() == Some(0),
            ast::Number::Float(f) => *f == 0.0,
            ast::Number::Complex { .. } => false,
        },
        Expr::StringLiteral(s) => s.value.is_empty(),
        Expr::BytesLiteral(b) => b.value.is_empty(),
        Expr::Tuple(t) => t.elts.is_empty(),
        _ => false,
    };
    falsy.then_some(n.id.as_str())
}

/// The stores of one name in a block: how many, how many inside loops, and whether a nested
/// function or class declares it `nonlocal` (a closure may store it at any time).
struct StoreScan<'n> {
    name: &'n str,
    stores: u32,
    loop_stores: u32,
    closure: bool,
    loops: u32,
    /// Inside a nested function or class: only `nonlocal` counts.
    nested: u32,
    depth: usize,
    limit: usize,
    /// Nesting went deeper than `limit`: what is below was not seen.
    cut: bool,
    /// The name is used as an object (`x.append(...)`, `x[k] = v`): an empty value may
    /// become true without a store.
    object: bool,
}

impl<'n> StoreScan<'n> {
    fn of(body: &[Stmt], name: &'n str, limit: usize) -> StoreScan<'n> {
        let mut scan = StoreScan {
            name,
            stores: 0,
            loop_stores: 0,
            closure: false,
            loops: 0,
            nested: 0,
            depth: 0,
            limit,
            cut: false,
            object: false,
        };
        for s in body {
            scan.visit_stmt(s);
        }
        scan
    }

    fn store(&mut self, name: &str) {
        if self.nested == 0 && name == self.name {
            self.stores += 1;
            if self.loops > 0 {
                self.loop_stores += 1;
            }
        }
    }
}

impl<'a> Visitor<'a> for StoreScan<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth >= self.limit {
            self.cut = true;
            return;
        }
        self.depth += 1;
        match stmt {
            Stmt::FunctionDef(f) => {
                self.store(f.name.as_str());
                self.nested += 1;
                for s in &f.body {
                    self.visit_stmt(s);
                }
                self.nested -= 1;
            }
            Stmt::ClassDef(c) => {
                self.store(c.name.as_str());
                self.nested += 1;
                for s in &c.body {
                    self.visit_stmt(s);
                }
                self.nested -= 1;
            }
            Stmt::Nonlocal(n) => {
                if self.nested > 0 && n.names.iter().any(|i| i.as_str() == self.name) {
                    self.closure = true;
                }
            }
            Stmt::Import(i) => {
                for a in &i.names {
                    let full = a.name.as_str();
                    let bound = a
                        .asname
                        .as_ref()
                        .map_or(full.split('.').next().unwrap_or(full), |n| n.as_str());
                    self.store(bound);
                }
            }
            Stmt::ImportFrom(i) => {
                for a in &i.names {
                    self.store(a.asname.as_ref().unwrap_or(&a.name).as_str());
                }
            }
            Stmt::For(_) | Stmt::While(_) => {
                self.loops += 1;
                visitor::walk_stmt(self, stmt);
                self.loops -= 1;
            }
            Stmt::Try(t) => {
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(n) = &h.name {
                        self.store(n.as_str());
                    }
                }
                visitor::walk_stmt(self, stmt);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth >= self.limit {
            self.cut = true;
            return;
        }
        self.depth += 1;
        let is_name = |e: &Expr| matches!(e, Expr::Name(n) if n.id.as_str() == self.name);
        match expr {
            Expr::Name(n) if n.ctx != ExprContext::Load => self.store(n.id.as_str()),
            Expr::Attribute(a) if self.nested == 0 && is_name(&a.value) => self.object = true,
            Expr::Subscript(s) if self.nested == 0 && is_name(&s.value) => {
                self.object = true;
                visitor::walk_expr(self, expr);
            }
            _ => visitor::walk_expr(self, expr),
        }
        self.depth -= 1;
    }

    fn visit_pattern(&mut self, pattern: &'a ast::Pattern) {
        let bound = match pattern {
            ast::Pattern::MatchAs(p) => p.name.as_ref(),
            ast::Pattern::MatchStar(p) => p.name.as_ref(),
            ast::Pattern::MatchMapping(p) => p.rest.as_ref(),
            _ => None,
        };
        if let Some(n) = bound {
            self.store(n.as_str());
        }
        visitor::walk_pattern(self, pattern);
    }
}
