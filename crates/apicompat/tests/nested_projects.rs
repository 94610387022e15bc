//! A sub-project nested in another sub-project that builds a package (LoRA's `examples/NLU`
//! is a fork of transformers 4.4.2, `package_dir={"": "src"}`; the example directories below
//! it have requirements of their own without transformers): its imports of that package are
//! the project's code. One that declares the package itself is checked against its
//! declaration (`docs/false-alarm-study-16.md`, F5). Real index, offline (`--no-cache`).

mod common;

use common::{check, text};

const USE: &str =
    "from transformers.trainer_utils import EvaluationStrategy\n\nprint(EvaluationStrategy.NO)\n";

#[test]
fn an_enclosing_sub_project_provides_its_packages() {
    let dir = common::project_in(
        "nested_projects",
        "lora",
        &[
            (
                "setup.py",
                "from setuptools import setup\n\nsetup(name=\"loralib\", packages=[\"loralib\"], python_requires=\">=3.8\")\n",
            ),
            ("loralib/__init__.py", ""),
            (
                "NLU/setup.py",
                "from setuptools import find_packages, setup\n\nsetup(\n    name=\"transformers\",\n    package_dir={\"\": \"src\"},\n    packages=find_packages(\"src\"),\n    install_requires=[\"numpy>=1.17\"],\n)\n",
            ),
            ("NLU/src/transformers/__init__.py", "__version__ = \"4.4.2\"\n"),
            (
                "NLU/src/transformers/trainer_utils.py",
                "import enum\n\n\nclass EvaluationStrategy(enum.Enum):\n    NO = \"no\"\n",
            ),
            ("NLU/examples/seq2seq/requirements.txt", "datasets >= 2.16\n"),
            ("NLU/examples/seq2seq/run.py", USE),
            (
                "NLU/examples/declared/requirements.txt",
                "datasets >= 2.16\ntransformers>=4.30\n",
            ),
            ("NLU/examples/declared/run.py", USE),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    let at: Vec<&str> = common::locations(&out)
        .into_iter()
        .filter(|l| l.contains(".py:"))
        .collect();
    assert_eq!(at, ["NLU/examples/declared/run.py:1:40"], "{out}\n{err}");
    assert!(
        out.contains("`transformers.trainer_utils.EvaluationStrategy` is not in transformers"),
        "{out}"
    );
    assert!(!out.contains("transformers (1 file)"), "{out}");
}

/// A script imports what sits beside it: speechbrain's recipe keeps a `datasets/` directory
/// (no `__init__.py`) next to `zed_prepare.py`, which imports `datasets.prepare_a`, and the
/// modules in it import `datasets.vad` (study 17, F-G). A script with no such directory
/// beside it imports the package.
#[test]
fn a_script_imports_the_directory_beside_it() {
    let dir = common::project_in(
        "nested_projects",
        "speechbrain",
        &[
            ("requirements.txt", "datasets>=3.0\n"),
            (
                "recipes/zed/zed_prepare.py",
                "from datasets.prepare_a import prepare_a\n",
            ),
            ("recipes/other/run.py", "from datasets import load_metric\n"),
            (
                "recipes/zed/datasets/prepare_a.py",
                "from datasets.vad import vad_for_folder\n\n\ndef prepare_a():\n    return vad_for_folder\n",
            ),
            ("recipes/zed/datasets/vad.py", "def vad_for_folder():\n    pass\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    let at: Vec<&str> = common::locations(&out)
        .into_iter()
        .filter(|l| l.contains(".py:"))
        .collect();
    assert_eq!(at, ["recipes/other/run.py:1:22"], "{out}\n{err}");
    assert!(
        out.contains("`datasets.load_metric` is not in datasets"),
        "{out}"
    );
}
