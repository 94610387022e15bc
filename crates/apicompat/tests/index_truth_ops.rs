//! The second pass of issue 12 on the embedded index: `torch.ops.aten` operators from the
//! wheel's operator list, config modules closed for writes, names stored from lists of
//! another module's names (`torch._numpy`), and flags a module's own setter binds.

use std::path::{Path, PathBuf};
use std::process::Command;

use apicompat_index::{Catalog, PackageView, Status};
use apicompat_requirements::parse_version;

fn torch(catalog: &Catalog) -> &PackageView {
    match catalog.package("torch") {
        Ok(Some(v)) => v,
        other => panic!("torch is not embedded: {:?}", other.err()),
    }
}

fn status(view: &PackageView, path: &str, version: &str) -> Status {
    let release = view
        .position(&parse_version(version).unwrap())
        .unwrap_or_else(|| panic!("torch {version} is not embedded"));
    view.status(path, release).unwrap()
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

fn project(name: &str, source: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("index-truth-ops")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("train.py"), source).expect("write");
    dir
}

fn check(dir: &Path, target: &str) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_apicompat"))
        .env("NO_COLOR", "1")
        .env_remove("VIRTUAL_ENV")
        .args(["--no-cache", "check", "--target", target])
        .current_dir(dir)
        .output()
        .expect("run apicompat");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
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
    let (code, out) = check(&dir, "torch==2.1.2");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("compiled_autograd"), "{out}");
    assert!(!out.contains("cache_size_limit"), "{out}");
    assert!(!out.contains("my_patch"), "{out}");
    let (code, out) = check(&dir, "torch==2.4.1");
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn check_reports_an_operator_that_is_gone() {
    let dir = project(
        "ops",
        "import torch\n\nx = torch.ops.aten.prelu_backward.default\ny = torch.ops.aten.add.Tensor\n",
    );
    let (code, out) = check(&dir, "torch==2.1.2");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("prelu_backward") && !out.contains("add.Tensor"),
        "{out}"
    );
    let (code, out) = check(&dir, "torch==1.13.1");
    assert_eq!(code, Some(0), "{out}");
}
