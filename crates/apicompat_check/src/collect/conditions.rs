//! Conditions (`cond_info`): what a test says about releases and names, test markers and other
//! decorators (the project's version helpers are read in `helper_calls.rs`).

pub(super) use super::returns::{has_return, returns_false};
use ruff_python_ast::{self as ast, Expr, Stmt};

pub(super) use super::params::{keyed_param_of, positional_names, version_param_of};
use super::*;
use crate::version_terms::Shape;

impl<'a> Walker<'a> {
    /// The conditions under which a function or class decorated with `decorators` runs its
    /// body: `unittest.skipUnless(C, ...)` (C), `unittest.skipIf(C, ...)` and
    /// `pytest.mark.skipif(C, ...)` (not C), and names bound to those (`require_fsdp2 =
    /// unittest.skipUnless(...)`) here or, resolved once every file is read, in another module.
    pub(super) fn decorator_conditions(
        &self,
        decorators: &[ast::Decorator],
    ) -> Vec<(String, Pred)> {
        let mut out = Vec::new();
        for d in decorators {
            if let Some(parts) = self.skip_condition(&d.expression) {
                out.extend(parts);
                continue;
            }
            let name = match &d.expression {
                Expr::Name(n) => match self.lookup(n.id.as_str()) {
                    Some(Bound::Helper(h)) => {
                        out.extend(h.implies.clone());
                        continue;
                    }
                    Some(Bound::Guarding(g)) => {
                        out.extend(g.versions.iter().cloned());
                        continue;
                    }
                    Some(_) => continue,
                    None => n.id.to_string(),
                },
                e @ Expr::Attribute(_) => match dotted(e) {
                    Some(d) if self.resolve(e).is_none() => last_segment(&d).to_string(),
                    _ => continue,
                },
                _ => continue,
            };
            let call = HelperCall::default();
            out.push((HELPER_ROOT.to_string(), Pred::Helper { name, call }));
        }
        out
    }

    /// The paths the guarding decorators of the file among `decorators` require, and what
    /// the condition of a test-skipping decorator says about paths where the body runs
    /// (`@pytest.mark.skipif(not hasattr(torch.ops.aten, "_grouped_mm"))`).
    pub(super) fn decorator_requires(&self, decorators: &[ast::Decorator]) -> Vec<PathTest> {
        let mut out = Vec::new();
        for d in decorators {
            if let Some((runs_if, cond)) = skip_call(&d.expression) {
                if runs_if {
                    self.reads_when_true(cond, &mut out);
                } else {
                    self.reads_when_false(cond, &mut out);
                }
                continue;
            }
            if let Expr::Name(n) = &d.expression {
                if let Some(Bound::Guarding(g)) = self.lookup(n.id.as_str()) {
                    out.extend(g.requires.iter().cloned());
                }
            }
        }
        out
    }

    /// The condition a test-skipping decorator lets the body run under.
    pub(super) fn skip_condition(&self, e: &Expr) -> Option<Vec<(String, Pred)>> {
        let (runs_if, cond) = skip_call(e)?;
        let info = self.cond_info(cond);
        if runs_if {
            Some(info.restriction.parts)
        } else {
            Some(info.restriction.negate()?.parts)
        }
    }

    /// The indexed package an expression names: `"torch"`, `torch.__name__` for a module bound
    /// to its top level, or a name bound to such a string.
    pub(super) fn package_named(&self, e: &Expr) -> Option<String> {
        let name = match e {
            Expr::Attribute(a) if a.attr.as_str() == "__name__" => {
                let (path, _) = self.resolve(&a.value)?;
                (!path.contains('.')).then_some(path)?
            }
            // `package_name = "vllm"` before.
            Expr::Name(n) => match self.lookup(n.id.as_str())? {
                Bound::Const(crate::version_terms::Term::Lit(
                    crate::version_terms::Value::Str(s),
                )) => s.clone(),
                _ => return None,
            },
            e => string_lit(e)?,
        };
        self.roots.contains(&name).then_some(name)
    }

