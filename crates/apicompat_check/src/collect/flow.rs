//! Control flow of a block: `if`/`elif`/`else` (what each branch runs under and what falls
//! through), `try` (handlers that guard, fallback imports) and `with suppress(...)`.

use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use super::binding_counts::{bindings, UNREAD};
use super::*;

impl<'a> Walker<'a> {
    pub(super) fn if_stmt(&mut self, s: &'a ast::StmtIf) {
        let falsy = std::mem::take(&mut self.falsy_flags);
        if is_type_checking(&s.test) {
            // Only for type checkers: the body never runs.
            for clause in &s.elif_else_clauses {
                if let Some(test) = &clause.test {
                    self.visit_expr(test);
                }
                self.body(&clause.body);
            }
            return;
        }
        // `if False:` / `if 0:` (code switched off), `if True:`, and at the module's top level
        // a test of its constant flags (`constants.rs`): only the branch the constant picks
        // runs; an `elif` after a false one is left to the general reading.
        let truth = literal_truth(&s.test).or_else(|| self.flag_truth(&s.test));
        match (truth, &s.elif_else_clauses[..]) {
            (Some(true), _) => return self.body(&s.body),
            (Some(false), []) => return,
            (
                Some(false),
                [ast::ElifElseClause {
                    test: None, body, ..
                }],
            ) => return self.body(body),
            _ => {}
        }
        let main_block = self.scopes.len() == 1 && is_main_test(&s.test);
        if main_block {
            self.out.is_main = true;
        }
        self.visit_expr(&s.test);
        let info = self.test_info(&s.test);
        let mut branch = self.branch_ctx(&info, true);
        branch.in_main |= main_block && !self.ctx.in_function;
        self.add_truths(&mut branch, &s.test, true);
        let followed = self.arms_start();
        // The contexts of the branches that fall through to the rest of the block.
        let mut through: Vec<Ctx<'a>> = Vec::new();
        if !leaves(&s.body) {
            through.push(branch.clone());
        }
        self.with_ctx(branch, |w| w.body(&s.body));
        self.arm_done(followed, 0);
        // Each later clause runs when the earlier conditions were false.
        let mut before = self.branch_ctx(&info, false);
        self.add_truths(&mut before, &s.test, false);
        let mut has_else = false;
        // The conjunctions found false so far (the latest few: an `elif` chain stays linear).
        let mut falses: Vec<&ast::ExprBoolOp> = Vec::new();
        note_conjunction(&mut falses, &s.test);
        for (i, clause) in s.elif_else_clauses.iter().enumerate() {
            match &clause.test {
                Some(test) => {
                    self.with_ctx(before.clone(), |w| w.visit_expr(test));
                    let saved = std::mem::replace(&mut self.ctx, before.clone());
                    let info = self.test_info(test);
                    let mut inner = self.branch_ctx(&info, true);
                    self.add_truths(&mut inner, test, true);
                    let mut next = self.branch_ctx(&info, false);
                    self.add_truths(&mut next, test, false);
                    // `if A and B: ... elif A: ...`: B is false where the `elif` runs.
                    for other in other_conjuncts(&falses, test) {
                        self.ctx = inner;
                        let info = self.test_info(other);
                        inner = self.branch_ctx(&info, false);
                    }
                    note_conjunction(&mut falses, test);
                    self.ctx = saved;
                    if !leaves(&clause.body) {
                        through.push(inner.clone());
                    }
                    self.with_ctx(inner, |w| w.body(&clause.body));
                    before = next;
                }
                None => {
                    has_else = true;
                    if !leaves(&clause.body) {
                        through.push(before.clone());
                    }
                    self.with_ctx(before.clone(), |w| w.body(&clause.body));
                }
            }
            self.arm_done(followed, i + 1);
        }
        self.arms_end(followed, s);
        if !has_else {
            through.push(before);
        }
        if let [ast::ElifElseClause {
            test: None,
            body: orelse,
            ..
        }] = &s.elif_else_clauses[..]
        {
            self.branch_flags(&info, &s.test, &s.body, orelse);
        }
        if s.elif_else_clauses.is_empty() && !falsy.is_empty() {
            self.set_flags(&info, &s.test, &s.body, &falsy);
        }
        // One way on: the rest of the block runs under its conditions.
        if let [only] = &mut through[..] {
            self.continuation = Some(std::mem::take(only));
        }
    }

