//! `torch._C._return_types`: the structseq types torchgen generates from the operator list.
//!
//! torch's compiled module holds one type per native function with named returns
//! (`max.dim(...) -> (Tensor values, Tensor indices)`) that gets a Python binding
//! (`torchgen/packaged/autograd/gen_python_functions.py`, `create_python_return_type_bindings`
//! and `should_generate_py_binding`), under the function's C++ name (`cpp.name`: the base
//! name, `_out` for an out variant). The wheel ships both inputs: the operator list
//! (`crate::aten_ops`) and the generator with its skip patterns. Rule, as torchgen has it:
//!
//! - every `- func: NAME[.OVERLOAD](ARGS) -> (T1 n1, T2 n2, ...)` entry with two or more
//!   returns, all named;
//! - its name is `NAME`, plus `_out` when a keyword-only argument (after `*`) is written to
//!   (`Tensor(a!)`);
//! - skipped when the name fully matches a pattern of `_SKIP_PYTHON_BINDINGS`, when the schema
//!   is one of `SKIP_PYTHON_BINDINGS_SIGNATURES`, or when its `tags` have `generated` without
//!   `view_copy` (the `autogen:` variants are not `- func:` entries at all).
//!
//! Each type is a class deriving from `tuple` whose members are its fields and the
//! attributes CPython gives every structseq type. The module is closed: a name it lacks is
//! missing. A release without the generator (1.13, 2.0) or whose skip list cannot be read is
//! left as it was (the module is unknown to the extractor).

use std::collections::{BTreeMap, BTreeSet};

use ruff_python_ast::{Expr, PySourceType, Stmt};

use apicompat_archive::SourceTree;

use crate::facts::{Class, FileFacts, Openness, Value};
use crate::resolve::{HashMap, ModuleInfo};

/// The module the types live in, and the compiled module that must exist for it.
const MODULE: &str = "torch._C._return_types";
const PARENT: &str = "torch._C";
const OP_LIST: &str = "torchgen/packaged/ATen/native/native_functions.yaml";
const GENERATOR: &str = "torchgen/packaged/autograd/gen_python_functions.py";
/// What `PyStructSequence_InitType` sets on every structseq type.
const STRUCTSEQ_ATTRIBUTES: &[&str] = &["n_fields", "n_sequence_fields", "n_unnamed_fields"];

/// The generator's skip lists.
#[derive(Debug, Default)]
pub struct Skips {
    names: Vec<regex::Regex>,
    signatures: BTreeSet<String>,
}

impl Skips {
    /// `_SKIP_PYTHON_BINDINGS` (required) and `SKIP_PYTHON_BINDINGS_SIGNATURES` of the
    /// generator's source: module-level lists of string literals. None when the first is
    /// missing or any pattern is not a literal or not a regex the `regex` crate takes.
    pub fn read(source: &str) -> Option<Skips> {
        let parsed = ruff_python_parser::parse_unchecked_source(source, PySourceType::Python);
        let mut names = None;
        let mut signatures = BTreeSet::new();
        for stmt in parsed.suite() {
            let (target, value) = match stmt {
                Stmt::Assign(a) if a.targets.len() == 1 => (&a.targets[0], &*a.value),
                Stmt::AnnAssign(a) => match &a.value {
                    Some(v) => (&*a.target, &**v),
                    None => continue,
                },
                _ => continue,
            };
            let Expr::Name(target) = target else { continue };
            match target.id.as_str() {
                "_SKIP_PYTHON_BINDINGS" => names = Some(strings(value)?),
                "SKIP_PYTHON_BINDINGS_SIGNATURES" => signatures.extend(strings(value)?),
                _ => {}
            }
        }
        let names = names?
            .iter()
            // As torchgen compiles them: `re.compile(rf"^{pattern}$")`, used with `match`.
            .map(|p| regex::Regex::new(&format!("^{p}$")).ok())
            .collect::<Option<Vec<_>>>()?;
        Some(Skips { names, signatures })
    }
}

/// A list of string literals.
fn strings(value: &Expr) -> Option<Vec<String>> {
    let Expr::List(list) = value else { return None };
    list.elts
        .iter()
        .map(|e| match e {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
            _ => None,
        })
        .collect()
}

/// The type names of an operator list: name -> the field lists of its entries.
pub fn names(yaml: &str, skips: &Skips) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut out: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    // The entry being read: its name and fields, until its `tags` are known.
    let mut pending: Option<(String, Vec<String>)> = None;
    let mut flush = |pending: &mut Option<(String, Vec<String>)>| {
        if let Some((name, fields)) = pending.take() {
            out.entry(name).or_default().push(fields);
        }
    };
    for line in yaml.lines() {
        if let Some(schema) = line.strip_prefix("- func:") {
            flush(&mut pending);
            pending = entry(schema.trim(), skips);
        } else if let Some(tags) = line.strip_prefix("  tags:") {
            let tags = tags.split('#').next().unwrap_or("");
            let tags: Vec<&str> = tags
                .trim()
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .map(str::trim)
                .collect();
            if tags.contains(&"generated") && !tags.contains(&"view_copy") {
                pending = None;
            }
        } else if line.starts_with('-') {
            flush(&mut pending);
        }
    }
    flush(&mut pending);
    out
}