    /// The package whose version a comparator is given: a value derived from its version, or
    /// its name (`compare_versions("torch", ">=", "2.4")`).
    pub(super) fn compared_root(&self, e: &Expr) -> Option<String> {
        if let Some(root) = self.version_root(e, 0) {
            return Some(root);
        }
        let name = string_lit(e)?;
        self.roots.contains(&name).then_some(name)
    }

    pub(super) fn cond_info(&self, expr: &Expr) -> CondInfo {
        let mut info = self.cond_info_of(expr);
        // A cleared flag's fact points at the test that cleared it.
        info.at = info.at.or(Some(expr.range()));
        info
    }

    /// What `not expr` says.
    fn negated(&self, expr: &Expr) -> CondInfo {
        let inner = self.cond_info(expr);
        // `x` one way (true implies its parts): `not x` false implies them.
        let (restriction, false_parts) = match inner.restriction.negate() {
            Some(r) => (r, Vec::new()),
            None => (
                Restriction {
                    parts: inner.false_parts,
                    complete: false,
                },
                inner.restriction.parts,
            ),
        };
        CondInfo {
            restriction,
            has: inner.has_neg,
            has_neg: inner.has,
            false_parts,
            ..CondInfo::default()
        }
    }

    /// `NAME == "text"` or `NAME != "text"` with `NAME` set to strings in the arms of a test
    /// (`flow.rs` `branch_flags`): what the comparison is bound to, in the scope a read of
    /// `NAME` sees.
    pub(super) fn compared_flag(&self, expr: &Expr, truth: bool) -> Option<&Bound> {
        let Expr::Compare(c) = expr else { return None };
        let ([op], [right]) = (&*c.ops, &*c.comparators) else {
            return None;
        };
        let equal = match op {
            ast::CmpOp::Eq => true,
            ast::CmpOp::NotEq => false,
            _ => return None,
        };
        let (name, value) = match (&*c.left, right) {
            (Expr::Name(n), Expr::StringLiteral(s)) | (Expr::StringLiteral(s), Expr::Name(n)) => {
                (n.id.as_str(), s.value.to_str())
            }
            _ => return None,
        };
        // Where it is false, the opposite comparison holds.
        let key = super::flow::compared_key(name, value, equal == truth);
        self.read_scope(name, |s| s.names.get(&key))
    }

