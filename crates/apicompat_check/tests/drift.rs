//! AC009 with replacements and known receiver classes, against the real colossalai index
//! embedded in the CLI (committed with the repository).

mod common;

use apicompat_check::Report;
use apicompat_index::Catalog;
use common::project;

fn real_catalog() -> &'static Catalog {
    common::real_catalog(&["torch", "colossalai"])
}

fn run(dir: &std::path::Path, targets: &[&str]) -> Report {
    let catalog = real_catalog();
    common::run_on(catalog, dir, targets, |o| {
        o.select = vec!["AC009".to_string()]
    })
}

const UTILS: &str = "\
import torch
from colossalai.booster import Booster


def master_param_of(optimizer, param: torch.Tensor):
    param_id = id(param)
    return optimizer._param_store.working_to_master_param[param_id]
";

#[test]
fn fixture_b_param_store_of_an_optimizer_parameter() {
    let dir = project(
        "drift-fixture-b",
        &[
            ("utils.py", UTILS),
            ("requirements.txt", "colossalai>=0.4.0\n"),
        ],
    );
    let report = run(&dir, &[]);
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert_eq!((f.code, f.line, f.column), ("AC009", 7, 12));
    assert_eq!(f.severity.as_str(), "error");
    assert_eq!(f.missing_ranges, ["0.4.1 - 0.5.0"]);
    assert!(
        f.message.starts_with(
            "`_param_store` is set only by `colossalai.zero.low_level.low_level_optim.LowLevelZeroOptimizer` in colossalai 0.3.0 - 0.4.0; colossalai 0.4.1 - 0.5.0 (declared `colossalai>=0.4.0`) have no class defining it"
        ),
        "{}",
        f.message
    );
    let replacements: Vec<&str> = f
        .fixes
        .iter()
        .filter_map(|x| x.replacement.as_deref())
        .collect();
    assert_eq!(
        replacements,
        [
            "optimizer.get_working_to_master_map()",
            "optimizer.working_to_master_param"
        ]
    );
    assert_eq!(
        f.fixes[1].releases.first().map(String::as_str),
        Some("0.4.1")
    );

    let pinned = run(&dir, &["colossalai==0.4.0"]);
    assert!(pinned.findings.is_empty(), "{:#?}", pinned.findings);
}

#[test]
fn receivers_of_a_known_class() {
    let dir = project(
        "drift-typed",
        &[
            (
                "m.py",
                "\
import torch
from colossalai.zero import LowLevelZeroOptimizer
from colossalai.zero.low_level import low_level_optim


def build(model):
    optimizer = LowLevelZeroOptimizer(torch.optim.Adam(model.parameters()))
    return optimizer._param_store, optimizer.step, optimizer.get_working_to_master_map


def master(optimizer: low_level_optim.LowLevelZeroOptimizer):
    return optimizer._param_store.working_to_master_param
",
            ),
            ("requirements.txt", "colossalai>=0.4.0\n"),
        ],
    );
    let report = run(&dir, &[]);
    let got: Vec<(u32, &str)> = report
        .findings
        .iter()
        .map(|f| (f.line, f.symbol.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (8, "optimizer._param_store"),
            (12, "optimizer._param_store")
        ]
    );
    assert!(
        report.findings[0].message.starts_with(
            "`optimizer` is a `colossalai.zero.low_level.low_level_optim.LowLevelZeroOptimizer` (built at line 7), so only that class counts: `_param_store` is set by it only in colossalai 0.3.0 - 0.4.0"
        ),
        "{}",
        report.findings[0].message
    );
    assert!(
        report.findings[1]
            .message
            .contains("a parameter annotated with it at line 11"),
        "{}",
        report.findings[1].message
    );
}

#[test]
fn isinstance_narrows_and_unknown_releases_stay_quiet() {
    let dir = project(
        "drift-narrowed",
        &[
            (
                "m.py",
                "\
import torch
from colossalai.zero.low_level.low_level_optim import LowLevelZeroOptimizer
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def master(optimizer):
    if isinstance(optimizer, LowLevelZeroOptimizer):
        return optimizer._param_store
    return optimizer._param_store


def flat(module):
    # FSDP defines `__getattr__` in torch 1.13: unknown there, not missing.
    if module._has_params:
        return module._flat_param
",
            ),
            ("requirements.txt", "colossalai>=0.4.0\ntorch>=1.13\n"),
        ],
    );
    let report = run(&dir, &[]);
    let got: Vec<(u32, &str)> = report
        .findings
        .iter()
        .map(|f| (f.line, f.symbol.as_str()))
        .collect();
    assert_eq!(
        got,
        [(8, "optimizer._param_store"), (9, "optimizer._param_store")],
        "{:#?}",
        report.findings
    );
    assert!(
        report.findings[0]
            .message
            .contains("(checked with `isinstance` at line 7), so only that class counts"),
        "{}",
        report.findings[0].message
    );
    assert!(report.findings[1]
        .message
        .starts_with("`_param_store` is set only by"));
}

