//! The project-wide model: the facts of every module joined by the project's own imports,
//! and the type of any expression of the project, inferred on demand and memoized.
//!
//! - Names resolve through their scopes as Python does (a class body is not visible from its
//!   methods; `global` names live in the module), flow-insensitively: a name's type is the union
//!   of what every binding in its scope gives it.
//! - Declared types (annotations) are bounds; a call of a class gives an exact object.
//! - A rebinding through the name itself (`model = model.to(device)`) keeps the type when it
//!   gives nothing new; any other cycle is unknown.
//! - Every query is bounded in depth ([`MAX_DEPTH`]); a memo makes each binding, attribute and
//!   return inferred once.

use crate::atom::Atom;
mod callers;
mod classes;
mod narrow;

use classes::ClassInfo;

use apicompat_hash::HashMap;
use std::cell::{Cell, RefCell};
use std::sync::Arc;

use crate::facts::{Def, MethodKind, ModuleFacts, ModuleName, ScopeId, Site, Splat};
use crate::ir::Sym;
use crate::types::{Class, ClassKey, FuncKey, Ty};
use crate::{Found, IndexQuery, PathKind};

/// Nested inferences deeper than this are unknown.
pub const MAX_DEPTH: usize = 96;

/// Base classes that add no members an indexed class could be missing.
const NEUTRAL_BASES: &[&str] = &["object", "ABC", "Generic", "Protocol", "ABCMeta"];

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// A name of a scope, by its position in the scope's bindings.
    Binding(u32, ScopeId, u32),
    /// An attribute stored on `self`, by its position in the class's stores.
    Store(ClassKey, u32),
    Returns(FuncKey),
    /// What the calls of a project function give its parameters (a tuple, one per parameter).
    Params(u32, u32),
}

/// The model of a project.
pub struct Model<'q> {
    modules: Vec<Arc<ModuleFacts>>,
    names: Vec<ModuleName>,
    by_name: HashMap<String, u32>,
    /// Attribute names some code stores on objects other than `self`.
    stored: apicompat_hash::HashSet<Atom>,
    query: &'q dyn IndexQuery,
    memo: RefCell<HashMap<Key, Ty>>,
    classes: RefCell<HashMap<ClassKey, std::rc::Rc<ClassInfo>>>,
    found: RefCell<HashMap<Arc<str>, Option<Found>>>,
    depth: Cell<usize>,
    /// Calls by name: (module, position in its `calls`).
    calls: HashMap<Atom, Vec<(u32, u32)>>,
    /// Names called in ways whose arguments are not known.
    opaque: apicompat_hash::HashSet<Atom>,
    /// Whether a function name is read other than as a callee somewhere (it may be called
    /// from anywhere); without it, parameters learn nothing from calls.
    escapes: Option<&'q dyn Fn(&str) -> bool>,
}

/// Where a namespace's names come from: a scope of the project, or an indexed module (for the
/// annotations the index records), with the receiver a `Self` stands for.
#[derive(Clone, Copy)]
enum Ns<'a> {
    Project(u32, ScopeId),
    Index {
        module: &'a str,
        class: Option<&'a str>,
        receiver: Option<&'a Ty>,
    },
}

/// What a `**mapping` argument passes (see [`Model::splat`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplatUse {
    pub callee: Callee,
    /// The keys the mapping holds.
    pub keys: Vec<String>,
}

/// A called indexed function, class or method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callee {
    /// `torch.optim.AdamW`, or `Class.method` for a method.
    pub path: String,
    /// For a method: its receiver.
    pub receiver: Option<Receiver>,
}

/// The indexed class an attribute read is judged on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receiver {
    /// The indexed class, as the project names it (`torch.nn.Linear`) or, for a return
    /// annotation of the index, where it is defined.
    pub class: String,
    /// The object is of exactly this class (or of a project class that adds nothing to it
    /// for this member); otherwise the class is a bound.
    pub exact: bool,
    /// The project class the object is of, when the member comes from its indexed base.
    pub project_class: Option<String>,
    /// Other indexed classes the object may be of (a union): a member is missing only where
    /// every one of them lacks it.
    pub others: Vec<String>,
}