    fn cond_info_of(&self, expr: &Expr) -> CondInfo {
        if let Some(Bound::Cond(r, has, _)) = self.compared_flag(expr, true) {
            let has_neg = match self.compared_flag(expr, false) {
                Some(Bound::Cond(_, has_neg, _)) => has_neg.clone(),
                _ => Vec::new(),
            };
            return CondInfo {
                restriction: r.clone(),
                has: has.clone(),
                has_neg,
                ..CondInfo::default()
            };
        }
        // `C is True` is `C`; `C is False` is `not C`.
        if let Some((inner, negated)) = bool_compared(expr) {
            return if negated {
                self.negated(inner)
            } else {
                self.cond_info_of(inner)
            };
        }
        // `"n" in dir(C)` is `hasattr(C, "n")`; `not in`, its negation.
        if let Some((object, n, positive)) = match expr {
            Expr::Compare(c) => self.dir_membership(c),
            _ => None,
        } {
            let has = vec![self.probed(object, &n)];
            let (has, has_neg) = if positive {
                (has, Vec::new())
            } else {
                (Vec::new(), has)
            };
            return CondInfo {
                restriction: incomplete(),
                has,
                has_neg,
                ..CondInfo::default()
            };
        }
        match expr {
            Expr::BoolOp(b) if b.op == ast::BoolOp::And => {
                let mut out = CondInfo {
                    restriction: Restriction {
                        parts: Vec::new(),
                        complete: true,
                    },
                    ..CondInfo::default()
                };
                for v in &b.values {
                    let i = self.cond_info(v);
                    out.restriction = out.restriction.and(i.restriction);
                    out.has.extend(i.has);
                }
                out
            }
            Expr::BoolOp(b) => {
                let mut restriction: Option<Restriction> = None;
                let mut has_neg = Vec::new();
                let mut ok = true;
                for v in &b.values {
                    let i = self.cond_info(v);
                    has_neg.extend(i.has_neg);
                    restriction = match restriction {
                        None => Some(i.restriction),
                        Some(r) => r.or(i.restriction),
                    };
                    ok &= restriction.is_some();
                }
                CondInfo {
                    restriction: restriction.filter(|_| ok).unwrap_or_else(incomplete),
                    has: Vec::new(),
                    has_neg,
                    ..CondInfo::default()
                }
            }
            Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => self.negated(&u.operand),
            Expr::Call(call) => {
                if let Some(has) = self.field_test(call) {
                    return CondInfo {
                        restriction: incomplete(),
                        has: vec![has],
                        ..CondInfo::default()
                    };
                }
                // A call of an indexed package's function counts as its helper only when no
                // other reading applies (`torch.__version__.startswith("2.5")`).
                let indexed = match self.helper_call(call) {
                    Some(r) if !super::helper_calls::calls_indexed(&r) => {
                        return CondInfo {
                            restriction: r,
                            ..CondInfo::default()
                        }
                    }
                    other => other,
                };
                if let Some(restriction) = self.requirement_call(call) {
                    return CondInfo {
                        restriction,
                        ..CondInfo::default()
                    };
                }
                let mut info = CondInfo {
                    restriction: incomplete(),
                    ..CondInfo::default()
                };
                let args = &call.arguments.args;
                let probe = (self.is_builtin(&call.func, "hasattr") && args.len() == 2)
                    || (self.is_builtin(&call.func, "getattr") && args.len() == 3);
                if probe {
                    if let Some(name) = string_lit(&args[1]) {
                        info.has.push(self.probed(&args[0], &name));
                    }
                    return info;
                }
                // `V.startswith("2.4")`, `V.startswith(("2.4", "2.5"))`.
                if let Expr::Attribute(a) = &*call.func {
                    if a.attr.as_str() == "startswith" {
                        if let (Some(root), [arg]) = (self.version_root(&a.value, 0), &**args) {
                            let prefixes = match arg {
                                Expr::Tuple(t) => t.elts.iter().map(string_lit).collect(),
                                e => string_lit(e).map(|s| vec![s]),
                            };
                            if let Some(p) = prefixes {
                                info.restriction = Restriction {
                                    parts: vec![(root, Pred::StartsWith(p))],
                                    complete: true,
                                };
                            }
                        }
                    }
                }
                if let Some(r) = indexed.filter(|_| info.restriction.parts.is_empty()) {
                    info.restriction = r;
                }
                info
            }
            Expr::Compare(c) => match self.keyword_test(c) {
                Some(has) => CondInfo {
                    restriction: incomplete(),
                    has: vec![has],
                    ..CondInfo::default()
                },
                None => {
                    let mut restriction = self.compare(c);
                    if restriction.parts.is_empty() {
                        // `plugin.fsdp_version == 2`: a state a constructor may tie to releases.
                        restriction.parts.extend(self.state_test(expr));
                    }
                    CondInfo {
                        restriction,
                        ..CondInfo::default()
                    }
                }
            },
            Expr::Attribute(a) => self.class_test(a).unwrap_or_else(|| CondInfo {
                // `self.is_fsdp2`: a property that may imply a state.
                restriction: Restriction {
                    parts: self.state_test(expr).into_iter().collect(),
                    complete: false,
                },
                ..CondInfo::default()
            }),
            Expr::Name(n) => {
                // A flag cleared unless a test held (`cleared.rs`).
                if let Some(fact) = self.cleared_fact(n.id.as_str()) {
                    return fact;
                }
                match self.lookup(n.id.as_str()) {
                    Some(Bound::Cond(r, has, _)) => CondInfo {
                        restriction: r.clone(),
                        has: has.clone(),
                        ..CondInfo::default()
                    },
                    None => self.flag_ref(n.id.as_str()).unwrap_or_else(|| CondInfo {
                        restriction: incomplete(),
                        ..CondInfo::default()
                    }),
                    // A flag of an indexed package (`is_torch_greater_or_equal_than_2_1` from
                    // `transformers.pytorch_utils`), if the index has one.
                    Some(Bound::Path { path, .. }) => self.indexed_flag_ref(path),
                    _ => CondInfo {
                        restriction: incomplete(),
                        ..CondInfo::default()
                    },
                }
            }
            _ => CondInfo {
                restriction: incomplete(),
                ..CondInfo::default()
            },
        }
    }

