//! Guarded callers: a use inside a function runs only when the function is called, so the
//! conditions every call of it runs under guard the use too.
//!
//! Accelerate's `fsdp2_prepare_model` is called only under `if is_torch_version(">=",
//! "2.4")`; `_prepare_tp` only from a method that raised for old releases. A function's
//! *caller condition* is the union, over the project's calls of its name, of what each call
//! runs under (a guard that catches the failure, version conditions, `hasattr` tests), joined
//! with the caller condition of the function the call is in (to a fixed depth). A use in the
//! function gets that condition on top of its own.
//!
//! Calls are matched by name (`f(...)`, `obj.f(...)`, `self.f(...)`): a name is restricted
//! only if *every* call of that name is, which over-approximates where each function of that
//! name runs. A function runs from anywhere (no restriction) when it has no call in the
//! project (an entry point, a test, a public function of a library called by its users), when
//! its name is read other than as a callee (`callback=f`, `obj.f` passed on), when a function
//! of that name has a decorator (it may be registered), and for dunder names (called by Python).
//! A call inside a function of the same name (recursion, or a delegate's method of that name)
//! adds nothing: it runs only where a function of that name already runs.
//!
//! A module's import-time code (module level, class bodies) runs only where the module is
//! imported: its *module cover* is the union, over the project's imports of it
//! ([`crate::importers`]), of what each import statement runs under, joined with the cover
//! of the function the statement is in, or of its own module for an import at module level
//! (`tuners_utils.py` importing `transformers_weight_conversion` inside a function, under
//! `if is_transformers_ge_v5:`). A call at module level likewise runs only where its module
//! is imported. A module that some import reaches unconditionally, or none of the project's
//! imports reaches, is unrestricted.
//!
//! A site inside a function (a call, an import) runs where the function's callers run, and
//! never beyond its own module's cover when that is a condition ([`within_module`]): callers
//! matched by name may include those of a function of the same name in a module imported
//! under another condition.

use apicompat_hash::HashMap;
use std::sync::Arc;

use ruff_text_size::TextRange;

use crate::collect::{FileUses, FuncEntry, GuardAt};
use crate::files::Analyzed;
use crate::importers::ImportRef;
use crate::versions::Pred;

mod combine;
mod gates;

use combine::{join, within_module};
use gates::gates;

/// Callers followed through functions inside functions; deeper chains are unrestricted.
const MAX_CALLER_DEPTH: usize = 8;

/// Where the calls of a function name run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cover {
    /// Every call is in a `try` that catches the failure (or under one of those functions).
    Guarded { at: GuardAt },
    /// The calls run only where these conditions hold (one per top-level module), or where
    /// these paths exist; and when `caught`, every one is also in a `try` that catches the
    /// failure (a module imported in a `try` after an early exit on the version: its
    /// import-time code is guarded, its functions exist only where the conditions held).
    Limited {
        versions: Vec<(String, Pred)>,
        has: Vec<String>,
        at: GuardAt,
        caught: bool,
    },
}

/// What one call of the name runs under, its function's callers included.
struct Context {
    versions: Vec<(String, Pred)>,
    has: Vec<String>,
    at: GuardAt,
    /// Its failure is caught too.
    caught: bool,
}

/// A call of a name: (file, position in its `calls` or `None` for a plain call, the function
/// it is in).
type CallRef = (usize, Option<usize>, Option<u32>);

/// What one site (a call, an import statement) runs under by itself.
struct Own {
    guarded: bool,
    versions: Vec<(String, Pred)>,
    has: Vec<String>,
    at: TextRange,
}

/// A site joined with where its function (or module) runs.
enum Step {
    /// Its failure is caught there.
    Guarded(GuardAt),
    Limited(Context),
    /// It runs unconditionally.
    Free,
}

