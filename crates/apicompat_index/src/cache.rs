//! The user's cache: surfaces of fetched releases and the package indexes built from them.
//! Every file is written to a temporary name and renamed, so an interrupted run leaves
//! nothing half-written.

use std::path::{Path, PathBuf};

use apicompat_surface::Surface;

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

    fn surface_dir(&self, package: &str) -> PathBuf {
        self.dir.join("surfaces").join(package)
    }

    pub fn index_file(&self, package: &str) -> PathBuf {
        self.dir.join("index").join(format!("{package}.apix"))
    }

    pub fn has_surface(&self, package: &str, version: &str) -> bool {
        self.surface_dir(package)
            .join(format!("{version}.json.lz4"))
            .is_file()
    }

    /// Stores the surface of one release.
    pub fn write_surface(&self, surface: &Surface) -> Result<PathBuf, String> {
        let json = serde_json::to_vec(surface).map_err(|e| e.to_string())?;
        let path = self
            .surface_dir(&surface.package)
            .join(format!("{}.json.lz4", surface.version));
        write_atomic(&path, &lz4_flex::compress_prepend_size(&json))?;
        Ok(path)
    }

    /// Every stored surface of a package, in file-name order; unreadable ones are reported.
    pub fn read_surfaces(&self, package: &str) -> (Vec<Surface>, Vec<String>) {
        let mut surfaces = Vec::new();
        let mut errors = Vec::new();
        let dir = self.surface_dir(package);
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
            let parsed = std::fs::read(&file)
                .map_err(|e| e.to_string())
                .and_then(|b| lz4_flex::decompress_size_prepended(&b).map_err(|e| e.to_string()))
                .and_then(|b| serde_json::from_slice::<Surface>(&b).map_err(|e| e.to_string()));
            match parsed {
                Ok(s) if s.package == package => surfaces.push(s),
                Ok(s) => errors.push(format!(
                    "{}: holds package {}, not {package}",
                    file.display(),
                    s.package
                )),
                Err(e) => errors.push(format!(
                    "{}: corrupt cache file ({e}); delete it and fetch the release again",
                    file.display()
                )),
            }
        }
        (surfaces, errors)
    }

    pub fn write_index(&self, package: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        let path = self.index_file(package);
        write_atomic(&path, bytes)?;
        Ok(path)
    }

    /// The cached package indexes by package name.
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
                Some((name, p))
            })
            .collect();
        out.sort();
        Ok(out)
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        std::process::id()
    ));
    let result = std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
