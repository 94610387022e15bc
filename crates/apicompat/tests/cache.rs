//! The cache end to end (issue 9): it never hides the embedded index, refuses entries that
//! would erase a release, moves corrupt files aside, follows what is really on disk, survives
//! concurrent writers, and writes nowhere else. Only loopback servers are used.

#[path = "../../apicompat_fetch/tests/common/server.rs"]
mod server;

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::Scratch;

use apicompat_archive::zipwrite::small_wheel;
use server::{serve, Behavior, Server};

const WHEEL: &str = "pkg-1.0-py3-none-any.whl";

fn run(args: &[&str], cache: &Path, index_url: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_apicompat"));
    cmd.args(args)
        .env("APICOMPAT_CACHE_DIR", cache)
        .env("NO_COLOR", "1");
    if let Some(url) = index_url {
        cmd.env("APICOMPAT_INDEX_URL", url);
    }
    cmd.output().expect("run apicompat")
}

fn temp(name: &str) -> Scratch {
    Scratch::new("apicompat-cachecli", name)
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn present_in(cache: &Path, symbol: &str) -> Vec<String> {
    let o = run(&["query", symbol, "--output-format", "json"], cache, None);
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap_or_default();
    v["present_in"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// A project whose only line breaks on torch 2.3.0 (`torch.distributed.pipelining` is 2.4+).
fn project(dir: &Path) -> PathBuf {
    let p = dir.join("proj");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("a.py"), "import torch.distributed.pipelining\n").unwrap();
    p
}

#[test]
fn empty_or_tiny_inputs_are_refused_and_never_hide_the_embedded_index() {
    let dir = temp("refuse");
    let cache = dir.join("cache");
    // A wheel without a single Python file, named as a torch release.
    let whl = dir.join("torch-2.5.0-py3-none-any.whl");
    let mut z = apicompat_archive::zipwrite::ZipWriter::new();
    z.add("README.txt", b"hello", false);
    std::fs::write(&whl, z.finish()).unwrap();
    let o = run(
        &[
            "index",
            "build",
            whl.to_str().unwrap(),
            "--package",
            "torch",
        ],
        &cache,
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("no Python module found"), "{}", err(&o));
    assert!(!cache.join("index/torch.apix").exists());
    // A real package tree, far smaller than the embedded torch 2.5.0.
    let src = dir.join("src/torch");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("__init__.py"), "def compile(): ...\n").unwrap();
    let o = run(
        &[
            "index",
            "build",
            src.to_str().unwrap(),
            "--package",
            "torch",
            "--version",
            "2.5.0",
        ],
        &cache,
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("refusing to replace"), "{}", err(&o));
    assert!(!cache.join("index/torch.apix").exists());
    assert!(present_in(&cache, "torch.distributed.pipelining").contains(&"2.5.0".to_string()));

    // Even a cached index that has such a release (written by an older version) does not
    // hide the embedded one; its new releases still count.
    let c = apicompat_index::cache::Cache::new(&cache);
    let tiny = |version: &str| {
        let tree = apicompat_archive::read_path(&dir.join("src"), Some("torch")).unwrap();
        apicompat_extract::extract(&tree, "torch", version)
    };
    c.write_surface(&tiny("2.5.0")).unwrap();
    c.write_surface(&tiny("99.0")).unwrap();
    c.rebuild_index("torch").unwrap();
    let have = present_in(&cache, "torch.distributed.pipelining");
    assert!(have.contains(&"2.5.0".to_string()), "{have:?}");
    assert!(!have.contains(&"99.0".to_string()), "{have:?}");
    assert!(present_in(&cache, "torch.compile").contains(&"99.0".to_string()));
    let o = run(
        &[
            "check",
            project(&dir).to_str().unwrap(),
            "--target",
            "torch==2.5.0",
        ],
        &cache,
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
}

/// `check` of the test project against torch 2.3.0 with a cached `torch.apix` holding
/// `bytes`: the output, after asserting that the embedded index still reported the break, and
/// the scratch directory (the cache is its `cache`).
fn check_with_cached_torch(name: &str, bytes: &[u8]) -> (Output, Scratch) {
    let dir = temp(name);
    let cache = dir.join("cache");
    std::fs::create_dir_all(cache.join("index")).unwrap();
    std::fs::write(cache.join("index/torch.apix"), bytes).unwrap();
    let o = run(
        &[
            "check",
            project(&dir).to_str().unwrap(),
            "--target",
            "torch==2.3.0",
        ],
        &cache,
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}{}", out(&o), err(&o));
    assert!(out(&o).contains("AC001"), "{}", out(&o));
    (o, dir)
}

#[test]
fn a_cached_index_of_a_newer_format_is_left_in_place() {
    // A well-formed file (checksum right) of a format this build does not know.
    let mut body = b"APICIDX".to_vec();
    body.push(apicompat_index::format::FORMAT + 1);
    body.extend(crc32fast::hash(&body).to_le_bytes());
    let (o, dir) = check_with_cached_torch("newer", &lz4_flex::compress_prepend_size(&body));
    let cache = dir.join("cache");
    assert!(
        err(&o).contains("newer apicompat") && err(&o).contains("left in place"),
        "{}",
        err(&o)
    );
    assert_eq!(names(&cache.join("index")), ["torch.apix"]);
}

#[test]
fn a_corrupt_cached_index_is_moved_aside_and_breaks_are_still_reported() {
    let (o, dir) = check_with_cached_torch("corrupt", b"garbage");
    let cache = dir.join("cache");
    assert!(
        err(&o).contains("torch.apix") && err(&o).contains("moved it to"),
        "{}",
        err(&o)
    );
    let left = names(&cache.join("index"));
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].starts_with("torch.apix.corrupt-"), "{left:?}");
    // Reported once: the next run finds nothing to complain about.
    let o = run(&["query", "torch.compile"], &cache, None);
    assert!(
        o.status.success() && !err(&o).contains("warning"),
        "{}",
        err(&o)
    );
}

