//! Classes of a release: their members, bases, metaclass and openness.

use std::collections::BTreeMap;
use std::rc::Rc;

use apicompat_surface::{Kind, Symbol};

use apicompat_surface::Signature;

use super::surface::Symbols;
use super::{member_rank, module_of_class, Resolver, MAX_HOPS};
use crate::class_builder::{self, ClassBuilder};
use crate::dataclass;
use crate::facts::{Openness, Value};

/// Bases that add no fields and no `__init__` parameters.
const FIELDLESS_BASES: &[&str] = &[
    "object",
    "builtins.object",
    "typing.Generic",
    "typing.NamedTuple",
    "typing_extensions.NamedTuple",
    "typing.Protocol",
    "typing_extensions.Protocol",
    "abc.ABC",
];

impl Resolver {
    /// Adds to each class of the release the attributes other code of the release stores on
    /// its instances through an annotated receiver (`crate::outside_stores`), as data members.
    pub(super) fn add_outside_stores(&mut self) {
        let mut stores: Vec<(String, String, String)> = Vec::new();
        let mut modules: Vec<&String> = self.modules.keys().collect();
        modules.sort();
        for m in modules {
            for f in &self.modules[m].files {
                stores.extend(
                    f.stores
                        .iter()
                        .map(|(class, name)| (m.clone(), class.clone(), name.clone())),
                );
            }
        }
        for (module, reference, name) in stores {
            let Some(r) = self.resolve_ref(&module, &reference) else {
                continue;
            };
            if r.kind != Kind::Class {
                continue;
            }
            let Some(class) = self.classes.get_mut(&r.canonical) else {
                continue;
            };
            if !class.members.iter().any(|(n, _)| *n == name) {
                Rc::make_mut(class).members.push((name, Value::Data));
            }
        }
    }

    /// Replaces each class base written as a call (`crate::class_builder`) by the bases and
    /// metaclass it gives, when it calls a class-building function of the release; by `f(...)`
    /// otherwise, a base the index does not know (the class's missing members are unknown).
    pub(super) fn expand_base_calls(&mut self) {
        let mut pending: Vec<String> = self
            .classes
            .iter()
            .filter(|(_, c)| !c.base_calls.is_empty())
            .map(|(p, _)| p.clone())
            .collect();
        if pending.is_empty() {
            return;
        }
        pending.sort();
        for path in pending {
            let Some(class) = self.classes.get(&path).cloned() else {
                continue;
            };
            let module =
                module_of_class(path.rsplit_once('.').map_or("", |(m, _)| m), &self.modules);
            let mut expanded = (*class).clone();
            expanded.base_calls.clear();
            // Later positions first, so the earlier ones stay valid.
            let mut calls = class.base_calls.clone();
            calls.sort_by_key(|c| std::cmp::Reverse(c.at));
            for call in &calls {
                let built = self
                    .class_builder_of(&module, &call.func)
                    .and_then(|b| class_builder::apply(&b, call));
                let at = call.at.min(expanded.bases.len());
                match built {
                    Some((bases, meta)) => {
                        for (k, b) in bases.into_iter().enumerate() {
                            expanded.bases.insert(at + k, b);
                        }
                        if expanded.metaclass.is_none() {
                            expanded.metaclass = meta;
                        }
                    }
                    None => expanded.bases.insert(at, format!("{}(...)", call.func)),
                }
            }
            self.classes.insert(path, Rc::new(expanded));
        }
        // Lookups made meanwhile saw the classes before their bases were expanded.
        self.resolved.clear();
    }

    /// The class builder that `func`, written in `module`, resolves to.
    fn class_builder_of(&mut self, module: &str, func: &str) -> Option<ClassBuilder> {
        let r = self.resolve_ref(module, func)?;
        if r.kind != Kind::Function {
            return None;
        }
        let (m, n) = r.canonical.rsplit_once('.')?;
        match self.own_binding(m, n)? {
            Value::Function(f) => f.class_builder,
            _ => None,
        }
    }

    /// A class reference written in `module` (a base, a metaclass): its canonical path, else
    /// what a stub's private import names (`from enum import Enum` -> `enum.Enum`), else as
    /// written.
    fn qualify(&mut self, module: &str, reference: &str) -> String {
        if let Some(r) = self.resolve_ref(module, reference) {
            return r.canonical;
        }
        let (first, rest) = match reference.split_once('.') {
            Some((f, r)) => (f, Some(r)),
            None => (reference, None),
        };
        let imported = self.modules.get(module).and_then(|m| {
            m.files.iter().find_map(|f| {
                f.private_imports
                    .iter()
                    .find(|(bound, _)| bound == first)
                    .map(|(_, target)| target.clone())
            })
        });
        match (imported, rest) {
            (Some(target), Some(rest)) => format!("{target}.{rest}"),
            (Some(target), None) => target,
            (None, _) => reference.to_string(),
        }
    }

