//! Functions decorated by a decorator of the release whose wrapper takes keys out of
//! `**kwargs` (`crate::kwargs_wrapper`): each such key is a keyword the function accepts,
//! added to its signatures as a keyword-only parameter with a default.

use apicompat_surface::{Kind, Param, ParamKind, Signature};

use super::{function_resolved, HashMap, HashSet, ModuleInfo, Resolved, Resolver};
use crate::facts::{Function, Value};

/// Decorators of decorators followed at most.
pub(super) const MAX_DEPTH: usize = 8;

/// The names of the release's functions that have wrapper keys: only decorators so named
/// are resolved.
pub(super) fn wrapper_names(modules: &HashMap<String, ModuleInfo>) -> HashSet<String> {
    let mut out = HashSet::default();
    for info in modules.values() {
        for f in &info.files {
            for (n, v) in &f.bindings {
                if matches!(v, Value::Function(func) if !func.wrapper_keys.is_empty() || !func.wrapper_params.is_empty())
                {
                    out.insert(n.clone());
                }
            }
        }
    }
    out
}

impl Resolver {
    /// The call signatures of the class at `path` when its own `__init__` is decorated: those
    /// of the `__init__` with the keywords its decorators accept (`Trainer(tokenizer=...)`
    /// through `@deprecate_kwarg("tokenizer", ...)`).
    pub(super) fn decorated_init(&mut self, module: &str, path: &str) -> Option<Vec<Signature>> {
        let class = self.classes.get(path).cloned()?;
        let init = class.method("__init__")?;
        if init.decorators.is_empty() && init.decorator_calls.is_empty() {
            return None;
        }
        let r = self.function_in(module, &format!("{path}.__init__"), &init);
        Some(
            r.signatures
                .into_iter()
                .map(|s| Signature {
                    params: s.params,
                    returns: None,
                })
                .collect(),
        )
    }

    /// A function defined in `module` at `path`, with the keywords its decorators accept.
    pub(super) fn function_in(&mut self, module: &str, path: &str, f: &Function) -> Resolved {
        let mut r = function_resolved(path, f);
        if f.decorators.is_empty() && f.decorator_calls.is_empty() || self.wrap_depth >= MAX_DEPTH {
            return r;
        }
        self.wrap_depth += 1;
        let mut keys: Vec<String> = Vec::new();
        for d in &f.decorators {
            let last = d.rsplit('.').next().unwrap_or(d);
            if !self.wrapper_names.contains(last) {
                continue;
            }
            let Some(dec) = self.resolve_ref(module, d) else {
                continue;
            };
            if dec.kind != Kind::Function {
                continue;
            }
            let Some((m, n)) = dec.canonical.rsplit_once('.') else {
                continue;
            };
            if let Some(Value::Function(def)) = self.own_binding(m, n) {
                keys.extend(def.wrapper_keys);
            }
        }
        // `@deprecate_kwarg("tokenizer", new_name=...)`: the literal given for each parameter
        // of the factory that names a key. The keys of one decoration go together: a key that
        // is already a parameter may be filled through another (`input_embeds` renamed to the
        // required `inputs_embeds`), so it is no longer required.
        let mut groups: Vec<Vec<String>> = Vec::new();
        for call in &f.decorator_calls {
            let last = call.name.rsplit('.').next().unwrap_or(&call.name);
            if !self.wrapper_names.contains(last) {
                continue;
            }
            let Some(dec) = self.resolve_ref(module, &call.name) else {
                continue;
            };
            if dec.kind != Kind::Function {
                continue;
            }
            let Some((m, n)) = dec.canonical.rsplit_once('.') else {
                continue;
            };
            let Some(Value::Function(def)) = self.own_binding(m, n) else {
                continue;
            };
            let mut group = Vec::new();
            for (at, name) in &def.wrapper_params {
                let given = call.args.get(*at).cloned().flatten().or_else(|| {
                    call.keywords
                        .iter()
                        .find(|(k, _)| k == name)
                        .and_then(|(_, v)| v.clone())
                });
                group.extend(given);
            }
            keys.extend(group.iter().cloned());
            groups.push(group);
        }
        self.wrap_depth -= 1;
        for sig in &mut r.signatures {
            for group in &groups {
                let added = group
                    .iter()
                    .any(|k| !sig.params.iter().any(|p| p.name == *k));
                if added {
                    for p in sig.params.iter_mut().filter(|p| group.contains(&p.name)) {
                        p.default = true;
                    }
                }
            }
            for k in &keys {
                if sig.params.iter().any(|p| p.name == *k) {
                    continue;
                }
                let at = sig
                    .params
                    .iter()
                    .position(|p| p.kind == ParamKind::VarKeyword)
                    .unwrap_or(sig.params.len());
                sig.params.insert(
                    at,
                    Param {
                        name: k.clone(),
                        kind: ParamKind::KeywordOnly,
                        default: true,
                        annotation: None,
                    },
                );
            }
        }
        r
    }
}
