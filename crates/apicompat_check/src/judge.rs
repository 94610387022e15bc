//! What one release says about one use: the single judgement `check` ([`crate::evaluate`])
//! and `range` ([`crate::survey`]) both make, from what the index says about the use's path.

use crate::last_segment;
use apicompat_hash::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use apicompat_index::{PackageView, Status};
use apicompat_surface::{Kind, Signature};

use crate::collect::{Use, UseKind};
use crate::rules::{
    ac003_unsupported_keyword as unsupported_keyword, binds, CallDoesNotBind, MissingAttribute,
    MissingImport, Rule, RuleInfo, UnsupportedKeyword,
};

/// What the index says about a use's path in one release.
pub enum Said<'a> {
    Present {
        kind: Kind,
        signatures: &'a [Signature],
        /// A function defined in a class, called through a path (`Class.method(obj, ...)`):
        /// the object is passed explicitly, so the signature (without `self`) cannot judge
        /// the call.
        method_via_class: bool,
    },
    Absent,
    Unknown,
}

impl<'a> Said<'a> {
    /// What a release that has `u`'s path says: `canonical` is where it is defined, and
    /// `parent_is_class` asks the release whether a path is a class there.
    pub fn present(
        u: &Use,
        kind: Kind,
        signatures: &'a [Signature],
        canonical: &str,
        parent_is_class: impl FnOnce(&str) -> bool,
    ) -> Said<'a> {
        // `Class.method(obj, ...)` passes the object itself.
        let method_via_class = matches!(u.kind, UseKind::Call(_))
            && u.receiver.is_none()
            && kind == Kind::Function
            && canonical
                .rsplit_once('.')
                .is_some_and(|(parent, _)| parent_is_class(parent));
        Said::Present {
            kind,
            signatures,
            method_via_class,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The release has it (accepts the keyword; the call binds).
    Present,
    /// The use breaks on the release.
    Absent,
    Unknown,
}

/// The verdict on `kind` in a release that says `said`.
pub fn judge(kind: &UseKind, said: Said) -> Verdict {
    let verdict = |ok: bool| {
        if ok {
            Verdict::Present
        } else {
            Verdict::Absent
        }
    };
    match (kind, said) {
        (UseKind::Keyword(k), Said::Present { signatures, .. }) => {
            unsupported_keyword::accepts(signatures, k).map_or(Verdict::Unknown, verdict)
        }
        (UseKind::Keyword(_), _) => Verdict::Unknown,
        (
            UseKind::Call(shape),
            Said::Present {
                kind: Kind::Function | Kind::Class,
                signatures,
                method_via_class: false,
            },
        ) if !signatures.is_empty() => verdict(signatures.iter().any(|s| binds(s, shape))),
        (UseKind::Call(_), _) => Verdict::Unknown,
        (_, Said::Present { .. }) => Verdict::Present,
        (_, Said::Absent) => Verdict::Absent,
        (_, Said::Unknown) => Verdict::Unknown,
    }
}

/// For an assignment to a path (`UseKind::Store`): the path whose presence in a release makes
/// the assignment fail there when the name is missing, the parent's `__setattr__`
/// (`apicompat_extract`'s installed-names rule binds it on config modules). Where the release
/// lacks it, the verdict is unknown: assigning a new name to a module creates it.
pub fn store_guard(u: &Use) -> Option<String> {
    match u.kind {
        UseKind::Store => u
            .path
            .rsplit_once('.')
            .map(|(parent, _)| format!("{parent}.__setattr__")),
        _ => None,
    }
}

/// The verdict on an object that may be of several classes, from each class's verdict: present
/// where one has it, absent only where every one lacks it.
pub fn any_of(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
    let mut all_absent = true;
    for v in verdicts {
        match v {
            Verdict::Present => return Verdict::Present,
            Verdict::Unknown => all_absent = false,
            Verdict::Absent => {}
        }
    }
    if all_absent {
        Verdict::Absent
    } else {
        Verdict::Unknown
    }
}

/// Whether a use breaks only where its path drifted, i.e. only when some indexed release has
/// it: calls (a signature that binds nowhere is more likely misread than broken) and members
/// of objects whose class is a declared bound (a subclass may have what the class lacks).
pub fn drift_only(u: &Use) -> bool {
    matches!(u.kind, UseKind::Call(_)) || u.receiver.as_ref().is_some_and(|r| !r.exact)
}

/// Most classes followed up from a subclass when asking whether it derives from a bound.
const MAX_ANCESTORS: usize = 32;

/// For a member of an object whose class is a declared bound (a subclass may stand for it),
/// in a release whose bound class lacks the member or does not take the call: what the
/// package's own subclasses of that class that define the member say (`verdict_of` judges
/// `Sub.member` as the use). A subclass that has it, or takes the call, may be the object:
/// unknown; none: absent. `torch.optim.Optimizer.step` requires `closure` in torch 1.13, but
/// every optimizer overrides it with `closure=None`, so `optimizer.step()` on an
/// `Optimizer`-typed parameter is not a break there. Candidates are the paths whose last
/// segment is the member (the index's table by last segment: no scan), kept when their class
/// derives from the bound class in that release (bases followed upward, bounded).
pub fn through_subclasses(
    view: &PackageView,
    cache: &Subclasses,
    u: &Use,
    path: &str,
    release: usize,
    mut verdict_of: impl FnMut(&str) -> Verdict,
) -> Verdict {
    if u.receiver.as_ref().is_none_or(|r| r.exact) {
        return Verdict::Absent;
    }
    if !bound_declared(view, u, release) {
        return Verdict::Unknown;
    }
    let mut overall = Verdict::Absent;
    for candidate in cache.overrides(view, path, release).iter() {
        match verdict_of(candidate) {
            Verdict::Present | Verdict::Unknown => overall = Verdict::Unknown,
            Verdict::Absent => {}
        }
    }
    overall
}

/// Whether the functions and properties of `view` whose return annotations declared the
/// receiver's class (in the release the model read) declare a return in `release` too: where
/// one does not, that release says nothing of what the object is. torch 2.14 declares
/// `all_reduce(...) -> Work`; 2.2 declares no return, so `Work`'s stub there (which leaves
/// out the compiled `get_future`) is no evidence against `all_reduce(...).get_future()`.
/// Paths of other packages are not judged here.
fn bound_declared(view: &PackageView, u: &Use, release: usize) -> bool {
    let Some(r) = &u.receiver else {
        return true;
    };
    r.declared_by
        .iter()
        .all(|path| match view.status(path, release) {
            Ok(Status::Present { symbol, .. }) => {
                symbol.signatures.iter().any(|s| s.returns.is_some())
            }
            // Its top-level module is not this package's: another package's function.
            Ok(Status::Absent { missing }) => !missing.contains('.'),
            _ => false,
        })
}

/// The overrides of a member in the subclasses of its class, per release, each found once
/// (many uses share a bound and a member).
#[derive(Default)]
pub struct Subclasses {
    found: Mutex<Overrides>,
    /// (package, member) -> the paths named so in any release, read once for all releases.
    named: Mutex<ByName<Arc<[String]>>>,
    /// (package, class name) -> the last segments of the classes of any release that may
    /// derive from a class so named, or `None` when they are more than [`MAX_BELOW`].
    below: Mutex<ByName<Option<Arc<HashSet<String>>>>>,
}

/// (package, a name) -> what was found for it.
type ByName<T> = HashMap<(String, String), T>;

/// (package, `Class.member`, release) -> the overriding paths.
type Overrides = HashMap<(String, Box<str>, usize), Arc<[String]>>;

/// Names of classes below one class that narrow the candidates at most (more: every
/// candidate is tried).
const MAX_BELOW: usize = 20_000;

impl Subclasses {
    /// The paths `Sub.member` of the classes of `view` that derive from the class of
    /// `path` (`Class.member`) in `release` and define the member themselves.
    fn overrides(&self, view: &PackageView, path: &str, release: usize) -> Arc<[String]> {
        let key = (view.name().to_string(), Box::from(path), release);
        if let Some(found) = lock(&self.found).get(&key) {
            return found.clone();
        }
        let found: Arc<[String]> = self.find_overrides(view, path, release).into();
        lock(&self.found).insert(key, found.clone());
        found
    }

