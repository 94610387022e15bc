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
mod exprs;
mod names;
mod narrow;
mod splat;

use classes::ClassInfo;

use apicompat_hash::HashMap;
use std::cell::{Cell, RefCell};
use std::sync::Arc;

use crate::facts::{Def, ModuleFacts, ModuleName, ScopeId, Site};
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
    /// The indexed functions and properties whose return annotations declared some of the
    /// classes ([`Ty::Instance`]'s `via`): in a release where one of them declares no return,
    /// what the object is is not known.
    pub via: Vec<String>,
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
                    via,
                } => Receiver {
                    class: p.to_string(),
                    exact: *exact,
                    project_class: None,
                    others: Vec::new(),
                    via: via.iter().map(|v| v.to_string()).collect(),
                },
                Ty::Instance {
                    class: Class::Project(c),
                    exact,
                    via,
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
                        via: via.iter().map(|v| v.to_string()).collect(),
                    }
                }
                _ => return None,
            };
            any = true;
            if let Some(prev) = &mut out {
                for v in &r.via {
                    if !prev.via.contains(v) {
                        prev.via.push(v.clone());
                    }
                }
            }
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
}

fn root(path: &str) -> &str {
    path.split('.').next().unwrap_or(path)
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
