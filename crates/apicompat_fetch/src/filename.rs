//! File names given by the package index, before they become local paths.

/// The name to store a release file under: the final component of the file name the index
/// gives, accepted only when it is a plain wheel (`NAME-VER(-BUILD)-PY-ABI-PLAT.whl`) or sdist
/// (`NAME-VER.tar.gz`, `.zip`, ...) file name of ASCII letters, digits and `._+!-`.
pub fn safe_file_name(filename: &str) -> Result<&str, String> {
    let last = filename.rsplit(['/', '\\']).next().unwrap_or(filename);
    let plain = !last.is_empty()
        && last.len() <= 255
        && last
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && last
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'!' | b'-'));
    let shaped = if let Some(stem) = last.strip_suffix(".whl") {
        matches!(stem.split('-').count(), 5 | 6) && stem.split('-').all(|p| !p.is_empty())
    } else {
        [".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz", ".tar"]
            .iter()
            .find_map(|ext| last.strip_suffix(ext))
            .is_some_and(|stem| {
                stem.split_once('-')
                    .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty())
            })
    };
    if plain && shaped {
        Ok(last)
    } else {
        Err(format!(
            "the index gives the file name {filename:?}, which is not a wheel or sdist file name; not writing it"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_from_the_index_are_checked() {
        for ok in [
            "torch-2.5.0-cp312-none-macosx_11_0_arm64.whl",
            "pkg-1.0-1-py3-none-any.whl",
            "colossalai-0.4.1.tar.gz",
            "x-1.zip",
        ] {
            assert_eq!(safe_file_name(ok), Ok(ok));
        }
        assert_eq!(
            safe_file_name("../../evil-1.0-py3-none-any.whl"),
            Ok("evil-1.0-py3-none-any.whl")
        );
        assert_eq!(safe_file_name("a\\b\\x-1.tar.gz"), Ok("x-1.tar.gz"));
        for bad in [
            "",
            "..",
            "../",
            ".hidden-1.0-py3-none-any.whl",
            "evil.sh",
            "x.whl",
            "a-b.whl",
            "pkg-1.0-py3-none-any.whl\u{0}",
            "pkg 1.0.tar.gz",
            ".tar.gz",
            "-1.tar.gz",
        ] {
            assert!(safe_file_name(bad).is_err(), "{bad:?} accepted");
        }
    }
}
