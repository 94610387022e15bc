//! Assignment, loop and deletion targets: the names they bind, the attributes they store,
//! the mapping items they set.

use ruff_python_ast::{self as ast, Expr};

use super::Builder;
use crate::atom::atom;
use crate::facts::Def;
use crate::ir::{self, Sym};

impl Builder<'_> {
    pub(super) fn bind_target_unknown(&mut self, e: &Expr) {
        if let Expr::Name(n) = e {
            self.bind(n.id.as_str(), Def::Unknown);
        }
    }

    /// Binds every name in a target to [`Def::Unknown`] (and looks into the rest).
    pub(super) fn unknown_target(&mut self, t: &Expr) {
        match t {
            Expr::Name(n) => self.bind(n.id.as_str(), Def::Unknown),
            Expr::Tuple(x) => x.elts.iter().for_each(|e| self.unknown_target(e)),
            Expr::List(x) => x.elts.iter().for_each(|e| self.unknown_target(e)),
            Expr::Starred(s) => self.unknown_target(&s.value),
            Expr::Attribute(a) => {
                self.expr(&a.value);
                self.store(a, Def::Unknown);
            }
            Expr::Subscript(sub) => {
                self.expr(t);
                self.item(sub, false);
            }
            e => self.expr(e),
        }
    }

    /// An assignment target given `value`.
    pub(super) fn target(&mut self, t: &Expr, def: impl Fn() -> Def, value: &Expr) {
        match t {
            Expr::Name(n) => self.bind(n.id.as_str(), def()),
            Expr::Tuple(_) | Expr::List(_) => {
                let elts = match t {
                    Expr::Tuple(x) => &x.elts,
                    Expr::List(x) => &x.elts,
                    _ => return,
                };
                let starred = elts.iter().position(|e| matches!(e, Expr::Starred(_)));
                for (i, e) in elts.iter().enumerate() {
                    match (e, starred) {
                        (Expr::Name(n), None) => {
                            self.bind(n.id.as_str(), Def::Unpack(ir::value(value), i))
                        }
                        (Expr::Name(n), Some(s)) if i < s => {
                            self.bind(n.id.as_str(), Def::Unpack(ir::value(value), i))
                        }
                        (e, _) => self.unknown_target(e),
                    }
                }
            }
            Expr::Attribute(a) => {
                self.expr(&a.value);
                self.store(a, def());
            }
            Expr::Subscript(sub) => {
                self.expr(t);
                self.item(sub, true);
            }
            e => self.expr(e),
        }
    }

    /// `name[key] = v` (`set`) or `del name[key]`.
    fn item(&mut self, sub: &ast::ExprSubscript, set: bool) {
        let Expr::Name(n) = &*sub.value else {
            return;
        };
        let key = match (&*sub.slice, set) {
            (Expr::StringLiteral(k), true) => Some(atom(k.value.to_str())),
            _ => None,
        };
        self.push_item(n.id.as_str(), key);
    }

    /// `x.name = ...`: on the instance in a method, an attribute of the class; elsewhere a
    /// name that may be on any object.
    pub(super) fn store(&mut self, a: &ast::ExprAttribute, def: Def) {
        if self.narrows.len() > 0 {
            let path = Sym::Attr(Box::new(ir::value(&a.value)), atom(a.attr.as_str()));
            self.narrows.rebound(&path);
        }
        match self.is_receiver(&a.value) {
            Some(class) => {
                let scope = self.scope;
                self.out.classes[class as usize]
                    .stores
                    .push(a.attr.as_str(), (scope, def));
            }
            None => self.out.stored_names.push(atom(a.attr.as_str())),
        }
    }
}
