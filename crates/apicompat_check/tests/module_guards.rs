//! Guards the project writes itself (fake torch index, releases 1.13.0 - 2.5.0:
//! `torch.distributed.pipelining` from 2.4.0, `_tensor.placement_types._Partial` before 2.4.0):
//! a module of the project imported only where guarded, and a flag set false in the handler of
//! its `try`.

mod common;

use common::{brief, project, run};

/// Errors only.
fn errors(dir: &std::path::Path, target: &str) -> Vec<String> {
    brief(&run(dir, &[target]), dir)
        .into_iter()
        .filter(|f| f.contains(" error "))
        .collect()
}

const FLAGS: &str = "\
import torch
from packaging import version

IS_24 = version.parse(torch.__version__) >= version.parse(\"2.4.0\")
";

/// Import-time uses of a module that needs torch >= 2.4.
const PIPE: &str = "\
import torch
from torch.distributed.pipelining import pipeline

STAGE = torch.distributed.pipelining.PipelineStage


def build(m):
    return pipeline(m)
";

/// `pipe` is imported only inside functions: under a flag, under a `try`, and in a function
/// whose only call is guarded.
const IMPORTERS: &str = "\
from pkg.flags import IS_24


def make(m):
    if IS_24:
        from pkg.pipe import build
        return build(m)


def other(m):
    try:
        from . import pipe
    except ImportError:
        return None
    return pipe.build(m)


def helper():
    import pkg.pipe
    return pkg.pipe


def entry():
    if IS_24:
        return helper()
";

#[test]
fn a_module_imported_only_where_guarded_is_guarded() {
    let dir = project(
        "module_guards_only",
        &[
            ("pkg/__init__.py", ""),
            ("pkg/flags.py", FLAGS),
            ("pkg/pipe.py", PIPE),
            ("pkg/use.py", IMPORTERS),
        ],
    );
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
    // The guard is named: one of the importers'.
    let report = common::run_with(&dir, &["torch==2.3.0"], |o| o.show_guarded = true);
    let guarded: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.path.ends_with("pipe.py") && f.line == 2)
        .collect();
    assert!(!guarded.is_empty());
    assert!(
        guarded
            .iter()
            .all(|f| f.severity.as_str() == "info" && f.guard.is_some()),
        "{guarded:#?}"
    );
}

