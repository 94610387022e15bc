//! Module-level version flags read in other modules.
//!
//! ```python
//! # peft/import_utils.py
//! is_transformers_ge_v5_4_0 = packaging.version.parse(transformers.__version__) >= packaging.version.parse("5.4.0")
//!
//! # peft/tuners/lora/layer.py
//! from peft.import_utils import is_transformers_ge_v5_4_0
//! if not is_transformers_ge_v5_4_0:
//!     raise RuntimeError("needs transformers >= 5.4.0")
//! from transformers.integrations.tensor_parallel import ALL_PARALLEL_STYLES   # >= 5.4.0 only
//! ```
//!
//! A name a module binds at top level to a complete version condition is exported like a
//! version helper ([`VersionHelper::flag`]); a module that imports the name from the project
//! (or from anywhere outside the indexed packages) and reads it as a condition gets that
//! condition, negation included, once every file is read. Known by name, as helpers are: two
//! modules binding the name differently, or one binding it to something else too, give no
//! condition.
//!
//! A flag set in both branches of `try: import triton; TRITON3 = parse(triton.__version__) >=
//! parse("3.0.0") except ImportError: TRITON3 = False` is still a flag
//! ([`Walker::fallback_flag`]): the handler's `False` (or `None`) adds only the case where the
//! `try` failed, where the flag is false, so the flag true still implies the condition. Its
//! negation holds too when every import of the `try` body is of the flag's own package: then
//! the failure is that package's absence, where no release of it runs.

use super::*;
use crate::versions::FLAG_REF;

impl<'a> Walker<'a> {
    /// Records a module-level binding of `name`: a flag when `info` is a complete version
    /// condition about one package, else a binding that keeps the name from being one.
    pub(super) fn module_binding(&mut self, name: &str, info: Option<&CondInfo>) {
        if self.scopes.len() != 1 {
            return;
        }
        let flag = info
            .filter(|i| i.restriction.complete && !i.restriction.parts.is_empty())
            .and_then(|i| implying(i.restriction.parts.clone()))
            .map(|mut h| {
                h.exact = true;
                h.flag = true;
                h
            });
        let seen = self.flag_names.contains(name);
        match flag {
            Some(h) => {
                self.flag_names.insert(name.to_string());
                self.out.helpers.push((name.to_string(), Some(h)));
            }
            // Bound to something else as well: not a flag.
            None if seen => self.out.helpers.push((name.to_string(), None)),
            None => {}
        }
    }

    /// A name read as a condition that this module imports from outside the indexed packages
    /// (and no enclosing function binds, other than by such an import): the flag of that
    /// name, resolved once every file is read.
    pub(super) fn flag_ref(&self, name: &str) -> Option<CondInfo> {
        if !self.imported_here(name) {
            return None;
        }
        let call = HelperCall {
            args: FLAG_REF,
            ..HelperCall::default()
        };
        Some(CondInfo {
            restriction: Restriction {
                parts: vec![(
                    HELPER_ROOT.to_string(),
                    Pred::Helper {
                        name: name.to_string(),
                        call,
                    },
                )],
                complete: true,
            },
            ..CondInfo::default()
        })
    }
}