struct Callers<'a> {
    files: &'a [Arc<Analyzed>],
    /// Calls by name key: (file, position in `calls` or `None` for a plain call, function).
    calls: HashMap<u32, Vec<CallRef>>,
    escaping: apicompat_hash::HashSet<u32>,
    /// Cover of a name key: `None` while it is computed (a cycle: unrestricted) or
    /// unrestricted.
    memo: HashMap<u32, Option<Cover>>,
    /// The import statements of each file's module (`None`: imported from anywhere).
    importers: Vec<Option<Vec<ImportRef>>>,
    /// Module cover of a file, as `memo`.
    module_memo: HashMap<usize, Option<Cover>>,
    /// Where pytest imports a file a `conftest.py` gates ([`gates`]).
    gates: HashMap<usize, (Vec<(String, Pred)>, GuardAt)>,
    /// The module cover of each file that is a condition, from the previous round of
    /// [`covers`]: the bound of the sites in its functions ([`within_module`]).
    bound: Vec<Option<Cover>>,
}

/// What the callers of one file's code run under: the cover of each of its functions (in
/// the order of its `functions`) and its module cover.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct FileCovers {
    functions: Vec<Option<Arc<Cover>>>,
    module: Option<Cover>,
    /// Per function: a method the project never calls, of a class with a base
    /// ([`hook_requires`]).
    hooks: Vec<bool>,
}

/// The covers of every file ([`covers`], split by file).
pub(crate) fn file_covers(files: &[Arc<Analyzed>]) -> Vec<FileCovers> {
    let (covers, modules, hooks) = covers(files);
    let covers: HashMap<u32, Arc<Cover>> =
        covers.into_iter().map(|(k, c)| (k, Arc::new(c))).collect();
    // One entry per function of the file, none when no function of the project has one.
    fn per_function<T>(file: &Analyzed, any: bool, of: impl Fn(&FuncEntry) -> T) -> Vec<T> {
        if any {
            file.uses.functions.iter().map(of).collect()
        } else {
            Vec::new()
        }
    }
    files
        .iter()
        .zip(modules)
        .map(|(file, module)| FileCovers {
            functions: per_function(file, !covers.is_empty(), |f| covers.get(&f.key).cloned()),
            module,
            hooks: per_function(file, !hooks.is_empty(), |f| {
                f.overrides && hooks.contains(&f.key)
            }),
        })
        .collect()
}

/// A method the project never calls, of a class with a base, that overrides a package's
/// method runs when the package calls it: only in the releases whose class has that method (a
/// package calls the hooks it defines). Its use of a package class's method of its own name
/// (`Trainer.get_batch_samples(self, ...)`, `super().get_batch_samples(...)`; a class by its
/// CapWords name) is judged only where that method exists (`docs/false-alarm-study-28.md`,
/// F-B). The path required, if `path` is such a use.
fn hook_requires(func: &FuncEntry, path: &str) -> Option<crate::collect::PathTest> {
    let (owner, name) = path.rsplit_once('.')?;
    let class = owner.rsplit('.').next().unwrap_or(owner);
    let own = crate::collect::name_key(name) == func.key
        && class.starts_with(|c: char| c.is_ascii_uppercase());
    own.then(|| crate::collect::PathTest::exists(path.to_string()))
}

