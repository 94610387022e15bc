//! AC011 (private API) and AC012 (deprecated API), on the fake torch index and on the real one
//! embedded in the CLI (committed with the repository).

mod common;

use apicompat_check::Report;
use apicompat_index::Catalog;
use common::{catalog, project};

fn real_catalog() -> &'static Catalog {
    common::real_catalog(&["torch"])
}

fn run(catalog: &Catalog, dir: &std::path::Path, targets: &[&str]) -> Report {
    common::run_on(catalog, dir, targets, |o| {
        o.select = vec!["AC011".to_string(), "AC012".to_string()];
        o.ignore.clear();
    })
}

/// `line:col code symbol` of each finding.
fn brief(report: &Report) -> Vec<String> {
    report
        .findings
        .iter()
        .map(|f| format!("{}:{} {} {}", f.line, f.column, f.code, f.symbol))
        .collect()
}

#[test]
fn private_paths_are_reported_where_they_are_written() {
    let dir = project(
        "stability-private",
        &[(
            "m.py",
            "\
import torch
import torch.distributed._functional_collectives as funcol
from torch.distributed._tensor import Partial, DTensor

try:
    from torch.distributed._tensor import Shard
except ImportError:
    Shard = None


def f(x):
    funcol.all_reduce(x, 'sum', [0])
    DTensor.from_local(x)
    return torch.distributed._tensor.Replicate()
",
        )],
    );
    let report = run(catalog(), &dir, &["torch>=2.4"]);
    assert_eq!(
        brief(&report),
        [
            "2:8 AC011 torch.distributed._functional_collectives",
            "3:39 AC011 torch.distributed._tensor.Partial",
            "3:48 AC011 torch.distributed._tensor.DTensor",
            "14:12 AC011 torch.distributed._tensor.Replicate",
        ]
    );
    let partial = &report.findings[1];
    assert_eq!(partial.severity.as_str(), "warning");
    assert!(
        partial
            .message
            .contains("it is in 3 of the 11 indexed releases (2.4.0 - 2.5.0)"),
        "{}",
        partial.message
    );
    assert!(
        partial.message.contains(
            "in torch 2.5.0 the same object is public as `torch.distributed.tensor.Partial`"
        ),
        "{}",
        partial.message
    );
    let moved = &partial.fixes[0];
    assert_eq!(
        moved.replacement.as_deref(),
        Some("torch.distributed.tensor.Partial")
    );
    assert_eq!(moved.releases, ["2.5.0"]);
    assert!(
        moved.message.contains("require `torch>=2.5.0`"),
        "{}",
        moved.message
    );
    // No public path before 2.5.0 and none for a private module.
    let funcol = &report.findings[0];
    assert!(
        funcol.message.contains("no public path"),
        "{}",
        funcol.message
    );
    // Only in 2.5.0: the public path is there in every targeted release.
    let newest = run(catalog(), &dir, &["torch==2.5.0"]);
    assert!(
        newest.findings[1]
            .message
            .contains("public as `torch.distributed.tensor.Partial` in every targeted release"),
        "{}",
        newest.findings[1].message
    );
    // Uses that break are AC001's, not a warning about a private path.
    let old = run(catalog(), &dir, &["torch==2.3.0"]);
    assert!(
        !brief(&old).iter().any(|l| l.contains("Partial")),
        "{:?}",
        brief(&old)
    );
}

/// A private path in a handler of `ImportError` (or `AttributeError`...) that does not raise
/// again is the fallback for releases that lack what the `try` used: no AC011 there. In a
/// handler of another exception it is reported.
#[test]
fn private_fallbacks_in_import_handlers_are_not_reported() {
    let dir = project(
        "stability-fallback",
        &[(
            "m.py",
            "\
import torch

try:
    from torch.distributed.tensor import Replicate
except ImportError:
    from torch.distributed._tensor import Replicate

try:
    import json
except ValueError:
    from torch.distributed._tensor import DTensor
",
        )],
    );
    let report = run(catalog(), &dir, &["torch>=2.4"]);
    assert_eq!(
        brief(&report),
        ["11:43 AC011 torch.distributed._tensor.DTensor"]
    );
}

