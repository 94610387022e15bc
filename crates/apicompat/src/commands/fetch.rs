//! `apicompat index fetch SPEC`: releases from the package index into the cache.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use apicompat_fetch::{Client, FetchOptions};
use apicompat_index::cache::Cache;
use apicompat_requirements::{admits, normalize_name, parse_requirement, parse_version};

use crate::commands::build::{rebuild_index, summarize};
use crate::{CmdResult, Failure};

pub fn run(specs: &[String], refresh: bool, cache_dir: Option<&Path>) -> CmdResult {
    if specs.is_empty() {
        return Err(Failure::usage("name at least one package: `apicompat index fetch torch==2.5.0`"));
    }
    let dir = cache_dir.ok_or_else(|| {
        Failure::usage("no cache directory: set APICOMPAT_CACHE_DIR or pass --cache-dir")
    })?;
    let cache = Cache::new(dir);
    let client = Client::new(FetchOptions {
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        ..FetchOptions::default()
    });
    let mut failed = 0usize;
    for spec in specs {
        let req = parse_requirement(spec)
            .map_err(|e| Failure::usage(format!("`{spec}` is not a requirement: {e}")))?;
        let name = normalize_name(&req.name);
        let releases = client.list_releases(&name)?;
        let mut chosen = Vec::new();
        for release in &releases {
            let Ok(version) = parse_version(&release.version) else {
                eprintln!("skipping {name} {}: not a PEP 440 version", release.version);
                continue;
            };
            if release.yanked() || !admits(&req.specifier, &version) {
                continue;
            }
            chosen.push((version, release));
        }
        chosen.sort_by(|a, b| a.0.cmp(&b.0));
        if chosen.is_empty() {
            return Err(Failure::usage(format!("no release of {name} matches `{spec}`")));
        }
        let mut added = 0usize;
        for (version, release) in chosen {
            let v = version.to_string();
            if !refresh && cache.has_surface(&name, &v) {
                eprintln!("{name} {v}: already cached");
                continue;
            }
            let Some(file) = apicompat_fetch::choose_file(release) else {
                eprintln!("{name} {v}: no wheel or sdist with Python sources; skipped");
                continue;
            };
            let started = Instant::now();
            match client.fetch_release(file) {
                Ok((tree, _stats)) => {
                    let surface = apicompat_extract::extract(&tree, &name, &v);
                    summarize(&surface, started);
                    cache.write_surface(&surface)?;
                    added += 1;
                }
                Err(e) => {
                    eprintln!("error: {name} {v}: {e}");
                    failed += 1;
                }
            }
        }
        if added > 0 || refresh {
            let index = rebuild_index(&cache, &name)?;
            eprintln!("{name}: {added} release(s) added; index at {}", index.display());
        }
    }
    Ok(if failed > 0 {
        eprintln!("{failed} release(s) could not be fetched");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
