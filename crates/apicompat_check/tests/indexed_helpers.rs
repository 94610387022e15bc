//! Version helpers of an indexed package guard the project's uses as its own helpers do
//! (`apicompat_check::indexed_helpers`; docs/false-alarm-study-38.md, F-R: InstantID's
//! `is_torch_version(">=", "2.1")` from diffusers). The fake torch (1.13.0 - 2.5.0) has
//! `torch.distributed.pipelining` from 2.4.0; the fake `helperlib` is indexed the way `index
//! build` indexes a release, its helpers read from its sources.

mod common;

use std::sync::OnceLock;

use apicompat_archive::{SourceFile, SourceTree};
use apicompat_check::Report;
use apicompat_hash::HashSet;
use apicompat_index::{Catalog, IndexBuilder};
use common::project;

/// diffusers 0.42's `import_utils.py`: a tuple getter, a comparator, a helper with the
/// operator as a string; transformers 5's `is_torch_greater_or_equal` (early exit, then the
/// same comparison in both branches); transformers 4's module-level flags. In `0.2.0`
/// `is_torch_version` is no helper (it returns a constant).
fn helperlib(version: &str) -> Vec<(String, String)> {
    let is_torch_version = if version == "0.2.0" {
        "def is_torch_version(operation, version):\n    return True\n"
    } else {
        "@cache\ndef is_torch_version(operation: str, version: str):\n    return compare_versions(parse(_torch_version), operation, version)\n"
    };
    let import_utils = format!(
        r#"import importlib.util
import importlib.metadata as importlib_metadata
import operator as op
from functools import cache, lru_cache
from packaging.version import parse
from packaging import version as pv

STR_OPERATION_TO_FUNC = {{">": op.gt, ">=": op.ge, "==": op.eq, "!=": op.ne, "<=": op.le, "<": op.lt}}


def _is_package_available(pkg_name: str, get_dist_name: bool = False):
    pkg_exists = importlib.util.find_spec(pkg_name) is not None
    pkg_version = "N/A"
    if pkg_exists:
        for distribution_name in _candidates(pkg_name.replace("_", "-")):
            try:
                pkg_version = importlib_metadata.version(distribution_name)
                break
            except importlib_metadata.PackageNotFoundError:
                continue
        else:
            pkg_exists = False
    if get_dist_name:
        return pkg_exists, pkg_version
    return pkg_exists, None


if USE_TORCH:
    _torch_available, _torch_version = _is_package_available("torch")
else:
    _torch_version = "N/A"
    _torch_available = False


def compare_versions(library_or_version, operation: str, requirement_version: str):
    operation = STR_OPERATION_TO_FUNC[operation]
    if isinstance(library_or_version, str):
        library_or_version = parse(importlib_metadata.version(library_or_version))
    return operation(library_or_version, parse(requirement_version))


{is_torch_version}

def is_torch_available():
    return _torch_available


def get_torch_version() -> str:
    _, torch_version = _is_package_available("torch")
    return torch_version


@lru_cache
def is_torch_greater_or_equal(library_version: str, accept_dev: bool = False) -> bool:
    if not is_torch_available():
        return False
    if accept_dev:
        return pv.parse(pv.parse(get_torch_version()).base_version) >= pv.parse(library_version)
    else:
        return pv.parse(get_torch_version()) >= pv.parse(library_version)
"#
    );
    vec![
        ("helperlib/__init__.py".into(), String::new()),
        (
            "helperlib/utils/__init__.py".into(),
            "from .import_utils import is_torch_version, is_torch_greater_or_equal\n".into(),
        ),
        ("helperlib/utils/import_utils.py".into(), import_utils),
        (
            "helperlib/pytorch_utils.py".into(),
            "import torch\nfrom packaging import version\nfrom .utils.import_utils import is_torch_greater_or_equal\n\nparsed_torch_version_base = version.parse(version.parse(torch.__version__).base_version)\nis_torch_greater_or_equal_than_2_4 = parsed_torch_version_base >= version.parse(\"2.4\")\nis_torch_ge_2_4_dev = is_torch_greater_or_equal(\"2.4\", accept_dev=True)\n".into(),
        ),
        // transformers 5's `integrations/moe.py`: a package function given the helper, which
        // must not make the name a flag of that call.
        (
            "helperlib/moe.py".into(),
            "import torch\nfrom .utils.import_utils import is_torch_greater_or_equal\n\nif USE_TORCH:\n    is_torch_greater_or_equal = torch._dynamo.assume_constant_result(is_torch_greater_or_equal)\n".into(),
        ),
    ]
}

