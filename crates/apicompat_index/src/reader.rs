//! Reads a package index without decoding more than a lookup needs.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use apicompat_requirements::{parse_version, Version};
use apicompat_surface::{Kind, Param, ParamKind, Signature, Symbol};
use fst::{IntoStreamer, Streamer};

use crate::format::{
    corrupt, seal, write_section, Reader, Table, FLAG_DECLARED, FLAG_EXTENSIBLE, FLAG_IMPORTABLE,
    FLAG_OPAQUE, FLAG_OPEN, FORMAT, KIND_MASK, MAGIC, OLDEST_FORMAT,
};
use crate::names::{group, subclass_range, Derived};
use crate::{Header, IndexError, ReleaseHeader};

/// A release's version -> its wheels' Pythons and platforms, `None` to keep them
/// ([`PackageIndex::with_wheels`]).
pub type WheelsOf<'a> = dyn Fn(&str) -> Option<(Vec<String>, Vec<String>)> + 'a;

/// A set of releases of one package, by position in [`PackageIndex::releases`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ReleaseSet(pub Vec<u64>);

impl ReleaseSet {
    pub fn contains(&self, release: usize) -> bool {
        self.0
            .get(release / 64)
            .is_some_and(|w| w & (1 << (release % 64)) != 0)
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, w)| {
            (0..64)
                .filter(move |b| w & (1u64 << b) != 0)
                .map(move |b| i * 64 + b)
        })
    }
}

/// A section of an index's bytes, shared (the fst maps read it in place).
#[derive(Clone)]
struct Part {
    data: Arc<Vec<u8>>,
    range: Range<usize>,
}

impl AsRef<[u8]> for Part {
    fn as_ref(&self) -> &[u8] {
        &self.data[self.range.clone()]
    }
}

impl Part {
    fn whole(bytes: Vec<u8>) -> Part {
        let range = 0..bytes.len();
        Part {
            data: Arc::new(bytes),
            range,
        }
    }
}

/// The lookups by last segment (names.rs).
struct Lookups {
    names: fst::Map<Part>,
    groups: Part,
    subclasses: fst::Set<Part>,
}

impl Lookups {
    fn new([names, groups, subclasses]: [Part; 3]) -> Result<Lookups, IndexError> {
        let names = fst::Map::new(names).map_err(|e| IndexError::Corrupt(format!("names: {e}")))?;
        let subclasses = fst::Set::new(subclasses)
            .map_err(|e| IndexError::Corrupt(format!("subclasses: {e}")))?;
        // fst panics on some damaged maps: their checksums first (docs/fuzzing.md).
        names
            .as_fst()
            .verify()
            .map_err(|e| IndexError::Corrupt(format!("names: {e}")))?;
        subclasses
            .as_fst()
            .verify()
            .map_err(|e| IndexError::Corrupt(format!("subclasses: {e}")))?;
        Ok(Lookups {
            names,
            groups,
            subclasses,
        })
    }
}

/// One package's index.
pub struct PackageIndex {
    data: Arc<Vec<u8>>,
    /// The format the file was written in (facets of format 1 have no metaclass).
    format: u8,
    header: Header,
    versions: Vec<Version>,
    strings: Range<usize>,
    signatures: Range<usize>,
    facets: Range<usize>,
    sets: Range<usize>,
    words: usize,
    records: Range<usize>,
    paths: fst::Map<Part>,
    /// Read from the file (format 3), or derived on first use from the paths and facets.
    /// `None`: the derivation failed (a damaged index answers no lookup by name).
    lookups: OnceLock<Option<Lookups>>,
}

/// The stored facts about one path in one group of releases.
pub type FacetId = u32;

