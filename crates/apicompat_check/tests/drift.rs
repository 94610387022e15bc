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
