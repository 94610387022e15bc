//! Version checks in conditions (`torch.__version__ >= "2.4"`, `Version(torch.__version__) <
//! Version("2.0")`, `TORCH_VERSION >= (2, 4)`, `torch.__version__.startswith("2.")`): which
//! releases a branch runs on.

use std::cmp::Ordering;

use apicompat_requirements::{parse_version, Version};

/// A comparison operator, as written with the version on the left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Op {
    /// The operator with both sides swapped: `"2.4" <= v` is `v >= "2.4"`.
    pub fn flipped(self) -> Op {
        match self {
            Op::Lt => Op::Gt,
            Op::Le => Op::Ge,
            Op::Gt => Op::Lt,
            Op::Ge => Op::Le,
            other => other,
        }
    }

    fn holds(self, ord: Ordering) -> bool {
        match self {
            Op::Lt => ord == Ordering::Less,
            Op::Le => ord != Ordering::Greater,
            Op::Gt => ord == Ordering::Greater,
            Op::Ge => ord != Ordering::Less,
            Op::Eq => ord == Ordering::Equal,
            Op::Ne => ord != Ordering::Equal,
        }
    }
}

/// The constant a version is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    /// A PEP 440 version: compared as versions (as `packaging` and torch's `TorchVersion` do).
    Version(Version),
    /// A tuple of integers: compared with the release's first as many components.
    Tuple(Vec<u64>),
}

impl Bound {
    pub fn parse_str(s: &str) -> Option<Bound> {
        parse_version(s.trim()).ok().map(Bound::Version)
    }
}

/// A condition on the release of one package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pred {
    Cmp(Op, Bound),
    /// `__version__.startswith(...)` with any of these prefixes.
    StartsWith(Vec<String>),
    Not(Box<Pred>),
    And(Vec<Pred>),
    Or(Vec<Pred>),
    /// A call of a function defined elsewhere in the project with a version constant
    /// (`is_torch_greater_or_equal("2.4")`), under [`HELPER_ROOT`]: [`resolve_helpers`] turns it
    /// into a comparison once every file's [`VersionHelper`]s are known. Until then a condition
    /// that contains one admits every release (it is not understood).
    Helper {
        name: String,
        arg: Bound,
    },
}

/// The package name under which conditions on project helpers wait to be resolved.
pub const HELPER_ROOT: &str = "?helper";

/// A function whose body is a single comparison of an indexed package's version with its
/// parameter: `def is_torch_greater_or_equal(v): return parse(torch.__version__) >= parse(v)`.
/// `helper(X)` is the condition `VERSION op X`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionHelper {
    /// The top-level module whose `__version__` is compared (`torch`).
    pub root: String,
    /// The comparison, with the version on the left.
    pub op: Op,
    /// The parameter compared, by name and position.
    pub param: String,
    pub position: usize,
}

impl VersionHelper {
    /// The condition `helper(arg)` stands for.
    pub fn condition(&self, arg: Bound) -> (String, Pred) {
        (self.root.clone(), Pred::Cmp(self.op, arg))
    }
}

impl Pred {
    /// Whether the condition calls a helper not resolved (yet).
    pub fn has_helper_call(&self) -> bool {
        match self {
            Pred::Helper { .. } => true,
            Pred::Not(p) => p.has_helper_call(),
            Pred::And(ps) | Pred::Or(ps) => ps.iter().any(Pred::has_helper_call),
            Pred::Cmp(..) | Pred::StartsWith(_) => false,
        }
    }

    /// Whether a release satisfies the condition. Local labels are dropped first
    /// (`2.1.2+cu121` compares as `2.1.2`). A condition with an unresolved helper call admits
    /// every release.
    pub fn admits(&self, version: &Version) -> bool {
        if self.has_helper_call() {
            return true;
        }
        self.holds(version)
    }

    fn holds(&self, version: &Version) -> bool {
        match self {
            Pred::Cmp(op, Bound::Version(b)) => op.holds(version.clone().without_local().cmp(b)),
            Pred::Cmp(op, Bound::Tuple(t)) => {
                let release = version.release();
                let mine: Vec<u64> = (0..t.len())
                    .map(|i| release.get(i).copied().unwrap_or(0))
                    .collect();
                op.holds(mine.cmp(t))
            }
            Pred::StartsWith(prefixes) => {
                let text = version.to_string();
                prefixes.iter().any(|p| text.starts_with(p.as_str()))
            }
            Pred::Not(p) => !p.holds(version),
            Pred::And(ps) => ps.iter().all(|p| p.holds(version)),
            Pred::Or(ps) => ps.iter().any(|p| p.holds(version)),
            Pred::Helper { .. } => true,
        }
    }

