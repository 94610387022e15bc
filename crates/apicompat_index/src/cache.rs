//! The user's cache: surfaces of fetched releases and the package indexes built from them.
//!
//! - Every file is written to a temporary name and renamed, so an interrupted run leaves
//!   nothing half-written.
//! - Surface files carry a CRC-32 of their contents ([`SURFACE_MAGIC`], then the CRC-32 of the
//!   rest, then the lz4 of the JSON); a file that fails it (or any other read) is reported and
//!   moved aside to `NAME.corrupt-<unix time>`, never read again.
//! - Writers that change a package's index take the cache lock ([`Cache::lock`], a lock file as
//!   pip and uv use) and rebuild the index from every surface on disk while holding it, so
//!   concurrent runs merge instead of losing each other's releases.
//! - Package names and versions are checked before they become file names.

use std::fs::File;
use std::path::{Path, PathBuf};

use apicompat_surface::{Kind, Surface};

use crate::{IndexBuilder, PackageIndex};

/// The first bytes of a surface file of the current format.
pub const SURFACE_MAGIC: &[u8; 8] = b"APXSURF1";

/// The cache directory: `APICOMPAT_CACHE_DIR`, else the platform's user cache directory.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("APICOMPAT_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("apicompat"));
    }
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"))?;
    let home = PathBuf::from(home);
    Some(if cfg!(target_os = "macos") {
        home.join("Library/Caches/apicompat")
    } else if cfg!(windows) {
        home.join("AppData/Local/apicompat/cache")
    } else {
        home.join(".cache/apicompat")
    })
}

/// A valid project name (PEP 503/508: ASCII letters, digits, `-`, `_`, `.`, starting and
/// ending with a letter or digit). Only such names become file names in the cache.
pub fn check_package_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 200
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && name
            .bytes()
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a package name (letters, digits, `-`, `_`, `.`, starting and ending with a letter or digit)"
        ))
    }
}

/// A version string that is safe as a file name (PEP 440 characters, no separators).
fn check_version_name(version: &str) -> Result<(), String> {
    let ok = !version.is_empty()
        && version.len() <= 200
        && !version.starts_with('.')
        && version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'+' | b'!'));
    if ok {
        Ok(())
    } else {
        Err(format!("{version:?} is not a release version"))
    }
}

/// How many modules a surface defines (re-exported modules not counted).
pub fn module_count(surface: &Surface) -> usize {
    surface
        .symbols
        .values()
        .filter(|s| s.kind() == Kind::Module && s.canonical.is_none())
        .count()
}

/// Refuses a surface that would replace most of what is known of the same release: one with no
/// modules at all, or with fewer than half the paths of `known` (the paths the embedded index or
/// the cache already has for this release, when it has it).
pub fn check_not_shrinking(surface: &Surface, known: Option<usize>) -> Result<(), String> {
    let what = format!("{} {}", surface.package, surface.version);
    if module_count(surface) == 0 || surface.symbols.is_empty() {
        let hint = if surface.problems.is_empty() {
            String::new()
        } else {
            format!(
                " ({} problem(s), first: {})",
                surface.problems.len(),
                surface.problems[0]
            )
        };
        return Err(format!(
            "{what}: no Python module found in the input{hint}; nothing was cached"
        ));
    }
    if let Some(known) = known {
        let have = surface.symbols.len();
        if have * 2 < known {
            return Err(format!(
                "{what}: the input has {have} paths, the index already has {known} for this release; \
                 refusing to replace it with a much smaller surface (is the input complete, and is it {what}?)"
            ));
        }
    }
    Ok(())
}

/// The name a corrupt file is moved to: `NAME.corrupt-<unix seconds>` (a counter is added when
/// that exists already).
fn aside_name(path: &Path) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut candidate = path.with_file_name(format!("{name}.corrupt-{secs}"));
    let mut n = 1;
    while candidate.exists() && n < 1000 {
        candidate = path.with_file_name(format!("{name}.corrupt-{secs}-{n}"));
        n += 1;
    }
    candidate
}