    /// The path a probe of `object` for `name` tests (`hasattr`, `getattr` with a default):
    /// on an object of unknown type, `?.name`, which guards member reads of the name.
    /// `C.SUPPORTED`, a class attribute its class body binds to a test.
    fn class_test(&self, a: &ast::ExprAttribute) -> Option<CondInfo> {
        let Expr::Name(c) = &*a.value else {
            return None;
        };
        match self.lookup(&format!("{}.{}", c.id, a.attr))? {
            Bound::Cond(r, has, _) => Some(CondInfo {
                restriction: r.clone(),
                has: has.clone(),
                ..CondInfo::default()
            }),
            _ => None,
        }
    }

    fn probed(&self, object: &Expr, name: &str) -> String {
        match self.resolve(object) {
            Some((path, _)) => format!("{path}.{name}"),
            None => format!("?.{name}"),
        }
    }

    /// `"k" in inspect.signature(f).parameters` and `any(x.name == "k" for x in
    /// dataclasses.fields(C))`: the callee accepts keyword `k` where the test is true (the
    /// `has` entry `f(k=)`).
    pub(super) fn keyword_test(&self, c: &ast::ExprCompare) -> Option<String> {
        let ([ast::CmpOp::In], [right]) = (&*c.ops, &*c.comparators) else {
            return None;
        };
        let k = string_lit(&c.left)?;
        let Expr::Attribute(params) = right else {
            return self.listed_keyword(&k, right);
        };
        if params.attr.as_str() != "parameters" {
            return None;
        }
        let path = match &*params.value {
            // `sig = inspect.signature(f)` earlier.
            Expr::Name(n) => match self.lookup(n.id.as_str()) {
                Some(Bound::Signature(path)) => path.clone(),
                _ => return None,
            },
            value => self.signature_of(value)?,
        };
        Some(format!("{path}({k}=)"))
    }

    /// `inspect.signature(f)` (any function named `signature`) of an indexed `f`: its path.
    pub(super) fn signature_of(&self, value: &Expr) -> Option<String> {
        let Expr::Call(call) = value else {
            return None;
        };
        if last_segment(&dotted(&call.func)?) != "signature" {
            return None;
        }
        Some(self.resolve(call.arguments.args.first()?)?.0)
    }

    /// `any(x.name == "k" for x in dataclasses.fields(C))`: see [`Walker::keyword_test`].
    pub(super) fn field_test(&self, call: &ast::ExprCall) -> Option<String> {
        if !self.is_builtin(&call.func, "any") {
            return None;
        }
        let [Expr::Generator(g)] = &*call.arguments.args else {
            return None;
        };
        let [gen] = &*g.generators else {
            return None;
        };
        let Expr::Call(fields) = &gen.iter else {
            return None;
        };
        if last_segment(&dotted(&fields.func)?) != "fields" {
            return None;
        }
        let (path, _) = self.resolve(fields.arguments.args.first()?)?;
        let Expr::Compare(cmp) = &*g.elt else {
            return None;
        };
        let ([ast::CmpOp::Eq], [right]) = (&*cmp.ops, &*cmp.comparators) else {
            return None;
        };
        let is_name = |e: &Expr| matches!(e, Expr::Attribute(a) if a.attr.as_str() == "name");
        let k = match (is_name(&cmp.left), is_name(right)) {
            (true, _) => string_lit(right)?,
            (_, true) => string_lit(&cmp.left)?,
            _ => return None,
        };
        Some(format!("{path}({k}=)"))
    }

