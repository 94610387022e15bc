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
//!
//! Closed for writes: when `f` also sets `param.__class__ = C`, `C` a class of the same file
//! (module level or in `f`'s body) whose own or same-file bases' `__setattr__` raises
//! `AttributeError`, `M` gets `__setattr__` (a function): assigning a name the module lacks
//! fails at run time, so `check` judges `M.name = value` like a read. torch's
//! `install_config_module` sets `ConfigModuleInstance(ConfigModule)`, whose `__setattr__`
//! raises `AttributeError(f"{self.__name__}.{name} does not exist")` for a key the config
//! module does not define.

use std::collections::BTreeMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};

use apicompat_surface::{Kind, Symbol};

use crate::consts;
use crate::facts::{is_this_module, Value};
use crate::resolve::{HashMap, ModuleInfo};

/// Statements nested deeper than this are not read.
const MAX_DEPTH: usize = 200;
/// Same-file bases followed from the class set as `__class__`.
const MAX_BASES: usize = 16;
/// The name that makes a module closed for writes.
pub const SETATTR: &str = "__setattr__";

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
    let module_classes = classes(suite);
    for stmt in suite {
        match stmt {
            Stmt::FunctionDef(f) => {
                let Some(first) = f.parameters.iter_non_variadic_params().next() else {
                    continue;
                };
                let mut s = Stores {
                    param: first.parameter.name.as_str(),
                    names: Vec::new(),
                    class: None,
                    depth: 0,
                };
                s.visit_body(&f.body);
                if let Some(class) = s.class.take() {
                    let mut local = classes(&f.body);
                    local.extend(module_classes.iter().cloned());
                    if refuses_new_names(&class, &local) {
                        s.names.push(SETATTR.to_string());
                    }
                }
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

/// A class of a suite: its name, its bases written as plain names, and whether its
/// `__setattr__` raises `AttributeError`.
type ClassInfo = (String, Vec<String>, bool);

/// The classes a suite defines at its top level.
fn classes(suite: &[Stmt]) -> Vec<ClassInfo> {
    suite
        .iter()
        .filter_map(|stmt| {
            let Stmt::ClassDef(c) = stmt else { return None };
            let bases = c
                .bases()
                .iter()
                .filter_map(|b| match b {
                    Expr::Name(n) => Some(n.id.to_string()),
                    _ => None,
                })
                .collect();
            let refuses = c.body.iter().any(|s| {
                matches!(s, Stmt::FunctionDef(f) if f.name.as_str() == SETATTR && raises_attribute_error(&f.body))
            });
            Some((c.name.to_string(), bases, refuses))
        })
        .collect()
}

/// Whether `class` or a base found among `classes` (by name, breadth first) refuses names.
fn refuses_new_names(class: &str, classes: &[ClassInfo]) -> bool {
    let mut queue = vec![class.to_string()];
    let mut seen = 0;
    while let Some(name) = queue.pop() {
        seen += 1;
        if seen > MAX_BASES {
            return false;
        }
        let Some((_, bases, refuses)) = classes.iter().find(|(n, _, _)| *n == name) else {
            continue;
        };
        if *refuses {
            return true;
        }
        queue.extend(bases.iter().cloned());
    }
    false
}

/// Whether a body raises `AttributeError` (`raise AttributeError(...)`, at any depth).
fn raises_attribute_error(body: &[Stmt]) -> bool {
    struct Raises {
        found: bool,
        depth: usize,
    }
    impl<'a> Visitor<'a> for Raises {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if self.found || self.depth > MAX_DEPTH {
                return;
            }
            if let Stmt::Raise(r) = stmt {
                let exc = match r.exc.as_deref() {
                    Some(Expr::Call(c)) => Some(&*c.func),
                    other => other,
                };
                if matches!(exc, Some(Expr::Name(n)) if n.id.as_str() == "AttributeError") {
                    self.found = true;
                }
            }
            self.depth += 1;
            visitor::walk_stmt(self, stmt);
            self.depth -= 1;
        }
        fn visit_expr(&mut self, _expr: &'a Expr) {}
    }
    let mut r = Raises {
        found: false,
        depth: 0,
    };
    r.visit_body(body);
    r.found
}

struct Stores<'p> {
    param: &'p str,
    names: Vec<String>,
    /// `param.__class__ = C`: `C`.
    class: Option<String>,
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
                    if on_param && name == "__class__" {
                        if let Expr::Name(c) = &*a.value {
                            self.class = Some(c.id.to_string());
                        }
                    } else if on_param && !(name.starts_with("__") && name.ends_with("__")) {
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
        let kind = if path.ends_with(&format!(".{SETATTR}")) {
            Kind::Function
        } else {
            Kind::Attribute
        };
        symbols.entry(path).or_insert_with(|| Symbol {
            kind: Some(kind),
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
    use apicompat_surface::Kind;

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
        // `object` refuses nothing: writes stay open.
        assert!(!has("torch._dynamo.config.__setattr__"));
        assert!(!has("torch._dynamo.config._not"));
        // Not passed itself: nothing installed.
        assert!(!has("torch._dynamo.other._config"));
    }

    /// torch 2.4's `torch/utils/_config_module.py`: the module's class becomes a local
    /// subclass of a class whose `__setattr__` raises `AttributeError`.
    #[test]
    fn a_class_that_refuses_new_names_closes_the_module_for_writes() {
        let installer = "from types import ModuleType\n\
            def install_config_module(module):\n    class ConfigModuleInstance(ConfigModule):\n        pass\n    module._config = {}\n    module.__class__ = ConfigModuleInstance\n\
            class ConfigModule(ModuleType):\n    def __setattr__(self, name, value):\n        if name not in self._allowed_keys:\n            raise AttributeError(f'{name} does not exist')\n        self._config[name] = value\n\
            def lenient(module):\n    class Open(ModuleType):\n        def __setattr__(self, name, value):\n            object.__setattr__(self, name, value)\n    module.__class__ = Open\n";
        let s = crate::extract(
            &tree(&[
                ("torch/__init__.py", ""),
                ("torch/utils/__init__.py", ""),
                ("torch/utils/_config_module.py", installer),
                (
                    "torch/config.py",
                    "import sys\nfrom torch.utils._config_module import install_config_module\nflag = True\ninstall_config_module(sys.modules[__name__])\n",
                ),
                (
                    "torch/other.py",
                    "import sys\nfrom torch.utils._config_module import lenient\nlenient(sys.modules[__name__])\n",
                ),
            ]),
            "torch",
            "2.4.0",
        );
        let setattr = &s.symbols["torch.config.__setattr__"];
        assert_eq!(setattr.kind, Some(Kind::Function));
        assert!(s.symbols.contains_key("torch.config._config"));
        assert!(!s.symbols.contains_key("torch.other.__setattr__"));
    }
}
