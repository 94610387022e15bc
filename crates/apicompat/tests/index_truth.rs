//! Where the embedded index knows the truth instead of saying "unknown": class `__getattr__`
//! that answers only instance data (`torch.nn.Module`), standard-library bases (`type`,
//! `Enum`) and metaclasses kept apart from the bases (torch 1.13's `_TensorMeta`); compiled
//! names the release's own code reads; dataclass fields inherited from the bases; `torch.ops.aten`
//! operators from the wheel's operator list, config modules closed for writes, names stored
//! from lists of another module's names (`torch._numpy`), flags a module's own setter binds.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use apicompat_index::{Catalog, PackageView, Status};
use apicompat_requirements::parse_version;

fn package<'a>(catalog: &'a Catalog, name: &str) -> &'a PackageView {
    match catalog.package(name) {
        Ok(Some(v)) => v,
        other => panic!("{name} is not embedded: {:?}", other.err()),
    }
}

/// The releases of `v` where `path` is deprecated; with `present`, it must be present in
/// every release.
fn deprecated_releases(v: &PackageView, path: &str, present: bool) -> Vec<String> {
    let versions = v.versions();
    versions
        .iter()
        .enumerate()
        .filter(|(r, _)| match v.status(path, *r).unwrap() {
            Status::Present { symbol, .. } => symbol.deprecated.is_some(),
            other if present => panic!("{path} in {}: {other:?}", versions[*r]),
            _ => false,
        })
        .map(|(_, version)| version.clone())
        .collect()
}

fn torch(catalog: &Catalog) -> &PackageView {
    package(catalog, "torch")
}

fn status(view: &PackageView, path: &str, version: &str) -> Status {
    let release = view
        .position(&parse_version(version).unwrap())
        .unwrap_or_else(|| panic!("torch {version} is not embedded"));
    view.status(path, release).unwrap()
}

#[test]
fn module_methods_are_absent_where_missing_through_instance_data_getattr() {
    let catalog = apicompat::embedded_catalog();
    let v = torch(&catalog);
    for version in ["1.13.0", "2.0.0", "2.4.1"] {
        let s = status(v, "torch.nn.Linear.set_submodule", version);
        assert!(s.is_absent(), "{version}: {s:?}");
    }
    assert!(status(v, "torch.nn.Linear.set_submodule", "2.5.0").is_present());
    // A name no release defines on the class may be a registered submodule: unknown.
    assert!(matches!(
        status(v, "torch.nn.Linear.my_submodule", "2.5.0"),
        Status::Unknown { .. }
    ));
    // Members the class has are present as before.
    assert!(status(v, "torch.nn.Linear.forward", "2.4.1").is_present());
    assert!(status(v, "torch.nn.Linear.state_dict", "2.4.1").is_present());
}

#[test]
fn tensor_members_through_the_metaclass_chain_are_known() {
    let catalog = apicompat::embedded_catalog();
    let v = torch(&catalog);
    assert!(status(v, "torch.Tensor.untyped_storage", "1.13.1").is_absent());
    assert!(status(v, "torch.Tensor.untyped_storage", "1.13.0").is_absent());
    assert!(status(v, "torch.Tensor.untyped_storage", "2.0.0").is_present());
    assert!(status(v, "torch.Tensor.add", "1.13.1").is_present());
}

#[test]
fn enum_members_are_absent_where_the_stub_lacks_them() {
    // torch 2.3.0's torch/_C/_profiler.pyi: `class ProfilerActivity(Enum)` with CPU, CUDA,
    // MTIA and PrivateUse1 only.
    let catalog = apicompat::embedded_catalog();
    let v = torch(&catalog);
    assert!(status(v, "torch.profiler.ProfilerActivity.XPU", "2.3.0").is_absent());
    assert!(status(v, "torch.profiler.ProfilerActivity.XPU", "2.4.0").is_present());
    assert!(status(v, "torch.profiler.ProfilerActivity.CUDA", "2.3.0").is_present());
    // Enum's own members come from typeshed.
    assert!(status(v, "torch.profiler.ProfilerActivity.name", "2.3.0").is_present());
}

