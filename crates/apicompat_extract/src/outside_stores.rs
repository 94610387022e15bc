//! Attributes a package stores on objects of its classes from outside the class: a function
//! or another class's method assigns `param.name = ...` to a parameter annotated with a class
//! (`def tune(trainer: "pl.Trainer"): trainer.callbacks = ...`), or `self.attr.name = ...`
//! where `self.attr` holds such a parameter (`self.trainer = trainer` in `__init__`) or is
//! annotated (`self.trainer: Trainer`, `trainer: Trainer` in the class body).
//! pytorch-lightning's `Trainer.callbacks` exists only this way: `_CallbackConnector` sets
//! `self.trainer.callbacks = callbacks or []`. The resolver adds each name to the class the
//! annotation names when that is a class of the release (`Resolver::add_outside_stores`).
//!
//! Only annotated receivers count: an object whose class the source does not state gives no
//! name to any class.

use std::collections::{HashMap, HashSet};

use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::consts::{dotted, positional_names};
use crate::nesting::nested_bodies;

/// Statements nested deeper than this are not read.
const MAX_DEPTH: usize = 100;
/// Stores kept per file at most.
const MAX_STORES: usize = 10_000;

/// (the annotation's class, as a dotted reference in the module's scope; the name stored),
/// in source order, without repeats.
pub(crate) fn stores(suite: &[Stmt]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for stmt in suite {
        match stmt {
            Stmt::FunctionDef(f) => function(f, None, &HashMap::new(), &mut out, 0),
            Stmt::ClassDef(c) => class(c, &mut out, 0),
            _ => {}
        }
    }
    let mut seen = HashSet::new();
    out.retain(|s| seen.insert(s.clone()));
    out.truncate(MAX_STORES);
    out
}

/// The methods of a class, with what its attributes are annotated or assigned to hold.
fn class(c: &ast::StmtClassDef, out: &mut Vec<(String, String)>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut typed: HashMap<String, String> = HashMap::new();
    for stmt in &c.body {
        if let Stmt::AnnAssign(a) = stmt {
            if let (Expr::Name(n), Some(r)) = (&*a.target, class_ref(&a.annotation)) {
                typed.insert(n.id.to_string(), r);
            }
        }
    }
    let methods: Vec<&ast::StmtFunctionDef> = c
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::FunctionDef(f) => Some(f),
            _ => None,
        })
        .collect();
    for f in &methods {
        let Some(&this) = positional_names(&f.parameters).first() else {
            continue;
        };
        let params = annotated_params(f, Some(this));
        attribute_types(&f.body, this, &params, &mut typed, depth + 1);
    }
    for f in methods {
        let this = positional_names(&f.parameters).first().copied();
        function(f, this, &typed, out, depth + 1);
    }
}

/// `self.x = param` (param annotated) and `self.x: T = ...` in a method body.
fn attribute_types(
    body: &[Stmt],
    this: &str,
    params: &HashMap<String, String>,
    typed: &mut HashMap<String, String>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    for stmt in body {
        match stmt {
            Stmt::Assign(a) => {
                let Expr::Name(value) = &*a.value else {
                    continue;
                };
                let Some(r) = params.get(value.id.as_str()) else {
                    continue;
                };
                for t in &a.targets {
                    if let Some(attr) = self_attribute(t, this) {
                        typed.entry(attr.to_string()).or_insert_with(|| r.clone());
                    }
                }
            }
            Stmt::AnnAssign(a) => {
                if let (Some(attr), Some(r)) =
                    (self_attribute(&a.target, this), class_ref(&a.annotation))
                {
                    typed.insert(attr.to_string(), r);
                }
            }
            _ => {
                for inner in nested_bodies(stmt) {
                    attribute_types(inner, this, params, typed, depth + 1);
                }
            }
        }
    }
}

