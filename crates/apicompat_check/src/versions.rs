//! Version checks in conditions (`torch.__version__ >= "2.4"`, `Version(torch.__version__) <
//! Version("2.0")`, `TORCH_VERSION >= (2, 4)`, `torch.__version__.startswith("2.")`): which
//! releases a branch runs on.

use std::cmp::Ordering;

use apicompat_requirements::{parse_version, Version};

use crate::version_terms::{test_holds, Term};

/// A comparison operator, as written with the version on the left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

    pub(crate) fn holds(self, ord: Ordering) -> bool {
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
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Bound {
    /// A PEP 440 version: compared as versions (as `packaging` and torch's `TorchVersion` do).
    Version(#[serde(with = "version_text")] Version),
    /// A tuple of integers: compared with the release's first as many components.
    Tuple(Vec<u64>),
    /// A module-level string constant of the project, by name: resolved by
    /// [`resolve_helpers`]; until then the condition is not understood.
    Named(String),
}

impl Bound {
    pub fn parse_str(s: &str) -> Option<Bound> {
        parse_version(s.trim()).ok().map(Bound::Version)
    }

    /// The bound with a named constant replaced by its value.
    fn resolved(&self, constants: &dyn Fn(&str) -> Option<String>) -> Option<Bound> {
        match self {
            Bound::Named(n) => Bound::parse_str(&constants(n)?),
            b => Some(b.clone()),
        }
    }
}

/// A condition on the release of one package.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Pred {
    Cmp(Op, Bound),
    /// `__version__.startswith(...)` with any of these prefixes.
    StartsWith(Vec<String>),
    /// `"0.15.2" in __version__`: the version's text holds this string.
    Contains(String),
    Not(Box<Pred>),
    And(Vec<Pred>),
    Or(Vec<Pred>),
    /// A call of a function defined elsewhere in the project with a version constant
    /// (`is_torch_greater_or_equal("2.4")`), under [`HELPER_ROOT`]: [`resolve_helpers`] turns it
    /// into a comparison once every file's [`VersionHelper`]s are known. Until then a condition
    /// that contains one admits every release (it is not understood).
    Helper {
        name: String,
        /// The arguments of the call as far as they were understood (see [`HelperCall`]).
        call: HelperCall,
    },
    /// A test of a value computed from the version (`float(V.split(".")[1]) < 7`), evaluated
    /// with each release's version string ([`crate::version_terms`]).
    Eval(Box<(Term, Op, Term)>),
}

/// A call of a version helper defined in another file: what its arguments say. Its shape is
/// checked against the helper once that is known: `h(V)`, `h(OP, V)` (an operator string
/// first) or `h(VERSION, OP, V)` (a comparator given the version compared: a value derived
/// from a package's version, or the package's name).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HelperCall {
    /// The version given (`None`: no argument that is one, for helpers that imply a
    /// condition whatever their arguments).
    pub arg: Option<Bound>,
    pub op: Option<Op>,
    pub root: Option<String>,
    /// How many positional arguments the call passes.
    pub args: usize,
    /// Operators passed by keyword (`op="ge"`), by parameter name.
    pub op_keywords: Vec<(String, Op)>,
    /// Keyword arguments that are versions (`min_version="4.52.0"`), for helpers with bounds.
    pub keywords: Vec<(String, Bound)>,
    /// The version given as a pip-style specifier with operators (`">=2.0"`, `">1.2,<2"`),
    /// for comparators that read one ([`VersionHelper::spec`]).
    pub spec: Vec<(Op, Bound)>,
    /// Every positional argument, when all are versions (`in_range("4.45", "4.47.1")`), for
    /// helpers with bounds.
    pub positional: Vec<Bound>,
    /// A call that is a statement of its own (`check_compatibility()`): only a helper that
    /// [`VersionHelper::asserts`] says anything there, and such a helper nothing elsewhere.
    pub statement: bool,
    /// The one argument, a string that is no version: a key, for a helper whose parameter is
    /// a key of a dict of versions ([`VersionHelper::table`]).
    #[serde(default)]
    pub key: Option<String>,
}

