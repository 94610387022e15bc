//! The Python versions a project declares it supports: `[project] requires-python` in
//! `pyproject.toml` (else Poetry's `python` dependency there: `crate::poetry`), else
//! `python_requires` in `setup.cfg` (`[options]`) or in the `setup(python_requires=...)` call
//! of `setup.py` (a literal, or a name bound to one), else the `python` entry of a conda `environment.yml` (`- python=3.9`: `==3.9.*`), else the
//! `python` spec of the `conda create` / `conda install` line of an install script read as
//! the requirements (`crate::install_scripts`), else that of the conda file the install
//! instructions name (`crate::install_docs`).

use std::path::{Path, PathBuf};

use toml::de::DeTable;

use crate::declared::Source;
use crate::lines::LineIndex;
use crate::version::{parse_specifiers, release_of, select, Version, VersionSpecifiers};

/// A project's `requires-python`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiresPython {
    pub specifier: VersionSpecifiers,
    /// The text as written.
    pub raw: String,
    /// File (relative to the project directory) and line.
    pub source: Source,
}

/// Reads the project's `requires-python` from the first file that declares one. A value that
/// is not a valid specifier set is returned as `Err` with where it is, never a panic.
pub fn read_requires_python(dir: &Path) -> Option<Result<RequiresPython, String>> {
    let named = |(raw, file, line): (String, &str, u32)| (raw, file.to_string(), line);
    let found = from_pyproject(dir)
        .map(named)
        .or_else(|| from_setup_cfg(dir).map(named))
        .or_else(|| from_setup_py(dir).map(named))
        .or_else(|| crate::yaml_env::conda_python(dir))
        .or_else(|| crate::install_scripts::script_python(dir))
        .or_else(|| crate::install_docs::documented_python(dir))
        .or_else(|| crate::readme_pins::readme_python(dir))?;
    let (raw, file, line) = found;
    let source = Source {
        file: PathBuf::from(file),
        line,
    };
    Some(match parse_specifiers(&raw) {
        Ok(specifier) => Ok(RequiresPython {
            specifier,
            raw,
            source,
        }),
        Err(e) => Err(format!("{source}: {e}")),
    })
}

fn read(dir: &Path, name: &str) -> Option<String> {
    let path = dir.join(name);
    crate::safe_read::read_regular_file(&path, crate::declared::MAX_FILE_BYTES)
        .ok()
        .map(|b| crate::lines::decode(&b))
}

/// `[project] requires-python`, else Poetry's `python` dependency (`^3.9`: `>=3.9,<4`).
fn from_pyproject(dir: &Path) -> Option<(String, &'static str, u32)> {
    let text = read(dir, "pyproject.toml")?;
    let doc = DeTable::parse(&text).ok()?;
    let project = doc
        .get_ref()
        .get("project")
        .and_then(|p| p.get_ref().as_table())
        .and_then(|p| p.get("requires-python"));
    if let Some(value) = project {
        let s = value.get_ref().as_str()?.to_string();
        let line = LineIndex::new(&text).line(value.span().start);
        return Some((s, "pyproject.toml", line));
    }
    let (s, line) = crate::poetry::python(&text)?;
    Some((s, "pyproject.toml", line))
}

fn from_setup_cfg(dir: &Path) -> Option<(String, &'static str, u32)> {
    let text = read(dir, "setup.cfg")?;
    let mut section = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') && line.ends_with(']') {
            section = line[1..line.len() - 1].trim().to_ascii_lowercase();
            continue;
        }
        if section != "options" {
            continue;
        }
        if let Some((key, value)) = line.split_once(['=', ':']) {
            if key.trim().eq_ignore_ascii_case("python_requires") && !value.trim().is_empty() {
                let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
                return Some((value.trim().to_string(), "setup.cfg", line_no));
            }
        }
    }
    None
}

fn from_setup_py(dir: &Path) -> Option<(String, &'static str, u32)> {
    let text = read(dir, "setup.py")?;
    let (value, line) = crate::setup_py::python_requires(&text)?;
    Some((value, "setup.py", line))
}

