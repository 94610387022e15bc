//! Resolution across the modules of one release: star imports, `__all__`, re-exports to their
//! canonical definition, registered modules, and the final flat surface.

use std::collections::BTreeSet;
use std::rc::Rc;

use apicompat_surface::{Kind, Signature};

use crate::facts::{Class, FileFacts, Function, Value};

mod classes;
mod copies;
mod definitions;
mod names;
mod surface;
pub mod tables;
mod wrapped;

pub type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;
pub type HashSet<K> = rustc_hash::FxHashSet<K>;

/// One module of the release, with every file that speaks for it.
#[derive(Debug, Default)]
pub struct ModuleInfo {
    pub files: Vec<FileFacts>,
    pub has_source: bool,
    pub has_stub: bool,
    pub extension: bool,
    pub children: BTreeSet<String>,
    /// `sys.modules["this"] = import_module("target")`.
    pub alias_of: Option<String>,
    /// Registered in `sys.modules` with a value that is not a known module.
    pub registered_unknown: bool,
    /// A top-level namespace package (no `__init__`): other distributions can add modules
    /// under it (megatron-core's `megatron`, shared with a Megatron-LM checkout), so it is
    /// open.
    pub namespace_root: bool,
}

impl ModuleInfo {
    /// Those of `names` no file of the module binds.
    pub(crate) fn unbound<'n>(
        &self,
        names: impl IntoIterator<Item = &'n String>,
    ) -> Vec<&'n String> {
        let bound: std::collections::HashSet<&str> = self
            .files
            .iter()
            .flat_map(|f| f.bindings.iter().map(|(b, _)| b.as_str()))
            .collect();
        names
            .into_iter()
            .filter(|n| !bound.contains(n.as_str()))
            .collect()
    }

    /// Answers names it does not list, at run time.
    fn runtime_open(&self) -> bool {
        self.registered_unknown || self.files.iter().any(|f| f.open)
    }

    /// Known only from a stub: the compiled module may have more than the stub declares.
    pub(crate) fn stub_only(&self) -> bool {
        self.has_stub && !self.has_source
    }

    fn open(&self) -> bool {
        self.runtime_open() || self.stub_only() || self.namespace_root
    }

    fn opaque(&self) -> bool {
        self.extension && !self.has_stub
    }
}

/// What a name resolves to.
#[derive(Debug, Clone)]
struct Resolved {
    kind: Kind,
    /// The path of the definition (for modules, the module's own name).
    canonical: String,
    signatures: Vec<Signature>,
    deprecated: Option<String>,
    /// A predicate's [`Symbol::implies`](apicompat_surface::Symbol::implies).
    implies: Vec<String>,
}

impl Resolved {
    fn unknown(canonical: String) -> Resolved {
        Resolved {
            kind: Kind::Unknown,
            canonical,
            signatures: Vec::new(),
            deprecated: None,
            implies: Vec::new(),
        }
    }
}

/// The most levels of re-export followed for one name.
pub(crate) const MAX_HOPS: usize = 48;

pub struct Resolver {
    pub modules: HashMap<String, ModuleInfo>,
    names: HashMap<String, Rc<BTreeSet<String>>>,
    /// Per module: name -> (file, binding) positions.
    binding_index: HashMap<String, HashMap<String, Vec<(usize, usize)>>>,
    names_busy: HashSet<String>,
    alls: HashMap<String, Option<(Vec<String>, bool)>>,
    alls_busy: HashSet<String>,
    resolved: HashMap<(String, String), Option<Rc<Resolved>>>,
    exported: HashMap<String, std::rc::Rc<HashSet<String>>>,
    /// Modules that copy names from a module whose names cannot be known.
    open_by_star: HashSet<String>,
    stars: HashMap<String, Rc<Vec<String>>>,
    /// Classes by canonical path, for member lookups.
    classes: HashMap<String, Rc<Class>>,
    /// Names of functions whose wrapper takes keys out of `**kwargs` (`resolve/wrapped.rs`).
    wrapper_names: HashSet<String>,
    /// Decorators being resolved (bounded by `wrapped::MAX_DEPTH`).
    wrap_depth: usize,
}

