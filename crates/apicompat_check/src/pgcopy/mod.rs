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

mod classes;
mod eval;
mod facts;
mod indexed;
mod pgindex;

use crate::last_segment;
use apicompat_hash::{HashMap, HashSet};
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use ruff_text_size::TextRange;

use apicompat_index::{Catalog, PackageView, Status};
use apicompat_semantic::facts::Def;
use apicompat_surface::Kind;

use crate::files::Analyzed;
use crate::model::Finding;
use crate::rules::ac010_copied_process_group as ac010;
use crate::targets::Target;

pub use facts::{extract, may_copy, CopyKind, FileFacts, TypeSource, TypedRead};
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
    /// Each file's path relative to `root`, as messages print it (made when first needed).
    shown: Vec<OnceCell<String>>,
    /// The files that may define a class, a module-level function or a module-level
    /// container by a name, in order: those whose facts are read by the names in them, the
    /// others (read on first use) by the names their semantic facts bind at module level or
    /// give a class.
    defining: HashMap<&'a str, Vec<usize>>,
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
    if analyzed.iter().enumerate().all(|(fi, a)| {
        !is_reported(fi) || a.process_groups_read().is_none_or(|f| f.copies.is_empty())
    }) {
        return;
    }
    let mut engine = Engine::new(catalog, analyzed);
    engine.cache = cache;
    for (fi, file) in analyzed.iter().enumerate() {
        if !is_reported(fi) {
            continue;
        }
        // A file whose facts were not read names no copy function.
        let Some(facts) = file.process_groups_read() else {
            continue;
        };
        for site in &facts.copies {
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

impl<'a> Engine<'a> {
    fn new(catalog: &'a Catalog, files: &'a [Arc<Analyzed>]) -> Engine<'a> {
        let mut defining: HashMap<&'a str, Vec<usize>> = HashMap::default();
        let mut defined: HashSet<&'a str> = HashSet::default();
        let mut roots: Vec<String> = vec!["torch".to_string()];
        for (fi, f) in files.iter().enumerate() {
            let mut names: Vec<&'a str> = Vec::new();
            // Facts cut short by deep nesting may not bind every name: read the file.
            let facts = match f.semantic.truncated {
                true => Some(f.process_groups()),
                false => f.process_groups_read(),
            };
            match facts {
                Some(facts) => {
                    names.extend(facts.classes.iter().map(|c| c.name));
                    let top = facts.functions.iter().filter(|func| func.top_level);
                    names.extend(top.map(|func| func.name));
                    names.extend(facts.containers.iter().map(|(name, _)| name.as_str()));
                }
                None => {
                    let semantic = &*f.semantic;
                    names.extend(semantic.classes.iter().map(|c| c.name));
                    // Classes anywhere; functions and containers at module level (an
                    // import binds neither).
                    if let Some(module) = semantic.scopes.first() {
                        let bound = module.bindings.entries().filter(|(_, def)| {
                            !matches!(def, Def::Import(_) | Def::ImportFrom { .. })
                        });
                        names.extend(bound.map(|(name, _)| name));
                    }
                }
            }
            names.sort_unstable();
            names.dedup();
            for name in names {
                defining.entry(name).or_default().push(fi);
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
            shown: (0..files.len()).map(|_| OnceCell::new()).collect(),
            defining,
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
        self.files[file].process_groups()
    }

    /// The project's classes named `name` in the files `fits` keeps, in file order.
    fn classes_named(&self, name: &str, fits: &dyn Fn(usize) -> bool) -> Vec<ClassRef> {
        self.files_defining(name)
            .filter(|&fi| fits(fi))
            .flat_map(|fi| {
                let classes = self.facts(fi).classes.iter().enumerate();
                classes
                    .filter(|(_, c)| c.name == name)
                    .map(move |(ci, _)| (fi, ci))
            })
            .collect()
    }

    /// The project's module-level functions named `name` in the files `fits` keeps, in file
    /// order.
    fn functions_named(&self, name: &str, fits: &dyn Fn(usize) -> bool) -> Vec<FuncRef> {
        self.files_defining(name)
            .filter(|&fi| fits(fi))
            .flat_map(|fi| {
                let funcs = self.facts(fi).functions.iter();
                let top = funcs.filter(|f| f.top_level && f.name == name);
                top.map(move |f| (fi, f.id))
            })
            .collect()
    }

    /// The project's module-level containers named `name` in the files `fits` keeps: (file,
    /// position in its `containers`), in file order.
    fn containers_named(&self, name: &str, fits: &dyn Fn(usize) -> bool) -> Vec<(usize, usize)> {
        self.files_defining(name)
            .filter(|&fi| fits(fi))
            .flat_map(|fi| {
                let containers = self.facts(fi).containers.iter().enumerate();
                let named = containers.filter(|(_, (n, _))| n == name);
                named.map(move |(i, _)| (fi, i))
            })
            .collect()
    }

    fn files_defining(&self, name: &str) -> impl Iterator<Item = usize> + '_ {
        self.defining.get(name).into_iter().flatten().copied()
    }

    fn class(&self, c: ClassRef) -> &'a ClassFacts {
        &self.facts(c.0).classes[c.1]
    }

    /// `model.py:9`, relative to the directory holding the project's files.
    fn loc(&self, file: usize, range: TextRange) -> String {
        let f = &self.files[file];
        let line = f.line_of(range.start());
        let shown = self.shown[file].get_or_init(|| {
            crate::survey::display(f.path.strip_prefix(&self.root).unwrap_or(&f.path))
        });
        format!("{shown}:{line}")
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