impl PackageIndex {
    /// Reads an index written by [`crate::IndexBuilder::finish`].
    pub fn from_bytes(compressed: &[u8]) -> Result<PackageIndex, IndexError> {
        // LZ4 expands a byte to at most 255: a larger prepended size is damage, and is not
        // allocated.
        let claimed = compressed
            .get(..4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        if u64::from(claimed) > (compressed.len() as u64).saturating_mul(255) {
            return Err(corrupt(
                "its size prefix is larger than LZ4 can expand it to",
            ));
        }
        let mut data = lz4_flex::decompress_size_prepended(compressed)
            .map_err(|e| IndexError::Corrupt(format!("cannot decompress: {e}")))?;
        // The last four bytes are a CRC-32 of the rest.
        let body_len = data
            .len()
            .checked_sub(4)
            .ok_or_else(|| corrupt("too short"))?;
        let stored = u32::from_le_bytes([
            data[body_len],
            data[body_len + 1],
            data[body_len + 2],
            data[body_len + 3],
        ]);
        if crc32fast::hash(&data[..body_len]) != stored {
            return Err(corrupt("checksum mismatch"));
        }
        data.truncate(body_len);
        let mut r = Reader::new(&data);
        if r.take(MAGIC.len())? != MAGIC {
            return Err(corrupt("not an apicompat index"));
        }
        let format = r.u8()?;
        if format > FORMAT {
            return Err(IndexError::NewerFormat(format, OLDEST_FORMAT, FORMAT));
        }
        if format < OLDEST_FORMAT {
            return Err(IndexError::Corrupt(format!(
                "index format {format}, this build reads formats {OLDEST_FORMAT} to {FORMAT}"
            )));
        }
        let section = |r: &mut Reader| -> Result<Range<usize>, IndexError> {
            let len = r.u32()? as usize;
            let start = r.pos;
            r.take(len)?;
            Ok(start..start + len)
        };
        let header_range = section(&mut r)?;
        let mut header: Header = serde_json::from_slice(&data[header_range])
            .map_err(|e| IndexError::Corrupt(format!("header: {e}")))?;
        header.restore_removed()?;
        let strings = section(&mut r)?;
        let signatures = section(&mut r)?;
        let facets = section(&mut r)?;
        let sets = section(&mut r)?;
        let records = section(&mut r)?;
        let paths_range = section(&mut r)?;
        let derived = if format >= 3 {
            Some([section(&mut r)?, section(&mut r)?, section(&mut r)?])
        } else {
            None
        };
        if r.pos != data.len() {
            return Err(corrupt("trailing bytes"));
        }
        let versions = header
            .releases
            .iter()
            .map(|rel| {
                parse_version(&rel.version)
                    .map_err(|e| IndexError::Corrupt(format!("release {:?}: {e}", rel.version)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let words = Reader::new(&data[sets.clone()]).u32()? as usize;
        if words == 0 || words * 64 < header.releases.len() {
            return Err(corrupt("release sets too narrow"));
        }
        let data = Arc::new(data);
        let part = |range: Range<usize>| Part {
            data: data.clone(),
            range,
        };
        let paths = fst::Map::new(part(paths_range))
            .map_err(|e| IndexError::Corrupt(format!("paths: {e}")))?;
        // fst does not check a map's structure, and panics on some damaged ones: its own
        // checksum first (found by fuzzing, docs/fuzzing.md).
        paths
            .as_fst()
            .verify()
            .map_err(|e| IndexError::Corrupt(format!("paths: {e}")))?;
        let lookups = OnceLock::new();
        if let Some(ranges) = derived {
            let _ = lookups.set(Some(Lookups::new(ranges.map(part))?));
        }
        let index = PackageIndex {
            data,
            format,
            header,
            versions,
            strings,
            signatures,
            facets,
            sets,
            words,
            records,
            paths,
            lookups,
        };
        for range in [
            &index.strings,
            &index.signatures,
            &index.facets,
            &index.records,
        ] {
            Table::parse(&index.data[range.clone()])?;
        }
        if index.record_table()?.len() != index.paths.len() {
            return Err(corrupt("paths and records differ in number"));
        }
        Ok(index)
    }

    /// Decodes every record, facet and signature: a full check of a file from outside.
    pub fn validate(&self) -> Result<(), IndexError> {
        for i in 0..self.record_table()?.len() {
            for (_, facet) in self.record(i)? {
                self.symbol(facet)?;
            }
        }
        Ok(())
    }

    pub fn package(&self) -> &str {
        &self.header.package
    }

    pub fn releases(&self) -> &[ReleaseHeader] {
        &self.header.releases
    }

    pub fn versions(&self) -> &[Version] {
        &self.versions
    }

    /// Top-level modules of any release.
    pub fn roots(&self) -> Vec<String> {
        self.header.roots.clone()
    }

    pub fn path_count(&self) -> usize {
        self.paths.len()
    }

    /// How many paths release `release` (a position in this index) has.
    pub fn release_path_count(&self, release: usize) -> Result<usize, IndexError> {
        let mut n = 0;
        self.for_each_pair("", release, release, |_, _, f, _| {
            n += usize::from(f.is_some());
        })?;
        Ok(n)
    }

    fn table(&self, range: &Range<usize>) -> Result<Table<'_>, IndexError> {
        Table::parse(&self.data[range.clone()])
    }

    fn record_table(&self) -> Result<Table<'_>, IndexError> {
        self.table(&self.records)
    }

    fn string(&self, id: u64) -> Result<&str, IndexError> {
        let bytes = self.table(&self.strings)?.get(id as usize)?;
        std::str::from_utf8(bytes).map_err(|_| corrupt("string is not utf-8"))
    }

    fn opt_string(&self, id: u64) -> Result<Option<String>, IndexError> {
        Ok(match id {
            0 => None,
            n => Some(self.string(n - 1)?.to_string()),
        })
    }

    fn set(&self, id: usize) -> Result<ReleaseSet, IndexError> {
        // The id comes from the file: no overflow (found by fuzzing).
        let len = self.words * 8;
        let bytes = id
            .checked_mul(len)
            .and_then(|at| at.checked_add(4))
            .and_then(|start| self.data[self.sets.clone()].get(start..start.checked_add(len)?))
            .ok_or_else(|| corrupt("release set out of range"))?;
        Ok(ReleaseSet(
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect(),
        ))
    }

    fn record(&self, i: usize) -> Result<Vec<(ReleaseSet, FacetId)>, IndexError> {
        let mut r = Reader::new(self.record_table()?.get(i)?);
        let n = r.usize()?;
        let mut out = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            let set = self.set(r.usize()?)?;
            let facet = u32::try_from(r.varint()?).map_err(|_| corrupt("facet id"))?;
            out.push((set, facet));
        }
        Ok(out)
    }

    /// Every group of releases that has `path`, with what it is in them.
    pub fn entry(&self, path: &str) -> Result<Vec<(ReleaseSet, FacetId)>, IndexError> {
        match self.paths.get(path) {
            Some(i) => self.record(i as usize),
            None => Ok(Vec::new()),
        }
    }

    /// What `path` is in one release, if that release has it.
    pub fn facet_in(&self, path: &str, release: usize) -> Result<Option<FacetId>, IndexError> {
        match self.paths.get(path) {
            Some(i) => self.facet_at(i as usize, release),
            None => Ok(None),
        }
    }

    /// Whether release set `id` has `release`, reading one word (no allocation).
    fn set_has(&self, id: usize, release: usize) -> Result<bool, IndexError> {
        let word = release / 64;
        if word >= self.words {
            return Ok(false);
        }
        let bytes = id
            .checked_mul(self.words)
            .and_then(|w| w.checked_add(word)?.checked_mul(8)?.checked_add(4))
            .and_then(|start| self.data[self.sets.clone()].get(start..start.checked_add(8)?))
            .ok_or_else(|| corrupt("release set out of range"))?;
        let mut w = [0u8; 8];
        w.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(w) & (1 << (release % 64)) != 0)
    }

    /// The facet record `i` (as [`Self::for_each_pair`] numbers them) has for one release (no
    /// allocation).
    pub fn facet_at(&self, i: usize, release: usize) -> Result<Option<FacetId>, IndexError> {
        let mut r = Reader::new(self.record_table()?.get(i)?);
        let n = r.usize()?;
        for _ in 0..n {
            let set = r.usize()?;
            let facet = u32::try_from(r.varint()?).map_err(|_| corrupt("facet id"))?;
            if self.set_has(set, release)? {
                return Ok(Some(facet));
            }
        }
        Ok(None)
    }

    /// A stored facet, decoded.
    pub fn symbol(&self, facet: FacetId) -> Result<Symbol, IndexError> {
        let bytes = self.table(&self.facets)?.get(facet as usize)?;
        let mut r = Reader::new(bytes);
        let flags = r.u8()?;
        let kind = Kind::from_u8(flags & KIND_MASK).ok_or_else(|| corrupt("kind"))?;
        let canonical = self.opt_string(r.varint()?)?;
        let deprecated = self.opt_string(r.varint()?)?;
        let nsig = r.usize()?;
        let mut signatures = Vec::with_capacity(nsig.min(16));
        for _ in 0..nsig {
            signatures.push(self.signature(r.usize()?)?);
        }
        let nbases = r.usize()?;
        let mut bases = Vec::with_capacity(nbases.min(16));
        for _ in 0..nbases {
            bases.push(self.string(r.varint()?)?.to_string());
        }
        let metaclass = if self.format >= 2 {
            self.opt_string(r.varint()?)?
        } else {
            None
        };
        // An optional last slot (format 3): a module's shadow, another facet's class.
        let target = if self.format >= 3 && r.pos < bytes.len() {
            self.opt_string(r.varint()?)?
        } else {
            None
        };
        // Then, optionally, a predicate's implied paths.
        let mut implies = Vec::new();
        if self.format >= 3 && r.pos < bytes.len() {
            let n = r.usize()?;
            implies.reserve(n.min(16));
            for _ in 0..n {
                implies.push(self.string(r.varint()?)?.to_string());
            }
        }
        // Then, optionally, a function's version helper.
        let version_helper = if self.format >= 3 && r.pos < bytes.len() {
            self.opt_string(r.varint()?)?
        } else {
            None
        };
        let (shadow, instance_of) = if kind == Kind::Module {
            (target, None)
        } else {
            (None, target)
        };
        let open = flags & FLAG_OPEN != 0;
        let declared = !open && flags & FLAG_DECLARED != 0;
        Ok(Symbol {
            kind: Some(kind),
            canonical,
            signatures,
            deprecated,
            bases,
            metaclass,
            open,
            open_instance_only: open && flags & FLAG_DECLARED != 0 && kind != Kind::Module,
            stub_only: match kind {
                Kind::Class => declared,
                Kind::Module => open && flags & FLAG_DECLARED != 0,
                _ => false,
            },
            uncertain: declared && kind != Kind::Class,
            opaque: flags & FLAG_OPAQUE != 0 && kind == Kind::Module,
            evidence: flags & FLAG_OPAQUE != 0 && kind != Kind::Module,
            importable: flags & FLAG_IMPORTABLE != 0,
            extensible: flags & FLAG_EXTENSIBLE != 0,
            shadow,
            instance_of,
            implies,
            version_helper,
        })
    }

    /// The kind and canonical path of a facet without decoding the rest.
    pub fn kind_and_canonical(&self, facet: FacetId) -> Result<(Kind, Option<String>), IndexError> {
        let bytes = self.table(&self.facets)?.get(facet as usize)?;
        let mut r = Reader::new(bytes);
        let flags = r.u8()?;
        let kind = Kind::from_u8(flags & KIND_MASK).ok_or_else(|| corrupt("kind"))?;
        Ok((kind, self.opt_string(r.varint()?)?))
    }

    /// Whether a facet is known only from the release's own reads ([`Symbol::evidence`]),
    /// and whether only from reads outside import time ([`Symbol::uncertain`]).
    pub fn evidence(&self, facet: FacetId) -> Result<(bool, bool), IndexError> {
        let bytes = self.table(&self.facets)?.get(facet as usize)?;
        let flags = *bytes.first().ok_or_else(|| corrupt("empty facet"))?;
        let kind = Kind::from_u8(flags & KIND_MASK).ok_or_else(|| corrupt("kind"))?;
        let evidence = kind != Kind::Module && flags & FLAG_OPAQUE != 0;
        let uncertain = kind != Kind::Class && flags & (FLAG_OPEN | FLAG_DECLARED) == FLAG_DECLARED;
        Ok((evidence, uncertain))
    }

    /// The kind and flags of a facet without decoding the rest.
    pub fn kind(&self, facet: FacetId) -> Result<(Kind, bool, bool), IndexError> {
        let bytes = self.table(&self.facets)?.get(facet as usize)?;
        let flags = *bytes.first().ok_or_else(|| corrupt("empty facet"))?;
        let kind = Kind::from_u8(flags & KIND_MASK).ok_or_else(|| corrupt("kind"))?;
        Ok((kind, flags & FLAG_OPEN != 0, flags & FLAG_OPAQUE != 0))
    }

    fn signature(&self, id: usize) -> Result<Signature, IndexError> {
        let mut r = Reader::new(self.table(&self.signatures)?.get(id)?);
        let returns = self.opt_string(r.varint()?)?;
        let n = r.usize()?;
        let mut params = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            let name = self.string(r.varint()?)?.to_string();
            let b = r.u8()?;
            let kind = ParamKind::from_u8(b & 0x0f).ok_or_else(|| corrupt("parameter kind"))?;
            let annotation = self.opt_string(r.varint()?)?;
            params.push(Param {
                name,
                kind,
                default: b & 0x10 != 0,
                annotation,
            });
        }
        Ok(Signature { params, returns })
    }

