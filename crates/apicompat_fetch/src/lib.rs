//! Finds release files on the package index and downloads the Python sources of one release.
//!
//! - [`list_releases`]: every release of a project with its files, from `GET
//!   {index}/pypi/{name}/json` (index from `APICOMPAT_INDEX_URL`, default `https://pypi.org`).
//! - [`choose_file`]: the smallest file of a release carrying Python sources.
//! - [`fetch_release`]: downloads it and builds the [`SourceTree`]. Big wheels are read with
//!   HTTP Range requests (end of file, central directory, then only the `.py`/`.pyi` members and
//!   the metadata), each member checked against its CRC32; other files are downloaded whole and
//!   checked against the index's sha256.
//!
//! TLS goes through rustls with the platform verifier (the system store, `SSL_CERT_FILE`).

use std::io::{IsTerminal, Read};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use apicompat_archive::zipread::{self, CentralEntry, EocdResult, ZipError};
use apicompat_archive::{ArchiveError, SourceTree, Wanted};
use sha2::{Digest, Sha256};

mod filename;
mod simple;
mod tags;
mod url;
pub use filename::safe_file_name;
pub use simple::{parse_simple_html, parse_simple_json, version_from_filename};
pub use tags::wheel_pythons;
pub use url::resolve_url;

/// Environment variable naming the index base URL.
pub const INDEX_URL_ENV: &str = "APICOMPAT_INDEX_URL";
/// The default index.
pub const DEFAULT_INDEX_URL: &str = "https://pypi.org";

/// One file of a release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseFile {
    pub filename: String,
    /// Absolute URL.
    pub url: String,
    pub size: Option<u64>,
    /// Lower-case hex digest, when the index gives one.
    pub sha256: Option<String>,
    /// `bdist_wheel`, `sdist`, ...
    pub packagetype: String,
    pub requires_python: Option<String>,
    pub yanked: bool,
    /// ISO 8601 upload time, when given.
    pub upload_time: Option<String>,
}

impl ReleaseFile {
    pub fn is_wheel(&self) -> bool {
        self.filename.ends_with(".whl")
    }

    pub fn is_sdist(&self) -> bool {
        let f = &self.filename;
        self.packagetype == "sdist"
            || f.ends_with(".tar.gz")
            || f.ends_with(".tgz")
            || (f.ends_with(".zip") && self.packagetype != "bdist_dumb")
    }
}

/// One release: a version and its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The version string as the index spells it.
    pub version: String,
    pub files: Vec<ReleaseFile>,
}

impl Release {
    /// A release is yanked when it has files and all of them are.
    pub fn yanked(&self) -> bool {
        !self.files.is_empty() && self.files.iter().all(|f| f.yanked)
    }
}

/// Options of the downloads.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Show a progress bar (only when stderr is a terminal).
    pub progress: bool,
    /// Tries per request (connection errors, timeouts, HTTP 5xx / 429).
    pub tries: u32,
    /// Wheels larger than this are read with HTTP Range requests.
    pub range_threshold: u64,
    /// Ranges closer than this are fetched in one request.
    pub merge_gap: u64,
    /// Largest single merged range.
    pub max_range: u64,
    /// First retry delay; doubled at each retry.
    pub backoff: Duration,
    /// Index base URL; `None` reads `APICOMPAT_INDEX_URL`, default `https://pypi.org`.
    pub index_url: Option<String>,
    /// The longest one HTTP request may take, connection to last body byte: an index that
    /// trickles bytes cannot hang a fetch. Not retried when exceeded.
    pub request_timeout: Duration,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            progress: true,
            tries: 3,
            range_threshold: 20 << 20,
            merge_gap: 1 << 20,
            max_range: 32 << 20,
            backoff: Duration::from_millis(500),
            index_url: None,
            request_timeout: Duration::from_secs(600),
        }
    }
}

impl FetchOptions {
    /// The index base URL without a trailing `/` (a trailing `/simple` is dropped too).
    pub fn index_url(&self) -> String {
        let raw = self
            .index_url
            .clone()
            .or_else(|| {
                std::env::var(INDEX_URL_ENV)
                    .ok()
                    .filter(|s| !s.trim().is_empty())
            })
            .unwrap_or_else(|| DEFAULT_INDEX_URL.to_string());
        let trimmed = raw.trim().trim_end_matches('/');
        trimmed
            .strip_suffix("/simple")
            .unwrap_or(trimmed)
            .to_string()
    }
}

/// What a fetch cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FetchStats {
    /// HTTP requests sent, retries included.
    pub requests: u32,
    /// Body bytes received.
    pub bytes: u64,
    /// Whether the sources were read with Range requests.
    pub ranged: bool,
    /// Wall time.
    pub elapsed: Duration,
}