impl Walker<'_> {
    /// A name of an indexed package read as a condition: its flag, if the index has one
    /// (`crate::indexed_helpers`), resolved once every file is read.
    pub(super) fn indexed_flag_ref(&self, path: &str) -> CondInfo {
        let call = HelperCall {
            args: FLAG_REF,
            ..HelperCall::default()
        };
        let name = format!("{INDEXED_CALL}{path}");
        CondInfo {
            restriction: Restriction {
                parts: vec![(HELPER_ROOT.to_string(), Pred::Helper { name, call })],
                complete: true,
            },
            ..CondInfo::default()
        }
    }

    /// Whether `name`, read here, holds what an import from outside the indexed packages
    /// bound. The innermost function (or comprehension) binding the name decides: a local
    /// hides it, unless the function binds it only by importing it from the project (`from
    /// pkg.utils import TORCH_2_9` in the body: the same name).
    pub(super) fn imported_here(&self, name: &str) -> bool {
        if !self.imported.contains(name) {
            return false;
        }
        let binder = self.scopes.iter().skip(1).rev().find(|s| {
            s.kind != ScopeKind::Class && (s.locals.contains(name) || s.names.contains_key(name))
        });
        binder.is_none_or(|s| s.imported_only.contains(name))
    }

    /// `except ImportError: torch = import_execstack("torch", ...)` in a handler that does not
    /// raise again, after `import torch` failed: another way of loading the same package
    /// (a call given its name), so the name keeps the package's binding (ultralytics'
    /// `utils/__init__.py`, `docs/false-alarm-study-14.md`). The handler runs only where the
    /// import failed; on every release checked, the import bound the name.
    pub(super) fn fallback_loader(&self, name: &str, value: &Expr) -> bool {
        if !self.ctx.fallback {
            return false;
        }
        let Some(Bound::Path { path, .. }) = self.lookup(name) else {
            return false;
        };
        let Expr::Call(call) = value else {
            return false;
        };
        call.arguments
            .args
            .iter()
            .any(|a| string_lit(a).is_some_and(|s| s == *path))
    }

    /// `except ImportError: FLAG = False` (or `None`) in a handler that does not raise again,
    /// where `FLAG` is bound to a version condition: the binding stays a condition, one way only
    /// (true implies it) unless every import of the `try` body is of the condition's package.
    /// Any other value set in a handler, or anywhere else, still unbinds the flag.
    pub(super) fn fallback_flag(&mut self, name: &str, value: &Expr) -> bool {
        let falsy =
            matches!(value, Expr::BooleanLiteral(b) if !b.value) || value.is_none_literal_expr();
        if !self.ctx.fallback || !falsy {
            return false;
        }
        let Some(imports) = self.ctx.handler_imports.clone() else {
            return false;
        };
        let module_level = self.scopes.len() == 1;
        let Some(scope) = self.binding_scope(name) else {
            return false;
        };
        let Some(Bound::Cond(r, _, _)) = scope.names.get_mut(name) else {
            return false;
        };
        let Some(root) = r.parts.first().map(|(p, _)| p.clone()) else {
            return false;
        };
        if !r.complete || r.parts.iter().any(|(p, _)| *p != root) {
            return false;
        }
        let exact =
            root != HELPER_ROOT && !imports.is_empty() && imports.iter().all(|m| *m == root);
        r.complete = exact;
        if module_level && !exact {
            let own = self.out.helpers.iter_mut().rev().find(|(n, _)| n == name);
            if let Some((_, Some(h))) = own.filter(|(_, h)| h.as_ref().is_some_and(|h| h.flag)) {
                h.exact = false;
            }
        }
        true
    }
}

/// The top-level modules the import statements of a block import (`.` for a relative one),
/// not looking into functions or classes.
pub(super) fn imported_roots(body: &[Stmt]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut stack: Vec<&Stmt> = body.iter().rev().collect();
    while let Some(stmt) = stack.pop() {
        match stmt {
            Stmt::Import(i) => out.extend(
                i.names
                    .iter()
                    .map(|a| a.name.as_str().split('.').next().unwrap_or("").to_string()),
            ),
            Stmt::ImportFrom(i) => out.push(match (&i.module, i.level) {
                (Some(m), 0) => m.as_str().split('.').next().unwrap_or("").to_string(),
                _ => ".".to_string(),
            }),
            Stmt::If(s) => {
                stack.extend(s.body.iter().rev());
                for c in &s.elif_else_clauses {
                    stack.extend(c.body.iter().rev());
                }
            }
            Stmt::With(w) => stack.extend(w.body.iter().rev()),
            Stmt::For(f) => stack.extend(f.body.iter().chain(&f.orelse).rev()),
            Stmt::While(w) => stack.extend(w.body.iter().chain(&w.orelse).rev()),
            Stmt::Try(t) => {
                stack.extend(t.body.iter().chain(&t.orelse).chain(&t.finalbody).rev());
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    stack.extend(h.body.iter().rev());
                }
            }
            _ => {}
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
