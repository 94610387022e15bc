//! What a test reads: a branch runs only where its test could be evaluated.
//!
//! `elif torch.xpu.is_available(): torch.xpu.empty_cache()` runs `empty_cache` only on releases
//! where reading `torch.xpu.is_available` did not raise, so the body is checked only on the
//! releases that have every indexed path the test reads for sure (releases that lack one are
//! left to the finding on the test itself, which stays). `A and B` true read `A` and `B`; false,
//! only `A` for sure. `torch.xpu.memory_allocated` under that test is still an error on the
//! releases that have `torch.xpu.is_available` but not `memory_allocated`.

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::flow::import_handlers_leave;
use super::*;

/// Tests nested deeper than this are not read further (what is read above stays).
const MAX_READ_DEPTH: usize = 32;

/// What a test says about an indexed path where its branch runs: the path exists (it was
/// read, or `hasattr` was true), or it does not (`hasattr` was false: the `else` of `if
/// hasattr(C, "n"):` runs only on releases whose `C` lacks `n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTest {
    pub path: String,
    pub present: bool,
    /// Tested on an object (`hasattr(cache, "layers")`, typed by the semantic model) or by an
    /// import (`from a import b` in a `try`), not on a class: attributes count.
    pub instance: bool,
    /// It also holds where any of these is as the test says: absent (the handler of a `try`
    /// that imports several names runs where any import fails), or present (a dispatch on
    /// several names runs where the module of any of them exists).
    pub alternatives: Vec<String>,
}

impl PathTest {
    /// `path` exists where the test holds.
    pub fn exists(path: String) -> PathTest {
        PathTest {
            path,
            present: true,
            instance: false,
            alternatives: Vec::new(),
        }
    }
}

/// What a release says about a tested path.
pub enum Found {
    Present(apicompat_surface::Kind),
    Absent,
    Unknown,
}

impl Found {
    /// Unknown, but a module the release cannot import (under an open parent such as
    /// transformers' lazy `transformers.models`): absent, as for a use of it.
    pub fn or_unimportable(
        self,
        view: &apicompat_index::PackageView,
        path: &str,
        release: usize,
    ) -> Found {
        match self {
            Found::Unknown if view.import_missing(path, release).ok().flatten().is_some() => {
                Found::Absent
            }
            f => f,
        }
    }
}

/// The start of a test on an object the walk cannot resolve (`hasattr(cache, "layers")`
/// false): `\u{1}cache\u{0}layers`, made a test of `Class.layers` by [`crate::objects`] when
/// the semantic model knows the class of `cache` where it is read; never a package's path.
pub const OBJECT_TEST: char = '\u{1}';

/// The start of a *dispatch* test (`x == "qwen3_next"`, `x in ("qwen3_vl", "qwen3_vl_moe")`
/// true): the names, separated by [`NAMES_SEP`], made by [`PathTest::for_use`] a test that the
/// use's path up to a segment of one of those names exists.
pub const DISPATCH: char = '\u{2}';

/// The start of a dispatch test on the name of an object's class (`type(x).__name__ ==
/// "Qwen3VLProcessor"`): an object of that class exists, so the name may be the last segment.
pub const CLASS_DISPATCH: char = '\u{3}';

/// The start of a call of a package's predicate in a test (`if is_xpu_available():` with
/// `accelerate.utils.is_xpu_available`): replaced by the paths its true result implies in the
/// targeted releases of its package (`crate::implied`) once they are chosen.
pub const INDEXED_CALL: char = '\u{4}';

const NAMES_SEP: char = ',';

/// Most names a membership test may list.
const MAX_NAMES: usize = 32;

/// A name a module or class could have.
pub(super) fn identifier(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        && !name.starts_with(|ch: char| ch.is_ascii_digit())
}

/// The names of a tuple, list or set literal of identifiers written as strings.
pub(super) fn literal_names(e: &Expr) -> Option<Vec<String>> {
    let elts = match e {
        Expr::Tuple(t) => &t.elts,
        Expr::List(l) => &l.elts,
        Expr::Set(s) => &s.elts,
        _ => return None,
    };
    if elts.is_empty() || elts.len() > MAX_NAMES {
        return None;
    }
    elts.iter()
        .map(|e| match e {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()).filter(|n| identifier(n)),
            _ => None,
        })
        .collect()
}