/// Errors of the index and download functions. Each names the URL.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// DNS failure, refused connection, timeout, TLS failure...
    #[error("{url}: {cause}")]
    Network { url: String, cause: String },
    #[error("{url}: HTTP status {status}")]
    Http { url: String, status: u16 },
    #[error("{url}: no complete answer within {seconds} s, the time limit of one request (the server or the network is too slow)")]
    Deadline { url: String, seconds: f64 },
    #[error("project `{name}` not found on the index ({url}: HTTP 404)")]
    ProjectNotFound { name: String, url: String },
    #[error("{url}: truncated body: expected {expected} bytes, received {received}")]
    Truncated {
        url: String,
        expected: u64,
        received: u64,
    },
    #[error("{url}: sha256 mismatch: the index says {expected}, the download is {actual}")]
    Sha256Mismatch {
        url: String,
        expected: String,
        actual: String,
    },
    #[error("{url}: size mismatch: the index says {expected} bytes, the server has {actual}")]
    SizeMismatch {
        url: String,
        expected: u64,
        actual: u64,
    },
    #[error("{url}: CRC32 mismatch in member {member}: {detail}")]
    Crc {
        url: String,
        member: String,
        detail: String,
    },
    #[error("{url}: not a zip archive: {detail}")]
    NotZip { url: String, detail: String },
    #[error("{url}: unexpected server answer: {detail}")]
    BadResponse { url: String, detail: String },
    #[error("{url}: bad index document: {detail}")]
    BadIndex { url: String, detail: String },
    #[error("{url}: {source}")]
    Archive {
        url: String,
        #[source]
        source: ArchiveError,
    },
}

fn default_agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(new_agent)
}

/// A ureq agent verifying TLS through the platform (system store, `SSL_CERT_FILE`).
fn new_agent() -> ureq::Agent {
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::PlatformVerifier)
        .build();
    let config = ureq::Agent::config_builder()
        .tls_config(tls)
        .http_status_as_error(false)
        .user_agent(concat!("apicompat/", env!("CARGO_PKG_VERSION")))
        .timeout_resolve(Some(Duration::from_secs(15)))
        .timeout_connect(Some(Duration::from_secs(15)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .build();
    ureq::Agent::new_with_config(config)
}

/// Name resolution failures come as plain I/O errors from the system resolver.
fn is_dns_failure(e: &std::io::Error) -> bool {
    let msg = e.to_string();
    [
        "lookup address",
        "Name or service not known",
        "nodename nor servname",
        "No address associated",
        "No such host",
        "Temporary failure in name resolution",
    ]
    .iter()
    .any(|needle| msg.contains(needle))
}

/// Describes a transport error; `true` when worth a retry.
fn describe(err: &ureq::Error) -> (String, bool) {
    match err {
        ureq::Error::HostNotFound => ("DNS lookup failed: host not found".to_string(), false),
        ureq::Error::ConnectionFailed => ("connection failed".to_string(), true),
        ureq::Error::Timeout(t) => (format!("timed out ({t})"), true),
        ureq::Error::Io(e) if is_dns_failure(e) => {
            let msg = e.to_string();
            let temporary = msg.contains("Temporary") || msg.contains("try again");
            (format!("DNS lookup failed: {msg}"), temporary)
        }
        ureq::Error::Io(e) => {
            let what = match e.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
                std::io::ErrorKind::ConnectionReset => "connection reset".to_string(),
                std::io::ErrorKind::UnexpectedEof => "connection closed early".to_string(),
                std::io::ErrorKind::TimedOut => "timed out".to_string(),
                _ => format!("I/O error: {e}"),
            };
            let retry = !matches!(e.kind(), std::io::ErrorKind::InvalidInput);
            (what, retry)
        }
        ureq::Error::Tls(s) => (format!("TLS error: {s}"), false),
        ureq::Error::Rustls(e) => (format!("TLS error: {e}"), false),
        ureq::Error::Protocol(e) => (format!("HTTP protocol error: {e}"), true),
        ureq::Error::BadUri(s) => (format!("bad URL: {s}"), false),
        other => (other.to_string(), false),
    }
}

/// The `Range` of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ByteRange {
    /// `bytes=a-b`, inclusive.
    Span(u64, u64),
    /// `bytes=-n`: the last `n` bytes.
    Suffix(u64),
}

/// A body received.
struct Got {
    status: u16,
    /// `(start, end inclusive, total)` of a 206.
    content_range: Option<(u64, u64, Option<u64>)>,
    body: Vec<u8>,
    /// The URL answered, after redirects.
    final_url: String,
}

fn parse_content_range(v: &str) -> Option<(u64, u64, Option<u64>)> {
    let rest = v.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let (a, b) = range.split_once('-')?;
    let a: u64 = a.trim().parse().ok()?;
    let b: u64 = b.trim().parse().ok()?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    (a <= b).then_some((a, b, total))
}

/// Downloads with retries, stats and an optional progress bar.
struct Fetcher<'a> {
    agent: &'a ureq::Agent,
    opts: &'a FetchOptions,
    stats: FetchStats,
    bar: Option<indicatif::ProgressBar>,
    /// `Accept` header of the requests, if not ureq's default.
    accept: Option<&'static str>,
}

impl<'a> Fetcher<'a> {
    fn new(agent: &'a ureq::Agent, opts: &'a FetchOptions) -> Self {
        Fetcher {
            agent,
            opts,
            stats: FetchStats::default(),
            bar: None,
            accept: None,
        }
    }

    fn start_bar(&mut self, total: u64, label: &str) {
        if !self.opts.progress || !std::io::stderr().is_terminal() {
            return;
        }
        let bar = indicatif::ProgressBar::new(total);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(label.to_string());
        self.bar = Some(bar);
    }

    fn grow_bar(&self, total: u64) {
        if let Some(bar) = &self.bar {
            bar.set_length(total);
        }
    }

