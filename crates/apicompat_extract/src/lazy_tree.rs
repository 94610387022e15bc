//! A lazy module whose table a call reads from the module's own directory.
//!
//! transformers 4.52+ (`__init__.py` of the package, of `models` and of each model):
//!
//! ```python
//! if TYPE_CHECKING:
//!     from .configuration_bert import *
//!     from .modeling_bert import *
//! else:
//!     import sys
//!     _file = globals()["__file__"]
//!     sys.modules[__name__] = _LazyModule(__name__, _file, define_import_structure(_file), module_spec=__spec__)
//! ```
//!
//! `define_import_structure` lists the `__all__` of every `.py` file under the directory it is
//! given (subdirectories too), and the lazy module answers those names. The table is built by
//! a call the extraction does not read, so such a module used to be open: every name unknown,
//! and a name a release removed (`transformers.AdamW` after 4.51) was never reported.
//!
//! Rule: a module that registers itself with a table built by a call whose first argument is
//! a path in its own directory (`__file__`, a name bound to `globals()["__file__"]`,
//! `Path(__file__).parent`, `os.path.dirname(__file__)`, then `/ "sub"` or
//! `os.path.join(..., "sub")`) is closed on what it binds (its `if TYPE_CHECKING:`
//! declarations among them), the names of a written table merged into that table
//! (`crate::lazy::merged`: transformers 5.24's top level lists `Mxfp4Config` there and not
//! under `TYPE_CHECKING`), its `extra_objects`, and the public names of every module under
//! that directory, as star imports ([`expand`]),
//! which replace the module's own star imports (the lazy module replaced it: 4.52's
//! `models/bamba/__init__.py` star-imports a `processing_bamba` that does not exist, under
//! `if TYPE_CHECKING:` only). More names than the call lists (a file without `__all__` gives
//! its public names, the names the module binds itself) only leave uses unreported.

use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::consts;
use crate::resolve::{HashMap, ModuleInfo};

/// The package under whose directory the registered table is read, when the module body
/// registers itself with a table a call builds from a path in its own directory.
pub(crate) fn tree_table(suite: &[Stmt], module: &str, is_package: bool) -> Option<String> {
    let (statements, call) = crate::lazy::registered(suite)?;
    // Names assigned once at module level: name -> value.
    let mut assigned: HashMap<&str, Option<&Expr>> = HashMap::default();
    for s in &statements {
        if let Stmt::Assign(a) = s {
            if let [Expr::Name(n)] = &a.targets[..] {
                assigned
                    .entry(n.id.as_str())
                    .and_modify(|v| *v = None)
                    .or_insert(Some(&a.value));
            }
        }
    }
    let value_of = |e: &'_ Expr| -> Option<Expr> {
        match e {
            Expr::Name(n) => assigned.get(n.id.as_str()).copied().flatten().cloned(),
            e => Some(e.clone()),
        }
    };
    let mut tables = call
        .arguments
        .args
        .iter()
        .filter_map(|a| match value_of(a)? {
            Expr::Call(c) if !is_globals_call(&c.func) => Some(c),
            _ => None,
        });
    let table = tables.next()?;
    if tables.next().is_some() {
        return None;
    }
    let first = table.arguments.args.first()?;
    let dir = directory(first, &value_of, 0)?;
    let base = if is_package {
        module.to_string()
    } else {
        module.rsplit_once('.')?.0.to_string()
    };
    Some(
        std::iter::once(base)
            .chain(dir)
            .collect::<Vec<_>>()
            .join("."),
    )
}

/// Most steps of a path expression followed.
const MAX_PATH_DEPTH: usize = 16;

