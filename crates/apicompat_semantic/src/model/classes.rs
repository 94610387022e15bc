//! Project classes: their hierarchy (project bases, the indexed base), what they define, and
//! what they store on `self`.

use std::sync::Arc;

use super::*;

impl Model<'_> {
    // ----- project classes -----

    /// What a project class's hierarchy is, computed once per class.
    pub(super) fn class_info(&self, c: ClassKey) -> std::rc::Rc<ClassInfo> {
        if let Some(info) = self.classes.borrow().get(&c) {
            return info.clone();
        }
        let mut info = ClassInfo::default();
        let mut stack = vec![c];
        while let Some(k) = stack.pop() {
            if info.mro.contains(&k) {
                continue;
            }
            if info.mro.len() >= MAX_HIERARCHY {
                info.unknowable = true;
                break;
            }
            info.mro.push(k);
            let facts = &self.modules[k.0 as usize].classes[k.1 as usize];
            if facts.open || facts.unusual {
                info.unknowable = true;
            }
            let ns = Ns::Project(k.0, facts.enclosing);
            let mut project = Vec::new();
            for b in &facts.bases {
                // `ABC`, `Generic[T]`: no members asked for here (the standard library is
                // indexed too, so they resolve; they must not hide the other bases).
                if is_neutral_base(b) {
                    continue;
                }
                match self.value(ns, b) {
                    Ty::ProjectClass(pk) => project.push(pk),
                    Ty::Indexed(p) => match self.find(&p) {
                        Some(Found {
                            kind: PathKind::Class,
                            canonical,
                            ..
                        }) => {
                            if !info.indexed.iter().any(|(_, c)| *c == canonical) {
                                info.indexed.push((p, canonical));
                            }
                        }
                        _ => info.unknowable = true,
                    },
                    _ => info.unknowable = true,
                }
            }
            // Depth-first, first base first (close to Python's MRO for what is asked here:
            // the first class that defines a name).
            stack.extend(project.into_iter().rev());
        }
        let info = std::rc::Rc::new(info);
        self.classes.borrow_mut().insert(c, info.clone());
        info
    }

    /// A name bound in the class body of `c` or one of its project bases.
    pub(super) fn class_member(&self, c: ClassKey, name: &str) -> Option<Ty> {
        let info = self.class_info(c);
        info.mro.iter().find_map(|k| {
            let facts = &self.modules[k.0 as usize].classes[k.1 as usize];
            self.modules[k.0 as usize].scopes[facts.scope as usize]
                .bindings
                .contains(name)
                .then(|| self.binding(k.0, facts.scope, name))
        })
    }

    /// `self.name = ...` in the methods of `c` and of its project bases: every class of the
    /// hierarchy sets attributes on the same object, so the type is the union of all their
    /// stores (one the model cannot follow makes it unknown).
    pub(super) fn stores(&self, c: ClassKey, name: &str) -> Option<Ty> {
        let info = self.class_info(c);
        let mut tys = Vec::new();
        for &k in &info.mro {
            let stores = &self.modules[k.0 as usize].classes[k.1 as usize].stores;
            let (Some(position), Some(defs)) = (stores.position(name), stores.get(name)) else {
                continue;
            };
            tys.push(self.memo(Key::Store(k, position), || {
                // In one class, a declared type wins over the values.
                let declared: Vec<_> = defs
                    .clone()
                    .filter(|(_, d)| matches!(d, Def::Declared(_)))
                    .collect();
                let chosen: Vec<_> = if declared.is_empty() {
                    defs.collect()
                } else {
                    declared
                };
                Ty::union(
                    chosen
                        .iter()
                        .map(|(s, d)| self.def(Ns::Project(k.0, *s), k.0, d)),
                )
            }));
        }
        (!tys.is_empty()).then(|| Ty::union(tys))
    }

    /// The one indexed class that answers `name` for objects of project class `c`: none when
    /// the project defines `name` on the class or its project bases, when a class of the
    /// hierarchy is open or built unusually, when a base is not known, or when several
    /// indexed classes are bases.
    pub(super) fn indexed_base_for(&self, c: ClassKey, name: &str) -> Option<Arc<str>> {
        let info = self.class_info(c);
        if info.unknowable || info.indexed.len() != 1 {
            return None;
        }
        let defined = info.mro.iter().any(|k| {
            let facts = &self.modules[k.0 as usize].classes[k.1 as usize];
            facts.stores.contains(name)
                || self.modules[k.0 as usize].scopes[facts.scope as usize]
                    .bindings
                    .contains(name)
        });
        if defined {
            return None;
        }
        info.indexed.first().map(|(p, _)| p.clone())
    }
}

impl Model<'_> {
    /// An object of class `a` is an instance of `c`: the same class (by canonical path), or a
    /// project class with `c` among its project or indexed bases.
    pub(super) fn derives_from(&self, a: &Class, c: &Class) -> bool {
        let canonical = |p: &str| self.find(p).map(|f| f.canonical);
        match (a, c) {
            (Class::Indexed(x), Class::Indexed(y)) => {
                x == y || canonical(x).is_some_and(|cx| Some(cx) == canonical(y))
            }
            (Class::Project(k), Class::Project(j)) => self.class_info(*k).mro.contains(j),
            (Class::Project(k), Class::Indexed(y)) => {
                let Some(cy) = canonical(y) else {
                    return false;
                };
                self.class_info(*k).indexed.iter().any(|(_, c)| *c == cy)
            }
            (Class::Indexed(_), Class::Project(_)) => false,
        }
    }
}

/// A project class's hierarchy.
#[derive(Debug, Default)]
pub(super) struct ClassInfo {
    /// The class and its project bases, the class first.
    mro: Vec<ClassKey>,
    /// The indexed bases: (as the project names it, canonical).
    indexed: Vec<(Arc<str>, String)>,
    /// A class of the hierarchy is open or built unusually, or a base is not known.
    unknowable: bool,
}

/// Project classes in one hierarchy followed at most.
const MAX_HIERARCHY: usize = 32;
