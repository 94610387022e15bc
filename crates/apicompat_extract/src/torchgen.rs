//! torchgen's Python bindings of the operator list, read from the wheel's own files.
//!
//! torch's wheel ships the operator list (`native_functions.yaml`, also read by
//! `crate::aten_ops`) and the generator that binds it to Python
//! (`gen_python_functions.py`). The generator binds an entry unless
//! `should_generate_py_binding` refuses it: its `tags` have `generated` without `view_copy`
//! (the `autogen:` variants are not `- func:` entries at all), its C++ name (`cpp.name`: the
//! base name, `_out` when a keyword-only argument is written to) fully matches a pattern of
//! `_SKIP_PYTHON_BINDINGS`, or its schema is one of `SKIP_PYTHON_BINDINGS_SIGNATURES`. Those
//! lists and the `python_module` values it binds modules for (`f.python_module == "fft"`)
//! are read from the generator's source. Users: `crate::return_types`,
//! `crate::native_modules`.

use std::collections::BTreeSet;

use ruff_python_ast::{CmpOp, Expr, PySourceType, Stmt};

use apicompat_archive::SourceTree;

pub const OP_LIST: &str = "torchgen/packaged/ATen/native/native_functions.yaml";
pub const GENERATOR: &str = "torchgen/packaged/autograd/gen_python_functions.py";

/// What the generator's source says.
#[derive(Debug, Default)]
pub struct Generator {
    skip_names: Vec<regex::Regex>,
    skip_signatures: BTreeSet<String>,
    /// The `python_module` values it binds a module for.
    pub modules: BTreeSet<String>,
}

impl Generator {
    /// `_SKIP_PYTHON_BINDINGS` (required) and `SKIP_PYTHON_BINDINGS_SIGNATURES`: module-level
    /// lists of string literals; the modules: `return f.python_module == "NAME"` in its
    /// functions. None when the first list is missing or any pattern is not a literal or not a
    /// regex the `regex` crate takes.
    pub fn read(source: &str) -> Option<Generator> {
        let parsed = ruff_python_parser::parse_unchecked_source(source, PySourceType::Python);
        let mut names = None;
        let mut g = Generator::default();
        for stmt in parsed.suite() {
            let (target, value) = match stmt {
                Stmt::Assign(a) if a.targets.len() == 1 => (&a.targets[0], &*a.value),
                Stmt::AnnAssign(a) => match &a.value {
                    Some(v) => (&*a.target, &**v),
                    None => continue,
                },
                Stmt::FunctionDef(f) => {
                    g.modules.extend(f.body.iter().filter_map(python_module));
                    continue;
                }
                _ => continue,
            };
            let Expr::Name(target) = target else { continue };
            match target.id.as_str() {
                "_SKIP_PYTHON_BINDINGS" => names = Some(strings(value)?),
                "SKIP_PYTHON_BINDINGS_SIGNATURES" => g.skip_signatures.extend(strings(value)?),
                _ => {}
            }
        }
        g.skip_names = names?
            .iter()
            // As torchgen compiles them: `re.compile(rf"^{pattern}$")`, used with `match`.
            .map(|p| regex::Regex::new(&format!("^{p}$")).ok())
            .collect::<Option<Vec<_>>>()?;
        Some(g)
    }

    /// `should_generate_py_binding`.
    fn binds(&self, e: &Entry) -> bool {
        let generated = e.tags.iter().any(|t| t == "generated");
        if generated && !e.tags.iter().any(|t| t == "view_copy") {
            return false;
        }
        let name = e.cpp_name();
        !self.skip_names.iter().any(|r| r.is_match(&name))
            && !self.skip_signatures.contains(&e.schema)
    }
}