#[test]
fn values_a_compiled_enum_may_export_onto_its_class_are_unknown() {
    // torch 1.13 - 2.0's stub declares `class ReduceOp` with `class RedOpType(Enum): ...` (no
    // members) and no `AVG`, which the binding exports onto the class (`export_values`, and
    // 1.13's `setattr` over `RedOpType.__members__`); 2.1's stub declares `AVG: RedOpType`.
    // Studies 14, 16, 17 and 31 found it false on 1.13 - 2.0.
    let catalog = apicompat::embedded_catalog();
    let v = torch(&catalog);
    for version in ["1.13.1", "2.0.1"] {
        let s = status(v, "torch.distributed.ReduceOp.AVG", version);
        assert!(matches!(s, Status::Unknown { .. }), "{version}: {s:?}");
    }
    assert!(status(v, "torch.distributed.ReduceOp.AVG", "2.1.0").is_present());
    assert!(status(v, "torch.distributed.ReduceOp.SUM", "1.13.1").is_present());
    // A class without such a nested class keeps its stub's word (see the test above).
    assert!(status(v, "torch.profiler.ProfilerActivity.XPU", "2.3.0").is_absent());
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_apicompat"));
    c.env("NO_COLOR", "1").env_remove("VIRTUAL_ENV");
    c
}

fn project(name: &str, source: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("index-truth")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("train.py"), source).expect("write");
    dir
}

fn check(dir: &Path, target: &str) -> (Output, String) {
    let o = bin()
        .args(["--no-cache", "check", "--target", target])
        .current_dir(dir)
        .output()
        .expect("run apicompat");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    (o, out)
}

#[test]
fn check_reports_a_module_method_missing_in_the_target() {
    let dir = project(
        "set_submodule",
        "import torch.nn as nn\n\nnn.Linear.set_submodule\n",
    );
    let (o, out) = check(&dir, "torch==2.4.1");
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("AC002") && out.contains("set_submodule"),
        "{out}"
    );
    let (o, out) = check(&dir, "torch==2.5.0");
    assert_eq!(o.status.code(), Some(0), "{out}");
}

#[test]
fn query_says_absent_not_unknown() {
    let o = bin()
        .args(["--no-cache", "query", "torch.nn.Linear.set_submodule"])
        .output()
        .expect("run apicompat");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("absent in"), "{out}");
    assert!(!out.contains("unknown in"), "{out}");
}

/// The release's own reads of compiled names (`apicompat_extract::evidence`): torch 2.1.0's
/// `torch/fx/graph.py` reads `torch.float8_e4m3fn` at import time (its stub declares it from
/// 2.2.0); torch's own code calls `torch.Tensor._make_wrapper_subclass` in functions from
/// 1.13 on (the stub of `TensorBase` declares it from 2.8.0).
#[test]
fn compiled_names_the_release_reads_are_not_absent() {
    let catalog = apicompat::embedded_catalog();
    let v = torch(&catalog);
    for version in ["2.1.0", "2.1.2"] {
        assert!(
            status(v, "torch.float8_e4m3fn", version).is_present(),
            "{version}"
        );
    }
    assert!(status(v, "torch.float8_e4m3fn", "2.0.1").is_absent());
    // No code of 2.6.0 reads it: the stub's answer stands.
    assert!(status(v, "torch.float8_e8m0fnu", "2.6.0").is_absent());
    assert!(status(v, "torch.float8_e8m0fnu", "2.7.0").is_present());
    for version in ["1.13.1", "2.1.2", "2.6.0", "2.7.1"] {
        let s = status(v, "torch.Tensor._make_wrapper_subclass", version);
        assert!(matches!(s, Status::Unknown { .. }), "{version}: {s:?}");
    }
    assert!(status(v, "torch.Tensor._make_wrapper_subclass", "2.8.0").is_present());
    // Evidence in some releases is no definition: `torch.hpu` (an out-of-tree backend) stays
    // unknown where torch's code does not read it, `torch.uint1` where it is not read at
    // import time.
    // A name another release ships as a module: the release's files are authoritative
    // (torch 2.0 - 2.2 read `torch.xpu` in functions; torch ships `torch/xpu` from 2.3).
    assert!(status(v, "torch.xpu.is_available", "2.2.2").is_absent());
    assert!(status(v, "torch.xpu", "2.1.2").is_absent());
    assert!(status(v, "torch.xpu.is_available", "2.3.0").is_present());
    for version in ["2.1.2", "2.4.1", "2.15.0"] {
        for path in ["torch.hpu.device_count", "torch.uint1"] {
            let s = status(v, path, version);
            assert!(
                matches!(s, Status::Unknown { .. }),
                "{path} {version}: {s:?}"
            );
        }
    }
}

#[test]
fn check_float8_and_wrapper_subclass() {
    let dir = project(
        "float8",
        "import torch\n\nx = torch.float8_e4m3fn\ny = torch.Tensor._make_wrapper_subclass\n",
    );
    let (o, out) = check(&dir, "torch==2.1.0");
    assert_eq!(o.status.code(), Some(0), "{out}");
    let (o, out) = check(&dir, "torch==2.0.1");
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("float8_e4m3fn"), "{out}");
    assert!(!out.contains("_make_wrapper_subclass"), "{out}");
    let dir = project(
        "float8_e8m0fnu",
        "import torch\n\nx = torch.float8_e8m0fnu\n",
    );
    let (o, out) = check(&dir, "torch==2.6.0");
    assert_eq!(o.status.code(), Some(1), "{out}");
}

