//! On-demand fetching for `check` and `range`: an imported package the index does not have,
//! whose distribution the project names (a declared requirement, installed metadata, a
//! `--target`), is fetched into the cache with `index fetch`'s machinery before the run.
//!
//! Which releases: those the package's specifiers admit (final releases, not yanked), the
//! newest patch of each minor series, at most `MAX_SERIES` series (the oldest admitted one and
//! the newest ones); with no version specifier in any declaration (`pytest` in
//! requirements.txt), the newest release only.
//! Never with `--offline`, `APICOMPAT_OFFLINE` or `--no-cache`: a note names what was not
//! checked. A failed fetch is a note, and is not tried again for `RETRY_AFTER` (a marker file
//! in the cache, `on-demand/NAME`); `apicompat index fetch NAME` tries at once.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use apicompat_check::UnindexedImport;
use apicompat_fetch::{Client, FetchOptions, Release};
use apicompat_index::cache::{check_package_name, Cache};
use apicompat_requirements::{admits, parse_specifiers, parse_version, Version, VersionSpecifiers};

use crate::commands::fetch::{fetch_chosen, Fetching};

/// Minor series fetched per package at most.
pub const MAX_SERIES: usize = 6;

/// How long a failed fetch is not tried again.
const RETRY_AFTER: Duration = Duration::from_secs(24 * 3600);

/// Whether the network may be used: not with `--offline` or `APICOMPAT_OFFLINE` (set to
/// anything but empty or `0`).
pub fn offline(flag: bool) -> bool {
    flag || std::env::var_os("APICOMPAT_OFFLINE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Where and whether `check` and `range` fetch.
pub struct OnDemand {
    pub cache_dir: Option<PathBuf>,
    pub offline: bool,
}

/// A package to fetch: its distribution and the specifiers that apply.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub distribution: String,
    pub specifiers: Vec<String>,
    /// What its releases require is in the catalog's table of requirements (applied even
    /// when it is not fetched).
    pub requirements_known: bool,
}

/// What `fetch` did, for the run's notes.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Something was added to the cache: the catalog must be opened again.
    pub added: bool,
    pub notes: Vec<String>,
    /// Packages that could not be fetched (not those left alone offline): distribution and
    /// why, for AC004's warning.
    pub failed: Vec<(String, String)>,
}

/// The packages of `imports` that can be fetched: those whose distribution is known.
pub fn wanted(imports: &[UnindexedImport], catalog: &apicompat_index::Catalog) -> Vec<Wanted> {
    let mut by_dist: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for i in imports {
        if let Some(d) = &i.distribution {
            by_dist
                .entry(d.clone())
                .or_default()
                .extend(i.specifiers.iter().cloned());
        }
    }
    by_dist
        .into_iter()
        .map(|(distribution, specifiers)| Wanted {
            requirements_known: catalog.requirements_only(&distribution).is_some(),
            distribution,
            specifiers,
        })
        .collect()
}

/// For packages not fetched that the project declares with a version (`vllm==0.6.3`): what
/// their own requirements would have ruled out is not known either (vllm 0.6.3 requires
/// `transformers>=4.45.0`, `numpy<2.0.0`, `torch==2.4.0`; study 27's F-A).
fn requirements_not_applied(wanted: &[Wanted]) -> String {
    let declared: Vec<String> = wanted
        .iter()
        .filter(|w| !w.requirements_known)
        .filter_map(|w| {
            // The same specifier declared in several files is named once.
            let mut specs: Vec<&str> = Vec::new();
            for s in w.specifiers.iter().filter(|s| !s.is_empty()) {
                if !specs.contains(&s.as_str()) {
                    specs.push(s);
                }
            }
            (!specs.is_empty()).then(|| format!("`{}{}`", w.distribution, specs.join(",")))
        })
        .collect();
    if declared.is_empty() {
        return String::new();
    }
    format!(
        "; nor are the requirements of {} on other packages applied, so releases they rule out may be checked",
        declared.join(", ")
    )
}

