//! The walk that reads a module's facts (see [`super::extract`]).

use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::Ranged;

use super::narrow;
use super::*;
use crate::atom::atom;
use crate::ir::{self, Sym};

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
                    if let Some(v) = &item.optional_vars {
                        self.unknown_target(v);
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

    fn bind_target_unknown(&mut self, e: &Expr) {
        if let Expr::Name(n) = e {
            self.bind(n.id.as_str(), Def::Unknown);
        }
    }

    /// Binds every name in a target to [`Def::Unknown`] (and looks into the rest).
    fn unknown_target(&mut self, t: &Expr) {
        match t {
            Expr::Name(n) => self.bind(n.id.as_str(), Def::Unknown),
            Expr::Tuple(x) => x.elts.iter().for_each(|e| self.unknown_target(e)),
            Expr::List(x) => x.elts.iter().for_each(|e| self.unknown_target(e)),
            Expr::Starred(s) => self.unknown_target(&s.value),
            Expr::Attribute(a) => {
                self.expr(&a.value);
                self.store(a, Def::Unknown);
            }
            Expr::Subscript(sub) => {
                self.expr(t);
                self.item(sub, false);
            }
            e => self.expr(e),
        }
    }

    /// An assignment target given `value`.
    fn target(&mut self, t: &Expr, def: impl Fn() -> Def, value: &Expr) {
        match t {
            Expr::Name(n) => self.bind(n.id.as_str(), def()),
            Expr::Tuple(_) | Expr::List(_) => {
                let elts = match t {
                    Expr::Tuple(x) => &x.elts,
                    Expr::List(x) => &x.elts,
                    _ => return,
                };
                let starred = elts.iter().position(|e| matches!(e, Expr::Starred(_)));
                for (i, e) in elts.iter().enumerate() {
                    match (e, starred) {
                        (Expr::Name(n), None) => {
                            self.bind(n.id.as_str(), Def::Unpack(ir::value(value), i))
                        }
                        (Expr::Name(n), Some(s)) if i < s => {
                            self.bind(n.id.as_str(), Def::Unpack(ir::value(value), i))
                        }
                        (e, _) => self.unknown_target(e),
                    }
                }
            }
            Expr::Attribute(a) => {
                self.expr(&a.value);
                self.store(a, def());
            }
            Expr::Subscript(sub) => {
                self.expr(t);
                self.item(sub, true);
            }
            e => self.expr(e),
        }
    }

    /// `name[key] = v` (`set`) or `del name[key]`.
    fn item(&mut self, sub: &ast::ExprSubscript, set: bool) {
        let Expr::Name(n) = &*sub.value else {
            return;
        };
        let key = match (&*sub.slice, set) {
            (Expr::StringLiteral(k), true) => Some(atom(k.value.to_str())),
            _ => None,
        };
        self.push_item(n.id.as_str(), key);
    }

    /// `x.name = ...`: on the instance in a method, an attribute of the class; elsewhere a
    /// name that may be on any object.
    fn store(&mut self, a: &ast::ExprAttribute, def: Def) {
        if self.narrows.len() > 0 {
            let path = Sym::Attr(Box::new(ir::value(&a.value)), atom(a.attr.as_str()));
            self.narrows.rebound(&path);
        }
        match self.is_receiver(&a.value) {
            Some(class) => {
                let scope = self.scope;
                self.out.classes[class as usize]
                    .stores
                    .push(a.attr.as_str(), (scope, def));
            }
            None => self.out.stored_names.push(atom(a.attr.as_str())),
        }
    }

    fn decorators(&mut self, list: &[ast::Decorator]) {
        for d in list {
            self.expr(&d.expression);
        }
    }

    fn function(&mut self, f: &ast::StmtFunctionDef) {
        self.decorators(&f.decorator_list);
        let class = match self.out.scopes[self.scope as usize].kind {
            ScopeKind::Class(c) => Some(c),
            _ => None,
        };
        let mut kind = MethodKind::Plain;
        let mut wrapped = false;
        for d in &f.decorator_list {
            let name = match &d.expression {
                Expr::Name(n) => n.id.as_str(),
                Expr::Attribute(a) => a.attr.as_str(),
                Expr::Call(c) => match &*c.func {
                    Expr::Name(n) => n.id.as_str(),
                    Expr::Attribute(a) => a.attr.as_str(),
                    _ => "",
                },
                _ => "",
            };
            match name {
                "staticmethod" => kind = MethodKind::Static,
                "classmethod" => kind = MethodKind::Class,
                "property" | "cached_property" => kind = MethodKind::Property,
                // Wrappers that keep the function's result.
                "wraps" | "lru_cache" | "cache" | "abstractmethod" | "override" | "final"
                | "no_type_check" | "setter" | "getter" | "deleter" => {}
                _ => wrapped = true,
            }
        }
        let params = &f.parameters;
        for p in params.iter_non_variadic_params() {
            if let Some(d) = &p.default {
                self.expr(d);
            }
        }
        for p in params.iter() {
            if let Some(a) = p.annotation() {
                self.annotation_sites(a);
            }
        }
        if let Some(r) = &f.returns {
            self.annotation_sites(r);
        }
        let id = self.out.functions.len() as FuncId;
        self.bind(f.name.as_str(), Def::Function(id));
        let scope = self.new_scope(ScopeKind::Function(id));
        let mut facts = Vec::new();
        let none = |d: &Option<Box<Expr>>| matches!(d.as_deref(), Some(Expr::NoneLiteral(_)));
        for p in params.posonlyargs.iter().chain(params.args.iter()) {
            facts.push(ParamFacts {
                name: atom(p.parameter.name.as_str()),
                annotation: p.parameter.annotation.as_deref().map(ir::annotation),
                default_none: none(&p.default),
            });
        }
        let variadic_start = facts.len();
        // `*args`, keyword-only, `**kwargs`: never filled from positions.
        if let Some(v) = &params.vararg {
            facts.push(ParamFacts {
                name: atom(v.name.as_str()),
                annotation: None,
                default_none: false,
            });
        }
        for p in params.kwonlyargs.iter() {
            facts.push(ParamFacts {
                name: atom(p.parameter.name.as_str()),
                annotation: p.parameter.annotation.as_deref().map(ir::annotation),
                default_none: none(&p.default),
            });
        }
        if let Some(v) = &params.kwarg {
            facts.push(ParamFacts {
                name: atom(v.name.as_str()),
                annotation: None,
                default_none: false,
            });
        }
        let n_params = facts.len();
        self.out.functions.push(FuncFacts {
            name: atom(f.name.as_str()),
            range: f.range(),
            scope,
            class,
            kind,
            params: facts,
            positional: variadic_start as u32,
            returns: f.returns.as_deref().map(ir::annotation),
            return_values: Vec::new(),
            wrapped,
            generator: f.is_async,
        });
        let (saved_scope, saved_func, saved_cond) = (self.scope, self.func, self.cond);
        let saved_narrows = self.narrows.take();
        self.scope = scope;
        self.func = Some(id);
        self.cond = 0;
        for index in 0..n_params {
            let p = &self.out.functions[id as usize].params[index];
            let name = p.name;
            let def = if index >= variadic_start
                && (params.vararg.is_some() && index == variadic_start
                    || params.kwarg.is_some() && index + 1 == n_params)
            {
                Def::Unknown
            } else {
                match &p.annotation {
                    Some(a) => Def::Declared(a.clone()),
                    None => Def::Param {
                        func: id,
                        index: index as u32,
                    },
                }
            };
            self.bind(name, def);
        }
        self.body(&f.body);
        self.narrows = saved_narrows;
        self.scope = saved_scope;
        self.func = saved_func;
        self.cond = saved_cond;
    }

    fn class(&mut self, c: &ast::StmtClassDef) {
        self.decorators(&c.decorator_list);
        let mut unusual = c
            .decorator_list
            .iter()
            .any(|d| !is_dataclass_decorator(&d.expression));
        let mut bases = Vec::new();
        if let Some(args) = &c.arguments {
            for a in args.args.iter() {
                self.expr(a);
                if matches!(a, Expr::Starred(_)) {
                    unusual = true;
                } else {
                    bases.push(ir::value(a));
                }
            }
            for k in args.keywords.iter() {
                self.expr(&k.value);
                unusual = true;
            }
        }
        let id = self.out.classes.len() as ClassId;
        let enclosing = self.scope;
        self.bind(c.name.as_str(), Def::Class(id));
        let scope = self.new_scope(ScopeKind::Class(id));
        self.out.classes.push(ClassFacts {
            name: atom(c.name.as_str()),
            range: c.range(),
            scope,
            bases,
            enclosing,
            unusual,
            open: false,
            stores: Multimap::default(),
        });
        let (saved_scope, saved_func) = (self.scope, self.func);
        let saved_narrows = self.narrows.take();
        self.scope = scope;
        self.func = None;
        self.body(&c.body);
        self.narrows = saved_narrows;
        let defines_getattr = ["__getattr__", "__getattribute__", "__slots__"]
            .iter()
            .any(|n| self.out.scopes[scope as usize].bindings.contains(n));
        if defines_getattr {
            self.out.classes[id as usize].open = true;
        }
        self.scope = saved_scope;
        self.func = saved_func;
    }

    /// Sites in an annotation that is evaluated (not a string).
    fn annotation_sites(&mut self, e: &Expr) {
        self.expr(e);
    }

    fn expr(&mut self, e: &Expr) {
        self.expr_at(e, 0);
    }

    fn expr_at(&mut self, e: &Expr, depth: usize) {
        if depth >= MAX_EXPR_DEPTH {
            self.out.truncated = true;
            return;
        }
        let d = depth + 1;
        match e {
            Expr::Attribute(a) if a.ctx == ExprContext::Load => {
                self.site(a, None);
                self.expr_at(&a.value, d);
            }
            Expr::Call(c) => {
                if let Expr::Attribute(a) = &*c.func {
                    let shape = CallShape {
                        range: c.range(),
                        keywords: c
                            .arguments
                            .keywords
                            .iter()
                            .filter_map(|k| Some((atom(k.arg.as_ref()?.as_str()), k.range())))
                            .collect(),
                        positional: c.arguments.args.len() as u32,
                        star: c
                            .arguments
                            .args
                            .iter()
                            .any(|a| matches!(a, Expr::Starred(_))),
                        double_star: c.arguments.keywords.iter().any(|k| k.arg.is_none()),
                    };
                    self.site(a, Some(Box::new(shape)));
                    self.expr_at(&a.value, d);
                } else {
                    self.expr_at(&c.func, d);
                }
                self.setattr_call(c);
                self.mapping_call(c);
                self.call(c);
                for k in c.arguments.keywords.iter().filter(|k| k.arg.is_none()) {
                    self.out.splats.push(Splat {
                        range: k.range(),
                        scope: self.scope,
                        callee: ir::value(&c.func),
                        mapping: ir::value(&k.value),
                    });
                }
                for a in c.arguments.args.iter() {
                    self.expr_at(a, d);
                }
                for k in c.arguments.keywords.iter() {
                    self.expr_at(&k.value, d);
                }
            }
            Expr::Named(n) => {
                self.expr_at(&n.value, d);
                if let Expr::Name(t) = &*n.target {
                    // `:=` binds in the enclosing function, not in a comprehension.
                    let saved = self.scope;
                    while let ScopeKind::Hidden = self.out.scopes[self.scope as usize].kind {
                        match self.out.scopes[self.scope as usize].parent {
                            Some(p) => self.scope = p,
                            None => break,
                        }
                    }
                    self.bind(t.id.as_str(), Def::Value(ir::value(&n.value)));
                    self.scope = saved;
                }
            }
            Expr::Lambda(l) => {
                if let Some(params) = &l.parameters {
                    for p in params.iter_non_variadic_params() {
                        if let Some(dflt) = &p.default {
                            self.expr_at(dflt, d);
                        }
                    }
                }
                let saved = self.scope;
                let saved_narrows = self.narrows.take();
                self.scope = self.new_scope(ScopeKind::Hidden);
                if let Some(params) = &l.parameters {
                    for p in params.iter() {
                        self.bind(p.name().as_str(), Def::Unknown);
                    }
                }
                self.expr_at(&l.body, d);
                self.narrows = saved_narrows;
                self.scope = saved;
            }
            Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => {
                let (generators, parts): (&[ast::Comprehension], Vec<&Expr>) = match e {
                    Expr::ListComp(c) => (&c.generators, vec![&c.elt]),
                    Expr::SetComp(c) => (&c.generators, vec![&c.elt]),
                    Expr::Generator(c) => (&c.generators, vec![&c.elt]),
                    Expr::DictComp(c) => (
                        &c.generators,
                        c.key.iter().map(|k| &**k).chain([&*c.value]).collect(),
                    ),
                    _ => return,
                };
                // The first iterable is evaluated outside.
                if let Some(g) = generators.first() {
                    self.expr_at(&g.iter, d);
                }
                let saved = self.scope;
                let active = self.narrows.len();
                self.scope = self.new_scope(ScopeKind::Hidden);
                for (i, g) in generators.iter().enumerate() {
                    if i > 0 {
                        self.expr_at(&g.iter, d);
                    }
                    self.unknown_target(&g.target);
                    // Each condition holds for what follows it.
                    for cond in &g.ifs {
                        self.expr_at(cond, d);
                        self.narrows.push_all(narrow::implied(cond, true));
                    }
                }
                for p in parts {
                    self.expr_at(p, d);
                }
                self.narrows.truncate(active);
                self.scope = saved;
            }
            // `isinstance(x, C) and x.m`: each operand runs where the ones before held (for
            // `and`) or failed (for `or`).
            Expr::BoolOp(b) => {
                let holds = b.op == ast::BoolOp::And;
                let active = self.narrows.len();
                for v in &b.values {
                    self.expr_at(v, d);
                    self.narrows.push_all(narrow::implied(v, holds));
                }
                self.narrows.truncate(active);
            }
            Expr::If(i) => {
                self.expr_at(&i.test, d);
                self.expr_where(&i.test, true, &i.body, d);
                self.expr_where(&i.test, false, &i.orelse, d);
            }
            Expr::Yield(_) | Expr::YieldFrom(_) => {
                if let Some(f) = self.func {
                    self.out.functions[f as usize].generator = true;
                }
                ruff_python_ast::visitor::walk_expr(&mut SubExprs(self, d), e);
            }
            _ => ruff_python_ast::visitor::walk_expr(&mut SubExprs(self, d), e),
        }
    }

    /// `setattr(self, name, v)` with a computed name opens the class; with a literal name,
    /// the name may be on any object.
    /// Records a call by name with its arguments (see [`CallFacts`]).
    fn call(&mut self, c: &ast::ExprCall) {
        let name = match &*c.func {
            Expr::Name(n) => n.id.as_str(),
            Expr::Attribute(a) => a.attr.as_str(),
            _ => return,
        };
        let args = &c.arguments;
        let spread = args.args.iter().any(|a| matches!(a, Expr::Starred(_)))
            || args.keywords.iter().any(|k| k.arg.is_none());
        if spread {
            self.out.opaque_calls.push(atom(name));
            return;
        }
        self.out.calls.push(CallFacts {
            name: atom(name),
            scope: self.scope,
            callee: ir::value(&c.func),
            args: args.args.iter().map(ir::value).collect(),
            keywords: args
                .keywords
                .iter()
                .filter_map(|k| Some((atom(k.arg.as_ref()?.as_str()), ir::value(&k.value))))
                .collect(),
        });
    }

    fn setattr_call(&mut self, c: &ast::ExprCall) {
        let Expr::Name(n) = &*c.func else {
            return;
        };
        if n.id.as_str() != "setattr" || c.arguments.args.len() != 3 {
            return;
        }
        let args = &c.arguments.args;
        match (&args[1], self.is_receiver(&args[0])) {
            (Expr::StringLiteral(s), _) => self.out.stored_names.push(atom(s.value.to_str())),
            (_, Some(class)) => self.out.classes[class as usize].open = true,
            _ => {}
        }
    }

    /// `options.pop(...)`, `options.clear()`: keys may be gone; `options.update(k=v)` adds
    /// `k`.
    fn mapping_call(&mut self, c: &ast::ExprCall) {
        let Expr::Attribute(a) = &*c.func else {
            return;
        };
        let Expr::Name(n) = &*a.value else {
            return;
        };
        let name = n.id.as_str();
        match a.attr.as_str() {
            "pop" | "popitem" | "clear" => self.push_item(name, None),
            "update" | "setdefault" => {
                for k in c.arguments.keywords.iter() {
                    if let Some(arg) = &k.arg {
                        self.push_item(name, Some(atom(arg.as_str())));
                    }
                }
                if let (Some(Expr::StringLiteral(k)), "setdefault") =
                    (c.arguments.args.first(), a.attr.as_str())
                {
                    self.push_item(name, Some(atom(k.value.to_str())));
                }
            }
            _ => {}
        }
    }

    fn site(&mut self, a: &ast::ExprAttribute, call: Option<Box<CallShape>>) {
        if a.attr.as_str() == "__dict__" {
            if let Some(class) = self.is_receiver(&a.value) {
                self.out.classes[class as usize].open = true;
            }
        }
        let receiver = ir::value(&a.value);
        if matches!(receiver, Sym::Unknown | Sym::Literal | Sym::None) {
            return;
        }
        let narrow = self.narrowing(&receiver);
        self.out.sites.push(Site {
            range: a.range(),
            scope: self.scope,
            receiver,
            name: atom(a.attr.as_str()),
            call,
            narrow,
        });
    }

    /// The index of the tests in force on `receiver` in [`ModuleFacts::narrowings`] (the
    /// last set is reused when it is the same).
    fn narrowing(&mut self, receiver: &Sym) -> u32 {
        if self.narrows.len() == 0 {
            return NO_NARROW;
        }
        let on = self.narrows.on(receiver);
        if on.is_empty() {
            return NO_NARROW;
        }
        let list = &mut self.out.narrowings;
        if list.last().is_none_or(|last| **last != on[..]) {
            list.push(on.into_boxed_slice());
        }
        u32::try_from(list.len() - 1).unwrap_or(NO_NARROW)
    }
}

/// Walks the direct sub-expressions of an expression with [`Builder::expr_at`].
struct SubExprs<'b, 'm>(&'b mut Builder<'m>, usize);

impl<'a> ruff_python_ast::visitor::Visitor<'a> for SubExprs<'_, '_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        self.0.expr_at(expr, self.1);
    }
    fn visit_stmt(&mut self, _: &'a Stmt) {}
}

/// `@dataclass`, `@dataclasses.dataclass(...)`: the class is built as written.
fn is_dataclass_decorator(e: &Expr) -> bool {
    let name = match e {
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => a.attr.as_str(),
        Expr::Call(c) => return is_dataclass_decorator(&c.func),
        _ => "",
    };
    matches!(name, "dataclass" | "total_ordering" | "final")
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
