//! The JSON API's project document (`GET /pypi/NAME/json`) and the natural order of the
//! releases.

use crate::{resolve_url, FetchError, Release, ReleaseFile};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