    fn finish_bar(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// One GET, retried. The body may not exceed `max_len` bytes.
    fn get(
        &mut self,
        url: &str,
        range: Option<ByteRange>,
        max_len: u64,
    ) -> Result<Got, FetchError> {
        let tries = self.opts.tries.max(1);
        let mut delay = self.opts.backoff;
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.get_once(url, range, max_len) {
                Ok(got) if (500..600).contains(&got.status) || got.status == 429 => {
                    if attempt >= tries {
                        return Err(FetchError::Http {
                            url: url.to_string(),
                            status: got.status,
                        });
                    }
                }
                Ok(got) => return Ok(got),
                Err((err, retry)) => {
                    if !retry || attempt >= tries {
                        return Err(match err {
                            FetchError::Network { url, cause } if attempt > 1 => {
                                FetchError::Network {
                                    url,
                                    cause: format!("{cause} (after {attempt} tries)"),
                                }
                            }
                            other => other,
                        });
                    }
                }
            }
            std::thread::sleep(delay);
            delay = delay.saturating_mul(2);
        }
    }

    fn get_once(
        &mut self,
        url: &str,
        range: Option<ByteRange>,
        max_len: u64,
    ) -> Result<Got, (FetchError, bool)> {
        self.stats.requests += 1;
        let started = Instant::now();
        let limit = self.opts.request_timeout;
        let deadline = || FetchError::Deadline {
            url: url.to_string(),
            seconds: (limit.as_secs_f64() * 10.0).round() / 10.0,
        };
        let mut req = self
            .agent
            .get(url)
            .config()
            .timeout_global(Some(limit))
            .build()
            .header("Accept-Encoding", "identity");
        if let Some(accept) = self.accept {
            req = req.header("Accept", accept);
        }
        match range {
            Some(ByteRange::Span(a, b)) => req = req.header("Range", format!("bytes={a}-{b}")),
            Some(ByteRange::Suffix(n)) => req = req.header("Range", format!("bytes=-{n}")),
            None => {}
        }
        let response = req.call().map_err(|e| {
            if matches!(e, ureq::Error::Timeout(ureq::Timeout::Global))
                || started.elapsed() >= limit
            {
                return (deadline(), false);
            }
            let (cause, retry) = describe(&e);
            (
                FetchError::Network {
                    url: url.to_string(),
                    cause,
                },
                retry,
            )
        })?;
        let status = response.status().as_u16();
        let final_url = {
            use ureq::ResponseExt;
            response.get_uri().to_string()
        };
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let content_range = header("content-range").and_then(|v| parse_content_range(&v));
        let content_length = header("content-length").and_then(|v| v.trim().parse::<u64>().ok());
        if !(200..300).contains(&status) {
            // Error bodies are not needed.
            return Ok(Got {
                status,
                content_range,
                body: Vec::new(),
                final_url,
            });
        }
        if let Some(len) = content_length {
            if len > max_len {
                return Err((
                    FetchError::BadResponse {
                        url: url.to_string(),
                        detail: format!("body of {len} bytes, at most {max_len} expected"),
                    },
                    false,
                ));
            }
        }
        let mut reader = response.into_body().into_reader();
        let mut body =
            Vec::with_capacity(content_length.unwrap_or(0).min(max_len).min(64 << 20) as usize);
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    self.stats.bytes += n as u64;
                    if let Some(bar) = &self.bar {
                        bar.inc(n as u64);
                    }
                    if body.len() as u64 + n as u64 > max_len {
                        return Err((
                            FetchError::BadResponse {
                                url: url.to_string(),
                                detail: format!("body longer than the {max_len} bytes expected"),
                            },
                            false,
                        ));
                    }
                    body.extend_from_slice(&chunk[..n]);
                    if started.elapsed() > limit {
                        return Err((deadline(), false));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) if started.elapsed() >= limit => return Err((deadline(), false)),
                Err(e) => {
                    let received = body.len() as u64;
                    let err = match content_length {
                        Some(expected) => FetchError::Truncated {
                            url: url.to_string(),
                            expected,
                            received,
                        },
                        None => FetchError::Network {
                            url: url.to_string(),
                            cause: format!("reading the body failed after {received} bytes: {e}"),
                        },
                    };
                    return Err((err, true));
                }
            }
        }
        if let Some(expected) = content_length {
            if body.len() as u64 != expected {
                return Err((
                    FetchError::Truncated {
                        url: url.to_string(),
                        expected,
                        received: body.len() as u64,
                    },
                    true,
                ));
            }
        }
        Ok(Got {
            status,
            content_range,
            body,
            final_url,
        })
    }
}

