//! Names a function of the release sets on a module that hands itself to it at import time.
//!
//! torch's config modules end with `install_config_module(sys.modules[__name__])`, and
//! `install_config_module(module)` (`torch/_dynamo/config_utils.py` in 2.1,
//! `torch/utils/_config_module.py` later) sets `module._config`, `module._default`,
//! `module._allowed_keys`: names of `torch._dynamo.config` at run time that no line of the
//! module binds. Rule: a module-level call `f(sys.modules[__name__], ...)` in module `M`, where
//! `f` is a module-level function of the release (defined in `M` or imported by
//! `from D import f`), binds in `M` every name `f` assigns on its first parameter
//! (`param.name = ...`, at any depth of its body).

use std::collections::BTreeMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};

use apicompat_surface::{Kind, Symbol};

use crate::consts;
use crate::facts::{is_this_module, Value};
use crate::resolve::{HashMap, ModuleInfo};

/// Statements nested deeper than this are not read.
const MAX_DEPTH: usize = 200;

/// What one file says for this rule.
#[derive(Debug, Default, Clone)]
pub struct Installed {
    /// Module-level functions and the names they assign on their first parameter.
    pub stores: Vec<(String, Vec<String>)>,
    /// Callees (dotted, as written) of module-level calls that pass `sys.modules[__name__]`
    /// first.
    pub installs: Vec<String>,
}

/// Reads one parsed file.
pub fn read(suite: &[Stmt]) -> Installed {
    let mut out = Installed::default();
    for stmt in suite {
        match stmt {
            Stmt::FunctionDef(f) => {
                let Some(first) = f.parameters.iter_non_variadic_params().next() else {
                    continue;
                };
                let mut s = Stores {
                    param: first.parameter.name.as_str(),
                    names: Vec::new(),
                    depth: 0,
                };
                s.visit_body(&f.body);
                if !s.names.is_empty() {
                    out.stores.push((f.name.to_string(), s.names));
                }
            }
            Stmt::Expr(e) => {
                if let Expr::Call(c) = &*e.value {
                    let passes_self = c.arguments.args.first().is_some_and(is_this_module);
                    if let (true, Some(callee)) = (passes_self, consts::dotted(&c.func)) {
                        out.installs.push(callee);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

struct Stores<'p> {
    param: &'p str,
    names: Vec<String>,
    depth: usize,
}

impl<'a> Visitor<'a> for Stores<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth > MAX_DEPTH {
            return;
        }
        if let Stmt::Assign(a) = stmt {
            for t in &a.targets {
                if let Expr::Attribute(at) = t {
                    let on_param =
                        matches!(&*at.value, Expr::Name(n) if n.id.as_str() == self.param);
                    let name = at.attr.as_str();
                    // `module.__class__ = ...` changes the type, not the names.
                    if on_param && !(name.starts_with("__") && name.ends_with("__")) {
                        self.names.push(name.to_string());
                    }
                }
            }
        }
        self.depth += 1;
        visitor::walk_stmt(self, stmt);
        self.depth -= 1;
    }

    // Expressions hold no assignment statements (nested functions aside).
    fn visit_expr(&mut self, _expr: &'a Expr) {}
}

/// Adds to `symbols` the names installed on modules (`installed`: per module, what its files
/// say).
pub fn apply(
    symbols: &mut BTreeMap<String, Symbol>,
    modules: &HashMap<String, ModuleInfo>,
    installed: &HashMap<String, Installed>,
) {
    let mut found: Vec<String> = Vec::new();
    for (module, info) in installed {
        for callee in &info.installs {
            if let Some(names) = stores_of(module, callee, modules, installed) {
                found.extend(names.iter().map(|n| format!("{module}.{n}")));
            }
        }
    }
    for path in found {
        symbols.entry(path).or_insert_with(|| Symbol {
            kind: Some(Kind::Attribute),
            ..Symbol::default()
        });
    }
}

/// What the function `callee` (as written in `module`) assigns on its first parameter.
fn stores_of<'a>(
    module: &str,
    callee: &str,
    modules: &HashMap<String, ModuleInfo>,
    installed: &'a HashMap<String, Installed>,
) -> Option<&'a Vec<String>> {
    let find = |m: &str, name: &str| {
        installed
            .get(m)?
            .stores
            .iter()
            .find(|(f, _)| f == name)
            .map(|(_, names)| names)
    };
    if let Some(names) = find(module, callee) {
        return Some(names);
    }
    let binding = modules
        .get(module)?
        .files
        .iter()
        .flat_map(|f| f.bindings.iter())
        .find(|(n, _)| n == callee)?;
    match &binding.1 {
        Value::From { module: from, name } => find(from, name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::tree;

    /// torch 2.1's `torch/_dynamo/config.py` and `config_utils.py`.
    #[test]
    fn names_a_function_sets_on_the_module_passed_to_it() {
        let s = crate::extract(
            &tree(&[
                ("torch/__init__.py", ""),
                ("torch/_dynamo/__init__.py", ""),
                (
                    "torch/_dynamo/config_utils.py",
                    "def install_config_module(module):\n    config = {}\n    if True:\n        module._config = config\n    module._allowed_keys = set()\n    module.__class__ = object\n    other._not = 1\n",
                ),
                (
                    "torch/_dynamo/config.py",
                    "import sys\nfrom .config_utils import install_config_module\nverbose = False\ninstall_config_module(sys.modules[__name__])\n",
                ),
                (
                    "torch/_dynamo/other.py",
                    "from .config_utils import install_config_module\ninstall_config_module(object())\n",
                ),
            ]),
            "torch",
            "2.1.2",
        );
        let has = |p: &str| s.symbols.contains_key(p);
        assert!(has("torch._dynamo.config._config"));
        assert!(has("torch._dynamo.config._allowed_keys"));
        assert!(has("torch._dynamo.config.verbose"));
        assert!(!has("torch._dynamo.config.__class__"));
        assert!(!has("torch._dynamo.config._not"));
        // Not passed itself: nothing installed.
        assert!(!has("torch._dynamo.other._config"));
    }
}
