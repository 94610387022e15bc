//! AC010: copying or pickling an object that holds a `torch.distributed` process group.
//!
//! [`facts`] reads each file (classes, what they store on `self`, functions, copy sites);
//! here the facts of the whole project are joined with the index: a copied expression is
//! evaluated to an abstract value (a process group with the path it came by, an object of a
//! project class with the arguments it was built with, a dict, a list), and an object is
//! looked into through the attributes its class stores, its `super().__init__` calls and its
//! sub-objects. Which values are process groups comes from [`pgindex`]: the return
//! annotations of the indexed functions and properties, annotated parameters, and, as a weaker
//! signal that needs a second one, names like `tp_group`, `pg`, `process_group`.

mod facts;
mod pgindex;

use apicompat_hash::{HashMap, HashSet};
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use ruff_text_size::TextRange;

use apicompat_index::{Catalog, PackageView, Status};
use apicompat_surface::Kind;

use crate::files::Analyzed;
use crate::model::Finding;
use crate::rules::ac010_copied_process_group as ac010;
use crate::targets::Target;

pub use facts::{extract, CopyKind, FileFacts, TypeSource, TypedRead};
use facts::{CallVal, ClassFacts, Default, Key, ParamInfo, ParamKind, Val};
pub use pgindex::{PgIndex, SEED_TYPES};

/// Evaluation steps allowed per copy site (the abstract values are small, but classes can
/// refer to each other).
const BUDGET: u32 = 20_000;
/// Nesting of evaluations.
const MAX_EVAL_DEPTH: usize = 48;
/// Sub-objects followed inside one another.
const MAX_HOLD_DEPTH: usize = 6;
/// Evaluations nested inside one another, whatever the path (bounds the stack).
const MAX_NESTING: usize = 160;

/// Words that, before `_group`, name a kind of parallelism or communication: `tp_group`,
/// `data_parallel_group`, `world_group`. A name is only a weak signal (see [`pg_like`]).
const GROUP_WORDS: &[&str] = &[
    "dp",
    "tp",
    "pp",
    "sp",
    "ep",
    "cp",
    "mp",
    "moe",
    "ddp",
    "fsdp",
    "zero",
    "data",
    "tensor",
    "pipeline",
    "pipe",
    "model",
    "expert",
    "experts",
    "sequence",
    "context",
    "parallel",
    "world",
    "dist",
    "distributed",
    "comm",
    "communication",
    "process",
    "intra",
    "inter",
    "node",
    "shard",
    "sharding",
    "replicate",
    "replica",
    "replication",
    "mesh",
    "nccl",
    "gloo",
    "default",
    "global",
    "local",
    "sub",
    "reduce",
    "gather",
    "allreduce",
    "broadcast",
];

/// Whether a name looks like a process group's: `pg`, `*_pg`, `process_group`,
/// `*_process_group`, or `<word>_group` with a word of [`GROUP_WORDS`] (`tp_group`,
/// `dp_process_group`); not `param_group`.
pub fn pg_like(name: &str) -> bool {
    let n = name.trim_start_matches('_').to_ascii_lowercase();
    if n == "pg" || n == "process_group" || n.ends_with("_pg") || n.ends_with("_process_group") {
        return true;
    }
    n.strip_suffix("_group")
        .and_then(|prefix| prefix.rsplit('_').next())
        .is_some_and(|w| GROUP_WORDS.contains(&w))
}

type ClassRef = (usize, usize);
type FuncRef = (usize, u32);

/// Where a process group came from, and how it got where it is.
#[derive(Debug, Clone, PartialEq)]
struct Origin {
    /// Known from the index or an annotation; otherwise only from names.
    definite: bool,
    /// The group-like names it went by (`tp_group`, `process_group`).
    names: Vec<String>,
    /// Where it came from, then each hand-over, in order.
    steps: Vec<String>,
}

impl Origin {
    fn new(definite: bool, name: Option<&str>, step: String) -> Origin {
        Origin {
            definite,
            names: name.map(|n| vec![n.to_string()]).unwrap_or_default(),
            steps: vec![step],
        }
    }

    /// Enough to report: known from the data, or two different group-like names agree (the
    /// value's name where it comes from and the name of the slot it is put in).
    fn reportable(&self) -> bool {
        self.definite || self.names.len() >= 2
    }

    fn with(mut self, step: String, name: Option<&str>) -> Origin {
        if let Some(n) = name.filter(|n| pg_like(n)) {
            if !self.names.iter().any(|x| x == n) {
                self.names.push(n.to_string());
            }
        }
        if self.steps.len() < 12 && !step.is_empty() {
            self.steps.push(step);
        }
        self
    }
}

/// The arguments a function or `__init__` was called with.
#[derive(Debug, Clone, PartialEq)]
struct Bindings {
    /// The function: (file, id).
    owner: FuncRef,
    values: HashMap<String, Abs>,
    /// Some arguments are not known (`*args`, `**unknown`): parameters not bound are unknown.
    open: bool,
}

/// An object of a project class.
#[derive(Debug, Clone, PartialEq)]
struct Obj {
    class: ClassRef,
    /// The arguments of the `__init__` that built it, when known.
    args: Option<Rc<Bindings>>,
    /// How it was made: `built at train.py:14`.
    how: Option<String>,
}

/// What an expression is, as far as the rule needs to know.
#[derive(Debug, Clone, PartialEq)]
enum Abs {
    Unknown,
    None,
    Pg(Origin),
    Obj(Rc<Obj>),
    Class(ClassRef),
    Func(FuncRef),
    /// A module, class, function or object of an indexed package (`instance`: an object of
    /// the class at `path`).
    Indexed {
        path: String,
        instance: bool,
    },
    Dict(Vec<(Option<String>, Abs, String)>),
    Seq(Vec<Abs>),
    /// An object of an indexed class built with a process group among its arguments
    /// (`FullyShardedDataParallel(model, process_group=pg)`): it keeps it.
    Wrapped {
        class: String,
        origin: Origin,
        how: String,
    },
}

/// The more telling of two possible values.
fn best(a: Abs, b: Abs) -> Abs {
    fn rank(x: &Abs) -> u8 {
        match x {
            Abs::Pg(o) if o.definite => 6,
            Abs::Pg(_) => 5,
            Abs::Obj(_) => 4,
            Abs::Dict(_) | Abs::Seq(_) | Abs::Wrapped { .. } => 3,
            Abs::Indexed { .. } | Abs::Class(_) | Abs::Func(_) => 2,
            Abs::None => 1,
            Abs::Unknown => 0,
        }
    }
    if rank(&b) > rank(&a) {
        b
    } else {
        a
    }
}

