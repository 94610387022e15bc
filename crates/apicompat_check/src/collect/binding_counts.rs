//! How many statements of a block bind each name (`flow.rs`: a flag set in one branch only).

use ruff_python_ast::Stmt;

use super::*;

/// Blocks nested deeper than this are not counted: a name bound there counts as bound again.
const MAX_BINDING_DEPTH: usize = 64;

/// How many statements of a block (nested blocks included, not functions or classes) bind
/// each name: assignments, augmented and annotated ones, `for` targets, `with ... as`, `del`.
/// One pass; a `match` statement or a block nested too deep is recorded under [`UNREAD`]
/// (every name may be bound there).
pub(super) fn bindings(body: &[Stmt]) -> HashMap<&str, usize> {
    let mut out = HashMap::default();
    count_bindings(body, 0, &mut out);
    out
}

/// The count of every name where a block could not be read.
pub(super) const UNREAD: &str = "";

fn count_bindings<'s>(body: &'s [Stmt], depth: usize, out: &mut HashMap<&'s str, usize>) {
    if depth > MAX_BINDING_DEPTH {
        *out.entry(UNREAD).or_default() += 2;
        return;
    }
    let d = depth + 1;
    let names = |e: &'s Expr, out: &mut HashMap<&'s str, usize>| match e {
        Expr::Name(n) => *out.entry(n.id.as_str()).or_default() += 1,
        Expr::Tuple(t) => {
            for e in &t.elts {
                if let Expr::Name(n) = e {
                    *out.entry(n.id.as_str()).or_default() += 1;
                }
            }
        }
        _ => {}
    };
    for stmt in body {
        match stmt {
            Stmt::Assign(a) => a.targets.iter().for_each(|t| names(t, out)),
            Stmt::AugAssign(a) => names(&a.target, out),
            Stmt::AnnAssign(a) => names(&a.target, out),
            Stmt::Delete(x) => x.targets.iter().for_each(|t| names(t, out)),
            Stmt::Import(i) => {
                for a in &i.names {
                    let name = a.asname.as_ref().map_or_else(
                        || a.name.as_str().split('.').next().unwrap_or(""),
                        |n| n.as_str(),
                    );
                    *out.entry(name).or_default() += 1;
                }
            }
            Stmt::ImportFrom(i) => {
                for a in &i.names {
                    let name = a.asname.as_ref().unwrap_or(&a.name).as_str();
                    *out.entry(name).or_default() += 1;
                }
            }
            Stmt::For(f) => {
                names(&f.target, out);
                count_bindings(&f.body, d, out);
                count_bindings(&f.orelse, d, out);
            }
            Stmt::While(w) => {
                count_bindings(&w.body, d, out);
                count_bindings(&w.orelse, d, out);
            }
            Stmt::If(i) => {
                count_bindings(&i.body, d, out);
                for c in &i.elif_else_clauses {
                    count_bindings(&c.body, d, out);
                }
            }
            Stmt::With(w) => {
                for item in &w.items {
                    if let Some(v) = item.optional_vars.as_deref() {
                        names(v, out);
                    }
                }
                count_bindings(&w.body, d, out);
            }
            Stmt::Try(t) => {
                count_bindings(&t.body, d, out);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    count_bindings(&h.body, d, out);
                }
                count_bindings(&t.orelse, d, out);
                count_bindings(&t.finalbody, d, out);
            }
            Stmt::Match(_) => *out.entry(UNREAD).or_default() += 2,
            _ => {}
        }
    }
}