    /// `if T: ...; FLAG = True` / `else: ...; FLAG = False` (or the other way round): after
    /// the `if`, `FLAG` is the test (or its negation), as when bound to it. Each branch sets
    /// the flag once, with a literal, and nothing else in it assigns the name.
    fn branch_flags(&mut self, info: &CondInfo, test: &Expr, body: &'a [Stmt], orelse: &'a [Stmt]) {
        let flags: Vec<(&str, bool)> = body.iter().filter_map(literal_flag).collect();
        let strings: Vec<(&str, &str)> = body.iter().filter_map(string_flag).collect();
        if flags.is_empty() && strings.is_empty() {
            return;
        }
        let (in_body, in_else) = (bindings(body), bindings(orelse));
        let once = |counts: &HashMap<&str, usize>, name: &str| {
            counts.get(name) == Some(&1) && !counts.contains_key(UNREAD)
        };
        let bound = |truth: bool| {
            if truth {
                Bound::Cond(
                    info.restriction.clone(),
                    info.has.clone(),
                    info.reads_true.clone(),
                )
            } else {
                let restriction = info.restriction.negate().unwrap_or_else(|| Restriction {
                    parts: info.false_parts.clone(),
                    complete: false,
                });
                Bound::Cond(restriction, info.has_neg.clone(), info.reads_false.clone())
            }
        };
        for (name, truth) in flags {
            let other = orelse
                .iter()
                .filter_map(literal_flag)
                .any(|(n, t)| n == name && t != truth);
            if !other || !once(&in_body, name) || !once(&in_else, name) {
                continue;
            }
            self.bind(name, bound(truth));
            self.flag_of_test(name, test, truth);
        }
        // `if T: MODE = "flash"` / `else: MODE = "math"`: `MODE == "flash"` is `T`, `MODE ==
        // "math"` its negation (and `!=` the other way), bound under those comparisons' keys.
        for (name, value) in strings {
            let other = orelse
                .iter()
                .filter_map(string_flag)
                .find(|(n, v)| *n == name && v != &value);
            let Some((_, other)) = other else { continue };
            if !once(&in_body, name) || !once(&in_else, name) {
                continue;
            }
            for (v, truth) in [(value, true), (other, false)] {
                self.bind_compared(name, v, true, bound(truth));
                self.bind_compared(name, v, false, bound(!truth));
            }
        }
    }

    /// `FLAG = False` a few statements before `if T: ...; FLAG = True` (no `else`) in the same
    /// block, `FLAG` stored nowhere between: after the `if`, `FLAG` is the test, as when bound
    /// to it (it is true exactly where `T` was). The `if` sets the flag once, with a literal.
    fn set_flags(&mut self, info: &CondInfo, test: &Expr, body: &'a [Stmt], falsy: &[&str]) {
        let counts = bindings(body);
        if counts.contains_key(UNREAD) {
            return;
        }
        for (name, truth) in body.iter().filter_map(literal_flag) {
            if !truth || !falsy.contains(&name) || counts.get(name) != Some(&1) {
                continue;
            }
            self.module_binding(name, Some(info));
            self.bind(
                name,
                Bound::Cond(
                    info.restriction.clone(),
                    info.has.clone(),
                    info.reads_true.clone(),
                ),
            );
            self.flag_of_test(name, test, true);
        }
    }

    /// Binds what `name == "value"` (`equal`) or `name != "value"` says; a store of `name`
    /// ends it.
    fn bind_compared(&mut self, name: &str, value: &str, equal: bool, bound: Bound) {
        let key = compared_key(name, value, equal);
        self.bind(&key, bound);
        if let Some(scope) = self.binding_scope(name) {
            scope
                .compared
                .entry(name.to_string())
                .or_default()
                .push(key);
        }
    }

