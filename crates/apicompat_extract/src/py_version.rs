//! The standard library, indexed as the package `python` (one tree of typeshed's stubs per
//! version, `scripts/gen_python_trees.py`): what `sys.version_info` branches and the words of a
//! deprecation message say about the version being indexed.
//!
//! A branch that version does not take (`if sys.version_info < (3, 11): def getargspec` in
//! the tree of 3.12, [`Branch::off`]) is not walked: its definitions are not in that
//! version's surface. Every version's tree comes from one typeshed, which declares each
//! version's names through these branches and `stdlib/VERSIONS`, so a name the module of one
//! version declares and another's lacks is absent there ([`mark_versioned_stubs`]; other
//! packages' stubs are open: their older stubs may just be incomplete). Deprecations follow
//! the version:
//! - a platform test (`sys.platform == "win32"`) is neither true nor false: the surface is one
//!   for every platform, so both branches count, and a name is deprecated only when all its
//!   definitions are (`crate::defs::merged_deprecation`): `shutil.which`, whose Windows-only
//!   overload is deprecated, is not;
//! - a message that names the version it starts from ("Deprecated since Python 3.10") is no
//!   deprecation of an older version; one that names only the removal ("will be removed in
//!   Python 3.16", "removed in Python 3.14") is taken as starting two versions before it, the
//!   shortest deprecation period PEP 387 allows (the latest version it can have started in:
//!   silence on the versions in doubt rather than a false alarm);
//! - a "soft deprecated" API (PEP 387: no warning, no removal planned; `os.popen`) is no
//!   deprecation at all.
//!
//! Any other package's `sys.version_info` tests are about the interpreter, not the release,
//! and stay undecided.
//!
//! For every package, a branch also knows whether it runs only for type checkers (`if
//! TYPE_CHECKING:`, [`Branch::type_checking`]): a name defined there is what type checkers
//! declare, and its definitions there decide its deprecation
//! (`crate::defs::merged_deprecation`).

use apicompat_surface::{Kind, Symbol};
use ruff_python_ast::{self as ast, CmpOp, Expr};

use crate::consts;
use crate::facts::Function;

/// A Python version, `(3, 12)`.
pub(crate) type PyVersion = (u32, u32);

/// The package name the standard library is indexed under.
const PYTHON: &str = "python";

/// The Python version a release is, when it is the standard library (`python`, `3.12`).
pub(crate) fn of_release(package: &str, version: &str) -> Option<PyVersion> {
    if package != PYTHON {
        return None;
    }
    parse_version(version)
}

/// Marks the standard library's stub modules ([`Symbol::stub_only`] on an open module): every
/// version's stub comes from one typeshed, so a name one version declares in the module and
/// another lacks is absent there (`apicompat_index::lookup`). A module whose stub is not all
/// it has (`only_stub_declares` false: a `__getattr__` for an incomplete stub, a star import
/// of unknown names) stays open.
pub(crate) fn mark_versioned_stubs(
    symbols: &mut std::collections::BTreeMap<String, Symbol>,
    only_stub_declares: impl Fn(&str) -> bool,
) {
    for (path, s) in symbols.iter_mut() {
        if s.kind() == Kind::Module && s.open && only_stub_declares(path) {
            s.stub_only = true;
        }
    }
}

/// `3.12` -> `(3, 12)` (more parts, `3.12.1`, are ignored).
fn parse_version(text: &str) -> Option<PyVersion> {
    let mut parts = text.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// Where a definition sits: the Python version of the tree (only for the standard library),
/// whether it is in a branch that version does not take, and whether it is in a branch only
/// type checkers take.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Branch {
    pub python: Option<PyVersion>,
    pub off: bool,
    /// Under `if TYPE_CHECKING:` (also `typing.TYPE_CHECKING`, `TYPE_CHECKING and ...`, the
    /// `else` of `if not TYPE_CHECKING:`), at any depth.
    pub type_checking: bool,
}

impl Branch {
    /// The branches of an `if` / `elif` / `else` chain, in order: one is off when its test is
    /// false for the version, or an earlier one's is true (or the whole chain is off).
    pub(crate) fn clauses(self, i: &ast::StmtIf) -> Vec<Branch> {
        let tests = std::iter::once(Some(&*i.test))
            .chain(i.elif_else_clauses.iter().map(|c| c.test.as_ref()));
        let mut taken = false;
        // An earlier test is false only when `TYPE_CHECKING` is true (`if not TYPE_CHECKING:`).
        let mut checking_after = false;
        let mut out = Vec::new();
        for test in tests {
            let value = match (self.python, test) {
                (_, None) => Some(true),
                (Some(v), Some(t)) => eval(t, v),
                (None, Some(_)) => None,
            };
            out.push(Branch {
                python: self.python,
                off: self.off || taken || value == Some(false),
                type_checking: self.type_checking
                    || checking_after
                    || test.is_some_and(needs_type_checking),
            });
            taken |= value == Some(true);
            checking_after |= test.is_some_and(needs_not_type_checking);
        }
        out
    }