/// Moves a corrupt cache file aside; returns a sentence saying where (or why not).
pub fn move_aside(path: &Path) -> String {
    let to = aside_name(path);
    match std::fs::rename(path, &to) {
        Ok(()) => format!("moved it to {}", to.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "it is gone already".to_string(),
        Err(e) => format!("could not move it aside: {e}"),
    }
}

/// The exclusive lock of a cache directory, released when dropped.
pub struct CacheLock {
    _file: File,
}

pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn new(dir: &Path) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Waits for and takes the cache's exclusive lock (`.lock` in the cache directory).
    pub fn lock(&self) -> Result<CacheLock, String> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let path = self.dir.join(".lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| format!("cannot open the cache lock {}: {e}", path.display()))?;
        file.lock()
            .map_err(|e| format!("cannot lock {}: {e}", path.display()))?;
        Ok(CacheLock { _file: file })
    }

    fn surface_dir(&self, package: &str) -> Result<PathBuf, String> {
        check_package_name(package)?;
        Ok(self.dir.join("surfaces").join(package))
    }

    fn surface_file(&self, package: &str, version: &str) -> Result<PathBuf, String> {
        check_version_name(version)?;
        Ok(self
            .surface_dir(package)?
            .join(format!("{version}.json.lz4")))
    }

    /// The cached index of a package. The name must be a valid package name.
    pub fn index_file(&self, package: &str) -> Result<PathBuf, String> {
        check_package_name(package)?;
        Ok(self.dir.join("index").join(format!("{package}.apix")))
    }

    pub fn has_surface(&self, package: &str, version: &str) -> bool {
        self.surface_file(package, version)
            .is_ok_and(|p| p.is_file())
    }

    /// Stores the surface of one release (with its checksum).
    pub fn write_surface(&self, surface: &Surface) -> Result<PathBuf, String> {
        let path = self.surface_file(&surface.package, &surface.version)?;
        write_atomic(&path, &encode_surface(surface)?)?;
        Ok(path)
    }

    /// The stored surface of one release: `Ok(None)` when there is none; a corrupt file is
    /// moved aside and reported as the error.
    pub fn read_surface(&self, package: &str, version: &str) -> Result<Option<Surface>, String> {
        let path = self.surface_file(package, version)?;
        if !path.is_file() {
            return Ok(None);
        }
        read_surface_file(&path, package).map(Some)
    }

    /// Every stored surface of a package, in file-name order. Unreadable files are reported
    /// and moved aside.
    pub fn read_surfaces(&self, package: &str) -> (Vec<Surface>, Vec<String>) {
        let mut surfaces = Vec::new();
        let mut errors = Vec::new();
        let dir = match self.surface_dir(package) {
            Ok(d) => d,
            Err(e) => return (surfaces, vec![e]),
        };
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(rd) => rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with(".json.lz4"))
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                errors.push(format!("cannot read {}: {e}", dir.display()));
                Vec::new()
            }
        };
        files.sort();
        for file in files {
            match read_surface_file(&file, package) {
                Ok(s) => surfaces.push(s),
                Err(e) => errors.push(e),
            }
        }
        (surfaces, errors)
    }

    /// The releases the cached index of `package` holds; `None` when there is no readable
    /// index.
    pub fn indexed_versions(&self, package: &str) -> Option<Vec<String>> {
        let bytes = std::fs::read(self.index_file(package).ok()?).ok()?;
        let index = PackageIndex::from_bytes(&bytes).ok()?;
        index.validate().ok()?;
        Some(index.releases().iter().map(|r| r.version.clone()).collect())
    }

    /// Rebuilds a package's index from every surface on disk, under the cache lock (so runs
    /// that add releases concurrently all end up in it). Returns the index path (`None` when no
    /// surface is left and the index was removed) and the problems met.
    pub fn rebuild_index(&self, package: &str) -> Result<(Option<PathBuf>, Vec<String>), String> {
        let _lock = self.lock()?;
        let (surfaces, errors) = self.read_surfaces(package);
        let path = self.index_file(package)?;
        if surfaces.is_empty() {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("cannot remove {}: {e}", path.display())),
            }
            return Ok((None, errors));
        }
        let mut builder = IndexBuilder::new(package);
        for s in &surfaces {
            builder.add(s).map_err(|e| e.to_string())?;
        }
        let bytes = builder.finish().map_err(|e| e.to_string())?;
        write_atomic(&path, &bytes)?;
        Ok((Some(path), errors))
    }

    pub fn write_index(&self, package: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        let path = self.index_file(package)?;
        write_atomic(&path, bytes)?;
        Ok(path)
    }

    /// The cached package indexes by package name (files whose name is not a package name are
    /// left out).
    pub fn index_files(&self) -> Result<Vec<(String, PathBuf)>, String> {
        let dir = self.dir.join("index");
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("cannot read cache {}: {e}", dir.display())),
        };
        let mut out: Vec<(String, PathBuf)> = rd
            .flatten()
            .map(|e| e.path())
            .filter_map(|p| {
                let name = p.file_name()?.to_str()?.strip_suffix(".apix")?.to_string();
                check_package_name(&name).ok()?;
                Some((name, p))
            })
            .collect();
        out.sort();
        Ok(out)
    }
}