fn index_doc(filename: &str, wheel: &[u8]) -> Vec<u8> {
    let sha = apicompat_fetch::sha256_hex(wheel);
    format!(
        r#"{{"info": {{"name": "pkg"}}, "releases": {{"1.0": [{{"filename": "{filename}", "url": "/files/{WHEEL}", "size": {}, "digests": {{"sha256": "{sha}"}}, "packagetype": "bdist_wheel", "yanked": false}}]}}}}"#,
        wheel.len()
    )
    .into_bytes()
}

fn index_server(filename: &str) -> (Server, Vec<u8>) {
    let wheel = small_wheel();
    let server = serve(
        vec![
            ("/pypi/pkg/json".to_string(), index_doc(filename, &wheel)),
            (format!("/files/{WHEEL}"), wheel.clone()),
        ],
        Behavior::Normal,
    );
    (server, wheel)
}

#[test]
fn fetch_indexes_again_what_the_index_file_lacks() {
    let dir = temp("reindex");
    let cache = dir.join("cache");
    let (server, _) = index_server(WHEEL);
    let url = Some(server.base.as_str());
    let o = run(&["index", "fetch", "pkg==1.0"], &cache, url);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(present_in(&cache, "pkg.mod.f"), ["1.0"]);
    // The index file deleted (as a corrupt-file message advises, or a run killed before it
    // was written): the surface is still there, and the next fetch must index it again.
    std::fs::remove_file(cache.join("index/pkg.apix")).unwrap();
    let o = run(&["index", "fetch", "pkg==1.0"], &cache, url);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("missing from the index"), "{}", err(&o));
    assert_eq!(present_in(&cache, "pkg.mod.f"), ["1.0"]);
    let o = run(&["index", "fetch", "pkg==1.0"], &cache, url);
    assert!(err(&o).contains("already cached"), "{}", err(&o));
}

#[test]
fn download_to_writes_only_inside_its_directory_and_never_overwrites() {
    let dir = temp("download");
    let cache = dir.join("cache");
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join(WHEEL);
    std::fs::write(&victim, b"precious").unwrap();
    let (server, wheel) = index_server(&format!("../outside/{WHEEL}"));
    let url = Some(server.base.as_str());
    let keep = dir.join("keep");
    let o = run(
        &[
            "index",
            "fetch",
            "pkg==1.0",
            "--download-to",
            keep.to_str().unwrap(),
        ],
        &cache,
        url,
    );
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert_eq!(std::fs::read(keep.join(WHEEL)).unwrap(), wheel);
    assert_eq!(names(&keep), [WHEEL]);

    // A file of the same name and size that is not the listed file: left alone, refused.
    let (server, wheel) = index_server(WHEEL);
    let url = Some(server.base.as_str());
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let mut wrong = wheel.clone();
    let last = wrong.len() - 1;
    wrong[last] ^= 0xff;
    std::fs::write(other.join(WHEEL), &wrong).unwrap();
    let args = [
        "index",
        "fetch",
        "pkg==1.0",
        "--refresh",
        "--download-to",
        other.to_str().unwrap(),
    ];
    let o = run(&args, &cache, url);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(
        err(&o).contains("not overwriting") && err(&o).contains("sha256"),
        "{}",
        err(&o)
    );
    assert_eq!(std::fs::read(other.join(WHEEL)).unwrap(), wrong);
    // The right file is reused without downloading it again.
    std::fs::write(other.join(WHEEL), &wheel).unwrap();
    let before = server.log.lock().unwrap().len();
    let o = run(&args, &cache, url);
    assert!(o.status.success(), "{}", err(&o));
    let log = server.log.lock().unwrap()[before..].join("\n");
    assert!(!log.contains("/files/"), "{log}");
}

