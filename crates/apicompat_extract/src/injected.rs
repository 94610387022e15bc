//! Names a module sets at import time on another module of its package, and the module
//! names it registers as itself. lightning 2.1 - 2.6's `pytorch/_graveyard/tpu.py`, which
//! `lightning/pytorch/__init__.py` imports:
//!
//! ```python
//! import lightning.pytorch as pl
//!
//! def _patch_sys_modules():
//!     self = sys.modules[__name__]
//!     sys.modules["lightning.pytorch.accelerators.tpu"] = self
//!
//! def _patch_classes():
//!     setattr(pl.accelerators, "TPUAccelerator", TPUAccelerator)
//!
//! _patch_sys_modules()
//! _patch_classes()
//! ```
//!
//! Read: the module's top-level statements (through `if`, `try` and `with`) and the bodies of
//! its top-level functions that it calls itself without arguments. `setattr(M, "N", V)` and
//! `M.N = V`, with `M` a dotted reference through an import of the file and `V` a name the
//! module defines or imports, give (M's path, `N`, V's path); [`add`] gives `M` the name `N`
//! when `M` is a module of the same package that does not bind `N` itself, and the setting
//! module is imported (through top-level imports, conditional ones too) when `M` or one of its
//! parent packages is. `sys.modules["K"] = X`, `X` being
//! `sys.modules[__name__]` or a local name bound to it, registers `K` as this module.

use std::collections::{HashMap, HashSet};

use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::consts::dotted;
use crate::facts::{FileFacts, Value};
use crate::resolve::ModuleInfo;

/// Statements nested deeper than this are not read.
const MAX_DEPTH: usize = 32;
/// Names set on other modules kept per file.
const MAX_INJECTED: usize = 256;
/// Modules whose imports are followed to decide whether a setting module runs with them, per
/// release (each is one walk of the release's imports).
const MAX_STARTS: usize = 64;

/// What one file sets on other modules and registers as itself.
#[derive(Debug, Default)]
pub(crate) struct Injected {
    /// (module, name, path of the value; empty when unknown).
    pub names: Vec<(String, String, String)>,
    /// Module names registered as this module.
    pub registered: Vec<String>,
}

/// Reads module `module`, whose top-level bindings are `bindings`.
pub(crate) fn read(suite: &[Stmt], bindings: &[(String, Value)], module: &str) -> Injected {
    let mut out = Injected::default();
    let mut top = Vec::new();
    flatten(suite, &mut top, 0);
    let mut last = HashMap::new();
    for (n, v) in bindings {
        last.insert(n.as_str(), v);
    }
    let names = Names { last, module };
    let functions: HashMap<&str, &ast::StmtFunctionDef> = suite
        .iter()
        .filter_map(|s| match s {
            Stmt::FunctionDef(f) => Some((f.name.as_str(), f)),
            _ => None,
        })
        .collect();
    read_block(&top, &names, &mut out);
    // Each function once, however often the module calls it.
    let mut read_functions: HashSet<&str> = HashSet::new();
    for s in &top {
        let Stmt::Expr(e) = s else { continue };
        let Expr::Call(c) = &*e.value else { continue };
        let Expr::Name(n) = &*c.func else { continue };
        if !c.arguments.is_empty() {
            continue;
        }
        if !read_functions.insert(n.id.as_str()) {
            continue;
        }
        if let Some(f) = functions.get(n.id.as_str()) {
            let mut body = Vec::new();
            flatten(&f.body, &mut body, 0);
            read_block(&body, &names, &mut out);
        }
    }
    out.names.truncate(MAX_INJECTED);
    out.registered.truncate(MAX_INJECTED);
    out
}

/// The module's names and what they stand for.
struct Names<'a> {
    /// The last top-level binding of each name.
    last: HashMap<&'a str, &'a Value>,
    module: &'a str,
}