impl HelperCall {
    /// Whether a version it gives is a name (a constant to resolve), not written out.
    pub fn names_a_value(&self) -> bool {
        let named = |b: &Bound| matches!(b, Bound::Named(_));
        self.arg.as_ref().is_some_and(named)
            || self.positional.iter().any(named)
            || self.keywords.iter().any(|(_, b)| named(b))
            || self.spec.iter().any(|(_, b)| named(b))
    }
}

/// How many helpers that imply a condition may chain (`.is_fsdp2` -> `.fsdp_version==2` ->
/// `is_torch_version`); deeper chains are not understood.
const MAX_IMPLIED_DEPTH: u8 = 4;

/// The package name under which conditions on project helpers wait to be resolved.
pub const HELPER_ROOT: &str = "?helper";

/// A module-level name bound to a package's version (`TORCH_VERSION =
/// str(torch.__version__)`) is recorded among the constants as this prefix and the package;
/// a comparator given a name imported from another module of the project waits for it
/// under this prefix and the name ([`HelperCall::root`]).
pub const VERSION_OF: &str = "?version-of:";

/// The package a comparator's version argument stands for: a root, or an imported name
/// bound to a package's version in the module that defines it (see [`VERSION_OF`]).
fn root_of(root: &str, constants: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    match root.strip_prefix(VERSION_OF) {
        Some(name) => constants(name)?
            .strip_prefix(VERSION_OF)
            .map(str::to_string),
        None => Some(root.to_string()),
    }
}

/// A function that compares an indexed package's version with its parameter:
/// `def is_torch_greater_or_equal(v): return parse(torch.__version__) >= parse(v)`, so that
/// `helper(X)` is the condition `VERSION op X`. The operator may be a parameter too, given as a
/// string and looked up in a table (`def is_torch_version(operation, version): return
/// OPS[operation](torch_version, parse(version))`), and so may the version compared (a
/// comparator: `compare_versions(library_or_version, operation, requirement_version)`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VersionHelper {
    /// The top-level module whose version is compared (`torch`); empty for a comparator.
    pub root: String,
    /// The comparison, with the version on the left (unless the operator is a parameter).
    pub op: Op,
    /// The parameter compared, by name and position.
    pub param: String,
    pub position: usize,
    /// The position of the parameter that gives the operator as a string (`">="`).
    pub op_param: Option<usize>,
    /// Its name, for a call that passes it by keyword (`compare(v, op="ge")`).
    pub op_keyword: String,
    /// For a comparator: the position of the parameter holding the version compared.
    pub version_param: Option<usize>,
    /// For a function whose `True` results all come after early exits that return a false
    /// value under version conditions (`if is_torch_version("<=", "2.6"): return False`):
    /// what a true result implies (none of those conditions held), whatever the arguments.
    pub implies: Option<(String, Pred)>,
    /// The result *is* the implied condition (`def is_pippy_available(): return
    /// is_torch_version(">=", "2.4.0")`), so `not h()` is its negation.
    pub exact: bool,
    /// The helper hands the comparison to this function of another module (`return
    /// compare_versions(numpy_version, ">=", min_version)`): it is a helper only if that
    /// function is a comparator of the project.
    pub via: Option<String>,
    /// A module-level flag (`is_transformers_ge_v5_4_0 = parse(transformers.__version__) >=
    /// parse("5.4.0")`), read by name ([`FLAG_REF`]) in the modules that import it.
    pub flag: bool,
    /// For a helper with optional bounds (`def in_range(min_version=None, max_version=None)`
    /// comparing the version with each one given): each bound parameter's position, name and
    /// comparison (the version on the left). The call's condition is every bound it gives.
    pub bounds: Vec<(usize, String, Op)>,
    /// The compared parameter holds a pip-style specifier (`"2.4.0"` meaning `>=2.4.0`,
    /// `">=2.0,<3"`): ultralytics' `check_version(current, required)`.
    pub spec: bool,
    /// The function returns only where `implies` holds (`def check(): assert TORCH_GE_2_6`,
    /// or `if not C: raise`): a call of it as a statement implies it for what follows in the
    /// block; its result says nothing.
    pub asserts: bool,
    /// A true result implies the comparison, a false one says nothing: early exits return
    /// `False` under other tests first (`if not is_torch_available(): return False`), so `not
    /// h(...)` is no condition. (Absent from a helper stored by an older build: false.)
    #[serde(default)]
    pub one_way: bool,
    /// The comparison is of the releases' components (`parse(V).release >= parse(P).release`):
    /// the bound given is a tuple of its release ([`Bound::Tuple`]; `2.4.0rc1` passes `>= 2.4.0`).
    #[serde(default)]
    pub release: bool,
    /// The parameter is a key of this module-level dict of versions (`MINIMUM.get(name,
    /// DEFAULT)`, `MINIMUM[name]`): the bound is the version the dict gives the key passed
    /// (a constant `MINIMUM[key]`, see [`table_entry`]).
    #[serde(default)]
    pub table: Option<String>,
}