    /// The top-level module whose version an expression is derived from.
    pub(super) fn version_root(&self, expr: &Expr, depth: usize) -> Option<String> {
        if depth > 12 {
            return None;
        }
        let d = depth + 1;
        match expr {
            Expr::Name(n) => match self.lookup(n.id.as_str())? {
                Bound::VersionOf(r) => Some(r.clone()),
                // One component or a number is not the version (`evaluated_test` reads it).
                Bound::VersionTerm(r, t) if t.shape() != Shape::Other => Some(r.clone()),
                Bound::Path { path, .. } if names_version(path) => {
                    path.split('.').next().map(str::to_string)
                }
                Bound::Path { path, .. } if path == PYTHON_VERSION => Some("sys".to_string()),
                _ => None,
            },
            Expr::Attribute(a) => {
                if a.attr.as_str() == "__version__" {
                    let (path, _) = self.resolve(expr)?;
                    return path.split('.').next().map(str::to_string);
                }
                // `np.version.full_version`: the package's generated `version` module.
                if VERSION_MODULE_NAMES.contains(&a.attr.as_str()) {
                    if let Some((path, _)) = self.resolve(expr) {
                        if names_version(&path) {
                            return path.split('.').next().map(str::to_string);
                        }
                    }
                }
                // `sys.version_info`: the version of Python (the `python` package, which owns
                // `sys`); its fields (`.minor`) are numbers, not versions.
                if a.attr.as_str() == "version_info" {
                    let (path, _) = self.resolve(expr)?;
                    return (path == PYTHON_VERSION).then(|| "sys".to_string());
                }
                if let Expr::Attribute(inner) = &*a.value {
                    if inner.attr.as_str() == "version_info" {
                        return None;
                    }
                }
                self.version_root(&a.value, d)
            }
            Expr::Call(call) => {
                if let Expr::Attribute(a) = &*call.func {
                    // `V.split(".")`, `V.replace(...)`.
                    if let Some(r) = self.version_root(&a.value, d) {
                        return Some(r);
                    }
                }
                // `_get_package_version("torch")`, a getter of this file.
                if let Expr::Name(f) = &*call.func {
                    match self.lookup(f.id.as_str()) {
                        Some(Bound::VersionGetter(at)) => {
                            return self.package_named(call.arguments.args.get(*at)?);
                        }
                        Some(Bound::VersionReturner(root)) if call.arguments.is_empty() => {
                            return Some(root.clone());
                        }
                        // A function of another module named for a version, given only a
                        // package's name (nequip's `get_version_safe(torch.__name__)`, which
                        // maps the module to its distribution in a `try`): that version.
                        None if f.id.to_ascii_lowercase().contains("version") => {
                            if let ([arg], true) =
                                (&*call.arguments.args, call.arguments.keywords.is_empty())
                            {
                                if let Some(root) = self.package_named(arg) {
                                    return Some(root);
                                }
                            }
                        }
                        _ => {}
                    }
                }
                let name = dotted(&call.func)?;
                let last = last_segment(&name);
                // `platform.python_version()`: the version of Python.
                if last == "python_version" && call.arguments.is_empty() {
                    let (path, _) = self.resolve(&call.func)?;
                    return (path == "platform.python_version").then(|| "platform".to_string());
                }
                // `importlib.metadata.version("torch")` (also imported as `version`).
                if is_metadata_version(&name) {
                    if let [arg] = &*call.arguments.args {
                        if let Some(dist) = string_lit(arg) {
                            return self.roots.contains(&dist).then_some(dist);
                        }
                    }
                }
                if VERSION_PARSERS.contains(&last) || matches!(last, "tuple" | "list" | "map") {
                    return call
                        .arguments
                        .args
                        .iter()
                        .find_map(|a| self.version_root(a, d));
                }
                None
            }
            // `V.split(".")[1]` is one component, not the version (`V.split("+")[0]` is).
            Expr::Subscript(s) if component_of_split(s) => None,
            Expr::Subscript(s) => self.version_root(&s.value, d),
            Expr::Generator(g) => g
                .generators
                .iter()
                .find_map(|c| self.version_root(&c.iter, d)),
            Expr::ListComp(g) => g
                .generators
                .iter()
                .find_map(|c| self.version_root(&c.iter, d)),
            _ => None,
        }
    }
}

