//! Lazy modules of a table the module writes out (`crate::lazy`), on the shape of
//! transformers 4.30 - 4.50's `__init__.py`.

use apicompat_surface::Kind;

use crate::extract;
use crate::tests::tree;

const INIT: &str = r#"
import sys
from typing import TYPE_CHECKING
from .utils import OptionalDependencyNotAvailable, _LazyModule, is_torch_available

__version__ = "4.30.2"
_import_structure = {
    "models": [],
    "models.albert": ["AlbertConfig"],
    "utils": ["is_torch_available"],
}
try:
    if not is_torch_available():
        raise OptionalDependencyNotAvailable()
except OptionalDependencyNotAvailable:
    from .utils import dummy_pt_objects
    _import_structure["utils.dummy_pt_objects"] = [
        name for name in dir(dummy_pt_objects) if not name.startswith("_")
    ]
else:
    _import_structure["models.albert"].extend(["AlbertModel"])
    _import_structure["models.albert"].append("AlbertForMaskedLM")
    _import_structure["activations"] = []
if TYPE_CHECKING:
    from .models.albert import AlbertConfig
else:
    sys.modules[__name__] = _LazyModule(
        __name__,
        globals()["__file__"],
        _import_structure,
        module_spec=__spec__,
        extra_objects={"__version__": __version__},
    )
"#;

fn files(init: &str) -> Vec<(&'static str, String)> {
    vec![
        ("pkg/__init__.py", init.to_string()),
        ("pkg/activations.py", String::new()),
        ("pkg/models/__init__.py", String::new()),
        (
            "pkg/models/albert/__init__.py",
            "from .modeling import AlbertModel, AlbertForMaskedLM, AlbertConfig\n".into(),
        ),
        (
            "pkg/models/albert/modeling.py",
            "class AlbertConfig: ...\nclass AlbertModel: ...\nclass AlbertForMaskedLM: ...\n"
                .into(),
        ),
        (
            "pkg/utils/__init__.py",
            "class OptionalDependencyNotAvailable(Exception): ...\nclass _LazyModule: ...\ndef is_torch_available(): ...\n".into(),
        ),
        ("pkg/utils/dummy_pt_objects.py", "class AlbertModel: ...\n".into()),
    ]
}

#[test]
fn a_lazy_module_of_a_written_table_is_closed() {
    let f = files(INIT);
    let refs: Vec<(&str, &str)> = f.iter().map(|(p, s)| (*p, s.as_str())).collect();
    let s = extract(&tree(&refs), "pkg", "1.0");
    let sym = |p: &str| s.symbols.get(p);
    assert!(!sym("pkg").unwrap().open, "{:?}", sym("pkg"));
    assert_eq!(sym("pkg.AlbertModel").map(|s| s.kind()), Some(Kind::Class));
    assert_eq!(
        sym("pkg.AlbertForMaskedLM")
            .and_then(|s| s.canonical.clone())
            .as_deref(),
        Some("pkg.models.albert.modeling.AlbertForMaskedLM")
    );
    assert_eq!(
        sym("pkg.is_torch_available").map(|s| s.kind()),
        Some(Kind::Function)
    );
    assert!(sym("pkg.__version__").is_some());
    // Names the table does not list are not there.
    assert!(sym("pkg.Qwen3Model").is_none());
}

/// A table changed in a way not read here leaves the module open.
#[test]
fn a_table_changed_otherwise_leaves_it_open() {
    for change in [
        "_import_structure.update(more)\n",
        "_import_structure[key] = [\"X\"]\n",
        "_import_structure[\"models.albert\"].extend(names)\n",
        "for k in keys:\n    _import_structure[k] = []\n",
        "for k in keys:\n    if k:\n        _import_structure[k] = []\n",
    ] {
        let init = INIT.replace("if TYPE_CHECKING:", &format!("{change}if TYPE_CHECKING:"));
        let f = files(&init);
        let refs: Vec<(&str, &str)> = f.iter().map(|(p, s)| (*p, s.as_str())).collect();
        let s = extract(&tree(&refs), "pkg", "1.0");
        assert!(s.symbols["pkg"].open, "{change}");
    }
}

/// transformers 4.52+: `define_import_structure` reads the `__all__` of every file under a
/// directory (`crate::lazy_tree`).
fn tree_files(model_init: &str, top_init: &str) -> Vec<(&'static str, String)> {
    vec![
        ("pkg/__init__.py", top_init.to_string()),
        (
            "pkg/utils/__init__.py",
            "class _LazyModule: ...\ndef define_import_structure(path, prefix=None): ...\n".into(),
        ),
        ("pkg/models/__init__.py", model_init.to_string()),
        ("pkg/models/bert/__init__.py", MODEL_INIT.to_string()),
        (
            "pkg/models/bert/modeling_bert.py",
            "__all__ = [\"BertModel\"]\nclass BertModel: ...\nclass _Helper: ...\n".into(),
        ),
        (
            // Not declared for type checkers; the lazy module still lists it.
            "pkg/models/bert/image_processing_bert.py",
            "__all__ = [\"BertImageProcessor\"]\nclass BertImageProcessor: ...\n".into(),
        ),
        (
            "pkg/quantization.py",
            "class QuantConfig: ...\nclass OtherConfig: ...\n".into(),
        ),
    ]
}

