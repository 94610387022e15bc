//! The packages the tool knows: indexes embedded in the binary joined with the user's cache.

use apicompat_surface::Kind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use apicompat_requirements::Version;

use crate::cache::Cache;
use crate::datafile::DataSource;
use crate::lookup::{status, Status};
use crate::reader::PackageIndex;
use crate::requirements_table::RequirementsTable;
use crate::{IndexError, ReleaseHeader};

/// Where a release's surface came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    Embedded,
    /// The data file beside the binary (`datafile.rs`).
    DataFile,
    Cached,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Embedded => "embedded",
            Origin::DataFile => "data file",
            Origin::Cached => "cached",
        }
    }
}

/// One release of a package view.
#[derive(Debug, Clone)]
pub struct ReleaseRef {
    pub version: Version,
    pub origin: Origin,
    index: usize,
    position: usize,
}

/// One package across every index that has it. Where two indexes have the same release, the
/// embedded one wins: the embedded index is always usable, and the cache never hides it.
pub struct PackageView {
    name: String,
    indexes: Vec<Arc<PackageIndex>>,
    releases: Vec<ReleaseRef>,
}

impl PackageView {
    fn new(name: &str, sources: Vec<(Arc<PackageIndex>, Origin)>) -> PackageView {
        let mut releases: BTreeMap<Version, ReleaseRef> = BTreeMap::new();
        let mut indexes = Vec::new();
        for (i, (index, origin)) in sources.into_iter().enumerate() {
            for (position, version) in index.versions().iter().enumerate() {
                let r = ReleaseRef {
                    version: version.clone(),
                    origin,
                    index: i,
                    position,
                };
                let replace = releases.get(version).is_none_or(|old| old.origin > origin);
                if replace {
                    releases.insert(version.clone(), r);
                }
            }
            indexes.push(index);
        }
        PackageView {
            name: name.to_string(),
            indexes,
            releases: releases.into_values().collect(),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every release, oldest first.
    pub fn releases(&self) -> &[ReleaseRef] {
        &self.releases
    }

    pub fn versions(&self) -> Vec<String> {
        self.releases
            .iter()
            .map(|r| r.version.to_string())
            .collect()
    }

    /// The position of a release in [`Self::releases`].
    pub fn position(&self, version: &Version) -> Option<usize> {
        self.releases.iter().position(|r| &r.version == version)
    }

    /// The migration note a release gives for a name it removed: the release's own, else the
    /// nearest later release's, else the nearest earlier one's (a note added in a bug-fix
    /// release speaks for the releases before it that lack the name too).
    pub fn removal_note(&self, path: &str, release: usize) -> Option<(usize, &str)> {
        let note = |r: usize| {
            self.header(r)
                .and_then(|h| h.removed.get(path))
                .map(|n| (r, n.as_str()))
        };
        let n = self.releases.len();
        note(release)
            .or_else(|| (release + 1..n).find_map(note))
            .or_else(|| (0..release.min(n)).rev().find_map(note))
    }

    pub fn header(&self, release: usize) -> Option<&ReleaseHeader> {
        let r = self.releases.get(release)?;
        self.indexes[r.index].releases().get(r.position)
    }

    /// The platforms each release has wheels for (`ReleaseHeader::wheel_platforms`; empty:
    /// any), by release number.
    pub fn wheel_platforms(&self) -> Vec<&[String]> {
        (0..self.releases.len())
            .map(|i| {
                self.header(i)
                    .map_or(&[][..], |h| h.wheel_platforms.as_slice())
            })
            .collect()
    }

    /// `path` in release number `release` of this view.
    ///
    /// A name missing from an *extensible* module (one that other code can add names to at run
    /// time) is unknown, not absent, when no release of the package defines it; a name some
    /// release defines is judged as usual.
    pub fn status(&self, path: &str, release: usize) -> Result<Status, IndexError> {
        let r = self
            .releases
            .get(release)
            .ok_or_else(|| IndexError::Invalid(format!("no release number {release}")))?;
        let index = &self.indexes[r.index];
        let result = status(index, path, r.position)?;
        if let Status::Absent { missing } = &result {
            if let Some((parent, _)) = missing.rsplit_once('.') {
                let extensible = match index.facet_in(parent, r.position)? {
                    Some(f) => index.symbol(f)?.extensible,
                    None => false,
                };
                if extensible && self.never_defined(missing)? {
                    return Ok(Status::Unknown {
                        reason: format!(
                            "`{parent}` lets other code add names at run time, and no indexed release defines `{missing}`"
                        ),
                    });
                }
            }
        }
        Ok(result)
    }

    /// No release defines `path` (a name known only from a release's own reads,
    /// `Symbol::evidence`, is not a definition: `torch.hpu`, which an out-of-tree backend
    /// registers, is read by torch's own code in some releases only; `torch.uint1`, read at
    /// import time by 2.7 - 2.10 only).
    fn never_defined(&self, path: &str) -> Result<bool, IndexError> {
        for index in &self.indexes {
            for (_, facet) in index.entry(path)? {
                if !index.evidence(facet)?.0 {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// The part of `module` (what an import statement imports: `a.b` of `from a.b import c`)
    /// that release number `release` cannot import, if any: a prefix `a.b` that is no module
    /// there while its parent `a` is a module of the release (not compiled, not an alias of
    /// another module) and some indexed release ships `a.b` as a module. The import system
    /// finds submodules from the parent's files, never through a module `__getattr__`, so an
    /// open parent (transformers' `_LazyModule`) does not make it unknown.
    pub fn import_missing(
        &self,
        module: &str,
        release: usize,
    ) -> Result<Option<String>, IndexError> {
        let Some((index, position)) = self.index_of(release) else {
            return Ok(None);
        };
        let mut end = 0;
        while let Some(dot) = module[end..].find('.').map(|d| end + d) {
            let parent = &module[..dot];
            let next = module[dot + 1..]
                .find('.')
                .map_or(module.len(), |d| dot + 1 + d);
            let part = &module[..next];
            end = dot + 1;
            let Some(pf) = index.facet_in(parent, position)? else {
                return Ok(None);
            };
            let (kind, _, opaque) = index.kind(pf)?;
            let (_, canonical) = index.kind_and_canonical(pf)?;
            if kind != Kind::Module || opaque || canonical.is_some_and(|c| c != parent) {
                return Ok(None);
            }
            if index.facet_in(part, position)?.is_some() {
                continue;
            }
            let shipped = self.indexes.iter().try_fold(false, |acc, i| {
                if acc {
                    return Ok::<bool, IndexError>(true);
                }
                for (_, f) in i.entry(part)? {
                    if i.kind(f)?.0 == Kind::Module {
                        return Ok(true);
                    }
                }
                Ok(false)
            })?;
            return Ok(shipped.then(|| part.to_string()));
        }
        Ok(None)
    }

    /// The signatures a keyword argument can be checked against: those of `symbol` (found at
    /// `found` in release number `release`), or none when they come from the stub of a
    /// module whose members cannot all be known (see [`crate::lookup::defined_in_open_module`]).
    pub fn keyword_signatures(
        &self,
        found: &str,
        symbol: &apicompat_surface::Symbol,
        release: usize,
    ) -> Vec<apicompat_surface::Signature> {
        let Some((index, position)) = self.index_of(release) else {
            return Vec::new();
        };
        let def = symbol.canonical.as_deref().unwrap_or(found);
        match crate::lookup::defined_in_open_module(index, def, position) {
            Ok(false) => symbol.signatures.clone(),
            _ => Vec::new(),
        }
    }

    /// The index holding a release, and the release's position in it.
    pub fn index_of(&self, release: usize) -> Option<(&PackageIndex, usize)> {
        let r = self.releases.get(release)?;
        Some((&self.indexes[r.index], r.position))
    }

    /// Paths under `prefix` in any release.
    pub fn paths_with_prefix(&self, prefix: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .indexes
            .iter()
            .flat_map(|i| i.paths_with_prefix(prefix))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The paths of any release whose last segment is `name`, sorted (a range of each index's
    /// table by last segment: no scan).
    pub fn paths_named(&self, name: &str) -> Vec<String> {
        self.across(|i| i.paths_named(name))
    }

    /// The last segments of the classes of any release with a base whose last segment is
    /// `base`, sorted.
    pub fn subclasses_named(&self, base: &str) -> Vec<String> {
        self.across(|i| i.subclasses_named(base))
    }

    /// A sorted answer of each index, merged.
    fn across(&self, answer: impl Fn(&PackageIndex) -> Vec<String>) -> Vec<String> {
        let mut out: Vec<String> = self.indexes.iter().flat_map(|i| answer(i)).collect();
        if self.indexes.len() > 1 {
            out.sort_unstable();
            out.dedup();
        }
        out
    }

    /// The indexes the view's releases come from.
    pub fn indexes(&self) -> impl Iterator<Item = &PackageIndex> {
        self.indexes.iter().map(|i| &**i)
    }

    /// Every path of any release.
    pub fn for_each_path(&self, mut f: impl FnMut(&str)) {
        for index in &self.indexes {
            index.for_each_path(&mut f);
        }
    }

    /// Top-level modules of any release (`torch`, `functorch`, ...).
    pub fn roots(&self) -> Vec<String> {
        let mut out: Vec<String> = self.indexes.iter().flat_map(|i| i.roots()).collect();
        out.sort();
        out.dedup();
        out
    }
}

type Loader = Box<dyn Fn() -> Result<Vec<(Arc<PackageIndex>, Origin)>, IndexError> + Send + Sync>;

/// Where problems found after opening (a corrupt cached index met on first use) are told.
pub type WarningSink = Arc<dyn Fn(&str) + Send + Sync>;

struct Entry {
    load: Loader,
    /// The top-level modules, when known without decoding (a package of the data file, or an
    /// embedded one whose roots the build recorded: [`Catalog::with_embedded_roots`]).
    roots: Option<Vec<String>>,
    /// Releases of it are in the user's cache (they may add top-level modules).
    cached: bool,
    view: OnceLock<Result<PackageView, String>>,
}

/// A package of the data file that cannot be read (the file is missing, damaged or from
/// another build): its imports are unchecked, and a note says why.
#[derive(Debug, Clone)]
pub struct Unavailable {
    pub package: String,
    pub roots: Vec<String>,
    pub reason: String,
}

/// Every known package; each is decoded on first use.
#[derive(Default)]
pub struct Catalog {
    entries: BTreeMap<String, Entry>,
    /// Problems met while opening the cache (a corrupt file is skipped, with a warning).
    pub warnings: Vec<String>,
    /// Problems met later, when a package is first decoded (see [`Catalog::late_warnings`]).
    late: Arc<Mutex<Vec<String>>>,
    sink: Arc<Mutex<Option<WarningSink>>>,
    cache_dir: Option<PathBuf>,
    unavailable: Vec<Unavailable>,
    /// The requirements of packages without a surface, decoded when first asked.
    requirements: Option<(&'static [u8], OnceLock<Option<RequirementsTable>>)>,
}

/// Tells the sink a problem met after opening, and keeps it for [`Catalog::late_warnings`].
fn warn_late(sink: &Mutex<Option<WarningSink>>, late: &Mutex<Vec<String>>, warning: String) {
    if let Some(f) = sink.lock().ok().and_then(|s| s.clone()) {
        f(&warning);
    }
    if let Ok(mut late) = late.lock() {
        late.push(warning);
    }
}

/// Reads a cached index. One that cannot be read is reported, moved aside (under the cache
/// lock, after reading it again: another run may have just replaced it) and left out.
fn load_cached(path: &Path, cache_dir: &Path) -> Result<PackageIndex, String> {
    // `Err((message, newer))`: `newer` when the file is a later build's, not damaged.
    let read = |path: &Path| -> Result<PackageIndex, (String, bool)> {
        let data = std::fs::read(path).map_err(|e| (format!("cannot read it: {e}"), false))?;
        PackageIndex::from_bytes(&data)
            .and_then(|i| i.validate().map(|()| i))
            .map_err(|e| (e.to_string(), matches!(e, IndexError::NewerFormat(..))))
    };
    let first = match read(path) {
        Ok(index) => return Ok(index),
        // A newer build's file stays for that build.
        Err((e, true)) => {
            return Err(format!(
                "{}: {e}; left in place; the cached releases of this package are left out",
                path.display()
            ))
        }
        Err((e, false)) => e,
    };
    let cache = Cache::new(cache_dir);
    let _lock = cache.lock();
    match read(path) {
        Ok(index) => Ok(index),
        Err(_) if !path.exists() => Err(format!(
            "{}: {first}; it is gone now; the cached releases of this package are left out",
            path.display()
        )),
        Err((e, _)) => {
            let moved = crate::cache::move_aside(path);
            Err(format!(
                "{}: {e}; {moved}; the cached releases of this package are left out (run `apicompat index fetch` again to rebuild it)",
                path.display()
            ))
        }
    }
}

impl Catalog {
    /// Embedded indexes (name, compressed bytes) and the cache directory, if any.
    pub fn open(embedded: &[(&'static str, &'static [u8])], cache_dir: Option<&Path>) -> Catalog {
        Catalog::open_with_data(embedded, None, cache_dir)
    }

    /// As [`Self::open`], with the packages of the data file (`datafile.rs`) read lazily: a
    /// package's bytes are read and checked only when it is first used.
    pub fn open_with_data(
        embedded: &[(&'static str, &'static [u8])],
        data: Option<DataSource>,
        cache_dir: Option<&Path>,
    ) -> Catalog {
        let mut catalog = Catalog {
            cache_dir: cache_dir.map(Path::to_path_buf),
            ..Catalog::default()
        };
        let mut cached: BTreeMap<String, PathBuf> = BTreeMap::new();
        if let Some(dir) = cache_dir {
            match Cache::new(dir).index_files() {
                Ok(files) => cached.extend(files),
                Err(e) => catalog.warnings.push(e),
            }
        }
        let (data_file, data_entries) = match data {
            Some(DataSource::Ready(file)) => {
                let entries = file.entries.clone();
                (Some(Arc::new(file)), entries)
            }
            Some(DataSource::Unavailable { entries, reason }) => {
                catalog.unavailable = entries
                    .into_iter()
                    .filter(|e| !embedded.iter().any(|(n, _)| *n == e.package))
                    .map(|e| Unavailable {
                        package: e.package,
                        roots: e.roots,
                        reason: reason.clone(),
                    })
                    .collect();
                (None, Vec::new())
            }
            None => (None, Vec::new()),
        };
        let mut names: Vec<&str> = embedded.iter().map(|(n, _)| *n).collect();
        names.extend(cached.keys().map(String::as_str));
        names.extend(data_entries.iter().map(|e| e.package.as_str()));
        names.sort();
        names.dedup();
        for name in names {
            let bytes = embedded.iter().find(|(n, _)| *n == name).map(|(_, b)| *b);
            // A package both embedded and in the data file: the embedded one is used.
            let data_entry = data_entries
                .iter()
                .find(|e| e.package == name && bytes.is_none())
                .cloned();
            let data_file = data_file.clone();
            // Roots known without decoding: only when nothing else (the cache) adds releases.
            let roots = data_entry
                .as_ref()
                .filter(|_| !cached.contains_key(name))
                .map(|e| e.roots.clone());
            let file = cached.get(name).cloned();
            let file_known = file.is_some();
            let cache_dir = cache_dir.map(Path::to_path_buf);
            let late = catalog.late.clone();
            let sink = catalog.sink.clone();
            let load: Loader = Box::new(move || {
                let mut out = Vec::new();
                if let Some(b) = bytes {
                    out.push((Arc::new(PackageIndex::from_bytes(b)?), Origin::Embedded));
                }
                let mut data_error = None;
                if let (Some(entry), Some(data)) = (&data_entry, &data_file) {
                    match data
                        .read(entry)
                        .and_then(|b| PackageIndex::from_bytes(&b).map_err(|e| e.to_string()))
                    {
                        Ok(index) => out.push((Arc::new(index), Origin::DataFile)),
                        Err(e) => {
                            let warning = format!(
                                "the data file {}: {e}; the index of {} in it is not trusted",
                                data.path.display(),
                                entry.package
                            );
                            warn_late(&sink, &late, warning.clone());
                            data_error = Some(warning);
                        }
                    }
                }
                if let (Some(path), Some(dir)) = (&file, &cache_dir) {
                    match load_cached(path, dir) {
                        Ok(index) => out.push((Arc::new(index), Origin::Cached)),
                        Err(warning) => warn_late(&sink, &late, warning),
                    }
                }
                match data_error {
                    Some(e) if out.is_empty() => Err(IndexError::Invalid(e)),
                    _ => Ok(out),
                }
            });
            catalog.entries.insert(
                name.to_string(),
                Entry {
                    load,
                    roots,
                    cached: file_known,
                    view: OnceLock::new(),
                },
            );
        }
        catalog
    }

    /// Tells `sink` every problem met from now on (besides keeping it for
    /// [`Self::late_warnings`]).
    pub fn set_warning_sink(&self, sink: WarningSink) {
        if let Ok(mut s) = self.sink.lock() {
            *s = Some(sink);
        }
    }

    /// Problems met when packages were first decoded: a cached index that could not be read
    /// (it was moved aside; the embedded releases still answer).
    pub fn late_warnings(&self) -> Vec<String> {
        self.late.lock().map(|l| l.clone()).unwrap_or_default()
    }

    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache_dir.as_deref()
    }

    /// Whether `name` is a known package (without decoding it).
    pub fn knows(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// Names of the known packages.
    pub fn names(&self) -> Vec<&str> {
        self.entries.keys().map(String::as_str).collect()
    }

    /// The name the catalog knows a distribution by, however it is spelled
    /// (`huggingface_hub` is `huggingface-hub`: PEP 503 normalization).
    pub fn name_of(&self, distribution: &str) -> Option<&str> {
        let wanted = apicompat_requirements::normalize_name(distribution);
        self.entries
            .keys()
            .find(|n| apicompat_requirements::normalize_name(n) == wanted)
            .map(String::as_str)
    }

    /// The packages of the data file that cannot be read, and why.
    pub fn unavailable(&self) -> &[Unavailable] {
        &self.unavailable
    }

    /// The top-level modules of a package: from the data file's table when it has them (no
    /// decoding), else from the decoded package.
    /// The top-level modules of the embedded packages, as the build read them from their
    /// headers (`(package, roots)`): asking a package's roots, or which package provides a
    /// module, then decodes no index (a project that imports torch alone decoded all of
    /// them). A package with releases in the cache is still decoded (they may add roots).
    /// With the table of what packages without a surface require
    /// ([`crate::requirements_table`]), decoded on first use.
    pub fn with_requirements(mut self, bytes: &'static [u8]) -> Catalog {
        self.requirements = Some((bytes, OnceLock::new()));
        self
    }

    /// The packages of the table of requirements, with their releases.
    pub fn requirements_packages(&self) -> Vec<(String, Vec<String>)> {
        let Some(table) = self.requirements_table() else {
            return Vec::new();
        };
        table
            .packages
            .iter()
            .map(|(name, releases)| {
                let versions = releases.iter().map(|r| r.version.clone()).collect();
                (name.clone(), versions)
            })
            .collect()
    }

    /// The releases (oldest first, with their versions) of distribution `name`, which the
    /// catalog has no surface for, from the table of requirements.
    pub fn requirements_only(&self, name: &str) -> Option<(Vec<Version>, &[ReleaseHeader])> {
        self.requirements_table()?.releases(name)
    }

    /// The table of requirements, decoded on first use; one that cannot be read is a late
    /// warning, once.
    fn requirements_table(&self) -> Option<&RequirementsTable> {
        let (bytes, table) = self.requirements.as_ref()?;
        table
            .get_or_init(|| match RequirementsTable::from_bytes(bytes) {
                Ok(t) => Some(t),
                Err(e) => {
                    let warning = format!("the embedded table of requirements: {e}; not used");
                    warn_late(&self.sink, &self.late, warning);
                    None
                }
            })
            .as_ref()
    }

    pub fn with_embedded_roots(mut self, table: &[(&str, &[&str])]) -> Catalog {
        for (name, roots) in table {
            if let Some(entry) = self.entries.get_mut(*name) {
                if !entry.cached && entry.roots.is_none() {
                    entry.roots = Some(roots.iter().map(|r| r.to_string()).collect());
                }
            }
        }
        self
    }

    pub fn roots(&self, name: &str) -> Result<Vec<String>, IndexError> {
        if let Some(roots) = self.entries.get(name).and_then(|e| e.roots.clone()) {
            return Ok(roots);
        }
        Ok(self
            .package(name)?
            .map(PackageView::roots)
            .unwrap_or_default())
    }

    /// A package's releases across embedded and cached indexes.
    pub fn package(&self, name: &str) -> Result<Option<&PackageView>, IndexError> {
        let Some(entry) = self.entries.get(name) else {
            return Ok(None);
        };
        let view = entry.view.get_or_init(|| {
            (entry.load)()
                .map(|sources| PackageView::new(name, sources))
                .map_err(|e| e.to_string())
        });
        match view {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(IndexError::Corrupt(e.clone())),
        }
    }

    /// The package whose releases define the top-level module of `path`.
    pub fn package_for_module(&self, path: &str) -> Result<Option<&PackageView>, IndexError> {
        let root = path.split('.').next().unwrap_or(path);
        let guess = root.replace('_', "-");
        if self.entries.contains_key(&guess) && self.roots(&guess)?.iter().any(|r| r == root) {
            return self.package(&guess);
        }
        for name in self.names() {
            if self.roots(name)?.iter().any(|r| r == root) {
                return self.package(name);
            }
        }
        Ok(None)
    }
}
