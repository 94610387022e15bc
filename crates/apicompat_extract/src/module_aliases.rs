//! Module paths a package creates at import time as aliases of its other modules, beyond a
//! literal `sys.modules["pkg.old"] = import_module("pkg.new")` (read in `facts.rs`):
//!
//! - **A registrar function**: a module-level function whose body stores `sys.modules[P] =
//!   ...` for a parameter `P`, called at module level with constant strings. transformers
//!   5.0 to 5.14 (`__init__.py`): `_create_tokenization_alias(f"{__name__}.tokenization_utils",
//!   ".tokenization_utils_sentencepiece")`, whose body builds a module forwarding every name
//!   to `importlib.import_module(target, __name__)`. Each call registers its key; when the
//!   body also imports a parameter `Q` (`import_module(Q, ...)`), the module registered is
//!   the one the call passes as `Q` (relative to the package), else it is unknown.
//! - **A finder with a table**: a module that appends a finder to `sys.meta_path` and binds
//!   a dict literal of strings at module level (transformers 5.24: `_LEGACY_MODULE_ALIASES =
//!   {"tokenization_utils": "tokenization_utils_sentencepiece", ...}` served by
//!   `_LegacyModuleAliasFinder`). Each entry is a candidate alias `pkg.key` -> `pkg.value`,
//!   kept by the resolver only where `pkg.value` is a module of the release and `pkg.key` is
//!   not (`resolve.rs`). What else the finder serves (a pattern) is not read.

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::consts::{self, Const, Env};
use crate::facts::resolve_relative;
use crate::nesting::nested_bodies;

/// Compound statements followed below the module level.
const MAX_DEPTH: usize = 64;
/// Entries read from one table.
const MAX_TABLE: usize = 4096;

/// What a file says: registered module names with the module each is, where known, and the
/// candidate aliases of finder tables.
#[derive(Debug, Default)]
pub struct Aliases {
    pub registered: Vec<(String, Option<String>)>,
    pub table: Vec<(String, String)>,
}

/// A function storing into `sys.modules` under a parameter.
struct Registrar<'a> {
    name: &'a str,
    key: usize,
    target: Option<usize>,
}

/// Reads module `module` (a package's `__init__` when `is_package`).
pub fn read(suite: &[Stmt], module: &str, is_package: bool) -> Aliases {
    let mut out = Aliases::default();
    let mut statements = Vec::new();
    flatten(suite, 0, &mut statements);
    let registrars: Vec<Registrar> = statements
        .iter()
        .filter_map(|s| match s {
            Stmt::FunctionDef(f) => registrar(f),
            _ => None,
        })
        .collect();
    let mut env = Env::new();
    env.insert("__name__".to_string(), Const::Str(vec![module.to_string()]));
    let package = if is_package {
        Some(module.to_string())
    } else {
        resolve_relative(module, false, 1)
    };
    let mut finder = false;
    for stmt in &statements {
        let Stmt::Expr(e) = stmt else {
            continue;
        };
        let Expr::Call(call) = &*e.value else {
            continue;
        };
        let callee = consts::dotted(&call.func);
        if matches!(
            callee.as_deref(),
            Some("sys.meta_path.append" | "sys.meta_path.insert")
        ) {
            finder = true;
            continue;
        }
        let Some(r) = registrars
            .iter()
            .find(|r| callee.as_deref() == Some(r.name))
        else {
            continue;
        };
        let args = &call.arguments.args;
        let Some(key) = args.get(r.key).and_then(|a| consts::string(a, &env)) else {
            continue;
        };
        let target = r
            .target
            .and_then(|q| consts::string(args.get(q)?, &env))
            .and_then(|t| absolute(&t, package.as_deref()));
        out.registered.push((key, target));
    }
    if finder && is_package {
        for stmt in &statements {
            let Stmt::Assign(a) = stmt else {
                continue;
            };
            let ([Expr::Name(_)], Expr::Dict(d)) = (&*a.targets, &*a.value) else {
                continue;
            };
            let entries: Option<Vec<(String, String)>> = d
                .items
                .iter()
                .take(MAX_TABLE)
                .map(|item| {
                    let k = consts::string(item.key.as_ref()?, &env)?;
                    let v = consts::string(&item.value, &env)?;
                    let ident = |s: &str| s.split('.').all(is_identifier);
                    (ident(&k) && ident(&v))
                        .then(|| (format!("{module}.{k}"), format!("{module}.{v}")))
                })
                .collect();
            if let Some(entries) = entries {
                out.table.extend(entries);
            }
        }
    }
    out
}