    fn find_overrides(&self, view: &PackageView, path: &str, release: usize) -> Vec<String> {
        let Some((class, member)) = path.rsplit_once('.') else {
            return Vec::new();
        };
        let Some(bound) = class_canonical(view, class, release) else {
            return Vec::new();
        };
        let below = self.below(view, last_segment(&bound));
        let mut seen_classes: HashSet<String> = HashSet::default();
        let mut out = Vec::new();
        for candidate in self.named(view, member).iter() {
            let Some((sub, _)) = candidate.rsplit_once('.') else {
                continue;
            };
            // A class whose name no chain of bases joins to the bound's: not below it.
            if below
                .as_ref()
                .is_some_and(|names| !names.contains(last_segment(sub)))
            {
                continue;
            }
            let Some(canonical) = class_canonical(view, sub, release) else {
                continue;
            };
            if canonical == bound || !seen_classes.insert(canonical.clone()) {
                continue;
            }
            if derives_from(view, &canonical, &bound, release) {
                out.push(candidate.clone());
            }
        }
        out
    }

    fn named(&self, view: &PackageView, member: &str) -> Arc<[String]> {
        let key = (view.name().to_string(), member.to_string());
        if let Some(found) = lock(&self.named).get(&key) {
            return found.clone();
        }
        let found: Arc<[String]> = view.paths_named(member).into();
        lock(&self.named).insert(key, found.clone());
        found
    }

