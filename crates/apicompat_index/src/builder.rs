//! Merges the surfaces of many releases into one package index.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use apicompat_requirements::parse_version;
use apicompat_surface::{Kind, Signature, Surface, Symbol};

use crate::format::{
    put_varint, seal, write_section, write_table, FLAG_DECLARED, FLAG_EXTENSIBLE, FLAG_IMPORTABLE,
    FLAG_OPAQUE, FLAG_OPEN, FORMAT, MAGIC,
};
use crate::names::Derived;
use crate::{Header, IndexError, ReleaseHeader};

/// What one path is in one release, as stored (a deduplicated "facet").
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Facet {
    kind: u8,
    open: bool,
    open_instance_only: bool,
    stub_only: bool,
    uncertain: bool,
    evidence: bool,
    opaque: bool,
    importable: bool,
    extensible: bool,
    canonical: Option<String>,
    deprecated: Option<String>,
    signatures: Vec<Signature>,
    bases: Vec<String>,
    metaclass: Option<String>,
    /// A module's `shadow`, or another facet's `instance_of` (one slot, see format.rs).
    target: Option<String>,
    implies: Vec<String>,
    version_helper: Option<String>,
}

impl From<&Symbol> for Facet {
    fn from(s: &Symbol) -> Facet {
        Facet {
            kind: s.kind().as_u8(),
            open: s.open,
            open_instance_only: s.open && s.open_instance_only && s.kind() != Kind::Module,
            // One bit holds both (see format.rs): an open stub class is just open; a stub
            // module is open.
            stub_only: s.stub_only
                && match s.kind() {
                    Kind::Class => !s.open,
                    Kind::Module => s.open,
                    _ => false,
                },
            // The same bit on a facet that is not a class (see format.rs).
            uncertain: !s.open && s.uncertain && s.kind() != Kind::Class,
            // FLAG_OPAQUE on a facet that is not a module (see format.rs).
            evidence: s.evidence && s.kind() != Kind::Module,
            opaque: s.opaque,
            importable: s.importable,
            extensible: s.extensible,
            canonical: s.canonical.clone(),
            deprecated: s.deprecated.clone(),
            signatures: s.signatures.clone(),
            bases: s.bases.clone(),
            metaclass: s.metaclass.clone(),
            target: if s.kind() == Kind::Module {
                s.shadow.clone()
            } else {
                s.instance_of.clone()
            },
            implies: s.implies.clone(),
            version_helper: s.version_helper.clone(),
        }
    }
}

/// Collects surfaces one at a time (so they need not all be in memory) and writes the index.
#[derive(Default)]
pub struct IndexBuilder {
    package: String,
    releases: Vec<ReleaseHeader>,
    facets: HashMap<Facet, u32>,
    paths: HashMap<String, Vec<(u32, u32)>>,
}

impl IndexBuilder {
    pub fn new(package: &str) -> IndexBuilder {
        IndexBuilder {
            package: package.to_string(),
            ..IndexBuilder::default()
        }
    }

    /// Adds one release. A release already added is replaced.
    pub fn add(&mut self, surface: &Surface) -> Result<(), IndexError> {
        if surface.package != self.package {
            return Err(IndexError::Invalid(format!(
                "surface of {} given to the index of {}",
                surface.package, self.package
            )));
        }
        parse_version(&surface.version)
            .map_err(|e| IndexError::Invalid(format!("release {:?}: {e}", surface.version)))?;
        if let Some(old) = self
            .releases
            .iter()
            .position(|r| r.version == surface.version)
        {
            let old = old as u32;
            for entries in self.paths.values_mut() {
                entries.retain(|(r, _)| *r != old);
            }
            self.releases[old as usize] = ReleaseHeader::of(surface);
        } else {
            self.releases.push(ReleaseHeader::of(surface));
        }
        let release = self
            .releases
            .iter()
            .position(|r| r.version == surface.version)
            .unwrap_or_default() as u32;
        for (path, symbol) in &surface.symbols {
            let facet = Facet::from(symbol);
            let next = self.facets.len() as u32;
            let id = *self.facets.entry(facet).or_insert(next);
            self.paths
                .entry(path.clone())
                .or_default()
                .push((release, id));
        }
        Ok(())
    }