/// The module-level statements, also inside compound statements (not in functions or
/// classes).
fn flatten<'a>(body: &'a [Stmt], depth: usize, out: &mut Vec<&'a Stmt>) {
    if depth > MAX_DEPTH {
        return;
    }
    for stmt in body {
        out.push(stmt);
        for inner in nested_bodies(stmt) {
            flatten(inner, depth + 1, out);
        }
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// A module name written relative to `package` (`.tokenization_utils_sentencepiece`), made
/// absolute.
fn absolute(name: &str, package: Option<&str>) -> Option<String> {
    let Some(rel) = name.strip_prefix('.') else {
        return Some(name.to_string());
    };
    let dots = rel.len() - rel.trim_start_matches('.').len();
    let base = resolve_relative(package?, true, dots as u32 + 1)?;
    let rest = rel.trim_start_matches('.');
    Some(if rest.is_empty() {
        base
    } else {
        format!("{base}.{rest}")
    })
}

/// `def f(alias, target): ... sys.modules[alias] = m ... import_module(target, ...)`.
fn registrar(f: &ast::StmtFunctionDef) -> Option<Registrar<'_>> {
    let params: Vec<&str> = consts::positional_names(&f.parameters);
    let mut scan = Scan {
        params: &params,
        key: None,
        target: None,
    };
    scan.visit_body(&f.body);
    Some(Registrar {
        name: f.name.as_str(),
        key: scan.key?,
        target: scan.target,
    })
}

struct Scan<'p> {
    params: &'p [&'p str],
    key: Option<usize>,
    target: Option<usize>,
}

impl Scan<'_> {
    fn param(&self, e: &Expr) -> Option<usize> {
        let Expr::Name(n) = e else {
            return None;
        };
        self.params.iter().position(|p| *p == n.id.as_str())
    }
}

impl<'a> Visitor<'a> for Scan<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::Assign(a) = stmt {
            for t in &a.targets {
                if let Expr::Subscript(s) = t {
                    if consts::dotted(&s.value).as_deref() == Some("sys.modules") {
                        if let Some(i) = self.param(&s.slice) {
                            self.key.get_or_insert(i);
                        }
                    }
                }
            }
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr {
            if consts::last_name(&call.func) == Some("import_module") {
                if let Some(i) = call.arguments.args.first().and_then(|a| self.param(a)) {
                    self.target.get_or_insert(i);
                }
            }
        }
        visitor::walk_expr(self, expr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_src(src: &str) -> Aliases {
        let parsed = ruff_python_parser::parse_module(src).expect("parse");
        read(parsed.suite(), "pkg", true)
    }

    #[test]
    fn a_registrar_called_with_constants_registers_each_alias() {
        let got = read_src(
            "\
import importlib, sys, types
if TYPE_CHECKING:
    pass
else:
    def _alias(alias, target):
        module = types.ModuleType(alias)
        def _get():
            return importlib.import_module(target, __name__)
        module.__getattr__ = lambda name: getattr(_get(), name)
        sys.modules[alias] = module
    _alias(f\"{__name__}.old_utils\", \".new_utils\")
    for x in things():
        _alias(f\"{__name__}.models.{x}_fast\", x)
",
        );
        assert_eq!(
            got.registered,
            [(
                "pkg.old_utils".to_string(),
                Some("pkg.new_utils".to_string())
            )]
        );
        assert!(got.table.is_empty());
    }

    #[test]
    fn a_finder_table_gives_candidate_aliases() {
        let got = read_src(
            "\
import sys
_ALIASES = {\"old_utils\": \"new_utils\", \"x\": \"y.z\"}
OTHER = {\"a\": 1}
sys.meta_path.append(_Finder(_resolve))
",
        );
        assert_eq!(
            got.table,
            [
                ("pkg.old_utils".to_string(), "pkg.new_utils".to_string()),
                ("pkg.x".to_string(), "pkg.y.z".to_string()),
            ]
        );
        // Without a finder, a dict of strings is only data.
        let plain = read_src("_ALIASES = {\"old_utils\": \"new_utils\"}\n");
        assert!(plain.table.is_empty());
    }
}