/// The name of the constant holding the entry `key` of the module-level dict `table`.
pub fn table_entry(table: &str, key: &str) -> String {
    format!("{table}[{key:?}]")
}

/// [`HelperCall::args`] of a name read as a condition (`if not is_x_ge_v5:`), not called.
pub const FLAG_REF: usize = usize::MAX;

impl VersionHelper {
    /// A helper whose result is `V op P`: `V` the version of `root`, `P` its parameter `param`
    /// (at `position`).
    pub fn comparison(root: String, op: Op, param: String, position: usize) -> VersionHelper {
        VersionHelper {
            root,
            op,
            param,
            position,
            op_param: None,
            op_keyword: String::new(),
            version_param: None,
            implies: None,
            exact: false,
            via: None,
            flag: false,
            bounds: Vec::new(),
            spec: false,
            asserts: false,
            one_way: false,
            release: false,
            table: None,
        }
    }

    /// The condition of a specifier given to a [`VersionHelper::spec`] comparator.
    pub fn spec_condition(
        &self,
        spec: &[(Op, Bound)],
        root: Option<&str>,
    ) -> Option<(String, Pred)> {
        if !self.spec || spec.is_empty() || self.version_param.is_none() {
            return None;
        }
        let mut preds: Vec<Pred> = spec
            .iter()
            .map(|(op, b)| Pred::Cmp(*op, b.clone()))
            .collect();
        let pred = if preds.len() == 1 {
            preds.pop()?
        } else {
            Pred::And(preds)
        };
        Some((root?.to_string(), pred))
    }

    /// For a helper with bounds: the condition of the bounds a call gives (all of them), each
    /// value found by `given(position, name)`; `None` when it gives none (the call is always
    /// true).
    pub fn bounded(&self, mut given: impl FnMut(usize, &str) -> Option<Bound>) -> Option<Pred> {
        let mut preds: Vec<Pred> = self
            .bounds
            .iter()
            .filter_map(|(position, name, op)| Some(Pred::Cmp(*op, given(*position, name)?)))
            .collect();
        match preds.len() {
            0 => None,
            1 => preds.pop(),
            _ => Some(Pred::And(preds)),
        }
    }

