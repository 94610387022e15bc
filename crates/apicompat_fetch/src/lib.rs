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

use std::time::{Duration, Instant};

use apicompat_archive::{ArchiveError, Metadata, SourceTree};

mod choose;
mod download;
mod filename;
mod http;
mod platforms;
mod project_json;
mod ranged;
mod simple;
mod tags;
mod url;
pub use choose::choose_file;
pub use download::sha256_hex;
pub use filename::safe_file_name;
pub use platforms::wheel_platforms;
pub use project_json::parse_project_json;
pub(crate) use project_json::sort_releases;
pub use simple::{parse_simple_html, parse_simple_json, version_from_filename};
pub use tags::wheel_pythons;
pub use url::resolve_url;

use download::{download_whole, tree_from_bytes};
use http::{default_agent, status_error, Fetcher};
use ranged::{fetch_wheel_ranged, Ranged};

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

    /// The core metadata of a wheel: served beside it by indexes that implement PEP 658
    /// (`URL.metadata`), else its `*.dist-info/METADATA` member read with Range requests.
    pub fn wheel_metadata(&self, file: &ReleaseFile) -> Result<Metadata, FetchError> {
        let url = format!("{}.metadata", file.url);
        let mut fetcher = Fetcher::new(&self.agent, &self.opts);
        let got = fetcher.get(&url, None, MAX_METADATA)?;
        match got.status {
            200 => return Ok(apicompat_archive::parse_metadata(&got.body)),
            404 => {}
            s => return Err(status_error(&url, s)),
        }
        let tree = match fetch_wheel_ranged(&mut fetcher, file, metadata_only)? {
            Ranged::Tree(tree) => tree,
            Ranged::WholeFile(data) => tree_from_bytes(file, &data)?,
        };
        Ok(tree.metadata)
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

/// Only a wheel's core metadata (`NAME.dist-info/METADATA`).
fn metadata_only(name: &str) -> apicompat_archive::Wanted {
    let top = name.split_once('/');
    match top {
        Some((dir, "METADATA")) if dir.ends_with(".dist-info") => apicompat_archive::Wanted::Data,
        _ => apicompat_archive::Wanted::No,
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

/// Largest index document accepted.
const MAX_INDEX_DOCUMENT: u64 = 256 << 20;
/// Largest core metadata file accepted.
const MAX_METADATA: u64 = 4 << 20;

/// Returns the tree and whether Range requests were used.
fn fetch_with(fetcher: &mut Fetcher, file: &ReleaseFile) -> Result<(SourceTree, bool), FetchError> {
    // Wheels of unknown size are read with ranges too: the tail tells the size.
    if file.is_wheel() && file.size.is_none_or(|s| s > fetcher.opts.range_threshold) {
        return match fetch_wheel_ranged(fetcher, file, apicompat_archive::wheel_member_wanted)? {
            Ranged::Tree(tree) => Ok((tree, true)),
            Ranged::WholeFile(data) => Ok((tree_from_bytes(file, &data)?, false)),
        };
    }
    fetcher.start_bar(file.size.unwrap_or(0), &file.filename);
    let data = download_whole(fetcher, file)?;
    Ok((tree_from_bytes(file, &data)?, false))
}

#[cfg(test)]
mod tests {
    /// A release `1.0` made of files of these names (for the tests of file-name readers).
    pub(crate) fn release(names: &[&str]) -> crate::Release {
        crate::Release {
            version: "1.0".into(),
            files: names
                .iter()
                .map(|n| crate::ReleaseFile {
                    filename: n.to_string(),
                    url: String::new(),
                    size: None,
                    sha256: None,
                    packagetype: String::new(),
                    requires_python: None,
                    yanked: false,
                    upload_time: None,
                })
                .collect(),
        }
    }

    use super::*;

    #[test]
    fn index_url_forms() {
        let o = FetchOptions {
            index_url: Some("https://mirror.example/simple/".into()),
            ..FetchOptions::default()
        };
        assert_eq!(o.index_url(), "https://mirror.example");
    }
}
