//! A name bound differently in the arms of an `if` (`if use_adam: Opt = torch.optim.Adam` /
//! `else: Opt = torch.optim.SGD`): each arm's binding is kept with the tests it was made
//! under ([`Bound::Either`]). A use through the name is judged as a use of every binding that
//! may reach it, and under a later test of the same expression (`if use_adam:`) only as one
//! of the bindings of the agreeing arms.

use std::hash::{Hash, Hasher};

use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::visitor::{self as visitor, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext};

use super::*;

/// Most tests in force kept for a use, and most tests kept for an arm.
const MAX_TESTS: usize = 8;
/// Most bindings of one name kept after an `if`.
const MAX_ARMS: usize = 8;
/// Deepest `not`/`and`/`or` nesting read for the tests of a condition.
const MAX_TEST_DEPTH: usize = 16;
/// Most names a test may read (a store of one of them ends what the test says).
const MAX_TEST_READS: usize = 8;
/// Most clauses of an `if`, and most names its arms bind, for its bindings to be kept apart
/// (a longer `elif` chain keeps the walk's last binding: the work stays linear).
const MAX_CLAUSES: usize = 32;
const MAX_NAMES: usize = 64;
/// Most nested `if`s followed at once.
const MAX_FRAMES: usize = 32;

/// A test and its truth: a condition's expression (by a hash of its comparable form) found
/// true or false, and the plain names it reads (a later store of one ends it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TestTruth {
    key: u64,
    truth: bool,
    reads: Box<[String]>,
    /// For `x == <literal>`: `x` and the literal (two such tests of `x` with different
    /// literals are not both true).
    equals: Option<(u64, u64)>,
}

/// One arm's binding of a name: a [`Bound::Path`], made where `tests` held.
#[derive(Debug, Clone)]
pub(super) struct Arm {
    tests: Vec<TestTruth>,
    pub(super) bound: Bound,
}

impl Arm {
    pub(super) fn path(&self) -> &str {
        match &self.bound {
            Bound::Path { path, .. } => path,
            _ => "",
        }
    }
}

impl<'a> Walker<'a> {
    /// What `expr` says when its value is `truth`: the conditions it is made of (through
    /// `not`, the operands of an `and` found true, of an `or` found false), each with its
    /// truth; a flag set in the arms of a test ([`Walker::flag_truths`]) says that test too.
    pub(super) fn test_truths(&self, expr: &Expr, truth: bool, out: &mut Vec<TestTruth>) {
        self.truths(expr, truth, 0, out);
    }

    fn truths(&self, expr: &Expr, truth: bool, depth: usize, out: &mut Vec<TestTruth>) {
        if depth > MAX_TEST_DEPTH || out.len() >= MAX_TESTS {
            return;
        }
        match expr {
            Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => {
                self.truths(&u.operand, !truth, depth + 1, out)
            }
            Expr::BoolOp(b) if (b.op == ast::BoolOp::And) == truth => {
                for v in &b.values {
                    self.truths(v, truth, depth + 1, out);
                }
            }
            Expr::BoolOp(_) => {}
            _ => {
                let Some(reads) = plain_reads(expr) else {
                    return;
                };
                let t = TestTruth {
                    key: key_of(expr),
                    truth,
                    reads,
                    equals: equals_literal(expr),
                };
                if !out.contains(&t) {
                    out.push(t);
                }
                if let Expr::Name(n) = expr {
                    let flag = self
                        .scope_of(n.id.as_str())
                        .and_then(|s| s.flag_truths.get(n.id.as_str()));
                    if let Some([when_false, when_true]) = flag {
                        for t in if truth { when_true } else { when_false } {
                            if out.len() < MAX_TESTS && !out.contains(t) {
                                out.push(t.clone());
                            }
                        }
                    }
                }
            }
        }
    }