    /// The context of the branch taken when a condition is `truth`.
    pub(super) fn branch_ctx(&self, info: &CondInfo, truth: bool) -> Ctx<'a> {
        let mut ctx = self.ctx.clone();
        let (versions, has, requires) = (ctx.versions.len(), ctx.has.len(), ctx.requires.len());
        let reads = if truth {
            ctx.versions.extend(info.restriction.parts.iter().cloned());
            ctx.has.extend(info.has.iter().cloned());
            ctx.inexact |= !info.restriction.complete
                || info.restriction.parts.is_empty()
                || !info.has.is_empty()
                || !info.reads_true.is_empty();
            &info.reads_true
        } else {
            match info.restriction.negate() {
                Some(neg) => ctx.versions.extend(neg.parts),
                None => {
                    ctx.inexact = true;
                    ctx.versions.extend(info.false_parts.iter().cloned())
                }
            }
            ctx.inexact |= !info.has_neg.is_empty() || !info.reads_false.is_empty();
            ctx.has.extend(info.has_neg.iter().cloned());
            &info.reads_false
        };
        for r in reads {
            if !ctx.requires.contains(r) {
                ctx.requires.push(r.clone());
            }
        }
        if ctx.versions.len() > versions || ctx.has.len() > has || ctx.requires.len() > requires {
            ctx.guard_at = info.at.or(ctx.guard_at);
        }
        ctx
    }

    pub(super) fn try_stmt(&mut self, t: &'a ast::StmtTry) {
        // A handler that raises again (`except ImportError: raise ImportError("needs ...")`)
        // or exits is no guard: the failure still happens, with another message.
        let catches = |is: &dyn Fn(&Expr) -> bool| {
            t.handlers.iter().any(|h| {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                !super::fails_again(&h.body) && handler_catches(h, is)
            })
        };
        let guards = catches(&is_guard_exception);
        let call_guards =
            catches(&|e: &Expr| dotted(e).is_some_and(|d| last_segment(&d) == "TypeError"));
        let mut body_ctx = self.ctx.clone();
        body_ctx.try_guard |= guards;
        body_ctx.call_guard |= call_guards;
        if guards || call_guards {
            // The first handler: `except ImportError:`.
            body_ctx.guard_at = t.handlers.first().map(Ranged::range).or(body_ctx.guard_at);
        }
        let uses_before = self.out.uses.len();
        self.with_ctx(body_ctx, |w| w.body(&t.body));
        // Where a handler that catches the body's failure runs: where a path the body needs is
        // missing (`try: from a import b, c`, `try: n = np.get_include()`, `try: n =
        // cache.get_max_cache_shape()` once the semantic model knows the class of `cache`).
        // With `binds`, the body also calls an indexed function with arguments a release may
        // refuse (a `TypeError`): a handler that catches that runs there too.
        let (fallback, binds) = match self.only_import(&t.body, uses_before) {
            // An imported attribute is a module global: the import finds it.
            Some(paths) => (
                paths.split_first().map(|(path, others)| PathTest {
                    path: path.clone(),
                    present: false,
                    instance: true,
                    alternatives: others.to_vec(),
                }),
                false,
            ),
            None => match self.only_reads(&t.body, uses_before) {
                Some((test, binds)) => (Some(test), binds),
                None => (None, false),
            },
        };
        for h in &t.handlers {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            if let Some(ty) = &h.type_ {
                self.visit_expr(ty);
            }
            if let Some(name) = &h.name {
                self.store(name.as_str());
            }
            let mut hctx = self.ctx.clone();
            hctx.handler = true;
            let reraises = super::fails_again(&h.body);
            let catches_guard = handler_catches(h, &is_guard_exception);
            hctx.fallback |= catches_guard && !reraises;
            if catches_guard && !reraises {
                hctx.handler_imports = Some(flags::imported_roots(&t.body).into());
                let type_error = |e: &Expr| {
                    dotted(e).is_some_and(|d| {
                        matches!(
                            last_segment(&d),
                            "TypeError" | "Exception" | "BaseException"
                        )
                    })
                };
                let catches_type_error = binds && handler_catches(h, &type_error);
                if let Some(test) = fallback
                    .as_ref()
                    .filter(|t| !catches_type_error && !hctx.requires.contains(t))
                {
                    hctx.requires.push(test.clone());
                }
            }
            self.with_ctx(hctx, |w| w.body(&h.body));
        }
        self.body(&t.orelse);
        self.body(&t.finalbody);
        self.import_flags(t);
    }

    /// The indexed paths the top-level imports of a `try` body bring in (`from torchvision
    /// import tv_tensors`: `torchvision.tv_tensors`), in order, with the position in the
    /// body of the statement that imports each.
    pub(super) fn imported_paths(&self, body: &[Stmt]) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        for (i, stmt) in body.iter().enumerate() {
            let modules: Vec<String> = match stmt {
                Stmt::Import(imp) => imp.names.iter().map(|a| a.name.to_string()).collect(),
                Stmt::ImportFrom(imp) if imp.level == 0 => {
                    let Some(m) = &imp.module else { continue };
                    imp.names
                        .iter()
                        .filter(|a| a.name.as_str() != "*")
                        .map(|a| format!("{m}.{}", a.name))
                        .collect()
                }
                _ => continue,
            };
            for path in modules {
                let root = path.split('.').next().unwrap_or(&path);
                if self.roots.contains(root) {
                    out.push((i, path));
                }
            }
        }
        out
    }

    /// `try: from m import n; FLAG = True` with every handler that catches `ImportError`
    /// leaving or setting `FLAG = False` (or `None`): after the `try`, `FLAG` is true only where
    /// the body ran through, so `if FLAG:` runs where the paths imported exist.
    fn import_flags(&mut self, t: &'a ast::StmtTry) {
        let flags: Vec<&str> = t
            .body
            .iter()
            .filter_map(literal_flag)
            .filter_map(|(n, truth)| truth.then_some(n))
            .collect();
        if flags.is_empty() || !t.finalbody.is_empty() {
            return;
        }
        let paths = self.imported_paths(&t.body);
        if paths.is_empty() {
            return;
        }
        let assigned_later = |name: &str| {
            t.orelse.iter().any(|s| match s {
                Stmt::Assign(a) => a
                    .targets
                    .iter()
                    .any(|e| matches!(e, Expr::Name(n) if n.id.as_str() == name)),
                _ => false,
            })
        };
        for name in flags {
            let clears = |body: &[Stmt]| {
                body.iter()
                    .filter_map(literal_flag)
                    .any(|(n, truth)| n == name && !truth)
            };
            let handled = import_handlers_leave(t, clears);
            if !handled || assigned_later(name) {
                continue;
            }
            let tests = paths
                .iter()
                .map(|(_, path)| PathTest::exists(path.clone()))
                .collect();
            let unknown = Restriction {
                parts: Vec::new(),
                complete: false,
            };
            self.bind(name, Bound::Cond(unknown, Vec::new(), tests));
        }
    }

    /// For a `try` body made only of imports of names of indexed packages (`from a import b,
    /// c`, `import a.b`): the paths imported (the walk of the body added one use for each, from
    /// `uses_before`). Anything else in the body (another statement, a module outside the
    /// index, a relative import) could fail too: None.
    pub(super) fn only_import(&self, body: &[Stmt], uses_before: usize) -> Option<Vec<String>> {
        let mut names = 0;
        let mut imports: Vec<TextRange> = Vec::new();
        for stmt in body {
            match stmt {
                Stmt::ImportFrom(i) if i.level == 0 => names += i.names.len(),
                Stmt::Import(i) => names += i.names.len(),
                s if cannot_fail(s) => continue,
                _ => return None,
            }
            imports.push(stmt.range());
        }
        let added: Vec<&Use> = self
            .out
            .uses
            .get(uses_before..)?
            .iter()
            .filter(|u| imports.iter().any(|r| r.contains_range(u.range)))
            .collect();
        if names == 0 || added.len() != names || added.iter().any(|u| u.kind != UseKind::Import) {
            return None;
        }
        let mut paths: Vec<String> = added.iter().map(|u| u.path.clone()).collect();
        paths.dedup();
        Some(paths)
    }

    /// For a `try` body of at most three plain statements (assignments, expressions, a
    /// `return`) whose only reads that may fail are attributes of indexed packages
    /// (`n = np.get_include()`): a test that one of them is missing; or whose only one is an
    /// attribute of an object the walk cannot resolve (`n = cache.get_max_cache_shape()`):
    /// that read, as a test on the object ([`OBJECT_TEST`]). Any other attribute read (of a
    /// call's result, of a subscript, on an object beside a package's), a keyword or a call
    /// judged against a signature: None.
    fn only_reads(&self, body: &[Stmt], uses_before: usize) -> Option<(PathTest, bool)> {
        if body.is_empty() || body.len() > 3 {
            return None;
        }
        let mut values: Vec<&Expr> = Vec::new();
        for stmt in body {
            match stmt {
                Stmt::Assign(a) if a.targets.iter().all(|t| matches!(t, Expr::Name(_))) => {
                    values.push(&a.value)
                }
                Stmt::AnnAssign(a) if matches!(&*a.target, Expr::Name(_)) => {
                    values.extend(a.value.as_deref())
                }
                Stmt::Expr(e) => values.push(&e.value),
                Stmt::Return(r) => values.extend(r.value.as_deref()),
                s if cannot_fail(s) => {}
                _ => return None,
            }
        }
        let end = body.last()?.end();
        let start = body.first()?.start();
        let indexed: Vec<&Use> = self
            .out
            .uses
            .get(uses_before..)?
            .iter()
            .filter(|u| u.range.start() >= start && u.range.end() <= end)
            .collect();
        let binds = indexed
            .iter()
            .any(|u| matches!(u.kind, UseKind::Call(_) | UseKind::Keyword(_)));
        let indexed: Vec<&Use> = indexed
            .into_iter()
            .filter(|u| {
                matches!(
                    u.kind,
                    UseKind::Attribute | UseKind::Import | UseKind::Getattr
                )
            })
            .collect();
        let mut reads = AttributeReads {
            walker: self,
            found: Vec::new(),
            other: false,
        };
        for v in values {
            ruff_python_ast::visitor::Visitor::visit_expr(&mut reads, v);
        }
        if reads.other {
            return None;
        }
        let test = match (&*reads.found, &*indexed) {
            ([(receiver, attr)], []) if !binds => PathTest {
                path: format!("{OBJECT_TEST}{receiver}\u{0}{attr}"),
                present: false,
                instance: true,
                alternatives: Vec::new(),
            },
            ([], [first, rest @ ..]) => PathTest {
                path: first.path.clone(),
                present: false,
                instance: false,
                alternatives: rest.iter().map(|u| u.path.clone()).collect(),
            },
            _ => return None,
        };
        Some((test, binds))
    }

    pub(super) fn with_stmt(&mut self, w: &'a ast::StmtWith) {
        let mut suppresses = false;
        let mut expects_type_error = false;
        for item in &w.items {
            self.visit_expr(&item.context_expr);
            if let Expr::Call(call) = &item.context_expr {
                let name = dotted(&call.func);
                let last = name.as_deref().map(last_segment);
                // `suppress(ImportError)`, and a test's expected failure (`pytest.raises(
                // TypeError)`, `self.assertRaises(AttributeError)`): what fails in the body
                // is caught.
                let catches = matches!(last, Some("suppress" | "raises" | "assertRaises"));
                let named = |is: &dyn Fn(&Expr) -> bool| {
                    call.arguments.args.first().is_some_and(|e| match e {
                        Expr::Tuple(t) => t.elts.iter().any(is),
                        e => is(e),
                    }) || (last == Some("suppress") && call.arguments.args.iter().any(is))
                };
                suppresses |= catches && named(&is_guard_exception);
                expects_type_error |= catches
                    && last != Some("suppress")
                    && named(&|e: &Expr| {
                        dotted(e).is_some_and(|d| last_segment(&d) == "TypeError")
                    });
            }
            if let Some(vars) = &item.optional_vars {
                self.visit_expr(vars);
            }
        }
        let mut ctx = self.ctx.clone();
        ctx.try_guard |= suppresses;
        ctx.call_guard |= expects_type_error;
        if suppresses || expects_type_error {
            ctx.guard_at = Some(w.range());
        }
        self.with_ctx(ctx, |s| s.body(&w.body));
    }
}