/// `X.split(".")[i]` or `X.split()[i]`: one item of a split on dots (or whitespace).
fn component_of_split(s: &ast::ExprSubscript) -> bool {
    if matches!(&*s.slice, Expr::Slice(_)) {
        return false;
    }
    let Expr::Call(call) = &*s.value else {
        return false;
    };
    let Expr::Attribute(a) = &*call.func else {
        return false;
    };
    a.attr.as_str() == "split"
        && match call.arguments.args.first() {
            None => true,
            Some(sep) => string_lit(sep).as_deref() == Some("."),
        }
}

/// The tuple of the running Python's version.
const PYTHON_VERSION: &str = "sys.version_info";

/// The names a package's generated `version` module gives its version string (numpy's and
/// scipy's `version.py`: `version`, `full_version`, `short_version`; torch's `__version__`).
const VERSION_MODULE_NAMES: [&str; 4] = ["version", "full_version", "short_version", "__version__"];

/// Whether `path` holds its top-level package's version: `torch.__version__`, or a name of
/// [`VERSION_MODULE_NAMES`] in the package's `version` module (`numpy.version.full_version`;
/// not `torch.version.cuda`).
pub(super) fn names_version(path: &str) -> bool {
    if last_segment(path) == "__version__" {
        return true;
    }
    let mut parts = path.split('.');
    matches!(
        (parts.next(), parts.next(), parts.next(), parts.next()),
        (Some(_), Some("version"), Some(name), None) if VERSION_MODULE_NAMES.contains(&name)
    )
}

/// Whether an attribute of that name may hold a package's version ([`names_version`] says
/// whether it does, once resolved).
pub(super) fn names_version_attr(attr: &str) -> bool {
    VERSION_MODULE_NAMES.contains(&attr)
}

/// The parameter that names the operator of a call `OPS[op](...)`, or `op(...)` after
/// `op = OPS[op]` in `body` (a lookup keyed by the parameter itself).
pub(super) fn op_lookup<'p>(func: &Expr, body: &[Stmt], positional: &[&'p str]) -> Option<&'p str> {
    let keyed = |e: &Expr| -> Option<&'p str> {
        let Expr::Subscript(s) = e else {
            return None;
        };
        let (Expr::Name(_), Expr::Name(k)) = (&*s.value, &*s.slice) else {
            return None;
        };
        positional.iter().copied().find(|p| *p == k.id.as_str())
    };
    if let Some(p) = keyed(func) {
        return Some(p);
    }
    let Expr::Name(f) = func else {
        return None;
    };
    let p = positional.iter().copied().find(|p| *p == f.id.as_str())?;
    let assigned = |keyed_only: bool| {
        body.iter().any(|s| match s {
            Stmt::Assign(a) => {
                matches!(&*a.targets, [Expr::Name(t)] if t.id.as_str() == p)
                    && (!keyed_only || keyed(&a.value) == Some(p))
            }
            _ => false,
        })
    };
    // `op = OPS[op]` before, or the parameter itself called: `operator(v, Version(target))`
    // with `operator.ge` passed (liger-kernel's `compare_version`).
    (assigned(true) || !assigned(false)).then_some(p)
}

/// A helper that implies the conditions `parts` (about one package), whatever its arguments.
pub(super) fn implying(parts: Vec<(String, Pred)>) -> Option<VersionHelper> {
    let root = parts.first()?.0.clone();
    if parts.iter().any(|(r, _)| *r != root) {
        return None;
    }
    let preds: Vec<Pred> = parts.into_iter().map(|(_, p)| p).collect();
    let pred = match <[Pred; 1]>::try_from(preds) {
        Ok([p]) => p,
        Err(preds) => Pred::And(preds),
    };
    Some(VersionHelper {
        root: root.clone(),
        op: Op::Eq,
        param: String::new(),
        position: usize::MAX,
        op_param: None,
        op_keyword: String::new(),
        version_param: None,
        implies: Some((root, pred)),
        exact: false,
        via: None,
        flag: false,
        bounds: Vec::new(),
        spec: false,
        asserts: false,
        one_way: false,
        release: false,
        table: None,
    })
}