impl Names<'_> {
    /// The last binding of `name` at the module's top level.
    fn binding(&self, name: &str) -> Option<&Value> {
        self.last.get(name).copied()
    }

    /// The module a dotted reference names through an import (`pl.accelerators`).
    fn imported(&self, e: &Expr) -> Option<String> {
        let d = dotted(e)?;
        let (first, rest) = match d.split_once('.') {
            Some((f, r)) => (f, Some(r)),
            None => (d.as_str(), None),
        };
        let base = self.binding(first)?.imported()?;
        Some(match rest {
            Some(r) => format!("{base}.{r}"),
            None => base,
        })
    }

    /// The path of a value: a class or function the module defines, or an import.
    fn value(&self, e: &Expr) -> Option<String> {
        if let Expr::Name(n) = e {
            match self.binding(n.id.as_str())? {
                Value::Class(_) | Value::Function(_) => {
                    return Some(format!("{}.{}", self.module, n.id));
                }
                _ => {}
            }
        }
        self.imported(e)
    }
}

/// The setattr calls, attribute stores and `sys.modules` stores of one block, and those of the
/// `for` loops in it over a literal tuple or list (also through a local name bound to one):
/// lightning's `for module_name, deprecated_name, new_class in classes_map: setattr(getattr(
/// pl.plugins.precision, module_name), deprecated_name, _create_class(...))` sets each
/// element's name (a value the loop builds is unknown).
fn read_block(stmts: &[&Stmt], names: &Names, out: &mut Injected) {
    // Local names bound to this module (`self = sys.modules[__name__]`), and to literal
    // tuples or lists.
    let mut own: Vec<&str> = Vec::new();
    let mut literals: HashMap<&str, &Expr> = HashMap::new();
    let none = HashMap::new();
    for s in stmts {
        match s {
            Stmt::Expr(e) => setattr_call(&e.value, names, &none, out),
            Stmt::Assign(a) => {
                let [target] = &*a.targets else { continue };
                match target {
                    Expr::Name(n) if this_module(&a.value) => own.push(n.id.as_str()),
                    Expr::Name(n) if matches!(&*a.value, Expr::Tuple(_) | Expr::List(_)) => {
                        literals.insert(n.id.as_str(), &a.value);
                    }
                    Expr::Attribute(t) => {
                        store(names, &none, &t.value, t.attr.as_str(), &a.value, out)
                    }
                    Expr::Subscript(sub) => {
                        let is_own = this_module(&a.value)
                            || matches!(&*a.value, Expr::Name(n) if own.contains(&n.id.as_str()));
                        if !is_own || dotted(&sub.value).as_deref() != Some("sys.modules") {
                            continue;
                        }
                        if let Expr::StringLiteral(k) = &*sub.slice {
                            out.registered.push(k.value.to_str().to_string());
                        }
                    }
                    _ => {}
                }
            }
            Stmt::For(f) => {
                let iter = match &*f.iter {
                    Expr::Name(n) => literals.get(n.id.as_str()).copied(),
                    e => Some(e),
                };
                let elements = match iter {
                    Some(Expr::Tuple(t)) => &t.elts,
                    Some(Expr::List(l)) => &l.elts,
                    _ => continue,
                };
                let mut body = Vec::new();
                flatten(&f.body, &mut body, 0);
                for element in elements.iter().take(MAX_INJECTED) {
                    if out.names.len() >= MAX_INJECTED {
                        break;
                    }
                    let mut env: HashMap<&str, &Expr> = HashMap::new();
                    match (&*f.target, element) {
                        (Expr::Name(n), e) => {
                            env.insert(n.id.as_str(), e);
                        }
                        (Expr::Tuple(t), Expr::Tuple(e)) if t.elts.len() == e.elts.len() => {
                            for (name, value) in t.elts.iter().zip(&e.elts) {
                                if let Expr::Name(n) = name {
                                    env.insert(n.id.as_str(), value);
                                }
                            }
                        }
                        _ => continue,
                    }
                    for s in &body {
                        if let Stmt::Expr(e) = s {
                            setattr_call(&e.value, names, &env, out);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// `setattr(m, name, v)`, `m` and `name` read through the loop's `env`.
fn setattr_call(e: &Expr, names: &Names, env: &HashMap<&str, &Expr>, out: &mut Injected) {
    let Expr::Call(c) = e else { return };
    let (Some("setattr"), [m, n, v]) = (dotted(&c.func).as_deref(), &*c.arguments.args) else {
        return;
    };
    if names.binding("setattr").is_some() || !c.arguments.keywords.is_empty() {
        return;
    }
    if let Some(n) = string(n, env) {
        store(names, env, m, &n, v, out);
    }
}

/// A string literal, or a loop variable bound to one.
fn string(e: &Expr, env: &HashMap<&str, &Expr>) -> Option<String> {
    match e {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        Expr::Name(n) => match env.get(n.id.as_str())? {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// `setattr(m, name, v)` / `m.name = v`: `m` an imported module or `getattr(module, name)`;
/// `v` a name the module defines or imports (through the loop's `env`), else unknown (an
/// empty path).
fn store(
    names: &Names,
    env: &HashMap<&str, &Expr>,
    m: &Expr,
    name: &str,
    v: &Expr,
    out: &mut Injected,
) {
    let module = match m {
        Expr::Call(c) if dotted(&c.func).as_deref() == Some("getattr") => {
            match &*c.arguments.args {
                [base, attr] if names.binding("getattr").is_none() => {
                    match (names.imported(base), string(attr, env)) {
                        (Some(b), Some(a)) => format!("{b}.{a}"),
                        _ => return,
                    }
                }
                _ => return,
            }
        }
        m => match names.imported(m) {
            Some(m) => m,
            None => return,
        },
    };
    let v = match v {
        Expr::Name(n) => env.get(n.id.as_str()).copied().unwrap_or(v),
        v => v,
    };
    let value = names.value(v).unwrap_or_default();
    if module != names.module && out.names.len() < MAX_INJECTED {
        out.names.push((module, name.to_string(), value));
    }
}

/// `sys.modules[__name__]`.
fn this_module(e: &Expr) -> bool {
    let Expr::Subscript(s) = e else { return false };
    dotted(&s.value).as_deref() == Some("sys.modules")
        && matches!(&*s.slice, Expr::Name(n) if n.id.as_str() == "__name__")
}

/// The statements of a block, through `if`, `try` and `with` (a loop's body may run any
/// number of times, a `match` case perhaps never).
fn flatten<'s>(body: &'s [Stmt], out: &mut Vec<&'s Stmt>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for s in body {
        if !matches!(s, Stmt::If(_) | Stmt::Try(_) | Stmt::With(_)) {
            out.push(s);
            continue;
        }
        for b in crate::nesting::nested_bodies(s) {
            flatten(b, out, depth + 1);
        }
    }
}

/// Gives modules the names other modules of the release set on them (see the module doc).
pub(crate) fn add(modules: &mut crate::resolve::HashMap<String, ModuleInfo>) {
    let mut wanted: Vec<(&str, &str, &str, &str)> = Vec::new();
    for (setter, info) in modules.iter() {
        for f in &info.files {
            for (target, name, value) in &f.injected {
                wanted.push((target, name, value, setter));
            }
        }
    }
    if wanted.is_empty() {
        return;
    }
    let root = |m: &str| m.split('.').next().unwrap_or(m).to_string();
    let mut reach: HashMap<&str, HashSet<&str>> = HashMap::new();
    let mut added: HashMap<String, Vec<(String, Value)>> = HashMap::new();
    let mut at: HashMap<(&str, &str), usize> = HashMap::new();
    for (target, name, value, setter) in wanted {
        if root(target) != root(setter) {
            continue;
        }
        let Some(info) = modules.get(target) else {
            continue;
        };
        let name_owned = name.to_string();
        if info.files.is_empty() || info.unbound([&name_owned]).is_empty() {
            continue;
        }
        // An empty path: a value the module builds (unknown).
        let bound = match value.rsplit_once('.') {
            Some((vm, vn)) => Value::From {
                module: vm.to_string(),
                name: vn.to_string(),
            },
            None if value.is_empty() => Value::Unknown,
            None => continue,
        };
        // `target` and each of its parent packages, from the top.
        let mut imported = false;
        for i in target
            .match_indices('.')
            .map(|(i, _)| i)
            .chain([target.len()])
        {
            let start = &target[..i];
            if reach.len() >= MAX_STARTS && !reach.contains_key(start) {
                break;
            }
            let seen = reach
                .entry(start)
                .or_insert_with(|| imported_by(modules, start));
            if seen.contains(setter) {
                imported = true;
                break;
            }
        }
        if imported {
            // The last store of a name wins, as at run time.
            let list = added.entry(target.to_string()).or_default();
            match at.get(&(target, name)) {
                Some(&i) => list[i].1 = bound,
                None => {
                    at.insert((target, name), list.len());
                    list.push((name_owned, bound));
                }
            }
        }
    }
    for (target, bindings) in added {
        if let Some(info) = modules.get_mut(&target) {
            info.files.push(FileFacts {
                module: target,
                bindings,
                ..FileFacts::default()
            });
        }
    }
}

/// The modules of the release that importing `start` imports, itself included: through the
/// top-level imports of each (a module imported is imported with its parent packages).
fn imported_by<'m>(
    modules: &'m crate::resolve::HashMap<String, ModuleInfo>,
    start: &str,
) -> HashSet<&'m str> {
    let mut seen: HashSet<&str> = HashSet::new();
    let Some((first, _)) = modules.get_key_value(start) else {
        return seen;
    };
    seen.insert(first.as_str());
    let mut queue = vec![first.as_str()];
    while let Some(m) = queue.pop() {
        let Some(info) = modules.get(m) else { continue };
        for f in &info.files {
            for i in &f.imported_modules {
                let ends = i.match_indices('.').map(|(at, _)| at).chain([i.len()]);
                for end in ends {
                    if let Some((key, _)) = modules.get_key_value(&i[..end]) {
                        if seen.insert(key.as_str()) {
                            queue.push(key.as_str());
                        }
                    }
                }
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use apicompat_surface::Kind;

    use crate::extract;
    use crate::tests::tree;

    /// lightning 2.5.5's `pytorch/_graveyard/tpu.py` (study 53, F-1), imported by
    /// `pytorch/__init__.py`; a module that nothing imports sets nothing.
    #[test]
    fn names_a_module_sets_on_another_at_import_time() {
        let s = extract(
            &tree(&[
                (
                    "pkg/__init__.py",
                    "from pkg.core import Core
",
                ),
                (
                    "pkg/pytorch/__init__.py",
                    "from pkg.pytorch.accelerators import XLA
import pkg.pytorch._graveyard  # noqa
",
                ),
                (
                    "pkg/pytorch/accelerators/__init__.py",
                    "from pkg.pytorch.accelerators.xla import XLA
",
                ),
                (
                    "pkg/pytorch/accelerators/xla.py",
                    "class XLA: ...
",
                ),
                (
                    "pkg/pytorch/_graveyard/__init__.py",
                    "import pkg.pytorch._graveyard.tpu
",
                ),
                (
                    "pkg/pytorch/_graveyard/tpu.py",
                    r#"
import sys
import pkg.pytorch as pl
from pkg.pytorch.accelerators.xla import XLA


def _patch_sys_modules():
    self = sys.modules[__name__]
    sys.modules["pkg.pytorch.accelerators.tpu"] = self


class TPU(XLA): ...


def _patch_classes():
    setattr(pl.accelerators, "TPU", TPU)
    setattr(pl.accelerators, "XLA", TPU)
    pl.accelerators.Alias = XLA


def _not_called():
    setattr(pl.accelerators, "Never", TPU)


def _create_class(name, new_class):
    return type(name, (new_class,), {})


def _patch_loop():
    classes_map = (
        ("xla", "XLAPlugin", XLA),
        ("xla", "Rebuilt", TPU),
    )
    for module_name, deprecated_name, new_class in classes_map:
        deprecated_class = _create_class(deprecated_name, new_class)
        setattr(getattr(pl.accelerators, module_name), deprecated_name, deprecated_class)
        setattr(pl.accelerators, deprecated_name, new_class)
    # The last store wins.
    setattr(pl.accelerators.xla, "Rebuilt", TPU)


_patch_sys_modules()
_patch_classes()
_patch_loop()
"#,
                ),
                (
                    "pkg/core.py",
                    "class Core: ...
",
                ),
                (
                    "pkg/unused.py",
                    "import pkg.core as core
class Late: ...
setattr(core, \"Late\", Late)
",
                ),
            ]),
            "pkg",
            "1.0",
        );
        let kind = |p: &str| s.symbols.get(p).and_then(|x| x.kind);
        assert_eq!(kind("pkg.pytorch.accelerators.TPU"), Some(Kind::Class));
        assert_eq!(kind("pkg.pytorch.accelerators.Alias"), Some(Kind::Class));
        // The module's own binding stays.
        assert_eq!(
            s.symbols["pkg.pytorch.accelerators.XLA"]
                .canonical
                .as_deref(),
            Some("pkg.pytorch.accelerators.xla.XLA")
        );
        assert_eq!(kind("pkg.pytorch.accelerators.tpu"), Some(Kind::Module));
        assert_eq!(kind("pkg.pytorch.accelerators.tpu.TPU"), Some(Kind::Class));
        assert_eq!(kind("pkg.pytorch.accelerators.Never"), None);
        // A loop over a literal tuple: each element's name, its value unknown where the loop
        // builds it, else the value named.
        assert_eq!(
            kind("pkg.pytorch.accelerators.xla.XLAPlugin"),
            Some(Kind::Unknown)
        );
        assert_eq!(
            kind("pkg.pytorch.accelerators.xla.Rebuilt"),
            Some(Kind::Class)
        );
        assert_eq!(
            kind("pkg.pytorch.accelerators.XLAPlugin"),
            Some(Kind::Class)
        );
        assert_eq!(
            s.symbols["pkg.pytorch.accelerators.Rebuilt"]
                .canonical
                .as_deref(),
            Some("pkg.pytorch._graveyard.tpu.TPU")
        );
        // `pkg.unused` is imported by nothing: `pkg.core` does not get `Late`.
        assert_eq!(kind("pkg.core.Late"), None);
    }

    /// A module that calls its patching function 20,000 times and loops over 5,000 names keeps
    /// at most [`super::MAX_INJECTED`] names (each function is read once).
    #[test]
    fn hostile_modules_stay_bounded() {
        let mut src = String::from("import pkg.core as core\n\nclass V: ...\n\ndef patch():\n    setattr(core, \"A\", V)\n\n");
        src.push_str("NAMES = (");
        for i in 0..5000 {
            src.push_str(&format!("\"n{i}\", "));
        }
        src.push_str(")\nfor n in NAMES:\n    setattr(core, n, V)\n");
        for _ in 0..20_000 {
            src.push_str("patch()\n");
        }
        let parsed = ruff_python_parser::parse_module(&src).unwrap();
        let suite = &parsed.syntax().body;
        let facts =
            crate::facts::file_facts("pkg.patcher", false, false, &src, suite, 1 << 20, None);
        let got = super::read(suite, &facts.bindings, "pkg.patcher");
        assert_eq!(got.names.len(), super::MAX_INJECTED);
        assert_eq!(got.names[0].1, "n0");
    }
}
