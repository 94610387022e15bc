//! The training stack embedded with torch (issue 13): transformers, accelerate, diffusers,
//! peft, safetensors, huggingface_hub, einops, timm. Offline (`--no-cache`: only the embedded
//! indexes answer).

mod common;

use common::{bin, check, text};

/// A move from transformers' changelog: v4.33.0 moved the DeepSpeed integration into
/// `transformers/integrations/` ("Move third-party related utility files into `integrations/`
/// folder", huggingface/transformers#25599), leaving `transformers/deepspeed.py` as a shim
/// ("transformers.deepspeed module is deprecated and will be removed in a future version.
/// Please import deepspeed modules directly from transformers.integrations"); the shim is gone
/// from 4.46.0.
#[test]
fn transformers_deepspeed_moved_to_integrations() {
    let dir = common::project_in(
        "stack",
        "transformers-move",
        &[
            (
                "train.py",
                "from transformers.deepspeed import HfDeepSpeedConfig\n",
            ),
            ("other.py", "from transformers.not_a_module import Thing\n"),
        ],
    );
    // `transformers` replaces itself with a `_LazyModule`. Up to 4.50 it writes its table out
    // (closed: a module no release ships is missing, as importing it fails); from 4.52 the
    // table is built by a call (open: unknown, never reported).
    let o = check(&dir, &["--target", "transformers==4.45.2"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("`transformers.not_a_module.Thing` is not in transformers 4.45.2"),
        "{out}"
    );
    assert!(!out.contains("HfDeepSpeedConfig"), "{out}");
    let o = check(
        &dir,
        &["--target", "transformers==5.24.0", "--select", "AC001"],
    );
    let (out, err) = text(&o);
    assert!(!out.contains("--> other.py"), "{out}\n{err}");
    let o = check(&dir, &["--target", "transformers==4.46.3"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("`transformers.deepspeed.HfDeepSpeedConfig` is not in transformers 4.46.3"),
        "{out}"
    );
    assert!(
        out.contains("the same object is `transformers.integrations.deepspeed.HfDeepSpeedConfig`")
            || out.contains("the same object is `transformers.integrations.HfDeepSpeedConfig`"),
        "{out}"
    );
    assert!(out.contains("not_a_module"), "{out}");
}

/// `index list` names every embedded package, and `query` answers on each (its first
/// top-level module, from the index itself).
#[test]
fn index_list_and_query_cover_every_embedded_package() {
    let o = bin()
        .args(["--no-cache", "index", "list", "--output-format", "json"])
        .output()
        .expect("run apicompat");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let listed: serde_json::Value = serde_json::from_str(&out).expect("json");
    let listed: Vec<&str> = listed
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|p| p["package"].as_str())
        .collect();
    let catalog = apicompat::embedded_catalog();
    let embedded: Vec<&str> = apicompat::EMBEDDED.iter().map(|(n, _)| *n).collect();
    for package in [
        "transformers",
        "accelerate",
        "diffusers",
        "peft",
        "safetensors",
        "huggingface-hub",
        "einops",
        "timm",
    ] {
        assert!(embedded.contains(&package), "{package} is not embedded");
    }
    for name in embedded {
        assert!(listed.contains(&name), "{name} missing from {listed:?}");
        let view = catalog.package(name).expect("readable").expect("present");
        let mut roots: Vec<String> = view.roots().into_iter().collect();
        roots.sort();
        let root = roots.first().expect("a top-level module").clone();
        let o = bin()
            .args(["--no-cache", "query", &root, "--package", name])
            .output()
            .expect("run apicompat");
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{name} {root}: {out}{err}");
        assert!(out.contains("module in"), "{name} {root}: {out}");
    }
}

/// huggingface_hub 1.x's `hf_hub_download` has no `resume_download` parameter, but it is
/// decorated with `@validate_hf_hub_args`, whose wrapper takes `**kwargs` and pops
/// `resume_download` (with a warning) before the call (`utils/_validators.py`,
/// `smoothly_deprecate_legacy_arguments`): the call is valid. A keyword the wrapper does not
/// take out is still an error.
#[test]
fn keywords_a_decorator_wrapper_accepts_are_not_reported() {
    let dir = common::project_in(
        "stack",
        "hub-wrapper",
        &[(
            "dl.py",
            "from huggingface_hub import hf_hub_download\n\
             hf_hub_download(\"r/m\", \"f.bin\", resume_download=True)\n\
             hf_hub_download(\"r/m\", \"f.bin\", not_a_keyword=True)\n",
        )],
    );
    let o = check(&dir, &["--target", "huggingface-hub==1.0.1"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("not_a_keyword"), "{out}");
    assert!(!out.contains("resume_download"), "{out}");
}

/// A project class deriving from `ABC` and an indexed class (FlagEmbedding's
/// `AbsEmbedderTrainer(ABC, Trainer)`) answers the indexed class's members: `abc.ABC` is
/// indexed too (the standard library), and must not hide `Trainer` (`Trainer.tokenizer` is
/// gone from transformers 5.0.0).
#[test]
fn a_neutral_base_does_not_hide_an_indexed_one() {
    let source = |bases: &str| {
        format!("from abc import ABC\nfrom transformers import Trainer\n\n\nclass T({bases}):\n    def save(self):\n        self.tokenizer.save_pretrained(\"x\")\n")
    };
    for bases in ["ABC, Trainer", "Trainer"] {
        let dir = common::project_in(
            "stack",
            &format!("neutral-base-{}", bases.len()),
            &[("t.py", &source(bases))],
        );
        let o = check(&dir, &["--target", "transformers==5.0.0"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{bases}: {out}\n{err}");
        assert!(
            out.contains("`transformers.Trainer.tokenizer` is not in transformers 5.0.0"),
            "{bases}: {out}"
        );
    }
}

/// A project helper whose true result is a package's predicate on one path and a test of its
/// own on another (LLaVA-NeXT's `trl` `is_xpu_available`: `accelerate.utils.is_xpu_available()`
/// or `hasattr(torch, "xpu") and torch.xpu.is_available()`) guards what both imply:
/// accelerate's predicate reads `torch.xpu` too (study 24 F-B). An unguarded call is still
/// reported.
#[test]
fn a_helper_returning_a_package_predicate_or_its_own_test_guards_what_both_imply() {
    let source = "import accelerate\nimport torch\n\n\ndef is_xpu_available():\n    if FLAG:\n        return hasattr(torch, \"xpu\") and torch.xpu.is_available()\n    return accelerate.utils.is_xpu_available()\n\n\nFLAG = True\n\n\ndef seed(n):\n    if is_xpu_available():\n        torch.xpu.manual_seed_all(n)\n    torch.xpu.empty_cache()\n";
    let dir = common::project_in(
        "stack",
        "mixed-helper",
        &[
            ("m.py", source),
            ("requirements.txt", "torch==2.1.2\naccelerate==0.29.3\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(!out.contains("manual_seed_all"), "{out}");
    assert!(
        out.contains("`torch.xpu.empty_cache` is not in torch 2.1.2"),
        "{out}"
    );
}

/// `importlib.util.find_spec("m.sub")` finds a spec where the module exists (peft's test
/// helper `is_mistral_available()`, docs/false-alarm-study-46.md F-AJ): a branch under it
/// (inline, or through a helper returning the test) runs only where
/// `transformers.models.mistral.modeling_mistral` exists (from 4.34), where `MistralConfig`
/// exists too. Under `is None`, the `else` runs where it exists. Another module's spec says
/// nothing of this one.
#[test]
fn a_found_module_spec_limits_its_branch_to_the_releases_with_the_module() {
    let helper = "import importlib.util\n\n\ndef is_mistral_available():\n    try:\n        return importlib.util.find_spec(\"transformers.models.mistral.modeling_mistral\") is not None\n    except ModuleNotFoundError:\n        return False\n\n\nif is_mistral_available():\n    from transformers import MistralConfig\n";
    let inline = "from importlib.util import find_spec\n\nif find_spec(\"transformers.models.mistral.modeling_mistral\"):\n    from transformers import MistralConfig\nif find_spec(\"transformers.models.mistral.modeling_mistral\") is None:\n    from transformers import LlamaConfig\nelse:\n    from transformers import MistralConfig as M\n";
    let dir = common::project_in("stack", "find-spec", &[("a.py", helper), ("b.py", inline)]);
    let o = check(&dir, &["--target", "transformers==4.33.3"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let other = helper.replace("models.mistral.modeling_mistral", "models.llama");
    let dir = common::project_in("stack", "find-spec-control", &[("a.py", &other)]);
    let o = check(&dir, &["--target", "transformers==4.33.3"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("`transformers.MistralConfig` is not in transformers 4.33.3"),
        "{out}"
    );
}

/// A function named only under `model_type == "qwen2_5_vl"` (LLaMA-Factory's liger kernels:
/// `apply = apply_liger_kernel_to_qwen2_5_vl`, called after the `if`; or called there) runs
/// only where a config of that model type loads, where `transformers.models.qwen2_5_vl`
/// exists (from 4.49; docs/false-alarm-study-46.md F-AK). Named under another model type, it
/// is judged on every release.
#[test]
fn a_function_named_under_a_model_type_runs_where_that_model_exists() {
    let source = |model: &str| {
        format!("from transformers import AutoConfig\n\n\ndef apply_kernel_to_qwen2_5_vl(rope=True):\n    from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl\n    if rope:\n        modeling_qwen2_5_vl.apply_multimodal_rotary_pos_emb = None\n\n\ndef apply_kernel(path):\n    model_type = getattr(AutoConfig.from_pretrained(path), \"model_type\", None)\n    if model_type == \"llama\":\n        from transformers.models.llama import modeling_llama as apply\n    elif model_type == \"{model}\":\n        apply = apply_kernel_to_qwen2_5_vl\n    else:\n        return\n    apply()\n")
    };
    let dir = common::project_in(
        "stack",
        "model-type-ref",
        &[("patch.py", &source("qwen2_5_vl"))],
    );
    let o = check(&dir, &["--target", "transformers==4.48.3"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let dir = common::project_in(
        "stack",
        "model-type-ref-control",
        &[("patch.py", &source("qwen2_vl"))],
    );
    let o = check(&dir, &["--target", "transformers==4.48.3"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains(
            "`transformers.models.qwen2_5_vl.modeling_qwen2_5_vl` is not in transformers 4.48.3"
        ),
        "{out}"
    );
}

/// A name put back under `if not hasattr(M, "X"):` (AQLM's `SiLUActivation`, gone from
/// transformers 4.39; docs/false-alarm-study-49.md F-AN) exists after the assignment, in the
/// branch and after it, whatever the value (a call too). Reading it without assigning it stays
/// an error.
#[test]
fn a_name_put_back_under_a_hasattr_test_exists_after_it() {
    let source = |assign: &str| {
        format!("from copy import deepcopy\n\nimport torch\n\n\ndef load():\n    import transformers.activations\n\n    if not hasattr(transformers.activations, \"SiLUActivation\"):\n{assign}        transformers.activations.SiLUActivation.inplace = False\n    return transformers.activations.SiLUActivation\n")
    };
    let put_back =
        source("        transformers.activations.SiLUActivation = deepcopy(torch.nn.SiLU)\n");
    let dir = common::project_in("stack", "put-back", &[("m.py", &put_back)]);
    let o = check(&dir, &["--target", "transformers==4.40.2"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let dir = common::project_in("stack", "put-back-control", &[("m.py", &source(""))]);
    let o = check(&dir, &["--target", "transformers==4.40.2"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("`transformers.activations.SiLUActivation` is not in transformers 4.40.2"),
        "{out}"
    );
}
