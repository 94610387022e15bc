//! The platforms a release can be installed on as far as its files tell (the platform tags
//! of its wheel names). A release with an sdist, or a wheel for every platform (`any`), says
//! nothing; a release of wheels built for some platforms (torch 2.3.0 and later: none for
//! macOS on x86_64) installs only on those.

use crate::Release;

/// The platforms `release` has wheels for, when it ships no sdist and no wheel for every
/// platform: `linux_x86_64`, `linux_aarch64`, `macos_x86_64`, `macos_arm64`, `windows_amd64`,
/// and `other` for any other platform tag. Empty otherwise (no narrowing), and when a file
/// name cannot be read. Sorted and deduplicated: the same files give the same list.
pub fn wheel_platforms(release: &Release) -> Vec<String> {
    let mut out: Vec<&'static str> = Vec::new();
    for file in &release.files {
        if !file.is_wheel() {
            return Vec::new();
        }
        let Some(tags) = platform_tags(&file.filename) else {
            return Vec::new();
        };
        for tag in tags.split('.') {
            if tag == "any" {
                return Vec::new();
            }
            out.extend(families(tag));
        }
    }
    out.sort_unstable();
    out.dedup();
    out.into_iter().map(str::to_string).collect()
}

/// The platform part of `name-version(-build)?-python-abi-platform.whl`.
fn platform_tags(filename: &str) -> Option<&str> {
    let stem = filename.strip_suffix(".whl")?;
    let parts: Vec<&str> = stem.split('-').collect();
    if !(5..=6).contains(&parts.len()) {
        return None;
    }
    parts.last().copied()
}

/// The platforms one tag installs on (`manylinux_2_17_x86_64`, `macosx_11_0_universal2`).
fn families(tag: &str) -> Vec<&'static str> {
    let linux =
        tag.starts_with("manylinux") || tag.starts_with("musllinux") || tag.starts_with("linux_");
    if linux {
        return vec![if tag.ends_with("_x86_64") {
            "linux_x86_64"
        } else if tag.ends_with("_aarch64") {
            "linux_aarch64"
        } else {
            "other"
        }];
    }
    if tag.starts_with("macosx_") {
        return if tag.ends_with("_universal2") {
            vec!["macos_arm64", "macos_x86_64"]
        } else if tag.ends_with("_arm64") {
            vec!["macos_arm64"]
        } else if tag.ends_with("_x86_64") || tag.ends_with("_intel") || tag.ends_with("_universal")
        {
            vec!["macos_x86_64"]
        } else {
            vec!["other"]
        };
    }
    if tag == "win_amd64" {
        return vec!["windows_amd64"];
    }
    vec!["other"]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::release;

    #[test]
    fn binary_only_releases_list_their_platforms() {
        // torch 2.2.2 (some files): macOS on both CPUs; 2.3.0: arm64 only.
        let old = release(&[
            "torch-2.2.2-cp311-cp311-manylinux1_x86_64.whl",
            "torch-2.2.2-cp311-cp311-manylinux2014_aarch64.whl",
            "torch-2.2.2-cp311-none-macosx_10_9_x86_64.whl",
            "torch-2.2.2-cp311-none-macosx_11_0_arm64.whl",
            "torch-2.2.2-cp311-cp311-win_amd64.whl",
        ]);
        assert_eq!(
            wheel_platforms(&old),
            [
                "linux_aarch64",
                "linux_x86_64",
                "macos_arm64",
                "macos_x86_64",
                "windows_amd64"
            ]
        );
        let new = release(&[
            "torch-2.3.0-cp311-cp311-manylinux1_x86_64.whl",
            "torch-2.3.0-cp311-none-macosx_11_0_arm64.whl",
            "torch-2.3.0-cp311-cp311-win_amd64.whl",
        ]);
        assert_eq!(
            wheel_platforms(&new),
            ["linux_x86_64", "macos_arm64", "windows_amd64"]
        );
        let compressed = release(&[
            "pkg-1.0-cp38-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            "pkg-1.0-cp38-abi3-macosx_10_9_universal2.whl",
            "pkg-1.0-cp38-abi3-manylinux_2_17_ppc64le.whl",
        ]);
        assert_eq!(
            wheel_platforms(&compressed),
            ["linux_x86_64", "macos_arm64", "macos_x86_64", "other"]
        );
    }

    #[test]
    fn an_sdist_or_a_wheel_for_every_platform_narrows_nothing() {
        for names in [
            &["pkg-1.0-cp39-cp39-win_amd64.whl", "pkg-1.0.tar.gz"][..],
            &[
                "pkg-1.0-cp39-cp39-win_amd64.whl",
                "pkg-1.0-py3-none-any.whl",
            ][..],
            &["pkg-1.0-cp39-cp39-win_amd64.whl", "not a wheel name.whl"][..],
            &[][..],
        ] {
            assert!(wheel_platforms(&release(names)).is_empty(), "{names:?}");
        }
    }
}
