//! `apicompat index requirements NAME... --output FILE`: writes the table of what the releases
//! of packages without a surface require (`apicompat_index::requirements_table`): per final,
//! not yanked release uploaded in the window given, its `Requires-Python`, the Pythons and
//! platforms of its wheels, and the `Requires-Dist` of its core metadata (the first wheel by
//! file name: PEP 658's file, else the wheel's `METADATA` read with Range requests; none known
//! for a release without wheels), of which only the requirements on packages with a surface
//! are kept (no other can narrow anything). A package that cannot narrow anything is left out:
//! none of its releases ships wheels only and its newest requires no package with a surface.
//! A package with a surface gets only its releases older than the oldest the index has: the
//! table completes the index below it (`torch==1.0.1` ships wheels for Python 3.7 at most).
//! The same package index, window and surfaces give the same bytes.

use std::path::Path;
use std::process::ExitCode;

use apicompat_fetch::{Client, FetchOptions, Release};
use apicompat_index::requirements_table::RequirementsTable;
use apicompat_index::ReleaseHeader;
use apicompat_requirements::parse_version;

use crate::{CmdResult, Failure};

/// Requests made at once, by default.
pub const JOBS: usize = 32;

/// The window of releases and how many requests at once.
pub struct Window<'a> {
    pub from: &'a str,
    pub until: &'a str,
    pub jobs: usize,
}

/// The packages with a surface: normalized name and oldest indexed release.
pub type Surfaces<'a> = [(&'a str, apicompat_requirements::Version)];

/// Writes the table of `names` to `output`, joined with the tables `merge` (written by earlier
/// runs; a package of both is taken from this run). A package that cannot be read is left
/// out with an error, and the exit code is 1 (the rest is written).
pub fn run(
    names: &[String],
    surfaces: &Surfaces<'_>,
    merge: &[std::path::PathBuf],
    output: &Path,
    window: &Window<'_>,
) -> CmdResult {
    if names.is_empty() && merge.is_empty() {
        return Err(Failure::usage("name at least one distribution or table"));
    }
    let client = Client::new(FetchOptions {
        progress: false,
        ..FetchOptions::default()
    });
    let mut table = RequirementsTable::default();
    for path in merge {
        let read = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| RequirementsTable::from_bytes(&b).map_err(|e| e.to_string()))
            .map_err(|e| Failure::from(format!("{}: {e}", path.display())))?;
        table.packages.extend(read.packages);
    }
    let surface_names: Vec<&str> = surfaces.iter().map(|(n, _)| *n).collect();
    let mut failed = Vec::new();
    for name in names {
        match package(&client, name, surfaces, &surface_names, window) {
            Ok(Some(headers)) => {
                let known = headers.iter().filter(|h| !h.requires_dist.is_empty()).count();
                eprintln!(
                    "{name}: {} releases, {known} with requirements read from their metadata",
                    headers.len()
                );
                table.insert(name, headers);
            }
            Ok(None) => eprintln!("{name}: left out (no wheel-only release, and its newest release requires no package with a surface)"),
            Err(e) => {
                eprintln!("error: {name}: {e}; left out");
                failed.push(name.as_str());
            }
        }
    }
    // Only requirements on packages with a surface can narrow anything.
    for headers in table.packages.values_mut() {
        for h in headers {
            h.requires_dist
                .retain(|t| names_a_surface(t, &surface_names));
        }
    }
    let bytes = table.to_bytes()?;
    apicompat_index::cache::write_atomic(output, &bytes)?;
    eprintln!("wrote {} ({} bytes)", output.display(), bytes.len());
    if failed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "error: not read: {}; run again with those names and `--merge {}`",
        failed.join(" "),
        output.display()
    );
    Ok(ExitCode::from(1))
}

/// One package's headers, `None` when it cannot narrow anything.
fn package(
    client: &Client,
    name: &str,
    surfaces: &Surfaces<'_>,
    names: &[&str],
    window: &Window<'_>,
) -> Result<Option<Vec<ReleaseHeader>>, String> {
    let listed = patiently(|| client.list_releases(name).map_err(|e| e.to_string()))?;
    let normalized = apicompat_requirements::normalize_name(name);
    let oldest = surfaces
        .iter()
        .find(|(n, _)| *n == normalized)
        .map(|(_, v)| v);
    let chosen: Vec<&Release> = listed
        .iter()
        .filter(|r| in_window(r, window.from, window.until))
        .filter(|r| oldest.is_none_or(|o| parse_version(&r.version).is_ok_and(|v| v < *o)))
        .collect();
    if !bears_on_surfaces(client, &chosen, names)? {
        return Ok(None);
    }
    read_all(client, &chosen, window.jobs).map(Some)
}

