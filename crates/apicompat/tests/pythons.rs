//! The Pythons a project runs on, from its declarations: releases of Python no declared package
//! installs on are not checked, and packages are checked on the releases that install on the
//! Pythons left (wheels, `Requires-Python`). Runs the binary on small projects, offline
//! (`--no-cache`: only the embedded indexes answer).

mod common;

use common::{check, text};

fn project(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    common::project_in("pythons", name, files)
}

#[test]
fn python_releases_no_declared_package_supports_are_not_checked() {
    // numpy 1.21.6 requires Python `>=3.7,<3.11`: beside it, Python 3.11 and later never run
    // the project, so `imp` (gone in 3.12) breaks nothing; without the pin it does.
    let src = "import imp\nimport numpy\n";
    let pyproject = |deps: &str| {
        format!("[project]\nname = \"p\"\nrequires-python = \">=3.9\"\ndependencies = [{deps}]\n")
    };
    let pinned = project(
        "python-by-requires",
        &[
            ("m.py", src),
            ("pyproject.toml", &pyproject("\"numpy==1.21.6\"")),
        ],
    );
    let o = check(&pinned, &["--select", "AC001"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("python 3.9 - 3.10 (declared requires-python"),
        "{out}"
    );
    assert!(
        format!("{out}{err}").contains("python 3.11 - 3.14 left out: no release of numpy that `numpy==1.21.6` (pyproject.toml:4) admits supports them (numpy 1.21.6 requires Python `>=3.7,<3.11`)"),
        "{out}{err}"
    );
    let loose = project(
        "python-by-requires-loose",
        &[("m.py", src), ("pyproject.toml", &pyproject("\"numpy\""))],
    );
    let o = check(&loose, &["--select", "AC001"]);
    let (out, err) = text(&o);
    assert!(
        out.contains("`imp` is not in python 3.12, 3.13, 3.14"),
        "{out}\n{err}"
    );
}

#[test]
fn python_releases_no_admitted_wheel_is_built_for_are_not_checked() {
    // torch 2.6.0 - 2.8.0 say `Requires-Python: >=3.9.0` but ship wheels for CPython 3.9 -
    // 3.13 only, and no sdist: beside `torch>=2.6,<2.9` Python 3.14 never runs the project.
    // torch 2.9.0 has cp314 wheels, so an open `torch>=2.6` keeps 3.14.
    let src = "import imghdr\nimport torch\n";
    let pyproject = |deps: &str| {
        format!("[project]\nname = \"p\"\nrequires-python = \">=3.9\"\ndependencies = [{deps}]\n")
    };
    let dir = project(
        "python-by-wheels",
        &[
            ("m.py", src),
            ("pyproject.toml", &pyproject("\"torch>=2.6,<2.9\"")),
        ],
    );
    let o = check(&dir, &["--select", "AC001"]);
    let (out, err) = text(&o);
    let all = format!("{out}{err}");
    assert!(
        all.contains("python 3.14 left out: no release of torch that `torch>=2.6,<2.9` (pyproject.toml:4) admits has a wheel for it (torch 2.6.0 - 2.8.0 have wheels for Python 3.9 - 3.13 only, no sdist)"),
        "{all}"
    );
    assert!(
        all.contains("`imghdr` is not in python 3.13 (declared requires-python"),
        "{all}"
    );
    assert!(
        all.contains("python 3.9 - 3.13 (declared requires-python `>=3.9` (pyproject.toml:3), within what `torch>=2.6,<2.9` (pyproject.toml:4) accepts)"),
        "{all}"
    );
    let open = project(
        "python-by-wheels-open",
        &[
            ("m.py", src),
            ("pyproject.toml", &pyproject("\"torch>=2.6\"")),
        ],
    );
    let o = check(&open, &["--select", "AC001"]);
    let (out, err) = text(&o);
    assert!(
        out.contains("`imghdr` is not in python 3.13, 3.14"),
        "{out}\n{err}"
    );
    assert!(
        !format!("{out}{err}").contains("has a wheel"),
        "{out}\n{err}"
    );
    // `--target` is never narrowed: 3.14 is checked; torch is not narrowed to nothing.
    let o = check(&dir, &["--select", "AC001", "--target", "python==3.14"]);
    let (out, err) = text(&o);
    assert!(
        out.contains("`imghdr` is not in python 3.14"),
        "{out}\n{err}"
    );
    assert!(
        format!("{out}{err}").contains("no release of torch the project admits installs on the Pythons it is checked on (python 3.14: --target `python==3.14`): not narrowed by Python"),
        "{out}\n{err}"
    );
}

#[test]
fn releases_without_a_wheel_for_the_pythons_checked_are_not_checked() {
    // torch 2.0 - 2.1 have wheels for CPython 3.8 - 3.11 only (no sdist): a project on
    // Python 3.12 and newer never installs them. `torch.nn.attention` exists from 2.3.0.
    let dir = project(
        "releases-by-wheels",
        &[
            ("m.py", "from torch.nn.attention import sdpa_kernel\n"),
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nrequires-python = \">=3.12\"\ndependencies = [\"torch>=2.0\"]\n",
            ),
        ],
    );
    let o = check(&dir, &["--select", "AC001"]);
    let (out, err) = text(&o);
    let all = format!("{out}{err}");
    assert!(
        all.contains("torch 2.0.0 - 2.1.2 left out: they install on no Python the project is checked on (python 3.12 - 3.14: declared requires-python `>=3.12` (pyproject.toml:3); torch 2.1.2 has wheels for Python 3.8 - 3.11 only, no sdist)"),
        "{all}"
    );
    assert!(
        out.contains("is not in torch 2.2.0, 2.2.1, 2.2.2 (declared `torch>=2.0`"),
        "{out}"
    );
    assert!(
        out.contains("torch 2.2.0 - 2.15.0 (declared `torch>=2.0` (pyproject.toml:4), within what python 3.12 - 3.14 accepts)"),
        "{out}"
    );
    // `Requires-Python` too, sdist or not: numpy 2.1 and later require Python 3.10 or newer
    // (stylegan3; study 17, F-B), so `np.percentile(interpolation=)`, gone in 2.4, is not
    // checked there.
    let dir = project(
        "releases-by-requires-python",
        &[
            (
                "m.py",
                "import numpy as np\n\nnp.percentile([1], 50, interpolation=\"lower\")\n",
            ),
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nrequires-python = \">=3.8,<3.10\"\ndependencies = [\"numpy>=1.20\"]\n",
            ),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("numpy 2.1.0 - 2.5.5 left out: they install on no Python the project is checked on (python 3.8 - 3.9"),
        "{out}"
    );
}

