//! Names: the scope that binds a name, the type its bindings give it, imports, project
//! modules' attributes, and the names in the index's annotations.

use super::{root, Key, Model, Ns};
use crate::facts::{Def, ScopeId};
use crate::ir::Sym;
use crate::types::Ty;
use crate::{Found, PathKind};

impl Model<'_> {
    // ----- names -----

    pub(super) fn binding_scope(&self, m: u32, scope: ScopeId, name: &str) -> Option<ScopeId> {
        self.modules[m as usize].binding_scope(scope, name)
    }

    fn name(&self, m: u32, scope: ScopeId, name: &str) -> Ty {
        match self.binding_scope(m, scope, name) {
            Some(s) => self.binding(m, s, name),
            None => builtin(name),
        }
    }

    pub(super) fn binding(&self, m: u32, s: ScopeId, name: &str) -> Ty {
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

    pub(super) fn def(&self, ns: Ns, m: u32, def: &Def) -> Ty {
        match def {
            Def::Value(sym) => self.value(ns, sym),
            Def::Declared(sym) => self.declared(ns, sym),
            Def::Unpack(sym, i) => match self.value(ns, sym) {
                Ty::Tuple(items) => items.get(*i).cloned().unwrap_or(Ty::Unknown),
                t @ Ty::From(_) => t,
                _ => Ty::Unknown,
            },
            Def::Entered(sym) => match self.value(ns, sym) {
                t @ (Ty::From(_) | Ty::Foreign(_)) => t,
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
    pub(super) fn module_attr(&self, pm: u32, name: &str) -> Ty {
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

    pub(super) fn ns_name(&self, ns: Ns, name: &str) -> Ty {
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
}

/// A name no binding of the project gives (a builtin): unknown, but `None`.
fn builtin(name: &str) -> Ty {
    match name {
        "None" => Ty::None,
        _ => Ty::Unknown,
    }
}

/// `T`, `_T`, `T_co`, `ModuleT`: the names a TypeVar usually has.
fn looks_like_typevar(name: &str) -> bool {
    let n = name.trim_start_matches('_');
    n == "T" || n.starts_with("T_") || n.ends_with('T') && n.len() <= 12
}

/// A binding that reads the name it binds (`x = x.to(device)`, `x = x[0]`).
fn rooted_at(def: &Def, name: &str) -> bool {
    let sym = match def {
        Def::Value(s) | Def::Unpack(s, _) | Def::Entered(s) => s,
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