    /// The condition a call stands for: `arg` the version given, `op` the operator string's
    /// meaning where the helper takes one, `root` the package whose version a comparator is
    /// given. `None` when the call does not give what the helper needs.
    pub fn condition(
        &self,
        arg: Bound,
        op: Option<Op>,
        root: Option<&str>,
    ) -> Option<(String, Pred)> {
        let op = match self.op_param {
            Some(_) => op?,
            None => self.op,
        };
        let root = match self.version_param {
            Some(_) => root?.to_string(),
            None => self.root.clone(),
        };
        let arg = match (self.release, arg) {
            (true, Bound::Version(v)) => Bound::Tuple(v.release().to_vec()),
            (_, arg) => arg,
        };
        Some((root, Pred::Cmp(op, arg)))
    }

    /// The shape a call from another file must have ([`HelperCall`]).
    fn accepts(&self, call: &HelperCall) -> bool {
        if self.asserts || call.statement {
            return self.asserts && call.statement;
        }
        if self.flag || call.args == FLAG_REF {
            return self.flag && call.args == FLAG_REF;
        }
        if self.implies.is_some() {
            return true;
        }
        if !self.bounds.is_empty() {
            let versions_only = call.args <= 1 || call.positional.len() == call.args;
            return versions_only && call.op.is_none() && call.root.is_none();
        }
        if !call.spec.is_empty() && !self.spec {
            return false;
        }
        // The operator by keyword, the version by position or keyword:
        // `compare_pytorch_version("v2.0.0", op="ge")`.
        if self.version_param.is_none() && self.op_param.is_some() && call.op.is_none() {
            let op_given = call.op_keywords.iter().any(|(k, _)| *k == self.op_keyword);
            let version_given = (call.args == 1 && self.position == 0 && call.arg.is_some())
                || (call.args == 0 && call.keywords.iter().any(|(k, _)| *k == self.param));
            return op_given && version_given;
        }
        match (self.version_param, self.op_param) {
            (None, None) => call.args == 1 && self.position == 0,
            (None, Some(0)) => call.args == 2 && self.position == 1 && call.op.is_some(),
            (Some(0), None) => call.args == 2 && self.position == 1 && call.root.is_some(),
            (Some(0), Some(1)) => call.args == 3 && self.position == 2,
            _ => false,
        }
    }
}

impl Op {
    /// `">="` and the like, as operator tables map them.
    pub fn from_operator(s: &str) -> Option<Op> {
        Some(match s.trim() {
            "<" => Op::Lt,
            "<=" => Op::Le,
            "==" => Op::Eq,
            "!=" => Op::Ne,
            ">=" => Op::Ge,
            ">" => Op::Gt,
            // The names of `operator`'s functions and of the comparison methods
            // (`getattr(v, f"__{op}__")`).
            "lt" => Op::Lt,
            "le" => Op::Le,
            "eq" => Op::Eq,
            "ne" => Op::Ne,
            "ge" => Op::Ge,
            "gt" => Op::Gt,
            _ => return None,
        })
    }
}

impl Pred {
    /// Whether the condition calls a helper or names a constant not resolved (yet).
    pub fn has_helper_call(&self) -> bool {
        match self {
            Pred::Helper { .. } | Pred::Cmp(_, Bound::Named(_)) => true,
            Pred::Not(p) => p.has_helper_call(),
            Pred::And(ps) | Pred::Or(ps) => ps.iter().any(Pred::has_helper_call),
            Pred::Eval(test) => test.0.has_project() || test.2.has_project(),
            Pred::Cmp(..) | Pred::StartsWith(_) | Pred::Contains(_) => false,
        }
    }

    /// Whether a release satisfies the condition. Local labels are dropped first
    /// (`2.1.2+cu121` compares as `2.1.2`). A condition with an unresolved helper call, or
    /// whose value on the release cannot be known, admits every release.
    pub fn admits(&self, version: &Version) -> bool {
        if self.has_helper_call() {
            return true;
        }
        self.holds(version).unwrap_or(true)
    }