/// The acceptance: a ZeRO optimizer reaches a helper in another file that imports only
/// torch. The helper's parameter is typed by its one call, whose argument a colossalai
/// function returned (`booster.boost`), so colossalai's classes decide.
#[test]
fn zero_optimizer_passed_to_a_helper_of_another_file() {
    let utils = "\
import torch


def update_ema(ema_model, model, optimizer=None, decay=0.9999):
    ema_params = dict(ema_model.named_parameters())
    for name, param in model.named_parameters():
        if optimizer is not None:
            master = optimizer._param_store.working_to_master_param[id(param)]
            ema_params[name].mul_(decay).add_(master.data, alpha=1 - decay)
";
    let train = "\
from copy import deepcopy

import torch
from colossalai.booster import Booster
from colossalai.booster.plugin import LowLevelZeroPlugin
from colossalai.nn.optimizer import HybridAdam

from utils import update_ema


def main():
    model = torch.nn.Linear(4, 4)
    ema = deepcopy(model)
    optimizer = HybridAdam(model.parameters(), lr=1e-4)
    booster = Booster(plugin=LowLevelZeroPlugin())
    model, optimizer, *_ = booster.boost(model, optimizer)
    update_ema(ema, model, optimizer=optimizer)
";
    let dir = project(
        "drift-zero-helper",
        &[
            ("utils.py", utils),
            ("train.py", train),
            ("requirements.txt", "torch>=2.1\ncolossalai>=0.4.0\n"),
        ],
    );
    // Against the declared `colossalai>=0.4.0`: broken from 0.4.1.
    let report = run(&dir, &[]);
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert_eq!((f.code, f.line, f.column), ("AC009", 8, 22));
    assert_eq!(f.missing_ranges, ["0.4.1 - 0.5.0"]);
    assert!(
        f.message
            .contains("`optimizer.get_working_to_master_map()`"),
        "{}",
        f.message
    );
    assert!(run(&dir, &["colossalai==0.4.0"]).findings.is_empty());
    // Without the call, the helper's parameter is unknown and its file imports no colossalai.
    let alone = project(
        "drift-zero-helper-alone",
        &[
            ("utils.py", utils),
            ("requirements.txt", "torch>=2.1\ncolossalai>=0.4.0\n"),
        ],
    );
    assert!(run(&alone, &["colossalai==0.4.1"]).findings.is_empty());
}

/// AC009 reads carry what their tests say about paths: the `else` of `if
/// hasattr(LowLevelZeroOptimizer, "get_working_to_master_map"):` (a method, 0.3.3 - 0.5.0) runs
/// only where `_param_store` exists; `hasattr` of an attribute set on instances
/// (`working_to_master_param`) is false on every release, so its `else` stays checked.
#[test]
fn member_reads_under_hasattr_tests() {
    let dir = project(
        "drift-hasattr",
        &[
            (
                "utils.py",
                "\
from colossalai.zero.low_level.low_level_optim import LowLevelZeroOptimizer


def old_store(optimizer):
    if hasattr(LowLevelZeroOptimizer, \"get_working_to_master_map\"):
        return optimizer.get_working_to_master_map()
    else:
        return optimizer._param_store


def instance_attribute(optimizer):
    if hasattr(LowLevelZeroOptimizer, \"working_to_master_param\"):
        return None
    return optimizer._param_store
",
            ),
            ("requirements.txt", "colossalai>=0.3.0\n"),
        ],
    );
    let report = run(&dir, &[]);
    let got: Vec<(u32, Vec<String>)> = report
        .findings
        .iter()
        .map(|f| (f.line, f.missing_ranges.clone()))
        .collect();
    assert_eq!(
        got,
        [(14, vec!["0.4.1 - 0.5.0".to_string()])],
        "{:#?}",
        report.findings
    );
}

#[test]
fn a_receiver_of_a_class_outside_the_index_is_not_guessed() {
    // Annotated with a class of a package the index does not have (study 20 F-D: dlrm's
    // torchrec pipeline): that class's attributes are unknown. Without the annotation the
    // read is judged by name, as for any object of unknown type.
    let src = |param: &str| {
        format!(
            "import torch\nfrom colossalai.booster import Booster\nfrom elsewhere.zero import ZeroPipeline\n\n\ndef master({param}):\n    return optimizer._param_store.working_to_master_param\n"
        )
    };
    let typed = src("optimizer: ZeroPipeline");
    let dir = project(
        "drift-foreign-annotation",
        &[
            ("m.py", &typed),
            ("requirements.txt", "colossalai>=0.4.0\n"),
        ],
    );
    assert!(run(&dir, &[]).findings.is_empty());
    let untyped = src("optimizer");
    let dir = project(
        "drift-foreign-annotation-control",
        &[
            ("m.py", &untyped),
            ("requirements.txt", "colossalai>=0.4.0\n"),
        ],
    );
    let got: Vec<(u32, String)> = run(&dir, &[])
        .findings
        .iter()
        .map(|f| (f.line, f.symbol.clone()))
        .collect();
    assert_eq!(got, [(7, "optimizer._param_store".to_string())]);
}
