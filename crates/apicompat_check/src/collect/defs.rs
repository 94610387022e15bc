//! Definitions and assignments: what a name is bound to (`def`, `class`, `NAME = value`), and
//! the function bodies walked once their scope is done.

use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

use super::*;

impl<'a> Walker<'a> {
    pub(super) fn run_deferred(&mut self) {
        let list = self
            .deferred
            .last_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        for (f, ctx, facts) in list {
            self.function_body(f, ctx, facts);
        }
    }

    pub(super) fn function_body(
        &mut self,
        f: &'a ast::StmtFunctionDef,
        ctx: Ctx<'a>,
        facts: Vec<cleared::Snapshot>,
    ) {
        let mut scope = Scope::new(ScopeKind::Function);
        let mut locals = LocalNames {
            walrus: self.walrus,
            ..LocalNames::default()
        };
        for p in f.parameters.iter() {
            locals.names.insert(p.name().to_string());
        }
        for stmt in &f.body {
            locals.visit_stmt(stmt);
        }
        scope.imported_only = locals.imported_only(self.roots);
        if !locals.plain_defs.is_empty() && self.scopes.len() <= NEVER_CALLED_DEPTH {
            scope.never_called = locals::never_named(&f.body, &locals.plain_defs);
        }
        scope.locals = locals.names;
        scope.globals = locals.globals;
        if !facts.is_empty() {
            let outer = self.inherited(facts);
            Self::set_outer_facts(&mut scope, outer);
        }
        self.scopes.push(scope);
        self.bind_instance_tests(f);
        self.bodies.push(&f.body);
        self.deferred.push(Vec::new());
        let at_import = self.scopes.len() == 2 && self.import_time.contains(&f.name.as_str());
        let ctx = Ctx {
            in_function: true,
            at_import,
            try_guard: false,
            call_guard: false,
            handler: false,
            ..ctx
        };
        let saved_start = self.stmt_start;
        self.with_ctx(ctx, |w| {
            w.body(&f.body);
            if w.scopes.len() == 2 {
                // `def get_torch_version(): ...; return [int(p) for p in parts]`: what it
                // returns, for the conditions that call it (`get_torch_version() >= [1, 11]`).
                if f.parameters.is_empty() {
                    if let Some(Stmt::Return(r)) = f.body.last() {
                        if let Some((root, term)) =
                            r.value.as_deref().and_then(|v| w.version_term(v, 0))
                        {
                            w.out.values.push((format!("{}()", f.name), root, term));
                        }
                    }
                }
                let tests = w.true_returns(&f.body);
                w.out.presence.push((f.name.to_string(), tests));
                for (value, tests) in w.constant_returns(&f.body) {
                    w.out.presence.push((format!("{}={value}", f.name), tests));
                }
            }
            w.run_deferred();
        });
        self.stmt_start = saved_start;
        self.deferred.pop();
        self.bodies.pop();
        self.scopes.pop();
    }

    /// `_torch_version = "N/A"` at module level where the name holds a package's version (in
    /// the other branch of `if USE_TORCH: _torch_available, _torch_version = ... else:`): a text
    /// that is no version is the value where the package is not installed, where no release of
    /// it runs, so the name keeps the version. (Assigned before the version, the version
    /// replaces it as usual.)
    fn not_installed_text(&self, name: &str, value: &Expr) -> bool {
        if self.scopes.len() != 1 {
            return false;
        }
        let Some(text) = string_lit(value) else {
            return false;
        };
        crate::versions::Bound::parse_str(&text).is_none()
            && matches!(
                self.lookup(name),
                Some(Bound::VersionOf(_))
                    | Some(Bound::VersionTerm(_, crate::version_terms::Term::Version))
            )
    }