    /// The names of the classes below a class named `name` (by the index's table of bases by
    /// last segment, in any release), `name` among them: a superset of the names of its
    /// subclasses in each release, the classes named in their definitions.
    fn below(&self, view: &PackageView, name: &str) -> Option<Arc<HashSet<String>>> {
        let key = (view.name().to_string(), name.to_string());
        if let Some(found) = lock(&self.below).get(&key) {
            return found.clone();
        }
        let mut names: HashSet<String> = HashSet::default();
        names.insert(name.to_string());
        let mut todo = vec![name.to_string()];
        let mut found = true;
        while let Some(n) = todo.pop() {
            for sub in view.subclasses_named(&n) {
                if names.insert(sub.clone()) {
                    todo.push(sub);
                }
            }
            if names.len() > MAX_BELOW {
                found = false;
                break;
            }
        }
        let found = found.then(|| Arc::new(names));
        lock(&self.below).insert(key, found.clone());
        found
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Where class `path` is defined in a release, if it is a class there.
fn class_canonical(view: &PackageView, path: &str, release: usize) -> Option<String> {
    match view.status(path, release) {
        Ok(Status::Present {
            path: found,
            symbol,
        }) if symbol.kind() == Kind::Class => Some(symbol.canonical.unwrap_or(found)),
        _ => None,
    }
}

/// Whether class `class` (canonical) has `bound` (canonical) among its ancestors in a release.
fn derives_from(view: &PackageView, class: &str, bound: &str, release: usize) -> bool {
    let mut todo: Vec<String> = vec![class.to_string()];
    let mut seen: Vec<String> = Vec::new();
    while let Some(c) = todo.pop() {
        if seen.len() >= MAX_ANCESTORS || seen.contains(&c) {
            continue;
        }
        let Ok(Status::Present { symbol, .. }) = view.status(&c, release) else {
            seen.push(c);
            continue;
        };
        for base in &symbol.bases {
            if base == bound {
                return true;
            }
            todo.push(base.clone());
        }
        seen.push(c);
    }
    false
}

/// The rule a use breaks.
pub fn rule_of(kind: &UseKind) -> Rule {
    match kind {
        UseKind::Import => MissingImport::RULE,
        UseKind::Attribute | UseKind::Getattr | UseKind::Store => MissingAttribute::RULE,
        UseKind::Keyword(_) => UnsupportedKeyword::RULE,
        UseKind::Call(_) => CallDoesNotBind::RULE,
    }
}

/// The symbol a finding on a use names: `path`, `path(k=)` for a keyword, `path()` for a call.
pub fn symbol_of(u: &Use) -> String {
    match &u.kind {
        UseKind::Keyword(k) => format!("{}({k}=)", u.path),
        UseKind::Call(_) => format!("{}()", u.path),
        _ => u.path.clone(),
    }
}
