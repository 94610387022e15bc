//! Parameters typed by the project's calls of their function (and `__init__`'s by the calls
//! of its class).

use crate::facts::MethodKind;
use crate::types::{Class, Ty};

use super::{Key, Model, Ns};

impl Model<'_> {
    /// An unannotated parameter: the instance or class a method receives, else what the
    /// project's calls of the function give it.
    pub(super) fn param(&self, m: u32, func: u32, index: u32) -> Ty {
        let f = &self.modules[m as usize].functions[func as usize];
        match (f.class, f.kind, index) {
            (Some(c), MethodKind::Plain | MethodKind::Property, 0) => Ty::Instance {
                class: Class::Project((m, c)),
                exact: false,
                via: None,
            },
            (Some(c), MethodKind::Class, 0) => Ty::ProjectClass((m, c)),
            _ => match self.memo(Key::Params(m, func), || self.passed(m, func)) {
                Ty::Tuple(params) => params.get(index as usize).cloned().unwrap_or(Ty::Unknown),
                _ => Ty::Unknown,
            },
        }
    }

    /// For each parameter, the union of what every call of a project function passes it, as
    /// a bound (callers outside the project may pass a subclass), in a tuple; each call is
    /// resolved once. Unknown when the function may be called from elsewhere (its name
    /// escapes, a decorator wraps it, a call spreads `*args`/`**kwargs`, a call's callee is
    /// not known) or is never called; a parameter is unknown when a call passes something
    /// unknown or leaves it out without a `None` default. A class's `__init__` learns from
    /// the calls of the class (`Trainer(model, opt)`), unless the class may be built other
    /// ways: its name escapes (a base of a subclass, a value in a registry), a decorator or
    /// metaclass, or a classmethod (`cls(...)`).
    fn passed(&self, m: u32, func: u32) -> Ty {
        let Some(escapes) = self.escapes else {
            return Ty::Unknown;
        };
        let module = &self.modules[m as usize];
        let f = &module.functions[func as usize];
        if f.wrapped {
            return Ty::Unknown;
        }
        let (name, wanted) = match f.class {
            Some(c) if f.name == "__init__" && f.kind == MethodKind::Plain => {
                let class = &module.classes[c as usize];
                let builds_itself = module
                    .functions
                    .iter()
                    .any(|g| g.class == Some(c) && g.kind == MethodKind::Class);
                if class.unusual || builds_itself {
                    return Ty::Unknown;
                }
                (class.name, Runs::Init((m, c)))
            }
            _ if f.name.starts_with("__") => return Ty::Unknown,
            _ => (f.name, Runs::Function((m, func))),
        };
        if escapes(name) || self.opaque.contains(name) {
            return Ty::Unknown;
        }
        let Some(calls) = self.calls.get(name) else {
            return Ty::Unknown;
        };
        // Per parameter: what the calls pass, or `None` once one passes nothing known.
        let mut passed: Vec<Option<Vec<Ty>>> = vec![Some(Vec::new()); f.params.len()];
        let mut any = false;
        for &(cm, ci) in calls {
            let call = &self.modules[cm as usize].calls[ci as usize];
            let ns = Ns::Project(cm, call.scope);
            // Positions taken by the receiver of a method called on an object.
            let offset = match (self.value(ns, &call.callee), wanted) {
                (Ty::ProjectFunction(k, receiver), Runs::Function(w)) if k == w => {
                    u32::from(receiver.is_some())
                }
                // `self`, which the construction makes.
                (Ty::ProjectClass(k), Runs::Init(w)) if k == w => 1,
                (Ty::Unknown, _) => return Ty::Unknown,
                _ => continue,
            };
            any = true;
            for (index, (p, slot)) in f.params.iter().zip(passed.iter_mut()).enumerate() {
                let Some(tys) = slot else {
                    continue;
                };
                let index = index as u32;
                let given = call
                    .keywords
                    .iter()
                    .find(|(k, _)| *k == p.name)
                    .map(|(_, v)| v)
                    .or_else(|| {
                        (index < f.positional && index >= offset)
                            .then(|| call.args.get((index - offset) as usize))
                            .flatten()
                    });
                match given {
                    Some(v) => tys.push(self.value(ns, v)),
                    None if p.default_none => tys.push(Ty::None),
                    None => *slot = None,
                }
            }
        }
        if !any {
            return Ty::Unknown;
        }
        Ty::Tuple(
            passed
                .into_iter()
                .map(|tys| match tys {
                    Some(tys) if !tys.is_empty() => Ty::union(tys).as_bound(),
                    _ => Ty::Unknown,
                })
                .collect(),
        )
    }
}

/// What the calls [`Model::passed`] reads must call: the function, or the class whose
/// `__init__` it is.
#[derive(Clone, Copy)]
enum Runs {
    Function((u32, u32)),
    Init((u32, u32)),
}
