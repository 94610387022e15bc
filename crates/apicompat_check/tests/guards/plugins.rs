//! A plugin the project imports may add names to its host (`crate::plugins`): `import
//! torch_npu` gives `torch.version.cann` and `torch.distributed.is_hccl_available`, which no
//! torch release has (FastVideo, study 25's F-H). What a release of the host drops, and names
//! outside what the plugin registers, stay errors.

use super::common::{project, run_with};

const USES: &str = "\
import torch

def cann():
    return torch.version.cann

def hccl():
    return torch.distributed.is_hccl_available()

def gather():
    torch.distributed.all_gather_into_tensor(None, None)

def relu():
    return torch.nn.Relu
";

fn findings(name: &str, files: &[(&str, &str)]) -> Vec<String> {
    let dir = project(name, files);
    let report = run_with(&dir, &["torch==2.1.0"], |o| o.show_guarded = true);
    report
        .findings
        .iter()
        .map(|f| {
            format!(
                "{}:{} {} {} {}",
                f.path.strip_prefix(&dir).unwrap_or(&f.path).display(),
                f.line,
                f.reach.as_str(),
                f.symbol,
                f.guard.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

#[test]
fn names_a_plugin_registers_are_guarded_by_its_import() {
    let got = findings(
        "plugin_npu",
        &[
            (
                "platforms.py",
                "try:\n    import torch_npu\nexcept ImportError:\n    torch_npu = None\n",
            ),
            ("env.py", USES),
        ],
    );
    let note = "`import torch_npu` (platforms.py:2) may add it";
    assert_eq!(
        got,
        [
            format!("env.py:4 guarded torch.version.cann {note}"),
            format!("env.py:7 guarded torch.distributed.is_hccl_available {note}"),
            // A name some torch release has is judged as usual, plugin or not.
            "env.py:10 call-time torch.distributed.all_gather_into_tensor -".to_string(),
            // Not under what the plugin registers.
            "env.py:13 call-time torch.nn.Relu -".to_string(),
        ]
    );
}

#[test]
fn without_the_plugin_the_same_names_are_errors() {
    let got = findings("plugin_none", &[("env.py", USES)]);
    assert_eq!(
        got,
        [
            "env.py:4 call-time torch.version.cann -",
            "env.py:7 call-time torch.distributed.is_hccl_available -",
            "env.py:10 call-time torch.distributed.all_gather_into_tensor -",
            "env.py:13 call-time torch.nn.Relu -",
        ]
    );
}

/// A test that finds a name only the plugin adds (`hasattr(torch, "npu")`; transformers'
/// `is_torch_npu_available()`, whose true result reads `torch.npu.is_available`) holds only
/// where the plugin was imported, so its other names are there too (study 28, F-D), though
/// the project never imports it itself. A test of a name torch has says nothing of the
/// plugin.
#[test]
fn a_test_of_a_name_only_the_plugin_adds_guards_its_other_names() {
    let got = findings(
        "plugin_tested",
        &[(
            "env.py",
            "\
import torch

def info():
    if hasattr(torch, \"npu\"):
        return torch.version.cann

def other():
    if hasattr(torch, \"distributed\"):
        return torch.version.cann
",
        )],
    );
    assert_eq!(
        got,
        [
            "env.py:5 guarded torch.version.cann the test of `torch.npu`, true only where `import torch_npu` ran, which adds this name too",
            "env.py:9 call-time torch.version.cann -",
        ]
    );
}