/// A statement beside the imports of a `try` that cannot raise where it runs: `pass`, a name
/// bound to a literal (`HAS_APEX = True`), a function defined without decorators whose
/// defaults are literals (its body runs only when called).
fn cannot_fail(stmt: &Stmt) -> bool {
    let literal = |e: &Expr| {
        matches!(
            e,
            Expr::NoneLiteral(_)
                | Expr::BooleanLiteral(_)
                | Expr::NumberLiteral(_)
                | Expr::StringLiteral(_)
        )
    };
    match stmt {
        Stmt::Pass(_) => true,
        Stmt::Assign(a) => matches!(&*a.targets, [Expr::Name(_)]) && literal(&a.value),
        Stmt::FunctionDef(f) => {
            f.decorator_list.is_empty()
                && f.returns.is_none()
                && f.parameters.iter_non_variadic_params().all(|p| {
                    p.parameter.annotation.is_none() && p.default.as_deref().is_none_or(literal)
                })
        }
        _ => false,
    }
}

/// Conjunctions found false that an `elif` still compares with, at most.
const MAX_CONJUNCTIONS: usize = 16;

/// Records `test` among the conjunctions found false, if it is one (`A and B`).
fn note_conjunction<'e>(falses: &mut Vec<&'e ast::ExprBoolOp>, test: &'e Expr) {
    if let Expr::BoolOp(b) = test {
        if b.op == ast::BoolOp::And {
            if falses.len() == MAX_CONJUNCTIONS {
                falses.remove(0);
            }
            falses.push(b);
        }
    }
}

