//! Fetch tests against a scripted HTTP server on 127.0.0.1: relative URLs, Range reads,
//! servers ignoring Range, truncated bodies, 5xx retries, sha256 and CRC32 mismatches.

mod common;

use std::time::Duration;

use apicompat_archive::zipwrite::small_wheel;
use apicompat_fetch::{choose_file, Client, FetchError, FetchOptions};
use common::server::{serve, Behavior, Server};

const WHEEL: &str = "pkg-1.0-py3-none-any.whl";

fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An index document listing `WHEEL` with a relative URL, like the measured PyPI answers.
fn index_doc(wheel: &[u8], sha256: &str) -> Vec<u8> {
    format!(
        r#"{{"info": {{"name": "pkg"}}, "releases": {{"1.0": [{{"filename": "{WHEEL}", "url": "../../files/{WHEEL}", "size": {}, "digests": {{"sha256": "{sha256}"}}, "packagetype": "bdist_wheel", "requires_python": ">=3.8", "yanked": false, "upload_time_iso_8601": "2024-01-01T00:00:00Z"}}]}}}}"#,
        wheel.len()
    )
    .into_bytes()
}

fn opts(base: &str, range_threshold: u64) -> FetchOptions {
    FetchOptions {
        progress: false,
        range_threshold,
        backoff: Duration::from_millis(10),
        index_url: Some(base.to_string()),
        ..FetchOptions::default()
    }
}

fn start(wheel: Vec<u8>, listed: &[u8], behavior: Behavior) -> Server {
    let doc = index_doc(listed, &sha256_hex(listed));
    serve(
        vec![
            ("/pypi/pkg/json".to_string(), doc),
            (format!("/files/{WHEEL}"), wheel),
        ],
        behavior,
    )
}

#[test]
fn sha256_helper_is_right() {
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn list_resolves_relative_urls() {
    let wheel = small_wheel();
    let server = start(wheel.clone(), &wheel, Behavior::Normal);
    let client = Client::new(opts(&server.base, 0));
    let releases = client.list_releases("PKG").expect("list");
    assert_eq!(releases.len(), 1);
    let file = &releases[0].files[0];
    assert_eq!(file.url, format!("{}/files/{WHEEL}", server.base));
    assert_eq!(file.size, Some(wheel.len() as u64));
    assert_eq!(file.requires_python.as_deref(), Some(">=3.8"));
}

#[test]
fn ranged_fetch_reads_members() {
    let wheel = small_wheel();
    let server = start(wheel.clone(), &wheel, Behavior::Normal);
    let client = Client::new(opts(&server.base, 0));
    let releases = client.list_releases("pkg").expect("list");
    let file = choose_file(&releases[0]).expect("a file");
    let (tree, stats) = client.fetch_release(file).expect("fetch");
    assert!(stats.ranged, "{stats:?}");
    // The tail covers the whole small file; then one merged member range.
    assert_eq!(stats.requests, 2, "{:?}", server.log.lock().unwrap());
    let paths: Vec<&str> = tree.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        vec![
            "pkg/__init__.py",
            "pkg/_ext.so",
            "pkg/mod.py",
            "pkg/mod.pyi"
        ]
    );
    assert!(tree
        .file("pkg/mod.py")
        .unwrap()
        .data
        .starts_with(b"def f(x):"));
    assert!(tree.file("pkg/_ext.so").unwrap().data.is_empty());
    assert_eq!(tree.metadata.name.as_deref(), Some("pkg"));
    assert_eq!(
        tree.metadata.requires_dist,
        vec!["numpy>=1.20", "torch (>=2.1) ; extra == 'gpu'"]
    );
    assert_eq!(tree.top_level, vec!["pkg"]);
    assert!(tree.problems.is_empty(), "{:?}", tree.problems);
}

#[test]
fn server_ignoring_range_falls_back_to_whole_file() {
    let wheel = small_wheel();
    let server = start(wheel.clone(), &wheel, Behavior::IgnoreRange);
    let client = Client::new(opts(&server.base, 0));
    let releases = client.list_releases("pkg").expect("list");
    let (tree, stats) = client.fetch_release(&releases[0].files[0]).expect("fetch");
    assert!(!stats.ranged);
    assert_eq!(stats.requests, 1);
    assert_eq!(tree.files.len(), 4);
    assert_eq!(tree.metadata.version.as_deref(), Some("1.0"));
}