#[test]
fn one_unguarded_importer_leaves_the_module_unrestricted() {
    let expected = [
        "pkg/pipe.py:2:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0",
        "pkg/pipe.py:4:9 AC002 error import-time torch.distributed.pipelining.PipelineStage missing=2.3.0",
    ];
    let cases: [(&str, &str, &str); 7] = [
        // A plain import at module level elsewhere.
        ("module_guards_plain", "main.py", "import pkg.pipe\n"),
        // `from pkg import pipe` in a function called unconditionally.
        (
            "module_guards_from",
            "main.py",
            "def run():\n    from pkg import pipe\n    return pipe\n\nrun()\n",
        ),
        // A star import of a package with an `__all__` may import it.
        ("module_guards_star", "main.py", "from pkg import *\n"),
        // So may `importlib`, by name.
        (
            "module_guards_importlib",
            "main.py",
            "import importlib\n\nmod = importlib.import_module(f\"pkg.{'pipe'}\")\n",
        ),
        // A relative dynamic import from the package, of a computed name.
        (
            "module_guards_importlib_relative",
            "pkg/loader.py",
            "import importlib\n\n\ndef load(n):\n    return importlib.import_module(\".\" + n, __name__)\n",
        ),
        // It runs as a script.
        ("module_guards_script", "pkg/pipe_main.py", ""),
        // An import in a `try` whose handler exits (FlagEmbedding's lightweight reranker:
        // `except: print(...); sys.exit()`): the failure still stops the program.
        (
            "module_guards_exit_handler",
            "main.py",
            "import sys\n\n\ndef run():\n    try:\n        from pkg import pipe\n    except ImportError:\n        print(\"install torch>=2.4\")\n        sys.exit(1)\n    return pipe\n\n\nrun()\n",
        ),
    ];
    for (name, file, text) in cases {
        let mut pipe = PIPE.to_string();
        if name == "module_guards_script" {
            pipe.push_str("\n\nif __name__ == \"__main__\":\n    build(None)\n");
        }
        let init = if name == "module_guards_star" {
            "__all__ = [\"pipe\"]\n"
        } else {
            ""
        };
        let dir = project(
            name,
            &[
                ("pkg/__init__.py", init),
                ("pkg/flags.py", FLAGS),
                ("pkg/pipe.py", &pipe),
                ("pkg/use.py", IMPORTERS),
                (file, text),
            ],
        );
        assert_eq!(errors(&dir, "torch==2.3.0"), expected, "{name}");
    }
    // Without an `__all__`, `from pkg import *` runs `pkg/__init__.py` only (MoE-LLaVA's
    // `from moellava.model import *`, study 25's F-G).
    let dir = project(
        "module_guards_star_no_all",
        &[
            ("pkg/__init__.py", ""),
            ("pkg/flags.py", FLAGS),
            ("pkg/pipe.py", PIPE),
            ("pkg/use.py", IMPORTERS),
            ("main.py", "from pkg import *\n"),
        ],
    );
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
    // With an `__all__` of names, not submodules, appended to under the guard (xDiT's
    // `models/transformers/__init__.py`, `docs/false-alarm-study-50.md` F-1): the same; one it
    // computes leaves everything under the package open.
    for (name, all, open) in [
        (
            "module_guards_star_all_names",
            "__all__ = [\"IS_24\"]\n",
            false,
        ),
        (
            "module_guards_star_all_computed",
            "__all__ = [n for n in dir()]\n",
            true,
        ),
    ] {
        let init = format!(
            "from pkg.flags import IS_24\n{all}if IS_24:\n    from .pipe import build\n    __all__.append(\"build\")\n"
        );
        let dir = project(
            name,
            &[
                ("pkg/__init__.py", &init),
                ("pkg/flags.py", FLAGS),
                ("pkg/pipe.py", PIPE),
                ("main.py", "from pkg import *\n"),
            ],
        );
        assert_eq!(!errors(&dir, "torch==2.3.0").is_empty(), open, "{name}");
    }
}

/// Importing `pkg.sub.pipe` runs `pkg/sub/__init__.py`: a package `__init__` that imports the
/// module at module level passes on its own cover, restricted or not.
#[test]
fn a_package_init_passes_on_its_cover() {
    let files = |main: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![
            ("pkg/__init__.py", ""),
            ("pkg/flags.py", FLAGS),
            ("pkg/sub/__init__.py", "from .pipe import build\n"),
            ("pkg/sub/pipe.py", PIPE),
            (
                "pkg/use.py",
                "from pkg.flags import IS_24\n\n\ndef make(m):\n    if IS_24:\n        from pkg.sub import build\n        return build(m)\n",
            ),
            ("main.py", main),
        ]
    };
    let dir = project("module_guards_init", &files("print(1)\n"));
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
    // `import pkg.sub.other` runs `pkg/sub/__init__.py`, which imports `pipe`.
    let dir = project(
        "module_guards_init_open",
        &files("import pkg.sub.flags_x\n"),
    );
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        [
            "pkg/sub/pipe.py:2:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "pkg/sub/pipe.py:4:9 AC002 error import-time torch.distributed.pipelining.PipelineStage missing=2.3.0",
        ]
    );
}

