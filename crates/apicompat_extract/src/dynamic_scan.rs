//! Function bodies at module level that bind module names dynamically: `globals()[k] = v`,
//! `setattr(sys.modules[__name__], k, v)`, `__all__` mutated, the module replacing itself in
//! `sys.modules` (read by `facts::Walker::scan_dynamic`).

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};

use crate::consts;
use crate::facts::is_dunder_name;

pub(crate) enum Dynamic<'a> {
    Globals(&'a Expr),
    /// `__all__.append(...)` / `.extend(...)` in a function: the module's `__all__` grows at
    /// run time (numpy 1.2x's `numpy.core.numeric.extend_all`).
    AllMutated,
    /// `setattr(<this module>, key, value)`.
    SetAttrOnSelf(&'a Expr),
    ReplaceSelf,
}

pub(crate) struct DynamicScan<'a> {
    pub(crate) found: Vec<Dynamic<'a>>,
    /// Local names bound to `sys.modules[__name__]`.
    pub(crate) aliases: Vec<String>,
}

/// `sys.modules[__name__]`.
pub(crate) fn is_this_module(e: &Expr) -> bool {
    matches!(e, Expr::Subscript(s)
        if consts::dotted(&s.value).as_deref() == Some("sys.modules") && is_dunder_name(&s.slice))
}

impl<'a> Visitor<'a> for DynamicScan<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::Assign(a) = stmt {
            if is_this_module(&a.value) {
                for t in &a.targets {
                    if let Expr::Name(n) = t {
                        self.aliases.push(n.id.to_string());
                    }
                }
            }
            for t in &a.targets {
                if let Expr::Subscript(s) = t {
                    match &*s.value {
                        Expr::Call(c)
                            if c.arguments.args.is_empty()
                                && matches!(
                                    consts::dotted(&c.func).as_deref(),
                                    Some("globals" | "vars")
                                ) =>
                        {
                            self.found.push(Dynamic::Globals(&s.slice));
                        }
                        e if consts::dotted(e).as_deref() == Some("sys.modules")
                            && is_dunder_name(&s.slice) =>
                        {
                            self.found.push(Dynamic::ReplaceSelf);
                        }
                        _ => {}
                    }
                }
            }
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(c) = expr {
            if matches!(
                consts::dotted(&c.func).as_deref(),
                Some("__all__.append" | "__all__.extend" | "__all__.insert")
            ) {
                self.found.push(Dynamic::AllMutated);
            }
            if consts::dotted(&c.func).as_deref() == Some("setattr") {
                if let [obj, key, ..] = c.arguments.args.as_ref() {
                    let on_self = is_this_module(obj)
                        || matches!(obj, Expr::Name(n) if self.aliases.iter().any(|a| a == n.id.as_str()));
                    if on_self {
                        self.found.push(Dynamic::SetAttrOnSelf(key));
                    }
                }
            }
        }
        visitor::walk_expr(self, expr);
    }
}
