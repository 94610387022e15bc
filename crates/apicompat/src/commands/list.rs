//! `apicompat index list`: the packages and releases known.

use std::process::ExitCode;

use serde::Serialize;

use apicompat_index::{ranges, Catalog};

use crate::{CmdResult, Format};

#[derive(Serialize)]
struct PackageOut {
    package: String,
    releases: Vec<ReleaseOut>,
}

#[derive(Serialize)]
struct ReleaseOut {
    version: String,
    origin: &'static str,
}

/// The origin of the releases of the table of requirements.
const REQUIREMENTS: &str = "requirements table";

pub fn run(catalog: &Catalog, format: Format) -> CmdResult {
    let mut out = Vec::new();
    for name in catalog.names() {
        let Some(view) = catalog.package(name)? else {
            continue;
        };
        out.push(PackageOut {
            package: name.to_string(),
            releases: view
                .releases()
                .iter()
                .map(|r| ReleaseOut {
                    version: r.version.to_string(),
                    origin: r.origin.as_str(),
                })
                .collect(),
        });
    }
    // Packages known by what their releases require only, and the releases older than the
    // index of the others (listed first: the table holds them oldest first).
    let mut table = Vec::new();
    for (package, versions) in catalog.requirements_packages() {
        let releases = versions.into_iter().map(|version| ReleaseOut {
            version,
            origin: REQUIREMENTS,
        });
        match catalog
            .name_of(&package)
            .and_then(|n| out.iter_mut().find(|p| p.package == n))
        {
            Some(indexed) => {
                let later = std::mem::take(&mut indexed.releases);
                indexed.releases = releases.chain(later).collect();
            }
            None => {
                table.push(package.clone());
                out.push(PackageOut {
                    package,
                    releases: releases.collect(),
                });
            }
        }
    }
    for u in catalog.unavailable() {
        eprintln!(
            "note: {} is in the data file, which cannot be read: {}",
            u.package, u.reason
        );
    }
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&out)?),
        Format::Text => {
            if out.is_empty() {
                println!("no packages indexed");
            }
            for p in out
                .iter()
                .filter(|p| p.releases.iter().any(|r| r.origin != REQUIREMENTS))
            {
                let versions: Vec<&str> = p.releases.iter().map(|r| r.version.as_str()).collect();
                for origin in ["embedded", "data file", "cached", REQUIREMENTS] {
                    let member: Vec<bool> = p.releases.iter().map(|r| r.origin == origin).collect();
                    let n = member.iter().filter(|m| **m).count();
                    let what = match origin {
                        REQUIREMENTS => "older release(s) known by what they require",
                        _ => &format!("{origin} release(s)"),
                    };
                    if n > 0 {
                        println!(
                            "{}: {n} {what}: {}",
                            p.package,
                            ranges(&versions, &member).join(", ")
                        );
                    }
                }
            }
            if !table.is_empty() {
                let names: Vec<&str> = table.iter().map(String::as_str).collect();
                println!(
                    "requirements only (no surface; what their releases require bounds the other packages): {} packages: {}",
                    names.len(),
                    names.join(", ")
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