/// `@dataclass class FullStateDictConfig(StateDictConfig)`: `offload_to_cpu` is a field of
/// the base.
#[test]
fn dataclass_keywords_of_the_bases_are_accepted() {
    let dir = project(
        "fsdp_config",
        "from torch.distributed.fsdp import FullStateDictConfig\n\n\
         cfg = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)\n",
    );
    for target in ["torch==2.1.1", "torch==2.6.0"] {
        let (o, out) = check(&dir, target);
        assert_eq!(o.status.code(), Some(0), "{target}: {out}");
    }
    let dir = project(
        "fsdp_config_typo",
        "from torch.distributed.fsdp import FullStateDictConfig\n\n\
         cfg = FullStateDictConfig(offload_to_gpu=True)\n",
    );
    let (o, out) = check(&dir, "torch==2.6.0");
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("AC003") && out.contains("offload_to_gpu"),
        "{out}"
    );
}

#[test]
fn check_reports_an_enum_member_missing_in_the_target() {
    let dir = project(
        "profiler_xpu",
        "import torch\n\nacts = [torch.profiler.ProfilerActivity.XPU]\n",
    );
    let (o, out) = check(&dir, "torch==2.3.0");
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("AC002") && out.contains("XPU"), "{out}");
    let (o, out) = check(&dir, "torch==2.4.0");
    assert_eq!(o.status.code(), Some(0), "{out}");
}

/// torchvision 0.28 - 0.29 bind `read_video` only through `try: from pytorch.vision.fb.io.video
/// import read_video / except ImportError: pass`: unknown there (no longer present), as
/// `apicompat_extract::fallible` says.
#[test]
fn names_of_imports_nothing_provides_are_unknown() {
    let catalog = apicompat::embedded_catalog();
    let v = package(&catalog, "torchvision");
    for version in ["0.28.0", "0.29.2"] {
        let s = status(v, "torchvision.io.read_video", version);
        assert!(matches!(s, Status::Unknown { .. }), "{version}: {s:?}");
    }
    assert!(status(v, "torchvision.io.read_video", "0.25.0").is_present());
    assert!(status(v, "torchvision.io.read_image", "0.29.2").is_present());
}

/// `prelu_backward` is in `native_functions.yaml` of 1.13.x only.
#[test]
fn aten_operators_follow_the_wheels_operator_list() {
    let catalog = apicompat::embedded_catalog();
    let v = torch(&catalog);
    let op = "torch.ops.aten.prelu_backward.default";
    assert!(status(v, op, "1.13.1").is_present());
    assert!(status(v, op, "2.0.0").is_absent());
    assert!(status(v, op, "2.5.0").is_absent());
    for version in ["1.13.0", "2.1.2", "2.15.0"] {
        assert!(status(v, "torch.ops.aten.add.Tensor", version).is_present());
        assert!(status(v, "torch.ops.aten.relu.default", version).is_present());
    }
    // Registered outside the list, or another namespace: unknown, never absent.
    assert!(matches!(
        status(v, "torch.ops.aten.not_in_any_list", "2.5.0"),
        Status::Unknown { .. }
    ));
    // `sym_size.int` joined the list in 2.1.0.
    assert!(status(v, "torch.ops.aten.sym_size.int", "2.0.1").is_absent());
    assert!(status(v, "torch.ops.aten.sym_size.int", "2.1.0").is_present());
    assert!(matches!(
        status(v, "torch.ops.torchvision.nms", "2.5.0"),
        Status::Unknown { .. }
    ));
}

#[test]
fn config_modules_refuse_names_they_lack() {
    let catalog = apicompat::embedded_catalog();
    let v = torch(&catalog);
    for version in ["2.1.2", "2.4.1", "2.15.0"] {
        let s = status(v, "torch._dynamo.config.__setattr__", version);
        assert!(s.is_present(), "{version}: {s:?}");
    }
    // An ordinary module has none.
    assert!(!status(v, "torch.nn.functional.__setattr__", "2.4.1").is_present());
}