/// The lower-case hex sha256 of `data`, as package indexes give it.
pub fn sha256_hex(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn status_error(url: &str, status: u16) -> FetchError {
    FetchError::Http {
        url: url.to_string(),
        status,
    }
}

/// A client of one index, reusing its connections.
pub struct Client {
    agent: ureq::Agent,
    opts: FetchOptions,
}

impl Default for Client {
    fn default() -> Self {
        Client::new(FetchOptions::default())
    }
}

impl Client {
    pub fn new(opts: FetchOptions) -> Self {
        Client {
            agent: default_agent().clone(),
            opts,
        }
    }

    pub fn options(&self) -> &FetchOptions {
        &self.opts
    }

    /// Every release of project `name` with its files, in natural order of the version
    /// strings (`2.9` before `2.10`; not full PEP 440 order).
    ///
    /// Asks `{index}/pypi/{name}/json`; when that is missing (404) or not the expected JSON,
    /// falls back to the simple API `{index}/simple/{name}/` (PEP 691 JSON or PEP 503 HTML).
    pub fn list_releases(&self, name: &str) -> Result<Vec<Release>, FetchError> {
        let normalized = apicompat_archive::normalize_name(name);
        let base = self.opts.index_url();
        let url = format!("{base}/pypi/{normalized}/json");
        let mut fetcher = Fetcher::new(&self.agent, &self.opts);
        fetcher.accept = Some("application/json");
        let got = fetcher.get(&url, None, MAX_INDEX_DOCUMENT)?;
        let json_error = match got.status {
            200 => match parse_project_json(&got.body, &got.final_url) {
                Ok(releases) => return Ok(releases),
                Err(e) => Some(e),
            },
            404 => None,
            s => return Err(status_error(&url, s)),
        };
        let simple_url = format!("{base}/simple/{normalized}/");
        fetcher.accept = Some(
            "application/vnd.pypi.simple.v1+json, text/html;q=0.2, application/vnd.pypi.simple.v1+html;q=0.1",
        );
        let got = fetcher.get(&simple_url, None, MAX_INDEX_DOCUMENT)?;
        match got.status {
            200 => {}
            404 => {
                return Err(json_error.unwrap_or(FetchError::ProjectNotFound {
                    name: name.to_string(),
                    url,
                }))
            }
            s => return Err(json_error.unwrap_or_else(|| status_error(&simple_url, s))),
        }
        let first = got.body.iter().find(|b| !b.is_ascii_whitespace());
        if first == Some(&b'{') {
            parse_simple_json(&got.body, &got.final_url, name)
        } else {
            let releases = parse_simple_html(&got.body, &got.final_url, name);
            if releases.is_empty() {
                if let Some(e) = json_error {
                    return Err(e);
                }
            }
            Ok(releases)
        }
    }

    /// Downloads a whole file, checking its size and sha256 against the index.
    pub fn download(&self, file: &ReleaseFile) -> Result<(Vec<u8>, FetchStats), FetchError> {
        let start = Instant::now();
        let mut fetcher = Fetcher::new(&self.agent, &self.opts);
        fetcher.start_bar(file.size.unwrap_or(0), &file.filename);
        let result = download_whole(&mut fetcher, file);
        fetcher.finish_bar();
        let mut stats = fetcher.stats;
        stats.elapsed = start.elapsed();
        result.map(|d| (d, stats))
    }

    /// Downloads the Python sources of one release file and builds its tree.
    pub fn fetch_release(
        &self,
        file: &ReleaseFile,
    ) -> Result<(SourceTree, FetchStats), FetchError> {
        let start = Instant::now();
        let mut fetcher = Fetcher::new(&self.agent, &self.opts);
        let result = fetch_with(&mut fetcher, file);
        fetcher.finish_bar();
        let mut stats = fetcher.stats;
        stats.elapsed = start.elapsed();
        result.map(|(tree, ranged)| {
            stats.ranged = ranged;
            (tree, stats)
        })
    }
}

/// Every release of project `name` on the index of `APICOMPAT_INDEX_URL` (default PyPI).
pub fn list_releases(name: &str) -> Result<Vec<Release>, FetchError> {
    Client::default().list_releases(name)
}

/// Downloads the Python sources of one release file and builds its tree.
pub fn fetch_release(file: &ReleaseFile, opts: &FetchOptions) -> Result<SourceTree, FetchError> {
    fetch_release_with_stats(file, opts).map(|(tree, _)| tree)
}

/// [`fetch_release`], also telling what it cost.
pub fn fetch_release_with_stats(
    file: &ReleaseFile,
    opts: &FetchOptions,
) -> Result<(SourceTree, FetchStats), FetchError> {
    Client::new(opts.clone()).fetch_release(file)
}

/// Downloads a whole release file, checking its size and sha256 against the index.
pub fn download(file: &ReleaseFile, opts: &FetchOptions) -> Result<Vec<u8>, FetchError> {
    Client::new(opts.clone()).download(file).map(|(d, _)| d)
}

/// Is a wheel tag set installable on some Python 3? (`py3`, `py2.py3`, `cp312`, `pp310`...)
fn wheel_is_py3(filename: &str) -> bool {
    let stem = filename.trim_end_matches(".whl");
    let parts: Vec<&str> = stem.split('-').collect();
    if parts.len() < 5 {
        return false;
    }
    let python = parts[parts.len() - 3];
    python.split('.').any(|tag| {
        let digits = tag.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        digits.starts_with('3')
    })
}

/// The oldest Python 3 minor version a wheel's tags name (`cp38` 8, `cp310` 10, `py3` 0).
fn wheel_python_minor(filename: &str) -> u32 {
    let stem = filename.trim_end_matches(".whl");
    let parts: Vec<&str> = stem.split('-').collect();
    let Some(python) = parts.len().checked_sub(3).and_then(|i| parts.get(i)) else {
        return u32::MAX;
    };
    python
        .split('.')
        .filter_map(|tag| {
            let digits = tag.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let minor = digits.strip_prefix('3')?;
            Some(minor.parse().unwrap_or(0))
        })
        .min()
        .unwrap_or(u32::MAX)
}

/// The file of a release carrying Python sources: a Python 3 wheel for the oldest Python the
/// release supports (a release's wheels for newer Pythons may leave modules out: numpy 1.26's
/// for CPython 3.12 lack `numpy.distutils`), the smallest of those; else an sdist (`.tar.gz`,
/// `.tgz`, `.zip`), else any wheel.
pub fn choose_file(release: &Release) -> Option<&ReleaseFile> {
    let size = |f: &&ReleaseFile| f.size.unwrap_or(u64::MAX);
    let wheels = || release.files.iter().filter(|f| f.is_wheel());
    wheels()
        .filter(|f| wheel_is_py3(&f.filename))
        .min_by_key(|f| (wheel_python_minor(&f.filename), size(f)))
        .or_else(|| {
            release
                .files
                .iter()
                .filter(|f| {
                    !f.is_wheel()
                        && (f.filename.ends_with(".tar.gz")
                            || f.filename.ends_with(".tgz")
                            || (f.filename.ends_with(".zip") && f.packagetype == "sdist"))
                })
                .min_by_key(size)
        })
        .or_else(|| wheels().min_by_key(size))
}

/// Parses the `GET /pypi/NAME/json` document; file URLs are resolved against `doc_url`.
pub fn parse_project_json(body: &[u8], doc_url: &str) -> Result<Vec<Release>, FetchError> {
    let bad = |detail: String| FetchError::BadIndex {
        url: doc_url.to_string(),
        detail,
    };
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| bad(format!("invalid JSON: {e}")))?;
    let releases = value
        .get("releases")
        .and_then(|r| r.as_object())
        .ok_or_else(|| bad("no `releases` object".to_string()))?;
    let mut out: Vec<Release> = Vec::with_capacity(releases.len());
    for (version, files) in releases {
        let mut list = Vec::new();
        for f in files.as_array().map(Vec::as_slice).unwrap_or(&[]) {
            let (Some(filename), Some(url)) = (
                f.get("filename").and_then(|v| v.as_str()),
                f.get("url").and_then(|v| v.as_str()),
            ) else {
                continue;
            };
            let text = |key: &str| {
                f.get(key)
                    .and_then(|v| v.as_str())
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
            };
            list.push(ReleaseFile {
                filename: filename.to_string(),
                url: resolve_url(doc_url, url),
                size: f.get("size").and_then(|v| v.as_u64()),
                sha256: f
                    .get("digests")
                    .and_then(|d| d.get("sha256"))
                    .and_then(|v| v.as_str())
                    .map(str::to_ascii_lowercase),
                packagetype: text("packagetype").unwrap_or_default(),
                requires_python: text("requires_python"),
                yanked: f.get("yanked").and_then(|v| v.as_bool()).unwrap_or(false),
                upload_time: text("upload_time_iso_8601").or_else(|| text("upload_time")),
            });
        }
        out.push(Release {
            version: version.clone(),
            files: list,
        });
    }
    sort_releases(&mut out);
    Ok(out)
}

