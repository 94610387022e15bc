//! The walk over statements and expressions: each attribute read, call and keyword of an
//! indexed path becomes a use; reads on other receivers are recorded for the semantic model.

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::Ranged;

use super::*;

impl<'a> Visitor<'a> for Walker<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth >= MAX_DEPTH {
            self.out.too_deep.get_or_insert(stmt.range());
            return;
        }
        self.depth += 1;
        let saved_start = self.stmt_start;
        self.stmt_start = stmt.start();
        match stmt {
            Stmt::Import(imp) => self.import(imp),
            Stmt::ImportFrom(imp) => self.import_from(imp),
            Stmt::FunctionDef(f) => self.function_def(f),
            Stmt::ClassDef(c) => self.class_def(c),
            Stmt::If(s) => {
                self.if_stmt(s);
                self.clearing_if(s);
            }
            Stmt::Try(t) => self.try_stmt(t),
            Stmt::With(w) => self.with_stmt(w),
            Stmt::Assign(a) => {
                self.dispatch_table(a);
                self.visit_expr(&a.value);
                match &*a.targets {
                    [Expr::Name(n)] => self.assign_name(n.id.as_str(), &a.value),
                    [Expr::Tuple(t)] if self.unpack_version(t, &a.value) => {}
                    targets => {
                        if let [target @ Expr::Attribute(t)] = targets {
                            self.self_store(t, &a.value);
                            self.restore(target, &a.value, stmt.range());
                        }
                        targets.iter().for_each(|t| self.visit_expr(t))
                    }
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.visit_expr(v);
                }
                self.visit_annotation(&a.annotation);
                match (&*a.target, &a.value) {
                    (Expr::Name(n), Some(v)) => self.assign_name(n.id.as_str(), v),
                    (t, _) => self.visit_expr(t),
                }
            }
            Stmt::Global(g) => {
                let names: Vec<String> = g.names.iter().map(|n| n.to_string()).collect();
                if let Some(scope) = self.scopes.last_mut() {
                    scope.globals.extend(names);
                }
            }
            // `assert C`: the rest of the block runs only where `C` holds.
            Stmt::Assert(a) => {
                visitor::walk_stmt(self, stmt);
                let info = self.test_info(&a.test);
                let mut rest = self.branch_ctx(&info, true);
                self.add_truths(&mut rest, &a.test, true);
                if info.says_when_true() || rest.tests.is_longer_than(&self.ctx.tests) {
                    self.continuation = Some(rest);
                }
            }
            // `check_compatibility()`: the rest of the block runs only where the function
            // it calls returned, when that function asserts a condition.
            Stmt::Expr(e) => {
                visitor::walk_stmt(self, stmt);
                if let Some(restriction) = self.asserting_call(&e.value) {
                    let info = CondInfo {
                        restriction,
                        at: Some(e.value.range()),
                        ..CondInfo::default()
                    };
                    self.continuation = Some(self.branch_ctx(&info, true));
                }
            }
            _ => visitor::walk_stmt(self, stmt),
        }
        if matches!(stmt, Stmt::Expr(_) | Stmt::Assign(_) | Stmt::AugAssign(_)) {
            self.pytest_gates(stmt);
        }
        self.stmt_start = saved_start;
        self.depth -= 1;
    }

    fn visit_body(&mut self, body: &'a [Stmt]) {
        self.body(body);
    }

    fn visit_annotation(&mut self, expr: &'a Expr) {
        // Not evaluated with `from __future__ import annotations`, nor inside function bodies.
        if self.future_annotations || self.ctx.in_function {
            return;
        }
        self.visit_expr(expr);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth >= MAX_DEPTH {
            self.out.too_deep.get_or_insert(expr.range());
            return;
        }
        self.depth += 1;
        self.expr(expr);
        self.depth -= 1;
    }
}

impl Walker<'_> {
    /// `a, b, c = transformers.__version__.split(".")[:3]`: each name is that component of the
    /// version (`a == "4" and int(b) <= 31` is then a test of it). True when bound so.
    fn unpack_version(&mut self, targets: &ast::ExprTuple, value: &Expr) -> bool {
        if self.unpack_getter(targets, value) {
            return true;
        }
        if !super::terms::converts(value) || targets.elts.len() > 8 {
            return false;
        }
        let Some((root, term)) = self.version_term(value, 0) else {
            return false;
        };
        let Some(names) = tuple_names(targets) else {
            return false;
        };
        for (i, name) in names.into_iter().enumerate() {
            self.store(name);
            let item = crate::version_terms::Term::Index(Box::new(term.clone()), i as i64);
            self.bind(name, Bound::VersionTerm(root.clone(), item));
        }
        true
    }
}

