//! `apicompat index fetch SPEC`: releases from the package index into the cache.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use apicompat_fetch::{Client, FetchOptions};
use apicompat_index::cache::Cache;
use apicompat_requirements::{admits, normalize_name, parse_requirement, parse_version};

use crate::commands::build::{rebuild_index, summarize};
use crate::{CmdResult, Failure};

pub fn run(
    specs: &[String],
    refresh: bool,
    download_to: Option<&Path>,
    cache_dir: Option<&Path>,
) -> CmdResult {
    if specs.is_empty() {
        return Err(Failure::usage(
            "name at least one package: `apicompat index fetch torch==2.5.0`",
        ));
    }
    let dir = cache_dir.ok_or_else(|| {
        Failure::usage("no cache directory: set APICOMPAT_CACHE_DIR or pass --cache-dir")
    })?;
    let cache = Cache::new(dir);
    let client = Client::new(FetchOptions {
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()) && !crate::ui::quiet(),
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
            return Err(Failure::usage(format!(
                "no release of {name} matches `{spec}`"
            )));
        }
        let mut added = 0usize;
        for (version, release) in chosen {
            let v = version.to_string();
            if !refresh && cache.has_surface(&name, &v) {
                if !crate::ui::quiet() {
                    eprintln!("{name} {v}: already cached");
                }
                continue;
            }
            let Some(file) = apicompat_fetch::choose_file(release) else {
                eprintln!("{name} {v}: no wheel or sdist with Python sources; skipped");
                continue;
            };
            let started = Instant::now();
            let fetched = match download_to {
                Some(dir) => download(&client, file, dir).and_then(|path| {
                    apicompat_archive::read_path(&path, Some(&name)).map_err(|e| e.to_string())
                }),
                None => client
                    .fetch_release(file)
                    .map(|(tree, _)| tree)
                    .map_err(|e| e.to_string()),
            };
            match fetched {
                Ok(tree) => {
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
            if !crate::ui::quiet() {
                eprintln!(
                    "{name}: {added} release(s) added; index at {}",
                    index.display()
                );
            }
        }
    }
    Ok(if failed > 0 {
        eprintln!("{failed} release(s) could not be fetched");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The whole release file in `dir` (kept when already there with the right size).
fn download(
    client: &Client,
    file: &apicompat_fetch::ReleaseFile,
    dir: &Path,
) -> Result<std::path::PathBuf, String> {
    let path = dir.join(&file.filename);
    let have = std::fs::metadata(&path).map(|m| m.len()).ok();
    if have.is_some() && have == file.size {
        return Ok(path);
    }
    let (bytes, _) = client.download(file).map_err(|e| e.to_string())?;
    apicompat_index::cache::write_atomic(&path, &bytes)?;
    Ok(path)
}