#[test]
fn a_companion_narrowed_by_python_narrows_the_package_it_requires() {
    // dinov3 (`docs/false-alarm-study-13.md`, F-B): on Python 3.11 every torchvision the
    // index has from 0.15.1 installs and requires torch 2.0 or later (0.14 has wheels for
    // 3.7 - 3.10 only), so unversioned `torch` and `torchvision` never run torch 1.13, whose
    // `F.scaled_dot_product_attention` is missing. The requires-python comes through a name.
    let dir = project(
        "companion-by-python",
        &[
            (
                "m.py",
                "import torch\ndef f(q, k, v):\n    return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n",
            ),
            (
                "setup.py",
                "from setuptools import setup\nREQUIRES_PYTHON = \">=3.11\"\nsetup(name=\"p\", python_requires=REQUIRES_PYTHON, install_requires=[\"torch\", \"torchvision\"])\n",
            ),
        ],
    );
    let o = check(&dir, &["--select", "AC002"]);
    let (out, err) = text(&o);
    let all = format!("{out}{err}");
    assert!(
        all.contains("torch 1.13.0 - 1.13.1 left out: no release of torchvision that `torchvision` (setup.py:3) admits on python 3.11 - 3.14 accepts them (torchvision 0.15.1 requires `torch (==2.0.0)`)"),
        "{all}"
    );
    assert!(out.contains("No errors"), "{out}");
    // On Python 3.10, torchvision 0.14 installs: torch 1.13 stays, and the call breaks there.
    std::fs::write(
        dir.join("setup.py"),
        "from setuptools import setup\nsetup(name=\"p\", python_requires=\">=3.10\", install_requires=[\"torch\", \"torchvision\"])\n",
    )
    .unwrap();
    let o = check(&dir, &["--select", "AC002"]);
    let (out, _) = text(&o);
    assert!(out.contains("scaled_dot_product_attention"), "{out}");
    assert!(out.contains("1.13.0"), "{out}");
}

#[test]
fn packages_with_an_sdist_or_a_pure_wheel_are_not_narrowed_by_wheels() {
    // numpy 2.0.0 has no cp313 wheel but an sdist; transformers ships `py3-none-any` wheels:
    // neither says anything of the Pythons beyond Requires-Python.
    let dir = project(
        "pure-by-wheels",
        &[
            ("m.py", "import imghdr\nimport numpy\nimport transformers\n"),
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nrequires-python = \">=3.10\"\ndependencies = [\"numpy==2.0.0\", \"transformers>=4.45\"]\n",
            ),
        ],
    );
    let o = check(&dir, &["--select", "AC001"]);
    let (out, err) = text(&o);
    let all = format!("{out}{err}");
    assert!(
        out.contains("`imghdr` is not in python 3.13, 3.14"),
        "{all}"
    );
    assert!(!all.contains("wheel"), "{all}");
    assert!(
        all.contains("numpy 2.0.0 (declared `numpy==2.0.0`"),
        "{all}"
    );
}

