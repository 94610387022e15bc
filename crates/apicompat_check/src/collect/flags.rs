//! Module-level version flags read in other modules.
//!
//! ```python
//! # peft/import_utils.py
//! is_transformers_ge_v5_4_0 = packaging.version.parse(transformers.__version__) >= packaging.version.parse("5.4.0")
//!
//! # peft/tuners/lora/layer.py
//! from peft.import_utils import is_transformers_ge_v5_4_0
//! if not is_transformers_ge_v5_4_0:
//!     raise RuntimeError("needs transformers >= 5.4.0")
//! from transformers.integrations.tensor_parallel import ALL_PARALLEL_STYLES   # >= 5.4.0 only
//! ```
//!
//! A name a module binds at top level to a complete version condition is exported like a
//! version helper ([`VersionHelper::flag`]); a module that imports the name from the project
//! (or from anywhere outside the indexed packages) and reads it as a condition gets that
//! condition, negation included, once every file is read. Known by name, as helpers are: two
//! modules binding the name differently, or one binding it to something else too, give no
//! condition.

use super::*;
use crate::versions::FLAG_REF;

impl<'a> Walker<'a> {
    /// Records a module-level binding of `name`: a flag when `info` is a complete version
    /// condition about one package, else a binding that keeps the name from being one.
    pub(super) fn module_binding(&mut self, name: &str, info: Option<&CondInfo>) {
        if self.scopes.len() != 1 {
            return;
        }
        let flag = info
            .filter(|i| i.restriction.complete && !i.restriction.parts.is_empty())
            .and_then(|i| implying(i.restriction.parts.clone()))
            .map(|mut h| {
                h.exact = true;
                h.flag = true;
                h
            });
        let seen = self.flag_names.contains(name);
        match flag {
            Some(h) => {
                self.flag_names.insert(name.to_string());
                self.out.helpers.push((name.to_string(), Some(h)));
            }
            // Bound to something else as well: not a flag.
            None if seen => self.out.helpers.push((name.to_string(), None)),
            None => {}
        }
    }

    /// A name read as a condition that this module imports from outside the indexed packages
    /// (and no enclosing function binds): the flag of that name, resolved once every file is
    /// read.
    pub(super) fn flag_ref(&self, name: &str) -> Option<CondInfo> {
        if !self.imported.contains(name) {
            return None;
        }
        let shadowed = self.scopes.iter().skip(1).any(|s| {
            s.kind != ScopeKind::Class && (s.locals.contains(name) || s.names.contains_key(name))
        });
        if shadowed {
            return None;
        }
        let call = HelperCall {
            arg: None,
            op: None,
            root: None,
            args: FLAG_REF,
        };
        Some(CondInfo {
            restriction: Restriction {
                parts: vec![(
                    HELPER_ROOT.to_string(),
                    Pred::Helper {
                        name: name.to_string(),
                        call,
                    },
                )],
                complete: true,
            },
            ..CondInfo::default()
        })
    }
}