    /// The paths whose last segment is `name`, sorted.
    pub fn paths_named(&self, name: &str) -> Vec<String> {
        let Some(lookups) = self.lookups() else {
            return Vec::new();
        };
        let Some(at) = lookups.names.get(name) else {
            return Vec::new();
        };
        // The paths map's values are its records in key order: a record gives its key back.
        group(lookups.groups.as_ref(), at, self.paths.len())
            .into_iter()
            .filter_map(|record| self.paths.as_fst().get_key(record))
            .filter_map(|key| String::from_utf8(key).ok())
            .collect()
    }

    /// The last segments of the classes of any release that have a base whose last segment is
    /// `base`, sorted.
    pub fn subclasses_named(&self, base: &str) -> Vec<String> {
        let Some(lookups) = self.lookups() else {
            return Vec::new();
        };
        let (from, to) = subclass_range(base);
        let mut stream = lookups.subclasses.range().ge(&from).lt(&to).into_stream();
        let mut out = Vec::new();
        while let Some(k) = stream.next() {
            if let Some(class) = k
                .get(from.len()..)
                .and_then(|c| std::str::from_utf8(c).ok())
            {
                out.push(class.to_string());
            }
        }
        out
    }

    fn lookups(&self) -> Option<&Lookups> {
        self.lookups
            .get_or_init(|| Lookups::new(self.derive().ok()?.map(Part::whole)).ok())
            .as_ref()
    }

