//! `setup.py` and `setup.cfg`: literal lists, names, helpers that read files, conditions, lookup tables, extras.

use super::*;

const SETUP_PY: &str = r#"import os
from setuptools import find_packages, setup

REQUIRES = [
    "torch>=1.13",
    'numpy',
]

EXTRAS = {
    "vision": ["torchvision>=0.14"],
}

if __name__ == "__main__":
    setup(
        name="legacy",
        packages=find_packages(),
        install_requires=REQUIRES + ["tqdm>=4"],
        extras_require=EXTRAS,
    )
"#;

#[test]
fn setup_py_literal_and_named_lists() {
    let dir = fixture_dir("setup_py");
    write(&dir, "setup.py", SETUP_PY);
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=1.13", "setup.py:5"),
            triple("numpy", "", "setup.py:6"),
            triple("tqdm", ">=4", "setup.py:17"),
            triple("torchvision", ">=0.14", "setup.py:10"),
        ]
    );
    assert_eq!(got.requirements[3].group.as_deref(), Some("vision"));
    assert_eq!(diags(&got), vec![]);

    let dir = fixture_dir("setup_py_dynamic");
    write(
        &dir,
        "setup.py",
        "import setuptools\n\nsetuptools.setup(\n    name='x',\n    install_requires=open('requirements.txt').read().splitlines(),\n)\n",
    );
    let got = read_project(&dir);
    assert_eq!(summary(&got), vec![]);
    assert_eq!(
        diags(&got),
        vec![d(
            Severity::Note,
            "setup.py:5",
            "`install_requires` in setup.py could not be read statically (not a literal list of strings); skipped"
        )]
    );

    // A syntax error elsewhere does not hide a literal list.
    let dir = fixture_dir("setup_py_syntax");
    write(
        &dir,
        "setup.py",
        "from setuptools import setup\ndef broken(:\n    pass\nsetup(install_requires=[\"colossalai==0.3.6\"])\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![triple("colossalai", "==0.3.6", "setup.py:4")]
    );
}

/// llm-compressor `setup.py:10,112-125`: `BUILD_TYPE = os.environ.get("BUILD_TYPE", "dev")`
/// and items `("torch>=2.10.0,<=2.13.0" if BUILD_TYPE == "release" else "torch>=2.10.0")`:
/// a plain `pip install .` takes the default, so the `else` item.
#[test]
fn setup_py_conditional_items_follow_what_a_plain_install_takes() {
    let dir = fixture_dir("setup_py_conditional");
    write(
        &dir,
        "setup.py",
        "import os\nfrom setuptools import setup\nBUILD_TYPE = os.environ.get(\"BUILD_TYPE\", \"dev\")\nKIND = \"full\"\nsetup(\n    install_requires=[\n        (\"torch>=2.10.0,<=2.13.0\" if BUILD_TYPE == \"release\" else \"torch>=2.10.0\"),\n        \"numpy>=2\" if KIND in (\"full\", \"all\") else \"numpy\",\n        \"tqdm\" if os.getenv(\"X\", \"a\") != \"a\" else \"tqdm>=4\",\n    ],\n)\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=2.10.0", "setup.py:7"),
            triple("numpy", ">=2", "setup.py:8"),
            triple("tqdm", ">=4", "setup.py:9"),
        ]
    );
    assert_eq!(diags(&got), vec![]);
    // A test that needs the build's environment (no default) is not decided: not read.
    write(
        &dir,
        "setup.py",
        "import os\nfrom setuptools import setup\nsetup(install_requires=[\"a\" if os.environ[\"B\"] == \"x\" else \"b\"])\n",
    );
    let got = read_project(&dir);
    assert_eq!(summary(&got), vec![]);
    assert_eq!(
        diags(&got),
        vec![d(
            Severity::Note,
            "setup.py:3",
            "`install_requires` in setup.py could not be read statically (a condition that depends on the build); skipped"
        )]
    );
}