#[test]
fn names_stored_from_another_modules_names_are_present() {
    let catalog = apicompat::embedded_catalog();
    let v = torch(&catalog);
    for version in ["2.1.2", "2.5.0"] {
        for path in [
            "_ufuncs.hypot",
            "_ufuncs.arccos",
            "_ufuncs.add",
            "_funcs.clip",
            "_funcs.amax",
        ] {
            let s = status(v, &format!("torch._numpy.{path}"), version);
            assert!(s.is_present(), "{version} {path}: {s:?}");
        }
        assert!(status(v, "torch._numpy._funcs.no_such_function", version).is_absent());
        assert!(status(v, "torch._numpy._ufuncs.no_such_ufunc", version).is_absent());
        // Not public functions of `_funcs_impl`: not copied.
        assert!(status(v, "torch._numpy._funcs.ArrayLike", version).is_absent());
    }
    let flag = "torch.testing._internal.common_utils.TEST_WITH_ROCM";
    assert!(status(v, flag, "2.1.2").is_present());
    assert!(status(v, flag, "2.4.1").is_present());
}

/// `compiled_autograd` is a key of `torch._dynamo.config` from 2.4 on, not in 2.1.2; setting
/// a key the config module lacks raises `AttributeError`.
#[test]
fn check_judges_assignments_to_config_modules() {
    let dir = project(
        "config",
        "import torch\nimport torch._dynamo\nfrom torch._dynamo import config\n\n\
         torch._dynamo.config.compiled_autograd = True\nconfig.cache_size_limit = 8\n\
         torch.nn.functional.my_patch = print\n",
    );
    let (o, out) = check(&dir, "torch==2.1.2");
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("compiled_autograd"), "{out}");
    assert!(!out.contains("cache_size_limit"), "{out}");
    assert!(!out.contains("my_patch"), "{out}");
    let (o, out) = check(&dir, "torch==2.4.1");
    assert_eq!(o.status.code(), Some(0), "{out}");
}

#[test]
fn check_reports_an_operator_that_is_gone() {
    let dir = project(
        "ops",
        "import torch\n\nx = torch.ops.aten.prelu_backward.default\ny = torch.ops.aten.add.Tensor\n",
    );
    let (o, out) = check(&dir, "torch==2.1.2");
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("prelu_backward") && !out.contains("add.Tensor"),
        "{out}"
    );
    let (o, out) = check(&dir, "torch==1.13.1");
    assert_eq!(o.status.code(), Some(0), "{out}");
}

/// The standard library's deprecations in the embedded `python` index follow the version
/// and every definition (`crates/apicompat_extract/src/py_version.rs`): a deprecated overload
/// or one under `sys.platform == "win32"` does not deprecate the function, a `sys.version_info`
/// branch belongs to the versions that take it, and a message's "since Python 3.N" (or
/// "removed in Python 3.N", two versions before) is where it starts.
#[test]
fn python_deprecations_follow_the_version_and_every_overload() {
    let catalog = apicompat::embedded_catalog();
    let v = package(&catalog, "python");
    let versions = v.versions();
    let deprecated_in = |path: &str| deprecated_releases(v, path, true);
    let none: Vec<&str> = Vec::new();
    for path in [
        "shutil.which",
        "ctypes.POINTER",
        "sysconfig.get_config_var",
        "os.path.commonprefix",
        "os.popen",
        "ssl.SSLContext",
    ] {
        assert_eq!(deprecated_in(path), none, "{path}");
    }
    assert_eq!(
        deprecated_in("ssl.SSLContext.set_npn_protocols"),
        ["3.10", "3.11", "3.12", "3.13", "3.14"]
    );
    assert_eq!(deprecated_in("asyncio.get_event_loop_policy"), ["3.14"]);
    // Removed names: deprecated before, absent after (their definitions stand in a branch of
    // the versions before the removal).
    let removed_in = |path: &str| deprecated_releases(v, path, false);
    let absent_in = |path: &str| -> Vec<String> {
        (0..versions.len())
            .filter(|r| v.status(path, *r).unwrap().is_absent())
            .map(|r| versions[r].clone())
            .collect()
    };
    assert_eq!(removed_in("asyncio.get_child_watcher"), ["3.12", "3.13"]);
    assert_eq!(absent_in("asyncio.get_child_watcher"), ["3.14"]);
    assert_eq!(
        removed_in("ssl.wrap_socket"),
        ["3.8", "3.9", "3.10", "3.11"]
    );
    assert_eq!(absent_in("ssl.wrap_socket"), ["3.12", "3.13", "3.14"]);
    assert_eq!(
        deprecated_in("threading.Thread.setDaemon"),
        ["3.10", "3.11", "3.12", "3.13", "3.14"]
    );
    assert_eq!(removed_in("ast.Num"), ["3.12", "3.13"]);
    assert_eq!(absent_in("ast.Num"), ["3.14"]);
    // Removed without a deprecation mark in typeshed, or added later.
    assert_eq!(
        absent_in("inspect.getargspec"),
        ["3.11", "3.12", "3.13", "3.14"]
    );
    assert_eq!(
        absent_in("itertools.batched"),
        ["3.8", "3.9", "3.10", "3.11"]
    );
    // A name no version's stub declares: unknown, never absent.
    assert!(absent_in("sys.frozen").is_empty());
    // Typeshed marks it on every version and names none (CPython deprecated it in 3.12).
    assert_eq!(deprecated_in("datetime.datetime.utcnow"), versions);
}

