//! `torch._C._fft`, `_linalg`, `_special`...: the functions torchgen binds per `python_module`.
//!
//! The generator (`gen_python_functions.py`, `create_python_bindings` with
//! `is_py_fft_function` and the like) binds every entry the skip rule keeps
//! (`crate::torchgen`) whose `python_module` is one it writes a module for into
//! `torch._C._<python_module>`, one function per base name: overloads and `.out` variants
//! share it (`group_filter_overloads` groups by `BaseOperatorName`), and `variants` does not
//! matter. C++ may add other names (`torch._C._nested.nested_tensor`), so a module that has
//! no file of its own is added open, and one that has (`torch._C._nn` from its stub) only
//! gains the names no file binds: a name can turn from unknown to present, never to missing.

use std::collections::{BTreeMap, BTreeSet};

use crate::facts::{FileFacts, Function, Value};
use crate::resolve::{HashMap, ModuleInfo};
use crate::torchgen::Bound;

const PARENT: &str = "torch._C";

/// The functions of each module: `torch._C._<python_module>` -> base names.
pub fn names(bound: &Bound) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in &bound.entries {
        let Some(m) = e
            .python_module
            .as_ref()
            .filter(|m| bound.modules.contains(*m))
        else {
            continue;
        };
        out.entry(format!("{PARENT}._{m}"))
            .or_default()
            .insert(e.base().to_string());
    }
    out
}

/// Adds the functions to a release that has `torch._C`.
pub fn add(modules: &mut HashMap<String, ModuleInfo>, names: BTreeMap<String, BTreeSet<String>>) {
    if !modules.contains_key(PARENT) {
        return;
    }
    for (module, functions) in names {
        let info = modules.entry(module.clone()).or_default();
        let is_new = info.files.is_empty() && !info.has_stub && !info.extension;
        let bindings: Vec<(String, Value)> = info
            .unbound(&functions)
            .into_iter()
            .map(|n| (n.clone(), Value::Function(Function::default())))
            .collect();
        info.files.push(FileFacts {
            module,
            bindings,
            open: is_new,
            ..FileFacts::default()
        });
    }
}

#[cfg(test)]
mod tests {
    use apicompat_surface::Kind;

    const OP_LIST_SRC: &str = "\
- func: fft_fft(Tensor self, SymInt? n=None) -> Tensor
  python_module: fft
  variants: function
- func: fft_fft.out(Tensor self, SymInt? n=None, *, Tensor(a!) out) -> Tensor(a!)
  python_module: fft
- func: fft_gen(Tensor self) -> Tensor
  python_module: fft
  tags: generated
- func: special_entr(Tensor self) -> Tensor
  python_module: special
  variants: method
- func: special_stub(Tensor self) -> Tensor
  python_module: special
- func: special_x_forward(Tensor self) -> Tensor
  python_module: special
- func: elu(Tensor self) -> Tensor
  python_module: nn
- func: abs(Tensor self) -> Tensor
";

    fn release(with_generator: bool) -> apicompat_archive::SourceTree {
        let files = [
            (
                "torch/_C/_special.pyi",
                "def special_stub(x: int) -> int: ...\n",
            ),
            (
                "torch/fft/__init__.py",
                "from torch._C import _add_docstr, _fft\nfft = _add_docstr(_fft.fft_fft, '')\n",
            ),
        ];
        crate::torchgen::tests::release(&files, OP_LIST_SRC, with_generator)
    }

    #[test]
    fn each_bound_module_gains_its_base_names() {
        let s = crate::extract(&release(true), "torch", "2.4.1");
        let kind = |p: &str| s.symbols.get(p).map(|s| s.kind());
        // Overloads share one function; generated and skipped entries have none; `nn` is not
        // a module of this generator; `variants` does not matter.
        assert!(s.symbols["torch._C._fft"].open);
        assert_eq!(kind("torch._C._fft.fft_fft"), Some(Kind::Function));
        for missing in ["fft_fft_out", "fft_gen"] {
            assert_eq!(kind(&format!("torch._C._fft.{missing}")), None);
        }
        assert_eq!(kind("torch._C._special.special_entr"), Some(Kind::Function));
        assert_eq!(kind("torch._C._special.special_x_forward"), None);
        assert!(!s.symbols.contains_key("torch._C._nn"));
        // The stub's own declaration stands.
        let stub = &s.symbols["torch._C._special.special_stub"];
        assert_eq!(stub.signatures.len(), 1);
        assert_eq!(kind("torch.fft._fft"), Some(Kind::Module));
    }

    #[test]
    fn without_the_generator_nothing_is_added() {
        let s = crate::extract(&release(false), "torch", "2.0.1");
        assert!(!s.symbols.contains_key("torch._C._fft.fft_fft"));
    }
}