/// The transformers `setup.py` idiom (alignment-handbook `setup.py:43-115`): a literal list of
/// requirements, a lookup table built from it by a comprehension, and `install_requires` items
/// `deps["accelerate"]`, extras `deps_list("torch", "accelerate")` (diffusers `setup.py:158-260`):
/// each is the list's item for that distribution, at its line.
#[test]
fn setup_py_lookup_table_of_requirements() {
    let dir = fixture_dir("setup_py_deps_table");
    write(
        &dir,
        "setup.py",
        "import re\nfrom setuptools import setup\n_deps = [\n    \"accelerate>=1.9.0\",\n    \"huggingface-hub>=0.33.4,<1.0\",\n    \"torch>=2.6.0\",\n]\ndeps = {b: a for a, b in (re.findall(r\"^(([^!=<>~ ]+)(?:[!=<>~ ].*)?$)\", x)[0] for x in _deps)}\ndef deps_list(*pkgs):\n    return [deps[pkg] for pkg in pkgs]\nextras = {}\nextras[\"torch\"] = deps_list(\"torch\", \"accelerate\")\nextras[\"dev\"] = extras[\"torch\"] + [\"pytest\"]\ninstall_requires = [deps[\"torch\"], deps[\"huggingface_hub\"]]\nsetup(name=\"x\", install_requires=list(install_requires), extras_require=extras)\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=2.6.0", "setup.py:6"),
            triple("huggingface-hub", ">=0.33.4, <1.0", "setup.py:5"),
            triple("torch", ">=2.6.0", "setup.py:6"),
            triple("accelerate", ">=1.9.0", "setup.py:4"),
            triple("torch", ">=2.6.0", "setup.py:6"),
            triple("accelerate", ">=1.9.0", "setup.py:4"),
            triple("pytest", "", "setup.py:13"),
        ]
    );
    let groups = groups_of(&got);
    assert_eq!(
        groups,
        [
            None,
            None,
            Some("torch"),
            Some("torch"),
            Some("dev"),
            Some("dev"),
            Some("dev")
        ]
    );
    assert_eq!(diags(&got), vec![]);
}

#[test]
fn setup_cfg_install_requires_and_extras() {
    let dir = fixture_dir("setup_cfg");
    write(
        &dir,
        "setup.cfg",
        "[metadata]\nname = legacy-cfg\n\n[options]\npackages = find:\ninstall_requires =\n    torch>=2.0\n    # a comment\n    numpy<2; python_version<\"3.9\"\npython_requires = >=3.8\n\n[options.extras_require]\ndev = pytest; black\ndocs =\n    sphinx>=7\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=2.0", "setup.cfg:7"),
            triple("numpy", "<2", "setup.cfg:9"),
            triple("pytest", "", "setup.cfg:13"),
            triple("black", "", "setup.cfg:13"),
            triple("sphinx", ">=7", "setup.cfg:15"),
        ]
    );
    let groups = groups_of(&got);
    assert_eq!(
        groups,
        vec![None, None, Some("dev"), Some("dev"), Some("docs")]
    );
    assert_eq!(
        got.requirements[1].marker.as_deref(),
        Some("python_full_version < '3.9'")
    );
    assert_eq!(
        diags(&got),
        vec![d(
            Severity::Warning,
            "setup.cfg:13",
            "a one-line `install_requires` is split at `;` by setuptools; put each requirement on its own line to use environment markers"
        )]
    );
}

/// `install_requires` and extras read from requirements files by a function of setup.py
/// (NeMo's `req_file(filename, folder="requirements")`): each file is read as its group.
#[test]
fn setup_py_lists_read_from_files_by_a_helper() {
    let dir = fixture_dir("setup_py_req_file");
    write(
        &dir,
        "setup.py",
        "import setuptools\n\n\ndef req_file(filename, folder=\"requirements\"):\n    with open(f\"{folder}/{filename}\") as f:\n        return [x.strip() for x in f.readlines()]\n\n\nsetuptools.setup(\n    name=\"pkg\",\n    install_requires=req_file(\"requirements.txt\"),\n    extras_require={\"lightning\": req_file(\"requirements_lightning.txt\"), \"none\": req_file(\"missing.txt\")},\n)\n",
    );
    write(&dir, "requirements/requirements.txt", "torch>=2.0\n");
    write(
        &dir,
        "requirements/requirements_lightning.txt",
        "transformers~=4.53.0\n",
    );
    let d = read_project(&dir);
    assert_eq!(
        summary(&d),
        [
            triple("torch", ">=2.0", "requirements/requirements.txt:1"),
            triple(
                "transformers",
                "~=4.53.0",
                "requirements/requirements_lightning.txt:1"
            ),
        ]
    );
    let lightning = &d.requirements[1];
    assert_eq!(lightning.group.as_deref(), Some("lightning"));
    assert!(lightning.extra);
    assert!(d.requirements[0].group.is_none());
    let by_extra: Vec<String> = d
        .extras_requiring("transformers")
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(by_extra, ["lightning"]);
}

