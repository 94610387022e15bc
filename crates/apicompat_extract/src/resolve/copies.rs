//! The names a module copies from another (`crate::name_sets`): a loop over `dir(m)` storing
//! `globals()[k]`, or a filtered list of `m`'s names.

use std::collections::BTreeSet;

use apicompat_surface::Kind;

use super::Resolver;
use crate::name_sets::Copy;

impl Resolver {
    /// The names of `copy.module` that `copy` takes (dunders never).
    pub(super) fn copy_names(&mut self, copy: &Copy) -> BTreeSet<String> {
        let names = self.explicit_names(&copy.module);
        let f = &copy.filter;
        let mut out = BTreeSet::new();
        for n in names {
            if n.starts_with("__") || !f.admits_name(&n) {
                continue;
            }
            if f.functions_only || f.classes_only {
                let want = if f.functions_only {
                    Kind::Function
                } else {
                    Kind::Class
                };
                if self.resolve(&copy.module, &n).map(|r| r.kind) != Some(want) {
                    continue;
                }
            }
            out.insert(n);
        }
        out
    }
}
