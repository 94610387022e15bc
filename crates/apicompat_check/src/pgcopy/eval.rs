//! AC010's evaluation of an expression to an abstract value ([`Abs`]): names, attributes,
//! calls of the project's functions and classes with their arguments bound.

use super::*;

impl<'a> Engine<'a> {
    pub(super) fn eval(&self, v: &Val, cx: &Ctx, depth: usize) -> Abs {
        if depth > MAX_EVAL_DEPTH || self.nesting.get() > MAX_NESTING || !self.spend() {
            return Abs::Unknown;
        }
        self.nesting.set(self.nesting.get() + 1);
        let out = self.eval_inner(v, cx, depth);
        self.nesting.set(self.nesting.get() - 1);
        out
    }

    pub(super) fn eval_inner(&self, v: &Val, cx: &Ctx, depth: usize) -> Abs {
        let d = depth + 1;
        match v {
            Val::Unknown | Val::Lit | Val::Builtin(_) | Val::Super => Abs::Unknown,
            Val::NoneLit => Abs::None,
            Val::Param(p) => self.param(p, cx),
            Val::SelfObj(ci) => {
                let class = (cx.file, *ci);
                match &cx.this {
                    Some(o)
                        if o.class == class || self.levels(o).iter().any(|(c, _)| *c == class) =>
                    {
                        Abs::Obj(o.clone())
                    }
                    _ => Abs::Obj(Rc::new(Obj {
                        class,
                        args: None,
                        how: None,
                    })),
                }
            }
            Val::Ref(path) => self.reference(path, cx.file),
            Val::LocalClass(ci) => Abs::Class((cx.file, *ci)),
            Val::LocalFunc(id) => Abs::Func((cx.file, *id)),
            Val::Attr(base, name, range) => {
                let b = self.eval(base, cx, d);
                self.attribute(b, name, cx.file, *range, d)
            }
            Val::Call(call) => self.call(call, cx, d),
            Val::Dict(entries) => Abs::Dict(
                entries
                    .iter()
                    .map(|(k, v, r)| {
                        (
                            k.map(str::to_string),
                            self.eval(v, cx, d),
                            self.loc(cx.file, *r),
                        )
                    })
                    .collect(),
            ),
            Val::Seq(items) => Abs::Seq(items.iter().map(|x| self.eval(x, cx, d)).collect()),
            Val::Item(inner, i) => match self.eval(inner, cx, d) {
                Abs::Seq(items) => items.get(*i).cloned().unwrap_or(Abs::Unknown),
                Abs::Pg(o) => Abs::Pg(o),
                _ => Abs::Unknown,
            },
            Val::Either(a, b) => best(self.eval(a, cx, d), self.eval(b, cx, d)),
            Val::Index(inner, key) => match (self.eval(inner, cx, d), key) {
                (Abs::Dict(entries), Some(Key::Name(k))) => entries
                    .into_iter()
                    .rev()
                    .find(|(name, _, _)| name.as_deref() == Some(*k))
                    .map_or(Abs::Unknown, |(_, v, _)| v),
                (Abs::Seq(items), Some(Key::Position(i))) => {
                    items.get(*i).cloned().unwrap_or(Abs::Unknown)
                }
                // `MODELS[name]`: any of the values, the most telling.
                (Abs::Dict(entries), None) if entries.iter().all(|(k, _, _)| k.is_some()) => {
                    entries
                        .into_iter()
                        .map(|(_, v, _)| v)
                        .fold(Abs::Unknown, best)
                }
                (Abs::Seq(items), None) => items.into_iter().fold(Abs::Unknown, best),
                _ => Abs::Unknown,
            },
            Val::Instance(class, range) => match self.eval(class, cx, d) {
                Abs::Class(c) => Abs::Obj(Rc::new(Obj {
                    class: c,
                    args: None,
                    how: Some(format!(
                        "checked with `isinstance` at {}",
                        self.loc(cx.file, *range)
                    )),
                })),
                Abs::Indexed { path, .. } => Abs::Indexed {
                    path,
                    instance: true,
                },
                _ => Abs::Unknown,
            },
        }
    }

