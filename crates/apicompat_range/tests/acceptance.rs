//! The acceptance fixtures of issue 4 against the real indexes embedded in the CLI
//! (`crates/apicompat/index/*.apix`): they mirror the incidents the commands exist for.
//! Skipped, with a message, where the torch index is absent.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use apicompat_check::{check, Options};
use apicompat_index::Catalog;
use apicompat_range::upgrade::{run as diff, DiffOptions};
use apicompat_range::{range, render, RangeOptions, RangeReport};
use apicompat_requirements::parse_requirement;

mod common;

/// The indexes embedded in the CLI (committed with the repository: a missing torch fails).
fn real_catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        common::embedded_catalog(&["torch", "colossalai", "torchvision"], &["torch"])
    })
}

fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    common::project("range-acceptance", name, files)
}

fn run(catalog: &Catalog, dir: &Path) -> RangeReport {
    range(
        catalog,
        &RangeOptions {
            paths: vec![dir.to_path_buf()],
            project: Some(dir.to_path_buf()),
            ..RangeOptions::default()
        },
    )
    .expect("range runs")
}

fn newest(catalog: &Catalog, package: &str) -> String {
    catalog
        .package(package)
        .unwrap()
        .unwrap()
        .versions()
        .last()
        .cloned()
        .unwrap()
}

const TRAIN: &str = "\
from torch.distributed._tensor import Partial
from torch.distributed.pipelining import pipeline


def selective_checkpoint_policy(ctx, op, *args, **kwargs):
    from torch.utils.checkpoint import CheckpointPolicy
    return CheckpointPolicy.MUST_SAVE
";

