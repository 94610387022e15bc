//! `apicompat index fetch SPEC`: releases from the package index into the cache.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use apicompat_fetch::{Client, FetchOptions, Release};
use apicompat_index::cache::{check_not_shrinking, check_package_name, Cache};
use apicompat_requirements::{admits, normalize_name, parse_requirement, parse_version, Version};

use crate::commands::build::{known_paths, rebuild_index, summarize};
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
        check_package_name(&req.name).map_err(|e| Failure::usage(format!("`{spec}`: {e}")))?;
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
        let fetched = fetch_chosen(
            &cache,
            &client,
            &name,
            &chosen,
            &Fetching {
                refresh,
                download_to,
                chatty: true,
            },
        )?;
        failed += fetched.failed.len();
    }
    Ok(if failed > 0 {
        eprintln!("{failed} release(s) could not be fetched");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The whole release file in `dir`. The file name comes from the package index, so only a
/// plain wheel or sdist file name is accepted. A file of that name already in `dir` is used
/// only when it matches the index's sha256 (or its size, when the index gives no sha256);
/// otherwise it is left alone and the release is refused.
fn download(
    client: &Client,
    file: &apicompat_fetch::ReleaseFile,
    dir: &Path,
) -> Result<std::path::PathBuf, String> {
    let name = apicompat_fetch::safe_file_name(&file.filename)?;
    let path = dir.join(name);
    if path.symlink_metadata().is_ok() {
        let data = std::fs::read(&path)
            .map_err(|e| format!("{} exists and cannot be read: {e}", path.display()))?;
        let matches = match (&file.sha256, file.size) {
            (Some(expected), _) => &apicompat_fetch::sha256_hex(&data) == expected,
            (None, Some(size)) => data.len() as u64 == size,
            (None, None) => false,
        };
        if matches {
            return Ok(path);
        }
        return Err(format!(
            "{} exists and is not the file the index lists ({}); not overwriting it: move it away or choose another --download-to",
            path.display(),
            if file.sha256.is_some() {
                "sha256 differs"
            } else {
                "size differs or unknown"
            }
        ));
    }
    let (bytes, _) = client.download(file).map_err(|e| e.to_string())?;
    apicompat_index::cache::write_new(&path, &bytes)?;
    Ok(path)
}

/// How `fetch_chosen` runs.
pub struct Fetching<'a> {
    /// Fetch again releases already cached.
    pub refresh: bool,
    /// Keep the whole release files there.
    pub download_to: Option<&'a Path>,
    /// A line per release (`index fetch`); off for the one line per package of `check`.
    pub chatty: bool,
}

/// What `fetch_chosen` did.
#[derive(Debug, Default)]
pub struct Fetched {
    /// Releases added to the cache.
    pub added: Vec<String>,
    /// Releases that could not be fetched, each with why.
    pub failed: Vec<String>,
}

/// Fetches the `chosen` releases of `name` that the cache does not hold yet, then rebuilds
/// its cached index.
pub fn fetch_chosen(
    cache: &Cache,
    client: &Client,
    name: &str,
    chosen: &[(Version, &Release)],
    how: &Fetching<'_>,
) -> Result<Fetched, Failure> {
    let talk = how.chatty && !crate::ui::quiet();
    let mut out = Fetched::default();
    let fail = |out: &mut Fetched, message: String| {
        if how.chatty {
            eprintln!("error: {message}");
        }
        out.failed.push(message);
    };
    // What the cached index really holds: a surface on disk that the index lacks (a run
    // killed before it rebuilt the index, an index deleted by hand) is indexed again.
    let indexed = cache.indexed_versions(name).unwrap_or_default();
    let mut reindex = false;
    for (version, release) in chosen {
        let v = version.to_string();
        if !how.refresh {
            match cache.read_surface(name, &v) {
                Ok(Some(_)) if indexed.contains(&v) => {
                    if talk {
                        eprintln!("{name} {v}: already cached");
                    }
                    continue;
                }
                Ok(Some(_)) => {
                    if talk {
                        eprintln!(
                            "{name} {v}: cached, but missing from the index; indexing it again"
                        );
                    }
                    reindex = true;
                    continue;
                }
                Ok(None) => {}
                Err(e) => eprintln!("warning: {e}"),
            }
        }
        let Some(file) = apicompat_fetch::choose_file(release) else {
            fail(
                &mut out,
                format!("{name} {v}: no wheel or sdist with Python sources"),
            );
            continue;
        };
        let started = Instant::now();
        let fetched = match how.download_to {
            Some(dir) => download(client, file, dir).and_then(|path| {
                apicompat_archive::read_path(&path, Some(name)).map_err(|e| e.to_string())
            }),
            None => client
                .fetch_release(file)
                .map(|(tree, _)| tree)
                .map_err(|e| e.to_string()),
        };
        match fetched {
            Ok(tree) => {
                let mut surface = apicompat_extract::extract(&tree, name, &v);
                super::version_helpers::attach(&tree, &mut surface);
                surface.meta.wheel_pythons = apicompat_fetch::wheel_pythons(release);
                surface.meta.wheel_platforms = apicompat_fetch::wheel_platforms(release);
                if how.chatty {
                    summarize(&surface, started);
                }
                if let Err(e) = check_not_shrinking(&surface, known_paths(cache, name, &v)) {
                    fail(&mut out, e.to_string());
                    continue;
                }
                cache.write_surface(&surface)?;
                out.added.push(v);
            }
            Err(e) => fail(&mut out, format!("{name} {v}: {e}")),
        }
    }
    if !out.added.is_empty() || how.refresh || reindex {
        let index = rebuild_index(cache, name)?;
        if talk {
            if let Some(index) = index {
                let again = if reindex {
                    ", cached ones indexed again"
                } else {
                    ""
                };
                eprintln!(
                    "{name}: {} release(s) added{again}; index at {}",
                    out.added.len(),
                    index.display()
                );
            }
        }
    }
    Ok(out)
}