/// Largest index document accepted.
const MAX_INDEX_DOCUMENT: u64 = 256 << 20;

/// Digit runs compare as numbers: `2.10` after `2.9`.
fn natural_key(v: &str) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    let mut digits = String::new();
    let mut other = String::new();
    for c in v.chars() {
        if c.is_ascii_digit() {
            if !other.is_empty() {
                out.push((0, std::mem::take(&mut other)));
            }
            digits.push(c);
        } else {
            if !digits.is_empty() {
                out.push((digits.parse().unwrap_or(u64::MAX), String::new()));
                digits.clear();
            }
            other.push(c);
        }
    }
    if !digits.is_empty() {
        out.push((digits.parse().unwrap_or(u64::MAX), String::new()));
    }
    if !other.is_empty() {
        out.push((0, other));
    }
    out
}

/// Natural order of the version strings (`2.9` before `2.10`); not full PEP 440 order
/// (pre-releases sort after their release).
pub(crate) fn sort_releases(out: &mut [Release]) {
    out.sort_by(|a, b| {
        natural_key(&a.version)
            .cmp(&natural_key(&b.version))
            .then_with(|| a.version.cmp(&b.version))
    });
}

fn check_sha256(file: &ReleaseFile, data: &[u8]) -> Result<(), FetchError> {
    if let Some(expected) = &file.sha256 {
        let actual = sha256_hex(data);
        if &actual != expected {
            return Err(FetchError::Sha256Mismatch {
                url: file.url.clone(),
                expected: expected.clone(),
                actual,
            });
        }
    }
    Ok(())
}

/// Largest download accepted when the index gives no size.
const MAX_DOWNLOAD: u64 = 4 << 30;

fn download_whole(fetcher: &mut Fetcher, file: &ReleaseFile) -> Result<Vec<u8>, FetchError> {
    let max = file.size.unwrap_or(MAX_DOWNLOAD);
    let got = fetcher.get(&file.url, None, max)?;
    if got.status != 200 {
        return Err(status_error(&file.url, got.status));
    }
    finish_whole(file, got.body)
}

fn finish_whole(file: &ReleaseFile, body: Vec<u8>) -> Result<Vec<u8>, FetchError> {
    if let Some(size) = file.size {
        if body.len() as u64 != size {
            return Err(FetchError::Truncated {
                url: file.url.clone(),
                expected: size,
                received: body.len() as u64,
            });
        }
    }
    check_sha256(file, &body)?;
    Ok(body)
}