    /// For a function without parameters whose last statement returns a package's installed
    /// version: that package. The value is a name of the module bound to the version
    /// (`return _torch_version`), or the item of a tuple getter of this file unpacked just
    /// before (`_, v = _is_package_available("torch", return_version=True); return v`:
    /// transformers' `get_torch_version`).
    pub(super) fn version_returner(
        &self,
        params: &ast::Parameters,
        body: &[Stmt],
    ) -> Option<String> {
        if !params.is_empty() || self.scopes.len() != 1 {
            return None;
        }
        let body = match body {
            [Stmt::Expr(e), rest @ ..] if e.value.is_string_literal_expr() => rest,
            b => b,
        };
        let (Stmt::Return(ret), before) = body.split_last()? else {
            return None;
        };
        let Some(Expr::Name(returned)) = ret.value.as_deref() else {
            return None;
        };
        match before {
            [] => match self.lookup(returned.id.as_str())? {
                Bound::VersionOf(root)
                | Bound::VersionTerm(root, crate::version_terms::Term::Version) => {
                    Some(root.clone())
                }
                _ => None,
            },
            [Stmt::Assign(a)] => {
                let ([Expr::Tuple(targets)], Expr::Call(call)) = (&*a.targets, &*a.value) else {
                    return None;
                };
                let Expr::Name(f) = &*call.func else {
                    return None;
                };
                let Some(&Bound::TupleVersionGetter(at, item)) = self.lookup(f.id.as_str()) else {
                    return None;
                };
                let Some(Expr::Name(n)) = targets.elts.get(item) else {
                    return None;
                };
                if n.id != returned.id {
                    return None;
                }
                self.package_named(call.arguments.args.get(at)?)
            }
            _ => None,
        }
    }

    /// `name` bound to the version of the package `root`, as by `name =
    /// importlib.metadata.version(root)`.
    pub(super) fn assign_version_of(&mut self, name: &str, root: &str) {
        self.module_binding(name, None);
        let term = crate::version_terms::Term::Version;
        if self.scopes.len() == 1 {
            let text = format!("{}{root}", crate::versions::VERSION_OF);
            self.out.constants.push((name.to_string(), text));
            self.out
                .values
                .push((name.to_string(), root.to_string(), term.clone()));
        }
        self.bind(name, Bound::VersionTerm(root.to_string(), term));
    }

