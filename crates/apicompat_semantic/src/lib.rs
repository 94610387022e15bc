//! The semantic model of a Python project: what each variable holds.
//!
//! 1. [`facts::extract`] reads one parsed module into scopes, bindings ([`facts::Def`]),
//!    functions, classes and the attribute reads whose receiver may be known
//!    ([`facts::Site`]); the syntax tree can be dropped afterwards.
//! 2. [`Model::new`] joins the modules of the project by their dotted names.
//! 3. [`Model::receiver`] answers, for an attribute read, the indexed class it is judged on
//!    and whether the object is exactly of that class or only bounded by it. Types come from
//!    calls of classes, annotations, return annotations recorded in the index, attributes the
//!    project's classes store on `self`, containers of classes and the project's own
//!    functions' returns ([`types::Ty`]).
//!
//! The index is asked through [`IndexQuery`], answered for one release per package (the
//! checker uses the newest targeted one): a class's members and a function's return
//! annotation rarely change the type a project variable holds, and every use is then judged
//! in every targeted release by the checker.

pub mod atom;
pub mod facts;
pub mod ir;
pub mod model;
pub mod types;

pub use facts::{extract, extract_with, ModuleFacts, ModuleName, Site, Splat};
pub use model::{Callee, Model, Receiver, SplatUse};
pub use types::Ty;

/// What a dotted path of an indexed package names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    Module,
    Class,
    Function,
    Property,
    /// An attribute or anything else (a TypeVar, a constant).
    Other,
}

/// A path found in the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: PathKind,
    /// Where the object is defined (re-exports resolved).
    pub canonical: String,
    /// The return annotation of its first signature, as written.
    pub returns: Option<String>,
}

/// The index, as the model asks it.
pub trait IndexQuery {
    /// Whether a top-level module belongs to an indexed package.
    fn is_indexed_root(&self, root: &str) -> bool;
    /// What `path` names, if the index knows it is there.
    fn lookup(&self, path: &str) -> Option<Found>;
}
