//! `def` and `class` statements: a function's kind, parameters and scope; a class's bases
//! and scope, and whether it is built unusually or answers any name.

use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

use super::Builder;
use crate::atom::atom;
use crate::facts::{
    ClassFacts, ClassId, Def, FuncFacts, FuncId, MethodKind, Multimap, ParamFacts, ScopeKind,
};
use crate::ir;

impl Builder<'_> {
    fn decorators(&mut self, list: &[ast::Decorator]) {
        for d in list {
            self.expr(&d.expression);
        }
    }

    pub(super) fn function(&mut self, f: &ast::StmtFunctionDef) {
        self.decorators(&f.decorator_list);
        let class = match self.out.scopes[self.scope as usize].kind {
            ScopeKind::Class(c) => Some(c),
            _ => None,
        };
        let mut kind = MethodKind::Plain;
        let mut wrapped = false;
        for d in &f.decorator_list {
            let name = match &d.expression {
                Expr::Name(n) => n.id.as_str(),
                Expr::Attribute(a) => a.attr.as_str(),
                Expr::Call(c) => match &*c.func {
                    Expr::Name(n) => n.id.as_str(),
                    Expr::Attribute(a) => a.attr.as_str(),
                    _ => "",
                },
                _ => "",
            };
            match name {
                "staticmethod" => kind = MethodKind::Static,
                "classmethod" => kind = MethodKind::Class,
                "property" | "cached_property" => kind = MethodKind::Property,
                // Wrappers that keep the function's result.
                "wraps" | "lru_cache" | "cache" | "abstractmethod" | "override" | "final"
                | "no_type_check" | "setter" | "getter" | "deleter" => {}
                _ => wrapped = true,
            }
        }
        let params = &f.parameters;
        for p in params.iter_non_variadic_params() {
            if let Some(d) = &p.default {
                self.expr(d);
            }
        }
        for p in params.iter() {
            if let Some(a) = p.annotation() {
                self.annotation_sites(a);
            }
        }
        if let Some(r) = &f.returns {
            self.annotation_sites(r);
        }
        let id = self.out.functions.len() as FuncId;
        self.bind(f.name.as_str(), Def::Function(id));
        let scope = self.new_scope(ScopeKind::Function(id));
        let mut facts = Vec::new();
        let none = |d: &Option<Box<Expr>>| matches!(d.as_deref(), Some(Expr::NoneLiteral(_)));
        for p in params.posonlyargs.iter().chain(params.args.iter()) {
            facts.push(ParamFacts {
                name: atom(p.parameter.name.as_str()),
                annotation: p.parameter.annotation.as_deref().map(ir::annotation),
                default_none: none(&p.default),
            });
        }
        let variadic_start = facts.len();
        // `*args`, keyword-only, `**kwargs`: never filled from positions.
        if let Some(v) = &params.vararg {
            facts.push(ParamFacts {
                name: atom(v.name.as_str()),
                annotation: None,
                default_none: false,
            });
        }
        for p in params.kwonlyargs.iter() {
            facts.push(ParamFacts {
                name: atom(p.parameter.name.as_str()),
                annotation: p.parameter.annotation.as_deref().map(ir::annotation),
                default_none: none(&p.default),
            });
        }
        if let Some(v) = &params.kwarg {
            facts.push(ParamFacts {
                name: atom(v.name.as_str()),
                annotation: None,
                default_none: false,
            });
        }
        let n_params = facts.len();
        self.out.functions.push(FuncFacts {
            name: atom(f.name.as_str()),
            range: f.range(),
            scope,
            class,
            kind,
            params: facts,
            positional: variadic_start as u32,
            returns: f.returns.as_deref().map(ir::annotation),
            return_values: Vec::new(),
            wrapped,
            generator: f.is_async,
        });
        let (saved_scope, saved_func, saved_cond) = (self.scope, self.func, self.cond);
        let saved_narrows = self.narrows.take();
        self.scope = scope;
        self.func = Some(id);
        self.cond = 0;
        for index in 0..n_params {
            let p = &self.out.functions[id as usize].params[index];
            let name = p.name;
            let def = if index >= variadic_start
                && (params.vararg.is_some() && index == variadic_start
                    || params.kwarg.is_some() && index + 1 == n_params)
            {
                Def::Unknown
            } else {
                match &p.annotation {
                    Some(a) => Def::Declared(a.clone()),
                    None => Def::Param {
                        func: id,
                        index: index as u32,
                    },
                }
            };
            self.bind(name, def);
        }
        self.body(&f.body);
        self.narrows = saved_narrows;
        self.scope = saved_scope;
        self.func = saved_func;
        self.cond = saved_cond;
    }

    pub(super) fn class(&mut self, c: &ast::StmtClassDef) {
        self.decorators(&c.decorator_list);
        let mut unusual = c
            .decorator_list
            .iter()
            .any(|d| !is_dataclass_decorator(&d.expression));
        let mut bases = Vec::new();
        if let Some(args) = &c.arguments {
            for a in args.args.iter() {
                self.expr(a);
                if matches!(a, Expr::Starred(_)) {
                    unusual = true;
                } else {
                    bases.push(ir::value(a));
                }
            }
            for k in args.keywords.iter() {
                self.expr(&k.value);
                unusual = true;
            }
        }
        let id = self.out.classes.len() as ClassId;
        let enclosing = self.scope;
        self.bind(c.name.as_str(), Def::Class(id));
        let scope = self.new_scope(ScopeKind::Class(id));
        self.out.classes.push(ClassFacts {
            name: atom(c.name.as_str()),
            range: c.range(),
            scope,
            bases,
            enclosing,
            unusual,
            open: false,
            stores: Multimap::default(),
        });
        let (saved_scope, saved_func) = (self.scope, self.func);
        let saved_narrows = self.narrows.take();
        self.scope = scope;
        self.func = None;
        self.body(&c.body);
        self.narrows = saved_narrows;
        let defines_getattr = ["__getattr__", "__getattribute__", "__slots__"]
            .iter()
            .any(|n| self.out.scopes[scope as usize].bindings.contains(n));
        if defines_getattr {
            self.out.classes[id as usize].open = true;
        }
        self.scope = saved_scope;
        self.func = saved_func;
    }
}

/// `@dataclass`, `@dataclasses.dataclass(...)`: the class is built as written.
fn is_dataclass_decorator(e: &Expr) -> bool {
    let name = match e {
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => a.attr.as_str(),
        Expr::Call(c) => return is_dataclass_decorator(&c.func),
        _ => "",
    };
    matches!(name, "dataclass" | "total_ordering" | "final")
}