    pub(super) fn param(&self, p: &ParamInfo, cx: &Ctx) -> Abs {
        if let Some(b) = &cx.bindings {
            if b.owner == (cx.file, p.owner) {
                if let Some(v) = b.values.get(p.name) {
                    return v.clone();
                }
                if b.open {
                    return Abs::Unknown;
                }
                return match (p.kind, p.default) {
                    (ParamKind::VarKeyword, _) => Abs::Dict(Vec::new()),
                    (ParamKind::VarPositional, _) => Abs::Seq(Vec::new()),
                    (_, Default::NoneLit) => Abs::None,
                    _ => Abs::Unknown,
                };
            }
        }
        // Called from somewhere unknown: only what the parameter says of itself.
        let at = self.loc(cx.file, p.range);
        if let Some(a) = &p.annotation {
            if pgindex::mentions(a, &self.pg().types) {
                let mut o = Origin::new(
                    p.default == Default::Required,
                    None,
                    format!("the parameter `{}: {a}` ({at})", p.name),
                );
                o.names.push(p.name.to_string());
                return Abs::Pg(o);
            }
            if let Some(c) = self.annotated_class(a, cx.file) {
                return Abs::Obj(Rc::new(Obj {
                    class: c,
                    args: None,
                    how: Some(format!("the parameter `{}: {a}` ({at})", p.name)),
                }));
            }
        }
        if pg_like(p.name) && p.default == Default::Required && p.kind != ParamKind::VarKeyword {
            return Abs::Pg(Origin::new(
                false,
                Some(p.name),
                format!("the parameter `{}` ({at})", p.name),
            ));
        }
        Abs::Unknown
    }

    /// The project class an annotation names (`MyModel`, `Optional["MyModel"]`).
    pub(super) fn annotated_class(&self, annotation: &str, file: usize) -> Option<ClassRef> {
        let ids: Vec<&str> = annotation
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .filter(|s| !s.is_empty())
            .filter(|s| !matches!(last_segment(s), "Optional" | "Union" | "None" | "Type"))
            .collect();
        match ids.as_slice() {
            [one] => match self.project_ref(one, file) {
                Abs::Class(c) => Some(c),
                _ => None,
            },
            _ => None,
        }
    }

    pub(super) fn reference(&self, path: &str, file: usize) -> Abs {
        if !path.starts_with('.') {
            let root = path.split('.').next().unwrap_or(path);
            if self.view(root).is_some() {
                return self.indexed_value(path, path);
            }
        }
        self.project_ref(path, file)
    }

    pub(super) fn attribute(
        &self,
        b: Abs,
        name: &str,
        file: usize,
        range: TextRange,
        depth: usize,
    ) -> Abs {
        let written = self.text(file, range);
        let at = self.loc(file, range);
        let by_name = |definite_only: bool| -> Abs {
            if let Some(f) = self.factory_named(name, &[Kind::Property]) {
                return Abs::Pg(Origin::new(
                    true,
                    None,
                    format!("`{written}` ({at}; `{}` returns `{}`)", f.path, f.returns),
                ));
            }
            if !definite_only && pg_like(name) {
                return Abs::Pg(Origin::new(
                    false,
                    Some(name),
                    format!("`{written}` ({at})"),
                ));
            }
            Abs::Unknown
        };
        match b {
            Abs::Obj(o) => match self.obj_attr(&o, name, depth) {
                Some(v @ (Abs::Pg(_) | Abs::Obj(_) | Abs::Seq(_) | Abs::Dict(_) | Abs::None)) => v,
                Some(Abs::Indexed { path, instance }) => Abs::Indexed { path, instance },
                _ => by_name(false),
            },
            Abs::Indexed { path, instance } => {
                let member = format!("{path}.{name}");
                match self.indexed_info(&member) {
                    IndexedInfo::Callable {
                        kind: Kind::Property,
                        pg: Some(r),
                        canonical,
                        ..
                    } => Abs::Pg(Origin::new(
                        true,
                        None,
                        format!("`{written}` ({at}; the property `{canonical}` returns `{r}`)"),
                    )),
                    IndexedInfo::Class(c) if !instance => Abs::Indexed {
                        path: c,
                        instance: false,
                    },
                    _ => by_name(false),
                }
            }
            Abs::Pg(_) | Abs::None | Abs::Class(_) | Abs::Func(_) => Abs::Unknown,
            _ => by_name(false),
        }
    }

