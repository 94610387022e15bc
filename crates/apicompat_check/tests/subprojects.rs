//! A tree that holds other projects (`subprojects.rs`): a directory with declarations that
//! bound a package differently is checked against them, completed by the root's; the root
//! project's packages are read with it (fake torch index: `pipelining` exists from 2.4.0).

mod common;

use common::{brief, project, run_with};

const USE: &str =
    "import torch\n\n\ndef build():\n    return torch.distributed.pipelining.pipeline\n";

#[test]
fn sub_projects_are_checked_against_their_own_bounds() {
    let helper_use = "import torch\nfrom mypkg import has_pipelining\n\n\ndef build():\n    if has_pipelining():\n        return torch.distributed.pipelining.pipeline\n";
    let dir = project(
        "subprojects",
        &[
            ("requirements.txt", "torch>=2.3.0\n"),
            (
                "mypkg/__init__.py",
                "import torch\n\n\ndef has_pipelining():\n    return torch.__version__ >= \"2.4\"\n",
            ),
            ("mypkg/train.py", USE),
            // Bounds torch itself: checked on 2.4.0+ only.
            ("newer/requirements.txt", "torch>=2.4.0\nnumpy\n"),
            ("newer/run.py", USE),
            // A bare `torch`: the root's bound stays, nothing is split off.
            ("bare/requirements.txt", "torch\n"),
            ("bare/run.py", USE),
            // Its own bound, and a guard from the root's package (read with it).
            ("guarded/requirements.txt", "torch>=2.0.0\n"),
            ("guarded/run.py", helper_use),
            ("guarded/plain.py", USE),
        ],
    );
    let report = run_with(&dir, &[], |o| o.project = None);
    let mut got = brief(&report, &dir);
    got.retain(|f| !f.contains("AC008"));
    assert_eq!(
        got,
        [
            "bare/run.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
            "guarded/plain.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.0.0 - 2.3.1",
            "mypkg/train.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
        ]
    );
    let notes = report.summary.notes.join("\n");
    assert!(
        notes.contains("`newer` has declarations of its own"),
        "{notes}"
    );
    assert!(
        notes.contains("`guarded` has declarations of its own: its 2 file(s)"),
        "{notes}"
    );
    assert!(!notes.contains("`bare` has declarations"), "{notes}");
    // A sub-project's declarations are named from the root, beside the root's own.
    let sources: Vec<(String, String)> = report
        .findings
        .iter()
        .map(|f| {
            let path = f.path.strip_prefix(&dir).unwrap_or(&f.path);
            (
                path.display().to_string(),
                f.target_source.clone().unwrap_or_default(),
            )
        })
        .collect();
    assert!(
        sources.contains(&(
            "guarded/plain.py".into(),
            "declared `torch>=2.0.0` (guarded/requirements.txt:1)".into()
        )),
        "{sources:?}"
    );
    assert!(
        sources.contains(&(
            "mypkg/train.py".into(),
            "declared `torch>=2.3.0` (requirements.txt:1)".into()
        )),
        "{sources:?}"
    );
    // Given explicitly, the project is one.
    let report = run_with(&dir, &[], |_| {});
    assert!(brief(&report, &dir)
        .iter()
        .any(|f| f.starts_with("newer/run.py")));
}

#[test]
fn only_sub_projects_that_import_the_root_packages_cost_a_second_read() {
    let importing = "from mypkg import m1\nimport torch\n\n\ndef build():\n    return torch.distributed.pipelining.pipeline\n";
    let dir = project(
        "subprojects_cost",
        &[
            ("requirements.txt", "torch>=2.3.0\n"),
            ("mypkg/__init__.py", ""),
            ("mypkg/m1.py", "X = 1\n"),
            ("mypkg/m2.py", "X = 2\n"),
            ("mypkg/m3.py", "X = 3\n"),
            ("mypkg/m4.py", "X = 4\n"),
            ("mypkg/m5.py", "X = 5\n"),
            // Imports nothing of the root's: split off at no cost.
            ("alone/requirements.txt", "torch>=2.4.0\n"),
            ("alone/run.py", USE),
            // Import the root's package: the first fits in the tree's size (6 more files
            // read for 10), the second would not and is checked with the root.
            ("uses/requirements.txt", "torch>=2.4.0\n"),
            ("uses/run.py", importing),
            ("zuses/requirements.txt", "torch>=2.4.0\n"),
            ("zuses/run.py", importing),
            // A line that cannot be read does not stop the tree's check.
            ("bad/requirements.txt", "torch>=2.4.0\nclip==1.0==\n"),
            ("bad/run.py", USE),
        ],
    );
    let report = run_with(&dir, &[], |o| o.project = None);
    let mut got = brief(&report, &dir);
    got.retain(|f| !f.contains("AC008"));
    assert_eq!(
        got,
        ["zuses/run.py:6:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1"]
    );
    let notes = report.summary.notes.join("\n");
    for sub in ["alone", "uses", "bad"] {
        assert!(
            notes.contains(&format!("`{sub}` has declarations of its own")),
            "{notes}"
        );
    }
    assert!(
        notes.contains(
            "1 directory (`zuses`) has declarations of its own, checked here against the project's"
        ),
        "{notes}"
    );
    assert!(
        notes.contains("`bad` is checked with those of its declarations that could be read"),
        "{notes}"
    );
    assert!(report.summary.bad_declarations.is_empty());
}

