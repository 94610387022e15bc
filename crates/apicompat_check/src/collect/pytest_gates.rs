//! pytest's own version gates: `pytest.importorskip("transformers", minversion="5.2.0")` leaves
//! the rest of the module (or test) where the version is older, and a `conftest.py` that adds
//! test files to `collect_ignore_glob` under a version test keeps pytest from importing them
//! there ([`crate::callers`] limits those files to where the test is false).

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange};

use super::*;

/// Patterns a `conftest.py` adds to `collect_ignore` / `collect_ignore_glob` under version
/// tests: pytest does not import the files they match where the tests hold.
#[derive(Debug, Clone)]
pub struct CollectGate {
    /// As written, relative to the conftest's directory.
    pub patterns: Vec<String>,
    /// `collect_ignore_glob` (fnmatch patterns) rather than `collect_ignore` (paths).
    pub glob: bool,
    /// The version tests in force where they are added.
    pub versions: Box<[(String, Pred)]>,
    /// The test.
    pub at: TextRange,
}

/// The string literals of a list, tuple or single string.
fn strings(e: &Expr) -> Option<Vec<String>> {
    match e {
        Expr::List(l) => l.elts.iter().map(string_lit).collect(),
        Expr::Tuple(t) => t.elts.iter().map(string_lit).collect(),
        e => string_lit(e).map(|s| vec![s]),
    }
}

/// `collect_ignore` or `collect_ignore_glob` (whether glob).
fn ignore_list(e: &Expr) -> Option<bool> {
    match e {
        Expr::Name(n) => match n.id.as_str() {
            "collect_ignore" => Some(false),
            "collect_ignore_glob" => Some(true),
            _ => None,
        },
        _ => None,
    }
}

impl Walker<'_> {
    /// After a statement: a pytest gate it sets.
    pub(super) fn pytest_gates(&mut self, stmt: &Stmt) {
        let added = match stmt {
            Stmt::Expr(e) => match &*e.value {
                Expr::Call(call) => {
                    self.importorskip(call);
                    self.appended(call)
                }
                _ => None,
            },
            Stmt::Assign(a) => {
                if let Expr::Call(call) = &*a.value {
                    self.importorskip(call);
                }
                match &*a.targets {
                    [t] => ignore_list(t).zip(strings(&a.value)),
                    _ => None,
                }
            }
            Stmt::AugAssign(a) if a.op == ast::Operator::Add => {
                ignore_list(&a.target).zip(strings(&a.value))
            }
            _ => None,
        };
        let Some((glob, patterns)) = added else {
            return;
        };
        // Only where the version tests in force are all the tests in force: the files are
        // imported where they are false.
        if patterns.is_empty()
            || self.ctx.in_function
            || self.ctx.versions.is_empty()
            || self.ctx.inexact
            || self.ctx.try_guard
        {
            return;
        }
        self.out.collect_gates.push(CollectGate {
            patterns,
            glob,
            versions: self.ctx.versions.clone().into_boxed_slice(),
            at: self.ctx.guard_at.unwrap_or(stmt.range()),
        });
    }

    /// `collect_ignore_glob.append("test_*.py")`, `.extend([...])`, `.insert(0, "x")`.
    fn appended(&self, call: &ast::ExprCall) -> Option<(bool, Vec<String>)> {
        let Expr::Attribute(a) = &*call.func else {
            return None;
        };
        let glob = ignore_list(&a.value)?;
        let args = &call.arguments.args;
        let patterns = match (a.attr.as_str(), &**args) {
            ("append", [x]) => vec![string_lit(x)?],
            ("extend", [x]) => strings(x)?,
            ("insert", [_, x]) => vec![string_lit(x)?],
            _ => return None,
        };
        Some((glob, patterns))
    }

    /// `pytest.importorskip("pkg", minversion="2.4")` of an indexed package: the rest of the
    /// block runs only where its version is at least that.
    fn importorskip(&mut self, call: &ast::ExprCall) {
        let Some(name) = dotted(&call.func) else {
            return;
        };
        if name != "pytest.importorskip" && name != "importorskip" {
            return;
        }
        let module = call.arguments.args.first().and_then(string_lit);
        let min = call
            .arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "minversion"))
            .and_then(|k| string_lit(&k.value))
            .or_else(|| call.arguments.args.get(1).and_then(string_lit));
        let (Some(module), Some(min)) = (module, min) else {
            return;
        };
        let root = module.split('.').next().unwrap_or(&module).to_string();
        let Some(bound) = crate::versions::Bound::parse_str(&min) else {
            return;
        };
        if !self.roots.contains(root.as_str()) {
            return;
        }
        let mut rest = self.continuation.take().unwrap_or_else(|| self.ctx.clone());
        rest.versions
            .push((root, Pred::Cmp(crate::versions::Op::Ge, bound)));
        rest.guard_at = Some(call.range());
        self.continuation = Some(rest);
    }
}

/// Whether `rel` (a path relative to the conftest's directory, `/`-separated) is matched by
/// a gate's pattern: a `collect_ignore` path names the file or a directory above it; a
/// `collect_ignore_glob` pattern is matched as `fnmatch` does (`*` crosses `/`).
pub(crate) fn gate_matches(gate: &CollectGate, rel: &str) -> bool {
    gate.patterns.iter().any(|p| {
        let p = p.trim_start_matches("./").trim_end_matches('/');
        if gate.glob {
            fnmatch(p.as_bytes(), rel.as_bytes())
        } else {
            rel == p || rel.strip_prefix(p).is_some_and(|r| r.starts_with('/'))
        }
    })
}

/// `fnmatch`: `*` any run, `?` one character, `[...]` a class (`[!...]` negated); linear in
/// the lengths times the pattern's stars (iterative, with one backtrack point).
fn fnmatch(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        let step = match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
                continue;
            }
            Some(b'?') => Some(1),
            Some(b'[') => class(&pattern[p..], text[t]),
            Some(&c) => (c == text[t]).then_some(1),
            None => None,
        };
        match step {
            Some(n) => {
                p += if pattern.get(p) == Some(&b'[') { n } else { 1 };
                t += 1;
            }
            None => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p.min(pattern.len())..].iter().all(|&c| c == b'*')
}

/// A `[...]` class at the start of `pattern` against `c`: the class's length when it matches.
fn class(pattern: &[u8], c: u8) -> Option<usize> {
    let end = pattern.iter().skip(2).position(|&b| b == b']')? + 3;
    let body = &pattern[1..end - 1];
    let (negated, body) = match body.first() {
        Some(b'!') => (true, &body[1..]),
        _ => (false, body),
    };
    let mut hit = false;
    let mut i = 0;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == b'-' {
            hit |= (body[i]..=body[i + 2]).contains(&c);
            i += 3;
        } else {
            hit |= body[i] == c;
            i += 1;
        }
    }
    (hit != negated).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    #[test]
    fn fnmatch_as_python_does() {
        assert!(fnmatch(b"test_*.py", b"test_dtensor.py"));
        assert!(!fnmatch(b"test_*.py", b"conftest.py"));
        assert!(fnmatch(b"*/test_*.py", b"sub/dir/test_x.py"));
        assert!(fnmatch(b"test_?.py", b"test_a.py"));
        assert!(fnmatch(b"test_[a-c].py", b"test_b.py"));
        assert!(!fnmatch(b"test_[!a-c].py", b"test_b.py"));
        assert!(fnmatch(b"*", b""));
        assert!(!fnmatch(b"a*b*c", b"abab"));
        assert!(fnmatch(b"a*b*c", b"aXbYbZc"));
    }
}
