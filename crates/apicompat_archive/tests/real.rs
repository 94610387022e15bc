//! Real releases from the index (downloaded with `apicompat_fetch`, sha256-checked): the six
//! wheel and four colossalai sdists, about 5 MB in all. `APICOMPAT_OFFLINE=1` skips them.

use std::path::{Path, PathBuf};

use apicompat_archive::{read_path, read_sdist_bytes, read_zip_bytes, zipread, SourceTree};
use apicompat_fetch::{Client, FetchOptions, Release, ReleaseFile};

fn offline() -> bool {
    std::env::var_os("APICOMPAT_OFFLINE").is_some_and(|v| !v.is_empty() && v != "0")
}

fn client() -> Client {
    Client::new(FetchOptions {
        progress: false,
        ..FetchOptions::default()
    })
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir(name: &str) -> TempDir {
    let p = std::env::temp_dir().join(format!("apicompat-real-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    TempDir(p)
}

fn file<'a>(
    releases: &'a [Release],
    version: &str,
    pred: impl Fn(&ReleaseFile) -> bool,
) -> &'a ReleaseFile {
    releases
        .iter()
        .find(|r| r.version == version)
        .and_then(|r| r.files.iter().find(|f| pred(f)))
        .unwrap_or_else(|| panic!("a file of release {version}"))
}

fn paths(tree: &SourceTree) -> Vec<&str> {
    tree.files.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn six_wheel_as_file_and_as_site_packages() {
    if offline() {
        return;
    }
    let client = client();
    let releases = client.list_releases("six").expect("six releases");
    let wheel = file(&releases, "1.16.0", |f| f.is_wheel());
    let (data, _) = client.download(wheel).expect("download six");

    let dir = tempdir("six");
    let path = dir.0.join(&wheel.filename);
    std::fs::write(&path, &data).unwrap();
    let tree = read_path(&path, None).expect("read six wheel");
    assert_eq!(paths(&tree), vec!["six.py"]);
    assert_eq!(tree.top_level, vec!["six"]);
    assert_eq!(tree.metadata.name.as_deref(), Some("six"));
    assert_eq!(tree.metadata.version.as_deref(), Some("1.16.0"));
    assert_eq!(
        tree.metadata.requires_python.as_deref(),
        Some(">=2.7, !=3.0.*, !=3.1.*, !=3.2.*")
    );
    let six = tree.file("six.py").unwrap();
    assert!(six.data.windows(15).any(|w| w == b"def add_metacla"));
    let in_memory = read_zip_bytes(&wheel.filename, &data).unwrap();
    assert_eq!(paths(&in_memory), paths(&tree));

    // Install it by hand into a site-packages directory and read it back through RECORD.
    let site = dir.0.join("site-packages");
    let mut src: &[u8] = &data;
    for entry in zipread::read_directory(&mut src).unwrap() {
        let bytes = zipread::read_entry(&mut src, &entry, 1 << 26).unwrap();
        let target = site.join(&entry.name);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
    std::fs::write(site.join("unrelated.py"), b"x = 1\n").unwrap();
    let installed = read_path(&site, Some("six")).expect("read site-packages");
    assert_eq!(paths(&installed), vec!["six.py"]);
    assert_eq!(installed.file("six.py").unwrap().data, six.data);
    assert_eq!(installed.metadata, tree.metadata);
}

fn unpack(data: &[u8], into: &Path) {
    let gz = flate2::read::GzDecoder::new(data);
    tar::Archive::new(gz).unpack(into).unwrap();
}

#[test]
fn colossalai_sdists_and_their_torch_requirements() {
    if offline() {
        return;
    }
    let client = client();
    let releases = client
        .list_releases("colossalai")
        .expect("colossalai releases");
    let expected = [
        ("0.3.0", "torch>=1.11", false),
        ("0.4.0", "torch<2.3.0,>=2.1.0", true),
        ("0.4.1", "torch<=2.3.0,>=2.1.0", true),
        ("0.5.0", "torch<=2.5.1,>=2.2.0", true),
    ];
    for (version, torch, has_extensions) in expected {
        let sdist = file(&releases, version, |f| f.filename.ends_with(".tar.gz"));
        let (data, _) = client.download(sdist).expect("download");
        let tree = read_sdist_bytes(&sdist.filename, &data).expect("read sdist");
        let md = &tree.metadata;
        assert_eq!(md.name.as_deref(), Some("colossalai"));
        assert_eq!(md.version.as_deref(), Some(version));
        assert_eq!(md.requires_python.as_deref(), Some(">=3.6"));
        assert_eq!(
            md.requires_dist_source.as_deref(),
            Some("colossalai.egg-info/requires.txt"),
            "{version}"
        );
        let torch_reqs: Vec<&String> = md
            .requires_dist
            .iter()
            .filter(|r| r.starts_with("torch"))
            .collect();
        assert_eq!(torch_reqs, vec![torch], "{version}");
        let mut top = vec!["colossalai"];
        if has_extensions {
            top.push("extensions");
        }
        assert_eq!(tree.top_level, top, "{version}");
        assert!(tree.file("colossalai/__init__.py").is_some());
        assert!(tree.files.iter().all(|f| !f.path.starts_with("tests/")
            && !f.path.starts_with("examples/")
            && f.path != "setup.py"));
        assert!(tree.problems.is_empty(), "{version}: {:?}", tree.problems);

        if version == "0.4.0" {
            // The same release from a file and from the unpacked directory.
            let dir = tempdir("colossalai");
            let path = dir.0.join(&sdist.filename);
            std::fs::write(&path, &data).unwrap();
            let from_file = read_path(&path, None).unwrap();
            assert_eq!(paths(&from_file), paths(&tree));
            assert_eq!(from_file.metadata, tree.metadata);
            let unpacked = dir.0.join("unpacked");
            unpack(&data, &unpacked);
            let from_dir = read_path(&unpacked, None).unwrap();
            assert_eq!(paths(&from_dir), paths(&tree));
            assert_eq!(from_dir.metadata, tree.metadata);
            assert_eq!(from_dir.top_level, tree.top_level);
            let booster = "colossalai/booster/booster.py";
            assert_eq!(
                from_dir.file(booster).unwrap().data,
                tree.file(booster).unwrap().data
            );
        }
    }
}