/// The stores of one function on its annotated parameters, and (in a method) on the typed
/// attributes of `this`; nested functions are read as functions of their own.
fn function(
    f: &ast::StmtFunctionDef,
    this: Option<&str>,
    typed: &HashMap<String, String>,
    out: &mut Vec<(String, String)>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut params = annotated_params(f, this);
    // A parameter the body binds again may hold anything.
    let mut rebound = HashSet::new();
    bound_names(&f.body, &mut rebound, depth);
    params.retain(|p, _| !rebound.contains(p));
    let scan = Scan {
        this,
        params: &params,
        typed,
    };
    scan.body(&f.body, out, depth);
}

struct Scan<'a> {
    this: Option<&'a str>,
    params: &'a HashMap<String, String>,
    typed: &'a HashMap<String, String>,
}

impl Scan<'_> {
    fn body(&self, body: &[Stmt], out: &mut Vec<(String, String)>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for stmt in body {
            match stmt {
                Stmt::Assign(a) => {
                    for t in &a.targets {
                        self.target(t, out);
                    }
                }
                Stmt::AnnAssign(a) => self.target(&a.target, out),
                Stmt::FunctionDef(f) => function(f, None, &HashMap::new(), out, depth + 1),
                Stmt::ClassDef(c) => class(c, out, depth + 1),
                _ => {
                    for inner in nested_bodies(stmt) {
                        self.body(inner, out, depth + 1);
                    }
                }
            }
        }
    }

    fn target(&self, t: &Expr, out: &mut Vec<(String, String)>) {
        match t {
            Expr::Tuple(x) => x.elts.iter().for_each(|e| self.target(e, out)),
            Expr::List(x) => x.elts.iter().for_each(|e| self.target(e, out)),
            Expr::Attribute(a) if !is_dunder(&a.attr) => {
                let owner = match &*a.value {
                    Expr::Name(n) => self.params.get(n.id.as_str()),
                    Expr::Attribute(inner) => self
                        .this
                        .filter(
                            |this| matches!(&*inner.value, Expr::Name(n) if n.id.as_str() == *this),
                        )
                        .and_then(|_| self.typed.get(inner.attr.as_str())),
                    _ => None,
                };
                if let Some(r) = owner {
                    out.push((r.clone(), a.attr.to_string()));
                }
            }
            _ => {}
        }
    }
}

/// The parameters of `f` annotated with a class, but `this`.
fn annotated_params(f: &ast::StmtFunctionDef, this: Option<&str>) -> HashMap<String, String> {
    let p = &f.parameters;
    p.posonlyargs
        .iter()
        .chain(&p.args)
        .chain(&p.kwonlyargs)
        .filter(|a| Some(a.parameter.name.as_str()) != this)
        .filter_map(|a| {
            let r = class_ref(a.parameter.annotation.as_deref()?)?;
            Some((a.parameter.name.to_string(), r))
        })
        .collect()
}

/// The class an annotation names: `T`, `m.T`, `"m.T"`, `Optional[T]`, `T | None`,
/// `"Optional[m.T]"`.
fn class_ref(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(_) | Expr::Attribute(_) => dotted(e),
        Expr::StringLiteral(s) => string_ref(s.value.to_str()),
        Expr::Subscript(s) if dotted(&s.value).is_some_and(|d| d.ends_with("Optional")) => {
            class_ref(&s.slice)
        }
        Expr::BinOp(b) if b.op == ast::Operator::BitOr => match (&*b.left, &*b.right) {
            (x, Expr::NoneLiteral(_)) | (Expr::NoneLiteral(_), x) => class_ref(x),
            _ => None,
        },
        _ => None,
    }
}

fn string_ref(text: &str) -> Option<String> {
    let mut t = text.trim();
    if let Some(inner) = t
        .strip_prefix("Optional[")
        .or_else(|| t.strip_prefix("typing.Optional["))
    {
        t = inner.strip_suffix(']')?.trim();
    }
    let parts: Vec<&str> = t
        .split('|')
        .map(str::trim)
        .filter(|p| *p != "None")
        .collect();
    let [one] = parts.as_slice() else {
        return None;
    };
    let valid = !one.is_empty()
        && one.split('.').all(|seg| {
            seg.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && seg.chars().all(|c| c.is_alphanumeric() || c == '_')
        });
    valid.then(|| one.to_string())
}

