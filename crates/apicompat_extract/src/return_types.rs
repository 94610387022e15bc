//! `torch._C._return_types`: the structseq types torchgen generates from the operator list.
//!
//! torch's compiled module holds one type per native function with named returns
//! (`max.dim(...) -> (Tensor values, Tensor indices)`) that gets a Python binding
//! (`create_python_return_type_bindings` over the entries `crate::torchgen` keeps), under
//! the function's C++ name (`cpp.name`: the base name, `_out` for an out variant). Rule, as
//! torchgen has it: every bound `- func: NAME[.OVERLOAD](ARGS) -> (T1 n1, T2 n2, ...)` entry
//! with two or more returns, all named, gives a type named by its C++ name.
//!
//! Each type is a class deriving from `tuple` whose members are its fields and the
//! attributes CPython gives every structseq type. The module is closed: a name it lacks is
//! missing. A release without the generator (1.13, 2.0) or whose skip list cannot be read is
//! left as it was (the module is unknown to the extractor).

use std::collections::BTreeMap;

use crate::facts::{Class, FileFacts, Openness, Value};
use crate::resolve::{HashMap, ModuleInfo};
use crate::torchgen::Entry;

/// The module the types live in, and the compiled module that must exist for it.
const MODULE: &str = "torch._C._return_types";
const PARENT: &str = "torch._C";
/// What `PyStructSequence_InitType` sets on every structseq type.
const STRUCTSEQ_ATTRIBUTES: &[&str] = &["n_fields", "n_sequence_fields", "n_unnamed_fields"];

/// The type names of the bound entries: name -> the field lists of its entries.
pub fn names(entries: &[Entry]) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut out: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    for e in entries {
        if let Some(fields) = fields(e) {
            out.entry(e.cpp_name()).or_default().push(fields);
        }
    }
    out
}

/// `structseq_fieldnames`: two or more returns, all named (torchgen refuses a mix).
fn fields(e: &Entry) -> Option<Vec<String>> {
    let (_, _, returns) = e.parts()?;
    let returns = returns
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(returns);
    let returns: Vec<&str> = returns.split(", ").collect();
    let fields: Option<Vec<String>> = returns
        .iter()
        .map(|r| r.rsplit_once(' ').map(|(_, n)| n.to_string()))
        .collect();
    fields.filter(|_| returns.len() > 1)
}

/// Adds the module, as a closed module of classes, to a release that has `torch._C` and no
/// file of its own for it.
pub fn add(modules: &mut HashMap<String, ModuleInfo>, types: BTreeMap<String, Vec<Vec<String>>>) {
    if types.is_empty() || !modules.contains_key(PARENT) || modules.contains_key(MODULE) {
        return;
    }
    let bindings = types
        .into_iter()
        .map(|(name, field_lists)| {
            let mut fields: Vec<&String> = field_lists.iter().flatten().collect();
            fields.sort();
            fields.dedup();
            // Entries of one name with other fields: which registration wins is torchgen's
            // order, so its members beyond the common ones are not known.
            let agree = field_lists.windows(2).all(|w| w[0] == w[1]);
            let members = fields
                .into_iter()
                .map(String::as_str)
                .chain(STRUCTSEQ_ATTRIBUTES.iter().copied())
                .map(|n| (n.to_string(), Value::Data))
                .collect();
            let class = Class {
                bases: vec!["tuple".to_string()],
                members,
                open: if agree {
                    Openness::Closed
                } else {
                    Openness::Open
                },
                ..Class::default()
            };
            (name, Value::Class(class))
        })
        .collect();
    let facts = FileFacts {
        module: MODULE.to_string(),
        bindings,
        ..FileFacts::default()
    };
    modules.insert(
        MODULE.to_string(),
        ModuleInfo {
            files: vec![facts],
            ..ModuleInfo::default()
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torchgen::bound;
    use crate::torchgen::tests::generator;
    use apicompat_archive::SourceTree;
    use apicompat_surface::Kind;

    const OP_LIST_SRC: &str = "\
- func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
  variants: function, method
- func: max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)
- func: max(Tensor self) -> Tensor
- func: _unpack_dual(Tensor(a) dual, int level) -> (Tensor(a) primal, Tensor tangent)
- func: chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
- func: _sobol_engine_draw(Tensor quasi, int n) -> (Tensor, Tensor)
- func: nll_loss_forward(Tensor self, Tensor target) -> (Tensor output, Tensor total_weight)
- func: nll_loss_forward_other(Tensor self) -> (Tensor output, Tensor total_weight)
- func: sig_skipped(Tensor self) -> (Tensor a, Tensor b)
- func: gen_only(Tensor self) -> (Tensor a, Tensor b)
  tags: [generated, core]  # autogen'd
- func: view_gen(Tensor self) -> (Tensor a, Tensor b)
  tags: [generated, view_copy]
";

    #[test]
    fn names_are_the_cpp_names_of_named_returns() {
        let names = names(&bound(OP_LIST_SRC, generator()).entries);
        let keys: Vec<&str> = names.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "_unpack_dual",
                "max",
                "max_out",
                "nll_loss_forward_other",
                "view_gen"
            ]
        );
        assert_eq!(names["max_out"], [["values", "indices"]]);
        assert_eq!(names["_unpack_dual"], [["primal", "tangent"]]);
    }

    fn release(with_generator: bool) -> SourceTree {
        let copy = (
            "torch/return_types.py",
            "import torch\n__all__ = []\nreturn_types = torch._C._return_types\n\
             for name in dir(return_types):\n    if name.startswith('__'):\n        continue\n\
             \x20   _attr = getattr(return_types, name)\n    globals()[name] = _attr\n",
        );
        crate::torchgen::tests::release(&[copy], OP_LIST_SRC, with_generator)
    }

    #[test]
    fn the_compiled_module_and_its_copy_are_closed_modules_of_classes() {
        let s = crate::extract(&release(true), "torch", "2.4.1");
        for m in ["torch._C._return_types", "torch.return_types"] {
            assert!(!s.symbols[m].open, "{m} is closed");
            for n in ["max", "max_out", "_unpack_dual"] {
                assert_eq!(
                    s.symbols[&format!("{m}.{n}")].kind(),
                    Kind::Class,
                    "{m}.{n}"
                );
            }
            assert!(!s.symbols.contains_key(&format!("{m}.nll_loss_forward")));
        }
        let max = &s.symbols["torch._C._return_types.max"];
        assert_eq!(max.bases, ["tuple"]);
        for member in ["values", "indices", "n_fields"] {
            let path = format!("torch._C._return_types.max.{member}");
            assert_eq!(s.symbols[&path].kind(), Kind::Attribute, "{path}");
        }
        assert_eq!(
            s.symbols["torch.return_types.max"].canonical.as_deref(),
            Some("torch._C._return_types.max")
        );
    }

    #[test]
    fn without_the_generator_the_module_stays_unknown() {
        let s = crate::extract(&release(false), "torch", "2.0.1");
        assert!(!s.symbols.contains_key("torch._C._return_types.max"));
        assert!(s.symbols["torch.return_types"].open);
    }
}
