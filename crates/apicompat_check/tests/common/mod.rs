//! A fake `torch` with the layout of the real one across releases, indexed in memory, and
//! helpers to write fixture projects.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use apicompat_archive::{SourceFile, SourceTree};
use apicompat_check::{check, Options, Report};
use apicompat_index::{Catalog, IndexBuilder};

pub const RELEASES: &[&str] = &[
    "1.13.0", "1.13.1", "2.0.0", "2.0.1", "2.1.0", "2.2.0", "2.3.0", "2.3.1", "2.4.0", "2.4.1",
    "2.5.0",
];

fn at_least(version: &str, min: &str) -> bool {
    let parse = |v: &str| -> Vec<u32> { v.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    parse(version) >= parse(min)
}

/// The Python sources of one release of the fake torch.
pub fn fake_torch(version: &str) -> Vec<(String, String)> {
    let ge = |min: &str| at_least(version, min);
    let mut files: Vec<(String, String)> = Vec::new();
    let mut add = |path: &str, src: String| files.push((path.to_string(), src));
    add(
        "torch/__init__.py",
        format!(
            "from torch.version import __version__ as __version__\nfrom torch import distributed, utils, nn\n\ndef load(f, map_location=None, pickle_module=None{}):\n    pass\n\ndef compile_fn(model, **kwargs):\n    pass\n",
            if ge("1.13.0") && ge("2.0.0") { ", *, weights_only=False" } else { "" }
        ),
    );
    add("torch/version.py", format!("__version__ = '{version}'\n"));
    add("torch/utils/__init__.py", String::new());
    let mut checkpoint = String::from(
        "import enum\n\ndef checkpoint(function, *args, use_reentrant=None, **kwargs):\n    pass\n",
    );
    if ge("2.5.0") {
        checkpoint.push_str(
            "\nclass CheckpointPolicy(enum.Enum):\n    MUST_SAVE = 0\n    PREFER_SAVE = 1\n",
        );
    }
    add("torch/utils/checkpoint.py", checkpoint);
    add(
        "torch/nn/__init__.py",
        "from .modules import *\n".to_string(),
    );
    add(
        "torch/nn/modules/__init__.py",
        "from .linear import Linear\n\n__all__ = ['Linear']\n".to_string(),
    );
    add(
        "torch/nn/modules/linear.py",
        format!(
            "class Module:\n    def forward(self, *args):\n        pass\n\nclass Linear(Module):\n    def __init__(self, in_features, out_features, bias=True{}):\n        pass\n",
            if ge("2.0.0") { ", device=None, dtype=None" } else { "" }
        ),
    );
    let mut dist = String::from("def is_available():\n    return True\n");
    if ge("2.2.0") {
        dist.push_str(
            "\ndef all_gather_into_tensor(output, input, group=None, async_op=False):\n    pass\n",
        );
    }
    add("torch/distributed/__init__.py", dist);
    if ge("2.0.0") {
        let mut fc = String::from("def all_reduce(self, reduceOp, group, tag=''):\n    pass\n");
        if ge("2.1.0") {
            fc.push_str("\ndef all_gather_tensor(self, gather_dim, group, tag=''):\n    pass\n");
        }
        add("torch/distributed/_functional_collectives.py", fc);
    }
    // DTensor: `torch.distributed._tensor` until 2.4, `torch.distributed.tensor` from 2.5
    // (with `_tensor` re-exporting it).
    let placements = |partial: &str| {
        format!(
            "class Placement:\n    pass\n\nclass Shard(Placement):\n    def __init__(self, dim):\n        self.dim = dim\n\nclass Replicate(Placement):\n    pass\n\nclass {partial}(Placement):\n    pass\n"
        )
    };
    let dtensor = "class DTensor:\n    @staticmethod\n    def from_local(local_tensor, device_mesh=None, placements=None, *, run_check=False):\n        pass\n";
    if ge("2.5.0") {
        add("torch/distributed/tensor/__init__.py", "from torch.distributed.tensor.placement_types import Partial, Replicate, Shard\nfrom torch.distributed.tensor._api import DTensor\n".to_string());
        add(
            "torch/distributed/tensor/placement_types.py",
            placements("Partial"),
        );
        add("torch/distributed/tensor/_api.py", dtensor.to_string());
        add(
            "torch/distributed/_tensor/__init__.py",
            "from torch.distributed.tensor import DTensor, Partial, Replicate, Shard\n".to_string(),
        );
    } else {
        let partial = if ge("2.4.0") { "Partial" } else { "_Partial" };
        add(
            "torch/distributed/_tensor/__init__.py",
            format!("from torch.distributed._tensor.placement_types import {partial}, Replicate, Shard\nfrom torch.distributed._tensor.api import DTensor\n"),
        );
        add(
            "torch/distributed/_tensor/placement_types.py",
            placements(partial),
        );
        add("torch/distributed/_tensor/api.py", dtensor.to_string());
    }
    if ge("2.4.0") {
        add(
            "torch/distributed/pipelining/__init__.py",
            "from ._IR import pipeline, SplitPoint\nfrom .stage import PipelineStage\nfrom .schedules import Schedule1F1B\n".to_string(),
        );
        add("torch/distributed/pipelining/_IR.py", "def pipeline(module, mb_args, mb_kwargs=None, split_spec=None):\n    pass\n\nclass SplitPoint:\n    BEGINNING = 1\n".to_string());
        add("torch/distributed/pipelining/stage.py", "class PipelineStage:\n    def __init__(self, submodule, stage_index, num_stages, device):\n        pass\n".to_string());
        add("torch/distributed/pipelining/schedules.py", "class Schedule1F1B:\n    def __init__(self, stages, n_microbatches, loss_fn=None):\n        pass\n".to_string());
    }
    files
}

/// A catalog holding the fake torch (built once per test binary).
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let embedded: &'static [(&'static str, &'static [u8])] =
            Box::leak(vec![("torch", torch_index_bytes())].into_boxed_slice());
        Catalog::open(embedded, None)
    })
}