fn encode_surface(surface: &Surface) -> Result<Vec<u8>, String> {
    let json = serde_json::to_vec(surface).map_err(|e| e.to_string())?;
    let body = lz4_flex::compress_prepend_size(&json);
    let mut out = Vec::with_capacity(body.len() + 12);
    out.extend_from_slice(SURFACE_MAGIC);
    out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

/// Checks and decodes a surface file. Files written before the checksum existed (no magic) are
/// still read.
fn decode_surface(bytes: &[u8]) -> Result<Surface, String> {
    let body = match bytes.strip_prefix(SURFACE_MAGIC.as_slice()) {
        Some(rest) => {
            if rest.len() < 4 {
                return Err("truncated".to_string());
            }
            let (crc, body) = rest.split_at(4);
            let stored = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
            let actual = crc32fast::hash(body);
            if stored != actual {
                return Err(format!(
                    "checksum mismatch (stored {stored:08x}, contents {actual:08x})"
                ));
            }
            body
        }
        None => bytes,
    };
    let json = lz4_flex::decompress_size_prepended(body).map_err(|e| e.to_string())?;
    serde_json::from_slice::<Surface>(&json).map_err(|e| e.to_string())
}

/// Reads one surface file of `package`; a file that cannot be used is moved aside.
fn read_surface_file(path: &Path, package: &str) -> Result<Surface, String> {
    let parsed = std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|b| decode_surface(&b));
    let problem = match parsed {
        Ok(s) if s.package == package => return Ok(s),
        Ok(s) => format!("holds package {}, not {package}", s.package),
        Err(e) => format!("corrupt cache file ({e})"),
    };
    let moved = move_aside(path);
    Err(format!(
        "{}: {problem}; {moved}; fetch or build the release again",
        path.display()
    ))
}

/// Writes `bytes` to `path` through a temporary file in the same directory.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = write_temp(path, bytes)?;
    let result =
        std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes `bytes` to `path` unless a file of that name exists (it is never replaced): the
/// bytes go to a temporary file that is then hard-linked to `path`.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = write_temp(path, bytes)?;
    let result = match std::fs::hard_link(&tmp, path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(format!(
            "{} exists already; not overwriting it",
            path.display()
        )),
        // A file system without hard links: rename, after checking again.
        Err(_) if !path.exists() => {
            std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        Err(e) => Err(format!("cannot write {}: {e}", path.display())),
    };
    let _ = std::fs::remove_file(&tmp);
    result
}

fn write_temp(path: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    match std::fs::write(&tmp, bytes) {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(format!("cannot write {}: {e}", path.display()))
        }
    }
}