/// A module-level flag also set to `False` in the handler of its `try`.
fn flag_module(try_imports: &str, handler_value: &str) -> String {
    format!(
        "\
import torch
from packaging import version

try:
    {try_imports}
    TORCH24 = version.parse(torch.__version__) >= version.parse(\"2.4.0\")
except ImportError:
    TORCH24 = {handler_value}

if TORCH24:
    PIPE = torch.distributed.pipelining.pipeline
else:
    from torch.distributed._tensor.placement_types import _Partial
"
    )
}

const FLAG_READER: &str = "\
import torch
from lib import TORCH24

if TORCH24:
    PIPE = torch.distributed.pipelining.pipeline
else:
    from torch.distributed._tensor.placement_types import _Partial
";

#[test]
fn a_flag_set_false_in_the_import_handler_is_still_a_flag() {
    // The `try` imports only torch: where it fails torch is absent, so `not TORCH24` is
    // `torch < 2.4` too; both branches are guarded, here and in a module importing the flag.
    let dir = project(
        "flag_handler_same",
        &[
            ("lib.py", &flag_module("import torch.distributed", "False")),
            ("reader.py", FLAG_READER),
        ],
    );
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
    assert_eq!(errors(&dir, "torch==2.4.0"), Vec::<String>::new());

    // The `try` imports another package too: the flag true still implies torch >= 2.4, but
    // false says nothing (numpy may be what failed).
    let dir = project(
        "flag_handler_other",
        &[
            (
                "lib.py",
                &flag_module("import numpy\n    import torch.distributed", "None"),
            ),
            ("reader.py", FLAG_READER),
        ],
    );
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
    assert_eq!(
        errors(&dir, "torch==2.4.0"),
        [
            "lib.py:14:59 AC001 error import-time torch.distributed._tensor.placement_types._Partial missing=2.4.0",
            "reader.py:7:59 AC001 error import-time torch.distributed._tensor.placement_types._Partial missing=2.4.0",
        ]
    );
}

#[test]
fn a_flag_set_true_in_the_handler_is_no_flag() {
    let dir = project(
        "flag_handler_true",
        &[
            ("lib.py", &flag_module("import torch.distributed", "True")),
            ("reader.py", FLAG_READER),
        ],
    );
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        [
            "lib.py:11:12 AC002 error import-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "reader.py:5:12 AC002 error import-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
}

/// A test that installs its own modules in `sys.modules` under torch's names decides what its
/// imports give: its uses of them are not judged, in every form it may write; a dict that is
/// not `sys.modules`, and the files that install nothing, stay judged.
#[test]
fn test_doubles_in_sys_modules_are_not_judged() {
    let uses = "\n\ndef use():\n    from torch.distributed.pipelining import pipeline\n    return pipeline\n";
    let dir = project(
        "test-doubles",
        &[
            (
                "test_literal.py",
                &format!("import sys\nimport types\n\nsys.modules[\"torch.distributed.pipelining\"] = types.ModuleType(\"x\")\n{uses}"),
            ),
            (
                "test_loop.py",
                &format!("import sys\nimport types\n\nfor name in (\"torch\", \"torch.distributed\"):\n    sys.modules[name] = types.ModuleType(name)\n{uses}"),
            ),
            (
                "test_name_of.py",
                &format!("import sys\nfrom types import ModuleType\n\nm = ModuleType(\"torch.distributed.pipelining\")\nsys.modules[m.__name__] = m\n{uses}"),
            ),
            (
                "test_monkeypatch.py",
                &format!("import sys\n\n\ndef test_it(monkeypatch):\n    monkeypatch.setitem(sys.modules, \"torch.distributed.pipelining\", object())\n{uses}"),
            ),
            (
                "test_patch_dict.py",
                &format!("import sys\nfrom unittest import mock\n\n\n@mock.patch.dict(sys.modules, {{\"torch.distributed\": mock.MagicMock()}})\ndef test_it():\n    pass\n{uses}"),
            ),
            (
                "registry.py",
                &format!("REGISTRY = {{}}\nREGISTRY[\"torch.distributed.pipelining\"] = None\n{uses}"),
            ),
            ("plain.py", uses),
        ],
    );
    let got = errors(&dir, "torch==2.3.0");
    let files: Vec<&str> = got.iter().filter_map(|f| f.split(':').next()).collect();
    assert_eq!(files, ["plain.py", "registry.py"], "{got:?}");
}

/// `None` in `sys.modules` makes an import fail (a test of the fallback): no double, the
/// file's other uses are of the real module.
#[test]
fn none_in_sys_modules_is_no_double() {
    let dir = project(
        "none-double",
        &[(
            "test_none.py",
            "import sys\n\n\ndef test_missing(monkeypatch):\n    monkeypatch.setitem(sys.modules, \"torch.distributed.pipelining\", None)\n    sys.modules[\"torch.distributed\"] = None\n\n\ndef use():\n    from torch.distributed.pipelining import pipeline\n    return pipeline\n",
        )],
    );
    assert_eq!(errors(&dir, "torch==2.3.0").len(), 1);
}

/// A function exists only where its module was imported: the module's condition guards the
/// call-time uses in its functions too (Megatron-DeepSpeed's `fused_rmsnorm`, imported only
/// under `if hasattr(torch.xpu, "IpexRmsNorm"):`). A `try` around the import guards only the
/// import itself: a later call runs outside it.
#[test]
fn a_condition_on_every_import_guards_the_functions_of_the_module() {
    let late = "\
import torch


def build(m):
    return torch.distributed.pipelining.pipeline(m)
";
    let guarded = project(
        "module_guards_calls",
        &[
            ("pkg/__init__.py", ""),
            ("pkg/flags.py", FLAGS),
            ("pkg/late.py", late),
            (
                "pkg/use.py",
                "from pkg.flags import IS_24\n\nif IS_24:\n    from pkg.late import build\n",
            ),
        ],
    );
    assert_eq!(errors(&guarded, "torch==2.3.0"), Vec::<String>::new());
    let caught = project(
        "module_guards_calls_try",
        &[
            ("pkg/__init__.py", ""),
            ("pkg/late.py", late),
            (
                "pkg/use.py",
                "try:\n    from pkg.late import build\nexcept ImportError:\n    build = None\n",
            ),
        ],
    );
    assert_eq!(
        errors(&caught, "torch==2.3.0"),
        ["pkg/late.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}

#[test]
fn a_module_importing_a_sibling_does_not_import_its_package_first() {
    // `pkg/sub/pipe.py` imports `pkg.sub.helpers`: `pkg.sub` was imported before `pipe`
    // (study 20 F-C, ChatTTS's `model/cuda/te_llama.py`), so `pkg.sub` keeps the cover of its
    // one guarded importer.
    let pipe = format!("from .helpers import X\nfrom pkg.sub import helpers\n{PIPE}");
    let dir = project(
        "module_guards_sibling",
        &[
            ("pkg/__init__.py", ""),
            ("pkg/flags.py", FLAGS),
            ("pkg/sub/__init__.py", "from .pipe import build\n"),
            ("pkg/sub/helpers.py", "X = 1\n"),
            ("pkg/sub/pipe.py", &pipe),
            (
                "pkg/use.py",
                "from pkg.flags import IS_24\n\n\ndef make(m):\n    if IS_24:\n        from pkg.sub import build\n        return build(m)\n",
            ),
            ("main.py", "print(1)\n"),
        ],
    );
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
}

#[test]
fn a_guarded_import_after_an_early_exit_keeps_the_condition_for_functions() {
    // `pkg/__init__.py` leaves below 2.4 and then imports `pipe`; `pkg` itself is imported in
    // a `try`: `pipe`'s import-time code is guarded, and its functions exist only on 2.4+
    // (unsloth's vendored truststore: `if sys.version_info < (3, 10): raise ImportError`).
    let later =
        "import torch\n\n\ndef build(m):\n    return torch.distributed.pipelining.pipeline(m)\n";
    let files = |init: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![
            ("pkg/__init__.py", init),
            ("pkg/pipe.py", later),
            (
                "main.py",
                "def make(m):\n    try:\n        import pkg\n    except ImportError:\n        return None\n    return pkg.build(m)\n",
            ),
        ]
    };
    let exits = "import torch\nfrom packaging import version\n\nif version.parse(torch.__version__) < version.parse(\"2.4.0\"):\n    raise ImportError(\"needs torch 2.4\")\n\nfrom .pipe import build\n";
    let dir = project("module_guards_exit", &files(exits));
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
    // Without the early exit the function is called on 2.3 too.
    let dir = project("module_guards_no_exit", &files("from .pipe import build\n"));
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        ["pkg/pipe.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}

#[test]
fn a_directory_a_script_puts_first_on_sys_path_is_the_projects() {
    // CenterNet's `_init_paths.py` puts `lib/` first: `datasets` there is its own package,
    // not the installed one (study 21). Appended, the installed package comes first: the
    // directory's packages are the project's only where no declaration installs them.
    let init = |how: &str| {
        format!("import os.path as osp\nimport sys\n\nlib_path = osp.join(osp.dirname(__file__), \"lib\")\nif lib_path not in sys.path:\n    sys.path.{how}\n")
    };
    let main = "import _init_paths\nfrom torch.distributed.pipelining import pipeline\n";
    let tree = |name: &str, init: &str, requirements: &str| {
        project(
            name,
            &[
                ("requirements.txt", requirements),
                ("src/_init_paths.py", init),
                ("src/main.py", main),
                ("src/lib/torch/__init__.py", ""),
                ("src/lib/torch/distributed/__init__.py", ""),
                ("src/lib/torch/distributed/pipelining.py", "pipeline = 1\n"),
            ],
        )
    };
    let dir = tree("syspath_insert", &init("insert(0, lib_path)"), "torch\n");
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
    let dir = tree("syspath_append", &init("append(lib_path)"), "torch\n");
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        ["src/main.py:2:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
    let dir = tree(
        "syspath_append_undeclared",
        &init("append(lib_path)"),
        "numpy\n",
    );
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
    // HRNet's and Faster R-CNN's form: a function of the module does the insert with its
    // parameter (study 36, D1).
    let helper = "import os.path as osp\nimport sys\n\n\ndef add_path(path):\n    if path not in sys.path:\n        sys.path.insert(0, path)\n\n\nlib_path = osp.join(osp.dirname(__file__), \"lib\")\nadd_path(lib_path)\n";
    let dir = tree("syspath_helper", helper, "torch\n");
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
    // A function that puts something else there says nothing of its argument.
    let other = helper.replace("sys.path.insert(0, path)", "sys.path.insert(0, \"x\")");
    let dir = tree("syspath_helper_other", &other, "torch\n");
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        ["src/main.py:2:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}

#[test]
fn a_directory_from_a_project_modules_file_or_in_a_package_is_the_projects() {
    // ClassyVision's `test/api_test.py` (study 37, F-O): a test package appends a directory
    // computed from the project package's `__file__`, then imports the template's own
    // `torch` package there (nothing declares torch).
    let test = |how: &str| {
        format!("import sys\nfrom pathlib import Path\n\nimport proj\n\nsys.path.{how}\nfrom torch.distributed.pipelining import pipeline\n")
    };
    let tree = |name: &str, how: &str| {
        project(
            name,
            &[
                ("requirements.txt", "numpy\n"),
                ("test/__init__.py", ""),
                ("test/api_test.py", &test(how)),
                ("proj/__init__.py", ""),
                ("proj/templates/torch/__init__.py", ""),
                ("proj/templates/torch/distributed/__init__.py", ""),
                (
                    "proj/templates/torch/distributed/pipelining.py",
                    "pipeline = 1\n",
                ),
            ],
        )
    };
    for how in [
        "append(str(Path(proj.__file__).resolve().parent / \"templates\"))",
        "append(str(Path(__file__).resolve().parents[1] / \"proj\" / \"templates\"))",
    ] {
        let dir = tree("syspath_module_file", how);
        assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new(), "{how}");
    }
    // From the working directory, a module of a package may run anywhere: not read there.
    let dir = tree("syspath_package_cwd", "append(\"proj/templates\")");
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        ["test/api_test.py:7:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}

#[test]
fn a_directory_appended_from_the_working_directory_is_the_projects() {
    // LLM-Adapters' `finetune.py` appends its own copy of peft from the working directory,
    // which is the project's root when its scripts are run; nothing declares peft (study 30,
    // F-B). The same import without the copy there is judged.
    let script = |how: &str| {
        format!("import os\nimport sys\n\nsys.path.{how}\nfrom torch.distributed.pipelining import pipeline\n")
    };
    for how in [
        "append(os.path.join(os.getcwd(), \"vendor/src/\"))",
        "append(\"vendor/src\")",
        "insert(0, os.path.join(os.getcwd(), \"vendor\", \"src\"))",
        "append(os.path.join(os.path.dirname(os.path.abspath(__file__)), \"vendor/src\"))",
    ] {
        let dir = project(
            "syspath_cwd",
            &[
                ("requirements.txt", "numpy\n"),
                ("train.py", &script(how)),
                ("vendor/src/torch/__init__.py", ""),
                ("vendor/src/torch/distributed/__init__.py", ""),
                (
                    "vendor/src/torch/distributed/pipelining.py",
                    "pipeline = 1\n",
                ),
            ],
        );
        assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new(), "{how}");
    }
    // Nothing of that name in the directory, or a directory above the root: the package.
    for how in [
        "append(os.path.join(os.getcwd(), \"other/src\"))",
        "append(os.path.join(os.getcwd(), \"../vendor/src\"))",
    ] {
        let dir = project(
            "syspath_cwd_other",
            &[
                ("requirements.txt", "numpy\n"),
                ("train.py", &script(how)),
                ("other/src/pkg/__init__.py", ""),
            ],
        );
        assert_eq!(
            errors(&dir, "torch==2.3.0"),
            ["train.py:5:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0"],
            "{how}"
        );
    }
}

#[test]
fn a_file_putting_first_a_directory_the_tree_lacks_is_not_judged_on_installed_packages() {
    // FastVideo's parity test puts a pinned checkout first (`Path(__file__).resolve()
    // .parents[1] / "Reference" / "src"`) that the tree does not have (study 25, F-B): what
    // it imports may come from there. Its findings on installed packages are left out, with a
    // note; a file without the insert is judged.
    let test = "import sys\nfrom pathlib import Path\n\nREF = Path(__file__).resolve().parents[1] / \"Reference\" / \"src\"\nsys.path.insert(0, str(REF))\n\nfrom torch.distributed.pipelining import pipeline\n";
    let plain = "from torch.distributed.pipelining import pipeline\n";
    let dir = project(
        "syspath_missing_checkout",
        &[
            ("tests/test_parity.py", test),
            ("tests/test_plain.py", plain),
        ],
    );
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        ["tests/test_plain.py:1:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
    let report = run(&dir, &["torch==2.3.0"]);
    let notes = report.summary.notes.join("\n");
    assert!(
        notes.contains(
            "puts `Reference/src`, a directory this tree does not have, first on `sys.path`"
        ),
        "{notes}"
    );
    // A directory computed elsewhere (imported, from the environment) is not known either;
    // one from the working directory is the project's own code.
    let imported = "import sys\nfrom paths import REF\n\nsys.path.insert(0, str(REF))\n\nfrom torch.distributed.pipelining import pipeline\n";
    let cwd = "import os\nimport sys\n\nsys.path.insert(0, os.path.abspath(\"..\"))\n\nfrom torch.distributed.pipelining import pipeline\n";
    // `sys.path[0]` is the script's own directory (Mask2Former's `demo_video/demo.py`).
    let first = "import os\nimport sys\n\nsys.path.insert(1, os.path.join(sys.path[0], \"..\"))\n\nfrom torch.distributed.pipelining import pipeline\n";
    let dir = project(
        "syspath_unknown_dir",
        &[
            ("tests/test_imported.py", imported),
            ("tests/test_cwd.py", cwd),
            ("tests/test_first.py", first),
        ],
    );
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        [
            "tests/test_cwd.py:6:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "tests/test_first.py:6:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0"
        ]
    );
}

/// A directory without `__init__.py` inside a package is a namespace portion of it: its
/// modules are named through it, so relative imports between them are followed (MoE-LLaVA's
/// `moellava/model/language_model/llava_mpt.py` imports `.mpt.modeling_mpt`, neither
/// directory with an `__init__.py`; study 25's D6 and F-G).
#[test]
fn modules_in_a_namespace_portion_of_a_package_are_named_through_it() {
    let dir = project(
        "module_guards_namespace_portion",
        &[
            ("pkg/__init__.py", "from .flags import IS_24\n\nif not IS_24:\n    from .lm.old import OLD\n"),
            ("pkg/flags.py", FLAGS),
            ("pkg/lm/old.py", "from .inner.impl import OLD\n"),
            ("pkg/lm/inner/impl.py", "from torch.distributed._tensor.placement_types import _Partial\n\nOLD = _Partial\n"),
            ("main.py", "import pkg\n"),
        ],
    );
    assert_eq!(errors(&dir, "torch==2.4.0"), Vec::<String>::new());
    // Unguarded, the same chain fails on 2.4.0.
    std::fs::write(dir.join("pkg/__init__.py"), "from .lm.old import OLD\n").unwrap();
    assert_eq!(
        errors(&dir, "torch==2.4.0"),
        ["pkg/lm/inner/impl.py:1:55 AC001 error import-time torch.distributed._tensor.placement_types._Partial missing=2.4.0"]
    );
}

/// Two copies of one module for two torch series, each imported only under its condition
/// (verl's `third_party/vllm/vllm_v_0_3_1/` ... under `if package_version == '0.3.1':`),
/// whose methods of the same names import the copy's `executor` in their body, which imports
/// its `worker` in its own (`llm_engine_sp.py` -> `spmd_gpu_executor.py` -> `worker.py`).
fn version_copies(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let engine = "\
class Engine:
    def __init__(self):
        self._init_executor()

    def _init_executor(self):
        from .executor import Executor
        self.executor = Executor()
";
    let executor = "\
class Executor:
    def __init__(self):
        self._init_workers()

    def _init_workers(self):
        from .worker import Worker
        self.worker = Worker()
";
    let mut files = vec![
        ("pkg/__init__.py", ""),
        ("pkg/flags.py", FLAGS),
        (
            "pkg/shim/__init__.py",
            "from pkg.flags import IS_24\n\nif IS_24:\n    from .new.engine import Engine\nelse:\n    from .old.engine import Engine\n",
        ),
        ("pkg/shim/new/__init__.py", ""),
        ("pkg/shim/new/engine.py", engine),
        ("pkg/shim/new/executor.py", executor),
        (
            "pkg/shim/new/worker.py",
            "from torch.distributed.pipelining import pipeline\n\n\nclass Worker:\n    def run(self, m):\n        return pipeline(m)\n",
        ),
        ("pkg/shim/old/__init__.py", ""),
        ("pkg/shim/old/engine.py", engine),
        ("pkg/shim/old/executor.py", executor),
        (
            "pkg/shim/old/worker.py",
            "from torch.distributed._tensor.placement_types import _Partial\n\n\nclass Worker:\n    partial = _Partial\n",
        ),
        ("main.py", "from pkg.shim import Engine\n\nEngine()\n"),
    ];
    files.extend_from_slice(extra);
    files
}

#[test]
fn an_import_inside_a_function_runs_only_where_its_module_is_imported() {
    // `_init_executor` and `_init_workers` are called from anywhere (from `__init__`, and by
    // name from both copies), but each copy's function exists only where its module was
    // imported: its `executor`, and so its `worker`, are imported only under that copy's
    // condition.
    let dir = project("module_guards_copies", &version_copies(&[]));
    assert_eq!(errors(&dir, "torch==2.3.0"), Vec::<String>::new());
    assert_eq!(errors(&dir, "torch==2.4.0"), Vec::<String>::new());
    // The guard is named: `new/worker.py`'s import is guarded on 2.3.0, not dropped.
    let report = common::run_with(&dir, &["torch==2.3.0"], |o| o.show_guarded = true);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.path.ends_with("new/worker.py")
                && f.line == 1
                && f.severity.as_str() == "info"
                && f.guard.is_some()),
        "{:#?}",
        report.findings
    );
    // Once the new copy is also imported unconditionally, its worker runs on 2.3.0 too.
    let dir = project(
        "module_guards_copies_open",
        &version_copies(&[(
            "other.py",
            "from pkg.shim.new.engine import Engine\n\nEngine()\n",
        )]),
    );
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        ["pkg/shim/new/worker.py:1:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
    assert_eq!(errors(&dir, "torch==2.4.0"), Vec::<String>::new());
}

#[test]
fn values_and_getters_of_other_modules_compare_like_their_computations() {
    // detectron2's `utils/env.py` `TORCH_VERSION = tuple(int(x) for x in
    // torch.__version__.split(".")[:2])`, imported by its other modules, and ClassyVision's
    // `get_torch_version()` returning a list (study 37, F-P): tests of them are tests of the
    // version, evaluated per release. `torch.distributed.pipelining` exists from 2.4.0.
    let env = "import torch\n\nTORCH_VERSION = tuple(int(x) for x in torch.__version__.split(\".\")[:2])\n\n\ndef get_torch_version():\n    \"\"\"[major, minor]\"\"\"\n    parts = torch.__version__.split(\".\")[:2]\n    return [int(p) for p in parts]\n";
    let user = |test: &str| {
        format!("from utils.env import TORCH_VERSION, get_torch_version\n\n\ndef f():\n    if {test}:\n        from torch.distributed.pipelining import pipeline\n")
    };
    for test in [
        "TORCH_VERSION >= (2, 4)",
        "get_torch_version() >= [2, 4]",
        "not TORCH_VERSION < (2, 4)",
    ] {
        let dir = project(
            "xmod_values",
            &[
                ("requirements.txt", "torch\n"),
                ("utils/__init__.py", ""),
                ("utils/env.py", env),
                ("train.py", &user(test)),
            ],
        );
        assert_eq!(errors(&dir, "torch>=1.13"), Vec::<String>::new(), "{test}");
    }
    // A test that admits older releases, and a name two modules define differently: judged.
    let dir = project(
        "xmod_values_low",
        &[
            ("requirements.txt", "torch\n"),
            ("utils/__init__.py", ""),
            ("utils/env.py", env),
            ("train.py", &user("TORCH_VERSION >= (2, 3)")),
        ],
    );
    assert_eq!(
        errors(&dir, "torch>=1.13"),
        ["train.py:6:50 AC001 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1"]
    );
    let dir = project(
        "xmod_values_two",
        &[
            ("requirements.txt", "torch\n"),
            ("utils/__init__.py", ""),
            ("utils/env.py", env),
            (
                "other.py",
                "import torch\n\nTORCH_VERSION = tuple(int(x) for x in torch.__version__.split(\".\")[:1])\n",
            ),
            ("train.py", &user("TORCH_VERSION >= (2, 4)")),
        ],
    );
    assert_eq!(
        errors(&dir, "torch>=1.13"),
        ["train.py:6:50 AC001 error call-time torch.distributed.pipelining.pipeline missing=1.13.0 - 2.3.1"]
    );
}

/// A dynamic import whose name is built with a fixed ending imports only the modules that
/// ending allows, and the packages above them (Search-R1's `import_module(f"verl.models.{name}.
/// {megatron}.modeling_{name}_megatron")` with `megatron = "megatron"` a constant of the
/// function, `docs/false-alarm-study-51.md` F-1): `pkg/pipe.py` stays guarded where no name
/// built can be it or be under it; a name ending in a computed part leaves everything under its
/// head open.
#[test]
fn a_dynamic_import_pattern_opens_only_what_it_may_name() {
    let loader = |expr: &str| {
        format!(
            "import importlib\n\n\ndef load(name):\n    megatron = \"megatron\"\n    return importlib.import_module({expr})\n"
        )
    };
    let cases = [
        (
            "module_guards_pattern",
            r#"f"pkg.{name}_{megatron}""#,
            false,
        ),
        (
            "module_guards_pattern_concat",
            r#""pkg." + name + "_model""#,
            false,
        ),
        // `pkg.pipe.megatron` runs `pkg/pipe.py` first (`name == "pipe"`).
        (
            "module_guards_pattern_parent",
            r#"f"pkg.{name}.{megatron}""#,
            true,
        ),
        ("module_guards_pattern_open", r#"f"pkg.{name}""#, true),
    ];
    for (name, expr, open) in cases {
        let text = loader(expr);
        let dir = project(
            name,
            &[
                ("pkg/__init__.py", ""),
                ("pkg/flags.py", FLAGS),
                ("pkg/pipe.py", PIPE),
                ("pkg/use.py", IMPORTERS),
                ("loader.py", &text),
            ],
        );
        assert_eq!(
            !errors(&dir, "torch==2.3.0").is_empty(),
            open,
            "{name}: {text}"
        );
    }
}
