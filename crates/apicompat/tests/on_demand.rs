//! `check` and `range` fetch on demand (issue 13): an imported package that is not indexed and
//! whose distribution the project declares is fetched into the cache, only the releases its
//! requirement admits, once; offline (`--offline`, `APICOMPAT_OFFLINE`) or without a cache
//! nothing touches the network and a note names what was not checked. The first tests use a
//! loopback package index; `real_package_index` fetches `six` from PyPI (skipped, saying so,
//! under `APICOMPAT_OFFLINE`).

#[path = "../../apicompat_fetch/tests/common/server.rs"]
mod server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::Ordering;

use apicompat_archive::zipwrite::small_wheel;
use server::{serve, Behavior, Server};

const WHEEL: &str = "pkg-1.0-py3-none-any.whl";

fn temp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("on-demand-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A project that declares `requirement` and imports `pkg.mod.f` (which the small wheel has)
/// and `pkg.mod.gone` (which it lacks).
fn project(dir: &Path, requirement: &str) -> PathBuf {
    let p = dir.join("project");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("requirements.txt"), format!("{requirement}\n")).unwrap();
    std::fs::write(p.join("main.py"), "from pkg.mod import f, gone\n").unwrap();
    p
}

fn run(cmd: &[&str], project: &Path, cache: &Path, url: &str, offline: bool) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_apicompat"));
    c.args(cmd)
        .current_dir(project)
        .env("APICOMPAT_CACHE_DIR", cache)
        .env("APICOMPAT_INDEX_URL", url)
        .env("NO_COLOR", "1")
        .env_remove("VIRTUAL_ENV")
        .env_remove("APICOMPAT_OFFLINE");
    if offline {
        c.env("APICOMPAT_OFFLINE", "1");
    }
    c.output().expect("run apicompat")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn index_server() -> Server {
    let wheel = small_wheel();
    let sha = apicompat_fetch::sha256_hex(&wheel);
    let doc = format!(
        r#"{{"info": {{"name": "pkg"}}, "releases": {{"1.0": [{{"filename": "{WHEEL}", "url": "/files/{WHEEL}", "size": {}, "digests": {{"sha256": "{sha}"}}, "packagetype": "bdist_wheel", "yanked": false}}]}}}}"#,
        wheel.len()
    );
    serve(
        vec![
            ("/pypi/pkg/json".to_string(), doc.into_bytes()),
            (format!("/files/{WHEEL}"), wheel),
        ],
        Behavior::Normal,
    )
}

#[test]
fn offline_never_touches_the_network_and_names_what_was_not_checked() {
    let dir = temp("offline");
    let cache = dir.join("cache");
    let p = project(&dir, "pkg>=1.0");
    let server = index_server();
    for (args, env_offline) in [
        (vec!["check"], true),
        (vec!["--offline", "check"], false),
        (vec!["range"], true),
    ] {
        let o = run(&args, &p, &cache, &server.base, env_offline);
        let t = text(&o);
        assert!(
            t.contains("not fetched, so their uses are not checked: pkg"),
            "{args:?}: {t}"
        );
        assert!(!t.contains("AC001"), "{args:?}: {t}");
    }
    assert_eq!(server.hits.load(Ordering::SeqCst), 0);
    assert!(!cache.join("surfaces").exists());
    // Without a cache there is nowhere to put it: a note too, no request.
    let o = run(&["--no-cache", "check"], &p, &cache, &server.base, false);
    assert!(text(&o).contains("no cache directory"), "{}", text(&o));
    assert_eq!(server.hits.load(Ordering::SeqCst), 0);
}

#[test]
fn a_declared_package_is_fetched_once_and_checked() {
    let dir = temp("fetch");
    let cache = dir.join("cache");
    let p = project(&dir, "pkg>=1.0");
    let server = index_server();
    let o = run(&["check"], &p, &cache, &server.base, false);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("pkg fetched into the cache (`>=1.0`): 1.0"),
        "{t}"
    );
    assert!(t.contains("`pkg.mod.gone` is not in pkg 1.0"), "{t}");
    assert!(!t.contains("`pkg.mod.f`"), "{t}");
    let hits = server.hits.load(Ordering::SeqCst);
    assert!(hits > 0);
    // In the cache now: the next run (and `range`) asks nothing of the network.
    let o = run(&["check"], &p, &cache, &server.base, false);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(!text(&o).contains("fetched"), "{}", text(&o));
    let o = run(&["range"], &p, &cache, &server.base, false);
    assert!(text(&o).contains("pkg.mod.gone"), "{}", text(&o));
    assert_eq!(server.hits.load(Ordering::SeqCst), hits);
}