    pub(super) fn call(&self, cv: &CallVal, cx: &Ctx, depth: usize) -> Abs {
        let at = self.loc(cx.file, cv.range);
        if let Val::Attr(recv, name, range) = &cv.func {
            let written = self.text(cx.file, *range);
            let r = self.eval(recv, cx, depth);
            return match r {
                Abs::Indexed { path, .. } => {
                    self.indexed_call(&format!("{path}.{name}"), &written, &at)
                }
                Abs::Obj(o) => {
                    // A project method: what it returns, with `self` the object.
                    let method = self.levels(&o).into_iter().find_map(|(c, _)| {
                        let facts = self.facts(c.0);
                        facts
                            .functions
                            .iter()
                            .find(|f| f.class == Some(c.1) && f.name == *name)
                            .map(|f| (c.0, f.id))
                    });
                    match method {
                        Some(m) => self.returns_of(m, cv, cx, Some(o), depth),
                        None => Abs::Unknown,
                    }
                }
                Abs::Class(_) | Abs::Func(_) | Abs::Pg(_) | Abs::None => Abs::Unknown,
                _ => self.factory_call(name, &written, &at),
            };
        }
        match self.eval(&cv.func, cx, depth) {
            Abs::Class(c) => {
                let args = self
                    .init_owner(c, 0)
                    .map(|owner| Rc::new(self.bind(owner, cv, cx, depth)));
                Abs::Obj(Rc::new(Obj {
                    class: c,
                    args,
                    how: Some(format!("built at {at}")),
                }))
            }
            Abs::Func(f) => self.returns_of(f, cv, cx, None, depth),
            Abs::Indexed { path, .. } => {
                let written = match &cv.func {
                    Val::Ref(p) => p.to_string(),
                    _ => path.clone(),
                };
                match self.indexed_call(&path, &written, &at) {
                    Abs::Indexed {
                        path: class,
                        instance: true,
                    } => self.built_with_group(class, cv, cx, depth, &at),
                    other => other,
                }
            }
            _ => Abs::Unknown,
        }
    }

    /// An object of an indexed class: one that keeps a process group when one of the
    /// arguments it is built with is a group (unless the class decides how it is copied).
    pub(super) fn built_with_group(
        &self,
        class: String,
        cv: &CallVal,
        cx: &Ctx,
        depth: usize,
        at: &str,
    ) -> Abs {
        let short = last_segment(&class).to_string();
        let mut found: Option<Origin> = None;
        let mut consider = |v: Abs, step: String, name: Option<&str>| {
            if found.is_some() {
                return;
            }
            if let Abs::Pg(o) = flow(v, step, name) {
                if o.reportable() {
                    found = Some(o);
                }
            }
        };
        for (i, a) in cv.args.iter().enumerate() {
            let v = self.eval(a, cx, depth + 1);
            consider(
                v,
                format!("passed to `{short}` as argument {}", i + 1),
                None,
            );
        }
        for (k, v, _) in &cv.kwargs {
            let v = self.eval(v, cx, depth + 1);
            consider(v, format!("passed to `{short}` as `{k}=`"), Some(k));
        }
        for (splat, range) in &cv.splats {
            if let Abs::Dict(entries) = self.eval(splat, cx, depth + 1) {
                let dict = self.loc(cx.file, *range);
                for (k, v, _) in entries {
                    let Some(k) = k else {
                        continue;
                    };
                    consider(
                        v,
                        format!("passed to `{short}` as `{k}=` through `**` ({dict})"),
                        Some(&k),
                    );
                }
            }
        }
        match found {
            Some(origin) if !self.indexed_hooks(&class) => Abs::Wrapped {
                class,
                origin,
                how: format!("built at {at}"),
            },
            _ => Abs::Indexed {
                path: class,
                instance: true,
            },
        }
    }

