//! Resolution across the modules of one release: star imports, `__all__`, re-exports to their
//! canonical definition, registered modules, and the final flat surface.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use apicompat_surface::{Kind, Signature, Symbol};

use crate::defs::merged_deprecation;
use crate::facts::{AllPart, Class, FileFacts, Function, Value};

mod classes;
mod copies;
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
    /// A predicate's [`Symbol::implies`].
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

    /// Every binding of `name` in the module imports it from a module outside the release.
    fn imported_from_outside(&self, module: &str, name: &str) -> bool {
        let module = self.target_module(module);
        let (Some(info), Some(positions)) = (
            self.modules.get(module),
            self.binding_index.get(module).and_then(|b| b.get(name)),
        ) else {
            return false;
        };
        let outside = |m: &str| {
            let root = m.split('.').next().unwrap_or(m);
            !self.modules.contains_key(root)
        };
        !positions.is_empty()
            && positions.iter().all(|&(fi, bi)| {
                match info.files.get(fi).and_then(|f| f.bindings.get(bi)) {
                    Some((_, Value::From { module, .. })) => outside(module),
                    Some((_, Value::Module(m))) => outside(m),
                    _ => false,
                }
            })
    }

    /// The best binding of `name` in a module's own files.
    fn own_binding(&self, module: &str, name: &str) -> Option<Value> {
        let info = self.modules.get(module)?;
        let positions = self.binding_index.get(module)?.get(name)?;
        let mut best: Option<&Value> = None;
        for &(fi, bi) in positions {
            let v = &info.files[fi].bindings[bi].1;
            let better = match (best, v) {
                (None, _) => true,
                (Some(Value::Data | Value::Unknown), v) => {
                    !matches!(v, Value::Data | Value::Unknown)
                }
                _ => false,
            };
            if better {
                best = Some(v);
            }
        }
        // Deprecated when the definitions of the first file that defines it for this version
        // all are, those under `if TYPE_CHECKING:` if any (`crate::defs::merged_deprecation`;
        // sources come before stubs).
        let binding = |&(fi, bi): &(usize, usize)| &info.files[fi].bindings[bi].1;
        let defines = |v: &Value| matches!(v, Value::Function(_) | Value::Class(_));
        let deprecated = positions
            .iter()
            .find(|p| defines(binding(p)))
            .and_then(|&(file, _)| {
                merged_deprecation(positions.iter().filter(|p| p.0 == file).map(binding))
            });
        Some(match best? {
            // `@overload`s and the implementation: every signature, the implementation's
            // decorators run (`Function::merged`).
            Value::Function(_) => {
                let functions = positions.iter().filter_map(|p| match binding(p) {
                    Value::Function(f) => Some(f),
                    _ => None,
                });
                let mut f = Function::merged(functions).unwrap_or_default();
                f.deprecated = deprecated;
                Value::Function(f)
            }
            // Members are looked up in `classes`; don't copy them here.
            Value::Class(c) => Value::Class(Class {
                bases: c.bases.clone(),
                members: Vec::new(),
                signatures: c.signatures.clone(),
                deprecated,
                open: c.open,
                metaclass: c.metaclass.clone(),
                fields: c.fields.clone(),
                base_calls: c.base_calls.clone(),
                type_checking: c.type_checking,
                outer_decorators: c.outer_decorators.clone(),
            }),
            v => v.clone(),
        })
    }

    /// `__all__` of a module: the names, and whether part of it could not be read.
    fn all_of(&mut self, module: &str) -> Option<(Vec<String>, bool)> {
        let module = self.target_module(module).to_string();
        if let Some(done) = self.alls.get(&module) {
            return done.clone();
        }
        if !self.alls_busy.insert(module.clone()) {
            return None;
        }
        let parts: Option<Vec<AllPart>> = self.modules.get(&module).and_then(|info| {
            info.files
                .iter()
                .filter_map(|f| f.all.clone())
                .reduce(|mut a, b| {
                    a.extend(b);
                    a
                })
        });
        let out = parts.map(|parts| {
            let mut names = Vec::new();
            let mut dynamic = false;
            for part in parts {
                match part {
                    AllPart::Names(n) => names.extend(n),
                    AllPart::Dynamic => dynamic = true,
                    AllPart::Copies(copies) => {
                        for copy in copies {
                            dynamic |= self.exports_unknown(&copy.module);
                            names.extend(self.copy_names(&copy));
                        }
                    }
                    AllPart::ModuleAll(reference) => {
                        let target = self
                            .resolve_ref(&module, &reference)
                            .filter(|r| r.kind == Kind::Module)
                            .map(|r| r.canonical)
                            .unwrap_or(reference);
                        match self.all_of(&target) {
                            Some((n, d)) => {
                                names.extend(n);
                                dynamic |= d;
                            }
                            None => dynamic = true,
                        }
                    }
                }
            }
            let mut seen = HashSet::default();
            names.retain(|n| seen.insert(n.clone()));
            (names, dynamic)
        });
        self.alls_busy.remove(&module);
        self.alls.insert(module, out.clone());
        out
    }

    /// The names `from module import *` copies.
    fn exports(&mut self, module: &str) -> std::rc::Rc<HashSet<String>> {
        if let Some(done) = self.exported.get(module) {
            return done.clone();
        }
        let busy = self.names_busy.contains(module);
        let out = std::rc::Rc::new(
            self.exports_uncached(module)
                .into_iter()
                .collect::<HashSet<_>>(),
        );
        if !busy {
            self.exported.insert(module.to_string(), out.clone());
        }
        out
    }

    fn exports_uncached(&mut self, module: &str) -> Vec<String> {
        let all = self.all_of(module);
        match all {
            Some((names, false)) => names,
            other => {
                let explicit = self.explicit_names(module);
                // A module with an `__all__` (partly dynamic) does not export what it only
                // imports from outside the release (numpy 1.24's `numpy.core.numerictypes`:
                // `from builtins import float`, "we don't export these for import *").
                let partial_all = other.is_some();
                let mut out: Vec<String> = explicit
                    .into_iter()
                    .filter(|n| !n.starts_with('_'))
                    .filter(|n| !(partial_all && self.imported_from_outside(module, n)))
                    .collect();
                if let Some((names, _)) = other {
                    out.extend(names);
                }
                out
            }
        }
    }

    /// Names bound in a module without its implicit submodules.
    fn explicit_names(&mut self, module: &str) -> BTreeSet<String> {
        let module = self.target_module(module).to_string();
        let mut out = (*self.names_of(&module)).clone();
        if let Some(info) = self.modules.get(&module) {
            for child in &info.children {
                let bound = info
                    .files
                    .iter()
                    .any(|f| f.bindings.iter().any(|(n, _)| n == child));
                if !bound {
                    out.remove(child);
                }
            }
        }
        out
    }

    /// Every name a module has.
    pub fn names_of(&mut self, module: &str) -> Rc<BTreeSet<String>> {
        if let Some(done) = self.names.get(module) {
            return done.clone();
        }
        if !self.names_busy.insert(module.to_string()) {
            return Rc::default();
        }
        let mut out = BTreeSet::new();
        let mut stars = Vec::new();
        let mut copies = Vec::new();
        if let Some(info) = self.modules.get(module) {
            out.extend(info.children.iter().cloned());
            for f in &info.files {
                out.extend(f.bindings.iter().map(|(n, _)| n.clone()));
                out.extend(f.getattr_names.iter().cloned());
                stars.extend(f.stars.iter().cloned());
                copies.extend(f.copies.iter().cloned());
            }
        }
        for copy in copies {
            if matches!(self.star_source(&copy.module), StarSource::Internal) {
                out.extend(self.copy_names(&copy));
                if self.exports_unknown(&copy.module) {
                    self.open_by_star.insert(module.to_string());
                }
            } else {
                self.open_by_star.insert(module.to_string());
            }
        }
        let alias = self.modules.get(module).and_then(|m| m.alias_of.clone());
        if let Some(target) = alias {
            let target_names = self.names_of(&target);
            out.extend(target_names.iter().cloned());
        }
        // A package whose `__init__.py` ships an `__init__.pyi` declaring names is not opened
        // by star imports: the stub declares the package's namespace (numpy's; a type checker
        // accepts no other name). An empty stub (numpy 1.26's `numpy/core/__init__.pyi`)
        // declares nothing; stubs of plain modules (`numpy/core/numeric.pyi`) often list only
        // what the module defines itself.
        let declared_by_stub = self.modules.get(module).is_some_and(|m| {
            m.has_source
                && m.files
                    .iter()
                    .any(|f| f.is_stub && f.is_package && !f.bindings.is_empty())
        });
        for star in stars {
            match self.star_source(&star) {
                StarSource::Internal => {
                    // The names first: reading them finds whether the source is open.
                    let exported = self.exports(&star);
                    if self.exports_unknown(&star) && !declared_by_stub {
                        self.open_by_star.insert(module.to_string());
                    }
                    out.extend(exported.iter().cloned());
                }
                StarSource::Stdlib(names) => out.extend(names.iter().map(|n| n.to_string())),
                StarSource::Unknown => {
                    self.open_by_star.insert(module.to_string());
                }
            }
        }
        if let Some((all, _)) = self.all_of(module) {
            out.extend(all);
        }
        self.names_busy.remove(module);
        let out = Rc::new(out);
        self.names.insert(module.to_string(), out.clone());
        out
    }

    /// Where `from star import *` takes its names from.
    fn star_source(&self, star: &str) -> StarSource {
        let target = self.target_module(star);
        match self.modules.get(target) {
            Some(info) if info.opaque() => StarSource::Unknown,
            Some(_) => StarSource::Internal,
            None => match crate::stdlib::star_names(star) {
                Some(names) => StarSource::Stdlib(names),
                None => StarSource::Unknown,
            },
        }
    }

    /// A module that answers any name at run time and does not say which ones it exports.
    fn exports_unknown(&mut self, module: &str) -> bool {
        let target = self.target_module(module).to_string();
        let open = self.modules.get(&target).is_some_and(|m| m.runtime_open())
            || self.open_by_star.contains(&target);
        open && !matches!(self.all_of(&target), Some((_, false)))
    }

    fn star_sources(&mut self, module: &str) -> Rc<Vec<String>> {
        if let Some(done) = self.stars.get(module) {
            return done.clone();
        }
        let stars: Rc<Vec<String>> = Rc::new(
            self.modules
                .get(module)
                .map(|m| {
                    m.files
                        .iter()
                        .flat_map(|f| f.stars.iter().cloned())
                        .collect()
                })
                .unwrap_or_default(),
        );
        self.stars.insert(module.to_string(), stars.clone());
        stars
    }

    /// Resolves `module.name` to its definition.
    fn resolve(&mut self, module: &str, name: &str) -> Option<Resolved> {
        self.resolve_shared(module, name).map(|r| (*r).clone())
    }

    fn resolve_shared(&mut self, module: &str, name: &str) -> Option<Rc<Resolved>> {
        let key = (module.to_string(), name.to_string());
        match self.resolved.entry(key) {
            std::collections::hash_map::Entry::Occupied(done) => return done.get().clone(),
            // Guard against cycles: an unfinished entry reads as unresolved.
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(None);
            }
        }
        let out = self.resolve_uncached(module, name).map(Rc::new);
        if let Some(slot) = self
            .resolved
            .get_mut(&(module.to_string(), name.to_string()))
        {
            slot.clone_from(&out);
        }
        out
    }

    fn resolve_uncached(&mut self, module: &str, name: &str) -> Option<Resolved> {
        let path = format!("{module}.{name}");
        if self.modules.contains_key(&path) {
            let target = self.target_module(&path).to_string();
            let deprecated = self.module_deprecation(&target);
            return Some(Resolved {
                kind: Kind::Module,
                canonical: target,
                signatures: Vec::new(),
                deprecated,
                implies: Vec::new(),
            });
        }
        if let Some(value) = self.own_binding(module, name) {
            return Some(self.resolve_value(module, &path, &value));
        }
        if let Some(target) = self.modules.get(module).and_then(|m| m.alias_of.clone()) {
            if let Some(r) = self.resolve(&target, name) {
                return Some(r);
            }
        }
        for star in self.star_sources(module).iter() {
            if let StarSource::Stdlib(names) = self.star_source(star) {
                if names.contains(&name) {
                    return Some(Resolved::unknown(format!("{star}.{name}")));
                }
                continue;
            }
            if self.exports(star).contains(name) {
                if self.modules.contains_key(self.target_module(star)) {
                    if let Some(r) = self.resolve(star, name) {
                        return Some(r);
                    }
                }
                return Some(Resolved::unknown(format!("{star}.{name}")));
            }
        }
        let copies: Vec<crate::name_sets::Copy> = self
            .modules
            .get(module)
            .map(|m| m.files.iter().flat_map(|f| f.copies.clone()).collect())
            .unwrap_or_default();
        for copy in copies {
            if self.modules.contains_key(self.target_module(&copy.module))
                && self.copy_names(&copy).contains(name)
            {
                if !copy.exact {
                    return Some(Resolved::unknown(path));
                }
                if let Some(r) = self.resolve(&copy.module, name) {
                    return Some(r);
                }
            }
        }
        if self.names_of(module).contains(name) {
            return Some(Resolved::unknown(path));
        }
        None
    }

    fn module_deprecation(&self, module: &str) -> Option<String> {
        self.modules
            .get(module)?
            .files
            .iter()
            .find_map(|f| f.deprecated.clone())
    }

    fn resolve_value(&mut self, module: &str, path: &str, value: &Value) -> Resolved {
        match value {
            Value::Function(f) => self.function_in(module, path, f),
            Value::Class(c) => Resolved {
                kind: Kind::Class,
                canonical: path.to_string(),
                signatures: match c.fields {
                    Some(_) => self.synthesized_init(path),
                    None => self
                        .decorated_init(module, path)
                        .unwrap_or_else(|| c.signatures.clone()),
                },
                deprecated: c.deprecated.clone(),
                implies: Vec::new(),
            },
            Value::Module(m) => {
                let canonical = if self.modules.contains_key(m.as_str()) {
                    self.target_module(m).to_string()
                } else {
                    m.clone()
                };
                Resolved {
                    kind: Kind::Module,
                    deprecated: self.module_deprecation(&canonical),
                    canonical,
                    signatures: Vec::new(),
                    implies: Vec::new(),
                }
            }
            Value::From { module: from, name } => {
                if self.modules.contains_key(from.as_str()) {
                    self.resolve(from, name)
                        .unwrap_or_else(|| Resolved::unknown(format!("{from}.{name}")))
                } else {
                    Resolved::unknown(format!("{from}.{name}"))
                }
            }
            Value::Alias(reference) => match self.resolve_ref(module, reference) {
                Some(r) => r,
                None => Resolved {
                    kind: Kind::Attribute,
                    canonical: path.to_string(),
                    signatures: Vec::new(),
                    deprecated: None,
                    implies: Vec::new(),
                },
            },
            Value::Data => Resolved {
                kind: Kind::Attribute,
                canonical: path.to_string(),
                signatures: Vec::new(),
                deprecated: None,
                implies: Vec::new(),
            },
            Value::Unknown => Resolved::unknown(path.to_string()),
        }
    }

    /// A dotted reference written in `module`: its first name in the module's scope, then
    /// attributes of modules and class members.
    fn resolve_ref(&mut self, module: &str, reference: &str) -> Option<Resolved> {
        let mut parts = reference.split('.');
        let first = parts.next()?;
        let bound = self.modules.get(module).is_some_and(|m| {
            m.children.contains(first)
                || m.files
                    .iter()
                    .any(|f| f.bindings.iter().any(|(n, _)| n == first))
        });
        let mut cur = if bound || self.names_of(module).contains(first) {
            self.resolve(module, first)?
        } else if self.modules.contains_key(first) {
            Resolved {
                kind: Kind::Module,
                canonical: first.to_string(),
                signatures: Vec::new(),
                deprecated: None,
                implies: Vec::new(),
            }
        } else {
            return None;
        };
        for part in parts {
            cur = match cur.kind {
                Kind::Module if self.modules.contains_key(&cur.canonical) => {
                    let m = cur.canonical.clone();
                    self.resolve(&m, part)?
                }
                Kind::Class => self.member(&cur.canonical, part)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    /// A member of a class defined in this release, looked up through its bases.
    fn member(&mut self, class: &str, name: &str) -> Option<Resolved> {
        let mut queue = vec![class.to_string()];
        let mut seen = HashSet::default();
        while let Some(c) = queue.pop() {
            if !seen.insert(c.clone()) || seen.len() > MAX_HOPS {
                continue;
            }
            let Some(info) = self.classes.get(&c).cloned() else {
                continue;
            };
            let member = info
                .members
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, v)| v)
                .max_by_key(|v| member_rank(v))
                .cloned();
            let bases = info.bases.clone();
            if let Some(v) = member {
                let path = format!("{c}.{name}");
                let module = c.rsplit_once('.').map_or("", |(m, _)| m).to_string();
                return Some(match v {
                    Value::Alias(_) => Resolved {
                        kind: Kind::Attribute,
                        canonical: path,
                        signatures: Vec::new(),
                        deprecated: None,
                        implies: Vec::new(),
                    },
                    Value::Function(_) => Resolved {
                        deprecated: info.method_deprecation(name),
                        ..self.resolve_value(&module, &path, &v)
                    },
                    v => self.resolve_value(&module, &path, &v),
                });
            }
            let module = c.rsplit_once('.').map_or("", |(m, _)| m).to_string();
            for b in bases {
                if let Some(r) = self.resolve_ref(&module, &b) {
                    if r.kind == Kind::Class {
                        queue.push(r.canonical);
                    }
                }
            }
        }
        None
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

    /// The flat surface of every module.
    pub fn symbols(&mut self) -> BTreeMap<String, Symbol> {
        let mut out = Symbols::default();
        let mut modules: Vec<String> = self.modules.keys().cloned().collect();
        modules.sort();
        for module in &modules {
            self.names_of(module);
            let info = &self.modules[module];
            let (open, opaque) = (
                info.open() || self.open_by_star.contains(module),
                info.opaque(),
            );
            let alias = info.alias_of.clone();
            let target_open = alias
                .as_deref()
                .and_then(|t| self.modules.get(t))
                .is_some_and(|t| t.open());
            out.insert(
                module.clone(),
                Symbol {
                    kind: Some(Kind::Module),
                    canonical: alias
                        .clone()
                        .map(|_| self.target_module(module).to_string()),
                    deprecated: self.module_deprecation(module),
                    open: open || target_open,
                    opaque,
                    importable: true,
                    extensible: self.modules[module].files.iter().any(|f| f.extensible),
                    ..Symbol::default()
                },
            );
            if opaque {
                continue;
            }
            for name in self.names_of(module).iter() {
                let path = format!("{module}.{name}");
                if out.contains_key(&path) {
                    continue;
                }
                let Some(r) = self.resolve_shared(module, name) else {
                    continue;
                };
                let canonical = (r.canonical != path).then_some(r.canonical.clone());
                let mut sym = Symbol {
                    kind: Some(r.kind),
                    canonical,
                    signatures: r.signatures.clone(),
                    deprecated: r.deprecated.clone(),
                    implies: r.implies.clone(),
                    ..Symbol::default()
                };
                if r.kind == Kind::Class && sym.canonical.is_none() {
                    self.class_symbols(&path, &mut sym, &mut out);
                }
                out.insert(path, sym);
            }
        }
        for module in &modules {
            let Some((parent, child)) = module.rsplit_once('.') else {
                continue;
            };
            let Some(object) = self.shadow(parent, child) else {
                continue;
            };
            if object.kind == Kind::Attribute {
                let class = self.instance_class(&object.canonical);
                if let Some(sym) = out.get_mut(&object.canonical) {
                    if sym.kind() == Kind::Attribute && sym.canonical.is_none() {
                        sym.instance_of = class;
                    }
                }
            }
            if let Some(sym) = out.get_mut(module) {
                sym.shadow = Some(object.canonical);
            }
        }
        out.finish()
    }

    /// What attribute access on package `parent` finds under the name of its submodule
    /// `child` instead of the module: the object the package binds there by importing it from
    /// that submodule itself, or from a module under it (`from .driver import driver`, `from
    /// .quantize import *` exporting `quantize`). Importing the submodule first sets the
    /// package's attribute to the module, then the binding replaces it; only `import`
    /// statements, which read `sys.modules`, still find the module. None when the package
    /// binds the name otherwise or not at all (a later `import parent.child` elsewhere would
    /// set the attribute to the module), or to the module itself.
    fn shadow(&mut self, parent: &str, child: &str) -> Option<Resolved> {
        let sub = format!("{parent}.{child}");
        let under = |m: &str| {
            m.strip_prefix(sub.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        };
        let info = self.modules.get(parent)?;
        if info.alias_of.is_some() || self.modules.get(&sub)?.alias_of.is_some() {
            return None;
        }
        let positions = self
            .binding_index
            .get(parent)
            .and_then(|b| b.get(child))
            .cloned()
            .unwrap_or_default();
        let binding = |&(fi, bi): &(usize, usize)| {
            info.files
                .get(fi)
                .and_then(|f| f.bindings.get(bi))
                .map(|(_, v)| v)
        };
        let from = positions.iter().find_map(|p| match binding(p)? {
            Value::From { module, name } if under(module) => Some((module.clone(), name.clone())),
            _ => None,
        });
        // Importing the submodule binds its name in the package (`Value::Module`, the import
        // system's side effect); any other binding decides what the name is.
        let only_imported = positions
            .iter()
            .all(|p| matches!(binding(p), Some(Value::Module(m)) if *m == sub));
        let resolved = match from {
            Some((module, name)) => {
                if !self.modules.contains_key(&module) {
                    return None;
                }
                self.resolve(&module, &name)?
            }
            None if only_imported => {
                let stars = self.star_sources(parent);
                let star = stars
                    .iter()
                    .find(|s| under(s) && self.modules.contains_key(s.as_str()))?
                    .clone();
                if !self.exports(&star).contains(child) {
                    return None;
                }
                self.resolve(&star, child)?
            }
            None => return None,
        };
        (resolved.kind != Kind::Module || resolved.canonical != sub).then_some(resolved)
    }

    /// The class of the instance bound at `path` (`driver = DriverConfig()` at module level):
    /// every binding of the name is a value and every one calls the same dotted name, a class
    /// of the release.
    fn instance_class(&mut self, path: &str) -> Option<String> {
        let (module, name) = path.rsplit_once('.')?;
        let info = self.modules.get(module)?;
        let positions = self.binding_index.get(module)?.get(name)?;
        let all_data = positions
            .iter()
            .all(|&(fi, bi)| matches!(info.files[fi].bindings[bi].1, Value::Data));
        let mut calls = info
            .files
            .iter()
            .flat_map(|f| f.instances.iter())
            .filter(|(n, _)| n == name)
            .map(|(_, f)| f);
        let callee = calls.next()?.clone();
        if !all_data || calls.any(|f| *f != callee) {
            return None;
        }
        let class = self.resolve_ref(module, &callee)?;
        (class.kind == Kind::Class).then_some(class.canonical)
    }
}

/// The symbols of a release as they are produced: appended, then sorted once.
#[derive(Default)]
struct Symbols {
    seen: HashMap<String, usize>,
    items: Vec<(String, Symbol)>,
}

impl Symbols {
    fn contains_key(&self, path: &str) -> bool {
        self.seen.contains_key(path)
    }

    fn get_mut(&mut self, path: &str) -> Option<&mut Symbol> {
        let i = *self.seen.get(path)?;
        Some(&mut self.items[i].1)
    }

    /// The last symbol given for a path wins.
    fn insert(&mut self, path: String, symbol: Symbol) {
        match self.seen.get(&path) {
            Some(&i) => self.items[i].1 = symbol,
            None => {
                self.seen.insert(path.clone(), self.items.len());
                self.items.push((path, symbol));
            }
        }
    }

    fn finish(self) -> BTreeMap<String, Symbol> {
        let mut items = self.items;
        items.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        items.into_iter().collect()
    }
}

enum StarSource {
    Internal,
    Stdlib(&'static [&'static str]),
    Unknown,
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
