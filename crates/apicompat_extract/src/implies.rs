//! What a predicate function's true result says about paths: every path its true returns read
//! for sure exists where it returned true.
//!
//! ```python
//! def is_xpu_available(check_device=False):     # accelerate/utils/imports.py
//!     if not is_ipex_available():
//!         return False
//!     if check_device:
//!         return torch.xpu.is_available()
//!     return hasattr(torch, "xpu") and torch.xpu.is_available()
//! ```
//!
//! Every `return` whose value may be true reads `torch.xpu.is_available`, so where
//! `is_xpu_available()` is true that path exists: a project's `if is_xpu_available():
//! torch.xpu.manual_seed(s)` runs only on torch releases that have `torch.xpu`
//! (`apicompat_check`'s `presence`). The rule is the one the checker applies to the project's
//! own functions, here for a package's module-level predicates (a function annotated `->
//! bool`, or one that returns a boolean literal, a comparison, a negation, an `and` or
//! `hasattr(...)`), so that only predicates carry the fact. Names resolve through the
//! module's imports and the function's own (`import torch` in its body); a name the function
//! binds otherwise is not followed. What `A and B` true reads: both; `A or B`: only `A`;
//! `hasattr(m, "n")` true: `m.n`. The paths every true return agrees on are kept, at most
//! [`MAX_IMPLIED`]; a function defined more than once in the module keeps what all its
//! definitions agree on. Names bound by `:=` or by `match` patterns are not seen.

use std::collections::HashMap;

use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::consts;
use crate::facts::{resolve_relative, Value};

/// Paths kept per function.
pub(crate) const MAX_IMPLIED: usize = 16;
/// Paths early exits may establish before a function's returns (more are not read).
const MAX_BEFORE: usize = 64;
/// Paths one expression's reads keep.
const MAX_READ: usize = 256;
/// Expressions and statements nested deeper than this are not read.
const MAX_DEPTH: usize = 32;

/// Sets `implies` on the module-level predicate functions of `suite`.
pub(crate) fn mark(
    bindings: &mut [(String, Value)],
    suite: &[Stmt],
    module: &str,
    is_package: bool,
) {
    let imports = crate::facts::imports_by_name(bindings);
    let flags = module_flags(suite, &imports, module, is_package);
    let mut found: HashMap<&str, Option<Vec<String>>> = HashMap::new();
    for stmt in suite {
        let Stmt::FunctionDef(f) = stmt else { continue };
        let mut returns = Vec::new();
        for s in &f.body {
            collect_returns(s, &mut returns, 0);
        }
        let implied = if is_predicate(f, &returns) {
            let scope = Scope::new(f, &imports, &flags, module, is_package);
            scope.true_returns(&f.body)
        } else {
            Vec::new()
        };
        found
            .entry(f.name.as_str())
            .and_modify(|known| {
                if let Some(k) = known {
                    k.retain(|p| implied.contains(p));
                }
            })
            .or_insert(Some(implied));
    }
    for (name, v) in bindings.iter_mut() {
        if let (Value::Function(f), Some(Some(implied))) = (v, found.get(name.as_str())) {
            f.implies.clone_from(implied);
        }
    }
}

/// A function whose result is a truth value (`returns`: the values its `return`s give).
fn is_predicate(f: &ast::StmtFunctionDef, returns: &[&Expr]) -> bool {
    if let Some(r) = &f.returns {
        return matches!(&**r, Expr::Name(n) if n.id.as_str() == "bool")
            || matches!(&**r, Expr::StringLiteral(s) if s.value.to_str() == "bool");
    }
    returns.iter().any(|v| match v {
        Expr::BooleanLiteral(_) | Expr::Compare(_) => true,
        Expr::UnaryOp(u) => u.op == ast::UnaryOp::Not,
        Expr::BoolOp(b) => b.op == ast::BoolOp::And,
        Expr::Call(c) => matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "hasattr"),
        _ => false,
    })
}