/// `return f.python_module == "NAME"`: NAME.
fn python_module(stmt: &Stmt) -> Option<String> {
    let Stmt::Return(r) = stmt else { return None };
    let Some(Expr::Compare(c)) = r.value.as_deref() else {
        return None;
    };
    let is_attr = matches!(&*c.left, Expr::Attribute(a) if a.attr.as_str() == "python_module");
    match (&*c.ops, &*c.comparators) {
        ([CmpOp::Eq], [Expr::StringLiteral(s)]) if is_attr => Some(s.value.to_str().to_string()),
        _ => None,
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

/// One `- func:` entry of the operator list.
#[derive(Debug, Clone, Default)]
pub struct Entry {
    /// `NAME[.OVERLOAD](ARGS) -> RETURNS`.
    pub schema: String,
    pub python_module: Option<String>,
    tags: Vec<String>,
}

impl Entry {
    /// torchgen's `FunctionSchema.decl_re`: (`NAME[.OVERLOAD]`, `ARGS`, `RETURNS`), split at
    /// the last `) -> `.
    pub fn parts(&self) -> Option<(&str, &str, &str)> {
        let (decl, returns) = self.schema.rsplit_once(") -> ")?;
        let (op, args) = decl.split_once('(')?;
        Some((op, args, returns))
    }

    /// `NAME` (torchgen's `BaseOperatorName`: `add_` for in-place): the Python name that all
    /// overloads share.
    pub fn base(&self) -> &str {
        let op = self.schema.split('(').next().unwrap_or("");
        op.split('.').next().unwrap_or(op).trim()
    }

    /// `cpp.name`: the base name, plus `_out` when a keyword-only argument (after `*`) is
    /// written to (`Tensor(a!)`).
    pub fn cpp_name(&self) -> String {
        let args = self.parts().map_or("", |(_, args, _)| args);
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
        if out_fn {
            format!("{}_out", self.base())
        } else {
            self.base().to_string()
        }
    }
}

/// The entries of an operator list, in order.
pub fn entries(yaml: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    // Whether the lines being read belong to the last entry.
    let mut inside = false;
    for line in yaml.lines() {
        let value = |key: &str| {
            let v = line.strip_prefix(key)?.split('#').next().unwrap_or("");
            Some(v.trim().to_string())
        };
        if let Some(schema) = value("- func:") {
            out.push(Entry {
                schema,
                ..Entry::default()
            });
            inside = true;
        } else if line.starts_with('-') {
            inside = false;
        } else if let (true, Some(e)) = (inside, out.last_mut()) {
            if let Some(m) = value("  python_module:") {
                e.python_module = Some(m);
            } else if let Some(tags) = value("  tags:") {
                let tags = tags.trim_start_matches('[').trim_end_matches(']');
                e.tags = tags.split(',').map(|t| t.trim().to_string()).collect();
            }
        }
    }
    out
}

/// The entries the generator binds, and the modules it binds them into.
#[derive(Debug, Default)]
pub struct Bound {
    pub entries: Vec<Entry>,
    pub modules: BTreeSet<String>,
}

/// What the release's generator binds, when it ships the operator list and the generator.
pub fn read(tree: &SourceTree) -> Option<Bound> {
    let file = |path: &str| {
        tree.files
            .iter()
            .find(|f| f.path == path)
            .map(|f| String::from_utf8_lossy(&f.data))
    };
    let generator = Generator::read(&file(GENERATOR)?)?;
    Some(bound(&file(OP_LIST)?, generator))
}

/// The entries of `yaml` that `generator` binds.
pub fn bound(yaml: &str, generator: Generator) -> Bound {
    let mut entries = entries(yaml);
    entries.retain(|e| generator.binds(e));
    Bound {
        entries,
        modules: generator.modules,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The shape of 2.4's generator: a full-match pattern, a `*_forward` pattern, a signature,
    /// two module predicates.
    pub const GENERATOR_SRC: &str = "import re\n_SKIP_PYTHON_BINDINGS = [\n    \"alias\",\n    \
        \".*_forward\",\n    \"nonzero(_(out|numpy))?\",\n]\nSKIP_PYTHON_BINDINGS = [\n    \
        re.compile(rf\"^{pattern}$\") for pattern in _SKIP_PYTHON_BINDINGS\n]\n\
        SKIP_PYTHON_BINDINGS_SIGNATURES: list = [\n    \
        \"sig_skipped(Tensor self) -> (Tensor a, Tensor b)\",\n]\n\
        def is_py_fft_function(f: NativeFunction) -> bool:\n    \
        return f.python_module == \"fft\"\n\
        def is_py_special_function(f: NativeFunction) -> bool:\n    \
        return f.python_module == \"special\"\n\
        def is_py_torch_function(f: NativeFunction) -> bool:\n    \
        return f.python_module is None and Variant.function in f.variants\n";

    /// A torch release with `torch._C`, `files`, the operator list and, if asked, the generator.
    pub fn release(files: &[(&str, &str)], op_list: &str, with_generator: bool) -> SourceTree {
        let mut all = vec![
            ("torch/__init__.py", "from torch._C import *\n"),
            ("torch/_C/__init__.pyi", "def _f() -> None: ...\n"),
            (OP_LIST, op_list),
        ];
        all.extend_from_slice(files);
        if with_generator {
            all.push((GENERATOR, GENERATOR_SRC));
        }
        crate::tests::tree(&all)
    }

    pub fn generator() -> Generator {
        Generator::read(GENERATOR_SRC).expect("lists")
    }

    #[test]
    fn reads_the_skip_lists_and_modules() {
        let g = generator();
        assert_eq!(g.skip_names.len(), 3);
        assert!(g.skip_names[1].is_match("nll_loss_forward"));
        assert!(!g.skip_names[1].is_match("nll_loss_forward_other"));
        assert!(
            g.skip_names[2].is_match("nonzero_numpy") && !g.skip_names[2].is_match("nonzero_x")
        );
        assert_eq!(g.skip_signatures.len(), 1);
        assert_eq!(g.modules.iter().collect::<Vec<_>>(), ["fft", "special"]);
        assert!(Generator::read("SKIP_PYTHON_BINDINGS_SIGNATURES = []\n").is_none());
        assert!(Generator::read("_SKIP_PYTHON_BINDINGS = [name]\n").is_none());
    }

    #[test]
    fn entries_carry_module_and_tags_and_the_rule_drops_some() {
        let yaml = "\
- func: fft_fft.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  python_module: fft  # a comment
  variants: function
- func: fft_gen(Tensor self) -> Tensor
  python_module: fft
  tags: [generated, core]
- func: special_forward(Tensor self) -> Tensor
  python_module: special

- func: nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
- func: add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
";
        let all = entries(yaml);
        assert_eq!(all.len(), 5);
        assert_eq!(all[0].python_module.as_deref(), Some("fft"));
        assert_eq!(
            (all[0].base(), all[0].cpp_name().as_str()),
            ("fft_fft", "fft_fft_out")
        );
        assert_eq!(all[1].tags, ["generated", "core"]);
        assert_eq!(all[3].python_module, None);
        assert_eq!(
            (all[4].base(), all[4].cpp_name().as_str()),
            ("add_", "add_")
        );
        let kept = bound(yaml, generator()).entries;
        let kept: Vec<&str> = kept.iter().map(|e| e.schema.as_str()).collect();
        assert_eq!(
            kept,
            [
                "fft_fft.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                "add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"
            ]
        );
    }
}
