//! The Pythons a release can be installed on as far as its files tell (PEP 425 tags of its
//! wheel names). A release with an sdist, or a wheel for every Python 3 (`py3`, `py2.py3`),
//! says nothing beyond its `Requires-Python`; a release of wheels built for particular
//! Pythons (torch: `cp39` - `cp313`, no sdist) installs only on those.

use crate::Release;

/// What one interpreter tag (`cp310`, `py3`, `pp39`) of a wheel admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Admits {
    /// Exactly Python 3.minor (`cp310-cp310`, `cp39-none-macosx_11_0_arm64`, `pp39`).
    Minor(u32),
    /// Python 3.minor and every newer one (`cp38-abi3`, `py38`).
    From(u32),
    /// Every Python 3 (`py3`).
    Any,
}

/// What the interpreter tags of a wheel file name admit (Python 2 tags none); `None` when the
/// name is not `name-version(-build)?-python-abi-platform.whl`.
fn wheel_admits(filename: &str) -> Option<Vec<Admits>> {
    let stem = filename.strip_suffix(".whl")?;
    let parts: Vec<&str> = stem.split('-').collect();
    if !(5..=6).contains(&parts.len()) {
        return None;
    }
    let (python, abi) = (parts[parts.len() - 3], parts[parts.len() - 2]);
    let abi3 = abi.split('.').any(|a| a == "abi3");
    let mut out = Vec::new();
    for tag in python.split('.') {
        let digits_at = tag.find(|c: char| c.is_ascii_digit())?;
        let (implementation, digits) = tag.split_at(digits_at);
        if implementation.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let Some(minor) = digits.strip_prefix('3') else {
            continue; // Python 2 (`py2`, `cp27`).
        };
        if minor.is_empty() {
            out.push(Admits::Any);
            continue;
        }
        let minor: u32 = minor.parse().ok()?;
        // `pyXY` is for any implementation of 3.Y and newer; an implementation's own tag is
        // for that version only, but with the stable ABI for that version and newer.
        out.push(if implementation == "py" || abi3 {
            Admits::From(minor)
        } else {
            Admits::Minor(minor)
        });
    }
    Some(out)
}

/// The Pythons `release` has wheels for (`3.9`, `3.8+` for abi3 and `pyXY` wheels), when it
/// ships no sdist and no wheel for every Python 3; empty otherwise (no narrowing), and when a
/// file name cannot be read. Sorted by version, deduplicated, a version an earlier `X+`
/// covers left out: the same files give the same list.
pub fn wheel_pythons(release: &Release) -> Vec<String> {
    let mut admits = Vec::new();
    for file in &release.files {
        if !file.is_wheel() {
            // An sdist builds anywhere (or a file we cannot judge): no narrowing.
            return Vec::new();
        }
        match wheel_admits(&file.filename) {
            Some(a) if a.contains(&Admits::Any) => return Vec::new(),
            Some(a) => admits.extend(a),
            None => return Vec::new(),
        }
    }
    admits.sort_unstable_by_key(|a| match *a {
        Admits::Minor(m) => (m, 0),
        Admits::From(m) => (m, 1),
        Admits::Any => (u32::MAX, 2),
    });
    admits.dedup();
    let mut out = Vec::new();
    let mut from: Option<u32> = None;
    for a in admits {
        match a {
            Admits::Minor(m) if from.is_none_or(|f| m < f) => out.push(format!("3.{m}")),
            Admits::From(m) if from.is_none() => {
                from = Some(m);
                out.push(format!("3.{m}+"));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::release;

    #[test]
    fn binary_only_releases_list_their_pythons() {
        // torch 2.6.0's files (some): no sdist.
        let torch = release(&[
            "torch-2.6.0-cp39-cp39-manylinux1_x86_64.whl",
            "torch-2.6.0-cp39-none-macosx_11_0_arm64.whl",
            "torch-2.6.0-cp313-cp313-win_amd64.whl",
            "torch-2.6.0-cp310-cp310-manylinux_2_28_aarch64.whl",
            "torch-2.6.0-cp311-none-macosx_11_0_arm64.whl",
            "torch-2.6.0-cp312-cp312-win_amd64.whl",
            "torch-2.7.0-cp313-cp313t-manylinux_2_28_x86_64.whl",
        ]);
        assert_eq!(
            wheel_pythons(&torch),
            ["3.9", "3.10", "3.11", "3.12", "3.13"]
        );
        let abi3 = release(&[
            "pkg-1.0-cp37-cp37m-win_amd64.whl",
            "pkg-1.0-cp38-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            "pkg-1.0-cp311-abi3-win_amd64.whl",
            "pkg-1.0-1-pp39-pypy39_pp73-win_amd64.whl",
        ]);
        assert_eq!(wheel_pythons(&abi3), ["3.7", "3.8+"]);
        let py38 = release(&[
            "pkg-1.0-py38-none-any.whl",
            "pkg-1.0-cp36-cp36m-linux_x86_64.whl",
        ]);
        assert_eq!(wheel_pythons(&py38), ["3.6", "3.8+"]);
    }

    #[test]
    fn an_sdist_or_a_wheel_for_every_python_narrows_nothing() {
        for names in [
            &["pkg-1.0-cp39-cp39-win_amd64.whl", "pkg-1.0.tar.gz"][..],
            &[
                "pkg-1.0-cp39-cp39-win_amd64.whl",
                "pkg-1.0-py3-none-any.whl",
            ],
            &["pkg-1.0-py2.py3-none-any.whl"],
            &["pkg-1.0-cp39-cp39-win_amd64.whl", "not-a-wheel-name.whl"],
            &["pkg-1.0-cp3x-cp39-win_amd64.whl"],
            &[],
        ] {
            assert!(wheel_pythons(&release(names)).is_empty(), "{names:?}");
        }
        // Python 2 wheels only: nothing known for Python 3 either way.
        assert!(wheel_pythons(&release(&["pkg-1.0-cp27-cp27mu-linux_x86_64.whl"])).is_empty());
    }
}