/// A deprecation written only on the definition under `if TYPE_CHECKING:` is the declaration
/// (`crates/apicompat_extract/src/defs.rs` `merged_deprecation`): torch 2.6 - 2.15
/// `torch/_dynamo/external_utils.py` (2.11: lines 44-59) and `torch/_utils.py` deprecate
/// `is_compiling` there and define it plainly in the `else` branch.
#[test]
fn torch_deprecations_under_type_checking_are_the_declaration() {
    let catalog = apicompat::embedded_catalog();
    let v = torch(&catalog);
    let versions = v.versions();
    let deprecated_in = |path: &str| deprecated_releases(v, path, false);
    let from_2_6: Vec<&str> = versions
        .iter()
        .map(String::as_str)
        .skip_while(|&version| version != "2.6.0")
        .collect();
    assert_eq!(from_2_6.first(), Some(&"2.6.0"));
    for path in [
        "torch._dynamo.is_compiling",
        "torch._dynamo.external_utils.is_compiling",
        "torch._utils.is_compiling",
    ] {
        assert_eq!(deprecated_in(path), from_2_6, "{path}");
    }
    // Imported from `external_utils` until 2.8 (from `torch.compiler` since 2.9).
    let to_2_8 = ["2.6.0", "2.7.0", "2.7.1", "2.8.0"];
    assert_eq!(
        deprecated_in("torch._dynamo.decorators.is_compiling"),
        to_2_8
    );
    assert_eq!(
        deprecated_in("torch.distributed.tensor.parallel._utils.is_torchdynamo_compiling"),
        to_2_8
    );
    assert_eq!(
        deprecated_in("torch.compiler.is_compiling"),
        Vec::<&str>::new()
    );
}

/// torch's `nn.Module.to` is three `@overload`s (none takes `memory_format`) and the
/// implementation `def to(self, *args, **kwargs)` (2.11 `nn/modules/module.py:1242-1255`),
/// which is what runs: the channels-last idiom is accepted. `state_dict`'s overloads and its
/// implementation `(self, *args, destination=None, prefix="", keep_vars=False)` all refuse a
/// misspelt keyword.
#[test]
fn overloaded_methods_accept_what_the_implementation_takes() {
    let dir = project(
        "module_to",
        "import torch\n\n\
         model = torch.nn.Conv2d(3, 8, 3).eval()\n\
         model = model.to(memory_format=torch.channels_last)\n\
         torch.nn.Conv2d(3, 8, 3).to(memory_format=torch.channels_last)\n",
    );
    for target in ["torch==2.6.0", "torch==2.11.0"] {
        let (o, out) = check(&dir, target);
        assert_eq!(o.status.code(), Some(0), "{target}: {out}");
    }
    let dir = project(
        "state_dict_typo",
        "import torch\n\nsd = torch.nn.Linear(2, 2).state_dict(keep_var=True)\n",
    );
    let (o, out) = check(&dir, "torch==2.6.0");
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("AC003") && out.contains("keep_var"), "{out}");
}

/// torch 2.7 - 2.9 `utils/_pytree.py`: `LeafSpec(TreeSpec)` redeclares the base's three fields
/// `field(default=None, init=False)`; torch itself does `_LEAF_SPEC = LeafSpec()`.
#[test]
fn dataclass_fields_redeclared_init_false_are_not_parameters() {
    let dir = project(
        "leaf_spec",
        "from torch.utils._pytree import LeafSpec\n\nLEAF = LeafSpec()\n",
    );
    for target in ["torch==2.7.0", "torch==2.8.0", "torch==2.9.1"] {
        let (o, out) = check(&dir, target);
        assert_eq!(o.status.code(), Some(0), "{target}: {out}");
    }
    let dir = project(
        "leaf_spec_args",
        "from torch.utils._pytree import LeafSpec\n\nLEAF = LeafSpec(type=None)\n",
    );
    let (o, out) = check(&dir, "torch==2.9.1");
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("AC003") && out.contains("type"), "{out}");
}