    /// The bytes of this index in the current format, when it is of format 2 (what the builder
    /// writes from the same surfaces: the body unchanged, the lookups derived and appended);
    /// `None` when it is current already. Format 1 needs its surfaces (its facets differ).
    pub fn upgraded(&self) -> Result<Option<Vec<u8>>, IndexError> {
        match self.format {
            FORMAT => return Ok(None),
            2 => {}
            f => {
                return Err(IndexError::Invalid(format!(
                    "index format {f} cannot be upgraded: rebuild it from its surfaces"
                )))
            }
        }
        let mut out = self.data.to_vec();
        out[MAGIC.len()] = FORMAT;
        for section in &self.derive()? {
            write_section(&mut out, section);
        }
        Ok(Some(seal(out)))
    }

    /// The bytes of this index with each release's `wheel_pythons` and `wheel_platforms` set
    /// by `wheels` (from the release's version; `None` keeps them): what the builder writes
    /// from surfaces carrying the same fields, everything but the header unchanged. Current
    /// format only.
    pub fn with_wheels(&self, wheels: &WheelsOf) -> Result<Vec<u8>, IndexError> {
        if self.format != FORMAT {
            return Err(IndexError::Invalid(format!(
                "index format {}: upgrade it first (examples/upgrade.rs)",
                self.format
            )));
        }
        let mut header = self.header.clone();
        for release in &mut header.releases {
            if let Some((pythons, platforms)) = wheels(&release.version) {
                release.wheel_pythons = pythons;
                release.wheel_platforms = platforms;
            }
        }
        header.dedupe_removed();
        let json = serde_json::to_vec(&header).map_err(|e| IndexError::Invalid(e.to_string()))?;
        // The old header: after the magic, the format byte and its u32 length.
        let start = MAGIC.len() + 1;
        let mut r = Reader::new(&self.data[start..]);
        let len = r.u32()? as usize;
        let rest = start + 4 + len;
        if rest > self.data.len() {
            return Err(corrupt("header past end"));
        }
        let mut out = self.data[..start].to_vec();
        write_section(&mut out, &json);
        out.extend_from_slice(&self.data[rest..]);
        Ok(seal(out))
    }

