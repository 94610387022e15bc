//! What an expression is as a [`Val`]: names traced to their bindings, calls, typed reads.

use super::*;

impl<'a> Walker<'a> {
    /// The class whose `self` an expression is.
    pub(super) fn self_of(&self, e: &Expr) -> Option<usize> {
        match e {
            Expr::Name(n) => match self.lookup(n.id.as_str()) {
                Val::SelfObj(ci) => Some(ci),
                _ => None,
            },
            _ => None,
        }
    }

    /// Statements whose effect matters: `kwargs.update(...)`, `super().__init__(...)`.
    pub(super) fn effect(&mut self, e: &'a Expr) {
        let Expr::Call(call) = e else {
            return;
        };
        let Expr::Attribute(a) = &*call.func else {
            return;
        };
        match a.attr.as_str() {
            "update" => {
                if let Expr::Name(n) = &*a.value {
                    if let Val::Dict(mut shared) = self.lookup(n.id.as_str()) {
                        let entries = Arc::make_mut(&mut shared);
                        for arg in call.arguments.args.iter() {
                            match self.val(arg, 0) {
                                Val::Dict(more) => entries.extend(more.iter().cloned()),
                                _ => entries.push((None, Val::Unknown, arg.range())),
                            }
                        }
                        for k in call.arguments.keywords.iter() {
                            let v = self.val(&k.value, 0);
                            entries.push((k.arg.as_ref().map(|a| atom(a.as_str())), v, k.range()));
                        }
                        self.bind(n.id.as_str(), Val::Dict(shared).capped());
                    }
                }
            }
            "__init__" => {
                let Some((Some(class), func)) = self.frames.last().map(|f| (f.class, f.id)) else {
                    return;
                };
                let base = self.val(&a.value, 0);
                let mut cv = self.call_val(call, self.val(&call.func, 0), 0);
                let (base, is_init) = match base {
                    Val::Super => (None, true),
                    // `Base.__init__(self, ...)`.
                    b @ (Val::Ref(_) | Val::LocalClass(_)) => {
                        let passes_self = matches!(cv.args.first(), Some(Val::SelfObj(_)));
                        if passes_self {
                            cv.args.remove(0);
                        }
                        (Some(b), passes_self)
                    }
                    _ => (None, false),
                };
                if is_init {
                    self.out.classes[class].supers.push(SuperInit {
                        base,
                        call: cv,
                        func,
                    });
                }
            }
            _ => {}
        }
    }

    // ----- expressions -----

