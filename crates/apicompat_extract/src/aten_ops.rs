//! `torch.ops.aten.<op>.<overload>` from the operator list the wheel ships.
//!
//! torch's wheel carries ATen's operator schemas in
//! `torchgen/packaged/ATen/native/native_functions.yaml`, one `- func: NAME[.OVERLOAD](...)`
//! line per overload; `torch.ops.aten.NAME` is the operator and `.OVERLOAD` (`.default` when
//! the schema has none) one of its overloads. The rule is torch's own (the path and the `aten`
//! namespace are torch's), applied only to a release that binds `torch.ops`:
//!
//! - `torch.ops.aten` and each `torch.ops.aten.NAME` become classes that are declared by a
//!   compiled object's list (`Symbol::stub_only`): a name listed in some indexed release is
//!   missing where the list lacks it (`torch.ops.aten.prelu_backward` after its removal);
//!   any other name stays unknown (operators C++ registers outside the list, such as
//!   `aten::sym_size`, and the packet's own methods).
//! - each overload is an attribute of its operator.
//!
//! `torch.ops.<other namespace>` is not touched: `torch.ops` stays an attribute whose names
//! are unknown.

use std::collections::BTreeMap;

use apicompat_archive::{FileKind, SourceTree};
use apicompat_surface::{Kind, Symbol};

/// Where the operators live at run time.
const NAMESPACE: &str = "torch.ops.aten";

/// The operators of the release's list: name -> overload names (`default` for none).
pub fn read(tree: &SourceTree) -> BTreeMap<String, Vec<String>> {
    let mut ops: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in tree.files.iter().filter(|f| f.kind() == FileKind::OpSchema) {
        let text = String::from_utf8_lossy(&file.data);
        for line in text.lines() {
            let Some(schema) = line.strip_prefix("- func:") else {
                continue;
            };
            let Some((name, _)) = schema.trim_start().split_once('(') else {
                continue;
            };
            let (op, overload) = name.split_once('.').unwrap_or((name, "default"));
            let overload = if overload.is_empty() {
                "default"
            } else {
                overload
            };
            if is_identifier(op) && is_identifier(overload) {
                ops.entry(op.to_string())
                    .or_default()
                    .push(overload.to_string());
            }
        }
    }
    ops
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Adds the operators to a surface that has `torch.ops`.
pub fn apply(symbols: &mut BTreeMap<String, Symbol>, ops: BTreeMap<String, Vec<String>>) {
    let Some((parent, _)) = NAMESPACE.rsplit_once('.') else {
        return;
    };
    if ops.is_empty() || !symbols.contains_key(parent) {
        return;
    }
    let declared = || Symbol {
        kind: Some(Kind::Class),
        stub_only: true,
        ..Symbol::default()
    };
    symbols.insert(NAMESPACE.to_string(), declared());
    for (op, overloads) in ops {
        let op_path = format!("{NAMESPACE}.{op}");
        for overload in overloads {
            symbols.insert(
                format!("{op_path}.{overload}"),
                Symbol {
                    kind: Some(Kind::Attribute),
                    ..Symbol::default()
                },
            );
        }
        symbols.insert(op_path, declared());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apicompat_archive::SourceFile;

    fn tree(yaml: &str) -> SourceTree {
        SourceTree {
            files: vec![SourceFile {
                path: "torchgen/packaged/ATen/native/native_functions.yaml".into(),
                data: yaml.as_bytes().to_vec(),
            }],
            ..SourceTree::default()
        }
    }

    #[test]
    fn reads_operators_and_overloads() {
        let ops = read(&tree(
            "- func: add.Tensor(Tensor self, Tensor other) -> Tensor\n  variants: function\n\
             - func: add.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n\
             - func: prelu_backward(Tensor grad_output) -> (Tensor, Tensor)\n\
             # - func: commented(Tensor self)\n\
             - func: bad name(Tensor self)\n",
        ));
        assert_eq!(ops["add"], ["Tensor", "out"]);
        assert_eq!(ops["prelu_backward"], ["default"]);
        assert_eq!(ops.len(), 2);
    }

    #[test]
    fn adds_classes_only_where_torch_ops_exists() {
        let ops = read(&tree("- func: relu(Tensor self) -> Tensor\n"));
        let mut none = BTreeMap::new();
        apply(&mut none, ops.clone());
        assert!(none.is_empty());
        let mut symbols = BTreeMap::from([("torch.ops".to_string(), Symbol::default())]);
        apply(&mut symbols, ops);
        assert!(symbols["torch.ops.aten"].stub_only);
        assert_eq!(symbols["torch.ops.aten.relu"].kind, Some(Kind::Class));
        assert_eq!(
            symbols["torch.ops.aten.relu.default"].kind,
            Some(Kind::Attribute)
        );
    }
}