/// A package the project does not declare is checked against its newest release that can be
/// installed on the Pythons the project runs on: numpy 2.x requires a newer Python than 3.8,
/// so `np.Inf` (gone in 2.0) is no break for a project on 3.8 (study 10's form AD).
#[test]
fn an_undeclared_package_is_checked_at_its_newest_release_for_the_projects_pythons() {
    let run = |name: &str, python: &str| {
        let pyproject = format!(
            "[project]\nname = \"p\"\nrequires-python = \"{python}\"\ndependencies = [\"torch>=2.0\"]\n"
        );
        let dir = project(
            name,
            &[
                ("main.py", "import numpy as np\n\nX = np.Inf\n"),
                ("pyproject.toml", &pyproject),
            ],
        );
        text(&check(&dir, &[])).0
    };
    let old = run("undeclared-numpy-py38", ">=3.8,<3.9");
    assert!(
        old.contains("numpy is not declared or installed; checked against the newest indexed release installable on python 3.8"),
        "{old}"
    );
    assert!(old.contains("No errors"), "{old}");
    let new = run("undeclared-numpy-py312", ">=3.12");
    assert!(
        new.contains("error[AC002]: `numpy.Inf` is not in numpy"),
        "{new}"
    );
}

/// The Pythons a pin leaves narrow the packages the project does not declare, as a declared
/// `requires-python` does: `torch==2.0.1` has wheels up to Python 3.11, where numpy 2.5
/// (`Requires-Python: >=3.12`) never installs, so numpy is checked at the newest release that
/// does (study 24's D6, LLaMA2-Accessory).
#[test]
fn the_pythons_a_pin_leaves_narrow_undeclared_packages() {
    let dir = project(
        "pin-caps-python",
        &[
            ("main.py", "import numpy as np\n\nX = np.long\n"),
            ("requirements.txt", "torch==2.0.1\n"),
        ],
    );
    let (out, _) = text(&check(&dir, &[]));
    assert!(
        out.contains("numpy is not declared or installed; checked against the newest indexed release installable on python 3.8 - 3.11 (the Pythons that `torch==2.0.1` (requirements.txt:1) admits), 2.4.6"),
        "{out}"
    );
    // Without the pin nothing caps Python: numpy's newest.
    let dir = project(
        "no-pin-python",
        &[
            ("main.py", "import numpy as np\n\nX = np.long\n"),
            ("requirements.txt", "torch>=2.0.1\n"),
        ],
    );
    let (out, _) = text(&check(&dir, &[]));
    assert!(
        out.contains(
            "numpy is not declared or installed; checked against the newest indexed release, 2.5.5"
        ),
        "{out}"
    );
}

#[test]
fn a_python_older_than_the_index_bounds_the_undeclared_packages() {
    // HRNet-style environment (study 32): conda's `python=3.6`, numpy undeclared. numpy 1.21
    // (the oldest indexed) requires Python 3.7: no indexed release installs on 3.6, so numpy
    // is not checked, with a note, rather than checked at its newest (where `np.float` is
    // gone). On 3.7, numpy 1.21.6 (the newest that installs there) still has it.
    let src =
        "import numpy as np\n\n\ndef zeros(n):\n    return np.zeros((n, 3), dtype=np.float)\n";
    let env = |python: &str| format!("name: x\ndependencies:\n  - python={python}\n  - pip\n");
    let dir = project(
        "python-below-index",
        &[("environment.yml", &env("3.6")), ("lib/data.py", src)],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("numpy is not checked: no indexed release of it installs on python 3.6"),
        "{all}"
    );
    let dir = project(
        "python-below-index-37",
        &[("environment.yml", &env("3.7")), ("lib/data.py", src)],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(format!("{out}{err}").contains("1.21.6"), "{out}\n{err}");
    // Nothing declared: numpy's newest, where `np.float` is gone.
    let dir = project("python-below-index-none", &[("lib/data.py", src)]);
    let o = check(&dir, &[]);
    let (out, _) = text(&o);
    assert!(out.contains("error[AC002]: `numpy.float`"), "{out}");
}
