//! `**mapping` arguments: the keys a mapping passes and the indexed callee they are judged
//! on.

use super::{Callee, Model, Ns, SplatUse};
use crate::facts::{Def, ScopeId, Splat};
use crate::ir::Sym;
use crate::types::Ty;
use crate::PathKind;

impl Model<'_> {
    /// The keywords a `**mapping` argument passes, and the callee they are judged on: the
    /// mapping is a dict literal or `dict(k=...)` (in every binding of its name), with the
    /// keys set on it by item assignment; a change the model cannot follow gives nothing.
    pub fn splat(&self, m: u32, splat: &Splat) -> Option<SplatUse> {
        let keys = self.mapping_keys(m, splat.scope, &splat.mapping)?;
        if keys.is_empty() {
            return None;
        }
        let callee = match self.value(Ns::Project(m, splat.scope), &splat.callee) {
            Ty::Indexed(p) => match self.find(&p)?.kind {
                PathKind::Class | PathKind::Function => Callee {
                    path: p.to_string(),
                    receiver: None,
                },
                _ => return None,
            },
            Ty::Method { path, receiver } => {
                let member = path.rsplit('.').next()?;
                let r = self
                    .receiver_of(&receiver, member)
                    .filter(|r| r.others.is_empty())?;
                Callee {
                    path: format!("{}.{member}", r.class),
                    receiver: Some(r),
                }
            }
            _ => return None,
        };
        Some(SplatUse { callee, keys })
    }

    fn mapping_keys(&self, m: u32, scope: ScopeId, mapping: &Sym) -> Option<Vec<String>> {
        let mut keys: Vec<String> = Vec::new();
        let mut add = |k: &str| {
            if !keys.iter().any(|x| x == k) {
                keys.push(k.to_string());
            }
        };
        match mapping {
            Sym::Name(n) => {
                let s = self.binding_scope(m, scope, n)?;
                let sc = &self.modules[m as usize].scopes[s as usize];
                // The keys every binding gives (a key only some branches give may be absent).
                let mut common: Option<Vec<String>> = None;
                for def in sc.bindings.get(n)? {
                    let Def::Value(v) = def else {
                        return None;
                    };
                    let ks = literal_keys(v, |name| self.binding_scope(m, s, name).is_none())?;
                    common = Some(match common {
                        None => ks,
                        Some(c) => c.into_iter().filter(|k| ks.contains(k)).collect(),
                    });
                }
                for k in common.unwrap_or_default() {
                    add(&k);
                }
                for (name, key) in &sc.items {
                    if name == n {
                        add(key.as_deref()?);
                    }
                }
            }
            v => {
                for k in literal_keys(v, |name| self.binding_scope(m, scope, name).is_none())? {
                    add(&k);
                }
            }
        }
        Some(keys)
    }
}

/// The string keys of a dict literal or of `dict(k=v, ...)` (`dict` being the builtin, as
/// `is_builtin` tells); `**other` items add keys the model does not know, which is fine: the
/// known ones are passed all the same.
fn literal_keys(v: &Sym, is_builtin: impl Fn(&str) -> bool) -> Option<Vec<String>> {
    match v {
        Sym::Dict(items) => items
            .iter()
            .filter_map(|(k, _)| match k {
                None => None,
                Some("") => Some(None),
                Some(k) => Some(Some(k.to_string())),
            })
            .collect(),
        Sym::Call(c) => match &c.func {
            Sym::Name(n) if &**n == "dict" && is_builtin("dict") && c.positional == 0 => c
                .keywords
                .iter()
                .filter_map(|k| k.as_ref().map(|k| k.to_string()))
                .map(Some)
                .collect(),
            _ => None,
        },
        _ => None,
    }
}