/// The module-level flags of `suite` and the paths each one's true value implies: a name bound
/// once in the module, by `NAME = value` at its top level, that no function rebinds (`global
/// NAME`), whose value's truth implies paths (`_HAS_FUSED_ATTN = hasattr(F,
/// "scaled_dot_product_attention")`, timm's `layers/config.py`). A flag may be read by the
/// flags after it.
fn module_flags(
    suite: &[Stmt],
    imports: &HashMap<&str, Option<String>>,
    module: &str,
    is_package: bool,
) -> HashMap<String, Vec<String>> {
    let mut bound: HashMap<String, usize> = HashMap::new();
    local_bindings(
        suite,
        module,
        is_package,
        &mut |name, _| {
            *bound.entry(name.to_string()).or_default() += 1;
        },
        0,
    );
    let mut rebound = std::collections::HashSet::new();
    global_names(suite, &mut rebound, 0);
    let mut flags = HashMap::new();
    for stmt in suite {
        let (target, value) = match stmt {
            Stmt::Assign(a) if a.targets.len() == 1 => (&a.targets[0], &*a.value),
            Stmt::AnnAssign(a) => match &a.value {
                Some(v) => (&*a.target, &**v),
                None => continue,
            },
            _ => continue,
        };
        let Expr::Name(n) = target else { continue };
        let name = n.id.as_str();
        if bound.get(name) != Some(&1) || rebound.contains(name) {
            continue;
        }
        let scope = Scope {
            imports,
            flags: &flags,
            locals: HashMap::new(),
        };
        let mut implied = Vec::new();
        scope.established(value, Some(true), &mut implied);
        if !implied.is_empty() {
            flags.insert(name.to_string(), implied);
        }
    }
    flags
}

/// The names `global` statements anywhere in `body` declare (in functions and classes too).
fn global_names(body: &[Stmt], out: &mut std::collections::HashSet<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for s in body {
        match s {
            Stmt::Global(g) => out.extend(g.names.iter().map(|n| n.to_string())),
            Stmt::FunctionDef(f) => global_names(&f.body, out, depth + 1),
            Stmt::ClassDef(c) => global_names(&c.body, out, depth + 1),
            s => {
                for inner in crate::nesting::nested_bodies(s) {
                    global_names(inner, out, depth + 1);
                }
            }
        }
    }
}

/// The names a function sees: its own imports, then the module's.
struct Scope<'a> {
    /// What each module-level name's last binding imports.
    imports: &'a HashMap<&'a str, Option<String>>,
    /// The module's flags ([`module_flags`]) and what each one's true value implies.
    flags: &'a HashMap<String, Vec<String>>,
    /// Names the function imports (to the module or object path), and names it binds
    /// otherwise (`None`: not followed).
    locals: HashMap<String, Option<String>>,
}