    /// `if T: FLAG = True` / `else: FLAG = False` ([`Walker::branch_flags`]): `FLAG` true
    /// says what `T` true says (`truth` is the literal the body sets).
    pub(super) fn flag_of_test(&mut self, name: &str, test: &Expr, truth: bool) {
        let (mut when_true, mut when_false) = (Vec::new(), Vec::new());
        self.test_truths(test, truth, &mut when_true);
        self.test_truths(test, !truth, &mut when_false);
        if let Some(scope) = self.binding_scope(name) {
            let reads = when_true
                .iter()
                .chain(&when_false)
                .flat_map(|t| t.reads.iter());
            scope.test_reads.extend(reads.cloned());
            scope
                .flag_truths
                .insert(name.to_string(), [when_false, when_true]);
        }
    }
}

fn key_of(expr: &Expr) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    ComparableExpr::from(expr).hash(&mut hasher);
    hasher.finish()
}

/// `x == "a"` (either way round): the keys of `x` and of the literal.
fn equals_literal(expr: &Expr) -> Option<(u64, u64)> {
    let Expr::Compare(c) = expr else {
        return None;
    };
    let ([ast::CmpOp::Eq], [right]) = (&*c.ops, &*c.comparators) else {
        return None;
    };
    match (c.left.is_literal_expr(), right.is_literal_expr()) {
        (false, true) => Some((key_of(&c.left), key_of(right))),
        (true, false) => Some((key_of(right), key_of(&c.left))),
        _ => None,
    }
}

/// Whether two tests cannot hold together: the same test found both ways, or one subject
/// found equal to two different literals.
fn contradict(a: &TestTruth, b: &TestTruth) -> bool {
    if a.key == b.key {
        return a.truth != b.truth;
    }
    match (a.equals, b.equals) {
        (Some((x, l)), Some((y, m))) => a.truth && b.truth && x == y && l != m,
        _ => false,
    }
}

/// The plain names a test reads; none when it reads too many, or assigns (`:=`).
fn plain_reads(expr: &Expr) -> Option<Box<[String]>> {
    struct Reads {
        names: Vec<String>,
        unread: bool,
    }
    impl<'a> Visitor<'a> for Reads {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.unread {
                return;
            }
            match expr {
                Expr::Name(n) if n.ctx == ExprContext::Load => {
                    if !self.names.iter().any(|x| x == n.id.as_str()) {
                        self.names.push(n.id.to_string());
                    }
                    self.unread |= self.names.len() > MAX_TEST_READS;
                }
                Expr::Named(_) | Expr::Lambda(_) => self.unread = true,
                _ => visitor::walk_expr(self, expr),
            }
        }
    }
    // A test nested deeper than this is not compared with others.
    if nesting_exceeds(expr, MAX_TEST_DEPTH) {
        return None;
    }
    let mut r = Reads {
        names: Vec::new(),
        unread: false,
    };
    r.visit_expr(expr);
    (!r.unread).then(|| r.names.into_boxed_slice())
}

/// Whether `expr` nests deeper than `limit` (checked without recursion past it).
fn nesting_exceeds(expr: &Expr, limit: usize) -> bool {
    struct Depth {
        depth: usize,
        limit: usize,
        over: bool,
    }
    impl<'a> Visitor<'a> for Depth {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.over {
                return;
            }
            if self.depth >= self.limit {
                self.over = true;
                return;
            }
            self.depth += 1;
            visitor::walk_expr(self, expr);
            self.depth -= 1;
        }
    }
    let mut d = Depth {
        depth: 0,
        limit,
        over: false,
    };
    d.visit_expr(expr);
    d.over
}

/// A name an `if` being walked rebinds from or to a path: its binding before the `if`, and
/// after each arm that rebinds it.
struct Tracked {
    name: String,
    before: Option<Bound>,
    /// Rebound in the arm being walked.
    touched: bool,
    /// Bound to something else than a path somewhere: left as the walk leaves it.
    other: bool,
    after: Vec<(usize, Option<Bound>)>,
}

/// An `if` being walked ([`Walker::if_frames`]): the scope its arms bind in and the names
/// they rebind from or to a path (noted as they are, so an `if` that binds no path costs
/// nothing).
pub(super) struct IfFrame {
    scope: usize,
    names: Vec<Tracked>,
    /// More names than [`MAX_NAMES`]: the walk's last bindings stand.
    overflow: bool,
}

/// What a name is bound to, as [`IfFrame`]s tell bindings apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Unbound,
    Path,
    Other,
}