    /// The condition with each helper call replaced by the comparison it stands for, and the
    /// package the comparisons are about; `None` when a helper is unknown or two helpers are
    /// about different packages.
    fn resolved(
        &self,
        helpers: &dyn Fn(&str) -> Option<VersionHelper>,
    ) -> Option<(Pred, Option<String>)> {
        let join = |ps: &[Pred]| -> Option<(Vec<Pred>, Option<String>)> {
            let mut out = Vec::with_capacity(ps.len());
            let mut root: Option<String> = None;
            for p in ps {
                let (q, r) = p.resolved(helpers)?;
                match (&root, r) {
                    (Some(a), Some(b)) if *a != b => return None,
                    (None, Some(b)) => root = Some(b),
                    _ => {}
                }
                out.push(q);
            }
            Some((out, root))
        };
        Some(match self {
            Pred::Helper { name, arg } => {
                let h = helpers(name)?;
                let (root, pred) = h.condition(arg.clone());
                (pred, Some(root))
            }
            Pred::Not(p) => {
                let (q, r) = p.resolved(helpers)?;
                (Pred::Not(Box::new(q)), r)
            }
            Pred::And(ps) => {
                let (qs, r) = join(ps)?;
                (Pred::And(qs), r)
            }
            Pred::Or(ps) => {
                let (qs, r) = join(ps)?;
                (Pred::Or(qs), r)
            }
            other => (other.clone(), None),
        })
    }
}

/// Replaces the conditions on project helpers (under [`HELPER_ROOT`]) by the comparisons they
/// stand for; a condition on a helper that is not known (or not known for sure) is dropped, so
/// the use is checked as if it were not conditional.
pub fn resolve_helpers(
    versions: &mut Vec<(String, Pred)>,
    helpers: &dyn Fn(&str) -> Option<VersionHelper>,
) {
    if !versions.iter().any(|(root, _)| root == HELPER_ROOT) {
        return;
    }
    let old = std::mem::take(versions);
    for (root, pred) in old {
        if root != HELPER_ROOT {
            versions.push((root, pred));
        } else if let Some((pred, Some(root))) = pred.resolved(helpers) {
            versions.push((root, pred));
        }
    }
}

/// What a condition says about releases: for each top-level module named in it, the predicate
/// its release must satisfy (all of them hold together). `complete` is false when part of the
/// condition was not understood; then the condition's negation is unknown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Restriction {
    pub parts: Vec<(String, Pred)>,
    pub complete: bool,
}

impl Restriction {
    /// `a and b`.
    pub fn and(mut self, other: Restriction) -> Restriction {
        self.parts.extend(other.parts);
        self.complete &= other.complete;
        self
    }

    /// `not self`, when it can be known: a complete condition on one package.
    pub fn negate(&self) -> Option<Restriction> {
        if !self.complete {
            return None;
        }
        let root = &self.parts.first()?.0;
        if self.parts.iter().any(|(r, _)| r != root) {
            return None;
        }
        let preds: Vec<Pred> = self.parts.iter().map(|(_, p)| p.clone()).collect();
        let inner = if preds.len() == 1 {
            preds.into_iter().next()?
        } else {
            Pred::And(preds)
        };
        Some(Restriction {
            parts: vec![(root.clone(), Pred::Not(Box::new(inner)))],
            complete: true,
        })
    }

    /// `a or b`, when both are complete conditions on the same package.
    pub fn or(self, other: Restriction) -> Option<Restriction> {
        if !self.complete || !other.complete {
            return None;
        }
        let root = self.parts.first()?.0.clone();
        let all_same = self
            .parts
            .iter()
            .chain(&other.parts)
            .all(|(r, _)| *r == root);
        if !all_same {
            return None;
        }
        let join = |r: Restriction| -> Pred {
            let mut ps: Vec<Pred> = r.parts.into_iter().map(|(_, p)| p).collect();
            if ps.len() == 1 {
                ps.remove(0)
            } else {
                Pred::And(ps)
            }
        };
        Some(Restriction {
            parts: vec![(root, Pred::Or(vec![join(self), join(other)]))],
            complete: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        parse_version(s).unwrap()
    }

    #[test]
    fn predicates_compare_like_python_code_means() {
        let ge24 = Pred::Cmp(Op::Ge, Bound::parse_str("2.4").unwrap());
        assert!(ge24.admits(&v("2.4.0")));
        assert!(ge24.admits(&v("2.10.0")));
        assert!(!ge24.admits(&v("2.3.1+cu121")));
        let tup = Pred::Cmp(Op::Ge, Bound::Tuple(vec![2, 4]));
        assert!(tup.admits(&v("2.4.1")));
        assert!(!tup.admits(&v("2.3.1")));
        let eq = Pred::Cmp(Op::Eq, Bound::Tuple(vec![2, 4]));
        assert!(eq.admits(&v("2.4.1")));
        let sw = Pred::StartsWith(vec!["2.4".into()]);
        assert!(sw.admits(&v("2.4.1")));
        assert!(!sw.admits(&v("2.5.0")));
        assert!(Pred::Not(Box::new(sw)).admits(&v("2.5.0")));
    }
}
