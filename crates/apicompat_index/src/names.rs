//! Every path of a package view, grouped by last segment (`new_group` ->
//! `torch.distributed.new_group`, `torch.distributed.distributed_c10d.new_group`, ...).
//!
//! Rules that look for "every path named N" (AC009's member table, AC011's public paths,
//! AC010's process-group returns, `moved` fixes) asked this of a scan of every path of the
//! index, once per analysis. [`crate::PackageView::paths_named`] builds this table on first use
//! (one scan) and keeps it with the view, which never changes: it cannot be stale.
//!
//! Paths are stored once, in one string, grouped by last segment and sorted within a group.

use std::collections::HashMap;

/// Keyed by every last segment of a large index: a fast hash, seeded per process.
type Groups = HashMap<Box<str>, Vec<u32>, foldhash::fast::RandomState>;

use crate::reader::PackageIndex;

/// Paths by last segment.
#[derive(Debug, Default)]
pub struct LastSegments {
    /// Every path, one after the other.
    text: String,
    /// Where each path ends in `text` (a path starts where the previous one ends).
    ends: Vec<u32>,
    /// Last segment -> the numbers of the paths (in `ends`) that have it, in path order.
    groups: Groups,
}

impl LastSegments {
    /// One scan of every path of these indexes (a path in several indexes is kept once). No
    /// allocation per path: the paths go into one string, the groups hold their numbers.
    pub fn build(indexes: &[&PackageIndex]) -> LastSegments {
        let mut out = LastSegments::default();
        for index in indexes {
            index.for_each_path(|p| out.push(p));
        }
        out.finish(indexes.len());
        out
    }

    /// Adds a path (in the order an index streams them; see [`Self::finish`]).
    pub(crate) fn push(&mut self, p: &str) {
        let (Ok(id), Ok(end)) = (
            u32::try_from(self.ends.len()),
            u32::try_from(self.text.len() + p.len()),
        ) else {
            // Over 4 GiB of path text: beyond every index this reads; keep what fits.
            return;
        };
        self.text.push_str(p);
        self.ends.push(end);
        match self.groups.get_mut(last_segment(p)) {
            Some(ids) => ids.push(id),
            None => {
                self.groups.insert(last_segment(p).into(), vec![id]);
            }
        }
    }

    /// After the paths of `indexes` indexes: one index streams its paths in order; several
    /// are merged and deduplicated.
    pub(crate) fn finish(&mut self, indexes: usize) {
        if indexes > 1 {
            let LastSegments { text, ends, groups } = self;
            let path = |i: u32| path_in(text, ends, i as usize).unwrap_or("");
            for ids in groups.values_mut() {
                ids.sort_by(|&a, &b| path(a).cmp(path(b)));
                ids.dedup_by(|a, b| path(*a) == path(*b));
            }
        }
    }

    /// The paths whose last segment is `name`, sorted.
    pub fn named<'s>(&'s self, name: &str) -> impl Iterator<Item = &'s str> + 's {
        self.groups
            .get(name)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(move |&i| path_in(&self.text, &self.ends, i as usize))
    }

    /// Every last segment there is.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.groups.keys().map(|k| &**k)
    }

    /// How many paths there are (a path in several indexes counts once).
    pub fn len(&self) -> usize {
        self.groups.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }
}

/// Path number `i` of `text` cut at `ends`.
fn path_in<'t>(text: &'t str, ends: &[u32], i: usize) -> Option<&'t str> {
    let start = match i.checked_sub(1) {
        Some(p) => *ends.get(p)? as usize,
        None => 0,
    };
    let end = *ends.get(i)? as usize;
    text.get(start..end)
}

fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use apicompat_surface::{Kind, Surface, Symbol};

    use super::*;
    use crate::IndexBuilder;

    fn index(version: &str, paths: &[&str]) -> PackageIndex {
        let mut b = IndexBuilder::new("pkg");
        let symbols = paths
            .iter()
            .map(|p| {
                let kind = Some(Kind::Function);
                (
                    p.to_string(),
                    Symbol {
                        kind,
                        ..Symbol::default()
                    },
                )
            })
            .collect();
        let s = Surface {
            package: "pkg".into(),
            version: version.into(),
            symbols,
            ..Surface::default()
        };
        b.add(&s).unwrap();
        PackageIndex::from_bytes(&b.finish().unwrap()).unwrap()
    }

    #[test]
    fn groups_paths_of_every_index_by_last_segment() {
        let a = index("1.0", &["pkg", "pkg.a.f", "pkg.b.f", "pkg.g", "pkg.a"]);
        let b = index("2.0", &["pkg", "pkg.c.f", "pkg.a.f", "pkg.a"]);
        let names = LastSegments::build(&[&a, &b]);
        let f: Vec<&str> = names.named("f").collect();
        assert_eq!(f, ["pkg.a.f", "pkg.b.f", "pkg.c.f"]);
        assert_eq!(names.named("g").collect::<Vec<_>>(), ["pkg.g"]);
        assert_eq!(names.named("pkg").collect::<Vec<_>>(), ["pkg"]);
        assert_eq!(names.named("nothing").count(), 0);
        assert_eq!(names.len(), 6);
    }
}
