//! Lookups by last segment, stored with the index (format 3):
//!
//! - **names**: an fst map from every last segment of a path (`new_group`) to where its
//!   **groups** entry starts: the record numbers of the paths that end with it (ascending,
//!   as deltas). The paths map's values are the records in key order, so a record number gives
//!   its path back ([`fst::raw::Fst::get_key`]). "Every path named N" (AC009's member table,
//!   AC011's public paths, AC010's process-group returns, `moved` fixes, `range`'s blocking
//!   set) costs one lookup and one walk of the paths map per path: no scan of the index.
//! - **subclasses**: an fst set of `base\0class` for the last segments of every class and of
//!   each of its bases in any release (the class named by its definition): the subclasses of
//!   a class by name (AC010's process-group types).
//!
//! Both are derived from the paths and facets alone, by [`Derived`], at build time; an index of
//! an older format gets them at load time from one scan (same code, same bytes).

use std::collections::{BTreeMap, BTreeSet};

use crate::format::{put_varint, Reader};
use crate::IndexError;

/// The derived sections: names (fst), groups, subclasses (fst).
#[derive(Debug, Default)]
pub(crate) struct Derived {
    groups: BTreeMap<String, Vec<u64>>,
    subclasses: BTreeSet<Vec<u8>>,
}

impl Derived {
    /// Adds a path and its record number (in ascending order).
    pub(crate) fn add_path(&mut self, path: &str, record: u64) {
        match self.groups.get_mut(last_segment(path)) {
            Some(records) => records.push(record),
            None => {
                self.groups
                    .insert(last_segment(path).to_string(), vec![record]);
            }
        }
    }

    /// Adds a class found at `path` (defined at `canonical` when it says so) with its bases.
    pub(crate) fn add_class<'b>(
        &mut self,
        path: &str,
        canonical: Option<&str>,
        bases: impl Iterator<Item = &'b str>,
    ) {
        let class = last_segment(canonical.unwrap_or(path));
        for base in bases {
            let mut key = last_segment(base).as_bytes().to_vec();
            key.push(0);
            key.extend(class.as_bytes());
            self.subclasses.insert(key);
        }
    }

    /// The bytes of the names map, the groups and the subclasses set.
    pub(crate) fn finish(self) -> Result<[Vec<u8>; 3], IndexError> {
        let invalid = |e: fst::Error| IndexError::Invalid(format!("derived tables: {e}"));
        let mut names = fst::MapBuilder::memory();
        let mut groups = Vec::new();
        for (name, mut records) in self.groups {
            names.insert(&name, groups.len() as u64).map_err(invalid)?;
            records.sort_unstable();
            records.dedup();
            put_varint(&mut groups, records.len() as u64);
            let mut last = 0;
            for r in records {
                put_varint(&mut groups, r - last);
                last = r;
            }
        }
        let mut subclasses = fst::SetBuilder::memory();
        subclasses
            .extend_iter(self.subclasses.iter())
            .map_err(invalid)?;
        Ok([
            names.into_inner().map_err(invalid)?,
            groups,
            subclasses.into_inner().map_err(invalid)?,
        ])
    }
}

/// The record numbers of a groups entry starting at `at` (at most `limit` of them: a damaged
/// count cannot make a huge list).
pub(crate) fn group(groups: &[u8], at: u64, limit: usize) -> Vec<u64> {
    let Ok(at) = usize::try_from(at) else {
        return Vec::new();
    };
    let mut r = Reader::new(groups);
    r.pos = at;
    let Ok(n) = r.usize() else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(n.min(limit));
    let mut record: u64 = 0;
    for _ in 0..n.min(limit) {
        let Some(next) = r.varint().ok().and_then(|d| record.checked_add(d)) else {
            break;
        };
        record = next;
        out.push(record);
    }
    out
}

/// The byte range of the subclasses keys of `base`.
pub(crate) fn subclass_range(base: &str) -> (Vec<u8>, Vec<u8>) {
    let mut from = base.as_bytes().to_vec();
    from.push(0);
    let mut to = base.as_bytes().to_vec();
    to.push(1);
    (from, to)
}

fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use apicompat_surface::{Kind, Surface, Symbol};

    use crate::{IndexBuilder, PackageIndex};

    fn index(version: &str, symbols: &[(&str, Kind, &[&str])]) -> PackageIndex {
        let mut b = IndexBuilder::new("pkg");
        let symbols = symbols
            .iter()
            .map(|(p, kind, bases)| {
                (
                    p.to_string(),
                    Symbol {
                        kind: Some(*kind),
                        bases: bases.iter().map(|s| s.to_string()).collect(),
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

    /// The same index written in format 2: the last two sections cut, the format byte set.
    fn as_format_2(compressed: &[u8]) -> Vec<u8> {
        let data = lz4_flex::decompress_size_prepended(compressed).unwrap();
        let body = &data[..data.len() - 4];
        let mut r = crate::format::Reader::new(body);
        r.take(crate::format::MAGIC.len() + 1).unwrap();
        for _ in 0..7 {
            let n = r.u32().unwrap() as usize;
            r.take(n).unwrap();
        }
        let mut out = body[..r.pos].to_vec();
        out[crate::format::MAGIC.len()] = 2;
        crate::format::seal(out)
    }

    #[test]
    fn an_older_index_derives_the_same_lookups_and_upgrades_to_the_same_bytes() {
        let mut b = IndexBuilder::new("pkg");
        let symbols = [
            ("pkg", Kind::Module, vec![]),
            ("pkg.m.f", Kind::Function, vec![]),
            ("pkg.C", Kind::Class, vec!["pkg.m.Base".to_string()]),
            ("pkg.m.Base", Kind::Class, vec![]),
        ]
        .into_iter()
        .map(|(p, kind, bases)| {
            let symbol = Symbol {
                kind: Some(kind),
                bases,
                ..Symbol::default()
            };
            (p.to_string(), symbol)
        })
        .collect();
        b.add(&Surface {
            package: "pkg".into(),
            version: "1.0".into(),
            symbols,
            ..Surface::default()
        })
        .unwrap();
        let current = b.finish().unwrap();
        let old = PackageIndex::from_bytes(&as_format_2(&current)).unwrap();
        assert_eq!(old.paths_named("f"), ["pkg.m.f"]);
        assert_eq!(old.subclasses_named("Base"), ["C"]);
        assert_eq!(old.upgraded().unwrap().unwrap(), current);
        let now = PackageIndex::from_bytes(&current).unwrap();
        assert!(now.upgraded().unwrap().is_none());
    }

    #[test]
    fn paths_by_last_segment_and_subclasses_by_base() {
        let f = Kind::Function;
        let m = Kind::Module;
        let c = Kind::Class;
        let a = index(
            "1.0",
            &[
                ("pkg", m, &[]),
                ("pkg.a", m, &[]),
                ("pkg.a.f", f, &[]),
                ("pkg.b.f", f, &[]),
                ("pkg.f_x", f, &[]),
                ("pkg.f-", f, &[]),
                ("pkg.g", f, &[]),
                ("pkg.G", c, &["pkg.Base"]),
                ("pkg.H", c, &["pkg.Base", "other.Mixin"]),
                ("pkg.Base", c, &["object"]),
            ],
        );
        assert_eq!(a.paths_named("f"), ["pkg.a.f", "pkg.b.f"]);
        assert_eq!(a.paths_named("g"), ["pkg.g"]);
        assert_eq!(a.paths_named("pkg"), ["pkg"]);
        assert!(a.paths_named("nothing").is_empty());
        assert!(a.paths_named("").is_empty());
        assert_eq!(a.subclasses_named("Base"), ["G", "H"]);
        assert_eq!(a.subclasses_named("Mixin"), ["H"]);
        assert_eq!(a.subclasses_named("object"), ["Base"]);
        assert!(a.subclasses_named("G").is_empty());
    }
}