#[test]
fn whole_download_checks_sha256() {
    let wheel = small_wheel();
    let mut listed = wheel.clone();
    listed[10] ^= 1; // the index describes other bytes of the same size
    let server = start(wheel, &listed, Behavior::Normal);
    let client = Client::new(opts(&server.base, u64::MAX));
    let releases = client.list_releases("pkg").expect("list");
    let err = client.fetch_release(&releases[0].files[0]).unwrap_err();
    assert!(matches!(err, FetchError::Sha256Mismatch { .. }), "{err}");
    assert!(err.to_string().contains(WHEEL), "{err}");
}

#[test]
fn ranged_fetch_checks_crc32() {
    let wheel = small_wheel();
    // Corrupt one byte of the stored `pkg/mod.pyi` member.
    let needle = b"def f(x: int)";
    let pos = wheel
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("stored member");
    let mut bad = wheel.clone();
    bad[pos + 4] = b'g';
    let server = start(bad.clone(), &bad, Behavior::Normal);
    let client = Client::new(opts(&server.base, 0));
    let releases = client.list_releases("pkg").expect("list");
    let err = client.fetch_release(&releases[0].files[0]).unwrap_err();
    assert!(matches!(err, FetchError::Crc { .. }), "{err}");
    assert!(err.to_string().contains("pkg/mod.pyi"), "{err}");
}

#[test]
fn truncated_body_is_an_error_after_retries() {
    let wheel = small_wheel();
    let doc = index_doc(&wheel, &sha256_hex(&wheel));
    let index = serve(vec![("/pypi/pkg/json".to_string(), doc)], Behavior::Normal);
    let files = serve(vec![(format!("/files/{WHEEL}"), wheel)], Behavior::Truncate);
    let client = Client::new(opts(&index.base, u64::MAX));
    let mut releases = client.list_releases("pkg").expect("list");
    let file = &mut releases[0].files[0];
    file.url = format!("{}/files/{WHEEL}", files.base);
    let err = client.fetch_release(file).unwrap_err();
    assert!(
        matches!(
            err,
            FetchError::Truncated { .. } | FetchError::Network { .. }
        ),
        "{err}"
    );
    assert!(err.to_string().contains(&files.base), "{err}");
    assert_eq!(files.hits.load(std::sync::atomic::Ordering::SeqCst), 3);
}

#[test]
fn server_errors_are_retried() {
    let wheel = small_wheel();
    let server = start(wheel.clone(), &wheel, Behavior::FailFirst(2));
    let client = Client::new(opts(&server.base, u64::MAX));
    let releases = client.list_releases("pkg").expect("list after two 500s");
    assert_eq!(releases.len(), 1);
    assert_eq!(server.hits.load(std::sync::atomic::Ordering::SeqCst), 3);

    let server = start(wheel.clone(), &wheel, Behavior::FailFirst(5));
    let client = Client::new(opts(&server.base, u64::MAX));
    let err = client.list_releases("pkg").unwrap_err();
    assert!(matches!(err, FetchError::Http { status: 500, .. }), "{err}");
}

#[test]
fn not_a_zip() {
    let text = b"this is not a wheel, just text long enough to look like something".to_vec();
    for threshold in [0, u64::MAX] {
        let server = start(text.clone(), &text, Behavior::Normal);
        let client = Client::new(opts(&server.base, threshold));
        let releases = client.list_releases("pkg").expect("list");
        let err = client.fetch_release(&releases[0].files[0]).unwrap_err();
        assert!(matches!(err, FetchError::NotZip { .. }), "{err}");
        assert!(err.to_string().contains(WHEEL), "{err}");
    }
}

#[test]
fn unknown_project_and_bad_documents() {
    let server = serve(
        vec![(
            "/pypi/html/json".to_string(),
            b"<html>simple</html>".to_vec(),
        )],
        Behavior::Normal,
    );
    let client = Client::new(opts(&server.base, 0));
    let err = client.list_releases("nothing-here").unwrap_err();
    assert!(matches!(err, FetchError::ProjectNotFound { .. }), "{err}");
    let err = client.list_releases("html").unwrap_err();
    assert!(matches!(err, FetchError::BadIndex { .. }), "{err}");
}

