//! A package `__init__` that imports a name from its own submodule of that name
//! (`from .driver import driver`) rebinds the package's attribute: attribute chains through
//! `pkg.sub` see the object, imports of `pkg.sub` and of names from it the module.

mod common;

use std::sync::OnceLock;

use apicompat_archive::{SourceFile, SourceTree};
use apicompat_check::Report;
use apicompat_index::{Catalog, IndexBuilder};
use common::project;

/// A fake `tri` in the layout of triton 3.x (`triton/runtime/__init__.py:3`) and torch's
/// `torch.distributed._composable.fsdp` (2.3 - 2.5: `fully_shard` defined in the submodule;
/// 2.6+: re-exported from the public `torch.distributed.fsdp`).
fn fake_tri(version: &str) -> Vec<(&'static str, String)> {
    let new = version != "1.0";
    let mut files = vec![
        ("tri/__init__.py", "from . import runtime\n".to_string()),
        (
            "tri/runtime/__init__.py",
            "from .autotuner import autotune\nfrom .driver import driver\n".to_string(),
        ),
        ("tri/runtime/autotuner.py", "def autotune(configs): ...\n".to_string()),
        (
            "tri/runtime/driver.py",
            if new {
                "class DriverConfig:\n    def __init__(self):\n        self._active = None\n    @property\n    def active(self):\n        return self._active\n    def set_active(self, driver):\n        self._active = driver\n\ndriver = DriverConfig()\n"
            } else {
                // An instance attribute (triton 3.0's `self.active = self.default`).
                "class DriverConfig:\n    def __init__(self):\n        self.active = None\n    def set_active(self, driver):\n        self.active = driver\n\ndriver = DriverConfig()\n"
            }
            .to_string(),
        ),
        ("tri/dist/__init__.py", String::new()),
        ("tri/dist/_composable/__init__.py", String::new()),
        (
            "tri/dist/_composable/fsdp/__init__.py",
            "from .fully_shard import FSDPModule, fully_shard\n".to_string(),
        ),
    ];
    let definition = "class FSDPModule: ...\n\ndef fully_shard(module, *, mesh=None, reshard_after_forward=True): ...\n";
    if new {
        files.push((
            "tri/dist/_composable/fsdp/fully_shard.py",
            "from tri.dist.fsdp import FSDPModule, fully_shard\n".to_string(),
        ));
        files.push((
            "tri/dist/fsdp/__init__.py",
            "from ._fully_shard import FSDPModule, fully_shard\n".to_string(),
        ));
        files.push(("tri/dist/fsdp/_fully_shard.py", definition.to_string()));
    } else {
        files.push((
            "tri/dist/_composable/fsdp/fully_shard.py",
            definition.to_string(),
        ));
    }
    files
}

fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let mut builder = IndexBuilder::new("tri");
        for v in ["1.0", "2.0"] {
            let mut files: Vec<SourceFile> = fake_tri(v)
                .into_iter()
                .map(|(path, src)| SourceFile {
                    path: path.to_string(),
                    data: src.into_bytes(),
                })
                .collect();
            files.sort_by(|a, b| a.path.cmp(&b.path));
            let tree = SourceTree {
                files,
                top_level: vec!["tri".into()],
                ..SourceTree::default()
            };
            let surface = apicompat_extract::extract(&tree, "tri", v);
            builder.add(&surface).expect("add release");
        }
        let bytes: &'static [u8] = Box::leak(builder.finish().expect("index").into_boxed_slice());
        let embedded: &'static [(&'static str, &'static [u8])] =
            Box::leak(vec![("tri", bytes)].into_boxed_slice());
        Catalog::open(embedded, None)
    })
}

fn run(dir: &std::path::Path, select: &[&str]) -> Report {
    common::run_on(catalog(), dir, &["tri>=1.0"], |o| {
        o.select = select.iter().map(|s| s.to_string()).collect();
        o.ignore.clear();
    })
}

const PROJECT: &str = "\
import tri
import tri.runtime.driver
from tri.runtime.driver import DriverConfig
from tri.runtime import driver
from tri.dist._composable.fsdp import fully_shard
from tri.dist._composable.fsdp.fully_shard import FSDPModule


def arch():
    return tri.runtime.driver.active.get_current_target().arch


def use(d, m):
    driver.set_active(d)
    DriverConfig()
    FSDPModule()
    fully_shard(m, mesh=None)
    fully_shard(m, bogus=True)


def other():
    return tri.runtime.driver.nothing
";

#[test]
fn attribute_chains_see_the_object_and_imports_the_module() {
    let dir = project("shadowed-submodule", &[("m.py", PROJECT)]);
    let report = run(&dir, &["AC001", "AC002", "AC003", "AC013"]);
    let found: Vec<String> = report
        .findings
        .iter()
        .map(|f| {
            format!(
                "{}:{} {} {} missing={}",
                f.line,
                f.column,
                f.code,
                f.symbol,
                f.missing_ranges.join(",")
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            // Judged as the function the package binds (keyword-only `mesh`).
            "18:20 AC003 tri.dist._composable.fsdp.fully_shard(bogus=) missing=1.0 - 2.0",
            // Neither the object nor the module has it.
            "22:12 AC002 tri.runtime.driver.nothing missing=1.0 - 2.0",
        ]
    );
}

#[test]
fn the_private_path_names_the_public_object() {
    let dir = project(
        "shadowed-submodule-private",
        &[(
            "m.py",
            "from tri.dist._composable.fsdp import fully_shard\n\nfully_shard(None)\n",
        )],
    );
    let report = run(&dir, &["AC011"]);
    let messages: Vec<&str> = report.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("tri.dist.fsdp.fully_shard"),
        "{}",
        messages[0]
    );
}
