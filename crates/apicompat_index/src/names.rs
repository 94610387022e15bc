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

use crate::reader::PackageIndex;

/// Paths by last segment.
#[derive(Debug, Default)]
pub struct LastSegments {
    /// Every path, one after the other.
    text: String,
    /// Where each path ends in `text` (a path starts where the previous one ends).
    ends: Vec<u32>,
    /// Last segment -> the range of path numbers (in `ends`) that have it.
    groups: HashMap<Box<str>, (u32, u32)>,
}

impl LastSegments {
    /// One scan of every path of these indexes (a path in several indexes is kept once).
    pub fn build(indexes: &[&PackageIndex]) -> LastSegments {
        let mut all: Vec<(Box<str>, Box<str>)> = Vec::new();
        for index in indexes {
            index.for_each_path(|p| {
                all.push((last_segment(p).into(), p.into()));
            });
        }
        all.sort_unstable();
        all.dedup();
        let mut out = LastSegments {
            text: String::with_capacity(all.iter().map(|(_, p)| p.len()).sum()),
            ends: Vec::with_capacity(all.len()),
            groups: HashMap::new(),
        };
        let mut i = 0;
        while i < all.len() {
            let start = i;
            while i < all.len() && all[i].0 == all[start].0 {
                out.text.push_str(&all[i].1);
                // A view larger than 4 GiB of path text is out of reach of every index this
                // reads (each is well under that); stop there rather than wrap.
                let Ok(end) = u32::try_from(out.text.len()) else {
                    return out;
                };
                out.ends.push(end);
                i += 1;
            }
            let (Ok(a), Ok(b)) = (u32::try_from(start), u32::try_from(i)) else {
                return out;
            };
            out.groups.insert(all[start].0.clone(), (a, b));
        }
        out
    }

    /// The paths whose last segment is `name`, sorted.
    pub fn named<'s>(&'s self, name: &str) -> impl Iterator<Item = &'s str> + 's {
        let (a, b) = self.groups.get(name).copied().unwrap_or((0, 0));
        (a as usize..b as usize).filter_map(move |i| self.path(i))
    }

    fn path(&self, i: usize) -> Option<&str> {
        let start = match i.checked_sub(1) {
            Some(p) => *self.ends.get(p)? as usize,
            None => 0,
        };
        let end = *self.ends.get(i)? as usize;
        self.text.get(start..end)
    }

    /// Every last segment there is.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.groups.keys().map(|k| &**k)
    }

    /// How many paths there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
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
