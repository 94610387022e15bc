//! Names resolved to their definitions: through the module's own bindings, alias modules,
//! star imports and copies, dotted references, and class members through the bases.

use std::rc::Rc;

use apicompat_surface::Kind;

use super::names::StarSource;
use super::{member_rank, HashSet, Resolved, Resolver, MAX_HOPS};
use crate::defs::merged_deprecation;
use crate::facts::{Class, Function, Value};

impl Resolver {
    /// The best binding of `name` in a module's own files.
    pub(super) fn own_binding(&self, module: &str, name: &str) -> Option<Value> {
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

    /// Resolves `module.name` to its definition.
    pub(super) fn resolve(&mut self, module: &str, name: &str) -> Option<Resolved> {
        self.resolve_shared(module, name).map(|r| (*r).clone())
    }

    pub(super) fn resolve_shared(&mut self, module: &str, name: &str) -> Option<Rc<Resolved>> {
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

    pub(super) fn module_deprecation(&self, module: &str) -> Option<String> {
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
    pub(super) fn resolve_ref(&mut self, module: &str, reference: &str) -> Option<Resolved> {
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
}
