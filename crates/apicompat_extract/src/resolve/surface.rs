//! The flat surface of a release: a symbol for every module and every name it has, and the
//! object a package binds over the name of its submodule.

use std::collections::BTreeMap;

use apicompat_surface::{Kind, Symbol};

use super::{HashMap, Resolved, Resolver};
use crate::facts::Value;

impl Resolver {
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
pub(super) struct Symbols {
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
    pub(super) fn insert(&mut self, path: String, symbol: Symbol) {
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