impl Walker<'_> {
    /// `_torch_available, _torch_version = _is_package_available("torch", True)` with a
    /// [`Bound::TupleVersionGetter`] of this file: the name at the getter's item is the
    /// package's version, assigned as `V = importlib.metadata.version("torch")` is. True when
    /// bound so (every other name is stored).
    fn unpack_getter(&mut self, targets: &ast::ExprTuple, value: &Expr) -> bool {
        let Expr::Call(call) = value else {
            return false;
        };
        let Expr::Name(f) = &*call.func else {
            return false;
        };
        let Some(&Bound::TupleVersionGetter(at, item)) = self.lookup(f.id.as_str()) else {
            return false;
        };
        let Some(root) = call
            .arguments
            .args
            .get(at)
            .and_then(|a| self.package_named(a))
        else {
            return false;
        };
        let Some(names) = tuple_names(targets).filter(|n| item < n.len()) else {
            return false;
        };
        for (i, name) in names.into_iter().enumerate() {
            if i == item {
                self.assign_version_of(name, &root);
            } else {
                self.store(name);
            }
        }
        true
    }
}

/// The names a tuple of names binds (`a, b = ...`); `None` when one target is something else.
fn tuple_names(targets: &ast::ExprTuple) -> Option<Vec<&str>> {
    targets
        .elts
        .iter()
        .map(|e| match e {
            Expr::Name(n) => Some(n.id.as_str()),
            _ => None,
        })
        .collect()
}

/// Builtin classes a removed alias is put back as (`np.float = float`).
const BUILTIN_TYPES: &[&str] = &["bool", "bytes", "complex", "float", "int", "object", "str"];

impl<'a> Walker<'a> {
    /// `np.float = np.float_` (another path of the package) or `np.float = float` (a builtin
    /// class): a name the project puts back on a package. Other values are patches (`mod.f =
    /// wrapped(mod.f)` reads the original first), judged as usual.
    fn restore(&mut self, target: &Expr, value: &Expr, at: TextRange) {
        let Some((path, _)) = self.resolve(target) else {
            return;
        };
        let root = path.split('.').next().unwrap_or(&path);
        let value = match self.resolve(value) {
            Some((v, _)) if v.split('.').next() == Some(root) => Some(v),
            Some(_) => return,
            None => match value {
                Expr::Name(n)
                    if BUILTIN_TYPES.contains(&n.id.as_str())
                        && self.is_builtin(value, n.id.as_str()) =>
                {
                    None
                }
                _ => return,
            },
        };
        self.out.restores.push((path, value, at));
    }

