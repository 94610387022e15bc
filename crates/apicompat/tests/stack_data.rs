//! The packages of the data file shipped beside the binary (issue 13): deepspeed, datasets,
//! triton, xformers, lightning, pytorch-lightning, megatron-core. Each test takes a real break
//! from the package's history, checked on the real index: reported on the release that lacks
//! the API, clean on the one that has it. Offline (`--no-cache`).

mod common;

use common::{bin, check, text};

/// `source` checked against `good` (clean) and `bad` (an error containing `message`).
fn breaks_between(name: &str, source: &str, good: &str, bad: &str, message: &str) {
    let dir = common::project_in("stack-data", name, &[("train.py", source)]);
    let o = check(&dir, &["--target", good]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{good}: {out}\n{err}");
    let o = check(&dir, &["--target", bad]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{bad}: {out}\n{err}");
    assert!(out.contains(message), "{bad}: {out}");
}

/// triton 2.2.0 added the accumulator keyword of `tl.dot` (`acc=`; triton-lang/triton#2698):
/// 2.1.0's `triton/language/core.py` has `dot(input, other, allow_tf32=True, out_dtype=...)`.
#[test]
fn triton_dot_acc_keyword() {
    breaks_between(
        "triton",
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(a, b, c):\n    acc = tl.zeros((16, 16), dtype=tl.float32)\n    acc = tl.dot(tl.load(a), tl.load(b), acc=acc)\n    tl.store(c, acc)\n",
        "triton==2.2.0",
        "triton==2.1.0",
        "`triton.language.dot` does not accept the keyword `acc` in triton 2.1.0",
    );
}

/// deepspeed 0.14 stopped re-exporting `ZeROOptimizer` from the top level (0.13.5's
/// `deepspeed/__init__.py`: `from .runtime import DeepSpeedOptimizer, ZeROOptimizer`; the class
/// moved to `deepspeed/runtime/base_optimizer.py`).
#[test]
fn deepspeed_zero_optimizer_top_level() {
    breaks_between(
        "deepspeed",
        "from deepspeed import ZeROOptimizer\n",
        "deepspeed==0.13.5",
        "deepspeed==0.14.5",
        "`deepspeed.ZeROOptimizer` is not in deepspeed 0.14.5",
    );
}

/// datasets 3.0 removed `load_metric` (metrics moved to the `evaluate` library).
#[test]
fn datasets_load_metric_removed() {
    breaks_between(
        "datasets",
        "from datasets import load_metric\n",
        "datasets==2.21.0",
        "datasets==3.0.2",
        "`datasets.load_metric` is not in datasets 3.0.2",
    );
}

/// xformers 0.0.29 removed the `xformers.factory` model factory (with `xformers.components`'
/// attention zoo).
#[test]
fn xformers_factory_removed() {
    breaks_between(
        "xformers",
        "import xformers.factory\n",
        "xformers==0.0.28.post3",
        "xformers==0.0.29.post3",
        "`xformers.factory` is not in xformers 0.0.29.post3",
    );
}

/// lightning 2.4 no longer ships `lightning.app` (Lightning Apps were split out).
#[test]
fn lightning_app_removed() {
    breaks_between(
        "lightning",
        "from lightning.app import LightningApp\n",
        "lightning==2.3.3",
        "lightning==2.4.0",
        "`lightning.app` does not exist there",
    );
}

/// pytorch-lightning 2.0 removed `LightningLite` (replaced by Fabric, `lightning.fabric`).
#[test]
fn pytorch_lightning_lite_removed() {
    breaks_between(
        "pytorch-lightning",
        "from pytorch_lightning.lite import LightningLite\n",
        "pytorch-lightning==1.9.5",
        "pytorch-lightning==2.0.9.post0",
        "`pytorch_lightning.lite` does not exist there",
    );
}

/// megatron-core 0.17 removed `parallel_state.get_data_modulo_expert_parallel_group`
/// (replaced by `get_expert_data_parallel_group`, present from 0.10).
#[test]
fn megatron_core_expert_group_removed() {
    breaks_between(
        "megatron-core",
        "from megatron.core.parallel_state import get_data_modulo_expert_parallel_group\n",
        "megatron-core==0.16.1",
        "megatron-core==0.17.1",
        "`megatron.core.parallel_state.get_data_modulo_expert_parallel_group` is not in megatron-core 0.17.1",
    );
}

/// `apicompat --no-cache check ARGS` in `dir` with the data file at `data`.
fn check_with_data(
    data: &std::path::Path,
    dir: &std::path::Path,
    args: &[&str],
) -> (Option<i32>, String, String) {
    let o = bin()
        .env("APICOMPAT_DATA_FILE", data)
        .args(["--no-cache", "check"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run apicompat");
    let (out, err) = text(&o);
    (o.status.code(), out, err)
}

const DATA_PACKAGES: [&str; 7] = [
    "deepspeed",
    "datasets",
    "triton",
    "xformers",
    "lightning",
    "pytorch-lightning",
    "megatron-core",
];

/// `index list` shows each package of the data file as such, and `query` answers on each.
#[test]
fn index_list_and_query_cover_the_data_file() {
    let o = bin()
        .args(["--no-cache", "index", "list"])
        .output()
        .expect("run apicompat");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let catalog = apicompat::embedded_catalog();
    for package in DATA_PACKAGES {
        assert!(
            out.lines()
                .any(|l| l.starts_with(&format!("{package}: ")) && l.contains("data file")),
            "{package}: {out}"
        );
        let root = catalog.roots(package).expect("roots")[0].clone();
        let o = bin()
            .args(["--no-cache", "query", &root, "--package", package])
            .output()
            .expect("run apicompat");
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{package}: {out}{err}");
        assert!(out.contains("module in"), "{package}: {out}");
    }
}

/// Without the data file (or with a damaged one) a run never fails: a note says which package
/// was not checked and why; a project that imports none of its packages hears nothing of it.
#[test]
fn missing_or_damaged_data_file_is_a_note() {
    let dir = common::project_in(
        "stack-data",
        "no-data-file",
        &[("train.py", "from deepspeed import ZeROOptimizer\n")],
    );
    let torch_only = common::project_in("stack-data", "torch-only", &[("t.py", "import torch\n")]);
    let missing = dir.join("missing.apid");
    let (code, out, err) = check_with_data(&missing, &dir, &["--target", "deepspeed==0.14.5"]);
    // `--target` of a package the index lacks cannot run (exit 2), with the reason.
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(err.contains("the data file is missing"), "{err}");
    let (code, out, err) = check_with_data(&missing, &dir, &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("deepspeed is indexed in the data file") && all.contains("missing"),
        "{all}"
    );

    // A copy with one byte of deepspeed's index changed.
    let good = apicompat::data_file_candidates()
        .into_iter()
        .find(|p| p.is_file())
        .expect("the data file of this build");
    let mut bytes = std::fs::read(good).expect("read");
    let payload = 16 + u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")) as usize;
    let toc = std::str::from_utf8(&bytes[16..payload]).expect("utf-8 table");
    let offset: usize = toc
        .lines()
        .find(|l| l.starts_with("deepspeed\t"))
        .and_then(|l| l.split('\t').nth(3))
        .and_then(|n| n.parse().ok())
        .expect("deepspeed's offset in the table");
    bytes[payload + offset + 100] ^= 0xff;
    let damaged = dir.join("damaged.apid");
    std::fs::write(&damaged, &bytes).expect("write");
    let (_, out, err) = check_with_data(&damaged, &dir, &["--target", "deepspeed==0.14.5"]);
    assert!(
        format!("{out}{err}").contains("corrupt index"),
        "{out}{err}"
    );
    assert!(!out.contains("ZeROOptimizer"), "{out}");
    for data in [&missing, &damaged] {
        let (code, out, err) = check_with_data(data, &torch_only, &[]);
        assert_eq!(code, Some(0), "{out}{err}");
        assert!(!format!("{out}{err}").contains("data file"), "{out}{err}");
    }
}

/// An attribute that another class of the package stores on an annotated receiver is a member
/// of that class: pytorch-lightning 2.6.6's `Trainer.callbacks` exists only as
/// `self.trainer.callbacks = callbacks or []` in `_CallbackConnector`, whose `__init__` keeps
/// `trainer: "pl.Trainer"` (`trainer/connectors/callback_connector.py`; study 16, F2). A name
/// no code of the release stores stays missing.
#[test]
fn attributes_stored_from_outside_the_class() {
    let source = "\
import pytorch_lightning as pl


def train(model):
    trainer = pl.Trainer(max_epochs=1)
    trainer.callbacks.append(object())
    trainer.fast_dev_run
    return trainer.callbackz
";
    let dir = common::project_in("stack-data", "outside-stores", &[("train.py", source)]);
    let o = check(&dir, &["--target", "pytorch-lightning==2.6.6"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    let at = common::locations(&out);
    assert_eq!(at, ["train.py:8:12"], "{out}");
    assert!(out.contains("callbackz"), "{out}");
}