/// Where an evaluation happens.
#[derive(Clone)]
struct Ctx {
    file: usize,
    bindings: Option<Rc<Bindings>>,
    /// The object `self` is.
    this: Option<Rc<Obj>>,
}

/// What the index says about a path, as much as the rule needs.
#[derive(Debug, Clone)]
enum IndexedInfo {
    Class(String),
    Callable {
        canonical: String,
        kind: Kind,
        /// A return annotation that names a process group.
        pg: Option<String>,
        /// The other return annotations.
        returns: Vec<String>,
    },
    Other,
    Missing,
}

/// An attribute of a copied object that holds a process group.
#[derive(Debug, Clone)]
struct Hold {
    /// `process_group`, `block.process_group`.
    attr: String,
    /// `model.py:9`.
    at: String,
    origin: Origin,
}

/// The process-group tables of the last check, kept by the language server ([`crate::warm`]):
/// they depend only on the packages the project uses (the names read so far stay read).
#[derive(std::default::Default)]
pub struct PgCache {
    last: std::sync::Mutex<Option<Arc<PgIndex>>>,
}

struct Engine<'a> {
    catalog: &'a Catalog,
    /// Where the tables of the previous check are kept, if anywhere.
    cache: Option<&'a PgCache>,
    files: &'a [Arc<Analyzed>],
    /// Dotted path components of each file (`pkg`, `model`).
    modules: Vec<Vec<String>>,
    root: PathBuf,
    classes: HashMap<&'a str, Vec<ClassRef>>,
    funcs: HashMap<&'a str, Vec<FuncRef>>,
    /// Module-level containers by name: (file, position in its `containers`).
    containers: HashMap<&'a str, Vec<(usize, usize)>>,
    /// Names the project defines anywhere.
    defined: HashSet<&'a str>,
    /// Indexed packages the project uses.
    roots: Vec<String>,
    pg: OnceCell<(Arc<PgIndex>, Vec<&'a PackageView>)>,
    indexed: RefCell<HashMap<String, IndexedInfo>>,
    views: RefCell<HashMap<String, Option<&'a PackageView>>>,
    budget: Cell<u32>,
    nesting: Cell<usize>,
}

/// The AC010 findings of the project (their releases are added by [`add_targets`] once the
/// targets are chosen).
pub(crate) fn check_files(
    catalog: &Catalog,
    analyzed: &[Arc<Analyzed>],
    reported: &[bool],
    cache: Option<&PgCache>,
    out: &mut Vec<(usize, Finding, Vec<u32>)>,
) {
    let is_reported = |fi: usize| reported.get(fi).copied().unwrap_or(true);
    if analyzed
        .iter()
        .enumerate()
        .all(|(fi, a)| !is_reported(fi) || a.process_groups.copies.is_empty())
    {
        return;
    }
    let mut engine = Engine::new(catalog, analyzed);
    engine.cache = cache;
    for (fi, file) in analyzed.iter().enumerate() {
        if !is_reported(fi) {
            continue;
        }
        for site in &file.process_groups.copies {
            engine.budget.set(BUDGET);
            let Some(mut f) = engine.judge(fi, site) else {
                continue;
            };
            let (l, c) = file.position(site.range.start());
            let (el, ec) = file.position(site.range.end());
            f.path = file.path.clone();
            (f.line, f.column, f.end_line, f.end_column) = (l, c, el, ec);
            let (stmt_line, _) = file.position(site.stmt_start);
            out.push((fi, f, vec![l, stmt_line]));
        }
    }
}

/// Every release of torch's target breaks a copy of a process group: the findings say so.
pub(crate) fn add_targets(
    catalog: &Catalog,
    chosen: &BTreeMap<String, Target>,
    found: &mut [(usize, Finding, Vec<u32>)],
) {
    let torch = catalog
        .package_for_module("torch")
        .ok()
        .flatten()
        .and_then(|v| chosen.get(v.name()).map(|t| (v, t)));
    let Some((view, target)) = torch else {
        return;
    };
    let versions = view.versions();
    let mask: Vec<bool> = (0..versions.len())
        .map(|i| target.releases.contains(&i))
        .collect();
    for (_, f, _) in found {
        f.missing_in = target
            .releases
            .iter()
            .filter_map(|&i| versions.get(i).cloned())
            .collect();
        f.missing_ranges = apicompat_index::ranges(&versions, &mask);
        f.target_source = Some(target.info.description.clone());
    }
}

fn module_components(path: &Path) -> Vec<String> {
    let mut out: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if let Some(last) = out.pop() {
        let stem = last
            .strip_suffix(".pyi")
            .or_else(|| last.strip_suffix(".py"))
            .unwrap_or(&last)
            .to_string();
        if stem != "__init__" {
            out.push(stem);
        }
    }
    out
}

fn common_root(files: &[Arc<Analyzed>]) -> PathBuf {
    let mut root: Option<PathBuf> = None;
    for f in files {
        let parent = f.path.parent().map(Path::to_path_buf).unwrap_or_default();
        root = Some(match root {
            None => parent,
            Some(r) => {
                let mut common = PathBuf::new();
                for (a, b) in r.components().zip(parent.components()) {
                    if a != b {
                        break;
                    }
                    common.push(a);
                }
                common
            }
        });
    }
    root.unwrap_or_default()
}

fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