/// Adds the caller condition of each function to the uses in it (the file is copied only
/// when some use gets one).
///
/// A use in a function also gets its module's cover when that cover is a condition (a
/// version, a `hasattr` test): the function exists only where its module was imported
/// (Megatron-DeepSpeed imports `fused_rmsnorm`, whose `forward` calls `torch.xpu.IpexRmsNorm`,
/// only under `if hasattr(torch.xpu, "IpexRmsNorm"):`). A module imported in a `try` that
/// catches its failure guards its import-time code only: a later call is not in that `try`.
pub(crate) fn apply(file: &mut Arc<Analyzed>, covers: &FileCovers) {
    let limited = covers
        .module
        .as_ref()
        .filter(|c| matches!(c, Cover::Limited { .. }));
    // The module's cover over a function's uses: its conditions, not its `try` (a later call
    // is not in it).
    let uncaught = limited.map(|c| match c {
        Cover::Limited {
            versions, has, at, ..
        } => Cover::Limited {
            versions: versions.clone(),
            has: has.clone(),
            at: *at,
            caught: false,
        },
        c => c.clone(),
    });
    let covers_of = |func: Option<u32>| -> [Option<&Cover>; 2] {
        match func {
            Some(f) => [
                covers.functions.get(f as usize).and_then(Option::as_deref),
                uncaught.as_ref(),
            ],
            None => [covers.module.as_ref(), None],
        }
    };
    let hook =
        |func: Option<u32>| func.is_some_and(|f| covers.hooks.get(f as usize) == Some(&true));
    if covers.module.is_none()
        && covers.functions.iter().all(Option::is_none)
        && !covers.hooks.contains(&true)
    {
        return;
    }
    let any = |func: Option<u32>| covers_of(func).iter().any(Option::is_some) || hook(func);
    let covered = |a: &Analyzed| {
        let uses = &a.uses;
        uses.uses.iter().any(|u| any(u.func))
            || uses.members.iter().any(|m| any(m.func))
            || uses.sites.iter().any(|s| any(s.func))
    };
    if !crate::link::writable(file, covered) {
        return;
    }
    let uses = &mut Arc::make_mut(file).uses;
    let functions = &uses.functions;
    // The override a use is in, if it is one, and where it is defined.
    let hook_at = |func: Option<u32>| {
        let f = functions.get(func.filter(|&f| hook(Some(f)))? as usize)?;
        Some((
            f,
            GuardAt {
                range: f.at,
                file: None,
            },
        ))
    };
    let hook_test = |func: Option<u32>, path: &str| {
        let (f, at) = hook_at(func)?;
        Some((hook_requires(f, path)?, at))
    };
    for u in &mut uses.uses {
        if let Some((test, at)) = hook_test(u.func, &u.path) {
            if !u.requires.contains(&test) {
                u.requires.push(test);
                u.guard_at = u.guard_at.or(Some(at));
            }
        }
        for c in covers_of(u.func).into_iter().flatten() {
            let (guarded, versions) = restrict(c, &u.path);
            // The callers' guard is the one shown when it is what guards the use (a test
            // the use sits under that does not guard it is no reason).
            u.guard_at = if guarded && !u.guarded {
                Some(c.at())
            } else {
                u.guard_at.or(Some(c.at()))
            };
            u.guarded |= guarded;
            u.versions.extend(versions);
            c.require(&mut u.requires, Some(&u.path));
        }
    }
    for m in &mut uses.members {
        if let Some((test, _)) = hook_test(m.func, &m.name) {
            if !m.requires.contains(&test) {
                m.requires.push(test);
            }
        }
        for c in covers_of(m.func).into_iter().flatten() {
            let (guarded, versions) = restrict(c, &m.name);
            m.guarded |= guarded;
            m.versions.extend(versions);
            c.require(&mut m.requires, None);
        }
    }
    for s in &mut uses.sites {
        s.hook = hook_at(s.func).map(|(_, at)| at);
        for c in covers_of(s.func).into_iter().flatten() {
            let (guarded, versions) = restrict(c, "");
            s.guard_at = if guarded && !s.guarded {
                Some(c.at())
            } else {
                s.guard_at.or(Some(c.at()))
            };
            s.guarded |= guarded;
            if !versions.is_empty() {
                let mut v = s.versions.to_vec();
                v.extend(versions);
                s.versions = v.into_boxed_slice();
            }
            if c.has_paths().next().is_some() {
                let mut r = s.requires.to_vec();
                c.require(&mut r, None);
                s.requires = r.into_boxed_slice();
            }
        }
    }
}

impl Cover {
    /// The package paths every call's tests found present (not a member of an object of
    /// unknown type, `?.n`, nor a keyword a callee accepts, `f(k=)`), and the model names
    /// they dispatched on (`model_type == "qwen2_5_vl"`).
    fn has_paths(&self) -> impl Iterator<Item = &str> {
        let has: &[String] = match self {
            Cover::Limited { has, .. } => has,
            Cover::Guarded { .. } => &[],
        };
        has.iter()
            .map(|h| h.strip_prefix(READ).unwrap_or(h))
            .filter(|h| {
                crate::collect::is_dispatch(h)
                    || (!h.is_empty()
                        && h.split('.').all(|s| {
                            !s.is_empty()
                                && s.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                        }))
            })
    }

