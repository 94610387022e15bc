//! `apicompat index wheels FILE...`: records in index files (`.apix`, and the indexes of a
//! data file `.apid`) the Pythons and the platforms each release has wheels for, from the
//! package index's file lists (`apicompat_fetch::wheel_pythons`, `wheel_platforms`), without extracting anything again. `index fetch`
//! records the same when it reads a release; `index build` of a local file cannot (no file
//! list), so `scripts/build-index.sh` runs this last. The same file lists give the same bytes.

use std::path::Path;
use std::process::ExitCode;

use apicompat_fetch::{Client, FetchOptions, Release};
use apicompat_index::datafile::{self, DataFile};
use apicompat_index::PackageIndex;
use apicompat_requirements::{parse_version, Version};

use crate::{CmdResult, Failure};

/// The package of the standard library, which is no distribution of the package index.
const PYTHON: &str = "python";

pub fn run(paths: &[std::path::PathBuf]) -> CmdResult {
    if paths.is_empty() {
        return Err(Failure::usage(
            "name at least one index file (NAME.apix or a .apid)",
        ));
    }
    let client = Client::new(FetchOptions::default());
    let mut failed = false;
    for path in paths {
        let result = if path.extension().is_some_and(|e| e == "apid") {
            fill_data_file(&client, path)
        } else {
            fill_index_file(&client, path)
        };
        match result {
            Ok(what) => eprintln!("{}: {what}", path.display()),
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                failed = true;
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn fill_index_file(client: &Client, path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let (new, what) = filled(client, &bytes)?;
    if new == bytes {
        return Ok(format!("unchanged ({what})"));
    }
    apicompat_index::cache::write_atomic(path, &new)?;
    Ok(format!("written, {} bytes ({what})", new.len()))
}

fn fill_data_file(client: &Client, path: &Path) -> Result<String, String> {
    let (toc, _) = datafile::read_toc(path)?;
    let file = DataFile::open(path, &toc)?;
    let mut packed = Vec::new();
    let mut whats = Vec::new();
    for entry in &file.entries {
        let bytes = file.read(entry)?;
        let (new, what) = filled(client, &bytes).map_err(|e| format!("{}: {e}", entry.package))?;
        whats.push(format!("{}: {what}", entry.package));
        packed.push((entry.package.clone(), new));
    }
    let new = datafile::write(packed)?;
    let old = std::fs::read(path).map_err(|e| e.to_string())?;
    if new == old {
        return Ok(format!("unchanged ({})", whats.join("; ")));
    }
    apicompat_index::cache::write_atomic(path, &new)?;
    Ok(format!(
        "written, {} bytes ({})",
        new.len(),
        whats.join("; ")
    ))
}

/// The index bytes with `wheel_pythons` from the package index, and a summary.
fn filled(client: &Client, bytes: &[u8]) -> Result<(Vec<u8>, String), String> {
    let index = PackageIndex::from_bytes(bytes).map_err(|e| e.to_string())?;
    let package = index.package().to_string();
    if package == PYTHON {
        return Ok((bytes.to_vec(), "the standard library: no wheels".into()));
    }
    let listed = client.list_releases(&package).map_err(|e| e.to_string())?;
    let listed: Vec<(Version, &Release)> = listed
        .iter()
        .filter_map(|r| Some((parse_version(&r.version).ok()?, r)))
        .collect();
    let found = |version: &str| -> Option<&Release> {
        let v = parse_version(version).ok()?;
        listed.iter().find(|(w, _)| *w == v).map(|(_, r)| *r)
    };
    // Each release's wheels, read once from its file list.
    let releases = index.releases();
    let read: std::collections::HashMap<&str, (Vec<String>, Vec<String>)> = releases
        .iter()
        .filter_map(|r| {
            let files = found(&r.version)?;
            Some((
                r.version.as_str(),
                (
                    apicompat_fetch::wheel_pythons(files),
                    apicompat_fetch::wheel_platforms(files),
                ),
            ))
        })
        .collect();
    let wheels = |version: &str| read.get(version).cloned();
    let new = index.with_wheels(&wheels).map_err(|e| e.to_string())?;
    let missing = releases.len() - read.len();
    let binary = read.values().filter(|(w, _)| !w.is_empty()).count();
    let platforms = read.values().filter(|(_, p)| !p.is_empty()).count();
    let mut what = format!(
        "{binary} of {} releases ship wheels for some Pythons only, {platforms} for some platforms only",
        releases.len()
    );
    if missing > 0 {
        what.push_str(&format!(
            ", {missing} not on the package index (left as they were)"
        ));
    }
    Ok((new, what))
}