    fn expr(&mut self, expr: &'a Expr) {
        let is_callee = self.callee == Some(expr.range());
        match expr {
            Expr::Name(n) => {
                if matches!(n.ctx, ExprContext::Store | ExprContext::Del) {
                    self.store(n.id.as_str());
                } else if !is_callee && !self.table_values.contains(&n.range()) {
                    self.reference(n);
                }
            }
            Expr::Attribute(a) if a.ctx == ExprContext::Load && !is_callee => {
                self.escaping.insert(a.attr.as_str());
                self.attribute(expr, a);
            }
            Expr::Attribute(a) if a.ctx == ExprContext::Load => self.attribute(expr, a),
            Expr::Attribute(a) if a.ctx == ExprContext::Store => {
                if let Some((path, via)) = self.resolve(expr) {
                    self.emit(UseKind::Store, path, expr.range(), Some(&via));
                }
                visitor::walk_expr(self, expr)
            }
            Expr::Call(call) => self.call(expr, call),
            Expr::Lambda(l) => {
                let mut scope = Scope::new(ScopeKind::Function);
                if let Some(params) = &l.parameters {
                    for p in params.iter_non_variadic_params() {
                        if let Some(d) = &p.default {
                            self.visit_expr(d);
                        }
                    }
                    for p in params.iter() {
                        scope.locals.insert(p.name().to_string());
                    }
                }
                self.scopes.push(scope);
                let mut ctx = self.ctx.clone();
                ctx.in_function = true;
                ctx.at_import = false;
                ctx.try_guard = false;
                self.with_ctx(ctx, |w| w.visit_expr(&l.body));
                self.scopes.pop();
            }
            Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => {
                let generators = match expr {
                    Expr::ListComp(c) => &c.generators,
                    Expr::SetComp(c) => &c.generators,
                    Expr::DictComp(c) => &c.generators,
                    Expr::Generator(c) => &c.generators,
                    _ => return,
                };
                let mut scope = Scope::new(ScopeKind::Comprehension);
                let mut names = LocalNames::default();
                for g in generators {
                    names.visit_expr(&g.target);
                }
                scope.locals = names.names;
                self.scopes.push(scope);
                visitor::walk_expr(self, expr);
                self.scopes.pop();
            }
            // `A and B`: `B` runs only where `A` holds (`is_xpu_available() and
            // torch.xpu.device_count() > 1`, `hasattr(m, "x") and m.x()`).
            // `A or B`: `B` runs only where `A` is false (`getattr(np, "trapezoid", None) or
            // np.trapz`).
            Expr::BoolOp(b) => {
                let truth = b.op == ast::BoolOp::And;
                // The context is copied only when an operand says something (most `or`s are
                // values: `x or default`).
                let mut saved: Option<Ctx<'a>> = None;
                let Some((last, rest)) = b.values.split_last() else {
                    return;
                };
                for v in rest {
                    self.visit_expr(v);
                    let info = self.test_info(v);
                    let says = if truth {
                        info.says_when_true()
                    } else {
                        info.says_when_false()
                    };
                    if says {
                        let next = self.branch_ctx(&info, truth);
                        let before = std::mem::replace(&mut self.ctx, next);
                        saved.get_or_insert(before);
                    }
                }
                self.visit_expr(last);
                if let Some(ctx) = saved {
                    self.ctx = ctx;
                }
            }
            // `k in NAME`: a membership test reads the name without passing it on.
            Expr::Compare(c) => {
                for (op, comparator) in c.ops.iter().zip(c.comparators.iter()) {
                    if let (ast::CmpOp::In | ast::CmpOp::NotIn, Expr::Name(n)) = (op, comparator) {
                        self.table_values.insert(n.range());
                    }
                }
                visitor::walk_expr(self, expr);
            }
            Expr::If(e) => {
                self.visit_expr(&e.test);
                let info = self.test_info(&e.test);
                let yes = self.branch_ctx(&info, true);
                let no = self.branch_ctx(&info, false);
                self.with_ctx(yes, |w| w.visit_expr(&e.body));
                self.with_ctx(no, |w| w.visit_expr(&e.orelse));
            }
            _ => visitor::walk_expr(self, expr),
        }
    }

    fn attribute(&mut self, expr: &'a Expr, a: &'a ast::ExprAttribute) {
        match self.resolve(expr) {
            Some((path, via)) => self.emit(UseKind::Attribute, path, expr.range(), Some(&via)),
            None => {
                self.site(a);
                self.member(a);
                visitor::walk_expr(self, expr)
            }
        }
    }

    /// `DISPATCH = {"llama": patch_llama, ...}` at module level, every value a name: a table
    /// whose calls (`DISPATCH[k](...)`) are calls of its values ([`FileUses::tables`]).
    fn dispatch_table(&mut self, a: &'a ast::StmtAssign) {
        if self.ctx.in_function || self.scopes.len() > 1 {
            return;
        }
        let ([Expr::Name(d)], Expr::Dict(dict)) = (&*a.targets, &*a.value) else {
            return;
        };
        let mut values = Vec::with_capacity(dict.items.len());
        for item in &dict.items {
            match (&item.key, &item.value) {
                (Some(_), Expr::Name(v)) => values.push(v),
                _ => return,
            }
        }
        if values.is_empty() {
            return;
        }
        self.table_values.extend(values.iter().map(|v| v.range()));
        self.out.tables.push((
            name_key(d.id.as_str()),
            super::locals::dispatch_key(d.id.as_str()),
            values.iter().map(|v| name_key(v.id.as_str())).collect(),
        ));
    }

    /// A name read other than as a callee: it escapes, and a function of that name may be
    /// called wherever its value goes. Read under version conditions or tests that found
    /// paths present (LLaMA-Factory: `elif model_type == "qwen2_5_vl": apply =
    /// apply_liger_kernel_to_qwen2_5_vl`, called after the `if`; study 46, F-AK), the value
    /// exists only where they held, and so does every later call of it: a call site with
    /// those conditions (not the `try` in force, which covers only this read).
    fn reference(&mut self, n: &'a ast::ExprName) {
        let name = n.id.as_str();
        // A parameter or other local variable of the function is no function of the module.
        let function = match self.lookup(name) {
            None => !self.is_unknown_local(name),
            Some(b) => matches!(b, Bound::Function | Bound::Helper(_)),
        };
        let has = if function {
            self.known_present()
        } else {
            Box::default()
        };
        if has.is_empty() && (!function || self.ctx.versions.is_empty()) {
            self.escaping.insert(name);
            return;
        }
        self.out.calls.push(CallSite {
            key: name_key(name),
            func: self.ctx.func,
            guarded: false,
            versions: self.ctx.versions.clone().into_boxed_slice(),
            has,
            at: self.ctx.guard_at.unwrap_or(n.range()),
        });
    }