    pub fn release_count(&self) -> usize {
        self.releases.len()
    }

    /// Writes the index (compressed). The bytes depend only on the surfaces added.
    pub fn finish(self) -> Result<Vec<u8>, IndexError> {
        // Releases in version order.
        let mut order: Vec<usize> = (0..self.releases.len()).collect();
        let versions: Vec<_> = self
            .releases
            .iter()
            .map(|r| parse_version(&r.version).ok())
            .collect();
        order.sort_by(|&a, &b| versions[a].cmp(&versions[b]));
        let mut release_rank = vec![0u32; self.releases.len()];
        for (rank, &old) in order.iter().enumerate() {
            release_rank[old] = rank as u32;
        }
        let mut roots: Vec<String> = self
            .paths
            .keys()
            .filter(|p| !p.contains('.'))
            .cloned()
            .collect();
        roots.sort();
        let header = Header {
            package: self.package.clone(),
            releases: order.iter().map(|&i| self.releases[i].clone()).collect(),
            roots,
            removed_same: Vec::new(),
        };

        // Facets, signatures and strings, sorted.
        let mut facets: Vec<(Facet, u32)> = self.facets.into_iter().collect();
        facets.sort();
        let mut facet_rank = vec![0u32; facets.len()];
        for (rank, (_, old)) in facets.iter().enumerate() {
            facet_rank[*old as usize] = rank as u32;
        }
        let mut strings: BTreeSet<&str> = BTreeSet::new();
        let mut signatures: BTreeSet<&Signature> = BTreeSet::new();
        for (f, _) in &facets {
            strings.extend(f.canonical.as_deref());
            strings.extend(f.deprecated.as_deref());
            strings.extend(f.bases.iter().map(String::as_str));
            strings.extend(f.metaclass.as_deref());
            strings.extend(f.target.as_deref());
            strings.extend(f.implies.iter().map(String::as_str));
            strings.extend(f.version_helper.as_deref());
            for s in &f.signatures {
                signatures.insert(s);
                strings.extend(s.returns.as_deref());
                for p in &s.params {
                    strings.insert(&p.name);
                    strings.extend(p.annotation.as_deref());
                }
            }
        }
        let strings: Vec<&str> = strings.into_iter().collect();
        let string_id = |s: &str| strings.binary_search(&s).unwrap_or_default() as u64;
        let signatures: Vec<&Signature> = signatures.into_iter().collect();
        let opt = |s: &Option<String>| s.as_deref().map_or(0, |s| string_id(s) + 1);

        let sig_items: Vec<Vec<u8>> = signatures
            .iter()
            .map(|s| {
                let mut b = Vec::new();
                put_varint(&mut b, opt(&s.returns));
                put_varint(&mut b, s.params.len() as u64);
                for p in &s.params {
                    put_varint(&mut b, string_id(&p.name));
                    b.push(p.kind as u8 | (u8::from(p.default) << 4));
                    put_varint(&mut b, opt(&p.annotation));
                }
                b
            })
            .collect();
        let facet_items: Vec<Vec<u8>> = facets
            .iter()
            .map(|(f, _)| {
                let flag = |on: bool, bit: u8| if on { bit } else { 0 };
                let mut b = vec![
                    f.kind
                        | flag(
                            f.open_instance_only || f.stub_only || f.uncertain,
                            FLAG_DECLARED,
                        )
                        | flag(f.open, FLAG_OPEN)
                        | flag(f.opaque || f.evidence, FLAG_OPAQUE)
                        | flag(f.importable, FLAG_IMPORTABLE)
                        | flag(f.extensible, FLAG_EXTENSIBLE),
                ];
                put_varint(&mut b, opt(&f.canonical));
                put_varint(&mut b, opt(&f.deprecated));
                put_varint(&mut b, f.signatures.len() as u64);
                for s in &f.signatures {
                    let id = signatures.binary_search(&s).unwrap_or_default();
                    put_varint(&mut b, id as u64);
                }
                put_varint(&mut b, f.bases.len() as u64);
                for base in &f.bases {
                    put_varint(&mut b, string_id(base));
                }
                put_varint(&mut b, opt(&f.metaclass));
                // Written only when set: facets without them keep their bytes.
                let helper = f.version_helper.is_some();
                if f.target.is_some() || !f.implies.is_empty() || helper {
                    put_varint(&mut b, opt(&f.target));
                }
                if !f.implies.is_empty() || helper {
                    put_varint(&mut b, f.implies.len() as u64);
                    for p in &f.implies {
                        put_varint(&mut b, string_id(p));
                    }
                }
                if helper {
                    put_varint(&mut b, opt(&f.version_helper));
                }
                b
            })
            .collect();

        // Per path: the releases of each facet, as bitsets.
        let words = header.releases.len().div_ceil(64).max(1);
        let mut paths: Vec<(String, Vec<(u32, u32)>)> = self.paths.into_iter().collect();
        paths.sort_by(|a, b| a.0.cmp(&b.0));
        let mut grouped: Vec<BTreeMap<u32, Vec<u64>>> = Vec::with_capacity(paths.len());
        let mut sets: BTreeSet<Vec<u64>> = BTreeSet::new();
        for (_, entries) in &paths {
            let mut by_facet: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
            for &(release, facet) in entries {
                let rank = release_rank[release as usize] as usize;
                let set = by_facet
                    .entry(facet_rank[facet as usize])
                    .or_insert_with(|| vec![0; words]);
                set[rank / 64] |= 1 << (rank % 64);
            }
            sets.extend(by_facet.values().cloned());
            grouped.push(by_facet);
        }
        let sets: Vec<Vec<u64>> = sets.into_iter().collect();
        let record_items: Vec<Vec<u8>> = grouped
            .iter()
            .map(|by_facet| {
                let mut b = Vec::new();
                put_varint(&mut b, by_facet.len() as u64);
                for (facet, set) in by_facet {
                    put_varint(&mut b, sets.binary_search(set).unwrap_or_default() as u64);
                    put_varint(&mut b, u64::from(*facet));
                }
                b
            })
            .collect();
        let mut fst_builder = fst::MapBuilder::memory();
        for (i, (path, _)) in paths.iter().enumerate() {
            fst_builder
                .insert(path, i as u64)
                .map_err(|e| IndexError::Invalid(format!("path {path:?}: {e}")))?;
        }
        let fst_bytes = fst_builder
            .into_inner()
            .map_err(|e| IndexError::Invalid(e.to_string()))?;
        // The lookups by last segment (names.rs), from the same paths and facets.
        let mut derived = Derived::default();
        for (i, (path, entries)) in paths.iter().enumerate() {
            derived.add_path(path, i as u64);
            for &(_, facet) in entries {
                let (f, _) = &facets[facet_rank[facet as usize] as usize];
                if f.kind == Kind::Class.as_u8() {
                    derived.add_class(
                        path,
                        f.canonical.as_deref(),
                        f.bases.iter().map(String::as_str),
                    );
                }
            }
        }
        let derived = derived.finish()?;

        let mut out = Vec::new();
        out.extend(MAGIC);
        out.push(FORMAT);
        let mut header = header;
        header.dedupe_removed();
        let header_json =
            serde_json::to_vec(&header).map_err(|e| IndexError::Invalid(e.to_string()))?;
        write_section(&mut out, &header_json);
        write_table(
            &mut out,
            &strings
                .iter()
                .map(|s| s.as_bytes().to_vec())
                .collect::<Vec<_>>(),
        );
        write_table(&mut out, &sig_items);
        write_table(&mut out, &facet_items);
        let mut set_section = Vec::new();
        set_section.extend((words as u32).to_le_bytes());
        for set in &sets {
            for w in set {
                set_section.extend(w.to_le_bytes());
            }
        }
        write_section(&mut out, &set_section);
        write_table(&mut out, &record_items);
        write_section(&mut out, &fst_bytes);
        for section in &derived {
            write_section(&mut out, section);
        }
        Ok(seal(out))
    }
}