    /// The lookups of an index older than format 3, from one scan of its paths and facets
    /// (what the builder writes).
    fn derive(&self) -> Result<[Vec<u8>; 3], IndexError> {
        let mut derived = Derived::default();
        let mut classes: HashMap<FacetId, (Option<String>, Vec<String>)> = HashMap::new();
        let mut stream = self.paths.stream();
        while let Some((k, record)) = stream.next() {
            let Ok(path) = std::str::from_utf8(k) else {
                continue;
            };
            derived.add_path(path, record);
            for (_, facet) in self.record(record as usize)? {
                if !matches!(self.kind(facet), Ok((Kind::Class, _, _))) {
                    continue;
                }
                let (canonical, bases) = match classes.entry(facet) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(e) => {
                        let symbol = self.symbol(facet)?;
                        e.insert((symbol.canonical, symbol.bases))
                    }
                };
                derived.add_class(path, canonical.as_deref(), bases.iter().map(String::as_str));
            }
        }
        derived.finish()
    }

    /// Paths that start with `prefix`, in order.
    pub fn paths_with_prefix(&self, prefix: &str) -> Vec<String> {
        let mut upper = prefix.as_bytes().to_vec();
        upper.push(0xff);
        let mut stream = self
            .paths
            .range()
            .ge(prefix.as_bytes())
            .lt(&upper)
            .into_stream();
        let mut out = Vec::new();
        while let Some((k, _)) = stream.next() {
            if let Ok(s) = std::str::from_utf8(k) {
                out.push(s.to_string());
            }
        }
        out
    }

    /// Calls `f` with every path under `prefix` (all when empty), its record number and the
    /// facet each of two releases (positions in this index) has for it, in path order,
    /// decoding only the records.
    pub fn for_each_pair(
        &self,
        prefix: &str,
        a: usize,
        b: usize,
        mut f: impl FnMut(&str, usize, Option<FacetId>, Option<FacetId>),
    ) -> Result<(), IndexError> {
        let mut upper = prefix.as_bytes().to_vec();
        upper.push(0xff);
        let mut builder = self.paths.range().ge(prefix.as_bytes());
        if !prefix.is_empty() {
            builder = builder.lt(&upper);
        }
        let mut stream = builder.into_stream();
        while let Some((k, i)) = stream.next() {
            let Ok(path) = std::str::from_utf8(k) else {
                continue;
            };
            let i = i as usize;
            let fa = self.facet_at(i, a)?;
            let fb = if a == b { fa } else { self.facet_at(i, b)? };
            f(path, i, fa, fb);
        }
        Ok(())
    }

    /// Calls `f` with every path and the facets it has in some release (the release sets are
    /// not decoded: a whole-index scan at a fraction of the cost of [`Self::entry`] per path).
    pub fn for_each_facets(&self, mut f: impl FnMut(&str, &[FacetId])) {
        let Ok(records) = self.record_table() else {
            return;
        };
        let mut facets: Vec<FacetId> = Vec::new();
        let mut stream = self.paths.stream();
        while let Some((k, v)) = stream.next() {
            facets.clear();
            let Ok(bytes) = records.get(v as usize) else {
                continue;
            };
            let mut r = Reader::new(bytes);
            let n = r.usize().unwrap_or(0);
            for _ in 0..n {
                let (Ok(_set), Ok(facet)) = (r.usize(), r.varint()) else {
                    break;
                };
                if let Ok(facet) = u32::try_from(facet) {
                    facets.push(facet);
                }
            }
            if let Ok(s) = std::str::from_utf8(k) {
                f(s, &facets);
            }
        }
    }

    /// Calls `f` with every path.
    pub fn for_each_path(&self, mut f: impl FnMut(&str)) {
        let mut stream = self.paths.stream();
        while let Some((k, _)) = stream.next() {
            if let Ok(s) = std::str::from_utf8(k) {
                f(s);
            }
        }
    }
}
