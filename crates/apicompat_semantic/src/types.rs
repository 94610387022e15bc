//! What an expression holds, as far as the model knows.

use std::sync::Arc;

use crate::facts::{ClassId, FuncId};

/// A project class or function: (module, id).
pub type ClassKey = (u32, ClassId);
pub type FuncKey = (u32, FuncId);

/// The class of an object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Class {
    /// A class of an indexed package, by canonical path.
    Indexed(Arc<str>),
    Project(ClassKey),
}

/// A type.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// Not known: every question about it answers unknown.
    Unknown,
    /// No value (a union with nothing in it; a name being inferred in a cycle's first round).
    Never,
    None,
    /// A value of a builtin type (a literal): never an object of an indexed class.
    Builtin,
    /// The object at a path of an indexed package (module, class, function).
    Indexed(Arc<str>),
    /// An object of a class. `exact`: built by calling the class here; otherwise a declared
    /// bound (an annotation, a return annotation, `self`) that a subclass may stand for.
    Instance {
        class: Class,
        exact: bool,
        /// The indexed function or property whose return annotation declared this bound (in
        /// the release the model reads): the bound holds only in releases where it declares a
        /// return (`torch.distributed.all_reduce` declares `-> Work` from 2.14 only).
        via: Option<Arc<str>>,
    },
    /// A method of an indexed class, read on a receiver.
    Method {
        path: Arc<str>,
        receiver: Box<Ty>,
    },
    ProjectModule(u32),
    ProjectClass(ClassKey),
    /// A project function; for methods read on an object, the receiver.
    ProjectFunction(FuncKey, Option<Box<Ty>>),
    /// A tuple of known length (unpacked by position).
    Tuple(Vec<Ty>),
    /// A container whose items are these (a dict or list literal).
    Items(Vec<Ty>),
    /// An object some function or method of this indexed package (top-level module) returned,
    /// of a class the model does not know (`booster.boost(...)`, annotated `List[Union[...]]`),
    /// or an item of one.
    From(Arc<str>),
    /// A module of a package the index does not have (not the project's either), or an
    /// attribute of one, or what calling one gives: its class is that package's, never an
    /// indexed one (`rich.progress.Progress(...)`).
    Foreign(Arc<str>),
    /// One of several (never holds `Unknown`, `Never` or another union).
    Union(Vec<Ty>),
}

impl Ty {
    /// The union of several types: `Unknown` if any is unknown.
    pub fn union(tys: impl IntoIterator<Item = Ty>) -> Ty {
        let mut out: Vec<Ty> = Vec::new();
        for t in tys {
            match t {
                Ty::Unknown => return Ty::Unknown,
                Ty::Never => {}
                Ty::Union(inner) => {
                    for i in inner {
                        if !out.contains(&i) {
                            out.push(i);
                        }
                    }
                }
                t => {
                    if !out.contains(&t) {
                        out.push(t);
                    }
                }
            }
            if out.len() > MAX_UNION {
                return Ty::Unknown;
            }
        }
        match out.len() {
            0 => Ty::Never,
            1 => out.pop().unwrap_or(Ty::Never),
            _ => Ty::Union(out),
        }
    }

    /// The alternatives of a union (itself otherwise).
    pub fn alternatives(&self) -> &[Ty] {
        match self {
            Ty::Union(v) => v,
            t => std::slice::from_ref(t),
        }
    }

    /// The same type, no longer exact (what a subclass could stand for).
    pub fn as_bound(self) -> Ty {
        match self {
            Ty::Instance { class, via, .. } => Ty::Instance {
                class,
                exact: false,
                via,
            },
            Ty::Union(v) => Ty::Union(v.into_iter().map(Ty::as_bound).collect()),
            t => t,
        }
    }

    /// The same type, each object of a class that is not `receiver` itself declared by the
    /// return annotation of `path` (in tuples and containers too).
    pub fn declared_by(self, path: &Arc<str>, receiver: Option<&Ty>) -> Ty {
        let keep = |t: &Ty| receiver.is_some_and(|r| r.alternatives().contains(t));
        match self {
            t @ Ty::Instance { .. } if keep(&t) => t,
            Ty::Instance { class, exact, .. } => Ty::Instance {
                class,
                exact,
                via: Some(path.clone()),
            },
            Ty::Union(v) => Ty::Union(
                v.into_iter()
                    .map(|t| t.declared_by(path, receiver))
                    .collect(),
            ),
            Ty::Tuple(v) => Ty::Tuple(
                v.into_iter()
                    .map(|t| t.declared_by(path, receiver))
                    .collect(),
            ),
            Ty::Items(v) => Ty::Items(
                v.into_iter()
                    .map(|t| t.declared_by(path, receiver))
                    .collect(),
            ),
            t => t,
        }
    }

    /// Every alternative is also one of `other`'s.
    pub fn within(&self, other: &Ty) -> bool {
        match self {
            Ty::Never => true,
            Ty::Unknown => false,
            t => t
                .alternatives()
                .iter()
                .all(|a| other.alternatives().contains(a)),
        }
    }
}

/// Unions wider than this are unknown.
const MAX_UNION: usize = 8;