/// s3prl's `setup.py` builds a table of requirement files in a loop (keyed by stem) and passes
/// `install_requires=requirements["install"]`: the key's file is read as the main set, the
/// other files stay scopes (`docs/false-alarm-study-24.md`, D1).
#[test]
fn setup_py_install_requires_from_a_table_built_in_a_loop() {
    let dir = fixture_dir("setup_py_keyed_table");
    write(
        &dir,
        "setup.py",
        "import os\nfrom pathlib import Path\nfrom setuptools import setup\n\nrequirements = {}\nfor file in os.listdir(\"requirements\"):\n    lines = [l.strip() for l in open(os.path.join(\"requirements\", file))]\n    requirements[Path(file).stem] = lines\n\ninstall_requires = requirements[\"install\"]\nsetup(name=\"s\", install_requires=install_requires)\n",
    );
    write(
        &dir,
        "requirements/install.txt",
        "torch >=1.8.0,!=1.10.0\nnumpy >=1.21\n",
    );
    write(&dir, "requirements/all.txt", "transformers >=4.10.0\n");
    let d = read_project(&dir);
    assert_eq!(
        summary(&d),
        [
            triple("torch", ">=1.8.0, !=1.10.0", "requirements/install.txt:1"),
            triple("numpy", ">=1.21", "requirements/install.txt:2"),
            triple("transformers", ">=4.10.0", "requirements/all.txt:1"),
        ]
    );
    assert!(d.requirements[0].group.is_none());
    assert_eq!(d.requirements[2].group.as_deref(), Some("all"));
    assert!(
        d.diagnostics.iter().any(|x| x.message.contains(
            "`install_requires` is `requirements[\"install\"]`, a table built at run time: read from `requirements/install.txt`"
        )),
        "{:?}",
        d.diagnostics
    );
    // No file of that key: not read, and said.
    std::fs::remove_file(dir.join("requirements/install.txt")).unwrap();
    let d = read_project(&dir);
    assert!(d.requirements.iter().all(|r| r.group.is_some()));
    assert!(
        d.diagnostics
            .iter()
            .any(|x| x.message.contains("could not be read statically")),
        "{:?}",
        d.diagnostics
    );
}

/// Transformers4Rec's `setup.py`: a helper's lists joined with `+=` and kept in a dict,
/// `install_requires=requirements["base"]` (study 25's F-C): every file of the key is read.
#[test]
fn setup_py_helper_lists_joined_and_kept_in_a_dict() {
    let dir = fixture_dir("setup_py_helper_dict");
    write(
        &dir,
        "setup.py",
        "import codecs, os\nfrom setuptools import setup\n\ndef read_requirements(filename):\n    with codecs.open(os.path.join(os.path.dirname(__file__), filename)) as f:\n        return [l.strip() for l in f if l.strip()]\n\nbase = read_requirements(\"requirements/base_external.txt\")\nbase += read_requirements(\"requirements/base_merlin.txt\")\nrequirements = {\"base\": base, \"pytorch\": read_requirements(\"requirements/pytorch.txt\")}\nsetup(name=\"t\", install_requires=requirements[\"base\"], extras_require={\"pytorch\": requirements[\"pytorch\"]})\n",
    );
    write(
        &dir,
        "requirements/base_external.txt",
        "transformers[torch]>=4.12,<4.31.0\n",
    );
    write(
        &dir,
        "requirements/base_merlin.txt",
        "merlin-core>=23.04.00\n",
    );
    write(&dir, "requirements/pytorch.txt", "torch>=1.0\n");
    let d = read_project(&dir);
    assert_eq!(
        summary(&d),
        [
            triple(
                "transformers",
                ">=4.12, <4.31.0",
                "requirements/base_external.txt:1"
            ),
            triple("merlin-core", ">=23.4.0", "requirements/base_merlin.txt:1"),
            triple("torch", ">=1.0", "requirements/pytorch.txt:1"),
        ]
    );
    assert!(d.requirements[0].group.is_none() && d.requirements[1].group.is_none());
    assert_eq!(d.requirements[2].group.as_deref(), Some("pytorch"));
}