/// Whether an expression reads the name of an object's class (`x.__class__.__name__`,
/// `type(x).__name__`).
fn class_name_of(e: &Expr) -> bool {
    let Expr::Attribute(a) = e else {
        return false;
    };
    if a.attr.as_str() != "__name__" {
        return false;
    }
    match &*a.value {
        Expr::Attribute(inner) => inner.attr.as_str() == "__class__",
        Expr::Call(c) => {
            matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "type")
                && c.arguments.args.len() == 1
        }
        _ => false,
    }
}

/// The strings a comparison `x == "s"` (or `x in ("s", "t")`, `x in NAMES`, either side of
/// `==`) is true for, and whether `x` is the name of an object's class; `names` gives the
/// names a variable holds.
fn dispatch_names(
    c: &ast::ExprCompare,
    names: impl Fn(&str) -> Option<Vec<String>>,
) -> Option<(Vec<String>, bool)> {
    let ([op], [right]) = (&*c.ops, &*c.comparators) else {
        return None;
    };
    let lit = |e: &Expr| match e {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()).filter(|n| identifier(n)),
        _ => None,
    };
    let (found, subject) = match op {
        ast::CmpOp::Eq => match lit(right) {
            Some(n) => (vec![n], &*c.left),
            None => (vec![lit(&c.left)?], right),
        },
        // `device in ("xpu", "cuda")`, `model_type in MODELS`, or `"xpu" in device_type` (a
        // substring of the setting).
        ast::CmpOp::In => match right {
            Expr::Name(n) => match names(n.id.as_str()) {
                Some(list) => (list, &*c.left),
                None => (vec![lit(&c.left)?], right),
            },
            Expr::Attribute(_) => (vec![lit(&c.left)?], right),
            r => (literal_names(r)?, &*c.left),
        },
        _ => return None,
    };
    Some((found, class_name_of(subject)))
}

impl PathTest {
    /// The tests a use of `path` runs under, from those of its branch: a dispatch on a name
    /// (`if model_type == "qwen3_next":`, `if device.type == "xpu":`) that is an inner segment
    /// of the path (`transformers.models.qwen3_next.modeling_qwen3_next.X`, `torch.xpu.
    /// synchronize`) becomes a test that the path up to that segment exists: the branch is
    /// written for a setting (a model type, a device) that only exists where that module
    /// does. Dispatches on other names say nothing of it.
    pub fn for_use(tests: &[PathTest], path: &str) -> Vec<PathTest> {
        if !tests
            .iter()
            .any(|t| t.path.starts_with([DISPATCH, CLASS_DISPATCH]))
        {
            return tests.to_vec();
        }
        let mut out = Vec::with_capacity(tests.len());
        for t in tests {
            let (names, class_name) = match t.path.strip_prefix(DISPATCH) {
                Some(n) => (n, false),
                None => match t.path.strip_prefix(CLASS_DISPATCH) {
                    Some(n) => (n, true),
                    None => {
                        out.push(t.clone());
                        continue;
                    }
                },
            };
            let names: Vec<&str> = names.split(NAMES_SEP).collect();
            // Neither the first segment (the package itself) nor the last (the name used:
            // `if cls_name == "X": from m import X` names what it imports, which may come
            // from anywhere), unless the name is that of an object's class.
            let segments: Vec<&str> = path.split('.').collect();
            let last = segments.len().saturating_sub(1);
            let Some(i) = (1..segments.len())
                .find(|&i| (i < last || class_name) && names.contains(&segments[i]))
            else {
                continue;
            };
            // Where the setting is one of the names, the module (class) of that name exists.
            let prefix = segments[..i].join(".");
            let mut alternatives: Vec<String> = names
                .iter()
                .filter(|n| **n != segments[i])
                .map(|n| format!("{prefix}.{n}"))
                .collect();
            alternatives.sort();
            alternatives.dedup();
            let test = PathTest {
                path: format!("{prefix}.{}", segments[i]),
                present: true,
                instance: false,
                alternatives,
            };
            if !out.contains(&test) {
                out.push(test);
            }
        }
        out
    }