#[test]
fn package_names_that_are_paths_are_refused() {
    let dir = temp("names");
    let cache = dir.join("cache");
    let src = dir.join("src/mypkg");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("__init__.py"), "x = 1\n").unwrap();
    let abs = dir.join("abs").to_string_lossy().into_owned();
    for bad in [abs.as_str(), "../..", "../x", "a/b"] {
        let o = run(
            &[
                "index",
                "build",
                src.to_str().unwrap(),
                "--package",
                bad,
                "--version",
                "1.0",
            ],
            &cache,
            None,
        );
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", err(&o));
        assert!(err(&o).contains("is not a package name"), "{}", err(&o));
        let o = run(&["query", "x", "--package", bad], &cache, None);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", err(&o));
    }
    assert_eq!(names(&dir), ["src"]);
    let o = run(
        &["index", "fetch", "../x"],
        &cache,
        Some("http://127.0.0.1:9"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
}

/// A build waits for the cache lock and, once it has it, indexes every surface on disk,
/// including one another run stored while it waited (without the lock, the last index written
/// lacked releases added concurrently: 4 of 13 trials lost some).
#[test]
fn a_build_waits_for_the_lock_and_merges_what_others_stored() {
    use std::time::{Duration, Instant};
    let dir = temp("lock");
    let cache_dir = dir.join("cache");
    let src = dir.join("src/mypkg");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("__init__.py"), "def f1(a, b=1): ...\n").unwrap();
    let cache = apicompat_index::cache::Cache::new(&cache_dir);
    let lock = cache.lock().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_apicompat"))
        .args([
            "index",
            "build",
            src.to_str().unwrap(),
            "--package",
            "mypkg",
        ])
        .args(["--version", "1.1", "-q"])
        .env("APICOMPAT_CACHE_DIR", &cache_dir)
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !cache.has_surface("mypkg", "1.1") && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the build finished without waiting for the cache lock"
    );
    // Another run stores its release meanwhile.
    let tree = apicompat_archive::read_path(&dir.join("src"), Some("mypkg")).unwrap();
    cache
        .write_surface(&apicompat_extract::extract(&tree, "mypkg", "1.0"))
        .unwrap();
    drop(lock);
    assert!(child.wait().unwrap().success());
    assert_eq!(present_in(&cache_dir, "mypkg.f1"), ["1.0", "1.1"]);
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let dir = temp("pipe");
    for args in [
        &["index", "show", "torch==2.5.0"][..],
        &["index", "list"],
        &["query", "torch.compile"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_apicompat"))
            .args(args)
            .env("APICOMPAT_CACHE_DIR", &*dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away before anything is written
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", err(&o));
        assert!(!err(&o).contains("panicked"), "{args:?}: {}", err(&o));
    }
}

#[test]
fn a_package_declared_without_a_version_is_checked_against_its_newest_cached_release() {
    let dir = temp("unbounded");
    let cache_dir = dir.join("cache");
    let cache = apicompat_index::cache::Cache::new(&cache_dir);
    // `mypkg.old_api` exists in 1.0 only (an old release an earlier run left in the cache),
    // `mypkg.new_api` from 2.0.
    for (version, body) in [
        ("1.0", "def old_api(): ...\n"),
        ("2.0", "def new_api(): ...\n"),
    ] {
        let src = dir.join(format!("src-{version}/mypkg"));
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("__init__.py"), body).unwrap();
        let tree = apicompat_archive::read_path(src.parent().unwrap(), Some("mypkg")).unwrap();
        cache
            .write_surface(&apicompat_extract::extract(&tree, "mypkg", version))
            .unwrap();
    }
    cache.rebuild_index("mypkg").unwrap();
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("requirements.txt"), "mypkg\n").unwrap();
    std::fs::write(
        project.join("train.py"),
        "import mypkg\n\nmypkg.new_api()\n",
    )
    .unwrap();
    let check = |requirements: &str| {
        std::fs::write(project.join("requirements.txt"), requirements).unwrap();
        run(
            &["check", project.to_str().unwrap(), "--offline"],
            &cache_dir,
            None,
        )
    };
    // No version: the newest cached release only, and a note says so.
    let o = check("mypkg\n");
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    assert!(
        format!("{}{}", out(&o), err(&o)).contains("declared without a version"),
        "{}{}",
        out(&o),
        err(&o)
    );
    // A lower bound the project chose: every release it admits.
    let o = check("mypkg>=1.0\n");
    assert_eq!(o.status.code(), Some(1), "{}{}", out(&o), err(&o));
    assert!(out(&o).contains("mypkg.new_api"), "{}", out(&o));
}