/// fairseq2 `setup.py`: one computed item (`"fairseq2n" + version_spec`) among literal ones:
/// the literal ones are read, the computed one is noted (`docs/false-alarm-study-15.md`, D1).
#[test]
fn setup_py_a_computed_item_leaves_the_others() {
    let dir = fixture_dir("setup_py_computed_item");
    write(
        &dir,
        "setup.py",
        "from setuptools import setup\nspec = \"==0.1\"\nsetup(\n    install_requires=[\n        \"demo-native\" + spec,\n        \"huggingface_hub>=0.32,<1\",\n    ],\n)\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![triple("huggingface-hub", ">=0.32, <1", "setup.py:6")]
    );
    assert_eq!(
        diags(&got),
        vec![d(
            Severity::Note,
            "setup.py:5",
            "an item of a requirement list in setup.py could not be read statically (an item is not a string literal); skipped, the other items are read"
        )]
    );
}

/// NeMo's setup.py: two extras read the same requirements file (`core` and `lightning` both
/// name `requirements_lightning.txt`); each extra has its requirements, though the file is
/// read once.
#[test]
fn two_extras_reading_one_file_each_have_its_requirements() {
    let dir = fixture_dir("setup_shared_file");
    write(
        &dir,
        "setup.py",
        "import os\nfrom setuptools import setup\n\ndef req_file(filenames, folder=\"requirements\"):\n    ans = []\n    for file in filenames:\n        with open(os.path.join(folder, file)) as f:\n            ans.extend(map(str.strip, f.readlines()))\n    return ans\n\nsetup(\n    name=\"x\",\n    extras_require={\n        \"core\": req_file([\"requirements_lightning.txt\", \"requirements_automodel.txt\"]),\n        \"lightning\": req_file([\"requirements_lightning.txt\"]),\n    },\n)\n",
    );
    write(
        &dir,
        "requirements/requirements_lightning.txt",
        "lightning>2.2.1\n",
    );
    write(
        &dir,
        "requirements/requirements_automodel.txt",
        "transformers~=4.53.0\n",
    );
    let got = read_project(&dir);
    let mut pairs: Vec<(String, Option<String>)> = got
        .requirements
        .iter()
        .map(|r| (r.name.clone(), r.group.clone()))
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        [
            ("lightning".to_string(), Some("core".to_string())),
            ("lightning".to_string(), Some("lightning".to_string())),
            ("transformers".to_string(), Some("core".to_string())),
        ]
    );
}

/// NeMo's setup.py: an extra set again as the chain of itself and other extras
/// (`extras_require['nlp'] = list(chain(extras_require['nlp'], extras_require['core']))`): its
/// last value is read, with the earlier values it names, each line once.
#[test]
fn extras_joined_from_other_extras() {
    let dir = fixture_dir("setup_chained_extras");
    write(
        &dir,
        "setup.py",
        "import os\nfrom itertools import chain\nfrom setuptools import setup\n\ndef req_file(filenames, folder=\"requirements\"):\n    ans = []\n    for file in filenames:\n        with open(os.path.join(folder, file)) as f:\n            ans.extend(map(str.strip, f.readlines()))\n    return ans\n\nextras_require = {\n    \"core\": req_file([\"requirements_core.txt\"]),\n    \"nlp-only\": req_file([\"requirements_nlp.txt\"]),\n}\nextras_require[\"common\"] = list(chain(extras_require[\"core\"], [\"einops\"]))\nextras_require[\"nlp\"] = extras_require[\"nlp-only\"]\nextras_require[\"nlp\"] = list(chain(extras_require[\"nlp\"], extras_require[\"common\"], extras_require[\"core\"]))\nextras_require[\"bad\"] = list(chain(extras_require[\"unset\"]))\n\nsetup(name=\"x\", extras_require=extras_require)\n",
    );
    write(
        &dir,
        "requirements/requirements_core.txt",
        "lightning>2.2.1\n",
    );
    write(&dir, "requirements/requirements_nlp.txt", "megatron_core\n");
    let got = read_project(&dir);
    let mut pairs: Vec<(String, Option<String>)> = got
        .requirements
        .iter()
        .map(|r| (r.name.clone(), r.group.clone()))
        .collect();
    pairs.sort();
    let pair = |n: &str, g: &str| (n.to_string(), Some(g.to_string()));
    assert_eq!(
        pairs,
        [
            pair("einops", "common"),
            pair("einops", "nlp"),
            pair("lightning", "common"),
            pair("lightning", "core"),
            pair("lightning", "nlp"),
            pair("megatron-core", "nlp"),
            pair("megatron-core", "nlp-only"),
        ]
    );
    // An extra naming one never set is not read, and says so.
    assert!(
        diags(&got)
            .iter()
            .any(|(_, _, m)| m.contains("extra `bad`: extra `unset` is not set before")),
        "{:?}",
        diags(&got)
    );
}