impl Kind {
    pub(super) fn of(b: Option<&Bound>) -> Kind {
        match b {
            None => Kind::Unbound,
            Some(Bound::Path { .. } | Bound::Either(_)) => Kind::Path,
            Some(_) => Kind::Other,
        }
    }
}

fn path_clone(b: Option<&Bound>) -> Option<Bound> {
    b.filter(|b| Kind::of(Some(b)) == Kind::Path).cloned()
}

/// The tests in force where the walk is, innermost first: shared, so a context is cloned
/// without copying them.
#[derive(Debug, Clone, Default)]
pub(super) struct Tests<'a>(Option<std::rc::Rc<TestNode<'a>>>);

#[derive(Debug)]
struct TestNode<'a> {
    test: &'a Expr,
    truth: bool,
    depth: usize,
    next: Option<std::rc::Rc<TestNode<'a>>>,
    /// What it says, read once ([`Walker::in_force`]).
    truths: std::cell::OnceCell<Vec<TestTruth>>,
}

impl<'a> Tests<'a> {
    fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |n| n.depth)
    }

    pub(super) fn is_longer_than(&self, other: &Tests<'a>) -> bool {
        self.len() > other.len()
    }

    fn push(&mut self, test: &'a Expr, truth: bool) {
        let next = self.0.take();
        let depth = next.as_ref().map_or(0, |n| n.depth) + 1;
        self.0 = Some(std::rc::Rc::new(TestNode {
            test,
            truth,
            depth,
            next,
            truths: std::cell::OnceCell::new(),
        }));
    }

    fn iter(&self) -> impl Iterator<Item = &TestNode<'a>> + '_ {
        std::iter::successors(self.0.as_deref(), |n| n.next.as_deref())
    }
}

impl<'a> Walker<'a> {
    /// Adds to `ctx` that `test` is `truth` there (read only when a use through a
    /// [`Bound::Either`] asks, [`Walker::in_force`]).
    pub(super) fn add_truths(&self, ctx: &mut Ctx<'a>, test: &'a Expr, truth: bool) {
        if ctx.tests.len() < MAX_TESTS {
            ctx.tests.push(test, truth);
        }
    }

    /// What the tests in force say ([`TestTruth`]).
    fn in_force(&self) -> Vec<TestTruth> {
        let mut out = Vec::new();
        for node in self.ctx.tests.iter() {
            out.extend_from_slice(node.truths.get_or_init(|| {
                let mut truths = Vec::new();
                self.test_truths(node.test, node.truth, &mut truths);
                truths
            }));
        }
        out
    }

