//! Keywords a decorator's wrapper takes out of `**kwargs` before it calls the function.
//!
//! Motivated by huggingface_hub's `@validate_hf_hub_args`: its wrapper `_inner_fn(*args,
//! **kwargs)` hands `kwargs` to `smoothly_deprecate_legacy_arguments`, which pops `proxies`,
//! `resume_download`, `force_filename` and `local_dir_use_symlinks` (warning that they are
//! ignored) before calling `hf_hub_download`, whose own signature no longer has them (1.x).
//!
//! Shape read (per module-level function `d`): `d` defines `def w(*args, **kw)` at the top of
//! its body and returns `w`. The keys of `kw` that `w` removes or tests are keywords every
//! function decorated with `d` accepts: `kw.pop("k", ...)`, `del kw["k"]`, `"k" in kw`, also
//! through copies (`x = kw.copy()`, `dict(kw)`, `{**kw}`) and in functions of the same module
//! that `kw` is passed to (positionally or by keyword; up to [`MAX_CALL_DEPTH`] calls deep).
//! A wrapper that passes `kw` on unchanged gives no keys (the wrapped signature stands).
//!
//! A decorator factory `d(old_name, ...)` whose body returns `def wrapper(func)`, which returns
//! `def w(*args, **kw)`, is read the same way for keys named by its own parameters
//! (`kw.pop(old_name)`, `old_name in kw`): transformers' `deprecate_kwarg("tokenizer",
//! new_name="processing_class", version="5.0.0")` takes `tokenizer` out, so
//! `Trainer(tokenizer=...)` binds until 5.0. Such parameters are recorded
//! ([`crate::facts::Function::wrapper_params`]) and each decoration's literal argument for
//! them is the key. Anything else is not read (the signature stands). Applied in
//! `resolve/wrapped.rs`.

use std::collections::{BTreeSet, HashMap};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::consts;
use crate::facts::Value;

/// Calls followed from the wrapper into functions of the same module.
const MAX_CALL_DEPTH: usize = 3;

/// Sets `wrapper_keys` on the module-level functions of `suite` that are such decorators.
pub(crate) fn mark_wrappers(bindings: &mut [(String, Value)], suite: &[Stmt]) {
    let mut wrappers: HashMap<&str, Vec<String>> = HashMap::new();
    let mut factories: HashMap<&str, Vec<(usize, String)>> = HashMap::new();
    for stmt in suite {
        if let Stmt::FunctionDef(f) = stmt {
            let keys = wrapper_keys(f, suite);
            if !keys.is_empty() {
                wrappers.insert(f.name.as_str(), keys);
            }
            let params = factory_params(f);
            if !params.is_empty() {
                factories.insert(f.name.as_str(), params);
            }
        }
    }
    if wrappers.is_empty() && factories.is_empty() {
        return;
    }
    for (name, v) in bindings {
        if let Value::Function(f) = v {
            if let Some(keys) = wrappers.get(name.as_str()) {
                f.wrapper_keys.clone_from(keys);
            }
            if let Some(params) = factories.get(name.as_str()) {
                f.wrapper_params.clone_from(params);
            }
        }
    }
}

/// The keys the wrapper `d` returns takes out of its `**kwargs`, sorted; empty when `d` is no
/// such decorator. `module` is the module's top-level statements.
fn wrapper_keys(d: &ast::StmtFunctionDef, module: &[Stmt]) -> Vec<String> {
    let Some(wrapper) = returned_wrapper(d) else {
        return Vec::new();
    };
    let Some(kw) = &wrapper.parameters.kwarg else {
        return Vec::new();
    };
    let functions: HashMap<&str, &ast::StmtFunctionDef> = module
        .iter()
        .filter_map(|s| match s {
            Stmt::FunctionDef(f) => Some((f.name.as_str(), f)),
            _ => None,
        })
        .collect();
    let mut keys = BTreeSet::new();
    collect(&wrapper.body, kw.name.as_str(), &functions, 0, &mut keys);
    keys.into_iter().collect()
}

/// For a decorator factory (see the module doc): its parameters (position among those that
/// can be given by position, else `usize::MAX`; name) whose values are keys the wrapper takes
/// out of `**kwargs`, in order.
fn factory_params(d: &ast::StmtFunctionDef) -> Vec<(usize, String)> {
    let Some(decorator) = returned_wrapper(d) else {
        return Vec::new();
    };
    if decorator.parameters.kwarg.is_some() {
        return Vec::new();
    }
    let Some(wrapper) = returned_wrapper(decorator) else {
        return Vec::new();
    };
    let Some(kw) = &wrapper.parameters.kwarg else {
        return Vec::new();
    };
    let p = &d.parameters;
    let positional = consts::positional_names(p);
    let all: Vec<String> = positional
        .iter()
        .map(|n| n.to_string())
        .chain(p.kwonlyargs.iter().map(|a| a.parameter.name.to_string()))
        .collect();
    let mut v = KeyReader {
        names: vec![kw.name.to_string()],
        calls: Vec::new(),
        keys: BTreeSet::new(),
        params: all,
        param_keys: BTreeSet::new(),
    };
    v.visit_body(&wrapper.body);
    let mut out: Vec<(usize, String)> = v
        .param_keys
        .into_iter()
        .map(|n| {
            let at = positional
                .iter()
                .position(|p| *p == n)
                .unwrap_or(usize::MAX);
            (at, n)
        })
        .collect();
    out.sort();
    out
}