    /// The function runs only where those paths exist: a use of another path there is
    /// judged on those releases only, as under the same `hasattr` in its own body
    /// (ultralytics' `_SafeLoad.loading`, entered only where
    /// `torch.serialization.get_unsafe_globals_in_checkpoint` exists, also calls
    /// `add_safe_globals`, there since 2.4).
    /// A dispatch on model names says something only of a use's `path` with that name in it
    /// (`crate::collect::PathTest::for_use`); without one, nothing.
    fn require(&self, requires: &mut Vec<crate::collect::PathTest>, path: Option<&str>) {
        for has in self.has_paths() {
            let test = crate::collect::PathTest::exists(has.to_string());
            let tests = match (crate::collect::is_dispatch(has), path) {
                (false, _) => vec![test],
                (true, Some(path)) => crate::collect::PathTest::for_use(&[test], path),
                (true, None) => continue,
            };
            for test in tests {
                if !requires.contains(&test) {
                    requires.push(test);
                }
            }
        }
    }

    /// Where one of the calls' guards is.
    fn at(&self) -> GuardAt {
        match self {
            Cover::Guarded { at } | Cover::Limited { at, .. } => *at,
        }
    }
}

/// The prefix of a path known to exist because a test in force read it (not a `hasattr`):
/// [`crate::collect::ImportSite::has`], [`crate::collect::CallSite::has`].
pub(crate) const READ: &str = "+";

/// Whether a cover guards a use of `path`, and the conditions it adds.
fn restrict(c: &Cover, path: &str) -> (bool, Vec<(String, Pred)>) {
    match c {
        Cover::Guarded { .. } | Cover::Limited { caught: true, .. } => (true, Vec::new()),
        Cover::Limited { versions, has, .. } => {
            // A path a test read for sure (`+path`) restricts the releases (`Cover::require`)
            // but guards nothing under it.
            let tested = has.iter().filter(|h| !h.starts_with(READ)).any(|h| {
                path == h
                    || path
                        .strip_prefix(h.as_str())
                        .is_some_and(|rest| rest.starts_with('.'))
            });
            (tested, versions.clone())
        }
    }
}