impl<'q> Model<'q> {
    /// Joins the modules of a project, each with its dotted name (the facts may be shared
    /// with other models: the language server keeps them between checks).
    pub fn new<F: Into<Arc<ModuleFacts>>>(
        modules: Vec<(ModuleName, F)>,
        query: &'q dyn IndexQuery,
    ) -> Model<'q> {
        let mut by_name = HashMap::default();
        let mut stored = apicompat_hash::HashSet::default();
        let (names, facts): (Vec<ModuleName>, Vec<Arc<ModuleFacts>>) =
            modules.into_iter().map(|(n, f)| (n, f.into())).unzip();
        for (i, n) in names.iter().enumerate() {
            if let Some(name) = &n.name {
                by_name.entry(name.clone()).or_insert(i as u32);
            }
        }
        for (i, n) in names.iter().enumerate() {
            for alias in &n.aliases {
                by_name.entry(alias.clone()).or_insert(i as u32);
            }
        }
        let mut calls: HashMap<Atom, Vec<(u32, u32)>> = HashMap::default();
        let mut opaque = apicompat_hash::HashSet::default();
        for (m, f) in facts.iter().enumerate() {
            stored.extend(f.stored_names.iter().cloned());
            for (i, c) in f.calls.iter().enumerate() {
                calls.entry(c.name).or_default().push((m as u32, i as u32));
            }
            opaque.extend(f.opaque_calls.iter().copied());
        }
        Model {
            modules: facts,
            names,
            by_name,
            stored,
            query,
            memo: RefCell::new(HashMap::default()),
            classes: RefCell::new(HashMap::default()),
            found: RefCell::new(HashMap::default()),
            depth: Cell::new(0),
            calls,
            opaque,
            escapes: None,
        }
    }

    /// Lets the parameters of the project's functions learn their types from the calls of
    /// those functions: `escapes(name)` tells whether a name is read other than as a callee
    /// anywhere in the project (then the function may be called from anywhere).
    pub fn with_callers(mut self, escapes: &'q dyn Fn(&str) -> bool) -> Self {
        self.escapes = Some(escapes);
        self
    }

    pub fn modules(&self) -> &[Arc<ModuleFacts>] {
        &self.modules
    }

    pub fn module_name(&self, m: u32) -> Option<&str> {
        self.names.get(m as usize)?.name.as_deref()
    }

    /// The indexed class an attribute read is judged on, when the receiver's type is known
    /// and the project does not define the member itself.
    pub fn receiver(&self, m: u32, site: &Site) -> Option<Receiver> {
        let name = site.name;
        if name.starts_with("__") && name.ends_with("__") || self.stored.contains(name) {
            return None;
        }
        let ty = self.receiver_type(m, site);
        self.receiver_of(&ty, name)
    }

    /// The indexed class that answers `name` on an object of type `ty`.
    fn receiver_of(&self, ty: &Ty, name: &str) -> Option<Receiver> {
        let mut out: Option<Receiver> = None;
        let mut any = false;
        for alt in ty.alternatives() {
            let r = match alt {
                Ty::None | Ty::Never => continue,
                Ty::Instance {
                    class: Class::Indexed(p),
                    exact,
                } => Receiver {
                    class: p.to_string(),
                    exact: *exact,
                    project_class: None,
                    others: Vec::new(),
                },
                Ty::Instance {
                    class: Class::Project(c),
                    exact,
                } => {
                    let base = self.indexed_base_for(*c, name)?;
                    Receiver {
                        class: base.to_string(),
                        exact: *exact,
                        project_class: Some(
                            self.modules[c.0 as usize].classes[c.1 as usize]
                                .name
                                .to_string(),
                        ),
                        others: Vec::new(),
                    }
                }
                _ => return None,
            };
            any = true;
            match &mut out {
                None => out = Some(r),
                Some(prev) if prev.class == r.class => {
                    prev.exact &= r.exact;
                    if prev.project_class != r.project_class {
                        prev.project_class = None;
                    }
                }
                // One of several classes: the member is missing only where each lacks it.
                Some(prev) => {
                    prev.exact &= r.exact;
                    prev.project_class = None;
                    if !prev.others.contains(&r.class) {
                        prev.others.push(r.class);
                    }
                }
            }
        }
        if any {
            out
        } else {
            None
        }
    }

    /// The keywords a `**mapping` argument passes, and the callee they are judged on: the
    /// mapping is a dict literal or `dict(k=...)` (in every binding of its name), with the
    /// keys set on it by item assignment; a change the model cannot follow gives nothing.
    pub fn splat(&self, m: u32, splat: &Splat) -> Option<SplatUse> {
        let keys = self.mapping_keys(m, splat.scope, &splat.mapping)?;
        if keys.is_empty() {
            return None;
        }
        let callee = match self.value(Ns::Project(m, splat.scope), &splat.callee) {
            Ty::Indexed(p) => match self.find(&p)?.kind {
                PathKind::Class | PathKind::Function => Callee {
                    path: p.to_string(),
                    receiver: None,
                },
                _ => return None,
            },
            Ty::Method { path, receiver } => {
                let member = path.rsplit('.').next()?;
                let r = self
                    .receiver_of(&receiver, member)
                    .filter(|r| r.others.is_empty())?;
                Callee {
                    path: format!("{}.{member}", r.class),
                    receiver: Some(r),
                }
            }
            _ => return None,
        };
        Some(SplatUse { callee, keys })
    }

    fn mapping_keys(&self, m: u32, scope: ScopeId, mapping: &Sym) -> Option<Vec<String>> {
        let mut keys: Vec<String> = Vec::new();
        let mut add = |k: &str| {
            if !keys.iter().any(|x| x == k) {
                keys.push(k.to_string());
            }
        };
        match mapping {
            Sym::Name(n) => {
                let s = self.binding_scope(m, scope, n)?;
                let sc = &self.modules[m as usize].scopes[s as usize];
                // The keys every binding gives (a key only some branches give may be absent).
                let mut common: Option<Vec<String>> = None;
                for def in sc.bindings.get(n)? {
                    let Def::Value(v) = def else {
                        return None;
                    };
                    let ks = literal_keys(v, |name| self.binding_scope(m, s, name).is_none())?;
                    common = Some(match common {
                        None => ks,
                        Some(c) => c.into_iter().filter(|k| ks.contains(k)).collect(),
                    });
                }
                for k in common.unwrap_or_default() {
                    add(&k);
                }
                for (name, key) in &sc.items {
                    if name == n {
                        add(key.as_deref()?);
                    }
                }
            }
            v => {
                for k in literal_keys(v, |name| self.binding_scope(m, scope, name).is_none())? {
                    add(&k);
                }
            }
        }
        Some(keys)
    }

    /// The indexed packages a site's receiver comes from (its class's package, or the package
    /// whose function returned it), when every value it may hold comes from one; empty when
    /// not known.
    pub fn origins(&self, m: u32, site: &Site) -> Vec<String> {
        let ty = self.receiver_type(m, site);
        let mut out: Vec<String> = Vec::new();
        for alt in ty.alternatives() {
            let r = match alt {
                Ty::None => continue,
                Ty::From(r) | Ty::Foreign(r) => r.to_string(),
                Ty::Instance {
                    class: Class::Indexed(p),
                    ..
                } => root(p).to_string(),
                _ => return Vec::new(),
            };
            if !out.contains(&r) {
                out.push(r);
            }
        }
        out
    }

    /// The type of a site's receiver, where the `isinstance` tests around it held or failed.
    pub fn receiver_type(&self, m: u32, site: &Site) -> Ty {
        let narrows = self.modules[m as usize].narrowing(site);
        self.narrowed(Ns::Project(m, site.scope), &site.receiver, narrows)
    }

    // ----- the index -----

    fn find(&self, path: &str) -> Option<Found> {
        if let Some(f) = self.found.borrow().get(path) {
            return f.clone();
        }
        let f = self.query.lookup(path);
        self.found.borrow_mut().insert(Arc::from(path), f.clone());
        f
    }

    // ----- depth and memo -----

    fn enter(&self) -> bool {
        let d = self.depth.get();
        if d >= MAX_DEPTH {
            return false;
        }
        self.depth.set(d + 1);
        true
    }

    fn leave(&self) {
        self.depth.set(self.depth.get().saturating_sub(1));
    }

    /// Memoized inference of `key`; a key met again while it is inferred is unknown.
    fn memo(&self, key: Key, f: impl FnOnce() -> Ty) -> Ty {
        if let Some(t) = self.memo.borrow().get(&key) {
            return t.clone();
        }
        if !self.enter() {
            return Ty::Unknown;
        }
        self.memo.borrow_mut().insert(key.clone(), Ty::Unknown);
        let t = f();
        self.memo.borrow_mut().insert(key, t.clone());
        self.leave();
        t
    }

    // ----- names -----

    fn binding_scope(&self, m: u32, scope: ScopeId, name: &str) -> Option<ScopeId> {
        self.modules[m as usize].binding_scope(scope, name)
    }

    fn name(&self, m: u32, scope: ScopeId, name: &str) -> Ty {
        match self.binding_scope(m, scope, name) {
            Some(s) => self.binding(m, s, name),
            None => builtin(name),
        }
    }

    fn binding(&self, m: u32, s: ScopeId, name: &str) -> Ty {
        let bindings = &self.modules[m as usize].scopes[s as usize].bindings;
        let (Some(position), Some(defs)) = (bindings.position(name), bindings.get(name)) else {
            return Ty::Unknown;
        };
        let key = Key::Binding(m, s, position);
        self.memo(key.clone(), || {
            let ns = Ns::Project(m, s);
            let (through_self, others): (Vec<&Def>, Vec<&Def>) =
                defs.partition(|d| rooted_at(d, name));
            let base = Ty::union(others.iter().map(|d| self.def(ns, m, d)));
            if through_self.is_empty() || matches!(base, Ty::Unknown | Ty::Never) {
                return if through_self.is_empty() {
                    base
                } else {
                    Ty::Unknown
                };
            }
            // `x = x.to(device)`: with `x` as the other bindings give it, nothing new.
            self.memo.borrow_mut().insert(key.clone(), base.clone());
            let more = Ty::union(through_self.iter().map(|d| self.def(ns, m, d)));
            if more.within(&base) {
                base
            } else {
                Ty::Unknown
            }
        })
    }

    fn def(&self, ns: Ns, m: u32, def: &Def) -> Ty {
        match def {
            Def::Value(sym) => self.value(ns, sym),
            Def::Declared(sym) => self.declared(ns, sym),
            Def::Unpack(sym, i) => match self.value(ns, sym) {
                Ty::Tuple(items) => items.get(*i).cloned().unwrap_or(Ty::Unknown),
                t @ Ty::From(_) => t,
                _ => Ty::Unknown,
            },
            Def::Import(path) => self.module_path(path),
            Def::ImportFrom { module, name } => match self.by_name.get(&**module) {
                Some(&pm) => self.module_attr(pm, name),
                None if self.query.is_indexed_root(root(module)) => {
                    Ty::Indexed(format!("{module}.{name}").into())
                }
                None => Ty::Foreign(root(module).into()),
            },
            Def::Function(id) => Ty::ProjectFunction((m, *id), None),
            Def::Class(id) => Ty::ProjectClass((m, *id)),
            Def::Param { func, index } => self.param(m, *func, *index),
            Def::Unknown => Ty::Unknown,
        }
    }

    fn module_path(&self, path: &str) -> Ty {
        if let Some(&pm) = self.by_name.get(path) {
            return Ty::ProjectModule(pm);
        }
        if self.query.is_indexed_root(root(path)) {
            return Ty::Indexed(path.into());
        }
        Ty::Foreign(root(path).into())
    }

    /// A name of a project module: its global, else its submodule.
    fn module_attr(&self, pm: u32, name: &str) -> Ty {
        if self.modules[pm as usize].scopes[0].bindings.contains(name) {
            return self.binding(pm, 0, name);
        }
        match self.names[pm as usize].name.as_deref() {
            Some(n) => match self.by_name.get(&format!("{n}.{name}")) {
                Some(&sub) => Ty::ProjectModule(sub),
                None => Ty::Unknown,
            },
            None => Ty::Unknown,
        }
    }

    // ----- expressions -----

    fn value(&self, ns: Ns, sym: &Sym) -> Ty {
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
                let f = self.value(ns, &c.func);
                self.call(&f)
            }
            Sym::Subscript(v) => narrow::item_of(self.value(ns, v)),
            Sym::Union(v) => Ty::union(v.iter().map(|s| self.value(ns, s))),
            Sym::Seq(v) => Ty::Tuple(v.iter().map(|s| self.value(ns, s)).collect()),
            Sym::Dict(items) => Ty::Items(items.iter().map(|(_, s)| self.value(ns, s)).collect()),
        }
    }

    /// The type an annotation declares: an object of the class it names (a bound).
    fn declared(&self, ns: Ns, sym: &Sym) -> Ty {
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
                }
            }
            Ty::Indexed(p) => match self.find(p) {
                Some(Found {
                    kind: PathKind::Class,
                    ..
                }) => Ty::Instance {
                    class: Class::Indexed(p.clone()),
                    exact,
                },
                _ => Ty::Unknown,
            },
            Ty::Builtin => Ty::Builtin,
            _ => Ty::Unknown,
        }
    }

    fn ns_name(&self, ns: Ns, name: &str) -> Ty {
        match ns {
            Ns::Project(m, s) => self.name(m, s, name),
            Ns::Index {
                module,
                class,
                receiver,
            } => {
                if name == "Self" || Some(name) == class {
                    return match receiver {
                        Some(r) if name == "Self" => r.clone(),
                        Some(r) => r.clone().as_bound(),
                        None => Ty::Unknown,
                    };
                }
                match self.find(&format!("{module}.{name}")) {
                    Some(Found {
                        kind: PathKind::Class | PathKind::Module | PathKind::Function,
                        canonical,
                        ..
                    }) => Ty::Indexed(canonical.into()),
                    // `T = TypeVar("T", bound=...)` in a method's annotation: the receiver.
                    Some(Found {
                        kind: PathKind::Other | PathKind::Property,
                        ..
                    }) => match receiver {
                        Some(r) if looks_like_typevar(name) => r.clone(),
                        _ => Ty::Unknown,
                    },
                    None if self.query.is_indexed_root(name) => Ty::Indexed(name.into()),
                    // A stub imports the names its annotations use without re-exporting them
                    // (`from torch import Tensor` in `torch/_C/_VariableFunctions.pyi`): a class
                    // of that name at the package's top level is the one meant.
                    None => match self.find(&format!("{}.{name}", root(module))) {
                        Some(Found {
                            kind: PathKind::Class,
                            canonical,
                            ..
                        }) if root(module) != module => Ty::Indexed(canonical.into()),
                        _ => builtin(name),
                    },
                }
            }
        }
    }

    fn attr(&self, base: &Ty, name: &str) -> Ty {
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

    fn call(&self, f: &Ty) -> Ty {
        match f {
            Ty::Indexed(p) => match self.find(p) {
                Some(Found {
                    kind: PathKind::Class,
                    ..
                }) => Ty::Instance {
                    class: Class::Indexed(p.clone()),
                    exact: true,
                },
                Some(Found {
                    kind: PathKind::Function,
                    canonical,
                    returns,
                }) => from_package(
                    self.index_returns(&canonical, returns.as_deref(), None),
                    &canonical,
                ),
                _ => Ty::Unknown,
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

/// A name no binding of the project gives (a builtin): unknown, but `None`.
fn builtin(name: &str) -> Ty {
    match name {
        "None" => Ty::None,
        _ => Ty::Unknown,
    }
}

fn root(path: &str) -> &str {
    path.split('.').next().unwrap_or(path)
}

/// `T`, `_T`, `T_co`, `ModuleT`: the names a TypeVar usually has.
fn looks_like_typevar(name: &str) -> bool {
    let n = name.trim_start_matches('_');
    n == "T" || n.starts_with("T_") || n.ends_with('T') && n.len() <= 12
}

fn is_neutral_base(sym: &Sym) -> bool {
    let last = match sym {
        Sym::Name(n) => n,
        Sym::Attr(_, a) => a,
        Sym::Subscript(v) => return is_neutral_base(v),
        _ => return false,
    };
    NEUTRAL_BASES.contains(&&**last)
}

/// A binding that reads the name it binds (`x = x.to(device)`, `x = x[0]`).
fn rooted_at(def: &Def, name: &str) -> bool {
    let sym = match def {
        Def::Value(s) | Def::Unpack(s, _) => s,
        _ => return false,
    };
    let mut s = sym;
    loop {
        match s {
            Sym::Name(n) => return &**n == name,
            Sym::Attr(v, _) | Sym::Subscript(v) => s = v,
            Sym::Call(c) => s = &c.func,
            _ => return false,
        }
    }
}

/// The string keys of a dict literal or of `dict(k=v, ...)` (`dict` being the builtin, as
/// `is_builtin` tells); `**other` items add keys the model does not know, which is fine: the
/// known ones are passed all the same.
fn literal_keys(v: &Sym, is_builtin: impl Fn(&str) -> bool) -> Option<Vec<String>> {
    match v {
        Sym::Dict(items) => items
            .iter()
            .filter_map(|(k, _)| match k {
                None => None,
                Some("") => Some(None),
                Some(k) => Some(Some(k.to_string())),
            })
            .collect(),
        Sym::Call(c) => match &c.func {
            Sym::Name(n) if &**n == "dict" && is_builtin("dict") && c.positional == 0 => c
                .keywords
                .iter()
                .filter_map(|k| k.as_ref().map(|k| k.to_string()))
                .map(Some)
                .collect(),
            _ => None,
        },
        _ => None,
    }
}