/// `def w(...)` at the top of `d`'s body when `d`'s body also says `return w`.
fn returned_wrapper(d: &ast::StmtFunctionDef) -> Option<&ast::StmtFunctionDef> {
    let returned = d.body.iter().find_map(|s| match s {
        Stmt::Return(r) => match r.value.as_deref() {
            Some(Expr::Name(n)) => Some(n.id.as_str()),
            _ => None,
        },
        _ => None,
    })?;
    d.body.iter().rev().find_map(|s| match s {
        Stmt::FunctionDef(f) if f.name.as_str() == returned => Some(f),
        _ => None,
    })
}

/// The keys `body` takes out of the mapping named `kw` (and of its copies).
fn collect(
    body: &[Stmt],
    kw: &str,
    functions: &HashMap<&str, &ast::StmtFunctionDef>,
    depth: usize,
    keys: &mut BTreeSet<String>,
) {
    let mut v = KeyReader {
        names: vec![kw.to_string()],
        calls: Vec::new(),
        keys: BTreeSet::new(),
        params: Vec::new(),
        param_keys: BTreeSet::new(),
    };
    v.visit_body(body);
    keys.append(&mut v.keys);
    if depth >= MAX_CALL_DEPTH {
        return;
    }
    for (callee, arg) in v.calls {
        let Some(f) = functions.get(callee.as_str()) else {
            continue;
        };
        let params = &f.parameters;
        let name = match arg {
            Arg::Position(i) => params
                .posonlyargs
                .iter()
                .chain(&params.args)
                .nth(i)
                .map(|p| p.parameter.name.as_str()),
            Arg::Keyword(k) => params
                .posonlyargs
                .iter()
                .chain(&params.args)
                .chain(&params.kwonlyargs)
                .map(|p| p.parameter.name.as_str())
                .find(|n| *n == k),
        };
        if let Some(name) = name {
            collect(&f.body, name, functions, depth + 1, keys);
        }
    }
}

/// Where the mapping is passed in a call.
enum Arg {
    Position(usize),
    Keyword(String),
}

struct KeyReader {
    /// The mapping's names: the parameter and its copies.
    names: Vec<String>,
    /// Plain-name callees the mapping is passed to.
    calls: Vec<(String, Arg)>,
    keys: BTreeSet<String>,
    /// A factory's parameters: a key given as one of them is recorded by name.
    params: Vec<String>,
    param_keys: BTreeSet<String>,
}

impl KeyReader {
    /// A key expression: a literal is a key; a factory's parameter names one.
    fn key(&mut self, e: Option<&Expr>) {
        let Some(e) = e else {
            return;
        };
        if let Some(k) = literal(e) {
            self.keys.insert(k);
        } else if let Expr::Name(n) = e {
            if self.params.iter().any(|p| p == n.id.as_str()) {
                self.param_keys.insert(n.id.to_string());
            }
        }
    }

    fn is_map(&self, e: &Expr) -> bool {
        matches!(e, Expr::Name(n) if self.names.iter().any(|m| m == n.id.as_str()))
    }

    /// `kw.copy()`, `dict(kw)`, `{**kw}`.
    fn is_copy(&self, e: &Expr) -> bool {
        match e {
            Expr::Call(c) => match &*c.func {
                Expr::Attribute(a) => {
                    a.attr.as_str() == "copy"
                        && self.is_map(&a.value)
                        && c.arguments.args.is_empty()
                }
                Expr::Name(n) => {
                    n.id.as_str() == "dict"
                        && c.arguments.args.len() == 1
                        && self.is_map(&c.arguments.args[0])
                }
                _ => false,
            },
            Expr::Dict(d) => {
                d.items.len() == 1 && d.items[0].key.is_none() && self.is_map(&d.items[0].value)
            }
            _ => false,
        }
    }
}

fn literal(e: &Expr) -> Option<String> {
    match e {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

impl<'a> Visitor<'a> for KeyReader {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            // A nested function or class is another scope.
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => return,
            Stmt::Assign(a) if self.is_copy(&a.value) => {
                for t in &a.targets {
                    if let Expr::Name(n) = t {
                        self.names.push(n.id.to_string());
                    }
                }
            }
            Stmt::Delete(d) => {
                for t in &d.targets {
                    if let Expr::Subscript(s) = t {
                        if self.is_map(&s.value) {
                            self.keys.extend(literal(&s.slice));
                        }
                    }
                }
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Call(c) => {
                if let Expr::Attribute(a) = &*c.func {
                    if a.attr.as_str() == "pop" && self.is_map(&a.value) {
                        self.key(c.arguments.args.first());
                    }
                }
                if let Some(callee) = consts::dotted(&c.func).filter(|d| !d.contains('.')) {
                    for (i, arg) in c.arguments.args.iter().enumerate() {
                        if self.is_map(arg) {
                            self.calls.push((callee.clone(), Arg::Position(i)));
                        }
                    }
                    for k in c.arguments.keywords.iter() {
                        if let Some(name) = &k.arg {
                            if self.is_map(&k.value) {
                                self.calls
                                    .push((callee.clone(), Arg::Keyword(name.to_string())));
                            }
                        }
                    }
                }
            }
            Expr::Compare(c) => {
                let tested = c
                    .ops
                    .iter()
                    .zip(c.comparators.iter())
                    .any(|(op, right)| matches!(op, ast::CmpOp::In) && self.is_map(right));
                if tested && c.ops.len() == 1 {
                    self.key(Some(&c.left));
                }
            }
            _ => {}
        }
        visitor::walk_expr(self, expr);
    }
}