/// The cover of every function name of the project that has one, by name key, the module
/// cover of each file, and the name keys of the overriding methods the project never calls.
/// Names that share a key share their calls: each is then restricted only where all of them
/// are.
fn covers(
    files: &[Arc<Analyzed>],
) -> (
    HashMap<u32, Cover>,
    Vec<Option<Cover>>,
    apicompat_hash::HashSet<u32>,
) {
    let mut c = Callers {
        files,
        calls: HashMap::default(),
        escaping: apicompat_hash::HashSet::default(),
        memo: HashMap::default(),
        importers: crate::importers::importers(files),
        module_memo: HashMap::default(),
        gates: gates(files),
        bound: vec![None; files.len()],
    };
    for (fi, f) in files.iter().enumerate() {
        c.escaping.extend(f.uses.escaping.iter().copied());
        for (i, call) in f.uses.calls.iter().enumerate() {
            c.calls
                .entry(call.key)
                .or_default()
                .push((fi, Some(i), call.func));
        }
        for &(key, func) in &f.uses.plain_calls {
            c.calls.entry(key).or_default().push((fi, None, func));
        }
    }
    // A function in a dict of functions is called where the dict is (`DISPATCH[k](...)`),
    // unless the dict itself is read some other way (passed on, iterated, changed) or the
    // function escapes elsewhere too.
    let mut elsewhere: apicompat_hash::HashSet<u32> = apicompat_hash::HashSet::default();
    for f in files {
        let only = &f.uses.table_only;
        elsewhere.extend(
            f.uses
                .escaping
                .iter()
                .filter(|k| only.binary_search(k).is_err())
                .copied(),
        );
    }
    // The functions of a dict read some other way escape with it.
    for f in files {
        for (dict, _, values) in &f.uses.tables {
            if elsewhere.contains(dict) {
                elsewhere.extend(values.iter().copied());
            }
        }
    }
    for f in files {
        for (dict, dispatch, values) in &f.uses.tables {
            if elsewhere.contains(dict) {
                continue;
            }
            let sites = c.calls.get(dispatch).cloned().unwrap_or_default();
            for v in values.iter().filter(|v| !elsewhere.contains(v)) {
                c.escaping.remove(v);
                c.calls.entry(*v).or_default().extend(sites.iter().copied());
            }
        }
    }
    // Each round bounds the sites in functions by the module covers of the round before
    // ([`within_module`]), read as they are: computing a module's cover from inside a
    // function's would reach the depth limit sooner and keep a truncated (wider) cover. A
    // module imported in a function of a module imported in a function gets its bound one
    // round later; the covers only narrow, and a round that changes no module cover ends it.
    let mut rounds = 0;
    let (out, modules) = loop {
        let mut out = HashMap::default();
        for f in files {
            for func in &f.uses.functions {
                if out.contains_key(&func.key) {
                    continue;
                }
                if let Some(cover) = c.cover(func.key, 0) {
                    out.insert(func.key, cover);
                }
            }
        }
        let modules: Vec<Option<Cover>> = (0..files.len()).map(|i| c.module_cover(i, 0)).collect();
        rounds += 1;
        let bounds = |m: &[Option<Cover>]| -> Vec<Option<Cover>> {
            m.iter()
                .map(|c| c.clone().filter(|c| matches!(c, Cover::Limited { .. })))
                .collect()
        };
        let next = bounds(&modules);
        if rounds >= MAX_BOUND_ROUNDS || next == c.bound {
            break (out, modules);
        }
        c.bound = next;
        c.memo.clear();
        c.module_memo.clear();
    };
    // Each name once: many methods share a name (`forward`), each name's calls are read once.
    let overriding: apicompat_hash::HashSet<u32> = files
        .iter()
        .flat_map(|f| f.uses.functions.iter())
        .filter(|f| f.overrides)
        .map(|f| f.key)
        .collect();
    let hooks = overriding
        .into_iter()
        .filter(|&key| c.never_called(key))
        .collect();
    (out, modules, hooks)
}

/// Rounds of [`covers`] at most: the depth of modules imported inside functions of modules
/// imported inside functions that get their module's bound.
const MAX_BOUND_ROUNDS: usize = 8;

