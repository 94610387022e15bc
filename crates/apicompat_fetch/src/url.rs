//! RFC 3986 reference resolution, enough for index documents (`../../packages/x.whl`).

fn has_scheme(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Splits `reference` into (path, rest) where rest is the `?query#fragment` part.
fn split_path(s: &str) -> (&str, &str) {
    match s.find(['?', '#']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    }
}

/// RFC 3986 section 5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if path.starts_with('/') && !joined.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Resolves `reference` against the absolute URL `base`.
///
/// `resolve_url("https://pypi.org/pypi/torch/json", "../../packages/packages/56/x.whl")` is
/// `https://pypi.org/packages/packages/56/x.whl`.
pub fn resolve_url(base: &str, reference: &str) -> String {
    let reference = reference.trim();
    if has_scheme(reference) {
        return reference.to_string();
    }
    let Some((scheme, after)) = base.split_once("://") else {
        return reference.to_string();
    };
    let (authority, base_rest) = match after.find(['/', '?', '#']) {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, ""),
    };
    if let Some(net) = reference.strip_prefix("//") {
        return format!("{scheme}://{net}");
    }
    let (base_path, base_tail) = split_path(base_rest);
    let base_query = base_tail.split('#').next().unwrap_or("");
    let (ref_path, ref_tail) = split_path(reference);
    let path = if ref_path.is_empty() {
        if ref_tail.starts_with('#') || ref_tail.is_empty() {
            return format!("{scheme}://{authority}{base_path}{base_query}{ref_tail}");
        }
        base_path.to_string()
    } else if ref_path.starts_with('/') {
        remove_dot_segments(ref_path)
    } else {
        let dir = match base_path.rfind('/') {
            Some(i) => &base_path[..=i],
            None => "/",
        };
        remove_dot_segments(&format!("{dir}{ref_path}"))
    };
    format!("{scheme}://{authority}{path}{ref_tail}")
}

#[cfg(test)]
mod tests {
    use super::resolve_url;

    #[test]
    fn pypi_relative() {
        assert_eq!(
            resolve_url(
                "https://pypi.org/pypi/torch/json",
                "../../packages/packages/56/88/f1/torch-2.5.0-cp312-none-macosx_11_0_arm64.whl"
            ),
            "https://pypi.org/packages/packages/56/88/f1/torch-2.5.0-cp312-none-macosx_11_0_arm64.whl"
        );
    }

    #[test]
    fn rfc3986_examples() {
        let base = "http://a/b/c/d;p?q";
        let cases = [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("../../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("./g/.", "http://a/b/c/g/"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
        ];
        for (reference, expected) in cases {
            assert_eq!(
                resolve_url(base, reference),
                expected,
                "reference {reference:?}"
            );
        }
        assert_eq!(resolve_url("https://h", "x"), "https://h/x");
        assert_eq!(resolve_url("not a url", "x"), "x");
    }
}
