//! The simple repository API (PEP 503 HTML, PEP 691 JSON): the fallback for indexes without
//! PyPI's `/pypi/NAME/json` (mirrors, proxies). Versions come from the file names.

use std::collections::BTreeMap;

use crate::{resolve_url, FetchError, Release, ReleaseFile};

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';').filter(|e| *e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            e if e.starts_with("#x") || e.starts_with("#X") => u32::from_str_radix(&e[2..], 16)
                .ok()
                .and_then(char::from_u32),
            e if e.starts_with('#') => e[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Attributes of one start tag's inside (`a href="x" data-yanked`), names lower-cased.
fn attributes(tag: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let chars: Vec<char> = tag.chars().collect();
    let mut i = 0;
    // Skip the tag name.
    while i < chars.len() && !chars[i].is_whitespace() {
        i += 1;
    }
    while i < chars.len() {
        while i < chars.len() && (chars[i].is_whitespace() || chars[i] == '/') {
            i += 1;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '=' && chars[i] != '/' {
            i += 1;
        }
        if start == i {
            i += 1;
            continue;
        }
        let name: String = chars[start..i]
            .iter()
            .collect::<String>()
            .to_ascii_lowercase();
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        if i < chars.len() && chars[i] == '=' {
            i += 1;
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            let value = if i < chars.len() && (chars[i] == '"' || chars[i] == '\'') {
                let quote = chars[i];
                i += 1;
                let vs = i;
                while i < chars.len() && chars[i] != quote {
                    i += 1;
                }
                let v: String = chars[vs..i.min(chars.len())].iter().collect();
                i += 1;
                v
            } else {
                let vs = i;
                while i < chars.len() && !chars[i].is_whitespace() {
                    i += 1;
                }
                chars[vs..i].iter().collect()
            };
            out.push((name, Some(unescape(&value))));
        } else {
            out.push((name, None));
        }
    }
    out
}

/// `(url without fragment, sha256 from a `#sha256=` fragment)`.
fn split_hash(url: &str) -> (String, Option<String>) {
    match url.split_once('#') {
        Some((u, frag)) => {
            let sha = frag
                .strip_prefix("sha256=")
                .filter(|h| h.len() == 64 && h.chars().all(|c| c.is_ascii_hexdigit()))
                .map(str::to_ascii_lowercase);
            (u.to_string(), sha)
        }
        None => (url.to_string(), None),
    }
}

/// The version in a distribution file name, for project `project`.
pub fn version_from_filename(filename: &str, project: &str) -> Option<String> {
    if let Some(stem) = filename.strip_suffix(".whl") {
        let parts: Vec<&str> = stem.split('-').collect();
        return (parts.len() >= 5).then(|| parts[1].to_string());
    }
    let stem = [".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".zip", ".tar"]
        .iter()
        .find_map(|ext| filename.strip_suffix(ext))?;
    let want = apicompat_archive::normalize_name(project);
    let cuts: Vec<usize> = stem.match_indices('-').map(|(i, _)| i).collect();
    cuts.iter()
        .find(|&&i| apicompat_archive::normalize_name(&stem[..i]) == want)
        .or_else(|| {
            cuts.iter()
                .rev()
                .find(|&&i| stem[i + 1..].starts_with(|c: char| c.is_ascii_digit()))
        })
        .map(|&i| stem[i + 1..].to_string())
        .filter(|v| !v.is_empty())
}

fn packagetype(filename: &str) -> &'static str {
    if filename.ends_with(".whl") {
        "bdist_wheel"
    } else if filename.ends_with(".egg") {
        "bdist_egg"
    } else if filename.ends_with(".exe") || filename.ends_with(".msi") {
        "bdist_wininst"
    } else {
        "sdist"
    }
}

fn group(files: Vec<ReleaseFile>, project: &str) -> Vec<Release> {
    let mut by_version: BTreeMap<String, Vec<ReleaseFile>> = BTreeMap::new();
    for f in files {
        if let Some(v) = version_from_filename(&f.filename, project) {
            by_version.entry(v).or_default().push(f);
        }
    }
    let mut releases: Vec<Release> = by_version
        .into_iter()
        .map(|(version, files)| Release { version, files })
        .collect();
    crate::sort_releases(&mut releases);
    releases
}

/// Parses a PEP 503 HTML project page.
pub fn parse_simple_html(body: &[u8], doc_url: &str, project: &str) -> Vec<Release> {
    let text = String::from_utf8_lossy(body);
    let lower = text.to_ascii_lowercase();
    let mut files = Vec::new();
    let mut pos = 0;
    while let Some(found) = lower[pos..].find("<a") {
        let start = pos + found;
        let after = lower.as_bytes().get(start + 2).copied();
        if !matches!(after, Some(b' ' | b'\t' | b'\n' | b'\r')) {
            pos = start + 2;
            continue;
        }
        let Some(close) = lower[start..].find('>') else {
            break;
        };
        let tag = &text[start + 1..start + close];
        let text_start = start + close + 1;
        let text_end = lower[text_start..]
            .find("</a")
            .map(|e| text_start + e)
            .unwrap_or(text.len());
        pos = text_end;
        let attrs = attributes(tag);
        let get = |n: &str| attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        let Some(Some(href)) = get("href") else {
            continue;
        };
        let (url, sha256) = split_hash(&href);
        let url = resolve_url(doc_url, &url);
        let label = unescape(text[text_start..text_end].trim());
        let filename = if label.is_empty() {
            url.rsplit('/').next().unwrap_or("").to_string()
        } else {
            label
        };
        files.push(ReleaseFile {
            packagetype: packagetype(&filename).to_string(),
            filename,
            url,
            size: None,
            sha256,
            requires_python: get("data-requires-python")
                .flatten()
                .filter(|s| !s.is_empty()),
            yanked: get("data-yanked").is_some(),
            upload_time: get("data-upload-time").flatten().filter(|s| !s.is_empty()),
        });
    }
    group(files, project)
}

/// Parses a PEP 691 JSON project page.
pub fn parse_simple_json(
    body: &[u8],
    doc_url: &str,
    project: &str,
) -> Result<Vec<Release>, FetchError> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| FetchError::BadIndex {
            url: doc_url.to_string(),
            detail: format!("invalid JSON: {e}"),
        })?;
    let list = value
        .get("files")
        .and_then(|f| f.as_array())
        .ok_or_else(|| FetchError::BadIndex {
            url: doc_url.to_string(),
            detail: "no `files` array".to_string(),
        })?;
    let mut files = Vec::new();
    for f in list {
        let (Some(filename), Some(url)) = (
            f.get("filename").and_then(|v| v.as_str()),
            f.get("url").and_then(|v| v.as_str()),
        ) else {
            continue;
        };
        let (url, frag_sha) = split_hash(url);
        let yanked = match f.get("yanked") {
            Some(serde_json::Value::Bool(b)) => *b,
            Some(serde_json::Value::String(_)) => true,
            _ => false,
        };
        files.push(ReleaseFile {
            filename: filename.to_string(),
            url: resolve_url(doc_url, &url),
            size: f.get("size").and_then(|v| v.as_u64()),
            sha256: f
                .get("hashes")
                .and_then(|h| h.get("sha256"))
                .and_then(|v| v.as_str())
                .map(str::to_ascii_lowercase)
                .or(frag_sha),
            packagetype: packagetype(filename).to_string(),
            requires_python: f
                .get("requires-python")
                .and_then(|v| v.as_str())
                .filter(|s| !s.is_empty())
                .map(str::to_string),
            yanked,
            upload_time: f
                .get("upload-time")
                .and_then(|v| v.as_str())
                .map(str::to_string),
        });
    }
    Ok(group(files, project))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(
            version_from_filename("torch-2.5.0-cp312-none-macosx_11_0_arm64.whl", "torch")
                .as_deref(),
            Some("2.5.0")
        );
        assert_eq!(
            version_from_filename("colossalai-0.4.0.tar.gz", "colossalai").as_deref(),
            Some("0.4.0")
        );
        assert_eq!(
            version_from_filename("foo-bar-1.0rc1.zip", "Foo_Bar").as_deref(),
            Some("1.0rc1")
        );
        assert_eq!(
            version_from_filename("weird-name-2.0.tar.gz", "other").as_deref(),
            Some("2.0")
        );
        assert_eq!(version_from_filename("x.whl", "x"), None);
        assert_eq!(version_from_filename("x-1.0.exe", "x"), None);
    }

    #[test]
    fn html_page() {
        let page = br#"<!DOCTYPE html><html><body>
<h1>Links for foo</h1>
<a href="../../packages/aa/foo-1.0.tar.gz#sha256=ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789" data-requires-python="&gt;=3.8">foo-1.0.tar.gz</a><br/>
<A HREF='https://files.example/foo-1.0-py3-none-any.whl' data-yanked="" data-upload-time="2020-01-01T00:00:00Z">foo-1.0-py3-none-any.whl</A>
<a href="foo-0.9.zip">foo-0.9.zip</a>
<abbr>not a link</abbr><a>no href</a>
</body></html>"#;
        let rels = parse_simple_html(page, "https://idx.example/simple/foo/", "foo");
        let versions: Vec<&str> = rels.iter().map(|r| r.version.as_str()).collect();
        assert_eq!(versions, vec!["0.9", "1.0"]);
        let v1 = &rels[1];
        assert_eq!(v1.files.len(), 2);
        let sdist = &v1.files[0];
        assert_eq!(sdist.url, "https://idx.example/packages/aa/foo-1.0.tar.gz");
        assert_eq!(
            sdist.sha256.as_deref(),
            Some("abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789")
        );
        assert_eq!(sdist.requires_python.as_deref(), Some(">=3.8"));
        assert!(!sdist.yanked);
        assert!(v1.files[1].yanked);
        assert_eq!(
            v1.files[1].upload_time.as_deref(),
            Some("2020-01-01T00:00:00Z")
        );
        assert_eq!(v1.files[1].packagetype, "bdist_wheel");
        assert_eq!(
            rels[0].files[0].url,
            "https://idx.example/simple/foo/foo-0.9.zip"
        );
        assert!(parse_simple_html(b"\xff\xfe<a", "https://x/", "foo").is_empty());
    }

    #[test]
    fn json_page() {
        let page = br#"{"meta": {"api-version": "1.1"}, "name": "foo", "files": [
 {"filename": "foo-1.0.tar.gz", "url": "/packages/foo-1.0.tar.gz", "hashes": {"sha256": "AB"}, "requires-python": ">=3.8", "size": 42, "yanked": "bad"},
 {"filename": "foo-1.1-py3-none-any.whl", "url": "https://f/foo-1.1-py3-none-any.whl", "hashes": {}}
]}"#;
        let rels = parse_simple_json(page, "https://idx.example/simple/foo/", "foo").unwrap();
        assert_eq!(rels.len(), 2);
        let f = &rels[0].files[0];
        assert_eq!(f.url, "https://idx.example/packages/foo-1.0.tar.gz");
        assert_eq!(f.size, Some(42));
        assert!(f.yanked);
        assert_eq!(f.sha256.as_deref(), Some("ab"));
        assert!(parse_simple_json(b"{}", "https://x/", "foo").is_err());
    }
}
