//! AC010 (copies and pickles of objects holding a process group) against the real torch and
//! colossalai indexes embedded in the CLI. Skipped, with a message, where they are absent.

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
        o.select = vec!["AC010".to_string()]
    })
}

/// `file:line message` of each finding.
fn findings(report: &Report, root: &std::path::Path) -> Vec<String> {
    report
        .findings
        .iter()
        .map(|f| {
            let path = f.path.strip_prefix(root).unwrap_or(&f.path);
            format!("{}:{} {} {}", path.display(), f.line, f.code, f.message)
        })
        .collect()
}

const MODEL: &str = "\
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, hidden, process_group=None):
        super().__init__()
        self.linear = nn.Linear(hidden, hidden)
        self.process_group = process_group
";

const TRAIN: &str = "\
from copy import deepcopy

from colossalai.booster.plugin import HybridParallelPlugin

from mymodel.model import Model


def main():
    plugin = HybridParallelPlugin(tp_size=2, pp_size=1)
    model_kwargs = {\"process_group\": plugin.tp_group}
    model = Model(1024, **model_kwargs)
    ema = deepcopy(model)
    return ema
";

const TRAIN_FIXED: &str = "\
from copy import deepcopy

import torch
from colossalai.booster.plugin import HybridParallelPlugin

from mymodel.model import Model


def main():
    plugin = HybridParallelPlugin(tp_size=2, pp_size=1)
    model_kwargs = {\"process_group\": plugin.tp_group}
    model = Model(1024, **model_kwargs)
    ema = Model(1024, **model_kwargs)
    ema.load_state_dict(model.state_dict())
    torch.save(model.state_dict(), \"model.pt\")
    plain = deepcopy(Model(1024))
    return ema, plain
";

#[test]
fn fixture_a_deepcopy_of_a_model_holding_a_group_from_a_plugin() {
    let files = [
        ("mymodel/__init__.py", ""),
        ("mymodel/model.py", MODEL),
        ("train.py", TRAIN),
        ("requirements.txt", "torch>=2.1\ncolossalai>=0.4.0\n"),
    ];
    let dir = project("pg-fixture-a", &files);
    let report = run(&dir, &[]);
    let got = findings(&report, &dir);
    assert_eq!(got.len(), 1, "{got:#?}");
    let f = &report.findings[0];
    assert_eq!((f.line, f.column), (12, 11), "{got:#?}");
    assert!(
        got[0].contains("`model.process_group` (mymodel/model.py:8)"),
        "{got:#?}"
    );
    assert!(
        got[0].contains("`plugin.tp_group` (train.py:10)"),
        "{got:#?}"
    );
    assert_eq!(f.symbol, "copy.deepcopy(model)");
    assert!(f
        .fixes
        .iter()
        .any(|x| x.message.contains("load_state_dict")));
    assert!(!f.fixes.iter().any(|x| x.requirement.is_some()));

    let fixed = project(
        "pg-fixture-a-fixed",
        &[
            ("mymodel/__init__.py", ""),
            ("mymodel/model.py", MODEL),
            ("train.py", TRAIN_FIXED),
            ("requirements.txt", "torch>=2.1\ncolossalai>=0.4.0\n"),
        ],
    );
    let report = run(&fixed, &[]);
    assert_eq!(findings(&report, &fixed), Vec::<String>::new());
}

const PLUGIN: &str = "\
from colossalai.cluster import ProcessGroupMesh

SP_AXIS = 2


class MyPlugin:
    def __init__(self, dp_size, sp_size):
        self.pg_mesh = ProcessGroupMesh(dp_size, 1, sp_size)
        self.sp_group = self.pg_mesh.get_group_along_axis(SP_AXIS)
";

const MODELS: &str = "\
import torch.nn as nn


class DiT(nn.Module):
    def __init__(self, depth, seq_parallel_group=None):
        super().__init__()
        self.seq_parallel_group = seq_parallel_group


MODELS = {\"dit\": DiT}
";

fn models_script(group: &str) -> String {
    format!(
        "\
from copy import deepcopy

from pkg.models import MODELS
from pkg.plugin import MyPlugin


def main(args):
    plugin = MyPlugin(2, 2)
    model_kwargs = {{\"seq_parallel_group\": {group}}}
    model = MODELS[args.model](depth=4, **model_kwargs)
    ema = deepcopy(model)
    return ema
"
    )
}

/// The acceptance: a group from a project plugin's `ProcessGroupMesh`, handed to a
/// model built from a registry dict of another file through `**model_kwargs`.
#[test]
fn group_of_a_plugin_through_a_registry_of_models() {
    let run_with = |name: &str, group: &str| {
        let script = models_script(group);
        let dir = project(
            name,
            &[
                ("pkg/__init__.py", ""),
                ("pkg/plugin.py", PLUGIN),
                ("pkg/models.py", MODELS),
                ("train.py", &script),
                ("requirements.txt", "torch>=2.1\ncolossalai>=0.4.0\n"),
            ],
        );
        findings(&run(&dir, &[]), &dir)
    };
    let got = run_with("pg-registry", "plugin.sp_group");
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].starts_with("train.py:11 AC010"), "{got:#?}");
    assert!(
        got[0].contains("`model.seq_parallel_group` (pkg/models.py:7)")
            && got[0].contains("`self.pg_mesh.get_group_along_axis()` (pkg/plugin.py:9)")
            && got[0].contains("through `**model_kwargs` (train.py:10)"),
        "{got:#?}"
    );
    assert_eq!(run_with("pg-registry-none", "None"), Vec::<String>::new());
}

fn one_file(name: &str, source: &str) -> Vec<String> {
    let dir = project(name, &[("m.py", source)]);
    findings(&run(&dir, &["torch==2.4.0"]), &dir)
}

#[test]
fn groups_from_index_factories() {
    let got = one_file(
        "pg-factories",
        "\
import copy
import pickle
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh


class Block(torch.nn.Module):
    def __init__(self, group):
        super().__init__()
        self.group = group


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(dist.new_group([0, 1]))


class Sharded(torch.nn.Module):
    def __init__(self, mesh):
        super().__init__()
        self.tp = mesh.get_group_along_axis(0)


def g():
    from colossalai.cluster import ProcessGroupMesh
    copy.deepcopy(Sharded(ProcessGroupMesh(2, 2)))


def f(mesh_shape):
    pg = dist.new_group([0, 1])
    copy.copy(pg)
    world = dist.group.WORLD
    pickle.dumps(world)
    mesh = init_device_mesh(\"cuda\", mesh_shape)
    torch.save(mesh.get_group(), \"g.pt\")
    sub, _ = dist.new_subgroups()
    copy.deepcopy(sub)
    net = Net()
    copy.deepcopy(net)
    dist.broadcast_object_list([net], src=0)
    copy.copy(net)
    copy.deepcopy(net.state_dict())
    torch.save(net.state_dict(), \"net.pt\")


def wrapped(model):
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.nn.parallel import DistributedDataParallel as DDP
    pg = dist.new_group([0, 1])
    sharded = FSDP(model, process_group=pg)
    copy.deepcopy(sharded)
    copy.deepcopy(FSDP(model))
    copy.deepcopy(DDP(model, process_group=pg))
",
    );
    let lines: Vec<&str> = got
        .iter()
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(
        lines,
        ["m.py:28", "m.py:33", "m.py:35", "m.py:37", "m.py:39", "m.py:41", "m.py:42", "m.py:53"],
        "{got:#?}"
    );
    assert!(got[0].contains("get_group_along_axis"), "{}", got[0]);
    assert!(got[5].contains("`net.block.group` (m.py:11)"), "{}", got[5]);
    assert!(got[5].contains("new_group"), "{}", got[5]);
    assert!(
        got[7].contains("`sharded` (a `FullyShardedDataParallel` built at m.py:52) holds one"),
        "{}",
        got[7]
    );
}

#[test]
fn quiet_without_evidence() {
    let got = one_file(
        "pg-quiet",
        "\
import copy
import torch
import torch.distributed as dist


class Holder:
    def __init__(self, group=None):
        self.group = group
        self.param_group = {}


class Shares(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pg = dist.new_group([0])

    def __deepcopy__(self, memo):
        return self


def g(opt, model, process_group):
    copy.deepcopy(opt.param_groups)
    copy.deepcopy(model)
    copy.deepcopy(Holder())
    copy.deepcopy(Holder(group=None))
    copy.deepcopy(process_group)
    copy.deepcopy(Shares())
",
    );
    assert_eq!(got, Vec::<String>::new());
}

#[test]
fn annotated_parameters_and_self() {
    let got = one_file(
        "pg-annotated",
        "\
import copy
from typing import Optional
from torch.distributed import ProcessGroup


class Layer:
    def __init__(self, group: ProcessGroup):
        self.group = group

    def clone(self):
        return copy.deepcopy(self)


def h(layer: Layer, pg: Optional[ProcessGroup] = None):
    copy.deepcopy(layer)
    copy.deepcopy(pg)
",
    );
    let lines: Vec<&str> = got
        .iter()
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(lines, ["m.py:11", "m.py:15"], "{got:#?}");
}

#[test]
fn factories_come_from_return_annotations_in_the_index() {
    let catalog = real_catalog();
    let views: Vec<_> = ["torch", "colossalai"]
        .iter()
        .filter_map(|n| catalog.package(n).ok().flatten())
        .collect();
    let wanted: apicompat_hash::HashSet<String> = [
        "new_group",
        "get_group",
        "get_group_along_axis",
        "WORLD",
        "new_subgroups",
        "get",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let pg = apicompat_check::pgcopy::PgIndex::build(&views, &wanted);
    // Subclasses of the seed type, found from the indexed bases.
    assert!(pg.types.contains("ProcessGroup"));
    assert!(pg.types.contains("ProcessGroupGloo"), "{:?}", pg.types);
    use apicompat_surface::Kind;
    let has = |name: &str, kind, path: &str| {
        assert!(
            pg.factories_named(&views, name, &[kind]).is_some(),
            "{name} is not a factory"
        );
        let defs = pg.read(name).expect("read by build");
        assert!(
            defs.factories.iter().any(|f| f.path == path),
            "{name}: {:?}",
            defs.factories
        );
    };
    has(
        "new_group",
        Kind::Function,
        "torch.distributed.distributed_c10d.new_group",
    );
    has(
        "get_group",
        Kind::Function,
        "torch.distributed.device_mesh.DeviceMesh.get_group",
    );
    has(
        "get_group_along_axis",
        Kind::Function,
        "colossalai.cluster.process_group_mesh.ProcessGroupMesh.get_group_along_axis",
    );
    has(
        "WORLD",
        Kind::Property,
        "torch.distributed.distributed_c10d._WorldMeta.WORLD",
    );
    has(
        "new_subgroups",
        Kind::Function,
        "torch.distributed.distributed_c10d.new_subgroups",
    );
    // A name that many functions define returning other things is no factory.
    assert!(pg
        .factories_named(&views, "get", &[Kind::Function])
        .is_none());
}

#[test]
fn cycles_and_self_references_terminate() {
    let mut src = String::from(
        "\
import copy
import torch.distributed as dist


class A:
    def __init__(self, other=None, pg=None):
        self.other = B(self, pg)
        self.me = self
        self.x = self.x
        self.pg = self.other.pg

class B(A):
    def __init__(self, a, pg):
        super().__init__(self, pg)
        self.a = A(self)
        self.pg = pg

",
    );
    // A long chain of assignments and calls.
    src.push_str("def f():\n    v0 = dist.new_group()\n");
    for i in 1..300 {
        src.push_str(&format!("    v{i} = A(v{}, v{})\n", i - 1, i - 1));
    }
    src.push_str("    copy.deepcopy(v299)\n    copy.deepcopy(A(pg=v0))\n");
    let dir = project("pg-cycles", &[("m.py", &src)]);
    let report = run(&dir, &["torch==2.4.0"]);
    // Whatever it finds, it finishes; the last copy is a sure one.
    assert!(
        report.findings.iter().any(|f| f.line == 320),
        "{:#?}",
        findings(&report, &dir)
    );
}
