//! Tests on the real index (PyPI, or `APICOMPAT_INDEX_URL`). About 12 MB downloaded in all.
//! Set `APICOMPAT_OFFLINE=1` to skip them.

use apicompat_fetch::{choose_file, list_releases, Client, FetchOptions, Release};

fn offline() -> bool {
    std::env::var_os("APICOMPAT_OFFLINE").is_some_and(|v| !v.is_empty() && v != "0")
}

fn quiet() -> FetchOptions {
    FetchOptions {
        progress: false,
        ..FetchOptions::default()
    }
}

fn release<'a>(releases: &'a [Release], version: &str) -> &'a Release {
    releases
        .iter()
        .find(|r| r.version == version)
        .unwrap_or_else(|| panic!("release {version} listed"))
}

#[test]
fn lists_torch_releases() {
    if offline() {
        return;
    }
    let releases = list_releases("Torch").expect("torch releases");
    for version in ["2.5.0", "1.13.0"] {
        let r = release(&releases, version);
        assert!(!r.files.is_empty());
        for f in &r.files {
            assert!(
                f.url.starts_with("https://") || f.url.starts_with("http://"),
                "{}",
                f.url
            );
            assert!(!f.url.contains("/../"), "{}", f.url);
            assert!(f.size.is_some_and(|s| s > 0));
            assert_eq!(f.sha256.as_ref().map(String::len), Some(64));
        }
        let chosen = choose_file(r).expect("a wheel");
        assert!(chosen.is_wheel(), "{}", chosen.filename);
        // The smallest wheel for the oldest CPython the release supports (`cp39` for 2.5.0).
        let python = |name: &str| name.split('-').nth(2).unwrap_or("").to_string();
        let minor = |tag: &str| {
            tag.trim_start_matches("cp3")
                .parse::<u32>()
                .unwrap_or(u32::MAX)
        };
        let oldest = r
            .files
            .iter()
            .filter(|f| f.is_wheel())
            .map(|f| minor(&python(&f.filename)))
            .min();
        let smallest_wheel = r
            .files
            .iter()
            .filter(|f| f.is_wheel() && Some(minor(&python(&f.filename))) == oldest)
            .filter_map(|f| f.size)
            .min();
        assert_eq!(chosen.size, smallest_wheel, "{}", chosen.filename);
    }
}

#[test]
fn fetches_colossalai_sdist() {
    if offline() {
        return;
    }
    let releases = list_releases("colossalai").expect("colossalai releases");
    let r = release(&releases, "0.4.0");
    let file = choose_file(r).expect("a file");
    assert!(file.filename.ends_with(".tar.gz"), "{}", file.filename);
    let (tree, stats) = Client::new(quiet()).fetch_release(file).expect("fetch");
    assert!(!stats.ranged);
    assert_eq!(stats.bytes, file.size.unwrap_or(0));
    let md = &tree.metadata;
    assert_eq!(md.name.as_deref(), Some("colossalai"));
    assert_eq!(md.version.as_deref(), Some("0.4.0"));
    assert_eq!(md.requires_python.as_deref(), Some(">=3.6"));
    // PKG-INFO carries no Requires-Dist: the requirements come from the egg-info.
    assert_eq!(
        md.requires_dist_source.as_deref(),
        Some("colossalai.egg-info/requires.txt")
    );
    assert!(
        md.requires_dist.iter().any(|r| r == "torch<2.3.0,>=2.1.0"),
        "{:?}",
        md.requires_dist
    );
    assert_eq!(tree.top_level, vec!["colossalai", "extensions"]);
    assert!(tree.file("colossalai/__init__.py").is_some());
    assert!(tree.file("colossalai/booster/booster.py").is_some());
    assert!(tree.files.iter().all(|f| !f.path.starts_with("tests/")));
    assert!(tree.files.len() > 700, "{}", tree.files.len());
    assert!(tree.problems.is_empty(), "{:?}", tree.problems);
}

#[test]
fn range_fetches_torch_wheel() {
    if offline() {
        return;
    }
    let releases = list_releases("torch").expect("torch releases");
    let r = release(&releases, "2.5.0");
    let file = choose_file(r).expect("a wheel");
    let size = file.size.unwrap_or(0);
    assert!(size > 20 << 20, "{} is {size} bytes", file.filename);
    let (tree, stats) = Client::new(quiet()).fetch_release(file).expect("fetch");
    eprintln!(
        "torch 2.5.0 {}: {} bytes on the index; {} requests, {} bytes read, {:?}; {} files",
        file.filename,
        size,
        stats.requests,
        stats.bytes,
        stats.elapsed,
        tree.files.len()
    );
    assert!(stats.ranged);
    assert!(stats.requests <= 12, "{stats:?}");
    assert!(stats.bytes < size / 3, "{stats:?}");
    let checkpoint = tree
        .file("torch/utils/checkpoint.py")
        .expect("checkpoint.py");
    assert!(checkpoint.data.windows(14).any(|w| w == b"def checkpoint"));
    let c = tree.file("torch/_C.so").expect("torch/_C recorded");
    assert!(c.data.is_empty());
    assert!(tree.file("torch/_C/__init__.pyi").is_some());
    assert_eq!(tree.metadata.name.as_deref(), Some("torch"));
    assert_eq!(tree.metadata.version.as_deref(), Some("2.5.0"));
    assert!(tree
        .metadata
        .requires_dist
        .iter()
        .any(|r| r.starts_with("sympy")));
    assert!(
        tree.top_level.iter().any(|t| t == "torch"),
        "{:?}",
        tree.top_level
    );
    assert!(tree.files.len() > 1500, "{}", tree.files.len());
    assert!(tree.problems.is_empty(), "{:?}", tree.problems);
}
