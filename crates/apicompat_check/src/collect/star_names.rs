//! The names a module's `__all__` may hold, read from its top-level statements: what `from
//! pkg import *` imports of a package ([`crate::importers`]).

use ruff_python_ast::{Expr, Stmt};

/// Blocks nested deeper than this are not read: `__all__` is then unknown.
const MAX_DEPTH: usize = 32;

/// Every string `__all__` may hold, from the module's statements (and those of its `if`,
/// `try`, `with`, `for` and `while` blocks): assignments of lists or tuples of strings, `+=`
/// of them, `.append("x")`, `.extend([...])`. `Some(vec![])` without an `__all__`; `None`
/// when it is built any other way (the names are then unknown).
pub(crate) fn all_names(suite: &[Stmt]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    read_block(suite, &mut out, 0)?;
    out.sort_unstable();
    out.dedup();
    Some(out)
}

fn read_block(body: &[Stmt], out: &mut Vec<String>, depth: usize) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    let d = depth + 1;
    for stmt in body {
        match stmt {
            Stmt::Assign(a) if a.targets.iter().any(is_all) => {
                let [_] = &*a.targets else {
                    return None;
                };
                out.extend(strings(&a.value)?);
            }
            Stmt::AnnAssign(a) if is_all(&a.target) => out.extend(strings(a.value.as_deref()?)?),
            Stmt::AugAssign(a) if is_all(&a.target) => out.extend(strings(&a.value)?),
            Stmt::Expr(e) => {
                if let Expr::Call(c) = &*e.value {
                    if let Expr::Attribute(at) = &*c.func {
                        if is_all(&at.value) {
                            let [arg] = &*c.arguments.args else {
                                return None;
                            };
                            match at.attr.as_str() {
                                "append" => out.push(string(arg)?),
                                "extend" => out.extend(strings(arg)?),
                                _ => return None,
                            }
                        }
                    }
                }
            }
            // `if`, `try`, `with`, `for` and `while` bodies (a `match` case is not read).
            Stmt::If(_) | Stmt::Try(_) | Stmt::With(_) | Stmt::For(_) | Stmt::While(_) => {
                for b in apicompat_extract::nesting::nested_bodies(stmt) {
                    read_block(b, out, d)?;
                }
            }
            Stmt::Delete(del) if del.targets.iter().any(is_all) => return None,
            // `__all__, x = ...`: not read.
            Stmt::Assign(a) if a.targets.iter().any(unpacks_all) => return None,
            _ => {}
        }
    }
    Some(())
}

fn unpacks_all(e: &Expr) -> bool {
    match e {
        Expr::Tuple(t) => t.elts.iter().any(|e| is_all(e) || unpacks_all(e)),
        Expr::List(l) => l.elts.iter().any(|e| is_all(e) || unpacks_all(e)),
        Expr::Starred(s) => is_all(&s.value),
        _ => false,
    }
}

fn is_all(e: &Expr) -> bool {
    matches!(e, Expr::Name(n) if n.id.as_str() == "__all__")
}

fn string(e: &Expr) -> Option<String> {
    match e {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

/// The strings of a list or tuple of string literals (`[...] + [...]` too).
fn strings(e: &Expr) -> Option<Vec<String>> {
    match e {
        Expr::List(l) => l.elts.iter().map(string).collect(),
        Expr::Tuple(t) => t.elts.iter().map(string).collect(),
        Expr::BinOp(b) if matches!(b.op, ruff_python_ast::Operator::Add) => {
            let mut left = strings(&b.left)?;
            left.extend(strings(&b.right)?);
            Some(left)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::all_names;

    fn names(src: &str) -> Option<Vec<String>> {
        let parsed = ruff_python_parser::parse_module(src).expect("parses");
        all_names(parsed.suite())
    }

    /// xDiT's `xfuser/model_executor/models/transformers/__init__.py`: a list of class names,
    /// appended to under version gates.
    #[test]
    fn literal_lists_appends_and_branches_are_read() {
        let got = names(
            "__all__ = [\"A\", \"B\"]\nif f():\n    from .k import C\n    __all__.append(\"C\")\n__all__ += (\"D\",)\n__all__.extend([\"E\"] + [\"A\"])\n",
        );
        assert_eq!(
            got,
            Some(
                vec!["A", "B", "C", "D", "E"]
                    .into_iter()
                    .map(String::from)
                    .collect()
            )
        );
        assert_eq!(names("import x\n"), Some(Vec::new()));
    }

    #[test]
    fn a_computed_all_is_unknown() {
        assert_eq!(
            names("from .a import *\n__all__ = a.__all__ + [\"x\"]\n"),
            None
        );
        assert_eq!(
            names("__all__ = [n for n in dir() if n[0] != \"_\"]\n"),
            None
        );
        assert_eq!(names("__all__ = []\n__all__.append(name)\n"), None);
        assert_eq!(names("__all__, other = [\"a\"], 1\n"), None);
    }
}
