//! torch's legacy tensor types on its backend modules: `torch.sparse.FloatTensor`,
//! `torch.cuda.LongTensor`, `torch.cuda.sparse.DoubleTensor`. No Python file or stub names
//! them: `torch/csrc/tensor/python_tensor.cpp` (`initialize_python_bindings`) creates one type
//! per backend and scalar type at start-up and sets it on the backend's module (`torch`,
//! `torch.cuda`, `torch.sparse`, `torch.cuda.sparse`), the `torch.*` ones being the classes the
//! `torch._C` stub declares (`class FloatTensor(Tensor): ...`). So every name `<X>Tensor` the
//! release's `torch._C` stub declares is bound, of a kind not known, in each of the other
//! backend modules the release has, where no file binds it (RecBole's
//! `torch.sparse.FloatTensor(i, v, shape)`: `docs/false-alarm-study-19.md`). A rule that knows
//! torch's C++ (documented in `docs/index-truth.md`): a name can turn from missing to present,
//! nothing else changes.

use crate::facts::{FileFacts, Value};
use crate::resolve::{HashMap, ModuleInfo};

/// The modules the types are set on, besides `torch` (whose types the stub declares).
const BACKENDS: [&str; 3] = ["torch.cuda", "torch.sparse", "torch.cuda.sparse"];

/// Whether a name is one of the legacy types: `FloatTensor`, `BFloat16Tensor`.
fn is_type_name(name: &str) -> bool {
    name.len() > "Tensor".len()
        && name.ends_with("Tensor")
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Binds the types in the backend modules of a torch release.
pub fn add(modules: &mut HashMap<String, ModuleInfo>) {
    let Some(c) = modules.get("torch._C") else {
        return;
    };
    let mut names: Vec<String> = c
        .files
        .iter()
        .filter(|f| f.is_stub)
        .flat_map(|f| f.bindings.iter())
        .filter(|(n, v)| matches!(v, Value::Class(_)) && is_type_name(n))
        .map(|(n, _)| n.clone())
        .collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return;
    }
    for backend in BACKENDS {
        let Some(info) = modules.get_mut(backend) else {
            continue;
        };
        let bindings: Vec<(String, Value)> = info
            .unbound(&names)
            .into_iter()
            .map(|n| (n.clone(), Value::Unknown))
            .collect();
        if bindings.is_empty() {
            continue;
        }
        info.files.push(FileFacts {
            module: backend.to_string(),
            bindings,
            ..FileFacts::default()
        });
    }
}

#[cfg(test)]
mod tests {
    use apicompat_surface::Kind;

    #[test]
    fn backend_modules_gain_the_types_the_stub_declares() {
        let files = [
            (
                "torch/_C/__init__.pyi",
                "class Tensor: ...\nclass FloatTensor(Tensor): ...\nclass LongTensor(Tensor): ...\nclass TensorBase: ...\n",
            ),
            ("torch/__init__.py", "from torch._C import FloatTensor, LongTensor\n"),
            ("torch/sparse/__init__.py", "def mm(a, b): ...\n"),
            ("torch/cuda/__init__.py", "class FloatTensor: ...\n"),
        ];
        let tree = crate::tests::tree(&files);
        let s = crate::extract(&tree, "torch", "2.4.1");
        let kind = |p: &str| s.symbols.get(p).map(|s| s.kind());
        assert!(kind("torch.sparse.FloatTensor").is_some());
        assert!(kind("torch.sparse.LongTensor").is_some());
        assert_eq!(kind("torch.sparse.TensorBase"), None);
        assert_eq!(kind("torch.sparse.Tensor"), None);
        // A name a file binds keeps that binding.
        assert_eq!(kind("torch.cuda.FloatTensor"), Some(Kind::Class));
        // No module, no names.
        assert_eq!(kind("torch.cuda.sparse.FloatTensor"), None);
    }
}