    /// A deprecation message as it stands in this version: none before the version the message names, none for a soft deprecation.
    pub(crate) fn deprecation(self, message: Option<String>) -> Option<String> {
        let (Some(version), Some(m)) = (self.python, message.as_deref()) else {
            return message;
        };
        let lower = m.to_lowercase();
        if lower.contains("soft deprecated") || lower.contains("soft-deprecated") {
            return None;
        }
        match message_start(&lower) {
            Some(start) if start > version => None,
            _ => message,
        }
    }

    /// Marks a definition made here: under `TYPE_CHECKING` or not, its deprecation read for
    /// the version.
    pub(crate) fn apply(self, f: &mut Function) {
        f.type_checking = self.type_checking;
        f.deprecated = self.deprecation(f.deprecated.take());
    }
}

/// `TYPE_CHECKING`, however imported (`typing.TYPE_CHECKING`, `t.TYPE_CHECKING`).
fn is_type_checking(e: &Expr) -> bool {
    consts::dotted(e).is_some_and(|d| d.rsplit('.').next() == Some("TYPE_CHECKING"))
}

/// A test that is true only when `TYPE_CHECKING` is: `TYPE_CHECKING`, `TYPE_CHECKING and x`.
fn needs_type_checking(e: &Expr) -> bool {
    match e {
        Expr::BoolOp(b) if b.op == ast::BoolOp::And => b.values.iter().any(needs_type_checking),
        e => is_type_checking(e),
    }
}

/// A test that is false only when `TYPE_CHECKING` is true: `not TYPE_CHECKING`,
/// `not TYPE_CHECKING or x`.
fn needs_not_type_checking(e: &Expr) -> bool {
    match e {
        Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => is_type_checking(&u.operand),
        Expr::BoolOp(b) if b.op == ast::BoolOp::Or => b.values.iter().any(needs_not_type_checking),
        _ => false,
    }
}

/// The first version a (lowercased) deprecation message applies to: "since python 3.10" ->
/// 3.10; else "removed in python 3.16" -> 3.14 (see the module documentation).
fn message_start(lower: &str) -> Option<PyVersion> {
    let after = |marker: &str| {
        lower
            .find(marker)
            .and_then(|at| leading_version(&lower[at + marker.len()..]))
    };
    if let Some(v) = after("since python ") {
        return Some(v);
    }
    after("removed in python ").map(|(major, minor)| (major, minor.saturating_sub(2)))
}

/// `3.16.` -> `(3, 16)`.
fn leading_version(text: &str) -> Option<PyVersion> {
    let end = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    parse_version(text[..end].trim_end_matches('.'))
}

/// A test's value for a version: `Some` for `sys.version_info` comparisons (and `and`, `or`,
/// `not` of them), `None` for anything else (platforms, `TYPE_CHECKING`).
fn eval(e: &Expr, v: PyVersion) -> Option<bool> {
    match e {
        Expr::BoolOp(b) => {
            let values: Vec<Option<bool>> = b.values.iter().map(|x| eval(x, v)).collect();
            match b.op {
                ast::BoolOp::And if values.contains(&Some(false)) => Some(false),
                ast::BoolOp::And if values.iter().all(|x| *x == Some(true)) => Some(true),
                ast::BoolOp::Or if values.contains(&Some(true)) => Some(true),
                ast::BoolOp::Or if values.iter().all(|x| *x == Some(false)) => Some(false),
                _ => None,
            }
        }
        Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => eval(&u.operand, v).map(|b| !b),
        Expr::Compare(c) => {
            let ([op], [right]) = (&*c.ops, &*c.comparators) else {
                return None;
            };
            if consts::dotted(&c.left).as_deref() != Some("sys.version_info") {
                return None;
            }
            let ord = compare_version_info(v, right)?;
            Some(match op {
                CmpOp::Lt => ord.is_lt(),
                CmpOp::LtE => ord.is_le(),
                CmpOp::Gt => ord.is_gt(),
                CmpOp::GtE => ord.is_ge(),
                CmpOp::Eq => ord.is_eq(),
                CmpOp::NotEq => ord.is_ne(),
                _ => return None,
            })
        }
        _ => None,
    }
}