/// For each earlier test `A and B` found false, when a later test holds `A` (it is `A`, or `A
/// and ...`): `B`, the one conjunct the later test does not hold, which must then be false.
fn other_conjuncts<'e>(falses: &[&'e ast::ExprBoolOp], later: &Expr) -> Vec<&'e Expr> {
    if falses.is_empty() {
        return Vec::new();
    }
    let held: Vec<ComparableExpr> = match later {
        Expr::BoolOp(l) if l.op == ast::BoolOp::And => l.values.iter().map(Into::into).collect(),
        e => vec![e.into()],
    };
    falses
        .iter()
        .filter_map(|b| {
            let mut rest = b
                .values
                .iter()
                .filter(|v| !held.contains(&ComparableExpr::from(*v)));
            match (rest.next(), rest.next()) {
                (Some(one), None) => Some(one),
                _ => None,
            }
        })
        .collect()
}

/// Whether a handler catches an exception `is` accepts: a bare `except:`, one of a tuple, or
/// the class an expression evaluates to (`except ImportError or ModuleNotFoundError:` catches
/// `ImportError`, the first true operand; `A and B` catches `B`).
fn handler_catches(h: &ast::ExceptHandlerExceptHandler, is: &dyn Fn(&Expr) -> bool) -> bool {
    let Some(mut ty) = h.type_.as_deref() else {
        return true;
    };
    while let Expr::BoolOp(b) = ty {
        let picked = match b.op {
            ast::BoolOp::Or => b.values.first(),
            ast::BoolOp::And => b.values.last(),
        };
        let Some(e) = picked else {
            return false;
        };
        ty = e;
    }
    match ty {
        Expr::Tuple(tuple) => tuple.elts.iter().any(is),
        e => is(e),
    }
}

