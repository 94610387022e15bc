//! Imports that fail inside the release: `try: from M import n / except ImportError: ...`
//! where nothing can provide `M`.
//!
//! torchvision 0.28 - 0.29's `torchvision/io/__init__.py` binds `read_video` only through
//! `try: from pytorch.vision.fb.io.video import read_video` (an fbcode-only module) with
//! `except ImportError: pass`; the wheel ships no `pytorch`, depends on no distribution of
//! that name, and the standard library has none: the import fails, so `torchvision.io.read_video`
//! is not there (on a plain install). Rule: a name bound only by a `from M import n` in the
//! body of a `try` whose handlers catch `ImportError` (`ModuleNotFoundError`, `Exception`,
//! `BaseException`, or bare), where the top-level name of `M` is neither a module of the
//! release, nor the name of a distribution it requires (`Requires-Dist`, normalized), nor a
//! standard-library module, nor private (`_name`), may not exist: it is unknown
//! (`Symbol::uncertain`), no longer present. What a handler binds makes it exist.
//!
//! Not absent: the same shape imports optional packages that a user may well have installed
//! (`pulp`, `apex`, `flash_attn` in colossalai; `monkeytype`, `tabulate` in torch; and
//! `PIL`, the import name of the `pillow` requirement, which the rule cannot match), and
//! nothing in the wheel tells an fbcode-only module from those.

use ruff_python_ast::{self as ast, Expr};

use crate::facts::{FileFacts, Value};
use crate::resolve::{HashMap, HashSet, ModuleInfo};

/// Whether a handler of `t` catches a failed import.
pub fn catches_import_error(t: &ast::StmtTry) -> bool {
    t.handlers.iter().any(|h| {
        let ast::ExceptHandler::ExceptHandler(h) = h;
        match h.type_.as_deref() {
            None => true,
            Some(Expr::Tuple(items)) => items.elts.iter().any(import_error),
            Some(e) => import_error(e),
        }
    })
}

fn import_error(e: &Expr) -> bool {
    let name = match e {
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => a.attr.as_str(),
        _ => return false,
    };
    matches!(
        name,
        "ImportError" | "ModuleNotFoundError" | "Exception" | "BaseException"
    )
}

/// Records the `from` imports bound since binding number `start` as fallible.
pub fn record(facts: &mut FileFacts, start: usize) {
    let found: Vec<(String, String)> = facts
        .bindings
        .get(start..)
        .unwrap_or_default()
        .iter()
        .filter_map(|(n, v)| match v {
            Value::From { module, .. } => Some((n.clone(), module.clone())),
            _ => None,
        })
        .collect();
    facts.fallible.extend(found);
}

/// The paths (`module.name`) bound only by such imports (`FileFacts::fallible`) of modules
/// nothing can provide: no other binding of the name in its module. `requires_dist`: the
/// release's requirements, as written.
pub fn failing_paths(
    modules: &HashMap<String, ModuleInfo>,
    requires_dist: &[String],
) -> Vec<String> {
    let roots: HashSet<&str> = modules
        .keys()
        .map(|m| m.split('.').next().unwrap_or(m))
        .collect();
    let deps: HashSet<String> = requires_dist
        .iter()
        .map(|r| normalize(distribution_name(r)))
        .collect();
    let fails = |module: &str| {
        let root = module.split('.').next().unwrap_or(module);
        !root.is_empty()
            && !root.starts_with('_')
            && !roots.contains(root)
            && !deps.contains(&normalize(root))
            && crate::stdlib::star_names(root).is_none()
    };
    let mut out = Vec::new();
    for (name, info) in modules {
        let failing: HashSet<(&str, &str)> = info
            .files
            .iter()
            .flat_map(|f| f.fallible.iter())
            .filter(|(_, m)| fails(m))
            .map(|(n, m)| (n.as_str(), m.as_str()))
            .collect();
        if failing.is_empty() {
            continue;
        }
        let names: HashSet<&str> = failing.iter().map(|(n, _)| *n).collect();
        for n in names {
            let otherwise_bound = info.files.iter().any(|f| {
                f.bindings.iter().any(|(b, v)| {
                    b == n
                        && !matches!(v, Value::From { module, .. } if failing.contains(&(n, module.as_str())))
                })
            });
            if !otherwise_bound {
                out.push(format!("{name}.{n}"));
            }
        }
    }
    out.sort();
    out
}

/// `torch (==2.9.0) ; extra == "x"` -> `torch`.
fn distribution_name(requirement: &str) -> &str {
    let end = requirement
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(requirement.len());
    &requirement[..end]
}

fn normalize(name: &str) -> String {
    name.to_ascii_lowercase().replace(['-', '.'], "_")
}

#[cfg(test)]
mod tests {
    use crate::tests::tree;

    /// torchvision 0.29's `torchvision/io/__init__.py`.
    #[test]
    fn imports_nothing_provides_bind_nothing() {
        let mut t = tree(&[
            ("torchvision/__init__.py", ""),
            ("torchvision/io/video.py", "def read_video(): ...\n"),
            (
                "torchvision/io/__init__.py",
                r#"
try:
    from pytorch.vision.fb.io.video import read_video, write_video
except ImportError:
    pass
try:
    from fbonly.io import read_file
except ImportError:
    read_file = None
try:
    from PIL import Image
    from numpy import ndarray
    from json import dumps
    from .video import read_video as local_read
except ImportError:
    pass
try:
    from other_pkg import kept
except ValueError:
    pass
"#,
            ),
        ]);
        t.metadata.requires_dist = vec!["numpy".into(), "pillow (>=5.3.0,!=8.3.*)".into()];
        let s = crate::extract(&t, "torchvision", "0.29.2");
        let uncertain = |n: &str| {
            let sym = &s.symbols[&format!("torchvision.io.{n}")];
            sym.uncertain && !sym.evidence
        };
        assert!(uncertain("read_video") && uncertain("write_video"));
        // What the handler binds makes it exist.
        assert!(!uncertain("read_file"));
        // A dependency (numpy), the standard library, the release itself, a handler that
        // does not catch ImportError: as before.
        for n in ["ndarray", "dumps", "local_read", "kept"] {
            assert!(!uncertain(n), "{n}");
        }
        // `PIL` is the import name of the `pillow` requirement, which the rule cannot see:
        // unknown, never absent.
        assert!(uncertain("Image"));
    }
}
