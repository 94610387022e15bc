//! HTTP: the shared ureq agent, transport errors described, and GETs with retries, Range
//! headers, a size limit, the time limit of one request and a progress bar.

use std::io::{IsTerminal, Read};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::{FetchError, FetchOptions, FetchStats};

pub(crate) fn default_agent() -> &'static ureq::Agent {
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
pub(crate) enum ByteRange {
    /// `bytes=a-b`, inclusive.
    Span(u64, u64),
    /// `bytes=-n`: the last `n` bytes.
    Suffix(u64),
}

/// A body received.
pub(crate) struct Got {
    pub(crate) status: u16,
    /// `(start, end inclusive, total)` of a 206.
    pub(crate) content_range: Option<(u64, u64, Option<u64>)>,
    pub(crate) body: Vec<u8>,
    /// The URL answered, after redirects.
    pub(crate) final_url: String,
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
pub(crate) struct Fetcher<'a> {
    agent: &'a ureq::Agent,
    pub(crate) opts: &'a FetchOptions,
    pub(crate) stats: FetchStats,
    bar: Option<indicatif::ProgressBar>,
    /// `Accept` header of the requests, if not ureq's default.
    pub(crate) accept: Option<&'static str>,
}

impl<'a> Fetcher<'a> {
    pub(crate) fn new(agent: &'a ureq::Agent, opts: &'a FetchOptions) -> Self {
        Fetcher {
            agent,
            opts,
            stats: FetchStats::default(),
            bar: None,
            accept: None,
        }
    }

    pub(crate) fn start_bar(&mut self, total: u64, label: &str) {
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

    pub(crate) fn grow_bar(&self, total: u64) {
        if let Some(bar) = &self.bar {
            bar.set_length(total);
        }
    }

    pub(crate) fn finish_bar(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// One GET, retried. The body may not exceed `max_len` bytes.
    pub(crate) fn get(
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

pub(crate) fn status_error(url: &str, status: u16) -> FetchError {
    FetchError::Http {
        url: url.to_string(),
        status,
    }
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
}
