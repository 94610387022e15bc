//! Real code that no one here wrote, checked for false alarms: the Python sources of torchvision
//! releases (downloaded from PyPI, or `APICOMPAT_INDEX_URL`) checked against exactly the torch
//! release their metadata requires (`Requires-Dist: torch==X`). A torchvision release is built
//! and tested against that torch, so every error `check` reports on it is a false alarm, or a
//! real break in code that torchvision never runs.
//!
//! About 6 MB downloaded (the smallest wheel of each release, ~1.2-1.9 MB, plus the release
//! list); the sources are kept in `target/tmp/torchvision/` so a rerun reads them from disk.
//! `APICOMPAT_OFFLINE=1` skips the test.
//!
//! Findings that remain (see `docs/check-false-alarms.md`):
//! - Releases whose smallest wheel ships `torchvision/prototype/` (0.22.1's cp313t wheel) import
//!   `torch.utils.data.dataloader_experimental.DataLoader2` at the top of
//!   `prototype/datasets/benchmark.py`; that module was removed in torch 2.0, so importing the
//!   file fails for real. Not a false alarm; such releases are not among the pairs below.
//! - Third-party imports (numpy, PIL, scipy, av, ...) are AC004 warnings, not errors.

use std::path::{Path, PathBuf};

use apicompat_check::{check, Options, Report, Severity};
use apicompat_fetch::{choose_file, Client, FetchOptions, Release};
use apicompat_requirements::parse_requirement;

/// (torchvision release, the torch release its metadata pins), across the indexed range.
const PAIRS: &[(&str, &str)] = &[
    ("0.15.2", "2.0.1"),
    ("0.18.1", "2.3.1"),
    ("0.20.1", "2.5.1"),
    ("0.28.0", "2.13.0"),
];

fn offline() -> bool {
    std::env::var_os("APICOMPAT_OFFLINE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The sources of one torchvision release on disk, and its `Requires-Dist` lines.
fn sources(client: &Client, releases: &[Release], version: &str) -> (PathBuf, Vec<String>) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("torchvision")
        .join(version);
    let marker = dir.join("REQUIRES_DIST");
    if let Ok(text) = std::fs::read_to_string(&marker) {
        return (dir, text.lines().map(str::to_string).collect());
    }
    let release = releases
        .iter()
        .find(|r| r.version == version)
        .unwrap_or_else(|| panic!("torchvision {version} is listed"));
    let file = choose_file(release).expect("a file with sources");
    let (tree, _) = client
        .fetch_release(file)
        .unwrap_or_else(|e| panic!("download {}: {e}", file.filename));
    let _ = std::fs::remove_dir_all(&dir);
    for f in &tree.files {
        let py = f.path.ends_with(".py") || f.path.ends_with(".pyi");
        if !py || f.path.split('/').any(|c| c == ".." || c.is_empty()) {
            continue;
        }
        let path = dir.join(&f.path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, &f.data).expect("write source");
    }
    let requires = tree.metadata.requires_dist.clone();
    std::fs::write(&marker, requires.join("\n")).expect("write marker");
    (dir, requires)
}

/// `torch==X` from the metadata: the exact release torchvision was built against.
fn pinned_torch(requires: &[String]) -> Option<String> {
    requires.iter().find_map(|line| {
        let r = parse_requirement(line).ok()?;
        if r.name != "torch" {
            return None;
        }
        let spec = r.specifier.to_string();
        let version = spec.strip_prefix("==")?;
        (!version.contains([',', '*'])).then(|| version.trim().to_string())
    })
}

fn describe(report: &Report, root: &Path) -> Vec<String> {
    report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| {
            format!(
                "{}:{} {} {}: {}",
                f.path.strip_prefix(root).unwrap_or(&f.path).display(),
                f.line,
                f.code,
                f.symbol,
                f.message
            )
        })
        .collect()
}

#[test]
fn torchvision_sources_have_no_errors_against_the_torch_they_pin() {
    if offline() {
        eprintln!("APICOMPAT_OFFLINE is set: skipped");
        return;
    }
    let client = Client::new(FetchOptions {
        progress: false,
        ..FetchOptions::default()
    });
    let cached = PAIRS.iter().all(|(v, _)| {
        Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("torchvision")
            .join(v)
            .join("REQUIRES_DIST")
            .is_file()
    });
    let releases = if cached {
        Vec::new()
    } else {
        client
            .list_releases("torchvision")
            .expect("list torchvision releases")
    };
    let catalog = apicompat::embedded_catalog();
    let mut failures = Vec::new();
    for (version, expected_torch) in PAIRS {
        let (dir, requires) = sources(&client, &releases, version);
        let torch = pinned_torch(&requires)
            .unwrap_or_else(|| panic!("torchvision {version} pins no torch: {requires:?}"));
        assert_eq!(&torch, expected_torch, "torchvision {version}");
        let options = Options {
            paths: vec![dir.clone()],
            project: Some(dir.clone()),
            targets: vec![format!("torch=={torch}")],
            ..Options::default()
        };
        let report = check(&catalog, &options).expect("check runs");
        assert!(
            report.summary.files > 150,
            "torchvision {version}: {} files",
            report.summary.files
        );
        // numpy and python (embedded too) are checked against their newest releases.
        let torch_target = report
            .summary
            .targets
            .iter()
            .find(|t| t.package == "torch")
            .unwrap_or_else(|| panic!("no torch target: {:?}", report.summary));
        assert_eq!(torch_target.releases, std::slice::from_ref(&torch));
        let errors = describe(&report, &dir);
        eprintln!(
            "torchvision {version} against torch {torch}: {} files, {} errors, {} warnings, {} guarded",
            report.summary.files,
            report.summary.errors,
            report.summary.warnings,
            report.summary.guarded
        );
        if !errors.is_empty() {
            failures.push(format!(
                "torchvision {version} against torch=={torch}:\n  {}",
                errors.join("\n  ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
