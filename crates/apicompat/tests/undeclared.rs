//! A package a project uses without declaring it is checked against the newest release its
//! declared packages admit (`docs/false-alarm-study-14.md`, F-F): it is installed as their
//! requirement. Real data, offline (`--no-cache`).

mod common;

use common::{check, text};

fn project(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    common::project_in("undeclared", name, files)
}

/// transformers 4.51.3 requires `huggingface-hub<1.0,>=0.30.0`; `HfFolder` is gone from hub
/// 1.0 (ColossalAI's dreambooth examples).
#[test]
fn a_requirement_of_a_declared_package_bounds_it() {
    let source =
        "from huggingface_hub import HfFolder\n\n\ndef token():\n    return HfFolder.get_token()\n";
    let dir = project(
        "hub",
        &[
            ("a.py", source),
            ("requirements.txt", "transformers==4.51.3\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("huggingface-hub is not declared or installed; checked against the newest release that `transformers==4.51.3` (requirements.txt:1) admits, 0.36.2 (transformers 4.51.3 requires `huggingface-hub<1.0,>=0.30.0`)"),
        "{all}"
    );
    // A pin the index lacks stands for the indexed release of its series (open-muse's
    // `transformers==4.33`, study 38 F-S): what 4.33.3 requires bounds it.
    std::fs::write(dir.join("requirements.txt"), "transformers==4.33\n").unwrap();
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("checked against the newest release that `transformers==4.33` (requirements.txt:1) admits, 0.36.2 (transformers 4.33.3 requires"),
        "{all}"
    );
    // Declaring a package that does not require it bounds nothing: the newest release.
    std::fs::write(dir.join("requirements.txt"), "torch>=2.4\n").unwrap();
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("`huggingface_hub.HfFolder` is not in huggingface-hub"),
        "{out}"
    );
    assert!(out.contains("(the newest indexed release)"), "{out}");
}

/// The package's own requirements count too: megatron-core 0.15.3 and later require
/// `torch>=2.6.0`, so beside `torch==2.4.0` the newest that installs is 0.14.0, which still
/// has `ModelType.encoder_and_decoder` (rllm, `docs/false-alarm-study-24.md` F-C).
#[test]
fn its_own_requirement_on_a_declared_package_bounds_it() {
    let source = "from megatron.core.enums import ModelType


def kind(t):
    return t == ModelType.encoder_and_decoder
";
    let dir = project(
        "own-requirement",
        &[
            ("a.py", source),
            (
                "requirements.txt",
                "torch==2.4.0
",
            ),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("megatron-core is not declared or installed; checked against the newest release that `torch==2.4.0` (requirements.txt:1) admits on python 3.8 - 3.12, 0.14.0 (megatron-core 0.15.3 requires `torch>=2.6.0`)"),
        "{all}"
    );
    // With a torch its newest release accepts: the newest, which lacks it.
    std::fs::write(dir.join("requirements.txt"), "torch>=2.6.0\n").unwrap();
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains(
            "`megatron.core.enums.ModelType.encoder_and_decoder` is not in megatron-core 0.19.2"
        ),
        "{out}"
    );
}

/// torch pins triton under a platform marker (`triton==3.1.0; platform_system == "Linux" and
/// platform_machine == "x86_64" ...` in 2.5.1); `tl.load(boundary_check=)` is accepted in
/// 2.1.0 - 3.8.0 and not in 3.9.0 (ColossalAI's `kernel/triton/context_attn_unpad.py`).
#[test]
fn a_requirement_under_a_platform_marker_bounds_it() {
    let source = "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x, y):\n    v = tl.load(x, boundary_check=(0,))\n    tl.store(y, v, boundary_check=(0,))\n";
    let dir = project(
        "triton",
        &[
            ("a.py", source),
            ("requirements.txt", "torch>=2.2.0,<=2.5.1\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("triton 3.1.0 (the newest release that `torch>=2.2.0,<=2.5.1` (requirements.txt:1) admits (3.1.0))"),
        "{out}"
    );
    // torch without an upper bound admits the newest triton, which lacks the keyword.
    std::fs::write(dir.join("requirements.txt"), "torch>=2.2.0\n").unwrap();
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("does not accept the keyword `boundary_check` in triton 3.9.0"),
        "{out}"
    );
}

/// Python is undeclared (picotron): torch 2.1.0 has wheels for CPython 3.8 - 3.11 only, so
/// the project runs on 3.11 at the newest, where `imp` still exists (removed in 3.12).
#[test]
fn python_is_the_newest_the_declared_packages_install_on() {
    let dir = project(
        "python",
        &[
            ("a.py", "import imp\nimport torch\n"),
            ("requirements.txt", "torch==2.1.0\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("python is not declared or installed; checked against the newest release that `torch==2.1.0` (requirements.txt:1) admits, 3.11 (python 3.12 - 3.14 left out: no release of torch that `torch==2.1.0` (requirements.txt:1) admits has a wheel for them"),
        "{all}"
    );
    // torch 2.5.1 installs on 3.13: `imp` is gone there.
    std::fs::write(dir.join("requirements.txt"), "torch==2.5.1\n").unwrap();
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("`imp` is not in python 3.13"), "{out}");
}

/// vits (docs/false-alarm-study-18.md, F-C): `torch==1.6.0` is older than every indexed torch.
/// The table of requirements knows its wheels (Python 3.6 - 3.8), so Python 3.9 and later,
/// and with them 3.12+ without `distutils` and `imp`, are left out (before the table held
/// torch's older releases: by the oldest indexed one's wheels, 3.7 - 3.11).
#[test]
fn a_pin_below_the_index_narrows_python_by_the_oldest_release() {
    let dir = project(
        "below_index",
        &[
            ("a.py", "import imp\nimport torch\n"),
            ("requirements.txt", "torch==1.6.0\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("(python 3.9 - 3.14 left out: no release of torch that `torch==1.6.0` (requirements.txt:1) admits has a wheel for them (torch 1.6.0 has wheels for Python 3.6 - 3.8 only, no sdist))"),
        "{all}"
    );
    // A pin older than the table too (it starts at torch 1.0.0): by the oldest indexed
    // release's wheels.
    std::fs::write(dir.join("requirements.txt"), "torch==0.4.1\n").unwrap();
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        format!("{out}{err}").contains("left out: `torch==0.4.1` (requirements.txt:1) admits only releases of torch older than every indexed one, and the oldest indexed, torch 1.13.0, has wheels for Python"),
        "{out}\n{err}"
    );
    // A range that reaches the index is narrowed by its releases as before.
    std::fs::write(dir.join("requirements.txt"), "torch>=1.6.0\n").unwrap();
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("`imp` is not in python 3.14"), "{out}");
}
