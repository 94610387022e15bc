//! `apicompat index build PATH`: one release's surface from local files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use apicompat_index::cache::{check_not_shrinking, check_package_name, module_count, Cache};
use apicompat_surface::Surface;

use crate::{CmdResult, Failure};

pub fn run(
    paths: &[PathBuf],
    package: &str,
    version: Option<&str>,
    output: Option<&Path>,
    cache_dir: Option<&Path>,
) -> CmdResult {
    if paths.len() > 1 && (version.is_some() || output.is_some()) {
        return Err(Failure::usage(
            "--version and --output take one PATH; with several, versions come from the file names",
        ));
    }
    check_package_name(package).map_err(|e| Failure::usage(format!("--package: {e}")))?;
    let package = apicompat_requirements::normalize_name(package);
    let cache = match (output, cache_dir) {
        (Some(_), _) => None,
        (None, Some(dir)) => Some(Cache::new(dir)),
        (None, None) => {
            return Err(Failure::usage(
                "no cache directory: set APICOMPAT_CACHE_DIR or pass --cache-dir or --output",
            ))
        }
    };
    let mut refused = 0usize;
    let mut written = 0usize;
    for path in paths {
        let version = match version {
            Some(v) => v.to_string(),
            None => path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| apicompat_fetch::version_from_filename(n, &package))
                .ok_or_else(|| {
                    Failure::usage(format!(
                        "cannot tell the release of {} from its name; pass --version",
                        path.display()
                    ))
                })?,
        };
        apicompat_requirements::parse_version(&version)
            .map_err(|e| Failure::usage(format!("version {version:?}: {e}")))?;
        let started = Instant::now();
        let tree = apicompat_archive::read_path(path, Some(&package))?;
        let mut surface = apicompat_extract::extract(&tree, &package, &version);
        super::version_helpers::attach(&tree, &mut surface);
        summarize(&surface, started);
        match (&cache, output) {
            (_, Some(out)) => {
                let json = serde_json::to_vec(&surface)?;
                apicompat_index::cache::write_atomic(out, &json)?;
                if !crate::ui::quiet() {
                    eprintln!("wrote {}", out.display());
                }
            }
            (Some(cache), None) => {
                if let Err(e) =
                    check_not_shrinking(&surface, known_paths(cache, &package, &version))
                {
                    eprintln!("error: {e}");
                    refused += 1;
                    continue;
                }
                cache.write_surface(&surface)?;
                written += 1;
            }
            (None, None) => {}
        }
    }
    if let (Some(cache), true) = (&cache, written > 0) {
        if let Some(index) = rebuild_index(cache, &package)? {
            if !crate::ui::quiet() {
                eprintln!("{package}: index at {}", index.display());
            }
        }
    }
    if refused > 0 {
        return Err(Failure::usage(format!(
            "{refused} input(s) refused; the cache keeps what it had"
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// How many paths the index already knows for a release: the embedded release, or the cached
/// surface of the same version (the larger), if any.
pub fn known_paths(cache: &Cache, package: &str, version: &str) -> Option<usize> {
    let embedded = apicompat_requirements::parse_version(version)
        .ok()
        .and_then(|v| {
            let catalog = apicompat::embedded_catalog();
            let view = catalog.package(package).ok()??;
            let (index, position) = view.index_of(view.position(&v)?)?;
            index.release_path_count(position).ok()
        });
    let cached = match cache.read_surface(package, version) {
        Ok(s) => s.map(|s| s.symbols.len()),
        Err(e) => {
            eprintln!("warning: {e}");
            None
        }
    };
    embedded.max(cached)
}

/// One line about a surface, and its problems.
pub fn summarize(surface: &Surface, started: Instant) {
    if crate::ui::quiet() {
        return;
    }
    let modules = module_count(surface);
    eprintln!(
        "{} {}: {modules} modules, {} paths in {:.2}s",
        surface.package,
        surface.version,
        surface.symbols.len(),
        started.elapsed().as_secs_f64()
    );
    if !surface.problems.is_empty() {
        eprintln!("  {} file(s) read with problems:", surface.problems.len());
        let shown = if crate::ui::verbose() { usize::MAX } else { 10 };
        for p in surface.problems.iter().take(shown) {
            eprintln!("    {p}");
        }
        if surface.problems.len() > shown {
            eprintln!("    ... and {} more", surface.problems.len() - shown);
        }
    }
}

/// Rebuilds a package's cached index from every cached surface of it (under the cache lock).
/// `None` when no surface is left.
pub fn rebuild_index(cache: &Cache, package: &str) -> Result<Option<PathBuf>, Failure> {
    let (index, errors) = cache.rebuild_index(package)?;
    for e in &errors {
        eprintln!("warning: {e}");
    }
    Ok(index)
}