    /// Records a call by name with the conditions it runs under (see [`crate::callers`]).
    fn call_site(&mut self, call: &'a ast::ExprCall) {
        let key = match &*call.func {
            Expr::Name(n) => name_key(n.id.as_str()),
            Expr::Attribute(a) => name_key(a.attr.as_str()),
            // `DISPATCH[k](...)`: a call of each function of the dict (`FileUses::tables`);
            // reading the dict's name so is no escape.
            Expr::Subscript(s) => match &*s.value {
                Expr::Name(d) => {
                    self.callee = Some(d.range());
                    super::locals::dispatch_key(d.id.as_str())
                }
                _ => return,
            },
            _ => return,
        };
        if !matches!(&*call.func, Expr::Subscript(_)) {
            self.callee = Some(call.func.range());
        }
        let guarded = self.ctx.try_guard;
        let has = self.known_present();
        if !guarded && self.ctx.versions.is_empty() && has.is_empty() {
            self.plain_calls.insert((key, self.ctx.func));
            return;
        }
        self.out.calls.push(CallSite {
            key,
            func: self.ctx.func,
            guarded,
            versions: self.ctx.versions.clone().into_boxed_slice(),
            has,
            at: self.ctx.guard_at.unwrap_or(call.range()),
        });
    }

    pub(super) fn reach(&self) -> Reach {
        if self.ctx.in_function && !self.ctx.at_import {
            Reach::CallTime
        } else if self.ctx.in_main {
            Reach::Script
        } else {
            Reach::ImportTime
        }
    }

    /// A read of `name` is guarded: in a `try` that catches its failure, or after a
    /// `hasattr`/`getattr` probe of that name.
    fn member_guarded(&self, name: &str) -> bool {
        self.ctx.try_guard
            || self
                .ctx
                .has
                .iter()
                .any(|h| h.rsplit('.').next() == Some(name))
    }

    /// Records where an attribute read on a non-indexed receiver runs.
    fn site(&mut self, a: &ast::ExprAttribute) {
        let guarded = self.member_guarded(a.attr.as_str());
        self.out.sites.push(SiteContext {
            range: a.range(),
            stmt_start: self.stmt_start,
            reach: self.reach(),
            guarded,
            call_guarded: self.ctx.call_guard,
            versions: self.ctx.versions.clone().into_boxed_slice(),
            func: self.ctx.func,
            guard_at: self.guard_at(),
            requires: self.ctx.requires.clone().into_boxed_slice(),
            hook: None,
        });
    }

    /// Where the innermost guard or condition of the walk is.
    fn guard_at(&self) -> Option<GuardAt> {
        self.ctx.guard_at.map(|range| GuardAt { range, file: None })
    }

    /// Records an attribute read on a receiver of unknown type (not `self`/`cls`, not a
    /// literal of a builtin type).
    fn member(&mut self, a: &ast::ExprAttribute) {
        let name = a.attr.as_str();
        // Only private names are checked (see `members`); dunders come from `object`.
        if !name.starts_with('_') || is_dunder(name) {
            return;
        }
        let (receiver, root) = match &*a.value {
            Expr::Name(n) if matches!(n.id.as_str(), "self" | "cls") => return,
            Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::FString(_)
            | Expr::NumberLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::EllipsisLiteral(_)
            | Expr::List(_)
            | Expr::Tuple(_)
            | Expr::Dict(_)
            | Expr::Set(_)
            | Expr::ListComp(_)
            | Expr::SetComp(_)
            | Expr::DictComp(_) => return,
            // `Cls()._x`: the root of the callee tells where the object comes from.
            Expr::Call(c) => match dotted(&c.func) {
                Some(d) => {
                    let root = d.split('.').next().map(str::to_string);
                    (format!("{d}()"), root)
                }
                None => ("(...)".to_string(), None),
            },
            e => match dotted(e) {
                Some(d) => {
                    let root = d.split('.').next().map(str::to_string);
                    (d, root)
                }
                None => ("(...)".to_string(), None),
            },
        };
        let guarded = self.member_guarded(name);
        self.out.members.push(MemberUse {
            name: name.to_string(),
            receiver,
            root,
            range: a.range(),
            stmt_start: self.stmt_start,
            reach: self.reach(),
            guarded,
            versions: self.ctx.versions.clone(),
            func: self.ctx.func,
            requires: self.ctx.requires.clone(),
        });
    }

