//! The indexes built into the `apicompat` binary, for tests and embedders.

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

use std::path::{Path, PathBuf};

use apicompat_index::datafile::DataSource;
use apicompat_index::Catalog;
pub use embedded::{DATA_FILE_NAME, DATA_TOC, EMBEDDED, EMBEDDED_ROOTS, REQUIREMENTS};

/// The catalog of the indexes shipped with the binary (embedded and the data file; no user
/// cache).
pub fn embedded_catalog() -> Catalog {
    shipped_catalog(None)
}

/// The embedded indexes and table of requirements, the data file's indexes (read lazily) and
/// the user's cache.
pub fn shipped_catalog(cache_dir: Option<&Path>) -> Catalog {
    let data = DataSource::find(&data_file_candidates(), DATA_TOC);
    let catalog =
        Catalog::open_with_data(EMBEDDED, data, cache_dir).with_embedded_roots(EMBEDDED_ROOTS);
    if REQUIREMENTS.is_empty() {
        return catalog;
    }
    catalog.with_requirements(REQUIREMENTS)
}

/// Where the data file is looked for, in order: `APICOMPAT_DATA_FILE` (only there when set),
/// beside the binary (the wheel installs it into the same `bin` directory; cargo's output
/// directory), the directory above (cargo's test binaries in `deps/`), `../share/apicompat/`
/// of the binary's directory, and where it was at build time (a build from a checkout).
pub fn data_file_candidates() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("APICOMPAT_DATA_FILE") {
        return vec![PathBuf::from(p)];
    }
    let mut out = Vec::new();
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        out.push(dir.join(DATA_FILE_NAME));
        if let Some(up) = dir.parent() {
            out.push(up.join(DATA_FILE_NAME));
            out.push(up.join("share/apicompat").join(DATA_FILE_NAME));
        }
    }
    out.push(PathBuf::from(embedded::DATA_FILE_SOURCE));
    out
}