    /// Whether a release keeps the test's branch from running, `found` saying what it has at
    /// a path ([`PathTest::path`], and each of [`PathTest::alternatives`]).
    pub fn excludes_with(&self, mut found: impl FnMut(&str) -> Found) -> bool {
        if !self.excludes(found(&self.path)) {
            return false;
        }
        // A test that the path is absent holds where any of these is absent too: kept off
        // only where every one is there; a test that it is present holds where any of these
        // is present: kept off only where every one is absent.
        self.alternatives.iter().all(|p| match found(p) {
            Found::Present(_) => !self.present,
            Found::Absent => self.present,
            Found::Unknown => false,
        })
    }

    /// Whether a release where the path is `found` keeps the test's branch from running.
    fn excludes(&self, found: Found) -> bool {
        match found {
            Found::Absent => self.present,
            Found::Unknown => false,
            // `hasattr(C, "n")` is false for an attribute set on instances; on an object
            // it is true.
            Found::Present(kind) => {
                !self.present && (self.instance || kind != apicompat_surface::Kind::Attribute)
            }
        }
    }

    /// For a test on an object: the receiver as written and the attribute tested.
    pub fn on_object(&self) -> Option<(&str, &str)> {
        self.path.strip_prefix(OBJECT_TEST)?.split_once('\u{0}')
    }
}

impl<'a> Walker<'a> {
    /// [`Walker::cond_info`] with the paths the test reads before it is true and before it is
    /// false (see the module doc).
    pub(super) fn test_info(&self, expr: &Expr) -> CondInfo {
        let mut info = self.cond_info(expr);
        self.reads(expr, Some(true), 0, &mut info.reads_true);
        self.reads(expr, Some(false), 0, &mut info.reads_false);
        info
    }

    /// What `expr` says for sure about indexed paths when it is true.
    pub(super) fn reads_when_true(&self, expr: &Expr, out: &mut Vec<PathTest>) {
        self.reads(expr, Some(true), 0, out);
    }

    /// What `expr` says for sure about indexed paths when it is false.
    pub(super) fn reads_when_false(&self, expr: &Expr, out: &mut Vec<PathTest>) {
        self.reads(expr, Some(false), 0, out);
    }

