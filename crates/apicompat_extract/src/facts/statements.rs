//! The walk over module-level statements: definitions, imports, assignments (also to
//! attributes of the module's classes), branches, `try` bodies and loops.

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::{import_module_call, AllPart, Value, Walker};
use crate::consts::{self, Const};
use crate::defs::{class_info, function_info};
use crate::name_sets::{self, Copy, NameList};

/// A loop over a literal is unrolled only up to this many items.
const MAX_UNROLL: usize = 256;
/// Imported modules kept per file ([`super::FileFacts::imported_modules`]).
const MAX_IMPORTED: usize = 4096;

impl Walker<'_> {
    pub(super) fn module_stmt(&mut self, stmt: &Stmt, top: bool, depth: usize) {
        self.stmt_depth = depth;
        match stmt {
            Stmt::FunctionDef(f) => {
                if f.name.as_str() == "__getattr__" {
                    self.module_getattr(f);
                }
                let mut function = function_info(f, self.source, false);
                self.branch.apply(&mut function);
                self.scan_dynamic(f.name.as_str(), &f.body);
                self.bind(f.name.as_str(), Value::Function(function));
            }
            Stmt::ClassDef(c) => {
                let class = class_info(c, self.source, &self.env, depth, self.branch);
                self.bind(c.name.as_str(), Value::Class(class));
            }
            Stmt::Import(imp) => {
                for alias in &imp.names {
                    let full = alias.name.as_str();
                    self.bind_imported_child(full);
                    // A stub re-exports an import only in the `import a as a` form.
                    if self.facts.is_stub
                        && alias.asname.as_ref().is_none_or(|a| a.as_str() != full)
                    {
                        continue;
                    }
                    match &alias.asname {
                        Some(asname) => self.bind(asname.as_str(), Value::Module(full.into())),
                        None => {
                            let first = full.split('.').next().unwrap_or(full);
                            self.bind(first, Value::Module(first.into()));
                        }
                    }
                }
            }
            Stmt::ImportFrom(imp) => self.import_from(imp),
            Stmt::Assign(a) => {
                for target in &a.targets {
                    self.assign(target, Some(&a.value));
                }
            }
            Stmt::AnnAssign(a) if (a.value.is_some() || self.facts.is_stub) => {
                self.assign(&a.target, a.value.as_deref());
            }
            Stmt::AugAssign(a) => {
                if let Expr::Name(n) = &*a.target {
                    if n.id.as_str() == "__all__" {
                        let part = self.all_part(&a.value);
                        self.push_all(part, false);
                    } else if let (Some(Const::List(old)), Some(Const::List(new))) = (
                        self.env.get(n.id.as_str()).cloned(),
                        consts::eval(&a.value, &self.env),
                    ) {
                        let mut old = old;
                        old.extend(new);
                        self.env.insert(n.id.to_string(), Const::List(old));
                    }
                } else {
                    self.subscript_store(&a.target, &a.value);
                }
            }
            Stmt::TypeAlias(t) => {
                if let Expr::Name(n) = &*t.name {
                    self.bind(n.id.as_str(), Value::Data);
                }
            }
            Stmt::If(i) => {
                let outer = self.branch;
                let branches = outer.clauses(i);
                let bodies =
                    std::iter::once(&i.body).chain(i.elif_else_clauses.iter().map(|c| &c.body));
                // A branch the indexed Python version does not take defines nothing there.
                for (body, branch) in bodies.zip(branches).filter(|(_, b)| !b.off) {
                    self.branch = branch;
                    self.module_body(body, false, depth + 1);
                }
                self.branch = outer;
            }
            Stmt::Try(t) => {
                let start = self.facts.bindings.len();
                self.module_body(&t.body, false, depth + 1);
                if crate::fallible::catches_import_error(t) {
                    crate::fallible::record(&mut self.facts, start);
                }
                for handler in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    if let Some(name) = &h.name {
                        self.bind(name.as_str(), Value::Data);
                    }
                    self.module_body(&h.body, false, depth + 1);
                }
                self.module_body(&t.orelse, false, depth + 1);
                self.module_body(&t.finalbody, false, depth + 1);
            }
            Stmt::With(w) => {
                for item in &w.items {
                    if let Some(vars) = &item.optional_vars {
                        self.assign(vars, None);
                    }
                }
                self.module_body(&w.body, false, depth + 1);
            }
            Stmt::For(f) => self.module_for(f, depth),
            Stmt::While(wh) => {
                self.module_body(&wh.body, false, depth + 1);
                self.module_body(&wh.orelse, false, depth + 1);
            }
            Stmt::Match(m) => {
                for case in &m.cases {
                    self.module_body(&case.body, false, depth + 1);
                }
            }
            Stmt::Expr(e) => {
                if let Expr::Call(c) = &*e.value {
                    self.tables.call(c, &self.env);
                    if let Expr::Name(n) = &*c.func {
                        self.called.push(n.id.to_string());
                    }
                }
                self.module_expr(&e.value, top)
            }
            Stmt::Delete(d) if top => {
                for target in &d.targets {
                    if let Expr::Name(n) = target {
                        self.deleted
                            .push((n.id.to_string(), self.facts.bindings.len()));
                    }
                }
            }
            _ => {}
        }
    }

    fn import_from(&mut self, imp: &ast::StmtImportFrom) {
        let module = match (&imp.module, imp.level) {
            (Some(m), 0) => Some(m.to_string()),
            (m, level) => self.base_package(level).map(|base| match m {
                Some(m) => format!("{base}.{m}"),
                None => base,
            }),
        };
        let Some(module) = module else {
            return;
        };
        self.bind_imported_child(&module);
        for alias in &imp.names {
            let name = alias.name.as_str();
            if name == "*" {
                self.facts.stars.push(module.clone());
                continue;
            }
            // `from a.b import c`: `a.b.c` may be a module it imports.
            if !self.facts.is_stub && self.facts.imported_modules.len() < MAX_IMPORTED {
                self.facts.imported_modules.push(format!("{module}.{name}"));
            }
            let bound = alias.asname.as_ref().map_or(name, |a| a.as_str());
            // A stub re-exports `from m import n` only as `from m import n as n`.
            if self.facts.is_stub && (alias.asname.is_none() || bound != name) && bound != "__all__"
            {
                self.facts
                    .private_imports
                    .push((bound.to_string(), format!("{module}.{name}")));
                continue;
            }
            if bound == "__all__" {
                self.push_all(vec![AllPart::ModuleAll(module.clone())], true);
                continue;
            }
            self.bind(
                bound,
                Value::From {
                    module: module.clone(),
                    name: name.to_string(),
                },
            );
        }
    }

    /// Importing `pkg.child...` from inside package `pkg` binds `child` in `pkg` as a side
    /// effect of the import system (so a star import of `pkg` without `__all__` copies it).
    fn bind_imported_child(&mut self, imported: &str) {
        if !self.facts.is_stub && self.facts.imported_modules.len() < MAX_IMPORTED {
            self.facts.imported_modules.push(imported.to_string());
        }
        if !self.facts.is_package || self.facts.is_stub {
            return;
        }
        let Some(rest) = imported
            .strip_prefix(self.facts.module.as_str())
            .and_then(|r| r.strip_prefix('.'))
        else {
            return;
        };
        let child = rest.split('.').next().unwrap_or(rest);
        if !child.is_empty() {
            let path = format!("{}.{child}", self.facts.module);
            self.bind(child, Value::Module(path));
        }
    }

    fn module_for(&mut self, f: &ast::StmtFor, depth: usize) {
        let target = match &*f.target {
            Expr::Name(n) => Some(n.id.to_string()),
            _ => None,
        };
        // `for name in <names of modules>` and `for name, value in <members of modules>`.
        let first = match &*f.target {
            Expr::Tuple(t) => t.elts.first(),
            e => Some(e),
        };
        if let Some(Expr::Name(var)) = first {
            let list =
                name_sets::loop_names(&f.iter, &self.name_lists, &self.member_helpers, &self.env);
            if let Some(list) = list.filter(|l| !l.copies.is_empty()) {
                self.dir_loops.push((var.id.to_string(), list, depth + 1));
                self.module_body(&f.body, false, depth + 1);
                self.dir_loops.pop();
                self.assign(&f.target, None);
                return;
            }
        }
        // `for name in dir(module)` and `for name in module.__dir__()`.
        if let (Some(target), Expr::Call(call)) = (&target, &*f.iter) {
            let module = match (&*call.func, call.arguments.args.as_ref()) {
                (func, [arg]) if consts::dotted(func).as_deref() == Some("dir") => Some(arg),
                (Expr::Attribute(a), []) if a.attr.as_str() == "__dir__" => Some(&*a.value),
                _ => None,
            };
            {
                if let Some(arg) = module {
                    if let Some(m) = consts::dotted(arg) {
                        let list = NameList {
                            copies: vec![Copy::all(m)],
                            names: Vec::new(),
                        };
                        self.dir_loops.push((target.clone(), list, depth + 1));
                        self.module_body(&f.body, false, depth + 1);
                        self.dir_loops.pop();
                        self.bind(target, Value::Data);
                        return;
                    }
                }
            }
        }
        let items = consts::strings(&f.iter, &self.env);
        match (target, items) {
            (Some(target), Some(items)) if items.len() <= MAX_UNROLL => {
                let saved = self.env.get(&target).cloned();
                for item in items {
                    self.env.insert(target.clone(), Const::Str(vec![item]));
                    self.module_body(&f.body, false, depth + 1);
                }
                match saved {
                    Some(v) => self.env.insert(target.clone(), v),
                    None => self.env.remove(&target),
                };
                // The loop variable stays bound after the loop.
                self.bind(&target, Value::Data);
            }
            (target, _) => {
                if let Some(target) = target {
                    self.bind(&target, Value::Data);
                } else {
                    self.assign(&f.target, None);
                }
                self.module_body(&f.body, false, depth + 1);
            }
        }
        self.module_body(&f.orelse, false, depth + 1);
    }

    /// `target = value` at module level.
    fn assign(&mut self, target: &Expr, value: Option<&Expr>) {
        match target {
            Expr::Name(n) => {
                let name = n.id.as_str();
                if name == "__all__" {
                    let parts = value.map_or(vec![AllPart::Dynamic], |v| self.all_part(v));
                    if let [AllPart::Names(names)] = parts.as_slice() {
                        self.env.insert(name.into(), Const::List(names.clone()));
                    }
                    self.push_all(parts, true);
                    return;
                }
                // A set each (a lookup per assignment, however many aliases).
                self.globals_aliases.remove(name);
                if value.is_some_and(|v| self.is_this_module(v)) {
                    self.self_aliases.insert(name.to_string());
                } else {
                    self.self_aliases.remove(name);
                }
                let list = value.and_then(|v| name_sets::list_of(v, &self.name_lists, &self.env));
                self.name_lists.retain(|(v, _)| v != name);
                if let Some(list) = list.filter(|l| !l.copies.is_empty()) {
                    self.name_lists.push((name.to_string(), list));
                }
                if let Some(v) = value {
                    self.tables.assign(name, v, &self.env);
                }
                if let Some(Expr::Call(c)) = value {
                    let f = consts::dotted(&c.func);
                    if c.arguments.is_empty() && matches!(f.as_deref(), Some("globals" | "vars")) {
                        self.globals_aliases.insert(name.to_string());
                    }
                }
                if let Some(Expr::Call(c)) = value {
                    if let Some(f) = consts::dotted(&c.func) {
                        self.facts.instances.push((name.to_string(), f));
                    }
                }
                let v = match value {
                    Some(v) => {
                        if let Some(c) = consts::eval(v, &self.env) {
                            self.env.insert(name.to_string(), c);
                        } else {
                            self.env.remove(name);
                        }
                        self.classify(v)
                    }
                    None => Value::Data,
                };
                self.bind(name, v);
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.assign(e, None)),
            Expr::List(l) => l.elts.iter().for_each(|e| self.assign(e, None)),
            Expr::Starred(s) => self.assign(&s.value, None),
            Expr::Subscript(_) => {
                if let Some(v) = value {
                    self.subscript_store(target, v);
                }
            }
            Expr::Attribute(a) => self.class_attribute_store(a, value),
            _ => {}
        }
    }

    /// `C.name = value` after the body of a class `C` of this module adds `name` to its
    /// members: torch 1.13's `autograd/variable.py` sets `Variable._execution_engine =
    /// ImperativeEngine()` below the class (2.0 moves it into the body). A store on an imported
    /// class (another module's) is not read.
    fn class_attribute_store(&mut self, target: &ast::ExprAttribute, value: Option<&Expr>) {
        let Expr::Name(class) = &*target.value else {
            return;
        };
        let bound = match self.last_bound.get(class.id.as_str()) {
            Some(&at) => self.facts.bindings.get_mut(at),
            None => return,
        };
        // `C.m = copy_func(C.m)` (transformers' `push_to_hub`) wraps what `C` already answers
        // (its own member or an inherited one): the member stays what it was.
        let is_this = |a: &Expr| {
            matches!(a, Expr::Attribute(x) if x.attr.as_str() == target.attr.as_str()
                && matches!(&*x.value, Expr::Name(n) if n.id == class.id))
        };
        let rewraps =
            matches!(value, Some(Expr::Call(call)) if call.arguments.args.iter().any(is_this));
        if rewraps {
            return;
        }
        if let Some((_, Value::Class(c))) = bound {
            let member = match value {
                Some(v) => match consts::dotted(v) {
                    Some(d) => Value::Alias(d),
                    None => Value::Data,
                },
                None => Value::Data,
            };
            c.members.push((target.attr.to_string(), member));
        }
    }

    /// What a right-hand side binds a name to.
    fn classify(&self, value: &Expr) -> Value {
        if let Some(dotted) = consts::dotted(value) {
            return Value::Alias(dotted);
        }
        if let Expr::Call(call) = value {
            if let Some(m) = import_module_call(call, &self.env) {
                return Value::Module(m);
            }
        }
        Value::Data
    }
}