    /// Whether the condition holds on a release; `None` when that cannot be known (a test
    /// [`Pred::Eval`] could not compute), with `and`, `or` and `not` over the known parts.
    fn holds(&self, version: &Version) -> Option<bool> {
        Some(match self {
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
            Pred::Contains(part) => version.to_string().contains(part.as_str()),
            Pred::Eval(test) => {
                let (left, op, right) = &**test;
                return test_holds(left, *op, right, version);
            }
            Pred::Not(p) => !p.holds(version)?,
            Pred::And(ps) => return Pred::joined(ps, false, version),
            Pred::Or(ps) => return Pred::joined(ps, true, version),
            Pred::Helper { .. } | Pred::Cmp(_, Bound::Named(_)) => true,
        })
    }

    /// `and` (`decisive` false) or `or` (`decisive` true) of `ps` on a release: `decisive` as
    /// soon as one part is, else unknown if one part is, else the other value.
    fn joined(ps: &[Pred], decisive: bool, version: &Version) -> Option<bool> {
        let mut out = Some(!decisive);
        for p in ps {
            match p.holds(version) {
                Some(b) if b == decisive => return Some(decisive),
                Some(_) => {}
                None => out = None,
            }
        }
        out
    }

    /// The condition with each helper call replaced by the comparison it stands for, and the
    /// package the comparisons are about; `None` when a helper is unknown or two helpers are
    /// about different packages.
    fn resolved(&self, tables: &Tables) -> Option<(Pred, Option<String>)> {
        self.resolved_in(tables, false, 0)
    }