    /// The binding of an [`Bound::Either`] a lookup sees here: its last arm that agrees with
    /// the tests in force (as the last binding in source order would be), if any.
    pub(super) fn agreeing<'b>(&self, bound: &'b Bound) -> Option<&'b Bound> {
        match bound {
            Bound::Either(arms) => {
                let in_force = self.in_force();
                arms.iter()
                    .rev()
                    .find(|a| agrees(&in_force, &a.tests))
                    .map(|a| &a.bound)
            }
            b => Some(b),
        }
    }

    /// The bindings of an [`Bound::Either`] that may reach a use here: none, one arm's
    /// binding, or the agreeing arms.
    pub(super) fn reaching(&self, bound: &Bound) -> Option<Bound> {
        let Bound::Either(arms) = bound else {
            return Some(bound.clone());
        };
        let in_force = self.in_force();
        let mut agreeing: Vec<Arm> = arms
            .iter()
            .filter(|a| agrees(&in_force, &a.tests))
            .cloned()
            .collect();
        match agreeing.len() {
            0 => None,
            1 => agreeing.pop().map(|a| a.bound),
            _ => Some(Bound::Either(agreeing.into_boxed_slice())),
        }
    }

    /// The binding of a name assigned a path reached through an [`Bound::Either`] (`T =
    /// _tt`, `f = _tt.f`): each arm's path, extended as `path` extends the last arm's.
    pub(super) fn either_binding(&self, path: &str, via: &Bound) -> Option<Bound> {
        let Bound::Either(arms) = via else {
            return None;
        };
        let rest = path.strip_prefix(arms.last()?.path())?;
        let arms = arms
            .iter()
            .map(|a| Arm {
                tests: a.tests.clone(),
                bound: self.path_binding(format!("{}{rest}", a.path()), Some(&a.bound)),
            })
            .collect();
        Some(Bound::Either(arms))
    }

    /// Before the arms of an `if` are walked.
    /// Before the arms of an `if` are walked: whether it is followed (at most [`MAX_FRAMES`]
    /// nested `if`s are, so noting a rebinding costs a bounded amount).
    pub(super) fn arms_start(&mut self) -> bool {
        if self.if_frames.len() >= MAX_FRAMES {
            return false;
        }
        let Some(scope) = self
            .scopes
            .iter()
            .rposition(|s| s.kind != ScopeKind::Comprehension)
        else {
            return false;
        };
        self.if_frames.push(IfFrame {
            scope,
            names: Vec::new(),
            overflow: false,
        });
        true
    }

    /// `name` of scope `scope` rebound from `old` to `new`: noted by the `if`s being walked
    /// when either is a path.
    pub(super) fn note_rebinding(
        &mut self,
        scope: usize,
        name: &str,
        old: Option<&Bound>,
        new: Kind,
    ) {
        let old_kind = Kind::of(old);
        for frame in self.if_frames.iter_mut().filter(|f| f.scope == scope) {
            match frame.names.iter_mut().find(|t| t.name == name) {
                Some(t) => {
                    t.touched = true;
                    t.other |= new == Kind::Other;
                }
                None if old_kind == Kind::Path || new == Kind::Path => {
                    if frame.names.len() >= MAX_NAMES {
                        frame.overflow = true;
                        continue;
                    }
                    frame.names.push(Tracked {
                        name: name.to_string(),
                        before: path_clone(old),
                        touched: true,
                        other: old_kind == Kind::Other || new == Kind::Other,
                        after: Vec::new(),
                    });
                }
                None => {}
            }
        }
    }

    /// After arm `arm` of the innermost `if` is walked: the bindings of the names it rebound.
    pub(super) fn arm_done(&mut self, followed: bool, arm: usize) {
        let (true, Some(frame)) = (followed, self.if_frames.last_mut()) else {
            return;
        };
        let Some(scope) = self.scopes.get(frame.scope) else {
            return;
        };
        for t in frame.names.iter_mut().filter(|t| t.touched) {
            let now = scope.names.get(&t.name);
            t.other |= Kind::of(now) == Kind::Other;
            t.after.push((arm, path_clone(now)));
            t.touched = false;
        }
    }

    /// After the whole `if` `s`: each name whose arms left it bound to different paths is
    /// bound to all of them, each with the tests of its arm.
    pub(super) fn arms_end(&mut self, followed: bool, s: &ast::StmtIf) {
        let Some(frame) = followed.then(|| self.if_frames.pop()).flatten() else {
            return;
        };
        if frame.names.is_empty() || frame.overflow || s.elif_else_clauses.len() >= MAX_CLAUSES {
            return;
        }
        // The tests under which each arm runs, and whether it falls through.
        let mut arm_tests: Vec<(Vec<TestTruth>, bool)> = Vec::new();
        let mut falses: Vec<TestTruth> = Vec::new();
        let mut has_else = false;
        let clauses = std::iter::once((Some(&*s.test), &s.body[..])).chain(
            s.elif_else_clauses
                .iter()
                .map(|c| (c.test.as_ref(), &c.body[..])),
        );
        for (test, body) in clauses {
            let mut tests = falses.clone();
            match test {
                Some(t) => {
                    self.test_truths(t, true, &mut tests);
                    self.test_truths(t, false, &mut falses);
                }
                None => has_else = true,
            }
            tests.truncate(MAX_TESTS);
            arm_tests.push((tests, !leaves(body)));
        }
        falses.truncate(MAX_TESTS);
        for t in frame.names.into_iter().filter(|t| !t.other) {
            let mut outcomes: Vec<(Vec<TestTruth>, Option<&Bound>)> = Vec::new();
            for (i, (tests, through)) in arm_tests.iter().enumerate() {
                if !through {
                    continue;
                }
                let value = match t.after.iter().find(|(arm, _)| *arm == i) {
                    Some((_, after)) => after.as_ref(),
                    None => t.before.as_ref(),
                };
                outcomes.push((tests.clone(), value));
            }
            if !has_else {
                outcomes.push((falses.clone(), t.before.as_ref()));
            }
            if let Some(either) = either_of(outcomes) {
                let Some(scope) = self.scopes.get_mut(frame.scope) else {
                    continue;
                };
                let old = scope.insert(&t.name, either);
                self.note_rebinding(frame.scope, &t.name, old.as_ref(), Kind::Path);
            }
        }
    }
}