    /// The synthesized `__init__` of the field-based class at `path` (`crate::dataclass`):
    /// the fields of its dataclass bases first. None when a base is neither a class of the
    /// release nor one known to add no fields: its fields cannot be known.
    pub(super) fn synthesized_init(&mut self, path: &str) -> Vec<Signature> {
        if self.init_replaced(path) {
            return Vec::new();
        }
        // Depth-first, left to right: the method resolution order of single and simple
        // multiple inheritance.
        let mut order: Vec<String> = Vec::new();
        let mut stack = vec![path.to_string()];
        while let Some(c) = stack.pop() {
            if order.contains(&c) {
                continue;
            }
            if order.len() >= MAX_HOPS {
                return Vec::new();
            }
            let Some(class) = self.classes.get(&c).cloned() else {
                return Vec::new();
            };
            let module = module_of_class(c.rsplit_once('.').map_or("", |(m, _)| m), &self.modules);
            let mut bases = Vec::new();
            for b in &class.bases {
                let q = self.qualify(&module, b);
                if self.classes.contains_key(&q) {
                    bases.push(q);
                } else if !FIELDLESS_BASES.contains(&q.as_str()) && !dataclass::named_tuple_base(b)
                {
                    return Vec::new();
                }
            }
            order.push(c);
            stack.extend(bases.into_iter().rev());
        }
        let fields: Vec<Vec<dataclass::Field>> = order
            .iter()
            .rev()
            .filter_map(|c| self.classes.get(c).and_then(|k| k.fields.clone()))
            .collect();
        vec![Signature {
            params: dataclass::merge(fields.iter().map(Vec::as_slice)),
            returns: None,
        }]
    }

    /// Whether a class decorator applied after the synthesizing one may replace `__init__`:
    /// one from another package (transformers 5.4 - 5.24 `@strict(accept_kwargs=True)
    /// @dataclass class PreTrainedConfig`, `strict` from huggingface_hub, whose `__init__`
    /// takes `**kwargs`). One of the release, of the standard library or `typing_extensions`
    /// (`functools.total_ordering`, `typing.final`), or a deprecation mark (torch 2.10
    /// `@deprecated(...) @dataclass class LeafSpec`: it warns, the constructor stays) keeps it.
    fn init_replaced(&mut self, path: &str) -> bool {
        let Some(class) = self.classes.get(path).cloned() else {
            return false;
        };
        if class.outer_decorators.is_empty() {
            return false;
        }
        let module = module_of_class(path.rsplit_once('.').map_or("", |(m, _)| m), &self.modules);
        class.outer_decorators.iter().any(|d| {
            if crate::defs::is_deprecation_mark(d) {
                return false;
            }
            let canonical = self
                .resolve_ref(&module, d)
                .map_or_else(|| d.clone(), |r| r.canonical);
            let root = canonical.split('.').next().unwrap_or("");
            let own = self.modules.contains_key(root);
            let standard = crate::stdlib::star_names(root).is_some() || root == "typing_extensions";
            !own && !standard
        })
    }

    /// Members of a class defined at `path`, and the class's bases and openness.
    pub(super) fn class_symbols(&mut self, path: &str, sym: &mut Symbol, out: &mut Symbols) {
        let Some(class) = self.classes.get(path).cloned() else {
            return;
        };
        let class = &*class;
        let module = path.rsplit_once('.').map_or("", |(m, _)| m).to_string();
        let module = module_of_class(&module, &self.modules);
        sym.open = class.open != Openness::Closed;
        sym.open_instance_only = class.open == Openness::InstanceData;
        sym.stub_only = self.modules.get(&module).is_some_and(|m| m.stub_only());
        sym.bases = class
            .bases
            .iter()
            .map(|b| self.qualify(&module, b))
            .collect();
        // A stub class whose body declares nothing (`...`, `pass`, a docstring) and whose
        // bases are none or `object` says nothing of the compiled class's members: every name
        // is unknown in this release, even one another release's stub declares (the
        // stub-class rule reads a stub's silence as absence only where the stub lists
        // members). With another base (`class FloatTensor(Tensor): ...`) the stub says the
        // class has its base's members, and the stub-class rule stands.
        if sym.stub_only
            && class.members.is_empty()
            && sym
                .bases
                .iter()
                .all(|b| matches!(b.as_str(), "object" | "builtins.object"))
        {
            sym.open = true;
        }
        // A metaclass adds its members to the class object (a `property` on the metaclass
        // reads as a class attribute), not to the instances: it is kept apart from the bases.
        sym.metaclass = class.metaclass.as_ref().map(|m| self.qualify(&module, m));
        let mut members: BTreeMap<&str, &Value> = BTreeMap::new();
        // A method's deprecation: its first definition on the version's branches, under
        // `if TYPE_CHECKING:` if one is (`Class::method_deprecation`), found in the same pass.
        let mut deprecations: BTreeMap<&str, (&Option<String>, bool)> = BTreeMap::new();
        for (n, v) in &class.members {
            let keep = members
                .get(n.as_str())
                .is_none_or(|old| member_rank(v) > member_rank(old));
            if keep {
                members.insert(n, v);
            }
            if let Value::Function(f) = v {
                let first = deprecations
                    .entry(n)
                    .or_insert((&f.deprecated, f.type_checking));
                if f.type_checking && !first.1 {
                    *first = (&f.deprecated, true);
                }
            }
        }
        for (name, value) in members {
            let member_path = format!("{path}.{name}");
            let mut member = match value {
                Value::Function(_) => {
                    // Its `@overload`s and the implementation together (`Function::merged`).
                    let f = class.method(name).unwrap_or_default();
                    let r = self.function_in(&module, &member_path, &f);
                    Symbol {
                        kind: Some(r.kind),
                        signatures: r.signatures,
                        deprecated: deprecations.get(name).and_then(|d| d.0.clone()),
                        ..Symbol::default()
                    }
                }
                Value::Class(c) => Symbol {
                    kind: Some(Kind::Class),
                    signatures: match c.fields {
                        Some(_) => self.synthesized_init(&member_path),
                        None => c.signatures.clone(),
                    },
                    deprecated: c.deprecated.clone(),
                    ..Symbol::default()
                },
                _ => Symbol {
                    kind: Some(Kind::Attribute),
                    ..Symbol::default()
                },
            };
            if matches!(value, Value::Class(_)) {
                self.class_symbols(&member_path, &mut member, out);
            }
            out.insert(member_path, member);
        }
    }
}
