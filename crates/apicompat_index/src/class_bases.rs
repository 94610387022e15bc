//! The bases of every class of a package view, by class name (last segment of the definition):
//! what finding the subclasses of a class by name needs (AC010's process-group types). Built by
//! [`crate::PackageView::class_bases`] on first use, in the scan that also builds
//! [`crate::names::LastSegments`], and kept with the view.

use std::collections::{BTreeSet, HashMap, HashSet};

use apicompat_surface::Kind;

use crate::reader::PackageIndex;

/// Class name -> the last segments of the bases any class of that name has in any release.
#[derive(Debug, Default)]
pub struct ClassBases {
    bases: HashMap<Box<str>, BTreeSet<Box<str>>>,
}

impl ClassBases {
    /// Adds the classes among the facets of `path` (`seen`: the class facets of this index
    /// read already).
    pub(crate) fn add(
        &mut self,
        index: &PackageIndex,
        seen: &mut HashSet<u32>,
        path: &str,
        facets: &[u32],
    ) {
        for &facet in facets {
            if !matches!(index.kind(facet), Ok((Kind::Class, _, _))) || !seen.insert(facet) {
                continue;
            }
            let Ok(symbol) = index.symbol(facet) else {
                continue;
            };
            let name = last_segment(symbol.canonical.as_deref().unwrap_or(path));
            self.bases
                .entry(name.into())
                .or_default()
                .extend(symbol.bases.iter().map(|b| last_segment(b).into()));
        }
    }

    /// Every class name with the bases' names.
    pub fn iter(&self) -> impl Iterator<Item = (&str, impl Iterator<Item = &str>)> {
        self.bases
            .iter()
            .map(|(k, v)| (&**k, v.iter().map(|b| &**b)))
    }
}

fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}
