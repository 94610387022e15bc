//! `apicompat index build PATH`: one release's surface from local files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use apicompat_index::cache::Cache;
use apicompat_index::IndexBuilder;
use apicompat_surface::{Kind, Surface};

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
        let surface = apicompat_extract::extract(&tree, &package, &version);
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
                cache.write_surface(&surface)?;
            }
            (None, None) => {}
        }
    }
    if let Some(cache) = &cache {
        let index = rebuild_index(cache, &package)?;
        if !crate::ui::quiet() {
            eprintln!("{package}: index at {}", index.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One line about a surface, and its problems.
pub fn summarize(surface: &Surface, started: Instant) {
    if crate::ui::quiet() {
        return;
    }
    let modules = surface
        .symbols
        .values()
        .filter(|s| s.kind() == Kind::Module && s.canonical.is_none())
        .count();
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

/// Rebuilds a package's cached index from every cached surface of it.
pub fn rebuild_index(cache: &Cache, package: &str) -> Result<std::path::PathBuf, Failure> {
    let (surfaces, errors) = cache.read_surfaces(package);
    for e in &errors {
        eprintln!("warning: {e}");
    }
    let mut builder = IndexBuilder::new(package);
    for s in &surfaces {
        builder.add(s)?;
    }
    let bytes = builder.finish()?;
    Ok(cache.write_index(package, &bytes)?)
}