impl Resolver {
    pub fn new(mut modules: HashMap<String, ModuleInfo>) -> Resolver {
        // Registered modules and namespace packages.
        let roots: HashSet<String> = modules
            .keys()
            .map(|m| m.split('.').next().unwrap_or(m).to_string())
            .collect();
        let mut registered = Vec::new();
        let mut table = Vec::new();
        for info in modules.values() {
            for f in &info.files {
                registered.extend(f.registered.iter().cloned());
                table.extend(f.finder_aliases.iter().cloned());
            }
        }
        // A finder's table names a module of the release for a name that is none
        // (`crate::module_aliases`); other entries are data.
        for (key, target) in table {
            let ships = |m: &str| {
                modules
                    .get(m)
                    .is_some_and(|i| !i.files.is_empty() || i.extension)
            };
            if ships(&target) && !modules.contains_key(&key) {
                registered.push((key, Some(target)));
            }
        }
        for (key, target) in registered {
            let root = key.split('.').next().unwrap_or(&key);
            if !roots.contains(root) {
                continue;
            }
            let entry = modules.entry(key.clone()).or_default();
            match target {
                Some(t) if t != key => entry.alias_of = Some(t),
                Some(_) => {}
                None => entry.registered_unknown = true,
            }
        }
        let names: Vec<String> = modules.keys().cloned().collect();
        for name in names {
            let mut child = name.as_str();
            while let Some((parent, last)) = child.rsplit_once('.') {
                let entry = modules.entry(parent.to_string()).or_default();
                let inserted = entry.children.insert(last.to_string());
                if !inserted {
                    break;
                }
                child = parent;
            }
        }
        for (name, info) in modules.iter_mut() {
            info.namespace_root = !name.contains('.')
                && info.files.is_empty()
                && !info.extension
                && info.alias_of.is_none();
        }
        let mut classes = HashMap::default();
        for (name, info) in &modules {
            for f in &info.files {
                for (n, v) in &f.bindings {
                    if let Value::Class(c) = v {
                        collect_classes(&format!("{name}.{n}"), c, &mut classes);
                    }
                }
            }
        }
        let classes = classes.into_iter().map(|(k, v)| (k, Rc::new(v))).collect();
        let wrapper_names = wrapped::wrapper_names(&modules);
        let mut binding_index: HashMap<String, HashMap<String, Vec<(usize, usize)>>> =
            HashMap::default();
        for (name, info) in &modules {
            let index = binding_index.entry(name.clone()).or_default();
            for (fi, f) in info.files.iter().enumerate() {
                for (bi, (n, _)) in f.bindings.iter().enumerate() {
                    index.entry(n.clone()).or_default().push((fi, bi));
                }
            }
        }
        let mut resolver = Resolver {
            modules,
            binding_index,
            names: HashMap::default(),
            names_busy: HashSet::default(),
            alls: HashMap::default(),
            alls_busy: HashSet::default(),
            resolved: HashMap::default(),
            exported: HashMap::default(),
            open_by_star: HashSet::default(),
            stars: HashMap::default(),
            classes,
            wrapper_names,
            wrap_depth: 0,
        };
        resolver.expand_base_calls();
        resolver.add_outside_stores();
        resolver
    }

    /// The module an alias module stands for, followed to the end.
    fn target_module<'a>(&'a self, module: &'a str) -> &'a str {
        let mut cur = module;
        for _ in 0..MAX_HOPS {
            match self.modules.get(cur).and_then(|m| m.alias_of.as_deref()) {
                Some(t) => cur = t,
                None => break,
            }
        }
        cur
    }

    /// Whether `module` is declared by its stub alone, and nothing else adds names to it (no
    /// `__getattr__`, star import of unknown names, registration or namespace package).
    pub(crate) fn only_stub_declares(&self, module: &str) -> bool {
        self.modules.get(module).is_some_and(|m| {
            m.stub_only()
                && !m.runtime_open()
                && !m.namespace_root
                && m.alias_of.is_none()
                && !self.open_by_star.contains(module)
        })
    }
}

/// The module a (possibly nested) class path lives in.
fn module_of_class(prefix: &str, modules: &HashMap<String, ModuleInfo>) -> String {
    let mut cur = prefix;
    loop {
        if modules.contains_key(cur) {
            return cur.to_string();
        }
        match cur.rsplit_once('.') {
            Some((p, _)) => cur = p,
            None => return prefix.to_string(),
        }
    }
}

fn member_rank(v: &Value) -> u8 {
    match v {
        Value::Function(_) | Value::Class(_) => 3,
        Value::Module(_) | Value::From { .. } | Value::Alias(_) => 2,
        Value::Data => 1,
        Value::Unknown => 0,
    }
}

fn function_resolved(path: &str, f: &Function) -> Resolved {
    Resolved {
        kind: if f.property {
            Kind::Property
        } else {
            Kind::Function
        },
        canonical: path.to_string(),
        signatures: f.signatures.clone(),
        deprecated: f.deprecated.clone(),
        implies: f.implies.clone(),
    }
}

fn collect_classes(path: &str, class: &Class, out: &mut HashMap<String, Class>) {
    for (n, v) in &class.members {
        if let Value::Class(c) = v {
            collect_classes(&format!("{path}.{n}"), c, out);
        }
    }
    out.entry(path.to_string())
        .and_modify(|existing| {
            existing.members.extend(class.members.iter().cloned());
            for b in &class.bases {
                if !existing.bases.contains(b) {
                    existing.bases.push(b.clone());
                }
            }
            for c in &class.base_calls {
                if !existing.base_calls.contains(c) {
                    existing.base_calls.push(c.clone());
                }
            }
            existing.open = existing.open.max(class.open);
            if existing.metaclass.is_none() {
                existing.metaclass.clone_from(&class.metaclass);
            }
        })
        .or_insert_with(|| class.clone());
}
