//! A site's receiver where `isinstance` tests held or failed ([`crate::facts::Narrow`]).

use super::*;
use crate::facts::narrow::is_prefix;
use crate::facts::Narrow;

impl Model<'_> {
    /// The type of `sym` with the tests of `narrows` applied to it and to the parts it is
    /// read through.
    pub(super) fn narrowed(&self, ns: Ns, sym: &Sym, narrows: &[Narrow]) -> Ty {
        if narrows.is_empty() {
            return self.value(ns, sym);
        }
        let inner = |s: &Sym| narrows.iter().any(|n| is_prefix(&n.subject, s));
        let mut t = match sym {
            Sym::Attr(v, a) if inner(v) => {
                let base = self.narrowed(ns, v, narrows);
                self.attr(&base, a)
            }
            Sym::Call(c) if inner(&c.func) => {
                let f = self.narrowed(ns, &c.func, narrows);
                self.call(&f)
            }
            Sym::Subscript(v) if inner(v) => item_of(self.narrowed(ns, v, narrows)),
            _ => self.value(ns, sym),
        };
        for n in narrows.iter().filter(|n| n.subject == *sym) {
            t = self.narrow(ns, t, n);
        }
        t
    }

    /// `t` where `n` held: the alternatives of `t` of a tested class (or a subclass of it),
    /// else an object bounded by the tested class; where it failed: `t` without them.
    fn narrow(&self, ns: Ns, t: Ty, n: &Narrow) -> Ty {
        let classes: Vec<Option<Class>> = n.classes.iter().map(|c| self.class_of(ns, c)).collect();
        let of = |alt: &Ty, c: &Class| match alt {
            Ty::Instance { class, .. } => self.derives_from(class, c),
            _ => false,
        };
        if n.holds {
            Ty::union(classes.iter().map(|c| match c {
                // A class the model does not know (a builtin, a computed one): unknown.
                None => Ty::Unknown,
                Some(c) => {
                    let kept: Vec<Ty> = t
                        .alternatives()
                        .iter()
                        .filter(|a| of(a, c))
                        .cloned()
                        .collect();
                    if kept.is_empty() {
                        Ty::Instance {
                            class: c.clone(),
                            exact: false,
                            via: None,
                        }
                    } else {
                        Ty::union(kept)
                    }
                }
            }))
        } else {
            if matches!(t, Ty::Unknown) {
                return t;
            }
            let known: Vec<&Class> = classes.iter().flatten().collect();
            Ty::union(
                t.alternatives()
                    .iter()
                    .filter(|a| !known.iter().any(|c| of(a, c)))
                    .cloned(),
            )
        }
    }

    /// The class an expression names.
    fn class_of(&self, ns: Ns, sym: &Sym) -> Option<Class> {
        match self.value(ns, sym) {
            Ty::ProjectClass(k) => Some(Class::Project(k)),
            Ty::Indexed(p) => match self.find(&p)?.kind {
                PathKind::Class => Some(Class::Indexed(p)),
                _ => None,
            },
            _ => None,
        }
    }
}

/// An item of a container of type `t` (`x[i]`).
pub(super) fn item_of(t: Ty) -> Ty {
    match t {
        Ty::Items(items) | Ty::Tuple(items) => Ty::union(items),
        t @ Ty::From(_) => t,
        _ => Ty::Unknown,
    }
}
