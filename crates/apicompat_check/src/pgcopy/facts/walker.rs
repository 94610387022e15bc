//! The walk over statements: bindings, classes, functions and the copy sites of one file.

use super::*;

/// Walks a parsed file.
pub fn extract(suite: &[Stmt], text: &str) -> FileFacts {
    let mut w = Walker {
        text,
        out: FileFacts::default(),
        module: HashMap::default(),
        frames: Vec::new(),
        next_id: 0,
        depth: 0,
        stmt_start: TextSize::default(),
        deferred: Vec::new(),
        steps: std::cell::Cell::new(0),
    };
    w.block(suite);
    // Function bodies run after the module is loaded: they see its final bindings.
    while let Some(d) = w.deferred.pop() {
        w.function(d.def, d.class, d.id, true);
    }
    w.out.eval_steps = w.steps.get();
    let mut containers: Vec<(String, Val)> = w
        .module
        .into_iter()
        .filter(|(_, v)| matches!(v, Val::Dict(_) | Val::Seq(_)))
        .collect();
    containers.sort_by(|a, b| a.0.cmp(&b.0));
    w.out.containers = containers;
    w.out
}

impl<'a> Walker<'a> {
    pub(super) fn source(&self, range: TextRange) -> &'a str {
        self.text
            .get(range.start().to_usize()..range.end().to_usize())
            .unwrap_or("")
    }

    pub(super) fn lookup(&self, name: &str) -> Val {
        for f in self.frames.iter().rev() {
            if let Some(v) = f.env.get(name) {
                return v.clone();
            }
        }
        if let Some(v) = self.module.get(name) {
            return v.clone();
        }
        if BUILTINS.contains(&name) {
            return Val::Builtin(atom(name));
        }
        Val::Unknown
    }

    /// Binds a name. The values given are capped already (an expression's value is, by
    /// [`Walker::val`]) or one node more (an item of one, an `isinstance` narrowing); a dict
    /// that grows by items is capped where it grows.
    pub(super) fn bind(&mut self, name: &str, val: Val) {
        match self.frames.last_mut() {
            Some(f) => {
                f.env.insert(name.to_string(), val);
            }
            None => {
                self.module.insert(name.to_string(), val);
            }
        }
    }

    /// Binds a name assigned in a branch: a value already there that may be a process group
    /// or an object is kept as one of the two possibilities.
    pub(super) fn bind_assign(&mut self, name: &str, val: Val) {
        let old = match self.frames.last() {
            Some(f) => f.env.get(name).cloned(),
            None => self.module.get(name).cloned(),
        };
        let val = match (old, val) {
            (Some(old @ (Val::Call(_) | Val::Param(_) | Val::Attr(..))), Val::NoneLit) => old,
            (_, v) => v,
        };
        self.bind(name, val);
    }

    // ----- statements -----

    pub(super) fn block(&mut self, body: &'a [Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    pub(super) fn stmt(&mut self, stmt: &'a Stmt) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        let saved = self.stmt_start;
        self.stmt_start = stmt.start();
        match stmt {
            Stmt::Import(imp) => {
                for a in &imp.names {
                    let full = a.name.as_str();
                    match &a.asname {
                        Some(alias) => self.bind(alias.as_str(), Val::Ref(atom(full))),
                        None => {
                            let root = full.split('.').next().unwrap_or(full);
                            self.bind(root, Val::Ref(atom(root)));
                        }
                    }
                }
            }
            Stmt::ImportFrom(imp) => {
                let dots = ".".repeat(imp.level as usize);
                let module = imp.module.as_ref().map_or("", |m| m.as_str());
                for a in &imp.names {
                    let name = a.name.as_str();
                    if name == "*" {
                        continue;
                    }
                    let path = match (dots.is_empty(), module.is_empty()) {
                        (true, _) => format!("{module}.{name}"),
                        (false, true) => format!("{dots}{name}"),
                        (false, false) => format!("{dots}{module}.{name}"),
                    };
                    let bound = a.asname.as_ref().map_or(name, |n| n.as_str());
                    self.bind(bound, Val::Ref(atom(&path)));
                }
            }
            Stmt::ClassDef(c) => self.class_def(c),
            Stmt::FunctionDef(f) => {
                let id = self.new_id();
                if self.frames.is_empty() {
                    self.module.insert(f.name.to_string(), Val::LocalFunc(id));
                    self.deferred.push(Deferred {
                        def: f,
                        class: None,
                        id,
                    });
                } else {
                    self.bind(f.name.as_str(), Val::Unknown);
                    self.function(f, None, id, false);
                }
            }
            Stmt::Assign(a) => {
                let before = self.out.copies.len();
                self.scan(&a.value);
                if let [Expr::Name(n)] = &*a.targets {
                    for c in &mut self.out.copies[before..] {
                        if c.range == a.value.range() {
                            c.target = Some(n.id.to_string());
                        }
                    }
                }
                let v = self.val(&a.value, 0);
                for t in &a.targets {
                    self.scan_target(t);
                    self.assign(t, v.clone());
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(value) = &a.value {
                    self.scan(value);
                    let v = self.val(value, 0);
                    self.assign(&a.target, v);
                }
            }
            Stmt::AugAssign(a) => {
                self.scan(&a.value);
                self.scan_target(&a.target);
                if let Expr::Name(n) = &*a.target {
                    self.bind(n.id.as_str(), Val::Unknown);
                }
            }
            Stmt::Expr(e) => {
                self.scan(&e.value);
                self.effect(&e.value);
            }
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.scan(v);
                    let val = self.val(v, 0);
                    let id = self.frames.last().map(|f| f.id);
                    let at = id.and_then(|id| self.out.function_index.get(&id).copied());
                    if let Some(f) = at.and_then(|i| self.out.functions.get_mut(i)) {
                        f.returns.push(val);
                    }
                }
            }
            Stmt::If(s) => {
                self.scan(&s.test);
                // `if isinstance(x, C):` -> `x` is a `C` in the body.
                let narrowed = self.isinstance(&s.test);
                let saved: Vec<(String, Val)> = narrowed
                    .iter()
                    .map(|(n, _)| (n.clone(), self.lookup(n)))
                    .collect();
                for (name, val) in &narrowed {
                    self.bind(name, val.clone());
                }
                self.block(&s.body);
                for ((name, set), (_, old)) in narrowed.iter().zip(saved) {
                    let now = match self.frames.last() {
                        Some(f) => f.env.get(name),
                        None => self.module.get(name),
                    };
                    if now == Some(set) {
                        self.bind(name, old);
                    }
                }
                for c in &s.elif_else_clauses {
                    if let Some(t) = &c.test {
                        self.scan(t);
                    }
                    self.block(&c.body);
                }
            }
            Stmt::For(s) => {
                self.scan(&s.iter);
                self.assign(&s.target, Val::Unknown);
                self.block(&s.body);
                self.block(&s.orelse);
            }
            Stmt::While(s) => {
                self.scan(&s.test);
                self.block(&s.body);
                self.block(&s.orelse);
            }
            Stmt::With(s) => {
                for item in &s.items {
                    self.scan(&item.context_expr);
                    if let Some(v) = &item.optional_vars {
                        self.assign(v, Val::Unknown);
                    }
                }
                self.block(&s.body);
            }
            Stmt::Try(t) => {
                self.block(&t.body);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(n) = &h.name {
                        self.bind(n.as_str(), Val::Unknown);
                    }
                    self.block(&h.body);
                }
                self.block(&t.orelse);
                self.block(&t.finalbody);
            }
            Stmt::Match(m) => {
                self.scan(&m.subject);
                for case in &m.cases {
                    self.block(&case.body);
                }
            }
            Stmt::Raise(r) => {
                if let Some(e) = &r.exc {
                    self.scan(e);
                }
            }
            Stmt::Assert(a) => self.scan(&a.test),
            _ => {}
        }
        self.stmt_start = saved;
        self.depth -= 1;
    }

    pub(super) fn new_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    pub(super) fn class_def(&mut self, c: &'a ast::StmtClassDef) {
        let bases: Vec<Val> = c
            .arguments
            .as_ref()
            .map(|a| a.args.iter().map(|b| self.val(b, 0)).collect())
            .unwrap_or_default();
        if let Some(a) = &c.arguments {
            self.out
                .base_ranges
                .extend(a.args.iter().map(Ranged::range));
        }
        let ci = self.out.classes.len();
        self.out.classes.push(ClassFacts {
            name: atom(c.name.as_str()),
            range: c.name.range(),
            bases,
            hooks: Vec::new(),
            methods: Vec::new(),
            init: None,
            stores: Vec::new(),
            supers: Vec::new(),
        });
        self.bind(c.name.as_str(), Val::LocalClass(ci));
        for s in &c.body {
            match s {
                Stmt::FunctionDef(f) => {
                    let id = self.new_id();
                    let name = f.name.as_str();
                    let class = &mut self.out.classes[ci];
                    class.methods.push(id);
                    if HOOKS.contains(&name) {
                        class.hooks.push(name.to_string());
                    }
                    if name == "__init__" {
                        class.init = Some(id);
                    }
                    if self.frames.is_empty() {
                        self.deferred.push(Deferred {
                            def: f,
                            class: Some(ci),
                            id,
                        });
                    } else {
                        self.function(f, Some(ci), id, false);
                    }
                }
                Stmt::Assign(a) => {
                    // `__deepcopy__ = some_function` defines the hook too.
                    for t in &a.targets {
                        if let Expr::Name(n) = t {
                            if HOOKS.contains(&n.id.as_str()) {
                                self.out.classes[ci].hooks.push(n.id.to_string());
                            }
                        }
                    }
                }
                Stmt::ClassDef(inner) => self.class_def(inner),
                _ => {}
            }
        }
        // The class body binds its methods in its own namespace, not the enclosing one.
        self.bind(c.name.as_str(), Val::LocalClass(ci));
    }

    pub(super) fn function(
        &mut self,
        f: &'a ast::StmtFunctionDef,
        class: Option<usize>,
        id: u32,
        top_level: bool,
    ) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        let decorated = |name: &str| {
            f.decorator_list
                .iter()
                .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == name))
        };
        let (is_static, is_classmethod) = (decorated("staticmethod"), decorated("classmethod"));
        let mut env = HashMap::default();
        let mut params = Vec::new();
        let p = &f.parameters;
        let mut first = class.is_some() && !is_static;
        for (pw, kind) in p
            .posonlyargs
            .iter()
            .chain(p.args.iter())
            .map(|x| (x, ParamKind::Positional))
            .chain(p.kwonlyargs.iter().map(|x| (x, ParamKind::KeywordOnly)))
        {
            let name = pw.parameter.name.as_str();
            if first {
                first = false;
                let this = match class {
                    Some(ci) if !is_classmethod => Val::SelfObj(ci),
                    _ => Val::Unknown,
                };
                env.insert(name.to_string(), this);
                continue;
            }
            let default = match pw.default.as_deref() {
                None => Default::Required,
                Some(Expr::NoneLiteral(_)) => Default::NoneLit,
                Some(_) => Default::Other,
            };
            let info = Arc::new(self.param(id, &pw.parameter, default, kind));
            env.insert(name.to_string(), Val::Param(Arc::clone(&info)));
            params.push(info);
        }
        for (param, kind) in [
            (&p.vararg, ParamKind::VarPositional),
            (&p.kwarg, ParamKind::VarKeyword),
        ] {
            if let Some(param) = param {
                let info = Arc::new(self.param(id, param, Default::Other, kind));
                env.insert(param.name.to_string(), Val::Param(Arc::clone(&info)));
                params.push(info);
            }
        }
        self.out.function_index.insert(id, self.out.functions.len());
        self.out.functions.push(FuncFacts {
            id,
            name: atom(f.name.as_str()),
            class,
            params,
            returns: Vec::new(),
            top_level: top_level && class.is_none(),
        });
        self.frames.push(Frame { env, id, class });
        let saved = self.stmt_start;
        self.block(&f.body);
        self.stmt_start = saved;
        self.frames.pop();
    }

    pub(super) fn param(
        &self,
        owner: u32,
        p: &ast::Parameter,
        default: Default,
        kind: ParamKind,
    ) -> ParamInfo {
        ParamInfo {
            owner,
            name: atom(p.name.as_str()),
            annotation: p
                .annotation
                .as_deref()
                .map(|a| self.source(a.range()).trim().to_string()),
            default,
            kind,
            range: p.range(),
        }
    }

    pub(super) fn assign(&mut self, target: &'a Expr, val: Val) {
        match target {
            Expr::Name(n) => self.bind_assign(n.id.as_str(), val),
            Expr::Tuple(t) => self.unpack(&t.elts, val),
            Expr::List(t) => self.unpack(&t.elts, val),
            Expr::Attribute(a) => {
                if let Some(ci) = self.self_of(&a.value) {
                    let func = self.frames.last().map_or(0, |f| f.id);
                    self.out.classes[ci].stores.push(Store {
                        attr: atom(a.attr.as_str()),
                        val,
                        range: a.range(),
                        func,
                    });
                }
            }
            Expr::Subscript(s) => {
                // `kwargs["process_group"] = pg` on a dict literal.
                if let (Expr::Name(n), Expr::StringLiteral(k)) = (&*s.value, &*s.slice) {
                    if let Val::Dict(mut entries) = self.lookup(n.id.as_str()) {
                        Arc::make_mut(&mut entries).push((
                            Some(key_atom(k.value.to_str())),
                            val,
                            target.range(),
                        ));
                        self.bind(n.id.as_str(), Val::Dict(entries).capped());
                    }
                }
            }
            _ => {}
        }
    }

    pub(super) fn unpack(&mut self, elts: &'a [Expr], val: Val) {
        if elts.iter().any(|e| matches!(e, Expr::Starred(_))) {
            for e in elts {
                let t = match e {
                    Expr::Starred(s) => &*s.value,
                    e => e,
                };
                self.assign(t, Val::Unknown);
            }
            return;
        }
        for (i, e) in elts.iter().enumerate() {
            let item = match &val {
                Val::Seq(items) => items.get(i).cloned().unwrap_or(Val::Unknown),
                Val::Unknown => Val::Unknown,
                v => Val::Item(Arc::new(v.clone()), i),
            };
            self.assign(e, item);
        }
    }
}