    /// Records the copies and pickles in an expression.
    pub(super) fn scan(&mut self, e: &'a Expr) {
        let mut calls: Vec<&'a ast::ExprCall> = Vec::new();
        let mut attrs: Vec<&'a ast::ExprAttribute> = Vec::new();
        collect_calls(e, &mut calls, &mut attrs, 0);
        for a in attrs {
            self.typed_read(a);
        }
        for call in calls {
            if let Expr::Name(n) = &*call.func {
                self.out.called.insert(n.id.to_string());
            }
            // Copy functions are named by dotted paths: a callee that is not one (`f()()`,
            // `df.a().b()`) is not evaluated (that made every call of a chain walk the chain).
            if !is_dotted_name(&call.func) {
                continue;
            }
            let Val::Ref(path) = self.val(&call.func, 0) else {
                continue;
            };
            let Some(&(func, kind, pos, kw, _list)) = COPY_FUNCTIONS.iter().find(|c| c.0 == path)
            else {
                continue;
            };
            let arg = call
                .arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == kw))
                .map(|k| &k.value)
                .or_else(|| call.arguments.args.get(pos));
            let Some(arg) = arg else {
                continue;
            };
            if matches!(arg, Expr::Starred(_)) {
                continue;
            }
            let callee = self.source(call.func.range());
            let arg_text = self.source(arg.range());
            let written = format!("{}({})", callee, shorten(arg_text));
            let val = self.val(arg, 0);
            self.out.copies.push(CopySite {
                kind,
                func: func.to_string(),
                written,
                arg: val,
                range: call.range(),
                stmt_start: self.stmt_start,
                in_function: !self.frames.is_empty(),
                target: None,
            });
        }
    }

    /// The names an `if` test proves to be objects of a class: `isinstance(x, C)`, alone or
    /// in an `and` chain (one class, not a tuple).
    pub(super) fn isinstance(&self, test: &Expr) -> Vec<(String, Val)> {
        match test {
            Expr::BoolOp(b) if b.op == ast::BoolOp::And => {
                b.values.iter().flat_map(|v| self.isinstance(v)).collect()
            }
            Expr::Call(call) => {
                let is_builtin = matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "isinstance")
                    && self.lookup("isinstance") == Val::Unknown;
                match (is_builtin, &*call.arguments.args) {
                    (true, [Expr::Name(n), class]) => match self.val(class, 0) {
                        c @ (Val::Ref(_) | Val::LocalClass(_)) => {
                            vec![(n.id.to_string(), Val::Instance(Arc::new(c), call.range()))]
                        }
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// The expressions an assignment target reads (`a.b` in `a.b.c = v`, `a.b[k] = v`).
    pub(super) fn scan_target(&mut self, t: &'a Expr) {
        match t {
            Expr::Attribute(a) => self.scan(&a.value),
            Expr::Subscript(s) => {
                self.scan(&s.value);
                self.scan(&s.slice);
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.scan_target(e)),
            Expr::List(t) => t.elts.iter().for_each(|e| self.scan_target(e)),
            _ => {}
        }
    }

    /// Notes `x.attr` when `x` is known to be an object of a named class: built by calling an
    /// imported class, or a parameter annotated with one.
    pub(super) fn typed_read(&mut self, a: &ast::ExprAttribute) {
        let Expr::Name(n) = &*a.value else {
            return;
        };
        let (class, how) = match self.lookup(n.id.as_str()) {
            Val::Call(c) => match &c.func {
                Val::Ref(p) if !p.starts_with('.') => (p.to_string(), TypeSource::Built(c.range)),
                _ => return,
            },
            Val::Instance(c, range) => match &*c {
                Val::Ref(p) if !p.starts_with('.') => (p.to_string(), TypeSource::Checked(range)),
                _ => return,
            },
            Val::Param(p) => {
                let Some(annotation) = &p.annotation else {
                    return;
                };
                let ids: Vec<&str> = annotation
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                    .filter(|s| !s.is_empty() && !matches!(*s, "Optional" | "None"))
                    .collect();
                let [one] = ids.as_slice() else {
                    return;
                };
                let mut parts = one.splitn(2, '.');
                let head = parts.next().unwrap_or(one);
                let Val::Ref(base) = self.lookup(head) else {
                    return;
                };
                let path = match parts.next() {
                    Some(rest) => format!("{base}.{rest}"),
                    None => base.to_string(),
                };
                if path.starts_with('.') {
                    return;
                }
                (path, TypeSource::Annotated(p.range))
            }
            _ => return,
        };
        self.out.typed.push(TypedRead {
            range: a.range(),
            class,
            how,
        });
    }

    pub(super) fn val(&self, e: &Expr, depth: usize) -> Val {
        self.steps.set(self.steps.get() + 1);
        if depth > 64 {
            return Val::Unknown;
        }
        let d = depth + 1;
        let v = match e {
            Expr::Name(n) => self.lookup(n.id.as_str()),
            Expr::Attribute(a) => {
                let base = self.val(&a.value, d);
                match base {
                    Val::Ref(p) => Val::Ref(atom(&format!("{p}.{}", a.attr.as_str()))),
                    b => Val::Attr(Arc::new(b), atom(a.attr.as_str()), a.range()),
                }
            }
            Expr::Call(call) => {
                let func = self.val(&call.func, d);
                match func {
                    Val::Builtin("super") => Val::Super,
                    Val::Builtin(b) if b == "dict" => {
                        let cv = self.call_val(call, Val::Builtin(b), d);
                        let mut entries: Vec<(Option<Atom>, Val, TextRange)> = Vec::new();
                        for a in cv.args {
                            match a {
                                Val::Dict(more) => entries.extend(more.iter().cloned()),
                                _ => entries.push((None, Val::Unknown, call.range())),
                            }
                        }
                        entries.extend(cv.kwargs.into_iter().map(|(k, v, r)| (Some(k), v, r)));
                        entries.extend(cv.splats.into_iter().map(|(v, r)| (None, v, r)));
                        Val::Dict(Arc::new(entries))
                    }
                    func => Val::Call(Arc::new(self.call_val(call, func, d))),
                }
            }
            Expr::Dict(dict) => Val::Dict(Arc::new(
                dict.items
                    .iter()
                    .filter_map(|item| match &item.key {
                        None => Some((None, self.val(&item.value, d), item.value.range())),
                        Some(Expr::StringLiteral(k)) => Some((
                            Some(key_atom(k.value.to_str())),
                            self.val(&item.value, d),
                            item.value.range(),
                        )),
                        Some(_) => None,
                    })
                    .collect(),
            )),
            Expr::List(l) => Val::Seq(Arc::new(l.elts.iter().map(|x| self.val(x, d)).collect())),
            Expr::Tuple(t) => Val::Seq(Arc::new(t.elts.iter().map(|x| self.val(x, d)).collect())),
            Expr::Set(s) => Val::Seq(Arc::new(s.elts.iter().map(|x| self.val(x, d)).collect())),
            Expr::NoneLiteral(_) => Val::NoneLit,
            Expr::NumberLiteral(_)
            | Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::FString(_)
            | Expr::EllipsisLiteral(_) => Val::Lit,
            Expr::If(i) => Val::Either(
                Arc::new(self.val(&i.body, d)),
                Arc::new(self.val(&i.orelse, d)),
            ),
            Expr::BoolOp(b) => {
                let mut out: Option<Val> = None;
                for v in &b.values {
                    let v = self.val(v, d);
                    out = Some(match out {
                        None => v,
                        Some(prev) => Val::Either(Arc::new(prev), Arc::new(v)),
                    });
                }
                out.unwrap_or(Val::Unknown)
            }
            Expr::Named(n) => self.val(&n.value, d),
            Expr::Subscript(sub) => {
                let key = match &*sub.slice {
                    Expr::StringLiteral(k) => Some(Key::Name(key_atom(k.value.to_str()))),
                    Expr::NumberLiteral(ast::ExprNumberLiteral {
                        value: ast::Number::Int(i),
                        ..
                    }) => i.as_usize().map(Key::Position),
                    _ => None,
                };
                Val::Index(Arc::new(self.val(&sub.value, d)), key)
            }
            _ => Val::Unknown,
        };
        // Capped once, for the whole expression: capping each level counted the same nodes
        // again at every level above them (a tenth of the walk on large projects). Inside,
        // a value is at most the expression's own nodes and the (capped) values of the names
        // it reads, shared, not copied.
        if depth == 0 {
            v.capped()
        } else {
            v
        }
    }

    /// The call's arguments, evaluated once each; `func` is the callee's value (evaluated by
    /// the caller: evaluating it here again made chains `f()()()` exponential).
    pub(super) fn call_val(&self, call: &ast::ExprCall, func: Val, d: usize) -> CallVal {
        let mut args = Vec::new();
        let mut star_args = false;
        for a in call.arguments.args.iter() {
            if let Expr::Starred(_) = a {
                star_args = true;
                continue;
            }
            if !star_args {
                args.push(self.val(a, d));
            }
        }
        let mut kwargs = Vec::new();
        let mut splats = Vec::new();
        for k in call.arguments.keywords.iter() {
            let v = self.val(&k.value, d);
            match &k.arg {
                Some(name) => kwargs.push((atom(name.as_str()), v, k.range())),
                None => splats.push((v, k.range())),
            }
        }
        CallVal {
            func,
            args,
            star_args,
            kwargs,
            splats,
            range: call.range(),
        }
    }
}