/// `this.name` as an assignment target: `name`.
fn self_attribute<'e>(t: &'e Expr, this: &str) -> Option<&'e str> {
    match t {
        Expr::Attribute(a) if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == this) => {
            Some(a.attr.as_str())
        }
        _ => None,
    }
}

/// Names a body binds by assignment, loop or `with ... as` (not in nested functions).
fn bound_names(body: &[Stmt], out: &mut HashSet<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    fn names(t: &Expr, out: &mut HashSet<String>) {
        match t {
            Expr::Name(n) => {
                out.insert(n.id.to_string());
            }
            Expr::Tuple(x) => x.elts.iter().for_each(|e| names(e, out)),
            Expr::List(x) => x.elts.iter().for_each(|e| names(e, out)),
            Expr::Starred(s) => names(&s.value, out),
            _ => {}
        }
    }
    for stmt in body {
        match stmt {
            Stmt::Assign(a) => a.targets.iter().for_each(|t| names(t, out)),
            Stmt::AnnAssign(a) => names(&a.target, out),
            Stmt::AugAssign(a) => names(&a.target, out),
            Stmt::For(f) => names(&f.target, out),
            Stmt::With(w) => {
                for item in &w.items {
                    if let Some(v) = &item.optional_vars {
                        names(v, out);
                    }
                }
            }
            _ => {}
        }
        for inner in nested_bodies(stmt) {
            bound_names(inner, out, depth + 1);
        }
    }
}

fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> Vec<(String, String)> {
        let parsed = ruff_python_parser::parse_module(src).unwrap();
        stores(parsed.suite())
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn stores_on_annotated_receivers() {
        // pytorch-lightning's shapes (`trainer/connectors/callback_connector.py`,
        // `tuner/lr_finder.py`).
        let src = r#"
import pytorch_lightning as pl

class _CallbackConnector:
    def __init__(self, trainer: "pl.Trainer"):
        self.trainer = trainer

    def on_trainer_init(self, callbacks):
        self.trainer.callbacks = callbacks or []
        self.trainer.__dict__ = {}
        self.other.x = 1

def _lr_find(trainer: "pl.Trainer", model: Optional[Module] = None, *, opt: "Optimizer | None" = None):
    trainer.callbacks, trainer.fit_loop.x = [], 1
    if model:
        model.hparams_initial = 1
    opt.state = 3

def rebinds(trainer: "pl.Trainer"):
    trainer = object()
    trainer.not_this = 1

def plain(trainer):
    trainer.untyped = 1

class Holder:
    tracker: Tracker

    def step(self):
        self.tracker.count = 1
        def inner(t: Other):
            t.x = 1
"#;
        assert_eq!(
            run(src),
            pairs(&[
                ("pl.Trainer", "callbacks"),
                ("Module", "hparams_initial"),
                ("Optimizer", "state"),
                ("Tracker", "count"),
                ("Other", "x"),
            ])
        );
    }

    #[test]
    fn annotation_forms() {
        let r = |src: &str| {
            let parsed = ruff_python_parser::parse_expression(src).unwrap();
            class_ref(parsed.expr())
        };
        assert_eq!(r("T").as_deref(), Some("T"));
        assert_eq!(r("'a.b.T'").as_deref(), Some("a.b.T"));
        assert_eq!(r("typing.Optional[a.T]").as_deref(), Some("a.T"));
        assert_eq!(r("None | T").as_deref(), Some("T"));
        assert_eq!(r("'Optional[T]'").as_deref(), Some("T"));
        assert_eq!(r("'T | None'").as_deref(), Some("T"));
        assert_eq!(r("'A | B'"), None);
        assert_eq!(r("List[T]"), None);
        assert_eq!(r("'List[T]'"), None);
        assert_eq!(r("A | B"), None);
    }
}