impl Callers<'_> {
    fn uses(&self, file: usize) -> &FileUses {
        &self.files[file].uses
    }

    /// Whether the project never calls a function of this name (but from inside functions of
    /// the same name) nor reads the name other than as a callee.
    fn never_called(&self, name: u32) -> bool {
        !self.escaping.contains(&name)
            && self.calls.get(&name).is_none_or(|sites| {
                sites.iter().all(|&(file, _, func)| {
                    func.and_then(|f| self.uses(file).functions.get(f as usize))
                        .is_some_and(|f| f.key == name)
                })
            })
    }

    /// The cover of a name, `None` when calls of it may run anywhere.
    fn cover(&mut self, name: u32, depth: usize) -> Option<Cover> {
        if let Some(known) = self.memo.get(&name) {
            return known.clone();
        }
        if depth > MAX_CALLER_DEPTH || self.escaping.contains(&name) {
            return None;
        }
        self.memo.insert(name, None);
        let cover = self.compute(name, depth);
        self.memo.insert(name, cover.clone());
        cover
    }

    fn compute(&mut self, name: u32, depth: usize) -> Option<Cover> {
        let sites = self.calls.get(&name)?.clone();
        let mut steps = Vec::with_capacity(sites.len());
        for (file, call, func) in sites {
            let outer = func.and_then(|f| self.uses(file).functions.get(f as usize));
            if outer.is_some_and(|f| f.key == name) {
                // A recursive call runs only where the function already runs: no new context.
                continue;
            }
            let own = call.map(|i| {
                let c = &self.uses(file).calls[i];
                Own {
                    guarded: c.guarded,
                    versions: c.versions.to_vec(),
                    has: c.has.to_vec(),
                    at: c.at,
                }
            });
            match self.step(file, own, func, depth) {
                Step::Free => return None,
                step => steps.push(step),
            }
        }
        join(steps)
    }

    /// The module cover of a file: where its import-time code runs, `None` when anywhere;
    /// within where pytest imports it, for a file a `conftest.py` gates.
    fn module_cover(&mut self, file: usize, depth: usize) -> Option<Cover> {
        let cover = self.imported_cover(file, depth);
        let Some((versions, at)) = self.gates.get(&file) else {
            return cover;
        };
        match cover {
            None => Some(Cover::Limited {
                versions: versions.clone(),
                has: Vec::new(),
                at: *at,
                caught: false,
            }),
            Some(Cover::Limited {
                versions: mut v,
                has,
                at,
                caught,
            }) => {
                v.extend(versions.iter().cloned());
                Some(Cover::Limited {
                    versions: v,
                    has,
                    at,
                    caught,
                })
            }
            guarded => guarded,
        }
    }

    /// Where the project's imports of a file run, `None` when anywhere.
    fn imported_cover(&mut self, file: usize, depth: usize) -> Option<Cover> {
        if let Some(known) = self.module_memo.get(&file) {
            return known.clone();
        }
        if depth > MAX_CALLER_DEPTH {
            return None;
        }
        let sites = self.importers.get(file)?.clone()?;
        self.module_memo.insert(file, None);
        let mut steps = Vec::with_capacity(sites.len());
        let mut free = false;
        for (from, i) in sites {
            if from == file {
                // A module importing itself (or its package) adds nothing.
                continue;
            }
            let s = &self.uses(from).project_imports[i];
            let own = Own {
                guarded: s.guarded,
                versions: s.versions.to_vec(),
                has: s.has.to_vec(),
                at: s.at,
            };
            let func = s.func;
            match self.step(from, Some(own), func, depth) {
                Step::Free => {
                    free = true;
                    break;
                }
                step => steps.push(step),
            }
        }
        let cover = if free { None } else { join(steps) };
        self.module_memo.insert(file, cover.clone());
        cover
    }

    /// One site in `file` (in function `func`, or at module level), joined with where that
    /// function or module runs.
    fn step(&mut self, file: usize, own: Option<Own>, func: Option<u32>, depth: usize) -> Step {
        let here = |range| GuardAt {
            range,
            file: u32::try_from(file).ok(),
        };
        let caught_here = own.as_ref().filter(|o| o.guarded).map(|o| here(o.at));
        if let Some(at) = caught_here.filter(|_| {
            own.as_ref()
                .is_some_and(|o| o.versions.is_empty() && o.has.is_empty())
        }) {
            return Step::Guarded(at);
        }
        let mut ctx = match own {
            Some(o) => Context {
                versions: o.versions,
                has: o.has,
                at: here(o.at),
                caught: o.guarded,
            },
            None => Context {
                versions: Vec::new(),
                has: Vec::new(),
                at: here(TextRange::default()),
                caught: false,
            },
        };
        let outer = match func {
            Some(f) => {
                let key = self.uses(file).functions.get(f as usize).map(|f| f.key);
                let called = key.and_then(|n| self.cover(n, depth + 1));
                within_module(called, self.bound.get(file).cloned().flatten())
            }
            None => self.module_cover(file, depth + 1),
        };
        match outer {
            Some(Cover::Guarded { at }) => {
                if ctx.versions.is_empty() && ctx.has.is_empty() {
                    return Step::Guarded(at);
                }
                ctx.caught = true;
            }
            Some(Cover::Limited {
                versions,
                has,
                at,
                caught,
            }) => {
                if ctx.versions.is_empty() && ctx.has.is_empty() {
                    ctx.at = at;
                }
                ctx.versions.extend(versions);
                ctx.has.extend(has);
                ctx.caught |= caught;
            }
            None => {}
        }
        if ctx.versions.is_empty() && ctx.has.is_empty() {
            return Step::Free;
        }
        Step::Limited(ctx)
    }
}
