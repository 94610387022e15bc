//! Tests a class stores on its instances once (nanoGPT's attention, bark's):
//!
//! ```python
//! def __init__(self):
//!     self.flash = hasattr(torch.nn.functional, "scaled_dot_product_attention")
//! def forward(self, q, k, v):
//!     if self.flash:
//!         return torch.nn.functional.scaled_dot_product_attention(q, k, v)
//! ```
//!
//! Where `self.flash` is true, what the test says holds (here: the function exists). An
//! attribute counts only when the class's methods store it exactly once, with a test (or a
//! name bound to one, `self.flash = HAS_FLASH`); it is
//! bound as `self.flash` in every method of that class (by each method's own first
//! parameter). Code outside the class that sets the attribute is not seen (the
//! state facts of `state.rs` are project-wide, but only for version conditions).

use std::rc::Rc;

use apicompat_extract::nesting::nested_bodies;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use super::*;

/// Statements nested deeper than this in a method are not read for stores.
const MAX_DEPTH: usize = 64;
/// Tests bound in each method of a class, at most (each method binds every one: a class of
/// thousands of stored calls would cost methods x stores).
const MAX_TESTS: usize = 64;

impl<'a> Walker<'a> {
    /// Before a class body is walked: the tests its methods store once on the instance,
    /// recorded for each method ([`Walker::bind_instance_tests`]).
    pub(super) fn instance_tests(&mut self, c: &'a ast::StmtClassDef) {
        let mut stores = StoreMap::default();
        let mut methods = Vec::new();
        for stmt in &c.body {
            let Stmt::FunctionDef(f) = stmt else {
                continue;
            };
            let Some(receiver) = receiver(f) else {
                continue;
            };
            methods.push(f.range().start());
            collect_stores(&f.body, receiver, 0, &mut stores);
        }
        let mut tests = Vec::new();
        for (attr, values) in stores.order {
            let [value] = &*values else {
                continue;
            };
            // `self.fused = HAS_FUSED`, a module flag bound to a test: that test.
            if let Expr::Name(n) = value {
                if let Some(b @ Bound::Cond(..)) = self.lookup(n.id.as_str()) {
                    tests.push((false, attr.to_string(), b.clone()));
                }
                continue;
            }
            if !matches!(
                value,
                Expr::Compare(_) | Expr::BoolOp(_) | Expr::UnaryOp(_) | Expr::Call(_)
            ) {
                continue;
            }
            let mut info = self.cond_info(value);
            self.reads_when_true(value, &mut info.reads_true);
            if !info.says_when_true() {
                continue;
            }
            // The result of a package's call (`use_fused_attn()`, also `nn.Linear(...)`) is
            // a test only where the function is a predicate, known once targets are chosen.
            let package_call =
                matches!(value, Expr::Call(call) if self.resolve(&call.func).is_some());
            let bound = Bound::Cond(info.restriction, info.has, info.reads_true);
            tests.push((package_call, attr.to_string(), bound));
        }
        if tests.is_empty() {
            return;
        }
        // Past the cap, the stored tests of other kinds first, then in source order.
        tests.sort_by_key(|t| t.0);
        tests.truncate(MAX_TESTS);
        let tests: Vec<(String, Bound)> = tests.into_iter().map(|(_, a, b)| (a, b)).collect();
        let tests = Rc::new(tests);
        for at in methods {
            self.instance_tests.insert(at, Rc::clone(&tests));
        }
    }

    /// At the start of a method's body: `self.attr` for each test its class stores once.
    pub(super) fn bind_instance_tests(&mut self, f: &ast::StmtFunctionDef) {
        let Some(tests) = self.instance_tests.get(&f.range().start()).cloned() else {
            return;
        };
        let Some(receiver) = receiver(f) else {
            return;
        };
        for (attr, bound) in tests.iter() {
            self.bind(&format!("{receiver}.{attr}"), bound.clone());
        }
    }
}

/// A method's first parameter, unless it is a static or class method.
pub(super) fn receiver(f: &ast::StmtFunctionDef) -> Option<&str> {
    let special = f.decorator_list.iter().any(|d| {
        matches!(&d.expression, Expr::Name(n) if matches!(n.id.as_str(), "staticmethod" | "classmethod"))
    });
    if special {
        return None;
    }
    let p = f
        .parameters
        .posonlyargs
        .iter()
        .chain(&f.parameters.args)
        .next()?;
    Some(p.name().as_str())
}

/// `receiver.attr = value` (also annotated and augmented stores) in `body`, outside nested
/// functions and classes.
fn collect_stores<'a>(body: &'a [Stmt], receiver: &str, depth: usize, out: &mut StoreMap<'a>) {
    if depth > MAX_DEPTH {
        return;
    }
    let on_receiver = |t: &'a Expr| -> Option<&'a str> {
        match t {
            Expr::Attribute(a) if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == receiver) => {
                Some(a.attr.as_str())
            }
            _ => None,
        }
    };
    for stmt in body {
        match stmt {
            Stmt::Assign(a) => {
                for t in &a.targets {
                    let targets: Vec<&Expr> = match t {
                        Expr::Tuple(tu) => tu.elts.iter().collect(),
                        Expr::List(l) => l.elts.iter().collect(),
                        t => vec![t],
                    };
                    let unpacked = !matches!(t, Expr::Attribute(_));
                    for t in targets {
                        if let Some(attr) = on_receiver(t) {
                            out.push(attr, &a.value);
                            // A store from unpacking is some value, never a test read here:
                            // recorded twice so the attribute does not count.
                            if unpacked {
                                out.push(attr, &a.value);
                            }
                        }
                    }
                }
            }
            Stmt::AnnAssign(a) => {
                if let (Some(attr), Some(value)) = (on_receiver(&a.target), &a.value) {
                    out.push(attr, value);
                }
            }
            Stmt::AugAssign(a) => {
                if let Some(attr) = on_receiver(&a.target) {
                    out.push(attr, &a.value);
                    out.push(attr, &a.value);
                }
            }
            _ => {}
        }
        for inner in nested_bodies(stmt) {
            collect_stores(inner, receiver, depth + 1, out);
        }
    }
}

/// The stores of each attribute, in the order first seen.
#[derive(Default)]
struct StoreMap<'a> {
    order: Vec<(&'a str, Vec<&'a Expr>)>,
    at: HashMap<&'a str, usize>,
}

impl<'a> StoreMap<'a> {
    fn push(&mut self, attr: &'a str, value: &'a Expr) {
        match self.at.get(attr) {
            Some(&i) => self.order[i].1.push(value),
            None => {
                self.at.insert(attr, self.order.len());
                self.order.push((attr, vec![value]));
            }
        }
    }
}
