//! The names of a module: its own bindings, `__all__`, what star imports and copies bring in,
//! and what `from module import *` exports.

use std::collections::BTreeSet;
use std::rc::Rc;

use apicompat_surface::Kind;

use super::{HashSet, Resolver};
use crate::facts::{AllPart, Value};

impl Resolver {
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
    pub(super) fn exports(&mut self, module: &str) -> std::rc::Rc<HashSet<String>> {
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
    pub(super) fn explicit_names(&mut self, module: &str) -> BTreeSet<String> {
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
    pub(super) fn star_source(&self, star: &str) -> StarSource {
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

    pub(super) fn star_sources(&mut self, module: &str) -> Rc<Vec<String>> {
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
}

pub(super) enum StarSource {
    Internal,
    Stdlib(&'static [&'static str]),
    Unknown,
}