/// Whether tests that hold together with `in_force` may hold.
fn agrees(in_force: &[TestTruth], tests: &[TestTruth]) -> bool {
    !tests
        .iter()
        .any(|t| in_force.iter().any(|c| contradict(c, t)))
}

/// The binding after an `if` whose falling-through arms leave a name bound as `outcomes`
/// (`None`: not to a path): an [`Bound::Either`] when they differ, none when they agree
/// (the walk's last binding stands) or are too many.
fn either_of(outcomes: Vec<(Vec<TestTruth>, Option<&Bound>)>) -> Option<Bound> {
    let mut arms: Vec<Arm> = Vec::new();
    let mut unbound = false;
    for (tests, value) in outcomes {
        match value {
            None => unbound = true,
            Some(Bound::Either(inner)) => {
                for a in inner.iter() {
                    let mut t = tests.clone();
                    t.extend(a.tests.iter().cloned());
                    t.truncate(MAX_TESTS);
                    add_arm(&mut arms, t, a.bound.clone());
                }
            }
            Some(b) => add_arm(&mut arms, tests, b.clone()),
        }
    }
    if arms.is_empty() || arms.len() > MAX_ARMS || (arms.len() == 1 && !unbound) {
        return None;
    }
    Some(Bound::Either(arms.into_boxed_slice()))
}

/// Adds a binding; one of a path already there keeps the tests both arms share.
fn add_arm(arms: &mut Vec<Arm>, tests: Vec<TestTruth>, bound: Bound) {
    let path = match &bound {
        Bound::Path { path, .. } => path.as_str(),
        _ => return,
    };
    if let Some(i) = arms.iter().position(|a| a.path() == path) {
        let old = arms.remove(i);
        let shared = old
            .tests
            .into_iter()
            .filter(|t| tests.contains(t))
            .collect();
        arms.push(Arm {
            tests: shared,
            bound,
        });
    } else {
        arms.push(Arm { tests, bound });
    }
}

impl Scope {
    /// Binds `name`; a [`Bound::Either`] is noted with the names its tests read.
    pub(super) fn insert(&mut self, name: &str, bound: Bound) -> Option<Bound> {
        if let Bound::Either(arms) = &bound {
            if !self.eithers.iter().any(|e| e == name) {
                self.eithers.push(name.to_string());
            }
            let reads = arms
                .iter()
                .flat_map(|a| a.tests.iter())
                .flat_map(|t| t.reads.iter());
            self.test_reads.extend(reads.cloned());
        }
        self.names.insert(name.to_string(), bound)
    }

    /// A store of `name`: the comparisons and the flag bound to it end, and the tests that
    /// read it say nothing any more in the arms of the bindings made under them, nor in the
    /// flags that stand for them.
    pub(super) fn forget_truths(&mut self, name: &str) {
        if let Some(keys) = self.compared.remove(name) {
            for key in keys {
                self.names.remove(&key);
            }
        }
        self.flag_truths.remove(name);
        if !self.test_reads.remove(name) {
            return;
        }
        let reads = |t: &TestTruth| t.reads.iter().any(|r| r == name);
        for truths in self.flag_truths.values_mut() {
            truths.iter_mut().for_each(|ts| ts.retain(|t| !reads(t)));
        }
        let eithers = std::mem::take(&mut self.eithers);
        let mut kept = Vec::with_capacity(eithers.len());
        for e in eithers {
            if let Some(Bound::Either(arms)) = self.names.get_mut(&e) {
                for arm in arms.iter_mut() {
                    arm.tests.retain(|t| !reads(t));
                }
                kept.push(e);
            }
        }
        self.eithers = kept;
    }
}