    fn call(&mut self, expr: &'a Expr, call: &'a ast::ExprCall) {
        let args = &call.arguments.args;
        // `f(**options)`: the semantic model may know the keywords `options` holds.
        for k in call.arguments.keywords.iter().filter(|k| k.arg.is_none()) {
            self.out.sites.push(SiteContext {
                range: k.range(),
                stmt_start: self.stmt_start,
                reach: self.reach(),
                guarded: self.ctx.try_guard || self.ctx.call_guard,
                call_guarded: self.ctx.call_guard,
                versions: self.ctx.versions.clone().into_boxed_slice(),
                func: self.ctx.func,
                guard_at: self.guard_at(),
                requires: self.ctx.requires.clone().into_boxed_slice(),
                hook: None,
            });
        }
        self.call_site(call);
        self.dynamic_import(call);
        if self.is_builtin(&call.func, "getattr") && (2..=3).contains(&args.len()) {
            if let (Some((path, via)), Some(name)) = (self.resolve(&args[0]), string_lit(&args[1]))
            {
                let guarded = args.len() == 3;
                let saved = self.ctx.try_guard;
                self.ctx.try_guard |= guarded;
                self.emit(
                    UseKind::Getattr,
                    format!("{path}.{name}"),
                    call.range(),
                    Some(&via),
                );
                self.ctx.try_guard = saved;
            }
        } else if let Some((raising, object, name)) = self.setattr_call(call) {
            // `setattr(mod, "x", v)`, `monkeypatch.setattr(mod, "x", v)`: an assignment; pytest
            // refuses to set a name the object lacks unless `raising=False`, so that reads it.
            if let Some((path, via)) = self.resolve(object) {
                let path = format!("{path}.{name}");
                if raising {
                    self.emit(
                        UseKind::Attribute,
                        path.clone(),
                        args[1].range(),
                        Some(&via),
                    );
                }
                self.emit(UseKind::Store, path, args[1].range(), Some(&via));
            }
        } else if let Some((path, via)) = self.resolve(&call.func) {
            if let Some(shape) = call_shape(call) {
                self.emit(UseKind::Call(shape), path.clone(), call.range(), Some(&via));
            }
            for k in call.arguments.keywords.iter() {
                if let Some(arg) = &k.arg {
                    self.emit(
                        UseKind::Keyword(arg.to_string()),
                        path.clone(),
                        k.range(),
                        Some(&via),
                    );
                }
            }
        }
        visitor::walk_expr(self, expr);
    }
}

impl<'a> Walker<'a> {
    /// `setattr(OBJ, "NAME", V)` (builtin: never raises for a missing name) or pytest's
    /// `monkeypatch.setattr(OBJ, "NAME", V)` (raises unless `raising=False`): whether it
    /// reads the name first, the object and the name.
    fn setattr_call(&self, call: &'a ast::ExprCall) -> Option<(bool, &'a Expr, String)> {
        let args = &call.arguments.args;
        let [object, name, _, ..] = &**args else {
            return None;
        };
        let name = string_lit(name)?;
        if self.is_builtin(&call.func, "setattr") && args.len() == 3 {
            return Some((false, object, name));
        }
        let Expr::Attribute(a) = &*call.func else {
            return None;
        };
        let receiver = dotted(&a.value)?;
        if a.attr.as_str() != "setattr" || !last_segment(&receiver).contains("monkeypatch") {
            return None;
        }
        let is_false = |e: &Expr| matches!(e, Expr::BooleanLiteral(b) if !b.value);
        let raising = !args.get(3).is_some_and(is_false)
            && !call
                .arguments
                .keywords
                .iter()
                .any(|k| k.arg.as_deref() == Some("raising") && is_false(&k.value));
        Some((raising, object, name))
    }
}

/// The arguments of a call, when they can be counted (no `*args`, no `**kwargs`).
fn call_shape(call: &ast::ExprCall) -> Option<crate::rules::CallShape> {
    let args = &call.arguments;
    if args.args.iter().any(|a| matches!(a, Expr::Starred(_))) {
        return None;
    }
    let keywords = args
        .keywords
        .iter()
        .map(|k| k.arg.as_ref().map(|a| a.to_string()))
        .collect::<Option<Vec<_>>>()?;
    Some(crate::rules::CallShape {
        positional: u32::try_from(args.args.len()).unwrap_or(u32::MAX),
        keywords,
    })
}