/// Whether a package's releases can narrow what the index judges: some ship wheels only (they
/// bound the Pythons), or the newest requires a package of `surfaces` (normalized names).
/// A package that is neither is left out of the table (pure Python, unrelated).
fn bears_on_surfaces(
    client: &Client,
    releases: &[&Release],
    surfaces: &[&str],
) -> Result<bool, String> {
    if releases
        .iter()
        .any(|r| !apicompat_fetch::wheel_pythons(r).is_empty())
    {
        return Ok(true);
    }
    let Some(newest) = releases.last() else {
        return Ok(false);
    };
    let requires = patiently(|| header(client, newest))?.requires_dist;
    Ok(requires.iter().any(|t| names_a_surface(t, surfaces)))
}

/// Whether requirement `text` is on a package of `surfaces` (normalized names).
fn names_a_surface(text: &str, surfaces: &[&str]) -> bool {
    apicompat_requirements::parse_requirement(text)
        .is_ok_and(|r| surfaces.contains(&apicompat_requirements::normalize_name(&r.name).as_str()))
}

/// A final release, not yanked, first uploaded within `[from, until)` (ISO dates compare as
/// text; a release without upload times is kept).
fn in_window(release: &Release, from: &str, until: &str) -> bool {
    let Ok(version) = parse_version(&release.version) else {
        return false;
    };
    if version.any_prerelease() || release.yanked() || release.files.is_empty() {
        return false;
    }
    let first = release
        .files
        .iter()
        .filter_map(|f| f.upload_time.as_deref())
        .min();
    first.is_none_or(|t| t >= from && t < until)
}

/// The headers of `releases`, read by `jobs` threads; in the order given.
fn read_all(
    client: &Client,
    releases: &[&Release],
    jobs: usize,
) -> Result<Vec<ReleaseHeader>, String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<Option<Result<ReleaseHeader, String>>> = vec![None; releases.len()];
    let results = std::sync::Mutex::new(&mut out);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, releases.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(release) = releases.get(i) else {
                    break;
                };
                let header = patiently(|| header(client, release));
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(header);
                }
            });
        }
    });
    out.into_iter()
        .map(|h| h.unwrap_or_else(|| Err("not read".into())))
        .collect()
}

/// `read`, tried again after 2, 4 and 8 seconds when it fails (a resolver or an index that
/// is busy for a moment; the client's own retries are quick).
fn patiently<T>(read: impl Fn() -> Result<T, String>) -> Result<T, String> {
    let mut wait = std::time::Duration::from_secs(2);
    for _ in 0..3 {
        match read() {
            Ok(v) => return Ok(v),
            Err(_) => std::thread::sleep(wait),
        }
        wait *= 2;
    }
    read()
}

/// One release's header: its `Requires-Python`, wheels and core metadata's `Requires-Dist`.
fn header(client: &Client, release: &Release) -> Result<ReleaseHeader, String> {
    let mut wheels: Vec<_> = release.files.iter().filter(|f| f.is_wheel()).collect();
    wheels.sort_by(|a, b| a.filename.cmp(&b.filename));
    let mut requires_dist = Vec::new();
    let mut requires_python = None;
    if let Some(wheel) = wheels.first() {
        let metadata = client
            .wheel_metadata(wheel)
            .map_err(|e| format!("{}: {e}", wheel.filename))?;
        requires_dist = metadata.requires_dist;
        requires_python = metadata.requires_python;
    }
    let requires_python = requires_python.or_else(|| {
        let mut files: Vec<_> = release.files.iter().collect();
        files.sort_by(|a, b| a.filename.cmp(&b.filename));
        files.iter().find_map(|f| f.requires_python.clone())
    });
    Ok(ReleaseHeader {
        version: release.version.clone(),
        requires_dist,
        requires_python,
        removed: Default::default(),
        wheel_pythons: apicompat_fetch::wheel_pythons(release),
        wheel_platforms: apicompat_fetch::wheel_platforms(release),
    })
}