/// The attribute reads of an expression: `receiver.attr` on a dotted receiver the walker does
/// not resolve to an import (each chain counted once, by its last read), and whether there is
/// another kind (`f().x`, `a[0].x`). Reads of a package's paths are its uses.
struct AttributeReads<'w, 'a> {
    walker: &'w Walker<'a>,
    found: Vec<(String, String)>,
    other: bool,
}

impl<'e> ruff_python_ast::visitor::Visitor<'e> for AttributeReads<'_, '_> {
    fn visit_expr(&mut self, expr: &'e Expr) {
        match expr {
            Expr::Attribute(a) => match dotted(&a.value) {
                Some(receiver) if self.walker.resolve(&a.value).is_none() => {
                    self.found.push((receiver, a.attr.to_string()));
                }
                // A package's path: the walk made it a use.
                Some(_) => {}
                None => {
                    self.other = true;
                    ruff_python_ast::visitor::walk_expr(self, expr);
                }
            },
            // A function or lambda defined here runs later, if at all.
            Expr::Lambda(_) => {}
            _ => ruff_python_ast::visitor::walk_expr(self, expr),
        }
    }
}

/// `NAME = True`, `NAME = False` or `NAME = None`: the name and whether the value is true.
/// `NAME = "text"`.
fn string_flag(stmt: &Stmt) -> Option<(&str, &str)> {
    let Stmt::Assign(a) = stmt else { return None };
    let [Expr::Name(n)] = &*a.targets else {
        return None;
    };
    match &*a.value {
        Expr::StringLiteral(s) => Some((n.id.as_str(), s.value.to_str())),
        _ => None,
    }
}