#[test]
fn refused_connection_is_a_clear_error() {
    let client = Client::new(opts("http://127.0.0.1:9", 0));
    let err = client.list_releases("torch").unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, FetchError::Network { .. }), "{msg}");
    assert!(msg.contains("http://127.0.0.1:9/pypi/torch/json"), "{msg}");
    assert!(
        msg.contains("connection refused") || msg.contains("connection failed"),
        "{msg}"
    );
}

#[test]
fn simple_api_fallback_and_unknown_sizes() {
    let wheel = small_wheel();
    let sha = sha256_hex(&wheel);
    // No /pypi/NAME/json here: a PEP 503 page with relative links and no sizes.
    let page = format!(
        "<html><body><a href=\"../../files/{WHEEL}#sha256={sha}\" data-requires-python=\"&gt;=3.8\">{WHEEL}</a><br/>\
         <a href=\"../../files/pkg-0.9.tar.gz\">pkg-0.9.tar.gz</a></body></html>"
    );
    let server = serve(
        vec![
            ("/simple/pkg/".to_string(), page.into_bytes()),
            (format!("/files/{WHEEL}"), wheel.clone()),
        ],
        Behavior::Normal,
    );
    let client = Client::new(opts(&server.base, u64::MAX));
    let releases = client.list_releases("Pkg").expect("simple API");
    let versions: Vec<&str> = releases.iter().map(|r| r.version.as_str()).collect();
    assert_eq!(versions, vec!["0.9", "1.0"]);
    let file = choose_file(&releases[1]).expect("the wheel");
    assert_eq!(file.url, format!("{}/files/{WHEEL}", server.base));
    assert_eq!(file.size, None);
    assert_eq!(file.sha256.as_deref(), Some(sha.as_str()));
    assert_eq!(file.requires_python.as_deref(), Some(">=3.8"));
    // Unknown size: ranged anyway, the tail (`bytes=-N`) tells the size.
    let (tree, stats) = client.fetch_release(file).expect("fetch");
    assert!(stats.ranged, "{stats:?}");
    assert_eq!(tree.files.len(), 4);
    let log = server.log.lock().unwrap().join("\n");
    assert!(log.contains("range=Some(\"bytes=-"), "{log}");

    // The same through a server ignoring ranges: whole file, sha256 from the link checked.
    let server = serve(
        vec![
            (
                "/simple/pkg/".to_string(),
                format!("<a href=\"/f/{WHEEL}#sha256={sha}\">{WHEEL}</a>").into_bytes(),
            ),
            (format!("/f/{WHEEL}"), wheel.clone()),
        ],
        Behavior::IgnoreRange,
    );
    let client = Client::new(opts(&server.base, 0));
    let releases = client.list_releases("pkg").expect("simple API");
    let (tree, stats) = client.fetch_release(&releases[0].files[0]).expect("fetch");
    assert!(!stats.ranged);
    assert_eq!(tree.files.len(), 4);
}

#[test]
fn a_trickling_server_hits_the_time_limit_of_a_request() {
    let wheel = small_wheel();
    let server = start(wheel.clone(), &wheel, Behavior::Trickle);
    let client = Client::new(FetchOptions {
        request_timeout: Duration::from_millis(1500),
        ..opts(&server.base, 0)
    });
    let started = std::time::Instant::now();
    let err = client
        .list_releases("pkg")
        .expect_err("a trickle must not succeed");
    let took = started.elapsed();
    assert!(matches!(err, FetchError::Deadline { .. }), "{err}");
    assert!(
        err.to_string().contains("time limit of one request"),
        "{err}"
    );
    // One request, not retried: well under two time limits.
    assert!(took < Duration::from_millis(2900), "took {took:?}");
    assert!(took >= Duration::from_millis(1400), "took {took:?}");
    assert_eq!(server.hits.load(std::sync::atomic::Ordering::SeqCst), 1);
}