/// A statement that lets the rest of its block run only where a test holds: `assert T` (`T`,
/// true) or `if T: ...; raise ...` without `else` (`T`, false: the rest runs where it is
/// false). For constructors ([`Walker::init_guard`]) and asserting functions.
pub(super) fn leading_check(stmt: &Stmt) -> Option<(&Expr, bool)> {
    match stmt {
        Stmt::Assert(a) => Some((&*a.test, true)),
        Stmt::If(i)
            if i.elif_else_clauses.is_empty() && matches!(i.body.last(), Some(Stmt::Raise(_))) =>
        {
            Some((&*i.test, false))
        }
        _ => None,
    }
}

/// `">="` and the other operator strings.
pub(super) fn op_string(e: &Expr) -> Option<Op> {
    match e {
        // `operator.ge`, `operator.__ge__`.
        Expr::Attribute(a) if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "operator") => {
            Op::from_operator(a.attr.as_str().trim_matches('_'))
        }
        e => Op::from_operator(&string_lit(e)?),
    }
}

/// A version argument: a constant, or the name of a module-level string constant of the
/// project (`XPU_MIN_VERSION`, `constants.XPU_MIN_VERSION`), resolved once every file is read.
pub(super) fn version_arg(e: &Expr) -> Option<VBound> {
    const_bound(e).or_else(|| match e {
        Expr::Name(n) => Some(VBound::Named(n.id.to_string())),
        Expr::Attribute(a) => Some(VBound::Named(a.attr.to_string())),
        _ => None,
    })
}

pub(super) fn const_bound(expr: &Expr) -> Option<VBound> {
    match expr {
        Expr::StringLiteral(s) => VBound::parse_str(s.value.to_str()),
        Expr::Tuple(t) => {
            let mut out = Vec::new();
            for e in &t.elts {
                match e {
                    Expr::NumberLiteral(n) => match &n.value {
                        ast::Number::Int(i) => out.push(i.as_u64()?),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            (!out.is_empty()).then_some(VBound::Tuple(out))
        }
        Expr::Call(call) => {
            let name = dotted(&call.func)?;
            if !VERSION_PARSERS.contains(&last_segment(&name)) {
                return None;
            }
            match &*call.arguments.args {
                [arg] => const_bound(arg).filter(|b| matches!(b, VBound::Version(_))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A test-skipping decorator's call: whether the body runs where its condition holds
/// (`unittest.skipUnless(C, ...)`) or where it does not (`unittest.skipIf`,
/// `pytest.mark.skipif`), and the condition.
fn skip_call(e: &Expr) -> Option<(bool, &Expr)> {
    let Expr::Call(call) = e else {
        return None;
    };
    let name = dotted(&call.func)?;
    let runs_if = match last_segment(&name) {
        "skipUnless" => true,
        "skipIf" | "skipif" => false,
        _ => return None,
    };
    Some((runs_if, call.arguments.args.first()?))
}

/// `C is True`, `C == True`, `C is not False` (the test `C`, not negated) and `C is False`,
/// `C == False`, `C is not True`, `C != True` (negated): the test compared and whether it is
/// negated.
pub(super) fn bool_compared(expr: &Expr) -> Option<(&Expr, bool)> {
    let Expr::Compare(c) = expr else {
        return None;
    };
    let ([op], [right]) = (&*c.ops, &*c.comparators) else {
        return None;
    };
    let (test, value) = match (&*c.left, right) {
        (test, Expr::BooleanLiteral(b)) => (test, b.value),
        (Expr::BooleanLiteral(b), test) => (test, b.value),
        _ => return None,
    };
    let same = match op {
        ast::CmpOp::Is | ast::CmpOp::Eq => true,
        ast::CmpOp::IsNot | ast::CmpOp::NotEq => false,
        _ => return None,
    };
    Some((test, same != value))
}