/// The subdirectories below the module's own directory a path expression names.
fn directory(
    e: &Expr,
    value_of: &dyn Fn(&Expr) -> Option<Expr>,
    depth: usize,
) -> Option<Vec<String>> {
    if depth > MAX_PATH_DEPTH {
        return None;
    }
    let d = depth + 1;
    if is_file(e, value_of, d) {
        return Some(Vec::new());
    }
    match e {
        Expr::Name(_) => directory(&value_of(e)?, value_of, d),
        // `Path(__file__).parent`
        Expr::Attribute(a) if a.attr.as_str() == "parent" => {
            let Expr::Call(c) = &*a.value else {
                return None;
            };
            let last = consts::dotted(&c.func)?;
            let ([arg], true) = (
                &c.arguments.args[..],
                last.rsplit('.').next() == Some("Path"),
            ) else {
                return None;
            };
            is_file(arg, value_of, d).then(Vec::new)
        }
        // `os.path.dirname(__file__)`, `os.path.join(dir, "sub")`
        Expr::Call(c) => {
            let f = consts::dotted(&c.func)?;
            match (f.as_str(), &c.arguments.args[..]) {
                ("os.path.dirname", [arg]) => is_file(arg, value_of, d).then(Vec::new),
                ("os.path.join", [dir, rest @ ..]) if !rest.is_empty() => {
                    let mut out = directory(dir, value_of, d)?;
                    for r in rest {
                        out.push(segment(r)?);
                    }
                    Some(out)
                }
                _ => None,
            }
        }
        // `dir / "sub"`
        Expr::BinOp(b) if b.op == ast::Operator::Div => {
            let mut out = directory(&b.left, value_of, d)?;
            out.push(segment(&b.right)?);
            Some(out)
        }
        _ => None,
    }
}

/// `__file__`, or a name bound to it or to `globals()["__file__"]`.
fn is_file(e: &Expr, value_of: &dyn Fn(&Expr) -> Option<Expr>, depth: usize) -> bool {
    if depth > MAX_PATH_DEPTH {
        return false;
    }
    match e {
        Expr::Name(n) if n.id.as_str() == "__file__" => true,
        Expr::Name(_) => value_of(e).is_some_and(|v| is_file(&v, value_of, depth + 1)),
        Expr::Subscript(s) => {
            matches!(&*s.value, Expr::Call(c) if is_globals_call(&c.func))
                && matches!(&*s.slice, Expr::StringLiteral(l) if l.value.to_str() == "__file__")
        }
        _ => false,
    }
}

fn is_globals_call(f: &Expr) -> bool {
    matches!(f, Expr::Name(n) if n.id.as_str() == "globals")
}

/// A directory name: a string literal that is a plain identifier.
fn segment(e: &Expr) -> Option<String> {
    let Expr::StringLiteral(s) = e else {
        return None;
    };
    let s = s.value.to_str();
    (!s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| s.to_string())
}

/// Adds, to each file that reads a directory's table, a star import of every source module
/// under that directory's package (sorted, so the output does not depend on hashing).
pub(crate) fn expand(modules: &mut HashMap<String, ModuleInfo>) {
    let wanted: Vec<String> = modules
        .values()
        .flat_map(|m| m.files.iter().flat_map(|f| f.tree_stars.iter().cloned()))
        .collect();
    if wanted.is_empty() {
        return;
    }
    let mut names: Vec<&String> = modules
        .iter()
        .filter(|(_, m)| m.has_source)
        .map(|(n, _)| n)
        .collect();
    names.sort();
    let mut under: HashMap<String, Vec<String>> = HashMap::default();
    for pkg in wanted {
        let prefix = format!("{pkg}.");
        let start = names.partition_point(|n| n.as_str() < prefix.as_str());
        let found: Vec<String> = names[start..]
            .iter()
            .take_while(|n| n.starts_with(&prefix))
            .map(|n| n.to_string())
            .collect();
        under.insert(pkg, found);
    }
    for m in modules.values_mut() {
        for f in &mut m.files {
            for pkg in std::mem::take(&mut f.tree_stars) {
                if let Some(found) = under.get(&pkg) {
                    f.stars.extend(found.iter().cloned());
                }
            }
        }
    }
}