const MODEL_INIT: &str = r#"
from typing import TYPE_CHECKING
from ...utils import _LazyModule
from ...utils import define_import_structure

if TYPE_CHECKING:
    from .modeling_bert import *
    from .processing_bert import *
else:
    import sys
    _file = globals()["__file__"]
    sys.modules[__name__] = _LazyModule(__name__, _file, define_import_structure(_file), module_spec=__spec__)
"#;

/// `models/__init__.py`: the same, star-importing each model's package.
fn models_init() -> String {
    MODEL_INIT.replace("...utils", "..utils").replace(
        "    from .modeling_bert import *\n    from .processing_bert import *\n",
        "    from .bert import *\n",
    )
}

const TOP_INIT: &str = r#"
from pathlib import Path
from typing import TYPE_CHECKING
from .utils import _LazyModule
from .utils import define_import_structure

__version__ = "4.52.4"
_import_structure = {"utils": ["define_import_structure"], "quantization": ["QuantConfig"]}
_import_structure["quantization"].append("OtherConfig")
_ALIASES = {"old_utils": "utils"}
if TYPE_CHECKING:
    from .utils import define_import_structure
    from .models import *
else:
    import sys
    _import_structure = {k: set(v) for k, v in _import_structure.items()}
    for _alias in _ALIASES:
        _import_structure.setdefault(_alias, set())
    import_structure = define_import_structure(Path(__file__).parent / "models", prefix="models")
    import_structure[frozenset({})].update(_import_structure)
    sys.modules[__name__] = _LazyModule(
        __name__,
        globals()["__file__"],
        import_structure,
        module_spec=__spec__,
        extra_objects={"__version__": __version__},
    )
"#;

#[test]
fn a_lazy_module_of_its_own_directory_is_closed() {
    let f = tree_files(&models_init(), TOP_INIT);
    let refs: Vec<(&str, &str)> = f.iter().map(|(p, s)| (*p, s.as_str())).collect();
    let s = extract(&tree(&refs), "pkg", "1.0");
    let sym = |p: &str| s.symbols.get(p);
    for module in ["pkg", "pkg.models", "pkg.models.bert"] {
        assert!(!sym(module).unwrap().open, "{module}: {:?}", sym(module));
        // The `__all__` of each file, declared for type checkers or not.
        assert_eq!(
            sym(&format!("{module}.BertModel")).map(|s| s.kind()),
            Some(Kind::Class),
            "{module}"
        );
        assert_eq!(
            sym(&format!("{module}.BertImageProcessor")).map(|s| s.kind()),
            Some(Kind::Class),
            "{module}"
        );
        // Names no file lists are not there (a removed class).
        assert!(sym(&format!("{module}.AdamW")).is_none(), "{module}");
    }
    assert!(sym("pkg.define_import_structure").is_some());
    // The written table merged into the lazy one: listed, not declared for type checkers.
    assert_eq!(sym("pkg.QuantConfig").map(|s| s.kind()), Some(Kind::Class));
    assert_eq!(sym("pkg.OtherConfig").map(|s| s.kind()), Some(Kind::Class));
    assert!(sym("pkg.__version__").is_some());
}

#[test]
fn a_lazy_module_of_another_table_stays_open() {
    let read = |init: &str, top: &str| {
        let mut f = tree_files(&models_init(), top);
        f[3].1 = init.to_string();
        let refs: Vec<(&str, &str)> = f.iter().map(|(p, s)| (*p, s.as_str())).collect();
        extract(&tree(&refs), "pkg", "1.0")
    };
    // Nothing declared for type checkers (transformers 5.24's `models/deprecated`): the
    // directory's modules still say what the table lists.
    let undeclared = MODEL_INIT.replace(
        "if TYPE_CHECKING:\n    from .modeling_bert import *\n    from .processing_bert import *\nelse:",
        "if True:",
    );
    let s = read(&undeclared, TOP_INIT);
    assert!(!s.symbols["pkg.models.bert"].open);
    assert!(s.symbols.contains_key("pkg.models.bert.BertModel"));
    // A table read from somewhere else than the module's own directory.
    let elsewhere = MODEL_INIT.replace(
        "define_import_structure(_file)",
        "define_import_structure(other)",
    );
    assert!(read(&elsewhere, TOP_INIT).symbols["pkg.models.bert"].open);
    // A written table merged in a way not read: open.
    let unread = TOP_INIT.replace(
        "_import_structure[\"quantization\"].append(\"OtherConfig\")",
        "_import_structure[key].append(\"OtherConfig\")",
    );
    assert!(read(MODEL_INIT, &unread).symbols["pkg"].open);
}