    /// What `expr` says for sure about indexed paths when its value turns out `truth`
    /// (`None`: whatever its value).
    fn reads(&self, expr: &Expr, truth: Option<bool>, depth: usize, out: &mut Vec<PathTest>) {
        if depth > MAX_READ_DEPTH {
            return;
        }
        let d = depth + 1;
        if let Some((inner, negated)) = super::conditions::bool_compared(expr) {
            self.reads(inner, truth.map(|t| t != negated), d, out);
            return;
        }
        if let Some(t) = truth {
            if let Some(Bound::Cond(_, _, reads)) = self.compared_flag(expr, t) {
                for r in reads {
                    push(out, r.path.clone(), r.present);
                }
                return;
            }
        }
        match expr {
            Expr::BoolOp(b) => {
                let (sure, t) = apicompat_extract::implies::sure_operands(b, truth);
                for v in sure {
                    self.reads(v, t, d, out);
                }
            }
            Expr::UnaryOp(u) => self.reads(
                &u.operand,
                apicompat_extract::implies::operand_truth(u, truth),
                d,
                out,
            ),
            Expr::Compare(c) => {
                // `model_type == "qwen3_next"` true: a dispatch on that name.
                if truth == Some(true) {
                    let held = |n: &str| match self.lookup(n) {
                        Some(Bound::Names(v)) => Some(v.clone()),
                        _ => None,
                    };
                    if let Some((names, class_name)) = dispatch_names(c, held) {
                        let start = if class_name { CLASS_DISPATCH } else { DISPATCH };
                        let joined = names.join(&NAMES_SEP.to_string());
                        push(out, format!("{start}{joined}"), true);
                    }
                }
                // `DEVICE == "xpu:0"` true, `DEVICE = get_best_device()`: what the project
                // function's `return "xpu:0"` is reached under (`crate::presence`).
                if truth == Some(true) {
                    if let Some(mark) = self.constant_result_mark(c) {
                        push(out, mark, true);
                    }
                }
                if let Some(t) = truth {
                    // `importlib.util.find_spec("m.sub") is not None`: `m.sub` exists.
                    if let Some((module, holds)) = self.spec_compared(c, t) {
                        push(out, module, holds);
                    }
                    self.sentinel_test(c, t, out);
                    // `"n" in dir(C)` is `hasattr(C, "n")`; `not in`, its negation.
                    if let Some((object, n, positive)) = self.dir_membership(c) {
                        self.hasattr_reads(object, &n, t == positive, out);
                    }
                    // `"k" in inspect.signature(f).parameters`: `f` lists `k` where it is
                    // true, not where it is false (`evaluate/parameters.rs`).
                    if let Some(k) = self.keyword_test(c) {
                        push(out, k, t);
                    }
                }
                self.reads(&c.left, None, d, out);
                if let Some(first) = c.comparators.first() {
                    self.reads(first, None, d, out);
                }
            }
            Expr::Call(call) => {
                // `any(f.name == "k" for f in fields(C))` true: `C` has the field `k`.
                if truth == Some(true) {
                    if let Some(k) = self.field_test(call) {
                        if let Some((path, key)) =
                            k.strip_suffix("=)").and_then(|k| k.split_once('('))
                        {
                            push(out, format!("{path}.{key}"), true);
                        }
                    }
                }
                // `hasattr(C, "n")`: `C.n` exists where it is true, not where it is false; so
                // for `getattr(C, "n", None)` (a falsy default: an attribute that exists is
                // taken as a true value, a function or a module).
                // `find_spec("m.sub")` as a truth value: a spec (true) or `None`.
                if let (Some(t), Some(module)) = (truth, self.found_spec(call)) {
                    push(out, module, t);
                }
                match (truth, &*call.arguments.args) {
                    (Some(t), [object, name]) if self.is_builtin(&call.func, "hasattr") => {
                        if let Some(n) = string_lit(name) {
                            self.hasattr_reads(object, &n, t, out);
                        }
                    }
                    (Some(t), [object, name, default])
                        if falsy_literal(default) && self.is_builtin(&call.func, "getattr") =>
                    {
                        if let Some(n) = string_lit(name) {
                            self.hasattr_reads(object, &n, t, out);
                        }
                    }
                    _ => {}
                }
                // `f()` of a package: what its true results say in the targeted releases
                // (`crate::implied`); of the project: what they say, once every file is read
                // (`crate::presence`).
                let resolved = match truth {
                    Some(true) => Some(self.resolve(&call.func)),
                    _ => None,
                };
                if let Some(Some((path, _))) = &resolved {
                    push(out, format!("{INDEXED_CALL}{path}"), true);
                }
                if let Some(None) = resolved {
                    let name = match &*call.func {
                        Expr::Name(n) => match self.lookup(n.id.as_str()) {
                            None | Some(Bound::Function | Bound::Helper(_)) => Some(n.id.as_str()),
                            Some(_) => None,
                        },
                        Expr::Attribute(a) => Some(a.attr.as_str()),
                        _ => None,
                    };
                    if let Some(name) = name {
                        push(out, crate::presence::mark(name), true);
                    }
                }
                self.reads(&call.func, None, d, out);
                for a in call.arguments.args.iter() {
                    self.reads(a, None, d, out);
                }
                for k in call.arguments.keywords.iter() {
                    self.reads(&k.value, None, d, out);
                }
            }
            Expr::Attribute(a) => match self.resolve(expr) {
                Some((path, _)) if !is_dunder(a.attr.as_str()) => push(out, path, true),
                Some(_) => {}
                None => {
                    // `self.fused`, a test its class stores once (`instance_tests.rs`), or
                    // `C.SUPPORTED`: what its value read.
                    if let (Some(true), Expr::Name(c)) = (truth, &*a.value) {
                        let key = format!("{}.{}", c.id, a.attr);
                        if let Some(Bound::Cond(_, _, reads)) = self.lookup(&key) {
                            for r in reads {
                                push(out, r.path.clone(), r.present);
                            }
                        }
                    }
                    self.reads(&a.value, None, d, out)
                }
            },
            Expr::Subscript(s) => {
                self.reads(&s.value, None, d, out);
                self.reads(&s.slice, None, d, out);
            }
            Expr::BinOp(b) => {
                self.reads(&b.left, None, d, out);
                self.reads(&b.right, None, d, out);
            }
            Expr::If(e) => self.reads(&e.test, None, d, out),
            Expr::Named(n) => self.reads(&n.value, truth, d, out),
            // A name bound to a test (`has_x = any(...)`; `ok = torch.xpu.is_available()`):
            // what its value read, which ran before.
            Expr::Name(n) => {
                // A flag cleared unless a test held (`cleared.rs`): what that test read.
                if let (Some(true), Some(fact)) = (truth, self.cleared_fact(n.id.as_str())) {
                    for r in fact.reads_true {
                        if !out.contains(&r) {
                            out.push(r);
                        }
                    }
                }
                if let Some(Bound::Cond(_, _, reads)) = self.lookup(n.id.as_str()) {
                    if truth == Some(true) {
                        for r in reads {
                            push(out, r.path.clone(), r.present);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

impl<'a> Walker<'a> {
    /// What `hasattr(object, n)` being `holds` says: `C.n` exists (or not) where the branch
    /// runs; false on an object, its class lacks `n` there.
    fn hasattr_reads(&self, object: &Expr, n: &str, holds: bool, out: &mut Vec<PathTest>) {
        match self.resolve(object) {
            Some((path, _)) => push(out, format!("{path}.{n}"), holds),
            None if !holds => {
                if let Some(receiver) = dotted(object) {
                    push(out, format!("{OBJECT_TEST}{receiver}\u{0}{n}"), false);
                }
            }
            None => {}
        }
    }

    /// `"n" in dir(C)` (`positive`) or `"n" not in dir(C)`: the object `C` and the name `n`,
    /// which `hasattr(C, "n")` tests the same way (mamba's `if "all_gather_into_tensor" not in
    /// dir(torch.distributed):`).
    pub(super) fn dir_membership<'e>(
        &self,
        c: &'e ast::ExprCompare,
    ) -> Option<(&'e Expr, String, bool)> {
        let ([op], [Expr::Call(call)]) = (&*c.ops, &*c.comparators) else {
            return None;
        };
        let positive = match op {
            ast::CmpOp::In => true,
            ast::CmpOp::NotIn => false,
            _ => return None,
        };
        let ([object], true) = (
            &*call.arguments.args,
            call.arguments.keywords.is_empty() && self.is_builtin(&call.func, "dir"),
        ) else {
            return None;
        };
        Some((object, string_lit(&c.left)?, positive))
    }

    /// `f is None` / `f is not None` on a name a fallback import's handler sets to `None`
    /// (`try: from a import f` / `except ImportError: f = None`): not `None`, `a.f` exists;
    /// `None`, the handler ran (some import of the `try` failed).
    fn sentinel_test(&self, c: &ast::ExprCompare, truth: bool, out: &mut Vec<PathTest>) {
        let (Expr::Name(n), [op], [Expr::NoneLiteral(_)]) = (&*c.left, &*c.ops, &*c.comparators)
        else {
            return;
        };
        let is_not = match op {
            ast::CmpOp::IsNot => true,
            ast::CmpOp::Is => false,
            _ => return,
        };
        let Some((path, handler)) = self.sentinels.get(n.id.as_str()) else {
            return;
        };
        if !matches!(self.lookup(n.id.as_str()), Some(Bound::Path { path: p, .. }) if p == path) {
            return;
        }
        if truth == is_not {
            push(out, path.clone(), true);
        } else if !out.contains(handler) {
            out.push(handler.clone());
        }
    }

    /// What every `return` of `body` that may give a true value says about paths when it does
    /// (see [`crate::presence`]); empty when one says nothing. A return after a `try` of
    /// imports whose handlers of `ImportError` all leave (`except ImportError: return False`),
    /// or after the imports in its body, says the paths imported exist.
    pub(super) fn true_returns<'b>(&self, body: &'b [Stmt]) -> Vec<PathTest> {
        let mut returns: Vec<(&'b Expr, Vec<PathTest>)> = Vec::new();
        let mut established: Vec<PathTest> = Vec::new();
        let collect =
            |s: &'b Stmt, known: &[PathTest], out: &mut Vec<(&'b Expr, Vec<PathTest>)>| {
                let mut found = Vec::new();
                apicompat_extract::implies::collect_returns(s, &mut found, 0);
                out.extend(found.into_iter().map(|v| (v, known.to_vec())));
            };
        for s in body {
            let Stmt::Try(t) = s else {
                collect(s, &established, &mut returns);
                continue;
            };
            // The body's statements after each import know it succeeded.
            let mut imported = self.imported_paths(&t.body).into_iter().peekable();
            let mut known = established.clone();
            for (i, b) in t.body.iter().enumerate() {
                while let Some((_, path)) = imported.next_if(|(at, _)| *at < i) {
                    push(&mut known, path, true);
                }
                collect(b, &known, &mut returns);
            }
            for (_, path) in imported {
                push(&mut known, path, true);
            }
            for h in &t.handlers {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                for b in &h.body {
                    collect(b, &established, &mut returns);
                }
            }
            for b in &t.orelse {
                collect(b, &known, &mut returns);
            }
            for b in &t.finalbody {
                collect(b, &established, &mut returns);
            }
            let through = !t.handlers.is_empty() && import_handlers_leave(t, |_| false);
            if through && t.finalbody.is_empty() {
                established = known;
            }
        }
        let mut common: Option<Vec<PathTest>> = None;
        // Returns of a package's predicate alone (`return accelerate.utils.is_xpu_available()`)
        // beside the others: their marks.
        let mut predicates: Vec<String> = Vec::new();
        let mut concrete: Option<Vec<PathTest>> = None;
        for (value, known) in returns {
            if matches!(value, Expr::NoneLiteral(_))
                || matches!(value, Expr::BooleanLiteral(b) if !b.value)
            {
                continue;
            }
            let mut tests = known;
            self.reads(value, Some(true), 0, &mut tests);
            tests.retain(|t| !t.path.ends_with("()"));
            // The call's mark and the read of its own path.
            let marks: Vec<&str> = tests
                .iter()
                .filter(|t| t.alternatives.is_empty())
                .filter_map(|t| t.path.strip_prefix(INDEXED_CALL))
                .collect();
            let predicate_only = !marks.is_empty()
                && tests.iter().all(|t| {
                    t.alternatives.is_empty()
                        && (t.path.starts_with(INDEXED_CALL) || marks.contains(&t.path.as_str()))
                });
            if predicate_only {
                predicates.extend(
                    tests
                        .iter()
                        .filter(|t| t.path.starts_with(INDEXED_CALL))
                        .map(|t| t.path.clone()),
                );
            } else {
                concrete = Some(match concrete {
                    None => tests.clone(),
                    Some(c) => c.into_iter().filter(|t| tests.contains(t)).collect(),
                });
            }
            common = Some(match common {
                None => tests,
                Some(c) => c.into_iter().filter(|t| tests.contains(t)).collect(),
            });
        }
        let mut out = common.unwrap_or_default();
        // Mixed: what the other returns agree on holds where the predicates imply it too
        // (`crate::implied` keeps such a test only then).
        if let (false, Some(concrete)) = (predicates.is_empty(), concrete) {
            predicates.sort();
            predicates.dedup();
            for t in concrete {
                if t.path.starts_with(INDEXED_CALL) || !t.alternatives.is_empty() {
                    continue;
                }
                let conditional = PathTest {
                    alternatives: predicates.clone(),
                    ..t
                };
                if !out.contains(&conditional) {
                    out.push(conditional);
                }
            }
        }
        out
    }
}

fn push(out: &mut Vec<PathTest>, path: String, present: bool) {
    let test = PathTest {
        path,
        present,
        instance: false,
        alternatives: Vec::new(),
    };
    if !out.contains(&test) {
        out.push(test);
    }
}

impl<'a> Walker<'a> {
    /// `X == "c"` (or `"c" == X`) with `X` bound to the result of a project function's call
    /// without arguments (`X = f()`, a test whose one read is the mark `f()`): the mark of `f`
    /// returning `c`, `f=c()`.
    fn constant_result_mark(&self, c: &ast::ExprCompare) -> Option<String> {
        let ([ast::CmpOp::Eq], [right]) = (&*c.ops, &*c.comparators) else {
            return None;
        };
        let (name, value) = match (&*c.left, right) {
            (Expr::Name(n), Expr::StringLiteral(s)) | (Expr::StringLiteral(s), Expr::Name(n)) => {
                (n.id.as_str(), s.value.to_str())
            }
            _ => return None,
        };
        let Some(Bound::Cond(r, has, reads)) = self.lookup(name) else {
            return None;
        };
        let [only] = &reads[..] else { return None };
        let function = only.path.strip_suffix("()")?;
        // A call of a function of another module may also be a version helper, resolved once
        // every file is read: that placeholder says nothing of its other results.
        let helper_only = r.parts.iter().all(|(root, p)| {
            root == HELPER_ROOT && matches!(p, Pred::Helper { name, .. } if name == function)
        });
        let plain = helper_only && has.is_empty() && only.present;
        (plain && !function.contains('=') && constant_key(value))
            .then(|| crate::presence::mark(&format!("{function}={value}")))
    }

    /// For each string constant a function's body returns from the `if`/`elif` chains at its
    /// top level (`if torch.cuda.is_available(): return "cuda:0" elif
    /// torch.xpu.is_available(): return "xpu:0"`): what holds where that `return` runs (its
    /// clause's test true, the earlier ones false), agreed by every `return` of the constant.
    pub(super) fn constant_returns(&self, body: &[Stmt]) -> Vec<(String, Vec<PathTest>)> {
        // (constant, what its returns agree on, how many returns of it were read)
        let mut found: Vec<(String, Option<Vec<PathTest>>, usize)> = Vec::new();
        let mut record =
            |value: &str, tests: Vec<PathTest>| match found.iter_mut().find(|(v, ..)| v == value) {
                Some((_, known, n)) => {
                    *n += 1;
                    if let Some(k) = known {
                        k.retain(|t| tests.contains(t));
                    }
                }
                None => found.push((value.to_string(), Some(tests), 1)),
            };
        let returned = |block: &[Stmt]| -> Option<String> {
            match block.last() {
                Some(Stmt::Return(r)) => match r.value.as_deref() {
                    Some(Expr::StringLiteral(s)) => Some(s.value.to_str().to_string()),
                    _ => None,
                },
                _ => None,
            }
        };
        for stmt in body {
            match stmt {
                Stmt::If(i) => {
                    let mut earlier_false: Vec<PathTest> = Vec::new();
                    let clauses = std::iter::once((Some(&*i.test), &i.body[..])).chain(
                        i.elif_else_clauses
                            .iter()
                            .map(|c| (c.test.as_ref(), &c.body[..])),
                    );
                    for (test, block) in clauses {
                        let mut tests = earlier_false.clone();
                        if let Some(t) = test {
                            self.reads(t, Some(true), 0, &mut tests);
                        }
                        if let Some(value) = returned(block) {
                            record(&value, tests);
                        }
                        if let Some(t) = test {
                            self.reads(t, Some(false), 0, &mut earlier_false);
                        }
                    }
                }
                Stmt::Return(_) => {
                    if let Some(value) = returned(std::slice::from_ref(stmt)) {
                        record(&value, Vec::new());
                    }
                }
                _ => {}
            }
        }
        // A constant also returned where the chains above do not see it says nothing.
        let mut all: Vec<&Expr> = Vec::new();
        for stmt in body {
            apicompat_extract::implies::collect_returns(stmt, &mut all, 0);
        }
        let mut returns: HashMap<&str, usize> = HashMap::default();
        for e in all {
            if let Expr::StringLiteral(s) = e {
                *returns.entry(s.value.to_str()).or_default() += 1;
            }
        }
        found
            .into_iter()
            .filter(|(v, _, n)| constant_key(v) && returns.get(v.as_str()) == Some(n))
            .filter_map(|(v, tests, _)| {
                let tests: Vec<PathTest> = tests?
                    .into_iter()
                    .filter(|t| !t.path.ends_with("()"))
                    .collect();
                (!tests.is_empty()).then_some((v, tests))
            })
            .collect()
    }
}

/// A constant short and plain enough to be part of a mark (`xpu:0`, `cuda`).
fn constant_key(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= 64
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-' | '.'))
}

/// `None`, `False`, `0`, `""`: a default `getattr` returns that tests false.
fn falsy_literal(e: &Expr) -> bool {
    match e {
        Expr::NoneLiteral(_) => true,
        Expr::BooleanLiteral(b) => !b.value,
        Expr::StringLiteral(s) => s.value.to_str().is_empty(),
        Expr::NumberLiteral(n) => matches!(&n.value, ast::Number::Int(i) if i.as_u64() == Some(0)),
        _ => false,
    }
}