/// `sys.version_info` of any release of version `v` against a tuple of integers, as Python
/// compares tuples: `(3, 12, 0, "final", 0) > (3, 12)`; `None` when the micro version would
/// decide (`(3, 12, 4)`) or the tuple is not one of integers.
fn compare_version_info(v: PyVersion, tuple: &Expr) -> Option<std::cmp::Ordering> {
    let Expr::Tuple(t) = tuple else {
        return None;
    };
    let mut parts = Vec::new();
    for e in &t.elts {
        match e {
            Expr::NumberLiteral(n) => match &n.value {
                ast::Number::Int(i) => parts.push(u32::try_from(i.as_u64()?).ok()?),
                _ => return None,
            },
            _ => return None,
        }
    }
    let ours = [v.0, v.1];
    let n = parts.len().min(2);
    match ours[..n].cmp(&parts[..n]) {
        std::cmp::Ordering::Equal if parts.len() > 2 => None,
        // Equal prefix: `version_info` is the longer tuple.
        std::cmp::Ordering::Equal => Some(std::cmp::Ordering::Greater),
        ord => Some(ord),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_of(src: &str, v: PyVersion) -> Option<bool> {
        let parsed = ruff_python_parser::parse_module(src).unwrap();
        let Some(ast::Stmt::If(i)) = parsed.suite().first() else {
            panic!("not an if");
        };
        eval(&i.test, v)
    }

    #[test]
    fn version_tests() {
        let t = |s: &str, minor| test_of(&format!("if {s}:\n    pass\n"), (3, minor));
        assert_eq!(t("sys.version_info >= (3, 12)", 12), Some(true));
        assert_eq!(t("sys.version_info >= (3, 12)", 11), Some(false));
        assert_eq!(t("sys.version_info < (3, 12)", 12), Some(false));
        assert_eq!(t("sys.version_info > (3, 12)", 12), Some(true));
        assert_eq!(t("sys.version_info >= (3,)", 8), Some(true));
        assert_eq!(t("sys.version_info >= (3, 12, 4)", 12), None);
        assert_eq!(t("sys.version_info >= (3, 12, 4)", 13), Some(true));
        assert_eq!(t("sys.platform == 'win32'", 12), None);
        assert_eq!(
            t("sys.platform == 'win32' and sys.version_info < (3, 12)", 12),
            Some(false)
        );
        assert_eq!(
            t("sys.platform == 'win32' and sys.version_info < (3, 12)", 11),
            None
        );
        assert_eq!(t("not sys.version_info >= (3, 14)", 14), Some(false));
        assert_eq!(
            t("sys.version_info >= (3, 14) or sys.platform == 'linux'", 14),
            Some(true)
        );
    }

    #[test]
    fn type_checking_branches() {
        let checking = |src: &str| -> Vec<bool> {
            let parsed = ruff_python_parser::parse_module(src).unwrap();
            let Some(ast::Stmt::If(i)) = parsed.suite().first() else {
                panic!("not an if");
            };
            Branch::default()
                .clauses(i)
                .iter()
                .map(|b| b.type_checking)
                .collect()
        };
        let body = "\n    pass\n";
        let chain = |tests: &[&str]| {
            let mut src = format!("if {}:{body}", tests[0]);
            for t in &tests[1..] {
                src += &format!("elif {t}:{body}");
            }
            src + &format!("else:{body}")
        };
        assert_eq!(checking(&chain(&["TYPE_CHECKING"])), [true, false]);
        assert_eq!(checking(&chain(&["typing.TYPE_CHECKING"])), [true, false]);
        assert_eq!(checking(&chain(&["not TYPE_CHECKING"])), [false, true]);
        assert_eq!(
            checking(&chain(&["x", "not TYPE_CHECKING"])),
            [false, false, true]
        );
        assert_eq!(
            checking(&chain(&["x", "TYPE_CHECKING"])),
            [false, true, false]
        );
        assert_eq!(checking(&chain(&["TYPE_CHECKING and x"])), [true, false]);
        assert_eq!(checking(&chain(&["TYPE_CHECKING or x"])), [false, false]);
        assert_eq!(checking(&chain(&["not TYPE_CHECKING or x"])), [false, true]);
        assert_eq!(checking(&chain(&["TYPE_CHECKING_EXTRA"])), [false, false]);
        // Nested: everything under a branch for type checkers is.
        let outer = Branch {
            type_checking: true,
            ..Branch::default()
        };
        let parsed = ruff_python_parser::parse_module(&chain(&["x"])).unwrap();
        let Some(ast::Stmt::If(i)) = parsed.suite().first() else {
            panic!("not an if");
        };
        assert!(outer.clauses(i).iter().all(|b| b.type_checking));
    }

    #[test]
    fn message_versions() {
        let at = |m: &str, minor| {
            Branch {
                python: Some((3, minor)),
                ..Branch::default()
            }
            .deprecation(Some(m.to_string()))
            .is_some()
        };
        let since = "Deprecated since Python 3.10. Use ALPN instead.";
        assert!(!at(since, 9) && at(since, 10));
        let removal = "Deprecated; will be removed in Python 3.16.";
        assert!(!at(removal, 13) && at(removal, 14));
        let both = "Deprecated since Python 3.4; removed in Python 3.12.";
        assert!(at(both, 8));
        assert!(at("Deprecated since Python 2.3. Use `mkstemp()`", 8));
        assert!(!at(
            "Soft deprecated. Use the subprocess module instead.",
            14
        ));
        assert!(at("Use timezone-aware objects", 8));
        // Another package: the message is about the interpreter, not the release.
        assert!(Branch::default()
            .deprecation(Some(since.to_string()))
            .is_some());
    }
}
