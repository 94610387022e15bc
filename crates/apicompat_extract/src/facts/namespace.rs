//! What module-level code (and the functions it defines) stores into the module's own
//! namespace: `globals()` and `sys.modules` items, `setattr` on the module, loops over another
//! module's names, `__all__` and its changes, and the module `__getattr__`.

use ruff_python_ast::visitor::Visitor;
use ruff_python_ast::{self as ast, Expr, Stmt};

use super::{import_module_call, is_dunder_name, AllPart, Value, Walker};
use crate::attr_tables;
use crate::consts::{self, Const};
use crate::defs::deprecation_warning;
use crate::dynamic_scan::{Dynamic, DynamicScan};
use crate::getattr::{getattr_rule, GetattrRule};
use crate::name_sets::{self, NameList};

/// Names bound to dotted references followed to find the module a copy names.
const MAX_ALIAS_HOPS: usize = 8;

impl Walker<'_> {
    /// `globals()[k] = v`, `vars()[k] = v`, `sys.modules[k] = v`.
    pub(super) fn subscript_store(&mut self, target: &Expr, value: &Expr) {
        let Expr::Subscript(sub) = target else {
            return;
        };
        self.tables.set_item(sub, value, &self.env);
        let container = match &*sub.value {
            Expr::Call(c) if c.arguments.args.is_empty() => consts::dotted(&c.func),
            // `_globals = globals()` then `_globals[k] = ...`; `sys.modules[__name__].__dict__[k]
            // = ...`, also through a name bound to it.
            e if self.is_own_namespace(e) => Some("globals".to_string()),
            e => consts::dotted(e).map(|d| format!("{d}[]")),
        };
        match container.as_deref() {
            Some("globals" | "vars") => self.dynamic_name(&sub.slice),
            Some("sys.modules[]") => {
                if is_dunder_name(&sub.slice) {
                    // Open, unless it is a lazy module of a table read at the end
                    // (`crate::lazy`).
                    self.registers_self = true;
                    return;
                }
                let Some(key) = consts::string(&sub.slice, &self.env) else {
                    return;
                };
                let target = match value {
                    Expr::Call(call) => import_module_call(call, &self.env),
                    e => consts::dotted(e).and_then(|d| self.module_alias(&d)),
                };
                self.facts.registered.push((key, target));
            }
            _ => {}
        }
    }

    /// The module a dotted reference names, when it is bound by an import in this file.
    fn module_alias(&self, dotted: &str) -> Option<String> {
        let (first, rest) = match dotted.split_once('.') {
            Some((f, r)) => (f, Some(r)),
            None => (dotted, None),
        };
        let base = self
            .facts
            .bindings
            .iter()
            .rev()
            .find_map(|(n, v)| (n == first).then(|| v.imported()))??;
        Some(match rest {
            Some(r) => format!("{base}.{r}"),
            None => base,
        })
    }

    /// The module a copy names: [`Self::module_alias`], also through a name bound to a dotted
    /// reference (`return_types = torch._C._return_types`, torch's `return_types.py`).
    fn copied_module(&self, dotted: &str) -> Option<String> {
        let mut dotted = dotted.to_string();
        for _ in 0..MAX_ALIAS_HOPS {
            if let Some(m) = self.module_alias(&dotted) {
                return Some(m);
            }
            let (first, rest) = dotted.split_once('.').unwrap_or((&dotted, ""));
            let bound = self.facts.bindings.iter().rev().find(|(n, _)| n == first);
            let Some((_, Value::Alias(target))) = bound else {
                return None;
            };
            dotted = match rest {
                "" => target.clone(),
                r => format!("{target}.{r}"),
            };
        }
        None
    }

    /// A `globals()` key: a constant binds a name; a loop over `dir(m)` copies `m`'s names;
    /// anything else makes the module open.
    fn dynamic_name(&mut self, key: &Expr) {
        if let Some(names) = consts::strings(key, &self.env) {
            for n in names {
                self.bind(&n, Value::Unknown);
            }
            return;
        }
        if let Expr::Name(n) = key {
            // A filtered list's names are stored only when the store is not under a
            // condition inside the loop (it might store some of them only).
            let conditional = self
                .dir_loops
                .iter()
                .rev()
                .find(|(v, _, _)| v == n.id.as_str())
                .is_some_and(|(_, l, d)| {
                    *d != self.stmt_depth && l.copies.iter().any(|c| !c.exact)
                });
            if let Some(list) = self.loop_list(n.id.as_str()).filter(|_| !conditional) {
                for name in &list.names {
                    self.bind(name, Value::Data);
                }
                self.facts.copies.extend(list.copies);
                return;
            }
        }
        self.facts.open = true;
    }

    /// The names the loop variable `var` runs over, module references resolved.
    fn loop_list(&self, var: &str) -> Option<NameList> {
        let (_, list, _) = self.dir_loops.iter().rev().find(|(v, _, _)| v == var)?;
        let mut list = list.clone();
        for c in &mut list.copies {
            if let Some(m) = self.copied_module(&c.module) {
                c.module = m;
            }
        }
        Some(list)
    }

    pub(super) fn module_expr(&mut self, expr: &Expr, top: bool) {
        let Expr::Call(call) = expr else {
            return;
        };
        let args = call.arguments.args.as_ref();
        let func = match &*call.func {
            // The module's own namespace: `sys.modules[__name__].__dict__`, `vars(this)`, a
            // name bound to `globals()`.
            Expr::Attribute(a) if self.is_own_namespace(&a.value) => {
                Some(format!("globals().{}", a.attr))
            }
            Expr::Attribute(a) => match &*a.value {
                Expr::Call(inner) if inner.arguments.args.is_empty() => {
                    consts::dotted(&inner.func).map(|f| format!("{f}().{}", a.attr))
                }
                _ => consts::dotted(&call.func),
            },
            f => consts::dotted(f),
        };
        let Some(func) = func else {
            return;
        };
        match func.as_str() {
            "__all__.extend" | "__all__.__iadd__" => {
                if let [arg] = args {
                    let part = self.all_part(arg);
                    self.push_all(part, false);
                }
            }
            "__all__.append" => {
                if let [arg] = args {
                    // Appended in the loop's own body, not under a condition inside it.
                    let looped = match arg {
                        Expr::Name(n) => self
                            .dir_loops
                            .iter()
                            .rev()
                            .find(|(v, _, _)| v == n.id.as_str())
                            .filter(|(_, _, d)| *d == self.stmt_depth)
                            .and_then(|_| self.loop_list(n.id.as_str())),
                        _ => None,
                    };
                    let part = match (consts::string(arg, &self.env), looped) {
                        (Some(s), _) => AllPart::Names(vec![s]),
                        (None, Some(list)) => AllPart::Copies(list.copies),
                        (None, None) => AllPart::Dynamic,
                    };
                    self.push_all(vec![part], false);
                }
            }
            "globals().update" | "vars().update" => match args {
                [arg] => match consts::strings(arg, &self.env) {
                    Some(names) => names.iter().for_each(|n| self.bind(n, Value::Unknown)),
                    None => self.facts.open = true,
                },
                _ => self.facts.open = true,
            },
            "setattr" => self.module_setattr(args),
            // `exec(code)` at module level may bind any name (numpy's test modules generate
            // test classes so).
            "exec"
                if args
                    .first()
                    .is_none_or(|a| consts::string(a, &self.env).is_none()) =>
            {
                self.facts.open = true;
            }
            _ => {
                if top && self.facts.deprecated.is_none() {
                    self.facts.deprecated = deprecation_warning(call);
                }
            }
        }
    }

    /// The module being walked: `sys.modules[__name__]`, or a name bound to it at module level.
    pub(super) fn is_this_module(&self, e: &Expr) -> bool {
        match e {
            Expr::Subscript(s) => {
                consts::dotted(&s.value).as_deref() == Some("sys.modules")
                    && is_dunder_name(&s.slice)
            }
            Expr::Name(n) => self.self_aliases.contains(n.id.as_str()),
            _ => false,
        }
    }

    /// The module's namespace dict, other than `globals()` itself: `M.__dict__` or `vars(M)`
    /// with `M` the module ([`Self::is_this_module`]), or a name bound to `globals()`.
    fn is_own_namespace(&self, e: &Expr) -> bool {
        match e {
            Expr::Attribute(a) => a.attr.as_str() == "__dict__" && self.is_this_module(&a.value),
            Expr::Call(c) => {
                consts::dotted(&c.func).as_deref() == Some("vars")
                    && matches!(&*c.arguments.args, [m] if self.is_this_module(m))
            }
            Expr::Name(n) => self.globals_aliases.contains(n.id.as_str()),
            _ => false,
        }
    }

    /// `setattr(sys.modules[__name__], k, v)` (or on a name bound to it).
    fn module_setattr(&mut self, args: &[Expr]) {
        let [obj, key, ..] = args else {
            return;
        };
        if self.is_this_module(obj) {
            match consts::strings(key, &self.env) {
                Some(names) => names.iter().for_each(|n| self.bind(n, Value::Unknown)),
                None => self.facts.open = true,
            }
        }
    }

    pub(super) fn all_part(&self, value: &Expr) -> Vec<AllPart> {
        if let Some(names) = consts::strings(value, &self.env) {
            return vec![AllPart::Names(names)];
        }
        if let Expr::Name(_) = value {
            if let Some(mut list) = name_sets::list_of(value, &self.name_lists, &self.env) {
                for c in &mut list.copies {
                    if let Some(m) = self.copied_module(&c.module) {
                        c.module = m;
                    }
                }
                return vec![AllPart::Names(list.names), AllPart::Copies(list.copies)];
            }
        }
        match value {
            Expr::Attribute(a) if a.attr.as_str() == "__all__" => match consts::dotted(&a.value) {
                Some(m) => vec![AllPart::ModuleAll(m)],
                None => vec![AllPart::Dynamic],
            },
            Expr::BinOp(b) if b.op == ast::Operator::Add => {
                let mut parts = self.all_part(&b.left);
                parts.extend(self.all_part(&b.right));
                parts
            }
            Expr::List(l) => l
                .elts
                .iter()
                .flat_map(|e| match e {
                    Expr::Starred(s) => self.all_part(&s.value),
                    e => match consts::string(e, &self.env) {
                        Some(s) => vec![AllPart::Names(vec![s])],
                        None => vec![AllPart::Dynamic],
                    },
                })
                .collect(),
            _ => vec![AllPart::Dynamic],
        }
    }

    pub(super) fn push_all(&mut self, parts: Vec<AllPart>, replace: bool) {
        let all = self.facts.all.get_or_insert_with(Vec::new);
        if replace {
            all.clear();
        }
        all.extend(parts);
    }

    /// Function bodies at module level: dynamic bindings of module names.
    pub(super) fn scan_dynamic(&mut self, function: &str, body: &[Stmt]) {
        let mut scan = DynamicScan {
            found: Vec::new(),
            aliases: Vec::new(),
        };
        for stmt in body {
            scan.visit_stmt(stmt);
        }
        for found in scan.found {
            match found {
                Dynamic::Globals(key) => self.dynamic_name(key),
                Dynamic::SetAttrOnSelf(key) => match consts::strings(key, &self.env) {
                    Some(names) => names.iter().for_each(|n| self.bind(n, Value::Unknown)),
                    None => self.setattr_functions.push(function.to_string()),
                },
                Dynamic::ReplaceSelf => self.facts.open = true,
                Dynamic::AllMutated => {
                    if self.facts.all.is_some() {
                        self.push_all(vec![AllPart::Dynamic], false);
                    }
                }
            }
        }
    }

    /// A module `__getattr__` that ends in `raise AttributeError` and only answers names tested
    /// against constants answers exactly those names; any other makes the module open.
    pub(super) fn module_getattr(&mut self, f: &ast::StmtFunctionDef) {
        // The tables this file built are known by their keys.
        let mut env = self.env.clone();
        for (name, table) in &self.tables.tables {
            let keys = table.iter().map(|(k, _)| k.clone()).collect();
            env.insert(name.clone(), Const::List(keys));
        }
        self.facts.getattr_tables = attr_tables::getattr_tables(f);
        match getattr_rule(f, false, &env) {
            GetattrRule::Closed(names) => self.facts.getattr_names.extend(names),
            GetattrRule::InstanceData(_) | GetattrRule::Open => self.facts.open = true,
        }
    }
}