    pub(super) fn assign_name(&mut self, name: &str, value: &Expr) {
        if self.fallback_flag(name, value) || self.fallback_loader(name, value) {
            return;
        }
        if self.not_installed_text(name, value) {
            return;
        }
        if !matches!(
            value,
            Expr::Compare(_) | Expr::BoolOp(_) | Expr::UnaryOp(_) | Expr::Call(_)
        ) {
            self.module_binding(name, None);
        }
        // `require_fsdp2 = unittest.skipUnless(is_torch_version(">=", "2.5"), "...")`.
        if let Some(h) = self.skip_condition(value).and_then(implying) {
            if self.scopes.len() == 1 {
                self.out.helpers.push((name.to_string(), Some(h.clone())));
            }
            self.bind(name, Bound::Helper(Box::new(h)));
            return;
        }
        if self.scopes.len() == 1 {
            if let Some(text) = string_lit(value) {
                if text.len() <= 64 {
                    self.out.constants.push((name.to_string(), text));
                }
            }
            // `MINIMUM = {"krea2": "0.39.0", ...}`: each entry, for helpers looking their
            // bound up in it ([`crate::versions::VersionHelper::table`]).
            if let Expr::Dict(d) = value {
                for item in d.items.iter().take(256) {
                    let (Some(key), Some(text)) = (
                        item.key.as_ref().and_then(string_lit),
                        string_lit(&item.value),
                    ) else {
                        continue;
                    };
                    if text.len() <= 64 {
                        let entry = crate::versions::table_entry(name, &key);
                        self.out.constants.push((entry, text));
                    }
                }
            }
        }
        let root = self.version_root(value, 0);
        // Most assignments are of no version: read as a term only what may be one.
        let term = if root.is_some() || super::terms::converts(value) {
            self.version_term(value, 0)
        } else {
            None
        };
        if let Some(root) = &root {
            if self.scopes.len() == 1 {
                let text = format!("{}{root}", crate::versions::VERSION_OF);
                self.out.constants.push((name.to_string(), text));
            }
        }
        if let Some((root, term)) = term {
            if self.scopes.len() == 1 {
                self.out
                    .values
                    .push((name.to_string(), root.clone(), term.clone()));
            }
            self.bind(name, Bound::VersionTerm(root, term));
            return;
        }
        if let Some(root) = root {
            self.bind(name, Bound::VersionOf(root));
            return;
        }
        if let Expr::Lambda(l) = value {
            if let Some(h) = l
                .parameters
                .as_deref()
                .and_then(|p| self.helper_expr(p, &l.body))
            {
                if self.scopes.len() == 1 {
                    self.out.helpers.push((name.to_string(), Some(h.clone())));
                }
                self.bind(name, Bound::Helper(Box::new(h)));
                return;
            }
        }
        if let Some(path) = self.signature_of(value) {
            self.bind(name, Bound::Signature(path));
            return;
        }
        if matches!(
            value,
            Expr::Compare(_) | Expr::BoolOp(_) | Expr::UnaryOp(_) | Expr::Call(_)
        ) {
            // What a test bound to a name says about paths (`has_x = any(... fields(C))`,
            // `ok = hasattr(m, "x")`, `ok = is_x_available()`); the result of a call of an
            // indexed function is a value, not a test (and most assignments are such calls).
            let mut info = self.cond_info(value);
            let indexed_call = matches!(value, Expr::Call(c) if self.resolve(&c.func).is_some());
            if !indexed_call {
                self.reads_when_true(value, &mut info.reads_true);
            }
            self.module_binding(name, Some(&info));
            if info.says_when_true() {
                self.bind(
                    name,
                    Bound::Cond(info.restriction, info.has, info.reads_true),
                );
                return;
            }
        }
        if let Some((path, via)) = self.resolve(value) {
            let b = match self.either_binding(&path, &via) {
                Some(either) => either,
                None => self.path_binding(path, Some(&via)),
            };
            self.bind(name, b);
            return;
        }
        if let Some(names) = reads::literal_names(value) {
            self.bind(name, Bound::Names(names));
            return;
        }
        // `package_name = "vllm"`: the name of an indexed package, given to a version getter
        // (`get_version(package_name)`, verl's `third_party/vllm/__init__.py`).
        if let Expr::StringLiteral(s) = value {
            let text = s.value.to_str();
            if self.roots.contains(text) {
                use crate::version_terms::{Term, Value};
                self.bind(name, Bound::Const(Term::Lit(Value::Str(text.to_string()))));
                return;
            }
        }
        if matches!(value, Expr::Tuple(_) | Expr::List(_)) {
            if let Some(t) = self.const_of(value) {
                self.bind(name, Bound::Const(t));
                return;
            }
        }
        if value.is_none_literal_expr() {
            if let Some(Bound::Path { path, .. }) = self.lookup(name) {
                // `except ImportError: f = None`: `f is None` holds where the handler ran.
                let handler_test = self
                    .ctx
                    .requires
                    .iter()
                    .find(|t| !t.present && (t.path == *path || t.alternatives.contains(path)));
                if let (true, Some(t)) = (self.ctx.fallback, handler_test) {
                    let entry = (path.clone(), t.clone());
                    self.sentinels.insert(name.to_string(), entry);
                }
                return;
            }
        }
        self.store(name);
    }

