//! The Pythons a wheels-only release is built for (`ReleaseHeader::wheel_pythons`): recorded by
//! `index fetch` from the file list it chooses from, and filled into index files built from
//! local files by `index wheels`, with the same bytes. A loopback package index; no network.

#[path = "../../apicompat_fetch/tests/common/server.rs"]
mod server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use apicompat_archive::zipwrite::small_wheel;
use apicompat_index::PackageIndex;
use server::{serve, Behavior};

const WHEEL: &str = "pkg-1.0-cp39-cp39-manylinux1_x86_64.whl";
const OTHER: &str = "pkg-1.0-cp310-cp310-win_amd64.whl";

fn temp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("wheels-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str], url: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_apicompat"))
        .args(args)
        .env("APICOMPAT_INDEX_URL", url)
        .env("NO_COLOR", "1")
        .env_remove("APICOMPAT_OFFLINE")
        .output()
        .expect("run apicompat")
}

fn wheel_pythons(path: &Path) -> Vec<String> {
    let index = PackageIndex::from_bytes(&std::fs::read(path).unwrap()).unwrap();
    index.releases()[0].wheel_pythons.clone()
}

#[test]
fn fetch_records_and_index_wheels_fills_the_pythons_of_a_wheels_only_release() {
    let dir = temp("fill");
    let wheel = small_wheel();
    let sha = apicompat_fetch::sha256_hex(&wheel);
    let file = |name: &str| {
        format!(
            r#"{{"filename": "{name}", "url": "/files/{name}", "size": {}, "digests": {{"sha256": "{sha}"}}, "packagetype": "bdist_wheel", "yanked": false}}"#,
            wheel.len()
        )
    };
    let doc = format!(
        r#"{{"info": {{"name": "pkg"}}, "releases": {{"1.0": [{}, {}]}}}}"#,
        file(WHEEL),
        file(OTHER)
    );
    let server = serve(
        vec![
            ("/pypi/pkg/json".to_string(), doc.into_bytes()),
            (format!("/files/{WHEEL}"), wheel.clone()),
        ],
        Behavior::Normal,
    );
    let fetched = dir.join("fetched");
    let o = run(
        &[
            "--cache-dir",
            fetched.to_str().unwrap(),
            "index",
            "fetch",
            "pkg",
        ],
        &server.base,
    );
    assert!(o.status.success(), "{o:?}");
    let fetched_index = fetched.join("index/pkg.apix");
    assert_eq!(wheel_pythons(&fetched_index), ["3.9", "3.10"]);

    // Built from the local file: no file list, no Pythons; `index wheels` fills them in.
    let local = dir.join(WHEEL);
    std::fs::write(&local, &wheel).unwrap();
    let built = dir.join("built");
    let o = run(
        &[
            "--cache-dir",
            built.to_str().unwrap(),
            "index",
            "build",
            local.to_str().unwrap(),
            "--package",
            "pkg",
        ],
        &server.base,
    );
    assert!(o.status.success(), "{o:?}");
    let built_index = built.join("index/pkg.apix");
    assert!(wheel_pythons(&built_index).is_empty());
    let o = run(
        &["index", "wheels", built_index.to_str().unwrap()],
        &server.base,
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        std::fs::read(&built_index).unwrap(),
        std::fs::read(&fetched_index).unwrap(),
        "filled in: the bytes `index fetch` writes"
    );
    // Again: nothing changes.
    let o = run(
        &["index", "wheels", built_index.to_str().unwrap()],
        &server.base,
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("unchanged"),
        "{o:?}"
    );
}
