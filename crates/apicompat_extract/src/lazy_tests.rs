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
