//! Expressions: attribute-read sites (with the call shape and the `isinstance` tests in force),
//! calls by name, `setattr` and mapping changes, and the scopes of lambdas and comprehensions.

use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::Ranged;

use super::Builder;
use crate::atom::atom;
use crate::facts::{
    narrow, CallFacts, CallShape, Def, ScopeKind, Site, Splat, MAX_EXPR_DEPTH, NO_NARROW,
};
use crate::ir::{self, Sym};

impl Builder<'_> {
    /// Sites in an annotation that is evaluated (not a string).
    pub(super) fn annotation_sites(&mut self, e: &Expr) {
        self.expr(e);
    }

    pub(super) fn expr(&mut self, e: &Expr) {
        self.expr_at(e, 0);
    }

    pub(super) fn expr_at(&mut self, e: &Expr, depth: usize) {
        if depth >= MAX_EXPR_DEPTH {
            self.out.truncated = true;
            return;
        }
        let d = depth + 1;
        match e {
            Expr::Attribute(a) if a.ctx == ExprContext::Load => {
                self.site(a, None);
                self.expr_at(&a.value, d);
            }
            Expr::Call(c) => {
                if let Expr::Attribute(a) = &*c.func {
                    let shape = CallShape {
                        range: c.range(),
                        keywords: c
                            .arguments
                            .keywords
                            .iter()
                            .filter_map(|k| Some((atom(k.arg.as_ref()?.as_str()), k.range())))
                            .collect(),
                        positional: c.arguments.args.len() as u32,
                        star: c
                            .arguments
                            .args
                            .iter()
                            .any(|a| matches!(a, Expr::Starred(_))),
                        double_star: c.arguments.keywords.iter().any(|k| k.arg.is_none()),
                    };
                    self.site(a, Some(Box::new(shape)));
                    self.expr_at(&a.value, d);
                } else {
                    self.expr_at(&c.func, d);
                }
                self.setattr_call(c);
                self.mapping_call(c);
                self.call(c);
                for k in c.arguments.keywords.iter().filter(|k| k.arg.is_none()) {
                    self.out.splats.push(Splat {
                        range: k.range(),
                        scope: self.scope,
                        callee: ir::value(&c.func),
                        mapping: ir::value(&k.value),
                    });
                }
                for a in c.arguments.args.iter() {
                    self.expr_at(a, d);
                }
                for k in c.arguments.keywords.iter() {
                    self.expr_at(&k.value, d);
                }
            }
            Expr::Named(n) => {
                self.expr_at(&n.value, d);
                if let Expr::Name(t) = &*n.target {
                    // `:=` binds in the enclosing function, not in a comprehension.
                    let saved = self.scope;
                    while let ScopeKind::Hidden = self.out.scopes[self.scope as usize].kind {
                        match self.out.scopes[self.scope as usize].parent {
                            Some(p) => self.scope = p,
                            None => break,
                        }
                    }
                    self.bind(t.id.as_str(), Def::Value(ir::value(&n.value)));
                    self.scope = saved;
                }
            }
            Expr::Lambda(l) => {
                if let Some(params) = &l.parameters {
                    for p in params.iter_non_variadic_params() {
                        if let Some(dflt) = &p.default {
                            self.expr_at(dflt, d);
                        }
                    }
                }
                let saved = self.scope;
                let saved_narrows = self.narrows.take();
                self.scope = self.new_scope(ScopeKind::Hidden);
                if let Some(params) = &l.parameters {
                    for p in params.iter() {
                        self.bind(p.name().as_str(), Def::Unknown);
                    }
                }
                self.expr_at(&l.body, d);
                self.narrows = saved_narrows;
                self.scope = saved;
            }
            Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => {
                let (generators, parts): (&[ast::Comprehension], Vec<&Expr>) = match e {
                    Expr::ListComp(c) => (&c.generators, vec![&c.elt]),
                    Expr::SetComp(c) => (&c.generators, vec![&c.elt]),
                    Expr::Generator(c) => (&c.generators, vec![&c.elt]),
                    Expr::DictComp(c) => (
                        &c.generators,
                        c.key.iter().map(|k| &**k).chain([&*c.value]).collect(),
                    ),
                    _ => return,
                };
                // The first iterable is evaluated outside.
                if let Some(g) = generators.first() {
                    self.expr_at(&g.iter, d);
                }
                let saved = self.scope;
                let active = self.narrows.len();
                self.scope = self.new_scope(ScopeKind::Hidden);
                for (i, g) in generators.iter().enumerate() {
                    if i > 0 {
                        self.expr_at(&g.iter, d);
                    }
                    self.unknown_target(&g.target);
                    // Each condition holds for what follows it.
                    for cond in &g.ifs {
                        self.expr_at(cond, d);
                        self.narrows.push_all(narrow::implied(cond, true));
                    }
                }
                for p in parts {
                    self.expr_at(p, d);
                }
                self.narrows.truncate(active);
                self.scope = saved;
            }
            // `isinstance(x, C) and x.m`: each operand runs where the ones before held (for
            // `and`) or failed (for `or`).
            Expr::BoolOp(b) => {
                let holds = b.op == ast::BoolOp::And;
                let active = self.narrows.len();
                for v in &b.values {
                    self.expr_at(v, d);
                    self.narrows.push_all(narrow::implied(v, holds));
                }
                self.narrows.truncate(active);
            }
            Expr::If(i) => {
                self.expr_at(&i.test, d);
                self.expr_where(&i.test, true, &i.body, d);
                self.expr_where(&i.test, false, &i.orelse, d);
            }
            Expr::Yield(_) | Expr::YieldFrom(_) => {
                if let Some(f) = self.func {
                    self.out.functions[f as usize].generator = true;
                }
                ruff_python_ast::visitor::walk_expr(&mut SubExprs(self, d), e);
            }
            _ => ruff_python_ast::visitor::walk_expr(&mut SubExprs(self, d), e),
        }
    }

    /// `setattr(self, name, v)` with a computed name opens the class; with a literal name,
    /// the name may be on any object.
    /// Records a call by name with its arguments (see [`CallFacts`]).
    fn call(&mut self, c: &ast::ExprCall) {
        let name = match &*c.func {
            Expr::Name(n) => n.id.as_str(),
            Expr::Attribute(a) => a.attr.as_str(),
            _ => return,
        };
        let args = &c.arguments;
        let spread = args.args.iter().any(|a| matches!(a, Expr::Starred(_)))
            || args.keywords.iter().any(|k| k.arg.is_none());
        if spread {
            self.out.opaque_calls.push(atom(name));
            return;
        }
        self.out.calls.push(CallFacts {
            name: atom(name),
            scope: self.scope,
            callee: ir::value(&c.func),
            args: args.args.iter().map(ir::value).collect(),
            keywords: args
                .keywords
                .iter()
                .filter_map(|k| Some((atom(k.arg.as_ref()?.as_str()), ir::value(&k.value))))
                .collect(),
        });
    }

    fn setattr_call(&mut self, c: &ast::ExprCall) {
        let Expr::Name(n) = &*c.func else {
            return;
        };
        if n.id.as_str() != "setattr" || c.arguments.args.len() != 3 {
            return;
        }
        let args = &c.arguments.args;
        match (&args[1], self.is_receiver(&args[0])) {
            (Expr::StringLiteral(s), _) => self.out.stored_names.push(atom(s.value.to_str())),
            (_, Some(class)) => self.out.classes[class as usize].open = true,
            _ => {}
        }
    }

    /// `options.pop(...)`, `options.clear()`: keys may be gone; `options.update(k=v)` adds
    /// `k`.
    fn mapping_call(&mut self, c: &ast::ExprCall) {
        let Expr::Attribute(a) = &*c.func else {
            return;
        };
        let Expr::Name(n) = &*a.value else {
            return;
        };
        let name = n.id.as_str();
        match a.attr.as_str() {
            "pop" | "popitem" | "clear" => self.push_item(name, None),
            "update" | "setdefault" => {
                for k in c.arguments.keywords.iter() {
                    if let Some(arg) = &k.arg {
                        self.push_item(name, Some(atom(arg.as_str())));
                    }
                }
                if let (Some(Expr::StringLiteral(k)), "setdefault") =
                    (c.arguments.args.first(), a.attr.as_str())
                {
                    self.push_item(name, Some(atom(k.value.to_str())));
                }
            }
            _ => {}
        }
    }

    fn site(&mut self, a: &ast::ExprAttribute, call: Option<Box<CallShape>>) {
        if a.attr.as_str() == "__dict__" {
            if let Some(class) = self.is_receiver(&a.value) {
                self.out.classes[class as usize].open = true;
            }
        }
        let receiver = ir::value(&a.value);
        if matches!(receiver, Sym::Unknown | Sym::Literal | Sym::None) {
            return;
        }
        let narrow = self.narrowing(&receiver);
        self.out.sites.push(Site {
            range: a.range(),
            scope: self.scope,
            receiver,
            name: atom(a.attr.as_str()),
            call,
            narrow,
        });
    }

    /// The index of the tests in force on `receiver` in [`ModuleFacts::narrowings`] (the
    /// last set is reused when it is the same).
    fn narrowing(&mut self, receiver: &Sym) -> u32 {
        if self.narrows.len() == 0 {
            return NO_NARROW;
        }
        let on = self.narrows.on(receiver);
        if on.is_empty() {
            return NO_NARROW;
        }
        let list = &mut self.out.narrowings;
        if list.last().is_none_or(|last| **last != on[..]) {
            list.push(on.into_boxed_slice());
        }
        u32::try_from(list.len() - 1).unwrap_or(NO_NARROW)
    }
}

/// Walks the direct sub-expressions of an expression with [`Builder::expr_at`].
struct SubExprs<'b, 'm>(&'b mut Builder<'m>, usize);

impl<'a> ruff_python_ast::visitor::Visitor<'a> for SubExprs<'_, '_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        self.0.expr_at(expr, self.1);
    }
    fn visit_stmt(&mut self, _: &'a Stmt) {}
}