#[test]
fn a_failed_fetch_is_a_note_and_is_not_retried_at_once() {
    let dir = temp("failed");
    let cache = dir.join("cache");
    // The requirement admits no release the index has.
    let p = project(&dir, "pkg>=2.0");
    let server = index_server();
    let o = run(&["check"], &p, &cache, &server.base, false);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("pkg could not be fetched, so its uses are not checked: no final release"),
        "{t}"
    );
    // A declared dependency that could not be fetched is a warning (AC004) on its first
    // import, not only a note.
    assert!(
        t.contains("warning[AC004]: `pkg` is not in the index and the project's `pkg` could not be fetched, so its uses are not checked: no final release"),
        "{t}"
    );
    assert!(t.contains("--> main.py:1:"), "{t}");
    assert!(t.contains("1 warning"), "{t}");
    let hits = server.hits.load(Ordering::SeqCst);
    let o = run(&["check"], &p, &cache, &server.base, false);
    let t = text(&o);
    assert!(t.contains("failed less than a day ago"), "{t}");
    assert!(
        t.contains("warning[AC004]") && t.contains("fetching it failed less than a day ago"),
        "{t}"
    );
    assert_eq!(server.hits.load(Ordering::SeqCst), hits);
    // `--ignore AC004` or a `noqa` on the import silences the warning (the note stays).
    let o = run(
        &["check", "--ignore", "AC004"],
        &p,
        &cache,
        &server.base,
        false,
    );
    assert!(!text(&o).contains("warning[AC004]"), "{}", text(&o));
    std::fs::write(
        p.join("main.py"),
        "from pkg.mod import f, gone  # noqa: AC004\n",
    )
    .unwrap();
    let o = run(&["check"], &p, &cache, &server.base, false);
    let t = text(&o);
    assert!(!t.contains("warning[AC004]"), "{t}");
    assert!(t.contains("failed less than a day ago"), "{t}");
}

#[test]
fn a_target_the_index_lacks_is_fetched_before_the_run() {
    let dir = temp("target");
    let cache = dir.join("cache");
    let p = project(&dir, "");
    let server = index_server();
    let o = run(
        &["check", "--target", "pkg==1.0"],
        &p,
        &cache,
        &server.base,
        false,
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("`pkg.mod.gone` is not in pkg 1.0"), "{t}");
}

#[test]
fn real_package_index() {
    if std::env::var_os("APICOMPAT_OFFLINE").is_some_and(|v| !v.is_empty() && v != "0") {
        eprintln!("APICOMPAT_OFFLINE is set: skipped (it fetches six from PyPI)");
        return;
    }
    // six 1.12.0 added `ensure_str` (its CHANGES: "Pull request #204: Add ensure_binary,
    // ensure_text, and ensure_str"); `six>=1.11,<1.13` fetches 1.11.0 and 1.12.0.
    let dir = temp("pypi");
    let cache = dir.join("cache");
    let p = dir.join("project");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("requirements.txt"), "six>=1.11,<1.13\n").unwrap();
    std::fs::write(p.join("main.py"), "from six import ensure_str, PY3\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_apicompat"))
        .args(["check"])
        .current_dir(&p)
        .env("APICOMPAT_CACHE_DIR", &cache)
        .env("NO_COLOR", "1")
        .env_remove("VIRTUAL_ENV")
        .env_remove("APICOMPAT_INDEX_URL")
        .output()
        .expect("run apicompat");
    let t = text(&o);
    assert!(t.contains("six fetched into the cache"), "{t}");
    assert!(t.contains("1.11.0, 1.12.0"), "{t}");
    assert!(
        t.contains("`six.ensure_str` is not in six 1.11.0") && t.contains("it exists from 1.12.0"),
        "{t}"
    );
    assert!(!t.contains("`six.PY3`"), "{t}");
}