/// The fake torch and `helperlib` 0.1.0 (and 0.2.0 with `two`).
fn catalog(two: bool) -> &'static Catalog {
    static ONE: OnceLock<Catalog> = OnceLock::new();
    static TWO: OnceLock<Catalog> = OnceLock::new();
    (if two { &TWO } else { &ONE }).get_or_init(|| {
        let mut embedded: Vec<(&'static str, &'static [u8])> =
            vec![("torch", common::torch_index_bytes())];
        let roots: HashSet<String> = ["torch".to_string()].into_iter().collect();
        let mut builder = IndexBuilder::new("helperlib");
        let versions: &[&str] = if two { &["0.1.0", "0.2.0"] } else { &["0.1.0"] };
        for v in versions {
            let mut files: Vec<SourceFile> = helperlib(v)
                .into_iter()
                .map(|(path, src)| SourceFile {
                    path,
                    data: src.into_bytes(),
                })
                .collect();
            files.sort_by(|a, b| a.path.cmp(&b.path));
            let tree = SourceTree {
                files,
                top_level: vec!["helperlib".into()],
                ..SourceTree::default()
            };
            let mut surface = apicompat_extract::extract(&tree, "helperlib", v);
            let sources: Vec<(String, &[u8])> = tree
                .files
                .iter()
                .map(|f| (f.path.clone(), f.data.as_slice()))
                .collect();
            for (path, json) in
                apicompat_check::indexed_helpers::package_version_helpers(&sources, &roots)
            {
                if let Some(s) = surface.symbols.get_mut(&path) {
                    s.version_helper = Some(json);
                }
            }
            builder.add(&surface).expect("add release");
        }
        let bytes: &'static [u8] = Box::leak(builder.finish().expect("index").into_boxed_slice());
        embedded.push(("helperlib", bytes));
        Catalog::open(Box::leak(embedded.into_boxed_slice()), None)
    })
}

fn run(two: bool, dir: &std::path::Path) -> Report {
    let target = if two { "helperlib" } else { "helperlib==0.1.0" };
    common::run_on(catalog(two), dir, &["torch==2.3.0", target], |_| {})
}

fn errors_at(report: &Report) -> Vec<u32> {
    let mut lines: Vec<u32> = report
        .findings
        .iter()
        .filter(|f| f.severity.as_str() == "error" && f.code == "AC002")
        .map(|f| f.line)
        .collect();
    lines.sort();
    lines
}

const USES: &str = "\
import torch
from helperlib.utils import is_torch_version, is_torch_greater_or_equal
from helperlib.utils.import_utils import compare_versions
from helperlib.pytorch_utils import is_torch_greater_or_equal_than_2_4, is_torch_ge_2_4_dev
import helperlib.utils

