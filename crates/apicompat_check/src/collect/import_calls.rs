//! Functions a module calls while it is imported: a statement of the module's top level
//! (not under an `if`, a `try`, a loop or a class) that calls a function the module defines
//! (`patch_ring_attention()`, `x = build_table()`), and the functions such a function calls
//! the same way in its own body. Their uses run at import time: a failure there makes the
//! import fail, at the line of the module's call (SimpleTuner's `diffusers_overrides.py:612`
//! running `:129`, `docs/false-alarm-study-26.md`, R1).

use apicompat_hash::HashMap;
use ruff_python_ast::{Expr, Stmt, StmtFunctionDef};
use ruff_text_size::{Ranged, TextRange};

/// Functions followed at most per module.
const MAX_FUNCTIONS: usize = 64;

/// The module-level functions run at import: (name, the function's body, the range of the
/// module-level statement whose call runs it).
pub(super) fn import_time_functions(suite: &[Stmt]) -> Vec<(&str, TextRange, TextRange)> {
    // The module's functions by name (a name defined twice is left out: which one runs
    // depends on where the call is).
    let mut defs: Defs = HashMap::default();
    for stmt in suite {
        if let Stmt::FunctionDef(f) = stmt {
            defs.entry(f.name.as_str())
                .and_modify(|d| *d = None)
                .or_insert(Some(f));
        }
    }
    let mut found = Found::default();
    if defs.is_empty() {
        return found.out;
    }
    for stmt in suite {
        if let Some(name) = called(stmt) {
            found.add(&defs, name, stmt.range().start().to_usize(), stmt.range());
        }
    }
    while let Some((f, trigger)) = found.queue.pop() {
        for stmt in &f.body {
            if let Some(name) = called(stmt) {
                // Another function of the module is defined by the time this one runs.
                found.add(&defs, name, usize::MAX, trigger);
            }
        }
    }
    found.out
}

type Defs<'a> = HashMap<&'a str, Option<&'a StmtFunctionDef>>;

#[derive(Default)]
struct Found<'a> {
    out: Vec<(&'a str, TextRange, TextRange)>,
    queue: Vec<(&'a StmtFunctionDef, TextRange)>,
}

impl<'a> Found<'a> {
    /// The function `name` runs, from a call at offset `at` (before its definition: a
    /// `NameError`, nothing of it runs), for the module-level statement `trigger`.
    fn add(&mut self, defs: &Defs<'a>, name: &str, at: usize, trigger: TextRange) {
        let Some(Some(f)) = defs.get(name) else {
            return;
        };
        if self.out.len() >= MAX_FUNCTIONS
            || self.out.iter().any(|(n, _, _)| *n == name)
            || f.range().start().to_usize() > at
        {
            return;
        }
        let body = match (f.body.first(), f.body.last()) {
            (Some(a), Some(b)) => TextRange::new(a.range().start(), b.range().end()),
            _ => return,
        };
        self.out.push((f.name.as_str(), body, trigger));
        self.queue.push((f, trigger));
    }
}

/// The function a statement calls by its bare name: `f()`, `x = f()`, `x: T = f()`.
fn called(stmt: &Stmt) -> Option<&str> {
    let value = match stmt {
        Stmt::Expr(e) => &*e.value,
        Stmt::Assign(a) => &*a.value,
        Stmt::AnnAssign(a) => a.value.as_deref()?,
        _ => return None,
    };
    match value {
        Expr::Call(c) => match &*c.func {
            Expr::Name(n) => Some(n.id.as_str()),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(src: &str) -> Vec<(String, u32)> {
        let parsed = ruff_python_parser::parse_module(src).unwrap();
        import_time_functions(&parsed.syntax().body)
            .into_iter()
            .map(|(n, _, trigger)| {
                let line = src[..trigger.start().to_usize()].matches('\n').count() as u32 + 1;
                (n.to_string(), line)
            })
            .collect()
    }

    #[test]
    fn top_level_calls_run_their_functions_and_what_those_call() {
        let src = "\
def patch():
    helper()
    if x:
        conditional()

def helper():
    pass

def conditional():
    pass

def later():
    pass

def never():
    pass

early()
def early():
    pass

if flag:
    never()
table = patch()
later()
";
        assert_eq!(
            names(src),
            [
                ("patch".to_string(), 24),
                ("later".to_string(), 25),
                ("helper".to_string(), 24)
            ]
        );
    }
}