impl<'a> Engine<'a> {
    fn new(catalog: &'a Catalog, files: &'a [Arc<Analyzed>]) -> Engine<'a> {
        let mut classes: HashMap<&'a str, Vec<ClassRef>> = HashMap::default();
        let mut funcs: HashMap<&'a str, Vec<FuncRef>> = HashMap::default();
        let mut containers: HashMap<&'a str, Vec<(usize, usize)>> = HashMap::default();
        let mut defined: HashSet<&'a str> = HashSet::default();
        let mut roots: Vec<String> = vec!["torch".to_string()];
        for (fi, f) in files.iter().enumerate() {
            for (ci, c) in f.process_groups.classes.iter().enumerate() {
                classes.entry(c.name).or_default().push((fi, ci));
            }
            for func in &f.process_groups.functions {
                if func.top_level {
                    funcs.entry(func.name).or_default().push((fi, func.id));
                }
            }
            for (i, (name, _)) in f.process_groups.containers.iter().enumerate() {
                containers.entry(name.as_str()).or_default().push((fi, i));
            }
            defined.extend(f.uses.definitions.defined.iter().map(String::as_str));
            for u in &f.uses.uses {
                let root = u.path.split('.').next().unwrap_or(&u.path);
                if !roots.iter().any(|r| r == root) {
                    roots.push(root.to_string());
                }
            }
        }
        Engine {
            catalog,
            cache: None,
            files,
            modules: files.iter().map(|f| module_components(&f.path)).collect(),
            root: common_root(files),
            classes,
            funcs,
            containers,
            defined,
            roots,
            pg: OnceCell::new(),
            indexed: RefCell::new(HashMap::default()),
            views: RefCell::new(HashMap::default()),
            budget: Cell::new(BUDGET),
            nesting: Cell::new(0),
        }
    }

    fn spend(&self) -> bool {
        let b = self.budget.get();
        if b == 0 {
            return false;
        }
        self.budget.set(b - 1);
        true
    }

    /// The process-group tables, and the packages they read.
    fn pg_tables(&self) -> &(Arc<PgIndex>, Vec<&'a PackageView>) {
        self.pg.get_or_init(|| {
            let mut views: Vec<&PackageView> = Vec::new();
            for root in &self.roots {
                if let Some(v) = self.view(root) {
                    if pgindex::may_give_groups(v) && !views.iter().any(|x| x.name() == v.name()) {
                        views.push(v);
                    }
                }
            }
            let packages: Vec<String> = views.iter().map(|v| v.name().to_string()).collect();
            let Some(cache) = self.cache else {
                return (Arc::new(PgIndex::new(&views)), views);
            };
            let mut last = cache.last.lock().unwrap_or_else(|e| e.into_inner());
            let index = match last.as_ref() {
                Some(pg) if pg.packages == packages => Arc::clone(pg),
                _ => Arc::new(PgIndex::new(&views)),
            };
            *last = Some(Arc::clone(&index));
            (index, views)
        })
    }

    fn pg(&self) -> &PgIndex {
        &self.pg_tables().0
    }

    fn view(&self, root: &str) -> Option<&'a PackageView> {
        if let Some(v) = self.views.borrow().get(root) {
            return *v;
        }
        let v = self.catalog.package_for_module(root).ok().flatten();
        self.views.borrow_mut().insert(root.to_string(), v);
        v
    }

    fn facts(&self, file: usize) -> &'a FileFacts {
        &self.files[file].process_groups
    }

    fn class(&self, c: ClassRef) -> &'a ClassFacts {
        &self.facts(c.0).classes[c.1]
    }

    /// `model.py:9`, relative to the directory holding the project's files.
    fn loc(&self, file: usize, range: TextRange) -> String {
        let f = &self.files[file];
        let (line, _) = f.position(range.start());
        let rel = f.path.strip_prefix(&self.root).unwrap_or(&f.path);
        format!("{}:{line}", crate::survey::display(rel))
    }

    fn text(&self, file: usize, range: TextRange) -> String {
        let t = self.files[file]
            .text
            .get(range.start().to_usize()..range.end().to_usize())
            .unwrap_or("");
        let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
        if one.chars().count() > 50 {
            format!("{}...", one.chars().take(47).collect::<String>())
        } else {
            one
        }
    }

    // ----- the project's classes and functions -----

    /// The project class or function a dotted reference names (`.model.MyModel`,
    /// `mypkg.model.MyModel`, `model.MyModel`), when exactly one matches.
    fn project_ref(&self, path: &str, from: usize) -> Abs {
        let trimmed = path.trim_start_matches('.');
        let name = last_segment(trimmed);
        let hint: Vec<&str> = match trimmed.rsplit_once('.') {
            Some((module, _)) => module.split('.').collect(),
            None => Vec::new(),
        };
        let fits = |file: usize| {
            let m = &self.modules[file];
            hint.len() <= m.len()
                && m[m.len() - hint.len()..]
                    .iter()
                    .zip(&hint)
                    .all(|(a, b)| a == b)
        };
        if let Some(list) = self.classes.get(name) {
            let cands: Vec<ClassRef> = list.iter().copied().filter(|c| fits(c.0)).collect();
            if let Some(c) = choose(&cands, |c| c.0, from) {
                return Abs::Class(c);
            }
        }
        if let Some(list) = self.funcs.get(name) {
            let cands: Vec<FuncRef> = list.iter().copied().filter(|c| fits(c.0)).collect();
            if let Some(f) = choose(&cands, |c| c.0, from) {
                return Abs::Func(f);
            }
        }
        if let Some(list) = self.containers.get(name) {
            let cands: Vec<(usize, usize)> = list.iter().copied().filter(|c| fits(c.0)).collect();
            if let Some((file, i)) = choose(&cands, |c| c.0, from) {
                let cx = Ctx {
                    file,
                    bindings: None,
                    this: None,
                };
                let val = &self.facts(file).containers[i].1;
                return self.eval(val, &cx, 0);
            }
        }
        Abs::Unknown
    }

    /// The project classes a class derives from, in order.
    fn bases(&self, c: ClassRef) -> Vec<ClassRef> {
        let cx = Ctx {
            file: c.0,
            bindings: None,
            this: None,
        };
        self.class(c)
            .bases
            .iter()
            .filter_map(|b| match self.eval(b, &cx, MAX_EVAL_DEPTH - 4) {
                Abs::Class(b) if b != c => Some(b),
                _ => None,
            })
            .collect()
    }

    /// The `__init__` that runs when the class is called: its own or the first base's.
    fn init_owner(&self, c: ClassRef, depth: usize) -> Option<FuncRef> {
        if depth > 16 {
            return None;
        }
        if let Some(id) = self.class(c).init {
            return Some((c.0, id));
        }
        self.bases(c)
            .into_iter()
            .find_map(|b| self.init_owner(b, depth + 1))
    }

    /// Whether the classes of an object define a hook that decides how it is copied.
    fn handles(&self, c: ClassRef, kind: CopyKind, depth: usize) -> bool {
        if depth > 16 {
            return false;
        }
        let hooks: &[&str] = match kind {
            CopyKind::Deep => &[
                "__deepcopy__",
                "__getstate__",
                "__reduce__",
                "__reduce_ex__",
            ],
            CopyKind::Shallow => &["__copy__", "__getstate__", "__reduce__", "__reduce_ex__"],
            CopyKind::Pickle => &["__getstate__", "__reduce__", "__reduce_ex__"],
        };
        self.class(c)
            .hooks
            .iter()
            .any(|h| hooks.contains(&h.as_str()))
            || self
                .bases(c)
                .into_iter()
                .any(|b| self.handles(b, kind, depth + 1))
    }

    /// The classes of an object with the arguments their `__init__` ran with: the class itself,
    /// then the bases (bound through `super().__init__(...)` or the inherited `__init__`).
    fn levels(&self, o: &Obj) -> Vec<(ClassRef, Option<Rc<Bindings>>)> {
        let mut out: Vec<(ClassRef, Option<Rc<Bindings>>)> = Vec::new();
        let mut queue: Vec<(ClassRef, Option<Rc<Bindings>>, usize)> =
            vec![(o.class, o.args.clone(), 0)];
        let this = Rc::new(o.clone());
        while let Some((c, args, depth)) = queue.pop() {
            if out.iter().any(|(x, _)| *x == c) || depth > 8 || out.len() > 32 {
                continue;
            }
            out.push((c, args.clone()));
            let class = self.class(c);
            let bases = self.bases(c);
            let mut bound: Vec<ClassRef> = Vec::new();
            match class.init {
                Some(id) => {
                    let own = args.as_ref().filter(|b| b.owner == (c.0, id)).cloned();
                    for si in class.supers.iter().filter(|s| s.func == id) {
                        let cx = Ctx {
                            file: c.0,
                            bindings: own.clone(),
                            this: Some(this.clone()),
                        };
                        let target = match &si.base {
                            Some(b) => match self.eval(b, &cx, 8) {
                                Abs::Class(b) => Some(b),
                                _ => None,
                            },
                            None => bases.first().copied(),
                        };
                        let Some(t) = target else {
                            continue;
                        };
                        let b = self
                            .init_owner(t, 0)
                            .map(|owner| Rc::new(self.bind(owner, &si.call, &cx, 8)));
                        bound.push(t);
                        queue.push((t, b, depth + 1));
                    }
                }
                None => {
                    if let Some(&first) = bases.first() {
                        bound.push(first);
                        queue.push((first, args.clone(), depth + 1));
                    }
                }
            }
            for b in bases {
                if !bound.contains(&b) {
                    queue.push((b, None, depth + 1));
                }
            }
        }
        out
    }

    /// What `o.name` is, from what the classes of `o` store under that name.
    fn obj_attr(&self, o: &Rc<Obj>, name: &str, depth: usize) -> Option<Abs> {
        let mut found: Option<Abs> = None;
        for (c, args) in self.levels(o) {
            for s in self.class(c).stores.iter().filter(|s| s.attr == name) {
                let cx = Ctx {
                    file: c.0,
                    bindings: args.clone().filter(|b| b.owner == (c.0, s.func)),
                    this: Some(o.clone()),
                };
                let v = self.eval(&s.val, &cx, depth + 1);
                found = Some(match found {
                    None => v,
                    Some(prev) => best(prev, v),
                });
            }
        }
        found
    }

    /// The attributes of an object that hold a process group, through sub-objects.
    fn holds(
        &self,
        o: &Rc<Obj>,
        kind: CopyKind,
        depth: usize,
        seen: &mut Vec<ClassRef>,
    ) -> Vec<Hold> {
        if depth > MAX_HOLD_DEPTH || seen.contains(&o.class) || self.handles(o.class, kind, 0) {
            return Vec::new();
        }
        seen.push(o.class);
        let mut out: Vec<Hold> = Vec::new();
        for (c, args) in self.levels(o) {
            for s in &self.class(c).stores {
                if out.iter().any(|h| h.attr == s.attr) {
                    continue;
                }
                let cx = Ctx {
                    file: c.0,
                    bindings: args.clone().filter(|b| b.owner == (c.0, s.func)),
                    this: Some(o.clone()),
                };
                let at = self.loc(c.0, s.range);
                let v = self.eval(&s.val, &cx, 0);
                for (attr, inner_at, origin) in self.groups_in(v, kind, depth, seen) {
                    let attr = match attr {
                        Some(a) => format!("{}.{a}", s.attr),
                        None => s.attr.to_string(),
                    };
                    let at = inner_at.unwrap_or_else(|| at.clone());
                    let origin = if attr == s.attr {
                        origin.with(String::new(), Some(s.attr))
                    } else {
                        origin
                    };
                    out.push(Hold { attr, at, origin });
                }
            }
        }
        seen.pop();
        out.sort_by_key(|h| !h.origin.reportable());
        out
    }

    /// The process groups a value holds (deep copies and pickles see them all): the attribute
    /// path below the value (`None` for the value itself) and the group's origin.
    fn groups_in(
        &self,
        v: Abs,
        kind: CopyKind,
        depth: usize,
        seen: &mut Vec<ClassRef>,
    ) -> Vec<(Option<String>, Option<String>, Origin)> {
        match v {
            Abs::Pg(o) => vec![(None, None, o)],
            Abs::Obj(sub) => self
                .holds(&sub, kind, depth + 1, seen)
                .into_iter()
                .map(|h| (Some(h.attr), Some(h.at), h.origin))
                .collect(),
            Abs::Seq(items) if depth < MAX_HOLD_DEPTH => items
                .into_iter()
                .flat_map(|x| self.groups_in(x, kind, depth + 1, seen))
                .take(4)
                .collect(),
            Abs::Dict(entries) if depth < MAX_HOLD_DEPTH => entries
                .into_iter()
                .flat_map(|(_, x, _)| self.groups_in(x, kind, depth + 1, seen))
                .take(4)
                .collect(),
            Abs::Wrapped { origin, .. } => vec![(None, None, origin)],
            _ => Vec::new(),
        }
    }

    // ----- evaluation -----

    fn eval(&self, v: &Val, cx: &Ctx, depth: usize) -> Abs {
        if depth > MAX_EVAL_DEPTH || self.nesting.get() > MAX_NESTING || !self.spend() {
            return Abs::Unknown;
        }
        self.nesting.set(self.nesting.get() + 1);
        let out = self.eval_inner(v, cx, depth);
        self.nesting.set(self.nesting.get() - 1);
        out
    }

    fn eval_inner(&self, v: &Val, cx: &Ctx, depth: usize) -> Abs {
        let d = depth + 1;
        match v {
            Val::Unknown | Val::Lit | Val::Builtin(_) | Val::Super => Abs::Unknown,
            Val::NoneLit => Abs::None,
            Val::Param(p) => self.param(p, cx),
            Val::SelfObj(ci) => {
                let class = (cx.file, *ci);
                match &cx.this {
                    Some(o)
                        if o.class == class || self.levels(o).iter().any(|(c, _)| *c == class) =>
                    {
                        Abs::Obj(o.clone())
                    }
                    _ => Abs::Obj(Rc::new(Obj {
                        class,
                        args: None,
                        how: None,
                    })),
                }
            }
            Val::Ref(path) => self.reference(path, cx.file),
            Val::LocalClass(ci) => Abs::Class((cx.file, *ci)),
            Val::LocalFunc(id) => Abs::Func((cx.file, *id)),
            Val::Attr(base, name, range) => {
                let b = self.eval(base, cx, d);
                self.attribute(b, name, cx.file, *range, d)
            }
            Val::Call(call) => self.call(call, cx, d),
            Val::Dict(entries) => Abs::Dict(
                entries
                    .iter()
                    .map(|(k, v, r)| {
                        (
                            k.map(str::to_string),
                            self.eval(v, cx, d),
                            self.loc(cx.file, *r),
                        )
                    })
                    .collect(),
            ),
            Val::Seq(items) => Abs::Seq(items.iter().map(|x| self.eval(x, cx, d)).collect()),
            Val::Item(inner, i) => match self.eval(inner, cx, d) {
                Abs::Seq(items) => items.get(*i).cloned().unwrap_or(Abs::Unknown),
                Abs::Pg(o) => Abs::Pg(o),
                _ => Abs::Unknown,
            },
            Val::Either(a, b) => best(self.eval(a, cx, d), self.eval(b, cx, d)),
            Val::Index(inner, key) => match (self.eval(inner, cx, d), key) {
                (Abs::Dict(entries), Some(Key::Name(k))) => entries
                    .into_iter()
                    .rev()
                    .find(|(name, _, _)| name.as_deref() == Some(*k))
                    .map_or(Abs::Unknown, |(_, v, _)| v),
                (Abs::Seq(items), Some(Key::Position(i))) => {
                    items.get(*i).cloned().unwrap_or(Abs::Unknown)
                }
                // `MODELS[name]`: any of the values, the most telling.
                (Abs::Dict(entries), None) if entries.iter().all(|(k, _, _)| k.is_some()) => {
                    entries
                        .into_iter()
                        .map(|(_, v, _)| v)
                        .fold(Abs::Unknown, best)
                }
                (Abs::Seq(items), None) => items.into_iter().fold(Abs::Unknown, best),
                _ => Abs::Unknown,
            },
            Val::Instance(class, range) => match self.eval(class, cx, d) {
                Abs::Class(c) => Abs::Obj(Rc::new(Obj {
                    class: c,
                    args: None,
                    how: Some(format!(
                        "checked with `isinstance` at {}",
                        self.loc(cx.file, *range)
                    )),
                })),
                Abs::Indexed { path, .. } => Abs::Indexed {
                    path,
                    instance: true,
                },
                _ => Abs::Unknown,
            },
        }
    }

    fn param(&self, p: &ParamInfo, cx: &Ctx) -> Abs {
        if let Some(b) = &cx.bindings {
            if b.owner == (cx.file, p.owner) {
                if let Some(v) = b.values.get(p.name) {
                    return v.clone();
                }
                if b.open {
                    return Abs::Unknown;
                }
                return match (p.kind, p.default) {
                    (ParamKind::VarKeyword, _) => Abs::Dict(Vec::new()),
                    (ParamKind::VarPositional, _) => Abs::Seq(Vec::new()),
                    (_, Default::NoneLit) => Abs::None,
                    _ => Abs::Unknown,
                };
            }
        }
        // Called from somewhere unknown: only what the parameter says of itself.
        let at = self.loc(cx.file, p.range);
        if let Some(a) = &p.annotation {
            if pgindex::mentions(a, &self.pg().types) {
                let mut o = Origin::new(
                    p.default == Default::Required,
                    None,
                    format!("the parameter `{}: {a}` ({at})", p.name),
                );
                o.names.push(p.name.to_string());
                return Abs::Pg(o);
            }
            if let Some(c) = self.annotated_class(a, cx.file) {
                return Abs::Obj(Rc::new(Obj {
                    class: c,
                    args: None,
                    how: Some(format!("the parameter `{}: {a}` ({at})", p.name)),
                }));
            }
        }
        if pg_like(p.name) && p.default == Default::Required && p.kind != ParamKind::VarKeyword {
            return Abs::Pg(Origin::new(
                false,
                Some(p.name),
                format!("the parameter `{}` ({at})", p.name),
            ));
        }
        Abs::Unknown
    }

    /// The project class an annotation names (`MyModel`, `Optional["MyModel"]`).
    fn annotated_class(&self, annotation: &str, file: usize) -> Option<ClassRef> {
        let ids: Vec<&str> = annotation
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .filter(|s| !s.is_empty())
            .filter(|s| !matches!(last_segment(s), "Optional" | "Union" | "None" | "Type"))
            .collect();
        match ids.as_slice() {
            [one] => match self.project_ref(one, file) {
                Abs::Class(c) => Some(c),
                _ => None,
            },
            _ => None,
        }
    }

    fn reference(&self, path: &str, file: usize) -> Abs {
        if !path.starts_with('.') {
            let root = path.split('.').next().unwrap_or(path);
            if self.view(root).is_some() {
                return self.indexed_value(path, path);
            }
        }
        self.project_ref(path, file)
    }

    /// The value of an indexed path read as an attribute (not called).
    fn indexed_value(&self, path: &str, written: &str) -> Abs {
        match self.indexed_info(path) {
            IndexedInfo::Class(c) => Abs::Indexed {
                path: c,
                instance: false,
            },
            IndexedInfo::Callable {
                kind: Kind::Property,
                pg: Some(r),
                canonical,
                ..
            } => Abs::Pg(Origin::new(
                true,
                None,
                format!("`{written}` (the property `{canonical}` returns `{r}`)"),
            )),
            IndexedInfo::Callable { canonical, .. } => Abs::Indexed {
                path: canonical,
                instance: false,
            },
            IndexedInfo::Other | IndexedInfo::Missing => {
                match self.factory_named(last_segment(path), &[Kind::Property]) {
                    Some(f) => Abs::Pg(Origin::new(
                        true,
                        None,
                        format!("`{written}` (`{}` returns `{}`)", f.path, f.returns),
                    )),
                    None => Abs::Indexed {
                        path: path.to_string(),
                        instance: false,
                    },
                }
            }
        }
    }

    /// The indexed factory of a name, unless the project defines the name itself.
    fn factory_named(&self, name: &str, kinds: &[Kind]) -> Option<pgindex::Factory> {
        if self.defined.contains(name) {
            return None;
        }
        let (pg, views) = self.pg_tables();
        pg.factories_named(views, name, kinds)
    }

    fn indexed_info(&self, path: &str) -> IndexedInfo {
        if let Some(i) = self.indexed.borrow().get(path) {
            return i.clone();
        }
        let info = self.lookup_indexed(path);
        self.indexed
            .borrow_mut()
            .insert(path.to_string(), info.clone());
        info
    }

    fn lookup_indexed(&self, path: &str) -> IndexedInfo {
        let root = path.split('.').next().unwrap_or(path);
        let Some(view) = self.view(root) else {
            return IndexedInfo::Missing;
        };
        let mut info = IndexedInfo::Missing;
        for r in (0..view.releases().len()).rev() {
            let Ok(Status::Present {
                path: found,
                symbol,
            }) = view.status(path, r)
            else {
                continue;
            };
            let canonical = symbol.canonical.clone().unwrap_or(found);
            match symbol.kind() {
                Kind::Class => return IndexedInfo::Class(canonical),
                kind @ (Kind::Function | Kind::Property) => {
                    let (mut pg, mut returns) =
                        match std::mem::replace(&mut info, IndexedInfo::Other) {
                            IndexedInfo::Callable { pg, returns, .. } => (pg, returns),
                            _ => (None, Vec::new()),
                        };
                    for ret in symbol
                        .signatures
                        .iter()
                        .filter_map(|s| s.returns.as_deref())
                    {
                        if pgindex::mentions(ret, &self.pg().types) {
                            pg.get_or_insert_with(|| ret.to_string());
                        } else if !returns.iter().any(|x| x == ret) {
                            returns.push(ret.to_string());
                        }
                    }
                    info = IndexedInfo::Callable {
                        canonical,
                        kind,
                        pg,
                        returns,
                    };
                }
                _ => {
                    if matches!(info, IndexedInfo::Missing) {
                        info = IndexedInfo::Other;
                    }
                }
            }
        }
        info
    }

    /// What calling an indexed function or class gives.
    fn indexed_call(&self, path: &str, written: &str, at: &str) -> Abs {
        match self.indexed_info(path) {
            IndexedInfo::Class(c) => Abs::Indexed {
                path: c,
                instance: true,
            },
            IndexedInfo::Callable {
                pg: Some(r),
                canonical,
                ..
            } => {
                let step = |what: &str| {
                    format!("`{written}()` ({at}){what}, which returns `{r}` (`{canonical}`)")
                };
                match pgindex::tuple_items(&r) {
                    Some(items) => Abs::Seq(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, item)| {
                                if pgindex::mentions(item, &self.pg().types) {
                                    Abs::Pg(Origin::new(
                                        true,
                                        None,
                                        step(&format!(", item {i} of the result")),
                                    ))
                                } else {
                                    Abs::Unknown
                                }
                            })
                            .collect(),
                    ),
                    None => Abs::Pg(Origin::new(true, None, step(""))),
                }
            }
            IndexedInfo::Callable {
                canonical, returns, ..
            } => match self.returned_class(&canonical, &returns) {
                Some(c) => Abs::Indexed {
                    path: c,
                    instance: true,
                },
                None => Abs::Unknown,
            },
            IndexedInfo::Other | IndexedInfo::Missing => {
                match self.factory_named(last_segment(path), &[Kind::Function]) {
                    Some(f) => Abs::Pg(Origin::new(
                        true,
                        None,
                        format!(
                            "`{written}()` ({at}), which returns `{}` (`{}`)",
                            f.returns, f.path
                        ),
                    )),
                    None => Abs::Unknown,
                }
            }
        }
    }

    /// The indexed class a function's return annotation names (`-> DeviceMesh`), looked up
    /// beside the function.
    fn returned_class(&self, canonical: &str, returns: &[String]) -> Option<String> {
        let ret = returns.first()?;
        let ids: Vec<&str> = ret
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .filter(|s| !s.is_empty() && !matches!(*s, "Optional" | "None"))
            .collect();
        let [name] = ids.as_slice() else {
            return None;
        };
        let mut module = canonical;
        while let Some((parent, _)) = module.rsplit_once('.') {
            module = parent;
            if let IndexedInfo::Class(c) = self.indexed_info(&format!("{module}.{name}")) {
                return Some(c);
            }
        }
        None
    }

    fn attribute(&self, b: Abs, name: &str, file: usize, range: TextRange, depth: usize) -> Abs {
        let written = self.text(file, range);
        let at = self.loc(file, range);
        let by_name = |definite_only: bool| -> Abs {
            if let Some(f) = self.factory_named(name, &[Kind::Property]) {
                return Abs::Pg(Origin::new(
                    true,
                    None,
                    format!("`{written}` ({at}; `{}` returns `{}`)", f.path, f.returns),
                ));
            }
            if !definite_only && pg_like(name) {
                return Abs::Pg(Origin::new(
                    false,
                    Some(name),
                    format!("`{written}` ({at})"),
                ));
            }
            Abs::Unknown
        };
        match b {
            Abs::Obj(o) => match self.obj_attr(&o, name, depth) {
                Some(v @ (Abs::Pg(_) | Abs::Obj(_) | Abs::Seq(_) | Abs::Dict(_) | Abs::None)) => v,
                Some(Abs::Indexed { path, instance }) => Abs::Indexed { path, instance },
                _ => by_name(false),
            },
            Abs::Indexed { path, instance } => {
                let member = format!("{path}.{name}");
                match self.indexed_info(&member) {
                    IndexedInfo::Callable {
                        kind: Kind::Property,
                        pg: Some(r),
                        canonical,
                        ..
                    } => Abs::Pg(Origin::new(
                        true,
                        None,
                        format!("`{written}` ({at}; the property `{canonical}` returns `{r}`)"),
                    )),
                    IndexedInfo::Class(c) if !instance => Abs::Indexed {
                        path: c,
                        instance: false,
                    },
                    _ => by_name(false),
                }
            }
            Abs::Pg(_) | Abs::None | Abs::Class(_) | Abs::Func(_) => Abs::Unknown,
            _ => by_name(false),
        }
    }

    fn call(&self, cv: &CallVal, cx: &Ctx, depth: usize) -> Abs {
        let at = self.loc(cx.file, cv.range);
        if let Val::Attr(recv, name, range) = &cv.func {
            let written = self.text(cx.file, *range);
            let r = self.eval(recv, cx, depth);
            return match r {
                Abs::Indexed { path, .. } => {
                    self.indexed_call(&format!("{path}.{name}"), &written, &at)
                }
                Abs::Obj(o) => {
                    // A project method: what it returns, with `self` the object.
                    let method = self.levels(&o).into_iter().find_map(|(c, _)| {
                        let facts = self.facts(c.0);
                        facts
                            .functions
                            .iter()
                            .find(|f| f.class == Some(c.1) && f.name == *name)
                            .map(|f| (c.0, f.id))
                    });
                    match method {
                        Some(m) => self.returns_of(m, cv, cx, Some(o), depth),
                        None => Abs::Unknown,
                    }
                }
                Abs::Class(_) | Abs::Func(_) | Abs::Pg(_) | Abs::None => Abs::Unknown,
                _ => match self.factory_named(name, &[Kind::Function]) {
                    Some(f) => Abs::Pg(Origin::new(
                        true,
                        None,
                        format!(
                            "`{written}()` ({at}), which returns `{}` (`{}`)",
                            f.returns, f.path
                        ),
                    )),
                    None => Abs::Unknown,
                },
            };
        }
        match self.eval(&cv.func, cx, depth) {
            Abs::Class(c) => {
                let args = self
                    .init_owner(c, 0)
                    .map(|owner| Rc::new(self.bind(owner, cv, cx, depth)));
                Abs::Obj(Rc::new(Obj {
                    class: c,
                    args,
                    how: Some(format!("built at {at}")),
                }))
            }
            Abs::Func(f) => self.returns_of(f, cv, cx, None, depth),
            Abs::Indexed { path, .. } => {
                let written = match &cv.func {
                    Val::Ref(p) => p.to_string(),
                    _ => path.clone(),
                };
                match self.indexed_call(&path, &written, &at) {
                    Abs::Indexed {
                        path: class,
                        instance: true,
                    } => self.built_with_group(class, cv, cx, depth, &at),
                    other => other,
                }
            }
            _ => Abs::Unknown,
        }
    }

    /// An object of an indexed class: one that keeps a process group when one of the
    /// arguments it is built with is a group (unless the class decides how it is copied).
    fn built_with_group(
        &self,
        class: String,
        cv: &CallVal,
        cx: &Ctx,
        depth: usize,
        at: &str,
    ) -> Abs {
        let short = last_segment(&class).to_string();
        let mut found: Option<Origin> = None;
        let mut consider = |v: Abs, step: String, name: Option<&str>| {
            if found.is_some() {
                return;
            }
            if let Abs::Pg(o) = flow(v, step, name) {
                if o.reportable() {
                    found = Some(o);
                }
            }
        };
        for (i, a) in cv.args.iter().enumerate() {
            let v = self.eval(a, cx, depth + 1);
            consider(
                v,
                format!("passed to `{short}` as argument {}", i + 1),
                None,
            );
        }
        for (k, v, _) in &cv.kwargs {
            let v = self.eval(v, cx, depth + 1);
            consider(v, format!("passed to `{short}` as `{k}=`"), Some(k));
        }
        for (splat, range) in &cv.splats {
            if let Abs::Dict(entries) = self.eval(splat, cx, depth + 1) {
                let dict = self.loc(cx.file, *range);
                for (k, v, _) in entries {
                    let Some(k) = k else {
                        continue;
                    };
                    consider(
                        v,
                        format!("passed to `{short}` as `{k}=` through `**` ({dict})"),
                        Some(&k),
                    );
                }
            }
        }
        match found {
            Some(origin) if !self.indexed_hooks(&class) => Abs::Wrapped {
                class,
                origin,
                how: format!("built at {at}"),
            },
            _ => Abs::Indexed {
                path: class,
                instance: true,
            },
        }
    }

    /// Whether an indexed class itself defines a hook that decides how its objects are copied
    /// or pickled (`DistributedDataParallel.__getstate__` leaves its group out). Hooks of
    /// generic bases (`nn.Module.__getstate__` returns the whole `__dict__`) say nothing
    /// about the group, so only the class's own count.
    fn indexed_hooks(&self, class: &str) -> bool {
        let root = class.split('.').next().unwrap_or(class);
        let Some(view) = self.view(root) else {
            return true;
        };
        [
            "__deepcopy__",
            "__getstate__",
            "__reduce__",
            "__reduce_ex__",
        ]
        .iter()
        .any(|hook| {
            let path = format!("{class}.{hook}");
            (0..view.releases().len()).any(|r| {
                view.index_of(r)
                    .is_some_and(|(index, pos)| matches!(index.facet_in(&path, pos), Ok(Some(_))))
            })
        })
    }

    /// What a project function returns when called with these arguments.
    fn returns_of(
        &self,
        f: FuncRef,
        cv: &CallVal,
        cx: &Ctx,
        this: Option<Rc<Obj>>,
        depth: usize,
    ) -> Abs {
        let Some(func) = self.facts(f.0).function(f.1) else {
            return Abs::Unknown;
        };
        if func.returns.is_empty() || depth > MAX_EVAL_DEPTH / 2 {
            return Abs::Unknown;
        }
        let bindings = Rc::new(self.bind(f, cv, cx, depth));
        let inner = Ctx {
            file: f.0,
            bindings: Some(bindings),
            this,
        };
        func.returns
            .iter()
            .map(|r| self.eval(r, &inner, depth + 1))
            .fold(Abs::Unknown, best)
    }

    /// The arguments of a call bound to the parameters of a project function.
    fn bind(&self, owner: FuncRef, cv: &CallVal, cx: &Ctx, depth: usize) -> Bindings {
        let mut b = Bindings {
            owner,
            values: HashMap::default(),
            open: cv.star_args,
        };
        let Some(func) = self.facts(owner.0).function(owner.1) else {
            b.open = true;
            return b;
        };
        let callee = match func.class {
            Some(c) if func.name == "__init__" => self.facts(owner.0).classes[c].name,
            _ => func.name,
        };
        let positional: Vec<&ParamInfo> = func
            .params
            .iter()
            .filter(|p| p.kind == ParamKind::Positional)
            .map(|p| &**p)
            .collect();
        let mut extra: Vec<Abs> = Vec::new();
        for (i, a) in cv.args.iter().enumerate() {
            let v = self.eval(a, cx, depth + 1);
            match positional.get(i) {
                Some(p) => {
                    let step = format!("passed to `{callee}` as `{}`", p.name);
                    b.values
                        .insert(p.name.to_string(), flow(v, step, Some(p.name)));
                }
                None => extra.push(v),
            }
        }
        let mut leftover: Vec<(Option<String>, Abs, String)> = Vec::new();
        let mut keyword = |b: &mut Bindings, k: &str, v: Abs, via: Option<&str>| {
            let takes = func.params.iter().any(|p| {
                p.name == k && matches!(p.kind, ParamKind::Positional | ParamKind::KeywordOnly)
            });
            let step = match via {
                Some(dict) => format!("passed to `{callee}` as `{k}=` through {dict}"),
                None => format!("passed to `{callee}` as `{k}=`"),
            };
            let v = match via {
                Some(_) => flow(v, String::new(), Some(k)),
                None => v,
            };
            if takes {
                b.values.insert(k.to_string(), flow(v, step, Some(k)));
            } else {
                leftover.push((Some(k.to_string()), v, String::new()));
            }
        };
        for (k, v, _) in &cv.kwargs {
            let v = self.eval(v, cx, depth + 1);
            keyword(&mut b, k, v, None);
        }
        for (splat, range) in &cv.splats {
            match self.eval(splat, cx, depth + 1) {
                Abs::Dict(entries) => {
                    let whole = format!(
                        "`**{}` ({})",
                        self.text(cx.file, *range).trim_start_matches("**"),
                        self.loc(cx.file, *range)
                    );
                    for (k, v, _) in entries {
                        match k {
                            Some(k) => keyword(&mut b, &k, v, Some(&whole)),
                            None => b.open = true,
                        }
                    }
                }
                _ => b.open = true,
            }
        }
        for p in &func.params {
            match p.kind {
                ParamKind::VarKeyword => {
                    b.values
                        .insert(p.name.to_string(), Abs::Dict(std::mem::take(&mut leftover)));
                }
                ParamKind::VarPositional => {
                    b.values
                        .insert(p.name.to_string(), Abs::Seq(std::mem::take(&mut extra)));
                }
                _ => {}
            }
        }
        b
    }

    // ----- findings -----

    fn judge(&self, fi: usize, site: &facts::CopySite) -> Option<Finding> {
        let cx = Ctx {
            file: fi,
            bindings: None,
            this: None,
        };
        let arg = self.eval(&site.arg, &cx, 0);
        let inner = site
            .written
            .split_once('(')
            .map_or("", |(_, r)| r.strip_suffix(')').unwrap_or(r));
        let is_name = !inner.is_empty()
            && inner
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
        let what = match &site.arg {
            Val::Seq(_) => "an object in the list".to_string(),
            _ => format!("`{inner}`"),
        };
        let (holder, origin) = match arg {
            Abs::Pg(o) if o.reportable() => (None, o),
            v @ (Abs::Obj(_) | Abs::Seq(_) | Abs::Dict(_) | Abs::Wrapped { .. })
                if site.kind != CopyKind::Shallow =>
            {
                let how = match &v {
                    Abs::Obj(o) => {
                        let name = &self.class(o.class).name;
                        let a = if name.starts_with(['A', 'E', 'I', 'O', 'U']) {
                            "an"
                        } else {
                            "a"
                        };
                        match &o.how {
                            Some(h) => format!("{what} ({a} `{name}` {h})"),
                            None => format!("{what} ({a} `{name}`)"),
                        }
                    }
                    Abs::Wrapped { class, how, .. } => {
                        format!("{what} (a `{}` {how})", last_segment(class))
                    }
                    _ => what.clone(),
                };
                let mut seen = Vec::new();
                let (attr, at, origin) = self
                    .groups_in(v, site.kind, 0, &mut seen)
                    .into_iter()
                    .find(|(_, _, o)| o.reportable())?;
                (Some((how, attr, at)), origin)
            }
            _ => return None,
        };
        let chain = origin
            .steps
            .iter()
            .filter(|s| !s.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        let holder = holder.map(|(how, attr, at)| {
            let place = match (attr, at) {
                (Some(attr), Some(at)) => {
                    let place = if is_name && !matches!(site.arg, Val::Seq(_)) {
                        format!("`{inner}.{attr}`")
                    } else {
                        format!("its attribute `{attr}`")
                    };
                    Some((place, at))
                }
                _ => None,
            };
            let class = match self.eval(&site.arg, &cx, 0) {
                Abs::Obj(o) => Some(self.class(o.class).name.to_string()),
                _ => None,
            };
            ac010::Holder { how, place, class }
        });
        Some(ac010::finding(&ac010::Copy {
            written: &site.written,
            func: &site.func,
            kind: site.kind,
            in_function: site.in_function,
            copy_target: site.target.as_deref(),
            inner,
            what: &what,
            holder,
            chain: &chain,
        }))
    }
}

/// A value handed over to a parameter: a process group notes the hand-over.
fn flow(v: Abs, step: String, name: Option<&str>) -> Abs {
    match v {
        Abs::Pg(o) if !step.is_empty() => Abs::Pg(o.with(step, name)),
        Abs::Pg(mut o) => {
            if let Some(n) = name.filter(|n| pg_like(n)) {
                if !o.names.iter().any(|x| x == n) {
                    o.names.push(n.to_string());
                }
            }
            Abs::Pg(o)
        }
        v => v,
    }
}

/// The one candidate, or the one in the file the reference is made from.
fn choose<T: Copy>(cands: &[T], file: impl Fn(&T) -> usize, from: usize) -> Option<T> {
    if let [one] = cands {
        return Some(*one);
    }
    let mut same = cands.iter().filter(|c| file(c) == from);
    match (same.next(), same.next()) {
        (Some(c), None) => Some(*c),
        _ => None,
    }
}