/// The key a comparison of a name with a string is bound under ([`Walker::branch_flags`]).
pub(super) fn compared_key(name: &str, value: &str, equal: bool) -> String {
    format!("{name}{}{value:?}", if equal { "==" } else { "!=" })
}

/// How many statements after `FLAG = False` an `if` may set the flag ([`Walker::set_flags`]).
pub(super) const SET_FLAG_WINDOW: usize = 8;

/// After `stmt` (at `i` in its block): the names of `falsy` it stores are dropped, and one it
/// sets to a falsy literal is added. A statement binding names the count does not see
/// (imports, definitions, a block too deep to read) drops every one.
pub(super) fn note_falsy_store<'a>(stmt: &'a Stmt, i: usize, falsy: &mut Vec<(&'a str, usize)>) {
    if !falsy.is_empty() {
        let unseen = matches!(
            stmt,
            Stmt::Import(_) | Stmt::ImportFrom(_) | Stmt::FunctionDef(_) | Stmt::ClassDef(_)
        );
        let stored = bindings(std::slice::from_ref(stmt));
        if unseen || stored.contains_key(UNREAD) {
            falsy.clear();
        } else {
            falsy.retain(|(n, _)| !stored.contains_key(n));
        }
    }
    if let Some(name) = super::cleared::falsy_store(stmt) {
        falsy.push((name, i));
    }
}

fn literal_flag(stmt: &Stmt) -> Option<(&str, bool)> {
    let Stmt::Assign(a) = stmt else { return None };
    let [Expr::Name(n)] = &*a.targets else {
        return None;
    };
    match &*a.value {
        Expr::BooleanLiteral(b) => Some((n.id.as_str(), b.value)),
        Expr::NoneLiteral(_) => Some((n.id.as_str(), false)),
        _ => None,
    }
}

/// Whether every handler of `t` that catches `ImportError` leaves, or `clears` its body
/// (sets a flag false).
pub(super) fn import_handlers_leave(t: &ast::StmtTry, clears: impl Fn(&[Stmt]) -> bool) -> bool {
    t.handlers.iter().all(|h| {
        let ast::ExceptHandler::ExceptHandler(h) = h;
        !handler_catches(h, &is_guard_exception) || leaves(&h.body) || clears(&h.body)
    })
}

/// The truth of a test that is a constant (`False`, `0`, `None`, `not True`).
pub(super) fn literal_truth(e: &Expr) -> Option<bool> {
    match e {
        Expr::BooleanLiteral(b) => Some(b.value),
        Expr::NoneLiteral(_) => Some(false),
        Expr::NumberLiteral(n) => match &n.value {
            ast::Number::Int(i) => Some(i.as_u64() != Some(0)),
            _ => None,
        },
        Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => literal_truth(&u.operand).map(|t| !t),
        _ => None,
    }
}

impl Walker<'_> {
    /// The truth of a module-level test of a constant flag of the module (`if _PY2:`, `if not
    /// DEBUG:`) made after its assignment, while the module is imported.
    fn flag_truth(&self, test: &Expr) -> Option<bool> {
        if self.scopes.len() != 1 || self.ctx.in_function {
            return None;
        }
        match test {
            Expr::Name(n) => {
                let (truth, end) = self.constant_flags.get(n.id.as_str())?;
                (*end <= test.start()).then_some(*truth)
            }
            Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => {
                self.flag_truth(&u.operand).map(|t| !t)
            }
            _ => None,
        }
    }
}