    pub(super) fn function_def(&mut self, f: &'a ast::StmtFunctionDef) {
        for d in &f.decorator_list {
            self.visit_expr(&d.expression);
        }
        for p in f.parameters.iter_non_variadic_params() {
            if let Some(default) = &p.default {
                self.visit_expr(default);
            }
        }
        for p in f.parameters.iter() {
            if let Some(ann) = p.annotation() {
                self.visit_annotation(ann);
            }
        }
        if let Some(r) = &f.returns {
            self.visit_annotation(r);
        }
        let helper = self
            .version_helper(&f.parameters, &f.body)
            .or_else(|| self.marker_function(f));
        if self
            .scopes
            .last()
            .is_some_and(|s| s.kind == ScopeKind::Class)
        {
            self.state_facts(f);
        }
        if self.scopes.len() == 1 && signature::lists_parameters(f) {
            self.signature_helpers.insert(f.name.as_str());
        }
        if self.scopes.len() == 1 {
            self.out.helpers.push((f.name.to_string(), helper.clone()));
        }
        match helper {
            Some(h) => self.bind(f.name.as_str(), Bound::Helper(Box::new(h))),
            None => {
                let name = f.name.as_str();
                // `except ImportError: def name(...)`: a fallback keeps what the try imported.
                if self.ctx.handler && matches!(self.lookup(name), Some(Bound::Path { .. })) {
                    self.store(name);
                } else if let Some(at) = getters::version_getter(&f.parameters, &f.body) {
                    self.bind(name, Bound::VersionGetter(at));
                } else if let Some((at, item)) =
                    getters::tuple_version_getter(&f.parameters, &f.body)
                {
                    self.bind(name, Bound::TupleVersionGetter(at, item));
                } else if let Some(root) = self.version_returner(&f.parameters, &f.body) {
                    self.bind(name, Bound::VersionReturner(root));
                } else if let Some(g) = self.guarding_decorator(f) {
                    self.bind(name, Bound::Guarding(Box::new(g)));
                } else {
                    self.bind(name, Bound::Function);
                }
            }
        }
        let instance_method = self
            .scopes
            .last()
            .is_some_and(|s| s.kind == ScopeKind::Class)
            && instance_tests::receiver(f).is_some();
        let mut ctx = match &self.method_ctx {
            Some(m) if instance_method => m.clone(),
            _ => self.ctx.clone(),
        };
        ctx.defined_at.get_or_insert(f.start());
        let conditions = self.decorator_conditions(&f.decorator_list);
        let requires = self.decorator_requires(&f.decorator_list);
        if !conditions.is_empty() || !requires.is_empty() {
            ctx.guard_at = f.decorator_list.first().map(Ranged::range);
        }
        ctx.versions.extend(conditions);
        for r in requires {
            if !ctx.requires.contains(&r) {
                ctx.requires.push(r);
            }
        }
        ctx.func = u32::try_from(self.out.functions.len()).ok();
        let in_class = self
            .scopes
            .last()
            .is_some_and(|s| s.kind == ScopeKind::Class);
        self.out.functions.push(FuncEntry {
            key: name_key(f.name.as_str()),
            overrides: in_class && self.class_has_base,
            at: f.name.range,
        });
        // A decorator may register the function to be called from anywhere (those of the
        // standard library that only wrap it do not); Python calls dunders.
        let registers = f.decorator_list.iter().any(|d| !only_wraps(&d.expression));
        if registers || is_dunder(f.name.as_str()) {
            self.escaping.insert(f.name.as_str());
        }
        // A function its enclosing function never names is never called: its body never runs.
        if f.decorator_list.is_empty()
            && self.scopes.last().is_some_and(|s| {
                s.kind == ScopeKind::Function && s.never_called.contains(f.name.as_str())
            })
        {
            return;
        }
        let facts = self.facts_snapshot();
        if let Some(list) = self.deferred.last_mut() {
            list.push((f, ctx, facts));
        }
    }

    pub(super) fn class_def(&mut self, c: &'a ast::StmtClassDef) {
        for d in &c.decorator_list {
            self.visit_expr(&d.expression);
        }
        if let Some(args) = &c.arguments {
            for a in args.args.iter() {
                self.visit_expr(a);
            }
            for k in args.keywords.iter() {
                self.visit_expr(&k.value);
            }
        }
        let conditions = self.decorator_conditions(&c.decorator_list);
        // A test marker on a class (`@pytest.mark.skipif(not hasattr(...))`) applies to each
        // of its methods, as on a function.
        let requires = self.decorator_requires(&c.decorator_list);
        self.instance_tests(c);
        self.scopes.push(Scope::new(ScopeKind::Class));
        let mut ctx = self.ctx.clone();
        if !conditions.is_empty() || !requires.is_empty() {
            ctx.guard_at = c.decorator_list.first().map(Ranged::range).or(ctx.guard_at);
        }
        ctx.versions.extend(conditions);
        for r in requires {
            if !ctx.requires.contains(&r) {
                ctx.requires.push(r);
            }
        }
        let outer_methods = self.method_ctx.take();
        let has_base =
            c.arguments.iter().flat_map(|a| a.args.iter()).any(|b| {
                dotted(b).is_none_or(|d| !matches!(d.as_str(), "object" | "ABC" | "abc.ABC"))
            });
        let outer_bases = std::mem::replace(&mut self.class_has_base, has_base);
        let mut guard = None;
        self.with_ctx(ctx.clone(), |w| guard = w.init_guard(c));
        self.method_ctx = guard;
        self.with_ctx(ctx, |w| w.body(&c.body));
        self.method_ctx = outer_methods;
        self.class_has_base = outer_bases;
        let scope = self.scopes.pop();
        self.store(c.name.as_str());
        // `SUPPORTED = hasattr(...)` in the class body: `C.SUPPORTED` is that test where the
        // class is in scope (study 14, F-B).
        let tests: Vec<(String, Bound)> = scope
            .into_iter()
            .flat_map(|s| s.names.into_iter())
            .filter(|(_, b)| matches!(b, Bound::Cond(..)))
            .map(|(n, b)| (format!("{}.{n}", c.name), b))
            .collect();
        for (name, b) in tests {
            self.bind(&name, b);
        }
    }