/// Whether `spec` admits the minor release `v` of Python (`3.9`): some `3.9.z` does, so
/// `>=3.8` admits `3.8` and so does `>=3.8.1` (compared as `X.Y` and `X.Y.99`); `<3.13` does not
/// admit `3.13`.
pub fn admits_minor(spec: &VersionSpecifiers, v: &Version) -> bool {
    let one = |v: &Version| !select(spec, std::slice::from_ref(v)).is_empty();
    // A patch release the specifier names (`==3.9.18`, conda's `python=3.9.18=<build>`).
    let named = || {
        spec.iter().any(|c| {
            let named = c.version();
            named.release().get(..2) == v.release().get(..2) && one(&release_of(named))
        })
    };
    one(v) || crate::parse_version(&format!("{v}.99")).is_ok_and(|p| one(&p)) || named()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch project, removed when dropped.
    struct Scratch(PathBuf);

    impl std::ops::Deref for Scratch {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn dir(name: &str, files: &[(&str, &str)]) -> Scratch {
        let d = std::env::temp_dir().join(format!("apicompat-rp-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        for (f, t) in files {
            std::fs::write(d.join(f), t).unwrap();
        }
        Scratch(d)
    }

    #[test]
    fn reads_each_kind_of_file() {
        // A conda environment's `python` entry, after the packaging files.
        let env = "name: x\ndependencies:\n  - python>=3.8, < 3.10  # builds fail on 3.10\n  - numpy>=1.20\n";
        let d = dir("conda", &[("environment.yml", env)]);
        let rp = read_requires_python(&d).unwrap().unwrap();
        assert_eq!(rp.raw, ">=3.8,<3.10");
        assert_eq!(rp.source.to_string(), "environment.yml:3");
        let d = dir(
            "conda-eq",
            &[("environment.yaml", "dependencies:\n- python=3.9\n")],
        );
        assert_eq!(read_requires_python(&d).unwrap().unwrap().raw, "==3.9.*");
        let d = dir(
            "conda-after",
            &[
                ("environment.yml", env),
                ("setup.cfg", "[options]\npython_requires = >=3.11\n"),
            ],
        );
        assert_eq!(read_requires_python(&d).unwrap().unwrap().raw, ">=3.11");
        let d = dir(
            "pyproject",
            &[(
                "pyproject.toml",
                "[project]\nname = 'x'\nrequires-python = '>=3.9'\n",
            )],
        );
        let rp = read_requires_python(&d).unwrap().unwrap();
        assert_eq!(rp.raw, ">=3.9");
        assert_eq!(rp.source.to_string(), "pyproject.toml:3");
        let d = dir(
            "cfg",
            &[(
                "setup.cfg",
                "[metadata]\nname = x\n[options]\npython_requires = >=3.8\n",
            )],
        );
        assert_eq!(read_requires_python(&d).unwrap().unwrap().raw, ">=3.8");
        let d = dir(
            "py",
            &[(
                "setup.py",
                "from setuptools import setup\nsetup(\n    python_requires=\">=3.10\",\n)\n",
            )],
        );
        let rp = read_requires_python(&d).unwrap().unwrap();
        assert_eq!((rp.raw.as_str(), rp.source.line), (">=3.10", 3));
        // Through a name (dinov3's setup.py); a computed value is not guessed.
        let d = dir(
            "py-name",
            &[(
                "setup.py",
                "from setuptools import setup\nREQUIRES_PYTHON = \">=3.11\"\nsetup(\n    name=\"x\",\n    python_requires=REQUIRES_PYTHON,\n)\n",
            )],
        );
        let rp = read_requires_python(&d).unwrap().unwrap();
        assert_eq!((rp.raw.as_str(), rp.source.line), (">=3.11", 5));
        let d = dir(
            "py-computed",
            &[(
                "setup.py",
                "from setuptools import setup\nsetup(python_requires=\">=3.\" + str(9))\n",
            )],
        );
        assert!(read_requires_python(&d).is_none());
        let d = dir(
            "bad",
            &[("pyproject.toml", "[project]\nrequires-python = 'three'\n")],
        );
        assert!(read_requires_python(&d).unwrap().is_err());
        let d = dir("none", &[("pyproject.toml", "[project\n")]);
        assert!(read_requires_python(&d).is_none());
    }
}