HIGHER = is_torch_version(\">=\", \"2.4\")


def by_call():
    if is_torch_version(\">=\", \"2.4\"):
        return torch.distributed.pipelining.pipeline


def by_flag_of_this_file(compiled):
    if compiled and HIGHER:
        return torch.distributed.pipelining.pipeline


def by_early_exit_helper():
    if is_torch_greater_or_equal(\"2.4\"):
        return torch.distributed.pipelining.pipeline


def by_package_flag():
    if is_torch_greater_or_equal_than_2_4:
        return torch.distributed.pipelining.pipeline


def by_attribute():
    if helperlib.utils.is_torch_version(\">=\", \"2.4\"):
        return torch.distributed.pipelining.pipeline


def by_comparator():
    if compare_versions(\"torch\", \">=\", \"2.4\"):
        return torch.distributed.pipelining.pipeline


def too_low():
    if is_torch_version(\">=\", \"2.0\"):
        return torch.distributed.pipelining.pipeline


def negated_one_way():
    if not is_torch_greater_or_equal(\"2.0\"):
        return None
    return torch.distributed.pipelining.pipeline


def unguarded():
    return torch.distributed.pipelining.pipeline


def by_dev_flag():
    if is_torch_ge_2_4_dev:
        return torch.distributed.pipelining.pipeline
";

#[test]
fn a_packages_version_helpers_guard_as_the_projects_own() {
    let dir = project("indexed_helpers", &[("use.py", USES)]);
    // Guarded (torch 2.3.0 is below each helper's 2.4): nothing. `too_low` admits 2.3.0;
    // `negated_one_way`'s helper returns False under other tests too, so its negation is no
    // condition; `unguarded` has none.
    assert_eq!(errors_at(&run(false, &dir)), vec![42, 48, 52]);
}

#[test]
fn a_helper_only_some_releases_have_is_no_guard() {
    // helperlib 0.2.0's `is_torch_version` returns a constant: the releases disagree, so a
    // call of it guards nothing; the other helpers still do.
    let dir = project("indexed_helpers_two", &[("use.py", USES)]);
    assert_eq!(errors_at(&run(true, &dir)), vec![12, 17, 32, 42, 48, 52]);
}

#[test]
fn the_same_helpers_written_in_the_project_guard_too() {
    // The forms read in a package's sources, as a project's own modules: a getter returning
    // the version in a tuple (`"N/A"` in the other branch), a function without parameters
    // returning it, a helper after an early exit, a flag of another module.
    let mut files: Vec<(String, String)> = helperlib("0.1.0")
        .into_iter()
        .map(|(path, src)| (path.replacen("helperlib", "mylib", 1), src))
        .collect();
    files.push(("use.py".into(), USES.replace("helperlib", "mylib")));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, s)| (p.as_str(), s.as_str()))
        .collect();
    let dir = project("indexed_helpers_own", &refs);
    let report = common::run(&dir, &["torch==2.3.0"]);
    let mut lines: Vec<u32> = report
        .findings
        .iter()
        .filter(|f| f.severity.as_str() == "error" && f.path.ends_with("use.py"))
        .map(|f| f.line)
        .collect();
    lines.sort();
    // `by_attribute` (:32) calls `mylib.utils.is_torch_version`, a helper known by name.
    assert_eq!(lines, vec![42, 48, 52]);
}

#[test]
fn a_flag_set_from_a_one_way_helper_is_one_way() {
    // torch 2.4.0 lacks `_Partial`. The `else` of an exact flag runs below 2.4 only; that of a
    // flag set from `is_torch_greater_or_equal`, whose early exit returns `False` for other
    // reasons too, may run anywhere.
    let uses = "\
import torch
from helperlib.pytorch_utils import is_torch_ge_2_4_dev, is_torch_greater_or_equal_than_2_4


def exact_flag_else():
    if is_torch_greater_or_equal_than_2_4:
        return None
    return torch.distributed._tensor.placement_types._Partial


def one_way_flag_else():
    if is_torch_ge_2_4_dev:
        return None
    return torch.distributed._tensor.placement_types._Partial
";
    let dir = project("indexed_helpers_one_way", &[("use.py", uses)]);
    let report = common::run_on(
        catalog(false),
        &dir,
        &["torch==2.4.0", "helperlib==0.1.0"],
        |_| {},
    );
    assert_eq!(errors_at(&report), vec![14]);
}

#[test]
fn a_function_returning_the_version_computes_like_the_version() {
    // `get_v()` returns the version a tuple getter of the same file gives; a computation on
    // its result is evaluated with each release's version (2.3.0: minor 3).
    let module = |minor: u32| {
        format!(
            "\
import importlib.metadata
import importlib.util
import torch


def _avail(pkg_name, return_version=False):
    v = \"N/A\"
    if importlib.util.find_spec(pkg_name) is not None:
        v = importlib.metadata.version(pkg_name)
    return True, v


def get_v() -> str:
    _, v = _avail(\"torch\", True)
    return v


def step():
    if int(get_v().split(\".\")[1]) >= {minor}:
        return torch.distributed.pipelining.pipeline
"
        )
    };
    let lines = |name: &str, minor: u32| {
        let dir = project(name, &[("same.py", &module(minor))]);
        errors_at(&common::run(&dir, &["torch==2.3.0"]))
    };
    assert!(lines("returner_guarded", 4).is_empty());
    assert_eq!(lines("returner_open", 3), vec![20]);
}