fn tree_from_bytes(file: &ReleaseFile, data: &[u8]) -> Result<SourceTree, FetchError> {
    let result = if file.is_wheel() {
        apicompat_archive::read_zip_bytes(&file.filename, data)
    } else {
        apicompat_archive::read_sdist_bytes(&file.filename, data)
    };
    result.map_err(|source| match source {
        ArchiveError::Zip { source, .. } if file.is_wheel() => FetchError::NotZip {
            url: file.url.clone(),
            detail: source.to_string(),
        },
        ArchiveError::UnknownFormat { detail, .. } if file.is_wheel() => FetchError::NotZip {
            url: file.url.clone(),
            detail,
        },
        source => FetchError::Archive {
            url: file.url.clone(),
            source,
        },
    })
}

/// Returns the tree and whether Range requests were used.
fn fetch_with(fetcher: &mut Fetcher, file: &ReleaseFile) -> Result<(SourceTree, bool), FetchError> {
    // Wheels of unknown size are read with ranges too: the tail tells the size.
    if file.is_wheel() && file.size.is_none_or(|s| s > fetcher.opts.range_threshold) {
        return match fetch_wheel_ranged(fetcher, file)? {
            Ranged::Tree(tree) => Ok((tree, true)),
            Ranged::WholeFile(data) => Ok((tree_from_bytes(file, &data)?, false)),
        };
    }
    fetcher.start_bar(file.size.unwrap_or(0), &file.filename);
    let data = download_whole(fetcher, file)?;
    Ok((tree_from_bytes(file, &data)?, false))
}

enum Ranged {
    Tree(SourceTree),
    /// The server ignored the Range header and sent the whole (verified) file.
    WholeFile(Vec<u8>),
}

/// The tail of a file of unknown size (`bytes=-N`): `(tail, its offset, file size)`, or
/// `Err(body)` when the server answered 200 with the whole file.
#[allow(clippy::type_complexity)]
fn get_tail_unknown_size(
    fetcher: &mut Fetcher,
    file: &ReleaseFile,
) -> Result<Result<(Vec<u8>, u64, u64), Vec<u8>>, FetchError> {
    let url = &file.url;
    fetcher.start_bar(zipread::TAIL_LEN, &file.filename);
    let got = fetcher.get(
        url,
        Some(ByteRange::Suffix(zipread::TAIL_LEN)),
        MAX_DOWNLOAD,
    )?;
    match got.status {
        206 => match got.content_range {
            Some((a, b, Some(total))) if b + 1 == total && got.body.len() as u64 == b - a + 1 => {
                Ok(Ok((got.body, a, total)))
            }
            other => Err(FetchError::BadResponse {
                url: url.clone(),
                detail: format!(
                    "asked the last {} bytes, got Content-Range {other:?} with {} bytes",
                    zipread::TAIL_LEN,
                    got.body.len()
                ),
            }),
        },
        200 => Ok(Err(finish_whole(file, got.body)?)),
        s => Err(status_error(url, s)),
    }
}

/// One ranged read; `Err(Ok(body))` when the server answered 200 with the whole file.
fn get_range(
    fetcher: &mut Fetcher,
    file: &ReleaseFile,
    size: u64,
    start: u64,
    end_exclusive: u64,
) -> Result<Result<Vec<u8>, Vec<u8>>, FetchError> {
    let url = &file.url;
    let last = end_exclusive.saturating_sub(1);
    let got = fetcher.get(url, Some(ByteRange::Span(start, last)), size)?;
    match got.status {
        206 => {
            let Some((a, b, total)) = got.content_range else {
                return Err(FetchError::BadResponse {
                    url: url.clone(),
                    detail: "206 without a valid Content-Range".to_string(),
                });
            };
            if let Some(total) = total {
                if total != size {
                    return Err(FetchError::SizeMismatch {
                        url: url.clone(),
                        expected: size,
                        actual: total,
                    });
                }
            }
            if a != start || b != last || got.body.len() as u64 != end_exclusive - start {
                return Err(FetchError::BadResponse {
                    url: url.clone(),
                    detail: format!(
                        "asked bytes {start}-{last}, got Content-Range {a}-{b} with {} bytes",
                        got.body.len()
                    ),
                });
            }
            Ok(Ok(got.body))
        }
        200 => Ok(Err(finish_whole(file, got.body)?)),
        416 => Err(FetchError::SizeMismatch {
            url: url.clone(),
            expected: size,
            actual: got
                .content_range
                .and_then(|(_, _, t)| t)
                .unwrap_or_default(),
        }),
        s => Err(status_error(url, s)),
    }
}

fn zip_error(file: &ReleaseFile, e: ZipError) -> FetchError {
    FetchError::NotZip {
        url: file.url.clone(),
        detail: e.to_string(),
    }
}

