//! Conditions a plain `pip install .` decides: string comparisons, a name standing for the
//! string last assigned to it, an environment variable for its `os.environ.get` default.

use ruff_python_ast::{CmpOp, Expr};

use super::{NotRead, Reader, MAX_EXPR_DEPTH};

impl Reader<'_> {
    /// The branch of `a if test else b` a plain `pip install .` takes ([`Self::truth`]).
    pub(super) fn taken<'e>(
        &self,
        e: &'e ruff_python_ast::ExprIf,
        depth: usize,
    ) -> Result<&'e Expr, NotRead> {
        Ok(if self.truth(&e.test, depth + 1)? {
            &e.body
        } else {
            &e.orelse
        })
    }

    /// The value of a test a plain `pip install .` decides: `==` / `!=` (and `in` / `not in` a
    /// literal collection) between strings, where a name stands for the string last assigned
    /// to it and an environment variable read with a default (`os.environ.get("BUILD_TYPE",
    /// "dev")`, `os.getenv(...)`) for that default.
    fn truth(&self, test: &Expr, depth: usize) -> Result<bool, NotRead> {
        if depth > MAX_EXPR_DEPTH {
            return Err(NotRead::Dynamic("too deeply nested".to_string()));
        }
        let undecided = || NotRead::Dynamic("a condition that depends on the build".to_string());
        let Expr::Compare(c) = test else {
            return Err(undecided());
        };
        let ([op], [right]) = (&*c.ops, &*c.comparators) else {
            return Err(undecided());
        };
        let left = self.string(&c.left, depth + 1).ok_or_else(undecided)?;
        match op {
            CmpOp::Eq | CmpOp::NotEq => {
                let right = self.string(right, depth + 1).ok_or_else(undecided)?;
                Ok((left == right) == matches!(op, CmpOp::Eq))
            }
            CmpOp::In | CmpOp::NotIn => {
                let elts = match self.resolve(right, depth + 1)? {
                    Expr::List(l) => &l.elts,
                    Expr::Tuple(t) => &t.elts,
                    Expr::Set(s) => &s.elts,
                    _ => return Err(undecided()),
                };
                let mut found = false;
                for e in elts {
                    found |= self.string(e, depth + 1).ok_or_else(undecided)? == left;
                }
                Ok(found == matches!(op, CmpOp::In))
            }
            _ => Err(undecided()),
        }
    }

    /// A string an expression has without running the build (see [`Self::truth`]).
    pub(super) fn string(&self, e: &Expr, depth: usize) -> Option<String> {
        match self.resolve(e, depth).ok()? {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
            Expr::Call(call) => {
                let func = dotted(&call.func, 0)?;
                if !matches!(func.as_str(), "os.environ.get" | "os.getenv") {
                    return None;
                }
                match &*call.arguments.args {
                    [_, Expr::StringLiteral(default)] => Some(default.value.to_str().to_string()),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// `os.environ.get` as written, for a chain of names (at most a few segments).
fn dotted(e: &Expr, depth: usize) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.id.to_string()),
        Expr::Attribute(a) if depth < 4 => {
            Some(format!("{}.{}", dotted(&a.value, depth + 1)?, a.attr))
        }
        _ => None,
    }
}
