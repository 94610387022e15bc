//! `env --python` with a pyenv or asdf shim: fixture shims and installs in a temporary
//! directory (never the machine's pyenv), resolved without running anything.

use std::path::{Path, PathBuf};

use apicompat_requirements::find_site_packages;
use apicompat_requirements::shims::{resolve_shim, ShimEnv};

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("shims")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// An installed interpreter with a site-packages at `prefix`.
fn install(prefix: &Path, minor: &str) {
    write(&prefix.join("bin/python"), "#!/bin/false\n");
    std::fs::create_dir_all(prefix.join(format!("lib/python3.{minor}/site-packages")))
        .expect("mkdir");
}

fn pyenv_shim(root: &Path) -> PathBuf {
    let shim = root.join("shims/python");
    write(
        &shim,
        &format!(
            "#!/usr/bin/env bash\nset -e\nprogram=\"${{0##*/}}\"\nexport PYENV_ROOT=\"{}\"\nexec \"{}/libexec/pyenv\" exec \"$program\" \"$@\"\n",
            root.display(),
            root.display()
        ),
    );
    shim
}

#[test]
fn a_pyenv_shim_resolves_to_the_selected_version() {
    let root = tmp("pyenv");
    install(&root.join("versions/3.11.7"), "11");
    install(&root.join("versions/3.9.18"), "9");
    write(&root.join("version"), "3.11.7\n");
    let shim = pyenv_shim(&root);
    let project = root.join("project/sub");
    std::fs::create_dir_all(&project).expect("mkdir");
    let env = ShimEnv {
        cwd: project.clone(),
        ..ShimEnv::default()
    };
    // The global version file.
    assert_eq!(
        resolve_shim(&shim, &env),
        Some(root.join("versions/3.11.7/bin/python"))
    );
    // A `.python-version` above the working directory wins over it.
    write(&root.join("project/.python-version"), "3.9.18\n");
    assert_eq!(
        resolve_shim(&shim, &env),
        Some(root.join("versions/3.9.18/bin/python"))
    );
    // PYENV_VERSION wins over both; a version not installed resolves to nothing.
    let env_var = ShimEnv {
        pyenv_version: Some("3.11.7".into()),
        ..env.clone()
    };
    assert_eq!(
        resolve_shim(&shim, &env_var),
        Some(root.join("versions/3.11.7/bin/python"))
    );
    let missing = ShimEnv {
        pyenv_version: Some("3.4.0".into()),
        ..env
    };
    assert_eq!(resolve_shim(&shim, &missing), None);
}

#[test]
fn an_asdf_shim_resolves_from_tool_versions() {
    let data = tmp("asdf");
    install(&data.join("installs/python/3.12.1"), "12");
    let shim = data.join("shims/python");
    write(
        &shim,
        "#!/usr/bin/env bash\n# asdf-plugin: python 3.12.1\nexec /opt/asdf/bin/asdf exec \"python\" \"$@\"\n",
    );
    let project = data.join("project");
    write(
        &project.join(".tool-versions"),
        "nodejs 20.1.0\npython 3.12.1\n",
    );
    let env = ShimEnv {
        cwd: project,
        ..ShimEnv::default()
    };
    assert_eq!(
        resolve_shim(&shim, &env),
        Some(data.join("installs/python/3.12.1/bin/python"))
    );
}

#[test]
fn a_plain_interpreter_is_not_a_shim() {
    let dir = tmp("plain");
    install(&dir.join("venv"), "11");
    assert_eq!(
        resolve_shim(&dir.join("venv/bin/python"), &ShimEnv::default()),
        None
    );
}

/// Through `find_site_packages`, with the process's environment: PYENV_VERSION would win,
/// so the global version file is used only when the variable is not set.
#[test]
fn find_site_packages_follows_a_pyenv_shim() {
    if std::env::var_os("PYENV_VERSION").is_some() {
        eprintln!("skipped: PYENV_VERSION is set in this environment and would select the version");
        return;
    }
    let root = tmp("pyenv-find");
    install(&root.join("versions/3.10.13"), "10");
    write(&root.join("version"), "3.10.13\n");
    let shim = pyenv_shim(&root);
    let found = find_site_packages(&shim).expect("resolved");
    assert_eq!(
        found.dirs,
        vec![root.join("versions/3.10.13/lib/python3.10/site-packages")]
    );
}