/// Reads a wheel through Range requests: tail, central directory, then merged member ranges.
fn fetch_wheel_ranged(fetcher: &mut Fetcher, file: &ReleaseFile) -> Result<Ranged, FetchError> {
    let (tail, tail_start, size) = match file.size {
        Some(size) => {
            let tail_len = zipread::TAIL_LEN.min(size);
            fetcher.start_bar(tail_len, &file.filename);
            match get_range(fetcher, file, size, size - tail_len, size)? {
                Ok(t) => (t, size - tail_len, size),
                Err(whole) => return Ok(Ranged::WholeFile(whole)),
            }
        }
        None => match get_tail_unknown_size(fetcher, file)? {
            Ok(t) => t,
            Err(whole) => return Ok(Ranged::WholeFile(whole)),
        },
    };
    let mut fetched = tail.len() as u64;
    let loc = match zipread::find_eocd(&tail, tail_start).map_err(|e| zip_error(file, e))? {
        EocdResult::Found(loc) => loc,
        EocdResult::NeedZip64Record { offset } => {
            let end = (offset + zipread::ZIP64_RECORD_LEN).min(size);
            let rec = match get_range(fetcher, file, size, offset, end)? {
                Ok(r) => r,
                Err(whole) => return Ok(Ranged::WholeFile(whole)),
            };
            fetched += end - offset;
            zipread::parse_zip64_eocd(&rec).map_err(|e| zip_error(file, e))?
        }
    };
    let cd_end = loc
        .offset
        .checked_add(loc.size)
        .filter(|e| *e <= size)
        .ok_or_else(|| FetchError::NotZip {
            url: file.url.clone(),
            detail: format!(
                "central directory at {}+{} past the end of the {size}-byte file",
                loc.offset, loc.size
            ),
        })?;
    let cd = if loc.offset >= tail_start {
        let rel = (loc.offset - tail_start) as usize;
        tail.get(rel..rel + loc.size as usize)
            .map(<[u8]>::to_vec)
            .unwrap_or_default()
    } else {
        fetcher.grow_bar(fetched + loc.size);
        fetched += loc.size;
        match get_range(fetcher, file, size, loc.offset, cd_end)? {
            Ok(cd) => cd,
            Err(whole) => return Ok(Ranged::WholeFile(whole)),
        }
    };
    let entries =
        zipread::parse_central_directory(&cd, loc.entries).map_err(|e| zip_error(file, e))?;

    // Which members, and where each one ends (the next local header, or the directory).
    let mut offsets: Vec<u64> = entries.iter().map(|e| e.local_header_offset).collect();
    offsets.push(loc.offset);
    offsets.sort_unstable();
    offsets.dedup();
    let mut members: Vec<(String, Vec<u8>)> = Vec::new();
    let mut wanted: Vec<(u64, u64, &CentralEntry)> = Vec::new();
    let mut problems = Vec::new();
    for entry in &entries {
        if entry.is_dir {
            continue;
        }
        if apicompat_archive::sanitize_member_name(&entry.name).is_err() {
            // read_wheel_members records it as a problem.
            members.push((entry.name.clone(), Vec::new()));
            continue;
        }
        match apicompat_archive::wheel_member_wanted(&entry.name) {
            Wanted::No => {}
            Wanted::NameOnly => members.push((entry.name.clone(), Vec::new())),
            Wanted::Data => {
                if let Err(e) = zipread::check_entry(entry, apicompat_archive::MAX_MEMBER_SIZE) {
                    problems.push(format!("{}: skipped: {e}", entry.name));
                    continue;
                }
                let start = entry.local_header_offset;
                let next = offsets
                    .get(offsets.partition_point(|o| *o <= start))
                    .copied()
                    .unwrap_or(loc.offset);
                // Local header + name + extra (each at most 64 KiB) + data + descriptor.
                let most = start
                    .saturating_add(30 + 2 * 65_535 + 24)
                    .saturating_add(entry.compressed_size);
                let end = next.min(most).min(size);
                if end <= start {
                    problems.push(format!("{}: skipped: bad local header offset", entry.name));
                    continue;
                }
                wanted.push((start, end, entry));
            }
        }
    }
    wanted.sort_by_key(|w| w.0);

    // Merge close ranges.
    let gap = fetcher.opts.merge_gap;
    let max_range = fetcher.opts.max_range.max(1);
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for (start, end, _) in &wanted {
        match ranges.last_mut() {
            Some((rs, re))
                if *start <= re.saturating_add(gap) && end.saturating_sub(*rs) <= max_range =>
            {
                *re = (*re).max(*end);
            }
            _ => ranges.push((*start, *end)),
        }
    }
    let planned: u64 = ranges.iter().map(|(a, b)| b - a).sum();
    fetcher.grow_bar(fetched + planned);

    let mut w = 0usize;
    for (rs, re) in ranges {
        let buf = match get_range(fetcher, file, size, rs, re)? {
            Ok(b) => b,
            Err(whole) => return Ok(Ranged::WholeFile(whole)),
        };
        while let Some((start, end, entry)) = wanted.get(w) {
            if *start >= re {
                break;
            }
            w += 1;
            let span = buf
                .get((start - rs) as usize..(end - rs) as usize)
                .unwrap_or(&[]);
            match zipread::extract_from_span(span, entry, apicompat_archive::MAX_MEMBER_SIZE) {
                Ok(data) => members.push((entry.name.clone(), data)),
                Err(ZipError::Crc { expected, actual }) => {
                    return Err(FetchError::Crc {
                        url: file.url.clone(),
                        member: entry.name.clone(),
                        detail: format!("expected {expected:08x}, got {actual:08x}"),
                    })
                }
                Err(e) => problems.push(format!("{}: skipped: {e}", entry.name)),
            }
        }
    }
    let mut tree = apicompat_archive::read_wheel_members(members);
    tree.problems.extend(problems);
    Ok(Ranged::Tree(tree))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_range() {
        assert_eq!(
            parse_content_range("bytes 0-99/1000"),
            Some((0, 99, Some(1000)))
        );
        assert_eq!(parse_content_range("bytes 5-9/*"), Some((5, 9, None)));
        assert_eq!(parse_content_range("bytes 9-5/10"), None);
        assert_eq!(parse_content_range("items 0-1/2"), None);
    }

    #[test]
    fn py3_wheels() {
        assert!(wheel_is_py3("torch-2.5.0-cp312-none-macosx_11_0_arm64.whl"));
        assert!(wheel_is_py3("six-1.16.0-py2.py3-none-any.whl"));
        assert!(wheel_is_py3("x-1.0-1build-pp310-pypy310_pp73-any.whl"));
        assert!(!wheel_is_py3("x-1.0-py2-none-any.whl"));
        assert!(!wheel_is_py3("garbage.whl"));
    }

    fn file(name: &str, size: u64, packagetype: &str) -> ReleaseFile {
        ReleaseFile {
            filename: name.to_string(),
            url: format!("https://x/{name}"),
            size: Some(size),
            sha256: None,
            packagetype: packagetype.to_string(),
            requires_python: None,
            yanked: false,
            upload_time: None,
        }
    }

    #[test]
    fn choose() {
        let r = Release {
            version: "1".into(),
            files: vec![
                file("a-1.tar.gz", 10, "sdist"),
                file(
                    "a-1-cp312-cp312-manylinux_2_17_x86_64.whl",
                    900,
                    "bdist_wheel",
                ),
                file("a-1-cp312-none-macosx_14_0_arm64.whl", 500, "bdist_wheel"),
                file("a-1-py2-none-any.whl", 5, "bdist_wheel"),
            ],
        };
        assert_eq!(
            choose_file(&r).map(|f| f.filename.as_str()),
            Some("a-1-cp312-none-macosx_14_0_arm64.whl")
        );
        // The oldest Python's wheel wins over a smaller one for a newer Python.
        let r = Release {
            version: "1".into(),
            files: vec![
                file("a-1-cp312-cp312-macosx_14_0_arm64.whl", 100, "bdist_wheel"),
                file(
                    "a-1-cp39-cp39-manylinux_2_17_x86_64.whl",
                    900,
                    "bdist_wheel",
                ),
                file("a-1-cp39-cp39-macosx_11_0_arm64.whl", 500, "bdist_wheel"),
                file("a-1-cp310-cp310-macosx_11_0_arm64.whl", 400, "bdist_wheel"),
            ],
        };
        assert_eq!(
            choose_file(&r).map(|f| f.filename.as_str()),
            Some("a-1-cp39-cp39-macosx_11_0_arm64.whl")
        );
        assert_eq!(wheel_python_minor("six-1.16.0-py2.py3-none-any.whl"), 0);
        assert_eq!(wheel_python_minor("x-1-cp310-cp310-any.whl"), 10);
        let r = Release {
            version: "1".into(),
            files: vec![
                file("a-1.tar.gz", 10, "sdist"),
                file("a-1.exe", 1, "bdist_wininst"),
            ],
        };
        assert_eq!(
            choose_file(&r).map(|f| f.filename.as_str()),
            Some("a-1.tar.gz")
        );
        let r = Release {
            version: "1".into(),
            files: vec![],
        };
        assert_eq!(choose_file(&r), None);
    }

    #[test]
    fn project_json() {
        let doc = br#"{"releases": {"1.0": [{"filename": "a-1.0.tar.gz", "url": "../../packages/ab/a-1.0.tar.gz", "size": 3, "digests": {"sha256": "ABC"}, "packagetype": "sdist", "requires_python": null, "yanked": true, "upload_time_iso_8601": "2020-01-01T00:00:00Z"}, {"bad": 1}], "0.9": [], "0.5": [{"filename": "a-0.5.zip", "url": "https://files.example/a-0.5.zip", "upload_time": "2019-01-01T00:00:00"}]}}"#;
        let rels = parse_project_json(doc, "https://pypi.org/pypi/a/json").unwrap();
        let versions: Vec<&str> = rels.iter().map(|r| r.version.as_str()).collect();
        assert_eq!(versions, vec!["0.5", "0.9", "1.0"]);
        let f = &rels[2].files[0];
        assert_eq!(f.url, "https://pypi.org/packages/ab/a-1.0.tar.gz");
        assert_eq!(f.sha256.as_deref(), Some("abc"));
        assert!(rels[2].yanked());
        assert!(!rels[1].yanked());
        assert_eq!(rels[2].files.len(), 1);
        assert!(parse_project_json(b"<html>", "https://x").is_err());
        assert!(parse_project_json(b"{}", "https://x").is_err());
    }

    #[test]
    fn natural_version_order() {
        let mut rels: Vec<Release> = ["2.10.0", "2.9.1", "1.13.0", "2.9.1.post1", "0.4.1"]
            .iter()
            .map(|v| Release {
                version: v.to_string(),
                files: vec![],
            })
            .collect();
        sort_releases(&mut rels);
        let versions: Vec<&str> = rels.iter().map(|r| r.version.as_str()).collect();
        assert_eq!(
            versions,
            vec!["0.4.1", "1.13.0", "2.9.1", "2.9.1.post1", "2.10.0"]
        );
    }

    #[test]
    fn index_url_forms() {
        let o = FetchOptions {
            index_url: Some("https://mirror.example/simple/".into()),
            ..FetchOptions::default()
        };
        assert_eq!(o.index_url(), "https://mirror.example");
    }
}
