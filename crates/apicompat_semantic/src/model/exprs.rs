//! Expressions: values, declared types, attributes, calls, and what functions return (the
//! project's, and the index's return annotations read in their defining module).

use std::sync::Arc;

use super::{narrow, root, Key, Model, Ns};
use crate::facts::{MethodKind, ScopeKind};
use crate::ir::Sym;
use crate::types::{Class, FuncKey, Ty};
use crate::{Found, PathKind};

impl Model<'_> {
    // ----- expressions -----

    pub(super) fn value(&self, ns: Ns, sym: &Sym) -> Ty {
        if !self.enter() {
            return Ty::Unknown;
        }
        let t = self.value_inner(ns, sym);
        self.leave();
        t
    }

    fn value_inner(&self, ns: Ns, sym: &Sym) -> Ty {
        match sym {
            Sym::Unknown => Ty::Unknown,
            Sym::None => Ty::None,
            Sym::Literal => Ty::Builtin,
            Sym::Name(n) => self.ns_name(ns, n),
            Sym::Attr(v, a) => {
                let base = self.value(ns, v);
                self.attr(&base, a)
            }
            Sym::Call(c) => {
                if let Some(t) = self.super_object(ns, c) {
                    return t;
                }
                let f = self.value(ns, &c.func);
                self.call(&f)
            }
            Sym::Subscript(v) => narrow::item_of(self.value(ns, v)),
            Sym::Union(v) => Ty::union(v.iter().map(|s| self.value(ns, s))),
            Sym::Seq(v) => Ty::Tuple(v.iter().map(|s| self.value(ns, s)).collect()),
            Sym::Dict(items) => Ty::Items(items.iter().map(|(_, s)| self.value(ns, s)).collect()),
        }
    }

    /// `super()` (or `super(C, self)`) directly in a method of a project class with one base:
    /// an object of that base, as a bound (its members are the base's). `None` for any other
    /// call; unknown for a class with several bases (the next class depends on the object's
    /// method resolution order) and for `super` bound by the project.
    fn super_object(&self, ns: Ns, c: &crate::ir::CallSym) -> Option<Ty> {
        let Sym::Name(n) = &c.func else {
            return None;
        };
        if &**n != "super" {
            return None;
        }
        let Ns::Project(m, scope) = ns else {
            return None;
        };
        if !c.keywords.is_empty()
            || !matches!(c.positional, 0 | 2)
            || self.binding_scope(m, scope, "super").is_some()
        {
            return Some(Ty::Unknown);
        }
        let module = &self.modules[m as usize];
        // The function whose body the scope is (its kind says which).
        let method = match module.scopes.get(scope as usize).map(|s| s.kind) {
            Some(ScopeKind::Function(id)) => module.functions.get(id as usize),
            _ => None,
        }
        .filter(|f| matches!(f.kind, MethodKind::Plain | MethodKind::Property));
        let Some(class) = method.and_then(|f| f.class) else {
            return Some(Ty::Unknown);
        };
        let class = &module.classes[class as usize];
        let [base] = class.bases.as_slice() else {
            return Some(Ty::Unknown);
        };
        let base = self.value(Ns::Project(m, class.enclosing), base);
        Some(self.instance_of(&base, false))
    }

    /// The type an annotation declares: an object of the class it names (a bound).
    pub(super) fn declared(&self, ns: Ns, sym: &Sym) -> Ty {
        if !self.enter() {
            return Ty::Unknown;
        }
        let t = match sym {
            Sym::None => Ty::None,
            Sym::Union(v) => Ty::union(v.iter().map(|s| self.declared(ns, s))),
            Sym::Seq(v) => Ty::Tuple(v.iter().map(|s| self.declared(ns, s)).collect()),
            Sym::Name(_) | Sym::Attr(..) | Sym::Subscript(_) => {
                let inner = match sym {
                    Sym::Subscript(v) => v,
                    s => s,
                };
                match self.value(ns, inner) {
                    // `Self`, a TypeVar of a method: the receiver.
                    t @ Ty::Instance { .. } => t,
                    Ty::Union(alts) if alts.iter().all(|a| matches!(a, Ty::Instance { .. })) => {
                        Ty::Union(alts)
                    }
                    // Something of a package that is not a class (`pool: mp.Pool`, the
                    // standard library's factory bound at module level): an object from
                    // that package, of a class not known.
                    Ty::Indexed(p) if self.find(&p).is_some_and(|f| f.kind != PathKind::Class) => {
                        Ty::From(Arc::from(root(&p)))
                    }
                    t => self.instance_of(&t, false),
                }
            }
            _ => Ty::Unknown,
        };
        self.leave();
        t
    }

    /// An object of the class `t` is.
    fn instance_of(&self, t: &Ty, exact: bool) -> Ty {
        match t {
            Ty::ProjectClass(c) => {
                let facts = &self.modules[c.0 as usize].classes[c.1 as usize];
                if facts.unusual && exact {
                    return Ty::Unknown;
                }
                Ty::Instance {
                    class: Class::Project(*c),
                    exact,
                    via: None,
                }
            }
            Ty::Indexed(p) => match self.find(p) {
                Some(Found {
                    kind: PathKind::Class,
                    ..
                }) => Ty::Instance {
                    class: Class::Indexed(p.clone()),
                    exact,
                    via: None,
                },
                _ => Ty::Unknown,
            },
            Ty::Builtin => Ty::Builtin,
            _ => Ty::Unknown,
        }
    }

    pub(super) fn attr(&self, base: &Ty, name: &str) -> Ty {
        match base {
            Ty::Indexed(p) => Ty::Indexed(format!("{p}.{name}").into()),
            Ty::ProjectModule(pm) => self.module_attr(*pm, name),
            Ty::ProjectClass(c) => match self.class_member(*c, name) {
                Some(t) => t,
                None => Ty::Unknown,
            },
            Ty::Instance {
                class: Class::Project(c),
                ..
            } => match self.class_member(*c, name) {
                Some(Ty::ProjectFunction(f, None)) => {
                    let kind = self.modules[f.0 as usize].functions[f.1 as usize].kind;
                    match kind {
                        MethodKind::Property => self.returns(f, Some(base)),
                        MethodKind::Static => Ty::ProjectFunction(f, None),
                        _ => Ty::ProjectFunction(f, Some(Box::new(base.clone()))),
                    }
                }
                Some(t) => t,
                None => match self.stores(*c, name) {
                    Some(t) => t,
                    // Inherited from an indexed base: the receiver stays this object
                    // (`Collection(...).cuda()`, `-> T`, is still a `Collection`).
                    None => match self.indexed_base_for(*c, name) {
                        Some(b) => self.indexed_member(&b, name, base),
                        None => Ty::Unknown,
                    },
                },
            },
            Ty::Instance {
                class: Class::Indexed(p),
                ..
            } => self.indexed_member(p, name, base),
            Ty::Union(alts) => Ty::union(
                alts.iter()
                    .filter(|a| !matches!(a, Ty::None))
                    .map(|a| self.attr(a, name)),
            ),
            Ty::Foreign(r) => Ty::Foreign(r.clone()),
            // A member of an object from a package: from that package.
            Ty::From(r) => Ty::From(r.clone()),
            _ => Ty::Unknown,
        }
    }

    /// The member `name` of the indexed class `class`, read on `receiver`.
    fn indexed_member(&self, class: &str, name: &str, receiver: &Ty) -> Ty {
        match self.find(&format!("{class}.{name}")) {
            Some(Found {
                kind: PathKind::Function,
                canonical,
                ..
            }) => Ty::Method {
                path: canonical.into(),
                receiver: Box::new(receiver.clone()),
            },
            Some(Found {
                kind: PathKind::Property,
                canonical,
                returns,
            }) => self.index_returns(&canonical, returns.as_deref(), Some(receiver)),
            _ => Ty::Unknown,
        }
    }

    pub(super) fn call(&self, f: &Ty) -> Ty {
        match f {
            Ty::Indexed(p) => match self.find(p) {
                Some(Found {
                    kind: PathKind::Class,
                    ..
                }) => Ty::Instance {
                    class: Class::Indexed(p.clone()),
                    exact: true,
                    via: None,
                },
                Some(Found {
                    kind: PathKind::Function,
                    canonical,
                    returns,
                }) => from_package(
                    self.index_returns(&canonical, returns.as_deref(), None),
                    &canonical,
                ),
                // Another callable object of the package (`multiprocessing.get_context`, a
                // bound method the stub binds at module level): an object from it.
                Some(_) => Ty::From(Arc::from(root(p))),
                None => Ty::Unknown,
            },
            Ty::Method { path, receiver } => match self.find(path) {
                Some(Found { returns, .. }) => from_package(
                    self.index_returns(path, returns.as_deref(), Some(receiver)),
                    path,
                ),
                None => Ty::Unknown,
            },
            Ty::ProjectClass(_) => self.instance_of(f, true),
            Ty::ProjectFunction(fk, receiver) => self.returns(*fk, receiver.as_deref()),
            Ty::Union(alts) => Ty::union(alts.iter().map(|a| self.call(a))),
            Ty::Foreign(r) => Ty::Foreign(r.clone()),
            // What an object from a package gives when called is from that package too.
            Ty::From(r) => Ty::From(r.clone()),
            _ => Ty::Unknown,
        }
    }

    /// What calling a project function gives.
    fn returns(&self, f: FuncKey, receiver: Option<&Ty>) -> Ty {
        let facts = &self.modules[f.0 as usize].functions[f.1 as usize];
        if facts.wrapped || facts.generator {
            return Ty::Unknown;
        }
        let ns = Ns::Project(f.0, facts.scope);
        if let Some(r) = &facts.returns {
            return self.declared(ns, r);
        }
        let t = self.memo(Key::Returns(f), || {
            Ty::union(facts.return_values.iter().map(|v| self.value(ns, v)))
        });
        // A method that returns `self` gives its receiver.
        match (receiver, &t) {
            (
                Some(r),
                Ty::Instance {
                    class: Class::Project(c),
                    exact: false,
                    ..
                },
            ) if facts.class.map(|k| (f.0, k)) == Some(*c) => r.clone(),
            (_, Ty::Never) => Ty::None,
            _ => t,
        }
    }

    /// The type a return annotation recorded in the index declares, read in the module that
    /// defines the function.
    fn index_returns(&self, path: &str, returns: Option<&str>, receiver: Option<&Ty>) -> Ty {
        let Some(text) = returns else {
            return Ty::Unknown;
        };
        let Ok(parsed) = ruff_python_parser::parse_expression(text) else {
            return Ty::Unknown;
        };
        let sym = crate::ir::annotation(parsed.expr());
        let (module, class) = self.defining_module(path, receiver.is_some());
        let Some(module) = module else {
            return Ty::Unknown;
        };
        let ns = Ns::Index {
            module: &module,
            class: class.as_deref(),
            receiver,
        };
        self.declared(ns, &sym)
            .declared_by(&Arc::from(path), receiver)
    }

    /// The module that defines `path` (and, for a method, its class's name).
    fn defining_module(&self, path: &str, method: bool) -> (Option<String>, Option<String>) {
        let mut parts: Vec<&str> = path.split('.').collect();
        parts.pop();
        let mut class = None;
        if method {
            class = parts.pop().map(str::to_string);
        }
        while !parts.is_empty() {
            let candidate = parts.join(".");
            if let Some(Found {
                kind: PathKind::Module,
                ..
            }) = self.find(&candidate)
            {
                return (Some(candidate), class);
            }
            parts.pop();
        }
        (None, class)
    }
}

/// What calling an indexed function gives: the type its return annotation declares, else an
/// object from its package.
fn from_package(t: Ty, path: &str) -> Ty {
    match t {
        Ty::Unknown => Ty::From(Arc::from(root(path))),
        t => t,
    }
}