#[test]
fn a_conda_file_marks_a_sub_project() {
    let dir = project(
        "subprojects_conda",
        &[
            ("requirements.txt", "torch>=2.3.0\n"),
            ("train.py", USE),
            // A conda file under another name, in an experiment's directory.
            (
                "exp/conda_env.yml",
                "name: exp\ndependencies:\n  - python=3.11\n  - pip:\n    - torch>=2.4.0\n",
            ),
            ("exp/run.py", USE),
        ],
    );
    let report = run_with(&dir, &[], |o| o.project = None);
    let mut got = brief(&report, &dir);
    got.retain(|f| !f.contains("AC008"));
    assert_eq!(
        got,
        ["train.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1"]
    );
    let notes = report.summary.notes.join("\n");
    assert!(
        notes.contains("`exp` has declarations of its own"),
        "{notes}"
    );
}

/// A sub-project that builds a distribution of its own and declares requirements, and whose
/// packages no file of the root imports (LLaVA-NeXT's `EasyR1`: a `setup.py`, no torch), is
/// installed in an environment of its own: the root's `torch` pin does not bound it. One
/// the root imports (rllm's `verl`), one that only lists requirements, or one that builds but
/// declares nothing still takes the root's bounds.
#[test]
fn a_sub_project_that_builds_keeps_to_its_own_declarations() {
    let dir = project(
        "subprojects-builds",
        &[
            ("requirements.txt", "torch==2.3.0\n"),
            ("main.py", "import torch\nfrom shared import run\n"),
            (
                "vendored/setup.py",
                "from setuptools import setup\n\nsetup(name=\"v\", install_requires=[\"numpy\"])\n",
            ),
            ("vendored/v/__init__.py", ""),
            ("vendored/v/run.py", USE),
            (
                "imported/setup.py",
                "from setuptools import setup\n\nsetup(name=\"s\", install_requires=[\"numpy\"])\n",
            ),
            ("imported/shared/__init__.py", "def run():\n    pass\n"),
            ("imported/shared/run.py", USE),
            ("listed/requirements.txt", "numpy\n"),
            ("listed/run.py", USE),
            (
                "bare_build/setup.py",
                "from setuptools import setup\n\nsetup(name=\"b\")\n",
            ),
            ("bare_build/b/__init__.py", ""),
            ("bare_build/b/run.py", USE),
        ],
    );
    let report = run_with(&dir, &[], |o| o.project = None);
    let mut got = brief(&report, &dir);
    got.retain(|f| !f.contains("AC008"));
    assert_eq!(
        got,
        [
            "bare_build/b/run.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "imported/shared/run.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "listed/run.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
}

/// The root's packages read as context for a sub-project are imported through their own
/// names: a subpackage of one named like an indexed package (timesfm's `src/timesfm/torch/`)
/// does not hide that package from the sub-project (study 24 D3, a silent miss).
#[test]
fn a_subpackage_of_a_context_package_hides_no_indexed_package() {
    let dir = project(
        "subprojects-context-child",
        &[
            ("requirements.txt", "torch>=2.4.0\n"),
            ("src/pkg/__init__.py", "X = 1\n"),
            ("src/pkg/torch/__init__.py", ""),
            ("sub/requirements.txt", "torch>=2.3.0\n"),
            ("sub/run.py", &format!("import pkg\n{USE}")),
        ],
    );
    let report = run_with(&dir, &[], |o| o.project = None);
    let mut got = brief(&report, &dir);
    got.retain(|f| !f.contains("AC008"));
    assert_eq!(
        got,
        ["sub/run.py:6:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1"]
    );
}

/// Show-o's `show-o2/` (`docs/false-alarm-study-26.md`, F-J): a directory with a README and a
/// script that installs its environment (`pip3 install torch==2.4.0;`) is a project of its
/// own, checked against what the script installs. A script beside no README does not make one
/// (`scripts/` of the root), nor one that installs nothing with a version.
#[test]
fn a_documented_install_script_declares_its_directory() {
    let dir = project(
        "subproject_script",
        &[
            ("requirements.txt", "torch==2.3.0\n"),
            ("show2/README.md", "Run `bash build_env.sh` first.\n"),
            (
                "show2/build_env.sh",
                "pip3 install torch==2.4.0;\npip3 install wandb;\n",
            ),
            ("show2/run.py", USE),
            ("tools/setup.sh", "pip install torch==2.4.0\n"),
            ("tools/run.py", USE),
            ("plain/README.md", "Tools.\n"),
            ("plain/install.sh", "pip install -e .\npip install wandb\n"),
            ("plain/run.py", USE),
        ],
    );
    let report = run_with(&dir, &[], |o| o.project = None);
    let mut got = brief(&report, &dir);
    got.retain(|f| !f.contains("AC008"));
    assert_eq!(
        got,
        [
            "plain/run.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "tools/run.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
    let notes = report.summary.notes.join("\n");
    assert!(
        notes.contains("`show2` has declarations of its own"),
        "{notes}"
    );
    assert!(
        notes.contains("show2/build_env.sh: read as the project's requirements"),
        "{notes}"
    );
}

/// A directory whose requirements file the install instructions install (sliders' README:
/// `pip install -r flux-sliders/flux-requirements.txt`; HunyuanDiT's `kohya_ss-hydit/README.md`:
/// `conda create -n hydit-kohya ...` then `pip install -r hunyuan_requirements.txt`) is a
/// project of its own, whatever the file's name (studies 40 and 43, F-Y and F-AD). A README
/// that creates an environment makes it one of its own: the root's pins bound only what its
/// file names. Without an environment of its own, the root's pins still bound what the file
/// does not name; a file nothing installs declares nothing.
#[test]
fn a_file_the_install_instructions_install_declares_its_directory() {
    let dir = project(
        "subproject_installed_file",
        &[
            ("requirements.txt", "torch==2.3.0\n"),
            (
                "README.md",
                "# Project\n\n```\npip install -r requirements.txt\n```\n\nFor flux:\n\n```\npip install -r flux/flux-requirements.txt\n```\n",
            ),
            ("flux/flux-requirements.txt", "torch>=2.4.0\n"),
            ("flux/run.py", USE),
            (
                "kohya/README.md",
                "```shell\nconda create -n k python=3.11\nconda activate k\npip install -r k_requirements.txt\n```\n",
            ),
            ("kohya/k_requirements.txt", "numpy==1.26.4\n"),
            ("kohya/run.py", USE),
            ("same_env/README.md", "```\npip install -r extra-reqs.txt\n```\n"),
            ("same_env/extra-reqs.txt", "numpy==1.26.4\n"),
            ("same_env/run.py", USE),
            ("unnamed/other-requirements.txt", "torch>=2.4.0\n"),
            ("unnamed/run.py", USE),
        ],
    );
    let report = run_with(&dir, &[], |o| o.project = None);
    let mut got = brief(&report, &dir);
    got.retain(|f| !f.contains("AC008"));
    assert_eq!(
        got,
        [
            "same_env/run.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "unnamed/run.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
    let notes = report.summary.notes.join("\n");
    assert!(
        notes.contains(
            "flux/flux-requirements.txt: read as the requirements of its directory: the enclosing project's install instructions install this file (`pip install -r`, README.md:10)"
        ),
        "{notes}"
    );
    assert!(
        notes.contains("`kohya` has declarations of its own"),
        "{notes}"
    );
}

/// A directory the install instructions install as a distribution (LoRA-GA's README: `pip
/// install -e peft`, its own fork of peft; study 46, F-AI) provides the packages the project
/// imports by that name: they are the project's code, not the index's. Without the install
/// line the directory is only a copy, and the import is the installed package's.
#[test]
fn a_directory_the_install_instructions_install_provides_its_packages() {
    let files = |readme: &'static str| {
        vec![
            ("requirements.txt", "torch==2.3.0\n"),
            ("README.md", readme),
            ("train.py", USE),
            (
                "torch_fork/setup.py",
                "from setuptools import setup\n\nsetup(name=\"torch\")\n",
            ),
            (
                "torch_fork/torch/__init__.py",
                "from . import distributed\n",
            ),
            ("torch_fork/torch/distributed/__init__.py", ""),
            (
                "torch_fork/torch/distributed/pipelining.py",
                "pipeline = 1\n",
            ),
        ]
    };
    let installed = "```\ngit clone https://example.org/p.git\ncd p\npip install -r requirements.txt\ncd torch_fork && pip install -e . && cd ..\n```\n";
    let dir = project("subproject_installed_dir", &files(installed));
    let report = run_with(&dir, &[], |o| o.project = None);
    let got = brief(&report, &dir);
    assert!(got.is_empty(), "{got:?}");
    let notes = report.summary.notes.join("\n");
    assert!(
        notes.contains("`torch` is a package of the project itself"),
        "{notes}"
    );
    let dir = project(
        "subproject_copied_dir",
        &files("```\npip install -r requirements.txt\n```\n"),
    );
    let report = run_with(&dir, &[], |o| o.project = None);
    let mut got = brief(&report, &dir);
    got.retain(|f| !f.contains("AC008"));
    assert_eq!(
        got,
        ["train.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}
