//! The names a scope binds (found before its body is walked), and the fast hasher of the
//! walker's maps.

use std::collections::{HashMap, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};

use super::MAX_DEPTH;

/// Names a function body (or comprehension target) binds, not looking into nested scopes.
#[derive(Default)]
pub(super) struct LocalNames {
    pub(super) names: FxSet<String>,
    pub(super) globals: FxSet<String>,
    pub(super) depth: usize,
    /// Whether an expression may bind a name (`:=`); else only targets are looked into.
    pub(super) walrus: bool,
}

impl<'a> Visitor<'a> for LocalNames {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.local_stmt(stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.local_expr(expr);
        self.depth -= 1;
    }
}

impl LocalNames {
    fn local_stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                self.names.insert(f.name.to_string());
            }
            Stmt::ClassDef(c) => {
                self.names.insert(c.name.to_string());
            }
            Stmt::Import(imp) => {
                for a in &imp.names {
                    let full = a.name.as_str();
                    let n = a
                        .asname
                        .as_ref()
                        .map_or(full.split('.').next().unwrap_or(full), |n| n.as_str());
                    self.names.insert(n.to_string());
                }
            }
            Stmt::ImportFrom(imp) => {
                for a in &imp.names {
                    self.names
                        .insert(a.asname.as_ref().unwrap_or(&a.name).to_string());
                }
            }
            Stmt::Global(g) => self.globals.extend(g.names.iter().map(|n| n.to_string())),
            Stmt::Nonlocal(g) => self.globals.extend(g.names.iter().map(|n| n.to_string())),
            Stmt::Try(t) => {
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(n) = &h.name {
                        self.names.insert(n.to_string());
                    }
                }
                visitor::walk_stmt(self, stmt);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn local_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Name(n) if n.ctx != ExprContext::Load => {
                self.names.insert(n.id.to_string());
            }
            Expr::Name(_)
            | Expr::Lambda(_)
            | Expr::ListComp(_)
            | Expr::SetComp(_)
            | Expr::DictComp(_)
            | Expr::Generator(_) => {}
            // Targets: `a, *b = ...`, `for (i, x) in ...`.
            Expr::Tuple(_) | Expr::List(_) | Expr::Starred(_) => visitor::walk_expr(self, expr),
            _ if self.walrus => visitor::walk_expr(self, expr),
            // A value without `:=` binds nothing.
            _ => {}
        }
    }
}

/// The multiply-rotate hash of rustc (`FxHasher`): the scopes' small string keys hash several
/// times faster than with SipHash, and no key here comes from an adversary who could gain
/// from collisions.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

impl FxHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

type FxBuild = std::hash::BuildHasherDefault<FxHasher>;

/// A 32-bit key for a name (its `FxHasher` hash). Two names may share a key: users of keys
/// must stay correct, only less precise, when they do.
pub(crate) fn name_key(name: &str) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut h = FxHasher::default();
    name.hash(&mut h);
    let x = h.finish();
    (x ^ (x >> 32)) as u32
}
pub(crate) type FxMap<K, V> = HashMap<K, V, FxBuild>;
pub(crate) type FxSet<K> = HashSet<K, FxBuild>;