    /// The test a plugin class's `is_available()` returns (`return hasattr(torch, "xpu") and
    /// torch.xpu.is_available()`), when the class derives from a class of an indexed package:
    /// a framework that takes such plugins (Lightning's `Accelerator`, nequip's
    /// `XPUAccelerator`, study 26's F-L) asks `is_available()` before it uses one, so its
    /// instance methods run only where the test holds.
    fn availability_test(
        &self,
        c: &'a ast::StmtClassDef,
        f: &'a ast::StmtFunctionDef,
    ) -> Option<&'a Expr> {
        let indexed_base = c
            .arguments
            .as_ref()?
            .args
            .iter()
            .any(|b| self.resolve(b).is_some());
        if !indexed_base || instance_tests::receiver(f).is_some() {
            return None;
        }
        match f.body.as_slice() {
            [Stmt::Return(r)] => r.value.as_deref(),
            _ => None,
        }
    }

    /// Where the instance methods of class `c` run, when its `__init__` checks `if T: raise
    /// ...` or `assert T` before anything may return: no instance exists unless the
    /// constructor got past it (lightly's `VideoLoader`, `if not VIDEO_SUPPORT_AVAILABLE: raise
    /// RuntimeError(...)`); else where its `is_available()` holds, for a plugin class
    /// ([`Walker::availability_test`]). `None` otherwise.
    fn init_guard(&mut self, c: &'a ast::StmtClassDef) -> Option<Ctx<'a>> {
        let method = |name: &str| {
            c.body.iter().find_map(|s| match s {
                Stmt::FunctionDef(f) if f.name.as_str() == name => Some(f),
                _ => None,
            })
        };
        // The checks among the statements of `__init__` before any that may return (a check
        // after `self.x = x` or `super().__init__()` still stops every constructor call).
        if let Some(init) = method("__init__") {
            let before_return = init
                .body
                .iter()
                .take_while(|s| !super::returns::has_return(s));
            for (test, truth) in before_return.filter_map(super::conditions::leading_check) {
                if let Some(guard) = self.guard_of(test, truth) {
                    return Some(guard);
                }
            }
        }
        let test = self.availability_test(c, method("is_available")?)?;
        self.guard_of(test, true)
    }

    /// Where `test` is `truth`, when that says something of releases or names.
    fn guard_of(&mut self, test: &'a Expr, truth: bool) -> Option<Ctx<'a>> {
        let info = self.test_info(test);
        let guard = self.branch_ctx(&info, truth);
        let said = guard.versions.len() > self.ctx.versions.len()
            || guard.has.len() > self.ctx.has.len()
            || guard.requires.len() > self.ctx.requires.len();
        said.then_some(guard)
    }
}

/// Decorators of the standard library that return the function wrapped, called by its name
/// as before (`@classmethod`, `@contextlib.contextmanager`, `@functools.lru_cache(...)`): its
/// callers are still the calls of that name.
const WRAPPING: &[&str] = &[
    "classmethod",
    "staticmethod",
    "contextmanager",
    "asynccontextmanager",
    "lru_cache",
    "cache",
    "abstractmethod",
    // `typing.override` and `typing.final` return the function as it is.
    "override",
    "final",
];

fn only_wraps(decorator: &Expr) -> bool {
    let func = match decorator {
        Expr::Call(c) => &*c.func,
        e => e,
    };
    dotted(func).is_some_and(|d| WRAPPING.contains(&last_segment(&d)))
}