/// The index of the fake torch (built once per test binary).
#[allow(dead_code)]
pub fn torch_index_bytes() -> &'static [u8] {
    static BYTES: OnceLock<&'static [u8]> = OnceLock::new();
    BYTES.get_or_init(|| {
        let mut builder = IndexBuilder::new("torch");
        for v in RELEASES {
            let tree = SourceTree {
                files: {
                    let mut f: Vec<SourceFile> = fake_torch(v)
                        .into_iter()
                        .map(|(path, src)| SourceFile {
                            path,
                            data: src.into_bytes(),
                        })
                        .collect();
                    f.sort_by(|a, b| a.path.cmp(&b.path));
                    f
                },
                top_level: vec!["torch".into()],
                ..SourceTree::default()
            };
            let surface = apicompat_extract::extract(&tree, "torch", v);
            builder.add(&surface).expect("add release");
        }
        Box::leak(builder.finish().expect("index").into_boxed_slice())
    })
}

/// Writes a fixture project into a fresh directory.
pub fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("check-fixtures")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
    }
    dir
}

pub fn run(dir: &Path, targets: &[&str]) -> Report {
    run_with(dir, targets, |_| {})
}

pub fn run_with(dir: &Path, targets: &[&str], tweak: impl FnOnce(&mut Options)) -> Report {
    run_on(catalog(), dir, targets, tweak)
}

/// `check` of the project at `dir` on `catalog`, with `tweak` applied to the options.
pub fn run_on(
    catalog: &Catalog,
    dir: &Path,
    targets: &[&str],
    tweak: impl FnOnce(&mut Options),
) -> Report {
    let mut options = Options {
        paths: vec![dir.to_path_buf()],
        project: Some(dir.to_path_buf()),
        targets: targets.iter().map(|t| t.to_string()).collect(),
        // The private/deprecated API warnings have their own tests (`stability.rs`); the
        // fixtures here use private paths on purpose.
        ignore: vec!["AC011".to_string(), "AC012".to_string()],
        ..Options::default()
    };
    tweak(&mut options);
    check(catalog, &options).expect("check runs")
}

/// One line per finding: `path:line:col code severity reach symbol missing=[...]`.
pub fn brief(report: &Report, root: &Path) -> Vec<String> {
    report
        .findings
        .iter()
        .map(|f| {
            let path = f.path.strip_prefix(root).unwrap_or(&f.path);
            format!(
                "{}:{}:{} {} {} {} {} missing={}",
                path.display(),
                f.line,
                f.column,
                f.code,
                f.severity.as_str(),
                f.reach.as_str(),
                f.symbol,
                f.missing_ranges.join(",")
            )
        })
        .collect()
}

/// The real torch, torchvision, colossalai and numpy indexes embedded in the CLI (`crates/apicompat/index`). They
/// are committed with the repository, so a missing one fails the test that needs it.
pub fn real_catalog(needs: &[&str]) -> &'static Catalog {
    static CATALOG: OnceLock<(Catalog, Vec<&'static str>)> = OnceLock::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../apicompat/index");
    let (catalog, present) = CATALOG.get_or_init(|| {
        let mut embedded: Vec<(&'static str, &'static [u8])> = Vec::new();
        for name in ["torch", "torchvision", "colossalai", "numpy"] {
            if let Ok(bytes) = std::fs::read(format!("{dir}/{name}.apix")) {
                embedded.push((name, Box::leak(bytes.into_boxed_slice())));
            }
        }
        let present = embedded.iter().map(|(n, _)| *n).collect();
        (
            Catalog::open(Box::leak(embedded.into_boxed_slice()), None),
            present,
        )
    });
    for n in needs {
        assert!(
            present.contains(n),
            "no {n} index at {dir}: it is part of the repository"
        );
    }
    catalog
}