    /// [`Pred::resolved`]; `negated` under an odd number of `not`s, where a helper that only
    /// implies a condition (when true) says nothing.
    fn resolved_in(
        &self,
        tables: &Tables,
        negated: bool,
        depth: u8,
    ) -> Option<(Pred, Option<String>)> {
        let (helpers, constants) = (tables.helpers, tables.constants);
        let join = |ps: &[Pred]| -> Option<(Vec<Pred>, Option<String>)> {
            let mut out = Vec::with_capacity(ps.len());
            let mut root: Option<String> = None;
            for p in ps {
                let (q, r) = p.resolved_in(tables, negated, depth)?;
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
            Pred::Helper { name, call } => {
                let h = helpers(name).filter(|h| h.accepts(call))?;
                if negated && h.one_way {
                    return None;
                }
                if let Some((root, implied)) = &h.implies {
                    if negated && !h.exact {
                        return None;
                    }
                    // The implied condition may call helpers itself (a property implying
                    // an object's state, which implies a version): a few levels more.
                    if depth >= MAX_IMPLIED_DEPTH {
                        return None;
                    }
                    // Under a negation the implied condition is negated too: a one-way helper
                    // in it says nothing there.
                    let (pred, found) = implied.resolved_in(tables, negated, depth + 1)?;
                    let root = if root == HELPER_ROOT {
                        found?
                    } else {
                        root.clone()
                    };
                    return Some((pred, Some(root)));
                }
                if !h.bounds.is_empty() {
                    let pred = h.bounded(|position, name| {
                        let given = call
                            .keywords
                            .iter()
                            .find(|(k, _)| k == name)
                            .map(|(_, b)| b);
                        let positional = (position == 0 && call.args == 1)
                            .then_some(call.arg.as_ref())
                            .flatten()
                            .or_else(|| call.positional.get(position));
                        given.or(positional)?.resolved(constants)
                    })?;
                    return Some((pred, Some(h.root.clone())));
                }
                let given = match &call.root {
                    Some(r) => Some(root_of(r, constants)?),
                    None => None,
                };
                if !call.spec.is_empty() {
                    let (root, pred) = h.spec_condition(&call.spec, given.as_deref())?;
                    return Some((pred, Some(root)));
                }
                let arg = match (&h.table, &call.key, &call.arg) {
                    (Some(table), Some(key), _) => Bound::Named(table_entry(table, key)),
                    (Some(_), None, _) => return None,
                    (None, _, Some(a)) => a.clone(),
                    (None, _, None) => call.keywords.iter().find(|(k, _)| *k == h.param)?.1.clone(),
                };
                let arg = arg.resolved(constants)?;
                let op = call.op.or_else(|| {
                    call.op_keywords
                        .iter()
                        .find(|(k, _)| *k == h.op_keyword)
                        .map(|(_, o)| *o)
                });
                let (root, pred) = h.condition(arg, op, given.as_deref())?;
                (pred, Some(root))
            }
            Pred::Cmp(op, b @ Bound::Named(_)) => (Pred::Cmp(*op, b.resolved(constants)?), None),
            // A test of a value another module computes from a version: that computation.
            Pred::Eval(test) if self.has_helper_call() => {
                let (left, op, right) = &**test;
                let mut root = None;
                let left = left.resolved(tables.values, &mut root, 0)?;
                let right = right.resolved(tables.values, &mut root, 0)?;
                (Pred::Eval(Box::new((left, *op, right))), Some(root?))
            }
            Pred::Not(p) => {
                let (q, r) = p.resolved_in(tables, !negated, depth)?;
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
/// What the other files of the project tell a condition: their version helpers, their
/// string constants, and their module-level values computed from a version (each by name).
pub struct Tables<'a> {
    pub helpers: &'a dyn Fn(&str) -> Option<VersionHelper>,
    pub constants: &'a dyn Fn(&str) -> Option<String>,
    pub values: &'a dyn Fn(&str) -> Option<(String, Term)>,
}

pub fn resolve_helpers(versions: &mut Vec<(String, Pred)>, tables: &Tables) {
    if !versions.iter().any(|(_, p)| p.has_helper_call()) {
        return;
    }
    let old = std::mem::take(versions);
    for (root, pred) in old {
        if !pred.has_helper_call() {
            versions.push((root, pred));
            continue;
        }
        match pred.resolved(tables) {
            Some((pred, Some(found))) if root == HELPER_ROOT => versions.push((found, pred)),
            Some((pred, None)) if root != HELPER_ROOT => versions.push((root, pred)),
            // A helper or constant not known (or about another package): the condition is
            // dropped, and the use is checked as if it were not conditional.
            _ => {}
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

/// A pip-style specifier as comparison checks read it (`">=2.0"`, `">1.2,<2"`; a bare
/// version means `>=`); `None` when a clause is not a comparison with a version.
pub fn parse_spec(s: &str) -> Option<Vec<(Op, Bound)>> {
    let mut out = Vec::new();
    for clause in s.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        let split = clause
            .find(|c: char| !matches!(c, '<' | '>' | '=' | '!' | '~' | ' '))
            .unwrap_or(clause.len());
        let (op, version) = clause.split_at(split);
        let op = match op.trim() {
            "" => Op::Ge,
            o => Op::from_operator(o)?,
        };
        out.push((op, Bound::parse_str(version)?));
    }
    (!out.is_empty()).then_some(out)
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

    #[test]
    fn specifiers_as_checks_read_them() {
        let v = |s: &str| Bound::parse_str(s).unwrap();
        assert_eq!(parse_spec("2.4.0"), Some(vec![(Op::Ge, v("2.4.0"))]));
        assert_eq!(
            parse_spec(">1.2, <2"),
            Some(vec![(Op::Gt, v("1.2")), (Op::Lt, v("2"))])
        );
        assert_eq!(parse_spec("==22.04,"), Some(vec![(Op::Eq, v("22.04"))]));
        assert_eq!(parse_spec("~=2.0"), None);
        assert_eq!(parse_spec(">=abc"), None);
        assert_eq!(parse_spec(""), None);
    }
}

/// A [`Version`] written as its text (the form of a helper stored in an index,
/// `crate::indexed_helpers`).
mod version_text {
    use apicompat_requirements::{parse_version, Version};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Version, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Version, D::Error> {
        let text = String::deserialize(d)?;
        parse_version(&text).map_err(serde::de::Error::custom)
    }
}
