//! The dependency set embedded with torch: numpy (1.21.0+) and Python's standard library
//! (`python` 3.8 - 3.14, from typeshed). Runs the binary on small projects, offline
//! (`--no-cache`: only the embedded indexes answer).

mod common;

use common::{bin, check, text};

fn project(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    common::project_in("deps", name, files)
}

const NUMPY_USES: &str = "import numpy as np\n\nx = np.float(3)\ny = np.NaN\n";

#[test]
fn numpy_aliases_removed_in_1_24_and_2_0() {
    let dir = project("numpy", &[("train.py", NUMPY_USES)]);
    // 1.23.5: `np.float` answers through `__deprecated_attrs__` with a warning.
    let o = check(&dir, &["--target", "numpy==1.23.5"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("warning[AC012]: `numpy.float` is deprecated"),
        "{out}"
    );
    assert!(!out.contains("numpy.NaN"), "{out}");
    // 1.24.0: gone; the fix is numpy's own migration note (`__former_attrs__`, 1.24.2+).
    let o = check(&dir, &["--target", "numpy==1.24.0"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("error[AC002]: `numpy.float` is not in numpy 1.24.0"),
        "{out}"
    );
    assert!(out.contains("use `float` by itself"), "{out}");
    // 1.26.4: `np.NaN` is still there.
    let o = check(&dir, &["--target", "numpy==1.26.4"]);
    let (out, _) = text(&o);
    assert!(!out.contains("numpy.NaN"), "{out}");
    // 2.0.0: `np.NaN` is expired (`__expired_attributes__`, imported from a sibling module).
    let o = check(&dir, &["--target", "numpy==2.0.0"]);
    let (out, _) = text(&o);
    assert!(
        out.contains("error[AC002]: `numpy.NaN` is not in numpy 2.0.0"),
        "{out}"
    );
    assert!(
        out.contains("numpy 2.0.0 says: Use `np.nan` instead."),
        "{out}"
    );
}

#[test]
fn python_modules_removed_in_3_12() {
    // Two modules: a call-time use in the module that fails to import would be behind that
    // failure (`behind.rs`), not an error of its own.
    let src = "from distutils.version import LooseVersion\n";
    let loader = "def load():\n    import imp\n    return imp\n";
    let dir = project("python", &[("setup_tools.py", src), ("loader.py", loader)]);
    let o = check(&dir, &["--target", "python==3.11"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let o = check(&dir, &["--target", "python==3.12"]);
    let (out, _) = text(&o);
    assert!(
        out.contains("error[AC001]: `distutils.version.LooseVersion` is not in python 3.12"),
        "{out}"
    );
    assert!(out.contains("`distutils` does not exist there"), "{out}");
    assert!(
        out.contains("error[AC001]: `imp` is not in python 3.12"),
        "{out}"
    );
    assert!(
        out.contains("call-time: fails when this function runs on python 3.12"),
        "{out}"
    );
    // `requires-python` chooses the versions when nothing else does.
    let dir = project(
        "python-declared",
        &[
            ("setup_tools.py", src),
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nrequires-python = \">=3.9,<3.12\"\n",
            ),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert!(
        out.contains("python 3.9 - 3.11 (declared requires-python"),
        "{out}"
    );
    assert!(!out.contains("AC001"), "{out}");
    assert!(!format!("{out}{err}").contains("older than"), "{out}{err}");
    // Pythons older than the index are named, not dropped silently.
    let dir = project(
        "python-declared-old",
        &[
            ("setup_tools.py", src),
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nrequires-python = \">=3.7,<3.12\"\n",
            ),
        ],
    );
    let (out, err) = text(&check(&dir, &[]));
    assert!(
        format!("{out}{err}").contains("declared requires-python `>=3.7,<3.12` (pyproject.toml:3) also admits Python older than 3.8, which the index of the standard library does not have: not checked there"),
        "{out}{err}"
    );
}

/// A declaration that also admits releases older than the index has says so, as for Python
/// (study 54, D-3: CleanDiffuser's `torch>1.0.0,<2.3.0`); one bounded at the index's oldest
/// release, or none, says nothing.
#[test]
fn releases_older_than_the_index_are_named() {
    let src = "import torch\n\nx = torch.nn.Linear(2, 2)\n";
    let note =
        "also admits torch older than 1.13.0, the oldest release the index has: not checked there";
    for (name, requirement, noted) in [
        ("torch-older", "torch>1.0.0,<2.3.0", true),
        ("torch-at-index", "torch>=1.13,<2.3", false),
        ("torch-bare", "torch", false),
    ] {
        let dir = project(
            name,
            &[
                ("m.py", src),
                ("requirements.txt", &format!("{requirement}\n")),
            ],
        );
        let (out, err) = text(&check(&dir, &[]));
        let all = format!("{out}{err}");
        assert_eq!(all.contains(note), noted, "{requirement}: {all}");
        if noted {
            assert!(
                all.contains(&format!(
                    "declared `{requirement}` (requirements.txt:1) {note}"
                )),
                "{all}"
            );
        }
    }
}

#[test]
fn standard_library_deprecations_name_their_versions() {
    let src = "import asyncio\nimport ctypes\nimport os\nimport shutil\nimport ssl\nimport sysconfig\n\n\ndef run():\n    shutil.which(\"git\")\n    ctypes.POINTER(ctypes.c_size_t)\n    sysconfig.get_config_var(\"Py_GIL_DISABLED\")\n    os.path.commonprefix([\"a\", \"b\"])\n    os.popen(\"ls\")\n    asyncio.get_event_loop_policy()\n    ssl.SSLContext.set_npn_protocols\n    ssl.wrap_socket\n";
    let dir = project("python-deprecations", &[("main.py", src)]);
    let o = check(&dir, &["--target", "python>=3.8"]);
    let (out, err) = text(&o);
    // Removed in 3.12 (its definition is in a `< (3, 12)` branch): the only error.
    assert_eq!(out.matches("error[").count(), 1, "{out}\n{err}");
    assert!(
        out.contains("error[AC002]: `ssl.wrap_socket` is not in python 3.12, 3.13, 3.14"),
        "{out}"
    );
    // Deprecated overloads (Windows only, a string, the `"SO"` key) and a deprecation of 3.15
    // deprecate nothing in 3.8 - 3.14; a soft deprecation warns of nothing.
    for name in [
        "shutil.which",
        "ctypes.POINTER",
        "sysconfig.get_config_var",
        "os.path.commonprefix",
        "os.popen",
    ] {
        assert!(!out.contains(&format!("`{name}`")), "{name}: {out}");
    }
    assert!(
        out.contains(
            "`asyncio.get_event_loop_policy` is deprecated since python 3.14 (targeted: 3.14)"
        ),
        "{out}"
    );
    assert!(
        out.contains("`ssl.SSLContext.set_npn_protocols` is deprecated since python 3.10 (targeted: 3.10 - 3.14)"),
        "{out}"
    );
    // The error on `ssl.wrap_socket` stands for its deprecation; without 3.12+ the warning.
    assert!(!out.contains("`ssl.wrap_socket` is deprecated"), "{out}");
    let o = check(&dir, &["--target", "python<3.12"]);
    let (out, _) = text(&o);
    assert!(
        out.contains("`ssl.wrap_socket` is deprecated in python 3.8 - 3.11 (targeted: 3.8 - 3.11)"),
        "{out}"
    );
    // Before 3.10 nothing here is deprecated.
    let o = check(&dir, &["--target", "python==3.9"]);
    let (out, _) = text(&o);
    assert!(!out.contains("set_npn_protocols"), "{out}");
    assert!(!out.contains("get_event_loop_policy"), "{out}");
}

#[test]
fn standard_library_names_removed_or_added_within_a_module() {
    // Typeshed declares each version's names through `sys.version_info` branches:
    // `inspect.getargspec` went in 3.11, `SafeConfigParser` in 3.12, `pkgutil.find_loader` in
    // 3.14; `itertools.batched` came in 3.12. A name no version's stub declares stays unknown.
    // (`SafeConfigParser` is imported in a function: at module level, the module would fail
    // to import on 3.12 - 3.14, and `find_loader` would be behind that failure; each use is in
    // a function of its own: after `getargspec`, `find_loader` would be behind it on 3.14.)
    let src = "import inspect\nimport pkgutil\nimport sys\n\nif sys.version_info >= (3, 12):\n    from itertools import batched\n\n\ndef run(f):\n    from configparser import SafeConfigParser\n\n\ndef run2(f):\n    inspect.getargspec(f)\n\n\ndef run3(f):\n    pkgutil.find_loader(\"x\")\n    inspect.not_in_any_stub(f)\n";
    let dir = project("python-names", &[("main.py", src)]);
    let o = check(&dir, &["--target", "python>=3.8"]);
    let (out, err) = text(&o);
    assert_eq!(out.matches("error[").count(), 3, "{out}\n{err}");
    assert!(
        out.contains(
            "error[AC001]: `configparser.SafeConfigParser` is not in python 3.12, 3.13, 3.14"
        ),
        "{out}"
    );
    assert!(
        out.contains("error[AC002]: `inspect.getargspec` is not in python 3.11 - 3.14"),
        "{out}"
    );
    assert!(
        out.contains("error[AC002]: `pkgutil.find_loader` is not in python 3.14"),
        "{out}"
    );
    assert!(!out.contains("batched"), "{out}");
    assert!(!out.contains("not_in_any_stub"), "{out}");
    let o = check(&dir, &["--target", "python==3.10"]);
    let (out, _) = text(&o);
    assert!(!out.contains("error["), "{out}");
}

#[test]
fn the_underscore_api_of_namedtuple_and_enum_is_public() {
    // `_replace` (a `NamedTuple` method) and `_name_` (a supported `_sunder_` name of `Enum`)
    // are documented API; `EnumType._value2member_map_` is not (each was AC011 before).
    let src = "import enum\nfrom urllib.parse import urlparse\n\n\nclass Color(enum.Enum):\n    def __new__(cls, *values):\n        obj = object.__new__(cls)\n        obj._value_ = values[0]\n        for other in values[1:]:\n            cls._value2member_map_[other] = obj\n        return obj\n\n    def __repr__(self):\n        return self._name_\n\n\ndef run(path):\n    parsed = urlparse(path)\n    return parsed._replace(query=\"\").geturl()\n";
    let dir = project("python-underscore-api", &[("main.py", src)]);
    let o = check(&dir, &["--select", "AC011", "--target", "python==3.12"]);
    let (out, err) = text(&o);
    assert!(!out.contains("_replace"), "{out}\n{err}");
    assert!(!out.contains("`_name_`"), "{out}");
    assert!(out.contains("_value2member_map_"), "{out}");
}

#[test]
fn tests_of_the_python_version_guard_what_they_test() {
    // `tomllib` comes in 3.11, `distutils` and `imp` go in 3.12: each use sits where its test
    // admits only the versions that have it, through `sys.version_info` (also sliced, imported
    // by name, or kept in a flag) and `platform.python_version()`.
    let src = "import sys\nimport platform\nfrom sys import version_info\nfrom packaging.version import Version\n\nif sys.version_info >= (3, 11):\n    import tomllib\nelse:\n    tomllib = None\n\nif sys.version_info[:2] < (3, 12):\n    from distutils.version import LooseVersion\n\nPY312 = version_info >= (3, 12)\n\n\ndef load():\n    if PY312:\n        return None\n    import imp\n    return imp\n\n\ndef later():\n    if Version(platform.python_version()) >= Version(\"3.11\"):\n        import tomllib as t\n        return t\n\n\ndef unguarded():\n    if sys.version_info.minor >= 11:\n        import tomllib as t\n        return t\n";
    let dir = project("python-guards", &[("main.py", src)]);
    let o = check(&dir, &["--target", "python>=3.8"]);
    let (out, _) = text(&o);
    // `.minor` is a number, not a version: that test says nothing (one error, on 3.8 - 3.10).
    assert_eq!(out.matches("error[").count(), 1, "{out}");
    assert!(
        out.contains("error[AC001]: `tomllib` is not in python 3.8, 3.9, 3.10"),
        "{out}"
    );
    assert!(out.contains("main.py:32"), "{out}");
}

#[test]
fn the_first_item_of_version_info_is_the_major_version() {
    // 4DGaussians' `database.py` (study 31): `np.getbuffer` (Python 2 only) in the `else` of
    // `sys.version_info[0] >= 3`, inline or kept in a flag; the branches swapped, it runs.
    let guarded = "import sys\nimport numpy as np\n\nIS_PY3 = sys.version_info[0] >= 3\n\n\ndef blob(a):\n    if sys.version_info[0] >= 3:\n        return a.tobytes()\n    return np.getbuffer(a)\n\n\ndef blob2(a):\n    if IS_PY3:\n        return a.tobytes()\n    else:\n        return np.getbuffer(a)\n";
    let dir = project("python-major-item", &[("main.py", guarded)]);
    let o = check(&dir, &["--target", "numpy==1.26.4"]);
    let (out, err) = text(&o);
    assert!(!out.contains("getbuffer"), "{out}\n{err}");
    let swapped = "import sys\nimport numpy as np\n\n\ndef blob(a):\n    if sys.version_info[0] >= 3:\n        return np.getbuffer(a)\n    return a.tobytes()\n";
    let dir = project("python-major-item-swapped", &[("main.py", swapped)]);
    let o = check(&dir, &["--target", "numpy==1.26.4"]);
    let (out, _) = text(&o);
    assert!(
        out.contains("error[AC002]: `numpy.getbuffer` is not in numpy 1.26.4"),
        "{out}"
    );
}

#[test]
fn releases_another_declared_package_rules_out_are_not_checked() {
    // Every peft 0.11 - 0.20 requires `accelerate>=0.21.0` (their Requires-Dist in the index):
    // declared together, accelerate 0.16 - 0.20 are never installed, so a use missing there
    // is reported only on the releases peft leaves.
    let src = "from accelerate.utils import is_peft_model\n";
    let alone = project(
        "requirers-alone",
        &[
            ("train.py", src),
            ("requirements.txt", "accelerate>=0.16\n"),
        ],
    );
    let o = check(&alone, &["--select", "AC001"]);
    let (out, _) = text(&o);
    assert!(
        out.contains("is not in accelerate 0.16.0 - 0.26.1"),
        "{out}"
    );
    let both = project(
        "requirers-both",
        &[
            ("train.py", src),
            ("requirements.txt", "accelerate>=0.16\npeft>=0.11,<0.21\n"),
        ],
    );
    let o = check(&both, &["--select", "AC001"]);
    let (out, err) = text(&o);
    assert!(
        out.contains("is not in accelerate 0.21.0 - 0.26.1"),
        "{out}\n{err}"
    );
    let all = format!("{out}{err}");
    assert!(
        all.contains("accelerate 0.16.0 - 0.20.3 left out: no release of peft that `peft>=0.11,<0.21` (requirements.txt:2) admits accepts them (peft 0.11.1 requires `accelerate (>=0.21.0)`)"),
        "{all}"
    );
    // The other direction: torchvision releases before 0.21 pin a torch older than 2.6 (their
    // own Requires-Dist), so beside `torch>=2.6` they are never installed. `v2` came in 0.15.
    let beside = project(
        "requirers-own",
        &[
            (
                "train.py",
                "from torchvision.transforms import v2
",
            ),
            (
                "requirements.txt",
                "torch>=2.6
torchvision
",
            ),
        ],
    );
    let o = check(&beside, &["--select", "AC001"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("torchvision 0.21.0 - "), "{out}");
    assert!(
        format!("{out}{err}").contains("torchvision 0.14.0 - 0.20.1 left out: they require releases of torch that `torch>=2.6` (requirements.txt:1) does not admit (torchvision 0.14.0 requires `torch (==1.13.0)`)"),
        "{out}{err}"
    );
}

/// An undeclared torchvision beside a torch pin older than the index: every indexed
/// torchvision requires a newer torch (0.14.0 `torch (==1.13.0)`), so the one installed is
/// older than the index too and is not checked (pytorch-YOLOv4's `torch==1.4.0`,
/// `docs/false-alarm-study-41.md`, F-AA); beside an indexed pin, the newest that pin admits.
#[test]
fn an_undeclared_companion_of_a_pin_older_than_the_index_is_not_checked() {
    let src = "from torchvision.models.utils import load_state_dict_from_url\n";
    let old = project(
        "companion-old",
        &[("mod.py", src), ("requirements.txt", "torch==1.4.0\n")],
    );
    let o = check(&old, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        format!("{out}{err}").contains("torchvision is not declared or installed, and no indexed release of it is known to install beside `torch==1.4.0` (requirements.txt:1)"),
        "{out}\n{err}"
    );
    let new = project(
        "companion-new",
        &[("mod.py", src), ("requirements.txt", "torch==2.4.1\n")],
    );
    let o = check(&new, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("is not in torchvision 0.19.1"), "{out}");
}

/// A declared range older than the index (svdiff-pytorch's `transformers<=4.27.3`; study 43,
/// F-AE): which huggingface-hub comes with it is not known, so the undeclared hub is not
/// checked; with an indexed range it is bounded by what those releases require.
#[test]
fn an_undeclared_requirement_of_a_range_older_than_the_index_is_not_checked() {
    let src = "from huggingface_hub import HfFolder\n";
    let old = project(
        "hub-old",
        &[
            ("mod.py", src),
            ("requirements.txt", "transformers>=4.25.1,<=4.27.3\n"),
        ],
    );
    let o = check(&old, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        format!("{out}{err}").contains("huggingface-hub is not declared or installed, and no indexed release of it is known to install beside `transformers>=4.25.1,<=4.27.3` (requirements.txt:1) (it admits only releases of transformers older than the index"),
        "{out}\n{err}"
    );
    let unbounded = project(
        "hub-new",
        &[("mod.py", src), ("requirements.txt", "transformers\n")],
    );
    let o = check(&unbounded, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("`huggingface_hub.HfFolder` is not in huggingface-hub"),
        "{out}"
    );
}

#[test]
fn distutils_after_setuptools_is_setuptools_copy() {
    // Python 3.12 has no `distutils`; importing setuptools first installs its own copy.
    let run = |name: &str, file: &str, src: &str| {
        let dir = project(name, &[(file, src)]);
        let o = check(&dir, &["--select", "AC001", "--target", "python==3.12"]);
        text(&o).0
    };
    let after = run(
        "distutils-after",
        "build_tools.py",
        "from setuptools import setup\nfrom distutils.version import LooseVersion\n",
    );
    assert!(after.contains("No errors"), "{after}");
    let before = "from distutils.version import LooseVersion\nfrom setuptools import setup\n";
    let out = run("distutils-before", "build_tools.py", before);
    assert!(
        out.contains("`distutils.version.LooseVersion` is not in python 3.12"),
        "{out}"
    );
    // A setup script that imports setuptools runs in a setuptools build, whose `.pth` hook
    // supplies `distutils` from the start (bitsandbytes' `setup.py`); one that does not
    // import it is judged as any file.
    let out = run("distutils-before-setup", "setup.py", before);
    assert!(out.contains("No errors"), "{out}");
    // The same with the import in a `try` whose handler falls back on `distutils`
    // (HunyuanDiT's `IndexKits/setup.py`, docs/false-alarm-study-40.md, F-X).
    let out = run(
        "distutils-fallback-setup",
        "setup.py",
        "try:\n    from setuptools import setup\nexcept ImportError:\n    from distutils.core import setup\n",
    );
    assert!(out.contains("No errors"), "{out}");
    let out = run(
        "distutils-setup-alone",
        "setup.py",
        "from distutils.version import LooseVersion\n",
    );
    assert!(
        out.contains("`distutils.version.LooseVersion` is not in python 3.12"),
        "{out}"
    );
}

/// A declared setuptools 60 or later supplies `distutils` at interpreter start (its `.pth`
/// shim), so the standard library's lack of it on 3.12 breaks nothing (NeMo); an older or
/// unbounded setuptools does not.
#[test]
fn a_declared_setuptools_supplies_distutils() {
    let src = "from distutils.version import LooseVersion\n";
    let run = |name: &str, deps: &str| {
        let pyproject = format!("[project]\nname = \"p\"\ndependencies = [{deps}]\n");
        let dir = project(name, &[("build.py", src), ("pyproject.toml", &pyproject)]);
        text(&check(
            &dir,
            &["--select", "AC001", "--target", "python==3.12"],
        ))
        .0
    };
    // A setuptools before 60 cannot run without the standard library's `distutils`: on 3.12
    // an unbounded one is 60 or later.
    for (name, deps) in [
        ("distutils-setuptools-70", "\"setuptools>=70.0.0\""),
        ("distutils-setuptools-any", "\"setuptools\""),
    ] {
        let shimmed = run(name, deps);
        assert!(shimmed.contains("No errors"), "{deps}: {shimmed}");
    }
    let out = run("distutils-setuptools-old", "\"setuptools>=40,<60\"");
    assert!(
        out.contains("`distutils.version.LooseVersion` is not in python 3.12"),
        "{out}"
    );
}

#[test]
fn setuptools_a_declared_package_requires_supplies_distutils() {
    // torch 2.5 and later require `setuptools; python_version >= "3.12"` (their Requires-Dist
    // in the index); 2.2 - 2.4 have wheels for 3.12 and do not; only 2.9 and later have wheels
    // for 3.14, all requiring it.
    let src = "from distutils.version import LooseVersion\nimport torch\n";
    let run = |name: &str, torch: &str, python: &str| {
        let pyproject = format!("[project]\nname = \"p\"\ndependencies = [\"{torch}\"]\n");
        let dir = project(name, &[("build.py", src), ("pyproject.toml", &pyproject)]);
        text(&check(&dir, &["--select", "AC001", "--target", python])).0
    };
    let out = run("distutils-torch-2.5", "torch>=2.5", "python==3.12");
    assert!(out.contains("No errors"), "{out}");
    let out = run("distutils-torch-2.0-3.14", "torch>=2.0", "python==3.14");
    assert!(out.contains("No errors"), "{out}");
    let out = run("distutils-torch-2.2", "torch>=2.2", "python==3.12");
    assert!(
        out.contains("`distutils.version.LooseVersion` is not in python 3.12"),
        "{out}"
    );
    // Undeclared, torch is checked at its newest release, installed with what it requires
    // (study 21: GraphGPS declares nothing); a package it does not import counts for nothing.
    let bare = |name: &str, src: &str| {
        let dir = project(name, &[("build.py", src)]);
        text(&check(
            &dir,
            &["--select", "AC001", "--target", "python==3.14"],
        ))
        .0
    };
    let out = bare("distutils-torch-undeclared", src);
    assert!(out.contains("No errors"), "{out}");
    // `--show-guarded` names the shim as the reason, not a test the import happens to sit
    // under (study 29: jukebox's `if hasattr(model, 'forward'):`).
    let dir = project(
        "distutils-torch-under-a-test",
        &[(
            "build.py",
            "import torch\n\ndef f(m):\n    if hasattr(m, 'forward'):\n        from distutils.version import LooseVersion\n",
        )],
    );
    let out = text(&check(
        &dir,
        &[
            "--select",
            "AC001",
            "--target",
            "python==3.14",
            "--show-guarded",
        ],
    ))
    .0;
    assert!(
        out.contains("guarded by the `distutils` that setuptools supplies"),
        "{out}"
    );
    let out = bare(
        "distutils-nothing-undeclared",
        "from distutils.version import LooseVersion
",
    );
    assert!(
        out.contains("`distutils.version.LooseVersion` is not in python 3.14"),
        "{out}"
    );
}

#[test]
fn a_use_whose_test_on_another_package_never_holds_is_not_checked() {
    // `numpy.typing` is in every targeted numpy, so the handler never runs; no targeted numpy
    // is 9 or newer. A test that holds on some numpy leaves the torch use checked.
    let src = "import numpy as np\n\ntry:\n    from numpy.typing import NDArray\n\n    def f(x):\n        return x\nexcept:\n    from torch.distributed.pipelining import pipeline\n\nif np.__version__ >= \"9\":\n    from torch.distributed.pipelining import SplitPoint\n\nif np.__version__ >= \"1.26\":\n    from torch.distributed.pipelining import PipelineStage\n";
    let dir = project(
        "other-package-tests",
        &[
            ("train.py", src),
            ("requirements.txt", "numpy>=1.21,<2\ntorch==2.3.0\n"),
        ],
    );
    let o = check(&dir, &["--select", "AC001"]);
    let (out, _) = text(&o);
    assert_eq!(out.matches("error[").count(), 1, "{out}");
    assert!(
        out.contains("`torch.distributed.pipelining.PipelineStage` is not in torch 2.3.0"),
        "{out}"
    );
}

#[test]
fn index_list_shows_the_dependency_set() {
    let o = bin()
        .args(["--no-cache", "index", "list"])
        .output()
        .expect("run apicompat");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    for package in ["numpy", "python", "torch", "torchvision", "colossalai"] {
        assert!(out.contains(package), "{package} missing from:\n{out}");
    }
    let o = bin()
        .args(["--no-cache", "query", "numpy.bool8"])
        .output()
        .expect("run apicompat");
    let (out, _) = text(&o);
    assert!(out.contains("deprecated in"), "{out}");
}

/// Lockfile pins per platform (open-instruct's): a local build label pins its release, and
/// declarations under different markers are alternatives, not all at once.
#[test]
fn pins_per_platform_and_local_builds_pick_their_releases() {
    let main = "from torch.ao.quantization import move_exported_model_to_eval\n";
    let pyproject =
        "[project]\nname = \"demo\"\nversion = \"0.1\"\ndependencies = [\"torch>=2.10.0\"]\n";
    let pins = "torch==2.10.0 ; sys_platform == 'darwin'\ntorch==2.10.0+cu128 ; platform_machine == 'x86_64' and sys_platform == 'linux'\ntorch==2.10.0+cu130 ; platform_machine == 'aarch64' and sys_platform == 'linux'\n";
    let dir = project(
        "platform-pins",
        &[
            ("main.py", main),
            ("pyproject.toml", pyproject),
            ("requirements.txt", pins),
        ],
    );
    let o = check(&dir, &["--output-format", "json"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let torch = report["summary"]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["package"] == "torch")
        .unwrap()
        .clone();
    assert_eq!(torch["releases"], serde_json::json!(["2.10.0"]), "{torch}");
    assert!(!out.contains("admit no release together"), "{out}");
    // Different releases per platform: both are checked (2.11.0 lacks the function).
    let pins =
        "torch==2.10.0 ; sys_platform == 'darwin'\ntorch==2.11.0 ; sys_platform == 'linux'\n";
    let dir = project(
        "platform-pins-differ",
        &[
            ("main.py", main),
            ("pyproject.toml", pyproject),
            ("requirements.txt", pins),
        ],
    );
    let (out, _) = text(&check(&dir, &[]));
    assert!(
        out.contains("error[AC001]: `torch.ao.quantization.move_exported_model_to_eval` is not in torch 2.11.0"),
        "{out}"
    );
    assert!(out.contains("against torch 2.10.0 - 2.11.0"), "{out}");
}

/// A pin that would leave only releases the other declared packages rule out is no advice:
/// every torchvision that has `to_image_tensor` (0.15) requires a torch that `torch>=2.5.1`
/// does not admit (sam2's `training/dataset/transforms.py`).
#[test]
fn a_pin_no_other_declared_package_lets_be_installed_is_not_advised() {
    let src = "import torchvision.transforms.v2.functional as Fv2\n\n\ndef f(img):\n    return Fv2.to_image_tensor(img)\n";
    let dir = project(
        "pin-refused",
        &[
            ("m.py", src),
            ("requirements.txt", "torch>=2.5.1\ntorchvision>=0.20.1\n"),
        ],
    );
    let (out, _) = text(&check(&dir, &[]));
    assert!(
        out.contains("no requirement fixes it: the releases `torchvision<0.16.0` admits cannot be installed beside the project's other requirements: they require releases of torch that `torch>=2.5.1` (requirements.txt:1) does not admit"),
        "{out}"
    );
    assert!(!out.contains("help: require `torchvision<0.16.0`"), "{out}");
    // Alone, the pin stays.
    let dir = project(
        "pin-alone-tv",
        &[("m.py", src), ("requirements.txt", "torchvision>=0.20.1\n")],
    );
    let (out, _) = text(&check(&dir, &[]));
    assert!(out.contains("help: require `torchvision<0.16.0`"), "{out}");
}

/// A pin written as a range (`>=4.46.1,<=4.46.1`, parler-tts) is checked like `==4.46.1`:
/// against the indexed release of its series.
#[test]
fn a_pin_written_as_a_range_is_checked_against_its_series() {
    let dir = project(
        "range-pin",
        &[
            (
                "main.py",
                "from transformers.models.qwen3 import Qwen3Config\n",
            ),
            ("requirements.txt", "transformers>=4.46.1,<=4.46.1\n"),
        ],
    );
    let (out, _) = text(&check(&dir, &[]));
    assert!(
        out.contains(
            "error[AC001]: `transformers.models.qwen3.Qwen3Config` is not in transformers 4.46.3"
        ),
        "{out}"
    );
    assert!(
        out.contains("transformers 4.46.1 is not indexed; checked against 4.46.3"),
        "{out}"
    );
}

/// A pin the index lacks is checked on the indexed release of its series, and the messages
/// say so: `torch==2.3.2` does not admit 2.3.1 (study 48's M1, `pytorch-lightning==2.1.3`
/// checked on 2.1.4).
#[test]
fn messages_name_the_release_standing_for_a_pin() {
    let dir = project(
        "stand-in-pin",
        &[
            ("main.py", "import torch.distributed.pipelining\n"),
            ("requirements.txt", "torch==2.3.2\n"),
        ],
    );
    let (out, _) = text(&check(&dir, &[]));
    assert!(
        out.contains(
            "is not in torch 2.3.1 (declared `torch==2.3.2`; the index lacks 2.3.2, and 2.3.1 of its series stands for it); it exists from 2.4.0"
        ),
        "{out}"
    );
    assert!(
        out.contains("admits torch 2.3.2, checked on 2.3.1 of its series (importing fails)"),
        "{out}"
    );
    // Declarations that contradict each other are checked each on its own releases: the
    // range's release stands for no pin.
    std::fs::write(dir.join("requirements.txt"), "torch==2.3.1\ntorch>=2.5\n").unwrap();
    let (out, _) = text(&check(&dir, &[]));
    assert!(out.contains("admit torch 2.3.1 (importing fails)"), "{out}");
    assert!(!out.contains("of its series"), "{out}");
}

/// A keyword renamed (`np.reshape(a, newshape=...)`, `shape` from numpy 2.1, `newshape` gone in
/// 2.4) is one break: the AC003 on the keyword, not also an AC013 on the call it leaves
/// unbound (EasyR1's `verl/protocol.py`).
#[test]
fn a_renamed_keyword_is_reported_once() {
    let dir = project(
        "renamed-keyword",
        &[(
            "m.py",
            "import numpy as np\n\n\ndef f(a):\n    return np.reshape(a, newshape=(2, 2))\n",
        )],
    );
    let (out, _) = text(&check(&dir, &["--target", "numpy>=2.0"]));
    assert!(
        out.contains("error[AC003]: `numpy.reshape` does not accept the keyword `newshape`"),
        "{out}"
    );
    assert!(!out.contains("AC013"), "{out}");
}

#[test]
fn an_extra_the_project_asks_for_brings_its_requirements() {
    // `transformers[torch]` beside `torch<2`: from 4.48 transformers' `torch` extra requires
    // `torch>=2.0`, so those releases never install here (study 21: dolly). Without the
    // extra, nothing is left out.
    let src = "from transformers import TrainingArguments\n\n\ndef make_args(out):\n    return TrainingArguments(output_dir=out, evaluation_strategy=\"steps\")\n";
    let run = |name: &str, reqs: &str| {
        let dir = project(name, &[("main.py", src), ("requirements.txt", reqs)]);
        let o = check(&dir, &[]);
        let (out, err) = text(&o);
        format!("{out}{err}")
    };
    let all = run(
        "extra-torch",
        "transformers[torch]>=4.28.1,<5\ntorch>=1.13.1,<2\n",
    );
    assert!(all.contains("No errors"), "{all}");
    assert!(
        all.contains("transformers 4.48.3 - 4.57.6 left out: they require releases of torch that `torch>=1.13.1,<2` (requirements.txt:2) does not admit (transformers 4.48.3 requires `torch >=2.0 ; extra == 'torch'`)"),
        "{all}"
    );
    let all = run("no-extra", "transformers>=4.28.1,<5\ntorch>=1.13.1,<2\n");
    assert!(all.contains("evaluation_strategy"), "{all}");
}