/// The type one schema registers: (name, fields), None for none.
fn entry(schema: &str, skips: &Skips) -> Option<(String, Vec<String>)> {
    // torchgen's `FunctionSchema.decl_re`: `NAME(ARGS) -> RETURNS`, the last `) -> `.
    let (decl, returns) = schema.rsplit_once(") -> ")?;
    let (op, args) = decl.split_once('(')?;
    let returns = returns
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(returns);
    let returns: Vec<&str> = returns.split(", ").collect();
    // `structseq_fieldnames`: two or more returns, all named (torchgen refuses a mix).
    let fields: Option<Vec<String>> = returns
        .iter()
        .map(|r| r.rsplit_once(' ').map(|(_, n)| n.to_string()))
        .collect();
    let fields = fields.filter(|_| returns.len() > 1)?;
    let base = op.split('.').next().unwrap_or(op);
    let mut keyword_only = false;
    let mut out_fn = false;
    for arg in args.split(", ") {
        if arg == "*" {
            keyword_only = true;
        } else if keyword_only {
            let ty = arg.rsplit_once(' ').map_or(arg, |(t, _)| t);
            out_fn |= ty.contains('!');
        }
    }
    let name = if out_fn {
        format!("{base}_out")
    } else {
        base.to_string()
    };
    let skipped =
        skips.names.iter().any(|r| r.is_match(&name)) || skips.signatures.contains(schema);
    (!skipped).then_some((name, fields))
}

/// The types of the release, when it ships the operator list and the generator.
pub fn read(tree: &SourceTree) -> Option<BTreeMap<String, Vec<Vec<String>>>> {
    let file = |path: &str| {
        tree.files
            .iter()
            .find(|f| f.path == path)
            .map(|f| String::from_utf8_lossy(&f.data))
    };
    let skips = Skips::read(&file(GENERATOR)?)?;
    Some(names(&file(OP_LIST)?, &skips))
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
    use crate::tests::tree;
    use apicompat_surface::Kind;

    /// The shape of 2.4's lists: a full-match pattern, a `*_forward` pattern, a signature.
    const GENERATOR_SRC: &str = "import re\n_SKIP_PYTHON_BINDINGS = [\n    \"alias\",\n    \
        \".*_forward\",\n    \"nonzero(_(out|numpy))?\",\n]\nSKIP_PYTHON_BINDINGS = [\n    \
        re.compile(rf\"^{pattern}$\") for pattern in _SKIP_PYTHON_BINDINGS\n]\n\
        SKIP_PYTHON_BINDINGS_SIGNATURES: list = [\n    \
        \"sig_skipped(Tensor self) -> (Tensor a, Tensor b)\",\n]\n";

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

    fn skips() -> Skips {
        Skips::read(GENERATOR_SRC).expect("lists")
    }

    #[test]
    fn reads_the_skip_lists() {
        let s = skips();
        assert_eq!(s.names.len(), 3);
        assert!(s.names[1].is_match("nll_loss_forward"));
        assert!(!s.names[1].is_match("nll_loss_forward_other"));
        assert!(s.names[2].is_match("nonzero_numpy") && !s.names[2].is_match("nonzero_x"));
        assert_eq!(s.signatures.len(), 1);
        assert!(Skips::read("SKIP_PYTHON_BINDINGS_SIGNATURES = []\n").is_none());
        assert!(Skips::read("_SKIP_PYTHON_BINDINGS = [name]\n").is_none());
    }

    #[test]
    fn names_are_the_cpp_names_of_named_returns() {
        let names = names(OP_LIST_SRC, &skips());
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
        let mut files = vec![
            ("torch/__init__.py", "from torch._C import *\n"),
            ("torch/_C/__init__.pyi", "def _f() -> None: ...\n"),
            (
                "torch/return_types.py",
                "import torch\n__all__ = []\nreturn_types = torch._C._return_types\n\
                 for name in dir(return_types):\n    if name.startswith('__'):\n        continue\n\
                 \x20   _attr = getattr(return_types, name)\n    globals()[name] = _attr\n",
            ),
            (OP_LIST, OP_LIST_SRC),
        ];
        if with_generator {
            files.push((GENERATOR, GENERATOR_SRC));
        }
        tree(&files)
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