/// (1) `Partial` from `torch.distributed._tensor` and `pipeline` at top level, `CheckpointPolicy`
/// in a function, `torch>=2.3.0` declared.
#[test]
fn fixture_1_import_time_and_call_time_ranges() {
    let catalog = real_catalog();
    let dir = project(
        "one",
        &[
            ("src/train.py", TRAIN),
            ("requirements.txt", "torch>=2.3.0\n"),
        ],
    );
    let report = run(catalog, &dir);
    let last = newest(catalog, "torch");
    assert_eq!(report.packages.len(), 1);
    let torch = &report.packages[0];
    assert_eq!(torch.package, "torch");
    // Importing works on 2.4.0+, the selective checkpoint path needs 2.5.0+.
    assert_eq!(torch.import_time.ranges, [format!("2.4.0 - {last}")]);
    assert_eq!(torch.call_time.ranges, [format!("2.5.0 - {last}")]);
    assert_eq!(torch.needs.ranges, [format!("2.5.0 - {last}")]);
    let bound = |scope: &str| {
        torch
            .bounds
            .iter()
            .find(|b| b.scope == scope && b.kind == "lower")
            .unwrap_or_else(|| panic!("no {scope} lower bound: {:?}", torch.bounds))
    };
    let all = bound("all");
    assert_eq!(
        (all.version.as_str(), all.excluded.as_str()),
        ("2.5.0", "2.4.1")
    );
    assert_eq!(all.uses.len(), 1);
    assert_eq!(
        all.uses[0].symbol,
        "torch.utils.checkpoint.CheckpointPolicy"
    );
    assert_eq!(all.uses[0].location(), "src/train.py:6");
    assert_eq!(all.uses[0].reach, "call-time");
    let import = bound("import-time");
    assert_eq!(import.version, "2.4.0");
    let symbols: Vec<&str> = import.uses.iter().map(|u| u.symbol.as_str()).collect();
    assert_eq!(
        symbols,
        [
            "torch.distributed._tensor.Partial",
            "torch.distributed.pipelining.pipeline"
        ]
    );
    assert!(torch.bounds.iter().all(|b| b.kind == "lower"));

    // The declared pin admits 2.3.0 and 2.3.1, where importing fails (and 2.4.0 - 2.4.1, where
    // the checkpoint policy fails when called).
    assert_eq!(torch.declared[0].requirement, "torch>=2.3.0");
    assert_eq!(torch.declared[0].source, "requirements.txt:1");
    let broken: Vec<(&str, &str)> = torch
        .admitted_broken
        .iter()
        .map(|b| (b.release.as_str(), b.reach))
        .collect();
    assert_eq!(
        broken,
        [
            ("2.3.0", "import-time"),
            ("2.3.1", "import-time"),
            ("2.4.0", "call-time"),
            ("2.4.1", "call-time")
        ]
    );
    let finding = torch.finding.as_ref().expect("AC008");
    assert_eq!(finding.code, "AC008");
    assert!(torch.excluded_working.is_empty());

    assert!(report.joint.possible);
    assert_eq!(report.recommended, ["torch>=2.5"]);

    let text = render::range_text(&report, false, false);
    assert!(
        text.contains("needs >= 2.5.0 because of `torch.utils.checkpoint.CheckpointPolicy` at src/train.py:6, call-time"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&render::range_json(&report)).unwrap();
    assert_eq!(json["packages"][0]["needs"]["releases"][0], "2.5.0");
    assert_eq!(
        json["packages"][0]["bounds"][0]["uses"][0]["reach"],
        "call-time"
    );
    assert_eq!(
        json["packages"][0]["admitted_broken"][0]["release"],
        "2.3.0"
    );
    assert_eq!(json["recommended"][0], "torch>=2.5");
    assert_eq!(json["packages"][0]["recommended"], "torch>=2.5");

    // `check` raises AC008 on the declaration too.
    let checked = check(
        catalog,
        &Options {
            paths: vec![dir.clone()],
            project: Some(dir.clone()),
            ..Options::default()
        },
    )
    .unwrap();
    let ac008: Vec<_> = checked
        .findings
        .iter()
        .filter(|f| f.code == "AC008")
        .collect();
    assert_eq!(ac008.len(), 1);
    assert_eq!(ac008[0].line, 1);
    assert_eq!(ac008[0].fixes[0].requirement.as_deref(), Some("torch>=2.5"));
}

const ZERO: &str = "\
from colossalai.booster import Booster
from colossalai.booster.plugin import LowLevelZeroPlugin


def master_params(optimizer, model):
    return {id(p): optimizer._param_store.working_to_master_param[id(p)] for p in model.parameters()}


def train(model, optimizer):
    booster = Booster(plugin=LowLevelZeroPlugin(stage=2))
    model, optimizer, *_ = booster.boost(model, optimizer)
    return master_params(optimizer, model)
";

/// (2) `optimizer._param_store.working_to_master_param` on a ColossalAI ZeRO optimizer passed
/// in as a parameter, `colossalai>=0.4.0` declared.
#[test]
fn fixture_2_private_attribute_and_the_joint_answer() {
    let catalog = real_catalog();
    assert!(
        catalog.package("colossalai").ok().flatten().is_some(),
        "the colossalai index is part of the repository"
    );
    let last = newest(catalog, "colossalai");
    let dir = project(
        "two",
        &[
            ("train.py", ZERO),
            ("requirements.txt", "colossalai>=0.4.0\n"),
        ],
    );
    let report = run(catalog, &dir);
    let colossalai = &report.packages[0];
    assert_eq!(colossalai.package, "colossalai");
    // `_param_store` is a member of LowLevelZeroOptimizer in 0.3.0 - 0.4.0 only (the issue
    // said 0.3.1; the index of every release says 0.3.0 has it too, and the data wins).
    assert_eq!(colossalai.needs.ranges, ["0.3.0 - 0.4.0"]);
    let upper = colossalai
        .bounds
        .iter()
        .find(|b| b.scope == "all" && b.kind == "upper")
        .expect("upper bound");
    assert_eq!(upper.version, "0.4.1");
    assert_eq!(upper.uses[0].symbol, "optimizer._param_store");
    assert_eq!(upper.uses[0].code, "AC009");
    assert_eq!(upper.uses[0].reach, "call-time");
    // The pin admits 0.4.1+, where the attribute is gone.
    let broken: Vec<&str> = colossalai
        .admitted_broken
        .iter()
        .map(|b| b.release.as_str())
        .collect();
    assert_eq!(broken.first(), Some(&"0.4.1"));
    assert_eq!(broken.last(), Some(&last.as_str()));
    assert!(colossalai
        .admitted_broken
        .iter()
        .all(|b| b.reach == "call-time"));
    assert_eq!(colossalai.excluded_working.ranges, ["0.3.0 - 0.3.9"]);
    assert_eq!(report.recommended, ["colossalai>=0.3,<0.4.1"]);

    // `check` reports the read (AC009) for 0.4.1+ and the declaration (AC008).
    let checked = check(
        catalog,
        &Options {
            paths: vec![dir.clone()],
            project: Some(dir.clone()),
            ..Options::default()
        },
    )
    .unwrap();
    let codes: Vec<(&str, u32)> = checked.findings.iter().map(|f| (f.code, f.line)).collect();
    assert_eq!(codes, [("AC008", 1), ("AC009", 6)]);
    let ac009 = &checked.findings[1];
    assert_eq!(ac009.missing_ranges, [format!("0.4.1 - {last}")]);
    assert!(
        ac009.message.contains("LowLevelZeroOptimizer"),
        "{}",
        ac009.message
    );
    let pinned = check(
        catalog,
        &Options {
            paths: vec![dir.clone()],
            project: Some(dir.clone()),
            targets: vec!["colossalai==0.4.0".into()],
            ..Options::default()
        },
    )
    .unwrap();
    assert!(pinned.findings.is_empty(), "{:?}", pinned.findings);

    // The metadata facts the joint answer rests on, from the releases' Requires-Dist.
    let view = catalog.package("colossalai").unwrap().unwrap();
    let torch_req = |v: &str| -> String {
        let i = view.versions().iter().position(|x| x == v).unwrap();
        let h = view.header(i).unwrap();
        h.requires_dist
            .iter()
            .find(|r| {
                parse_requirement(r)
                    .map(|p| p.name == "torch")
                    .unwrap_or(false)
            })
            .cloned()
            .unwrap()
    };
    assert_eq!(torch_req("0.4.0"), "torch<2.3.0,>=2.1.0");
    assert_eq!(torch_req("0.4.1"), "torch<=2.3.0,>=2.1.0");
    assert_eq!(torch_req("0.5.0"), "torch<=2.5.1,>=2.2.0");
    assert_eq!(torch_req("0.3.8"), "torch>=2.1.0");

    // With a top-level `torch.distributed.pipelining` import (torch 2.4.0+).
    let piped = format!("import torch.distributed.pipelining\n{ZERO}");
    let dir = project(
        "two-pipelining",
        &[
            ("train.py", &piped),
            ("requirements.txt", "colossalai>=0.4.0\n"),
        ],
    );
    let report = run(catalog, &dir);
    let torch = report
        .packages
        .iter()
        .find(|p| p.package == "torch")
        .unwrap();
    assert_eq!(
        torch.needs.releases.first().map(String::as_str),
        Some("2.4.0")
    );
    // Within the declared requirement there is no combination: colossalai 0.4.0 (the only
    // release `colossalai>=0.4.0` admits that has `_param_store`) requires torch<2.3.0.
    let declared = report.joint_declared.as_ref().expect("declared scope");
    assert!(!declared.possible);
    assert_eq!(declared.conflicts.len(), 1, "{:?}", declared.conflicts);
    let why = &declared.conflicts[0];
    assert!(
        why.contains("colossalai 0.4.0 requires `torch<2.3.0,>=2.1.0`"),
        "{why}"
    );
    assert!(why.contains("torch.distributed.pipelining"), "{why}");
    assert!(why.contains("optimizer._param_store"), "{why}");
    // Over every indexed release a combination does exist, and the data says so: colossalai
    // 0.3.0 - 0.3.8 declare `torch>=1.11` / `>=1.12` / `>=2.1.0` with no upper bound.
    assert!(report.joint.possible);
    let c = report
        .joint
        .packages
        .iter()
        .find(|p| p.package == "colossalai")
        .unwrap();
    assert_eq!(c.ranges, ["0.3.0 - 0.3.8"]);
    assert!(
        c.excluded[0].reason.contains("torch<2.3.0,>=2.1.0"),
        "{:?}",
        c.excluded
    );
    assert_eq!(report.recommended, ["colossalai>=0.3,<0.3.9", "torch>=2.4"]);
    let text = render::range_text(&report, false, false);
    assert!(text.contains("Within the declared requirements"), "{text}");
    assert!(
        text.contains("no combination of indexed releases works"),
        "{text}"
    );
}

/// (3) `apicompat diff torch 2.4.1 2.5.0`.
#[test]
fn fixture_3_diff_of_two_torch_releases() {
    let catalog = real_catalog();
    let report = diff(
        catalog,
        &DiffOptions {
            package: "torch".into(),
            from: "2.4.1".into(),
            to: "2.5.0".into(),
            ..DiffOptions::default()
        },
    )
    .unwrap();
    let d = &report.diff;
    let added = |p: &str| d.added.iter().find(|a| a.path == p);
    let policy = added("torch.utils.checkpoint.CheckpointPolicy").expect("CheckpointPolicy added");
    assert_eq!(policy.kind, "class");
    let partial = added("torch.distributed.tensor.Partial").expect("tensor.Partial added");
    assert!(
        partial
            .same_object_as
            .iter()
            .any(|p| p == "torch.distributed._tensor.Partial"),
        "{:?}",
        partial.same_object_as
    );
    // The most public other name comes first.
    assert_eq!(
        partial.same_object_as[0],
        "torch.distributed._tensor.Partial"
    );
    assert!(d
        .removed
        .iter()
        .any(|r| r.path == "torch.utils.checkpoint._pt2_selective_checkpoint_context_fn_gen"));
    // `torch.distributed._tensor.Partial` still works in 2.5.0 (it is not removed), but its
    // definition moved.
    assert!(!d
        .removed
        .iter()
        .any(|r| r.path == "torch.distributed._tensor.Partial"));
    // One entry for the moved object (named by its old definition site), which lists the
    // re-export `torch.distributed._tensor.Partial` with it.
    assert!(d.moved.iter().any(
        |m| m.path == "torch.distributed._tensor.placement_types.Partial"
            && m.to == "torch.distributed.tensor.placement_types.Partial"
            && m.also
                .iter()
                .any(|p| p == "torch.distributed._tensor.Partial")
    ));
    let text = render::diff_text(&report, false, true);
    assert!(
        text.contains("class `torch.utils.checkpoint.CheckpointPolicy`"),
        "{}",
        &text[..2000.min(text.len())]
    );
    let md = render::diff_text(&report, true, false);
    assert!(md.starts_with("# torch 2.4.1 → 2.5.0"));
    let json: serde_json::Value = serde_json::from_str(&render::diff_json(&report)).unwrap();
    assert_eq!(json["from"], "2.4.1");

    // With the project of fixture 1: downgrading to 2.3.1 breaks its three imports, with fixes.
    let dir = project(
        "three",
        &[
            ("src/train.py", TRAIN),
            ("requirements.txt", "torch>=2.3.0\n"),
        ],
    );
    let down = diff(
        catalog,
        &DiffOptions {
            package: "torch".into(),
            from: "2.5.0".into(),
            to: "2.3.1".into(),
            used_by: Some(dir.clone()),
            ..DiffOptions::default()
        },
    )
    .unwrap();
    let u = down.used_by.as_ref().unwrap();
    let lines: Vec<(u32, &str)> = u
        .breaks
        .iter()
        .map(|a| (a.line, a.symbol.as_str()))
        .collect();
    assert_eq!(
        lines,
        [
            (1, "torch.distributed._tensor.Partial"),
            (2, "torch.distributed.pipelining.pipeline"),
            (6, "torch.utils.checkpoint.CheckpointPolicy")
        ]
    );
    assert!(u
        .breaks
        .iter()
        .all(|a| a.fixes.iter().any(|f| f.requirement.is_some())));
    let up = diff(
        catalog,
        &DiffOptions {
            package: "torch".into(),
            from: "2.4.1".into(),
            to: "2.5.0".into(),
            used_by: Some(dir),
            ..DiffOptions::default()
        },
    )
    .unwrap();
    let u = up.used_by.as_ref().unwrap();
    assert!(u.breaks.is_empty());
    assert_eq!(u.fixed.len(), 1);
    assert_eq!(u.fixed[0].symbol, "torch.utils.checkpoint.CheckpointPolicy");
    assert!(up
        .diff
        .added
        .iter()
        .any(|a| a.path == "torch.utils.checkpoint.CheckpointPolicy"));
    assert!(up.diff.added.len() < 5, "{:?}", up.diff.added);

    // Releases that are not indexed are a clear error, not a panic.
    let err = diff(
        catalog,
        &DiffOptions {
            package: "torch".into(),
            from: "2.4.1".into(),
            to: "9.9.9".into(),
            ..DiffOptions::default()
        },
    )
    .unwrap_err();
    assert!(err.0.contains("not in the index"), "{}", err.0);
    assert!(diff(
        catalog,
        &DiffOptions {
            package: "nosuchpkg".into(),
            from: "1".into(),
            to: "2".into(),
            ..DiffOptions::default()
        },
    )
    .is_err());
}