/// A deprecated name used in the handler of a `try` of imports is judged only where the handler
/// runs: `LeafSpec` (deprecated from torch 2.10.0) as the fallback of `treespec_leaf` (which
/// 2.10.0 has) is not a use of it there (torchao's `pt2e/utils.py`).
#[test]
fn deprecated_names_in_import_fallbacks_are_judged_where_the_handler_runs() {
    let real = real_catalog();
    let dir = project(
        "stability-deprecated-fallback",
        &[
            (
                "a.py",
                "\
try:
    from torch.utils._pytree import treespec_leaf
except ImportError:
    from torch.utils._pytree import LeafSpec

    def treespec_leaf():
        return LeafSpec()
",
            ),
            (
                "b.py",
                "from torch.utils._pytree import LeafSpec\n\nLEAF = LeafSpec()\n",
            ),
        ],
    );
    let report = run(real, &dir, &["torch==2.10.0"]);
    let deprecated: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.code == "AC012")
        .map(|f| {
            format!(
                "{}:{}",
                f.path.file_name().unwrap().to_string_lossy(),
                f.line
            )
        })
        .collect();
    assert_eq!(deprecated, ["b.py:1"], "{:#?}", report.findings);
}

#[test]
fn deprecated_apis_with_release_and_message() {
    let real = real_catalog();
    let dir = project(
        "stability-deprecated",
        &[(
            "m.py",
            "\
import torch
from torch.cuda.amp import autocast, GradScaler
from torch.autograd import Function


class Twice(Function):
    @staticmethod
    def forward(ctx, x):
        return 2 * x


class Thrice(torch.autograd.Function):
    pass


def step(model, x):
    with autocast():
        y = model(x)
    torch.nn.utils.clip_grad_norm(model.parameters(), 1.0)
    return y
",
        )],
    );
    let report = run(real, &dir, &["torch>=2.4,<2.6"]);
    assert_eq!(
        brief(&report),
        [
            "2:28 AC012 torch.cuda.amp.autocast",
            "19:5 AC012 torch.nn.utils.clip_grad_norm",
        ]
    );
    let autocast = &report.findings[0];
    assert!(
        autocast.message.starts_with(
            "`torch.cuda.amp.autocast` is deprecated since torch 2.4.0 (targeted: 2.4.0 - 2.5.1): \"`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.\""
        ),
        "{}",
        autocast.message
    );
    assert_eq!(
        autocast.fixes[0].replacement.as_deref(),
        Some("torch.amp.autocast('cuda', args...)")
    );
    // `torch.amp.autocast` is in every targeted release: the advice says nothing more.
    assert_eq!(
        autocast.fixes[0].message,
        "use `torch.amp.autocast('cuda', args...)` as the deprecation message says"
    );
    // Not deprecated before 2.4.
    let old = run(real, &dir, &["torch==2.3.1"]);
    assert_eq!(brief(&old), Vec::<String>::new());
}

/// A replacement the deprecation message names that some targeted releases lack is said to be
/// missing there (mamba `distributed_utils.py:23`: torch 2.13 deprecates
/// `all_gather_into_tensor` for `all_gather_single`, which is new in 2.13).
#[test]
fn a_replacement_missing_from_targeted_releases_is_named() {
    let dir = project(
        "stability-replacement",
        &[(
            "m.py",
            "import torch\n\n\ndef gather(out, x):\n    torch.distributed.all_gather_into_tensor(out, x)\n",
        )],
    );
    let report = run(real_catalog(), &dir, &["torch>=2.12,<2.14"]);
    assert_eq!(
        brief(&report),
        ["5:5 AC012 torch.distributed.all_gather_into_tensor"]
    );
    assert_eq!(
        report.findings[0].fixes[0].message,
        "use `torch.distributed.all_gather_single` as the deprecation message says (it is not in torch 2.12.0 - 2.12.1, which the targets admit)"
    );
}

#[test]
fn a_private_module_is_not_the_same_object_as_another_module_of_its_name() {
    // `torch.distributed.config` (2.11+) is another config module: its symbol looks like
    // `torch._inductor.config`'s (the index shares one record between them), but it is not
    // the same object, whichever is looked up first.
    let dir = project(
        "stability-config-modules",
        &[(
            "m.py",
            "import torch.distributed.config\nimport torch._inductor.config\n\ntorch._inductor.config.freezing = True\n",
        )],
    );
    let report = run(real_catalog(), &dir, &["torch==2.12.0"]);
    let f = report
        .findings
        .iter()
        .find(|f| f.symbol == "torch._inductor.config")
        .expect("AC011 on the private module");
    assert!(
        !f.message.contains("torch.distributed.config"),
        "{}",
        f.message
    );
    assert!(
        f.message.contains("no public path names the same object"),
        "{}",
        f.message
    );
}