impl OnDemand {
    /// Fetches every package of `wanted` (see the module doc).
    pub fn fetch(&self, wanted: &[Wanted]) -> Outcome {
        let mut out = Outcome::default();
        if wanted.is_empty() {
            return out;
        }
        let names = || {
            wanted
                .iter()
                .map(|w| w.distribution.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some(dir) = &self.cache_dir else {
            out.notes.push(format!(
                "not fetched (no cache directory: --no-cache), so their uses are not checked: {}{}",
                names(),
                requirements_not_applied(wanted)
            ));
            return out;
        };
        if self.offline {
            out.notes.push(format!(
                "offline (--offline or APICOMPAT_OFFLINE): not fetched, so their uses are not checked: {}{}",
                names(),
                requirements_not_applied(wanted)
            ));
            return out;
        }
        let cache = Cache::new(dir);
        let terminal = std::io::stderr().is_terminal() && !crate::ui::quiet();
        let client = Client::new(FetchOptions {
            progress: false,
            ..FetchOptions::default()
        });
        for w in wanted {
            let name = &w.distribution;
            if let Err(e) = check_package_name(name) {
                out.notes.push(format!("{name}: not fetched: {e}"));
                out.failed.push((name.clone(), e.to_string()));
                continue;
            }
            let marker = dir.join("on-demand").join(name);
            if let Some(reason) = recent_failure(&marker) {
                out.notes.push(format!(
                    "{name} is not indexed: fetching it failed less than a day ago ({reason}); `apicompat index fetch {name}` tries again"
                ));
                out.failed.push((
                    name.clone(),
                    format!("fetching it failed less than a day ago ({reason})"),
                ));
                continue;
            }
            if terminal {
                eprint!("fetching {name} ... ");
                let _ = std::io::stderr().flush();
            }
            let result = fetch_one(&cache, &client, w);
            match result {
                Ok((added, failed)) => {
                    if terminal {
                        eprintln!("{} release(s) added", added.len());
                    }
                    if !added.is_empty() {
                        out.added = true;
                        out.notes.push(format!(
                            "{name} fetched into the cache ({}): {}",
                            described(&w.specifiers),
                            added.join(", ")
                        ));
                    }
                    if !failed.is_empty() {
                        out.notes.push(format!(
                            "{name}: {} release(s) could not be fetched: {}",
                            failed.len(),
                            failed.join("; ")
                        ));
                        if added.is_empty() {
                            remember_failure(&marker, &failed.join("; "));
                            out.failed.push((name.clone(), failed.join("; ")));
                        }
                    }
                }
                Err(reason) => {
                    if terminal {
                        eprintln!("failed");
                    }
                    out.notes.push(format!(
                        "{name} could not be fetched, so its uses are not checked: {reason}"
                    ));
                    remember_failure(&marker, &reason);
                    out.failed.push((name.clone(), reason));
                }
            }
        }
        out
    }
}

fn described(specifiers: &[String]) -> String {
    if specifiers.is_empty() {
        "not declared: the newest release".to_string()
    } else {
        format!("`{}`", specifiers.join(", "))
    }
}

/// (releases added, failures) for one package; `Err` when nothing could be fetched.
fn fetch_one(
    cache: &Cache,
    client: &Client,
    w: &Wanted,
) -> Result<(Vec<String>, Vec<String>), String> {
    let specs: Vec<VersionSpecifiers> = w
        .specifiers
        .iter()
        .filter_map(|s| parse_specifiers(s).ok())
        .collect();
    let releases = client
        .list_releases(&w.distribution)
        .map_err(|e| e.to_string())?;
    let chosen = choose_releases(&releases, &specs);
    if chosen.is_empty() {
        return Err(format!(
            "no final release on the package index matches {}",
            described(&w.specifiers)
        ));
    }
    let fetched = fetch_chosen(
        cache,
        client,
        &w.distribution,
        &chosen,
        &Fetching {
            refresh: false,
            download_to: None,
            chatty: false,
        },
    )
    .map_err(|f| f.message)?;
    Ok((fetched.added, fetched.failed))
}

/// The releases to fetch: final, not yanked, admitted by every specifier (by any, when they
/// contradict each other); the newest patch of each minor series, at most `MAX_SERIES` series
/// (the oldest and the newest); the newest release alone when no declaration has a version
/// specifier.
pub fn choose_releases<'a>(
    releases: &'a [Release],
    specs: &[VersionSpecifiers],
) -> Vec<(Version, &'a Release)> {
    let finals: Vec<(Version, &Release)> = releases
        .iter()
        .filter(|r| !r.yanked() && !r.files.is_empty())
        .filter_map(|r| Some((parse_version(&r.version).ok()?, r)))
        .filter(|(v, _)| !v.any_prerelease())
        .collect();
    let all: Vec<(Version, &Release)> = finals
        .iter()
        .filter(|(v, _)| specs.iter().all(|s| admits(s, v)))
        .cloned()
        .collect();
    let admitted = if all.is_empty() {
        finals
            .into_iter()
            .filter(|(v, _)| specs.iter().any(|s| admits(s, v)))
            .collect()
    } else {
        all
    };
    // Newest of each series (major, minor).
    let mut series: BTreeMap<(u64, u64), (Version, &Release)> = BTreeMap::new();
    for (v, r) in admitted {
        let key = {
            let rel = v.release();
            (
                rel.first().copied().unwrap_or(0),
                rel.get(1).copied().unwrap_or(0),
            )
        };
        match series.get(&key) {
            Some((old, _)) if *old >= v => {}
            _ => {
                series.insert(key, (v, r));
            }
        }
    }
    let mut out: Vec<(Version, &Release)> = series.into_values().collect();
    // `pytest` declared with no version (in every place it is declared) is no bound: what pip
    // installs today, not the oldest release ever published (pytest 2.0.3 of 2011).
    if specs.iter().all(|s| s.is_empty()) {
        return out.pop().into_iter().collect();
    }
    if out.len() > MAX_SERIES {
        let newest = out.split_off(out.len() - (MAX_SERIES - 1));
        out.truncate(1);
        out.extend(newest);
    }
    out
}

/// The reason of a failure recorded less than `RETRY_AFTER` ago.
fn recent_failure(marker: &Path) -> Option<String> {
    let meta = std::fs::metadata(marker).ok()?;
    let age = SystemTime::now()
        .duration_since(meta.modified().ok()?)
        .unwrap_or_default();
    if age > RETRY_AFTER {
        return None;
    }
    let text = std::fs::read_to_string(marker).unwrap_or_default();
    Some(text.chars().take(300).collect())
}

fn remember_failure(marker: &Path, reason: &str) {
    if let Some(parent) = marker.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let _ = std::fs::write(marker, reason);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn release(v: &str) -> Release {
        Release {
            version: v.to_string(),
            files: vec![apicompat_fetch::ReleaseFile {
                filename: format!("p-{v}-py3-none-any.whl"),
                url: String::new(),
                size: None,
                sha256: None,
                packagetype: "bdist_wheel".to_string(),
                requires_python: None,
                yanked: false,
                upload_time: None,
            }],
        }
    }

    fn pick(versions: &[&str], specs: &[&str]) -> Vec<String> {
        let releases: Vec<Release> = versions.iter().map(|v| release(v)).collect();
        let specs: Vec<VersionSpecifiers> =
            specs.iter().map(|s| parse_specifiers(s).unwrap()).collect();
        choose_releases(&releases, &specs)
            .into_iter()
            .map(|(v, _)| v.to_string())
            .collect()
    }

    #[test]
    fn packages_not_fetched_say_their_requirements_are_not_applied() {
        let wanted = [
            // Declared alike in two files (study 54, M-2): named once.
            Wanted {
                distribution: "vllm".into(),
                specifiers: vec!["==0.6.3".into(), "==0.6.3".into()],
                requirements_known: false,
            },
            Wanted {
                distribution: "wandb".into(),
                specifiers: vec![String::new()],
                requirements_known: false,
            },
            // In the table of requirements: applied without a fetch.
            Wanted {
                distribution: "scipy".into(),
                specifiers: vec!["==1.7.3".into()],
                requirements_known: true,
            },
        ];
        let out = OnDemand {
            cache_dir: None,
            offline: false,
        }
        .fetch(&wanted);
        assert_eq!(
            out.notes,
            ["not fetched (no cache directory: --no-cache), so their uses are not checked: vllm, wandb, scipy; nor are the requirements of `vllm==0.6.3` on other packages applied, so releases they rule out may be checked"]
        );
        assert!(!out.added);
    }

    #[test]
    fn newest_patch_per_series_within_the_specifier() {
        let all = [
            "0.9.0", "1.0.0", "1.0.1", "1.1.0", "1.1.2", "1.2.0rc1", "1.2.0", "2.0.0",
        ];
        assert_eq!(pick(&all, &[">=1.0,<2"]), ["1.0.1", "1.1.2", "1.2.0"]);
        assert_eq!(pick(&all, &["==1.0.0"]), ["1.0.0"]);
        assert_eq!(pick(&all, &[]), ["2.0.0"]);
        // Declared without a version, in two places: still no bound.
        assert_eq!(pick(&all, &["", ""]), ["2.0.0"]);
        assert!(pick(&all, &[">=3"]).is_empty());
    }

    #[test]
    fn at_most_max_series_oldest_and_newest() {
        let all: Vec<String> = (0..10).map(|m| format!("1.{m}.0")).collect();
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let got = pick(&refs, &[">=1.0"]);
        assert_eq!(got.len(), MAX_SERIES);
        assert_eq!(got[0], "1.0.0");
        assert_eq!(got[MAX_SERIES - 1], "1.9.0");
        assert_eq!(got[1], "1.5.0");
    }
}