    /// What a project function returns when called with these arguments.
    pub(super) fn returns_of(
        &self,
        f: FuncRef,
        cv: &CallVal,
        cx: &Ctx,
        this: Option<Rc<Obj>>,
        depth: usize,
    ) -> Abs {
        let Some(func) = self.facts(f.0).function(f.1) else {
            return Abs::Unknown;
        };
        if func.returns.is_empty() || depth > MAX_EVAL_DEPTH / 2 {
            return Abs::Unknown;
        }
        let bindings = Rc::new(self.bind(f, cv, cx, depth));
        let inner = Ctx {
            file: f.0,
            bindings: Some(bindings),
            this,
        };
        func.returns
            .iter()
            .map(|r| self.eval(r, &inner, depth + 1))
            .fold(Abs::Unknown, best)
    }

    /// The arguments of a call bound to the parameters of a project function.
    pub(super) fn bind(&self, owner: FuncRef, cv: &CallVal, cx: &Ctx, depth: usize) -> Bindings {
        let mut b = Bindings {
            owner,
            values: HashMap::default(),
            open: cv.star_args,
        };
        let Some(func) = self.facts(owner.0).function(owner.1) else {
            b.open = true;
            return b;
        };
        let callee = match func.class {
            Some(c) if func.name == "__init__" => self.facts(owner.0).classes[c].name,
            _ => func.name,
        };
        let positional: Vec<&ParamInfo> = func
            .params
            .iter()
            .filter(|p| p.kind == ParamKind::Positional)
            .map(|p| &**p)
            .collect();
        let mut extra: Vec<Abs> = Vec::new();
        for (i, a) in cv.args.iter().enumerate() {
            let v = self.eval(a, cx, depth + 1);
            match positional.get(i) {
                Some(p) => {
                    let step = format!("passed to `{callee}` as `{}`", p.name);
                    b.values
                        .insert(p.name.to_string(), flow(v, step, Some(p.name)));
                }
                None => extra.push(v),
            }
        }
        let mut leftover: Vec<(Option<String>, Abs, String)> = Vec::new();
        let mut keyword = |b: &mut Bindings, k: &str, v: Abs, via: Option<&str>| {
            let takes = func.params.iter().any(|p| {
                p.name == k && matches!(p.kind, ParamKind::Positional | ParamKind::KeywordOnly)
            });
            let step = match via {
                Some(dict) => format!("passed to `{callee}` as `{k}=` through {dict}"),
                None => format!("passed to `{callee}` as `{k}=`"),
            };
            let v = match via {
                Some(_) => flow(v, String::new(), Some(k)),
                None => v,
            };
            if takes {
                b.values.insert(k.to_string(), flow(v, step, Some(k)));
            } else {
                leftover.push((Some(k.to_string()), v, String::new()));
            }
        };
        for (k, v, _) in &cv.kwargs {
            let v = self.eval(v, cx, depth + 1);
            keyword(&mut b, k, v, None);
        }
        for (splat, range) in &cv.splats {
            match self.eval(splat, cx, depth + 1) {
                Abs::Dict(entries) => {
                    let whole = format!(
                        "`**{}` ({})",
                        self.text(cx.file, *range).trim_start_matches("**"),
                        self.loc(cx.file, *range)
                    );
                    for (k, v, _) in entries {
                        match k {
                            Some(k) => keyword(&mut b, &k, v, Some(&whole)),
                            None => b.open = true,
                        }
                    }
                }
                _ => b.open = true,
            }
        }
        for p in &func.params {
            match p.kind {
                ParamKind::VarKeyword => {
                    b.values
                        .insert(p.name.to_string(), Abs::Dict(std::mem::take(&mut leftover)));
                }
                ParamKind::VarPositional => {
                    b.values
                        .insert(p.name.to_string(), Abs::Seq(std::mem::take(&mut extra)));
                }
                _ => {}
            }
        }
        b
    }
}