impl<'a> Scope<'a> {
    fn new(
        f: &ast::StmtFunctionDef,
        imports: &'a HashMap<&'a str, Option<String>>,
        flags: &'a HashMap<String, Vec<String>>,
        module: &str,
        is_package: bool,
    ) -> Scope<'a> {
        let mut locals: HashMap<String, Option<String>> = HashMap::new();
        for p in f.parameters.iter() {
            locals.insert(p.name().to_string(), None);
        }
        let mut bind = |name: &str, to: Option<String>| {
            locals
                .entry(name.to_string())
                .and_modify(|known| {
                    if *known != to {
                        *known = None;
                    }
                })
                .or_insert(to);
        };
        local_bindings(&f.body, module, is_package, &mut bind, 0);
        Scope {
            imports,
            flags,
            locals,
        }
    }

    /// The path a name stands for, when an import binds it.
    fn name(&self, name: &str) -> Option<String> {
        if let Some(local) = self.locals.get(name) {
            return local.clone();
        }
        self.imports.get(name)?.clone()
    }

    /// The path a dotted expression stands for.
    fn path(&self, e: &Expr) -> Option<String> {
        let dotted = consts::dotted(e)?;
        let (first, rest) = match dotted.split_once('.') {
            Some((f, r)) => (f, Some(r)),
            None => (dotted.as_str(), None),
        };
        let base = self.name(first)?;
        Some(match rest {
            Some(r) => format!("{base}.{r}"),
            None => base,
        })
    }

    /// What every return of the function `body` that may give a true value reads for sure, or
    /// found established by an early exit before it (`if not _HAS_FUSED_ATTN or _EXPORTABLE:
    /// return False`: the returns after it see the flag true), empty when one reads nothing.
    fn true_returns(&self, body: &[Stmt]) -> Vec<String> {
        let mut common: Option<Vec<String>> = None;
        let mut before = Vec::new();
        let mut returns = Vec::new();
        for stmt in body {
            returns.clear();
            collect_returns(stmt, &mut returns, 0);
            for &value in &returns {
                if matches!(value, Expr::NoneLiteral(_))
                    || matches!(value, Expr::BooleanLiteral(b) if !b.value)
                {
                    continue;
                }
                let mut reads = before.clone();
                self.reads(value, Some(true), 0, &mut reads);
                common = Some(match common {
                    None => reads,
                    Some(c) => c.into_iter().filter(|p| reads.contains(p)).collect(),
                });
            }
            if let Stmt::If(i) = stmt {
                let exits = matches!(i.body.last(), Some(Stmt::Return(_) | Stmt::Raise(_)));
                if exits && i.elif_else_clauses.is_empty() && before.len() < MAX_BEFORE {
                    self.established(&i.test, Some(false), &mut before);
                }
            }
        }
        let mut out = common.unwrap_or_default();
        out.sort();
        out.truncate(MAX_IMPLIED);
        out
    }

    /// The paths `e` turning out `truth` shows to exist: `hasattr(m, "n")` true shows `m.n`, a
    /// module flag true what it implies, through `and`, `or` and `not` (plain reads are not
    /// counted: a test that ran says nothing of what it read).
    fn established(&self, e: &Expr, truth: Option<bool>, out: &mut Vec<String>) {
        if truth.is_some() {
            self.walk(e, truth, false, 0, out);
        }
    }

    /// What a true `hasattr(m, "n")` or module flag shows to exist.
    fn shown(&self, e: &Expr, out: &mut Vec<String>) {
        match e {
            Expr::Name(n) if !self.locals.contains_key(n.id.as_str()) => {
                for p in self.flags.get(n.id.as_str()).into_iter().flatten() {
                    push(out, p.clone());
                }
            }
            Expr::Call(call) => {
                if let ([object, Expr::StringLiteral(n)], Expr::Name(f)) =
                    (&*call.arguments.args, &*call.func)
                {
                    if f.id.as_str() == "hasattr" && !self.locals.contains_key("hasattr") {
                        if let Some(p) = self.path(object) {
                            push(out, format!("{p}.{}", n.value.to_str()));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The paths `e` reads for sure when its value turns out `truth` (`None`: any value).
    fn reads(&self, e: &Expr, truth: Option<bool>, depth: usize, out: &mut Vec<String>) {
        self.walk(e, truth, true, depth, out);
    }

    /// [`Self::reads`] (`plain`), or [`Self::established`] (only what tests show).
    fn walk(
        &self,
        e: &Expr,
        truth: Option<bool>,
        plain: bool,
        depth: usize,
        out: &mut Vec<String>,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let d = depth + 1;
        match e {
            Expr::BoolOp(b) => {
                let (sure, t) = sure_operands(b, truth);
                for v in sure {
                    self.walk(v, t, plain, d, out);
                }
            }
            Expr::UnaryOp(u) => self.walk(&u.operand, operand_truth(u, truth), plain, d, out),
            Expr::Named(n) => self.walk(&n.value, truth, plain, d, out),
            Expr::Name(_) if truth == Some(true) => self.shown(e, out),
            Expr::Call(_) if !plain && truth == Some(true) => self.shown(e, out),
            _ if !plain => {}
            Expr::Compare(c) => {
                self.reads(&c.left, None, d, out);
                if let Some(first) = c.comparators.first() {
                    self.reads(first, None, d, out);
                }
            }
            Expr::Call(call) => {
                if truth == Some(true) {
                    self.shown(e, out);
                }
                self.reads(&call.func, None, d, out);
                for a in call.arguments.args.iter() {
                    self.reads(a, None, d, out);
                }
                for k in call.arguments.keywords.iter() {
                    self.reads(&k.value, None, d, out);
                }
            }
            Expr::Attribute(a) => match self.path(e) {
                Some(p) if !a.attr.as_str().starts_with("__") => push(out, p),
                Some(_) => {}
                None => self.reads(&a.value, None, d, out),
            },
            Expr::Subscript(s) => {
                self.reads(&s.value, None, d, out);
                self.reads(&s.slice, None, d, out);
            }
            Expr::BinOp(b) => {
                self.reads(&b.left, None, d, out);
                self.reads(&b.right, None, d, out);
            }
            Expr::If(i) => self.reads(&i.test, None, d, out),
            _ => {}
        }
    }
}

/// The operands of `A and B` / `A or B` evaluated for sure when its value turns out `truth`,
/// and what their value was then: `and` true (`or` false) evaluated every operand, with that
/// value; otherwise only the first, whatever its value.
pub fn sure_operands(b: &ast::ExprBoolOp, truth: Option<bool>) -> (&[Expr], Option<bool>) {
    let all = match b.op {
        ast::BoolOp::And => truth == Some(true),
        ast::BoolOp::Or => truth == Some(false),
    };
    if all {
        (&b.values[..], truth)
    } else {
        (b.values.get(..1).unwrap_or(&[]), None)
    }
}

/// The value of a unary operation's operand when the operation's turns out `truth`: `not`
/// swaps it, other operators say nothing.
pub fn operand_truth(u: &ast::ExprUnaryOp, truth: Option<bool>) -> Option<bool> {
    match u.op {
        ast::UnaryOp::Not => truth.map(|t| !t),
        _ => None,
    }
}

/// Adds `path` once; past [`MAX_READ`] paths (a test of thousands of operands) no more, so
/// that the check for repeats stays bounded.
fn push(out: &mut Vec<String>, path: String) {
    if out.len() < MAX_READ && !out.contains(&path) {
        out.push(path);
    }
}

/// The names a function body binds (not in nested functions or classes): imports to what
/// they import, anything else to `None`.
fn local_bindings(
    body: &[Stmt],
    module: &str,
    is_package: bool,
    bind: &mut impl FnMut(&str, Option<String>),
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    for s in body {
        match s {
            Stmt::Import(i) => {
                for a in &i.names {
                    let full = a.name.as_str();
                    match &a.asname {
                        Some(as_name) => bind(as_name.as_str(), Some(full.to_string())),
                        None => {
                            let first = full.split('.').next().unwrap_or(full);
                            bind(first, Some(first.to_string()));
                        }
                    }
                }
            }
            Stmt::ImportFrom(i) => {
                let from = i.module.as_ref().map(|m| m.as_str());
                let base = match (i.level, from) {
                    (0, Some(m)) => Some(m.to_string()),
                    (0, None) => None,
                    (level, m) => resolve_relative(module, is_package, level).map(|b| match m {
                        Some(m) => format!("{b}.{m}"),
                        None => b,
                    }),
                };
                for a in &i.names {
                    let bound = a.asname.as_ref().unwrap_or(&a.name).as_str();
                    let to = base.as_ref().map(|b| format!("{b}.{}", a.name.as_str()));
                    bind(bound, to.filter(|_| a.name.as_str() != "*"));
                }
            }
            Stmt::FunctionDef(f) => bind(f.name.as_str(), None),
            Stmt::ClassDef(c) => bind(c.name.as_str(), None),
            Stmt::Assign(a) => {
                for t in &a.targets {
                    target_names(t, bind, 0);
                }
            }
            Stmt::AnnAssign(a) => target_names(&a.target, bind, 0),
            Stmt::AugAssign(a) => target_names(&a.target, bind, 0),
            Stmt::For(f) => {
                target_names(&f.target, bind, 0);
                local_bindings(&f.body, module, is_package, bind, d);
                local_bindings(&f.orelse, module, is_package, bind, d);
            }
            Stmt::While(w) => {
                local_bindings(&w.body, module, is_package, bind, d);
                local_bindings(&w.orelse, module, is_package, bind, d);
            }
            Stmt::If(i) => {
                local_bindings(&i.body, module, is_package, bind, d);
                for c in &i.elif_else_clauses {
                    local_bindings(&c.body, module, is_package, bind, d);
                }
            }
            Stmt::With(w) => {
                for item in &w.items {
                    if let Some(v) = &item.optional_vars {
                        target_names(v, bind, 0);
                    }
                }
                local_bindings(&w.body, module, is_package, bind, d);
            }
            Stmt::Try(t) => {
                local_bindings(&t.body, module, is_package, bind, d);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(n) = &h.name {
                        bind(n.as_str(), None);
                    }
                    local_bindings(&h.body, module, is_package, bind, d);
                }
                local_bindings(&t.orelse, module, is_package, bind, d);
                local_bindings(&t.finalbody, module, is_package, bind, d);
            }
            Stmt::Match(m) => {
                for c in &m.cases {
                    local_bindings(&c.body, module, is_package, bind, d);
                }
            }
            Stmt::Global(g) => {
                for n in &g.names {
                    bind(n.as_str(), None);
                }
            }
            _ => {}
        }
    }
}

/// The names an assignment target binds.
fn target_names(t: &Expr, bind: &mut impl FnMut(&str, Option<String>), depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match t {
        Expr::Name(n) => bind(n.id.as_str(), None),
        Expr::Tuple(tu) => tu
            .elts
            .iter()
            .for_each(|e| target_names(e, bind, depth + 1)),
        Expr::List(l) => l.elts.iter().for_each(|e| target_names(e, bind, depth + 1)),
        Expr::Starred(s) => target_names(&s.value, bind, depth + 1),
        _ => {}
    }
}

/// The values of the `return`s in a statement (not in nested functions or classes; a bare
/// `return` gives none).
pub fn collect_returns<'e>(s: &'e Stmt, out: &mut Vec<&'e Expr>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    let block = |b: &'e [Stmt], out: &mut Vec<&'e Expr>| {
        for s in b {
            collect_returns(s, out, d);
        }
    };
    match s {
        Stmt::Return(r) => {
            if let Some(v) = r.value.as_deref() {
                out.push(v);
            }
        }
        Stmt::If(i) => {
            block(&i.body, out);
            for c in &i.elif_else_clauses {
                block(&c.body, out);
            }
        }
        Stmt::Try(t) => {
            block(&t.body, out);
            for h in &t.handlers {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                block(&h.body, out);
            }
            block(&t.orelse, out);
            block(&t.finalbody, out);
        }
        Stmt::With(w) => block(&w.body, out),
        Stmt::For(f) => {
            block(&f.body, out);
            block(&f.orelse, out);
        }
        Stmt::While(w) => {
            block(&w.body, out);
            block(&w.orelse, out);
        }
        Stmt::Match(m) => {
            for c in &m.cases {
                block(&c.body, out);
            }
        }
        _ => {}
    }
}

/// Drops the implied paths of this release's own modules that the release does not have: a
/// predicate that reads a name its release lacks (bound at run time, or missed here) says
/// nothing trustworthy of it. Paths of other packages are kept (their releases are judged
/// where the predicate is used).
pub(crate) fn keep_known(
    symbols: &mut std::collections::BTreeMap<String, apicompat_surface::Symbol>,
) {
    let unknown: Vec<(String, Vec<String>)> = symbols
        .iter()
        .filter(|(_, s)| !s.implies.is_empty())
        .filter_map(|(path, s)| {
            let dropped: Vec<String> = s
                .implies
                .iter()
                .filter(|p| {
                    let root = p.split('.').next().unwrap_or(p);
                    symbols.contains_key(root) && !symbols.contains_key(p.as_str())
                })
                .cloned()
                .collect();
            (!dropped.is_empty()).then(|| (path.clone(), dropped))
        })
        .collect();
    for (path, dropped) in unknown {
        if let Some(s) = symbols.get_mut(&path) {
            s.implies.retain(|p| !dropped.contains(p));
        }
    }
}
