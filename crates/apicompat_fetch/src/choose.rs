//! The file of a release to read: a Python 3 wheel for the oldest Python it supports, else
//! an sdist, else any wheel.

use crate::{Release, ReleaseFile};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
