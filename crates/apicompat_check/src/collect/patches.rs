//! Patches of a package's attribute: `if np.__version__ >= "2.0": np.NaN = np.nan`, `if not
//! hasattr(np, "NaN"): np.NaN = np.nan`, an unconditional `mod.f = g`, `setattr(mod, "f", g)`
//! or pytest's `monkeypatch.setattr(mod, "f", g, raising=False)`. After the patch has run, a
//! read of the path in the same scope finds the name wherever the patch ran, so such a read
//! fails only on releases where the patch's condition does not hold (and the package lacks the
//! name): the read runs under the negation of that condition.
//!
//! Reads that follow a module-level patch: those inside functions of the file (they run once
//! the module is imported) and the module-level statements after it. Reads that follow a patch
//! in a function: the later statements of the same function. A read before the patch, or in
//! the patch's own statement (`torch.load = wrap(torch.load)`), reads the original and is
//! judged as usual; so are reads in other files and other functions, which may run before the
//! patch. A patch with no condition counts only as a statement directly in the module's or the
//! function's body (one under a test the walk does not understand may not run).

use ruff_python_ast::Stmt;
use ruff_text_size::{Ranged, TextSize};

use super::{HashSet, PathTest, Use, UseKind, MAX_DEPTH};
use crate::model::Reach;
use crate::versions::Pred;

/// Patches looked at, at most, per file (each is compared with every use of the file).
const MAX_PATCHES: usize = 64;

/// A patch: the path it assigns, where, and the conditions under which the read of the path
/// is still judged (the negation of the patch's own).
struct Patch {
    path: String,
    stmt_start: TextSize,
    /// The function the patch is in (`None`: module level).
    func: Option<u32>,
    unless: Unless,
}

enum Unless {
    /// The patch always runs: later reads never fail.
    Never,
    /// Reads are judged only where this version condition holds.
    Version(String, Pred),
    /// Reads are judged only where this path test holds.
    Test(PathTest),
}

/// Adds to every read that follows a patch of its path the negation of the patch's condition
/// (see the module documentation). `suite` is the file's module body.
pub(super) fn apply(uses: &mut [Use], suite: &[Stmt]) {
    if !uses.iter().any(|u| u.kind == UseKind::Store) {
        return;
    }
    let mut direct = HashSet::default();
    direct_statements(suite, &mut direct, 0);
    let patches: Vec<Patch> = uses
        .iter()
        .filter(|u| u.kind == UseKind::Store)
        .filter(|u| u.func.is_some() || u.reach != Reach::CallTime)
        .filter_map(|u| patch_of(u, &direct))
        .take(MAX_PATCHES)
        .collect();
    if patches.is_empty() {
        return;
    }
    for u in uses.iter_mut() {
        if matches!(u.kind, UseKind::Store) {
            continue;
        }
        for p in &patches {
            let under = u.path == p.path
                || (u.path.starts_with(&p.path)
                    && u.path.as_bytes().get(p.path.len()) == Some(&b'.'));
            let after = match p.func {
                None => u.func.is_some() || u.stmt_start > p.stmt_start,
                Some(f) => u.func == Some(f) && u.stmt_start > p.stmt_start,
            };
            if !under || !after {
                continue;
            }
            match &p.unless {
                Unless::Never => u.requires.push(PathTest {
                    path: p.path.clone(),
                    present: true,
                    instance: true,
                    alternatives: Vec::new(),
                }),
                Unless::Version(root, pred) => u.versions.push((root.clone(), pred.clone())),
                Unless::Test(t) => u.requires.push(t.clone()),
            }
        }
    }
}

/// The starts of the statements directly in the module's body or in a function's body (not
/// under an `if`, a loop, a `try` or a `with`), through nested definitions.
fn direct_statements(body: &[Stmt], out: &mut HashSet<TextSize>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for s in body {
        out.insert(s.start());
        match s {
            Stmt::FunctionDef(f) => direct_statements(&f.body, out, depth + 1),
            Stmt::ClassDef(c) => {
                for m in &c.body {
                    if let Stmt::FunctionDef(f) = m {
                        direct_statements(&f.body, out, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The patch a store is, if its condition can be negated: no condition (a statement directly
/// in its body), version conditions on one package, or a single test of a path.
fn patch_of(u: &Use, direct: &HashSet<TextSize>) -> Option<Patch> {
    // A test that a module the path lies in exists (`hasattr(transformers.activations, "X")`
    // reads `transformers.activations`) holds wherever a read of the path runs at all.
    let requires: Vec<PathTest> = u
        .requires
        .iter()
        .filter(|t| {
            !(t.present
                && t.alternatives.is_empty()
                && u.path.starts_with(&t.path)
                && u.path.as_bytes().get(t.path.len()) == Some(&b'.'))
        })
        .cloned()
        .collect();
    let unless = match (u.versions.as_slice(), requires.as_slice()) {
        ([], []) if direct.contains(&u.stmt_start) => Unless::Never,
        ([], []) => return None,
        (versions, []) => {
            let root = &versions[0].0;
            if versions.iter().any(|(r, _)| r != root) {
                return None;
            }
            let all: Vec<Pred> = versions.iter().map(|(_, p)| p.clone()).collect();
            let cond = if all.len() == 1 {
                all.into_iter().next()?
            } else {
                Pred::And(all)
            };
            Unless::Version(root.clone(), Pred::Not(Box::new(cond)))
        }
        ([], [t]) if t.alternatives.is_empty() => Unless::Test(PathTest {
            path: t.path.clone(),
            present: !t.present,
            instance: t.instance,
            alternatives: Vec::new(),
        }),
        _ => return None,
    };
    Some(Patch {
        path: u.path.clone(),
        stmt_start: u.stmt_start,
        func: u.func,
        unless,
    })
}

/// Whether the project's main requirements install a setuptools that supplies `distutils`
/// where the standard library has none: setuptools 60 and later install `_distutils_hack`
/// through a `.pth` file, which loads setuptools' copy for `import distutils` at interpreter
/// start (`SETUPTOOLS_USE_DISTUTILS=local`, the default); see [`supplies_distutils`].
pub fn declares_distutils_shim(declared: &apicompat_requirements::Declared) -> bool {
    declared.requirements.iter().any(|r| {
        r.name == "setuptools"
            && !r.is_constraint
            && r.marker.is_none()
            && r.group.is_none()
            && r.url.is_none()
            && supplies_distutils(&r.specifier)
    })
}

/// Whether a requirement on setuptools with this specifier installs one that supplies
/// `distutils` on Python 3.12 and later: it admits 60 or later. A setuptools before 60 uses
/// the standard library's `distutils` by default and cannot work where there is none, so an
/// unbounded `setuptools` there is a newer one.
pub fn supplies_distutils(spec: &apicompat_requirements::VersionSpecifiers) -> bool {
    use apicompat_requirements::{satisfies, Version};
    [Version::new([60]), Version::new([80])]
        .iter()
        .any(|v| satisfies(spec, v))
}

/// [`setuptools_distutils`] in a setup script: every use.
pub fn setup_script_distutils(uses: &mut [Use], suite: &[Stmt]) {
    setuptools_distutils(uses, suite, true);
}

/// Importing setuptools installs its copy of `distutils` (setuptools >= 60, `_distutils_hack`),
/// so on Python 3.12 and later, where the standard library has none, `distutils` imports after
/// a module-level `import setuptools` / `from setuptools import ...` in the same file work:
/// each such use needs `distutils` only where the standard library has it. (A rule that knows
/// one package, setuptools; `docs/check-guards.md`.) A setup script (`setup.py`) that imports
/// setuptools runs only in a setuptools build, where setuptools' `distutils-precedence.pth`
/// hook provides `distutils` from the interpreter's start: there every `distutils` use counts,
/// before the import too (bitsandbytes' `setup.py`, `docs/false-alarm-study-15.md`, F-C).
pub(super) fn setuptools_distutils(uses: &mut [Use], suite: &[Stmt], setup_script: bool) {
    let imports_setuptools = |s: &Stmt| match s {
        Stmt::Import(i) => i
            .names
            .iter()
            .any(|a| a.name.as_str().split('.').next() == Some("setuptools")),
        Stmt::ImportFrom(i) => {
            i.level == 0
                && i.module
                    .as_ref()
                    .is_some_and(|m| m.as_str().split('.').next() == Some("setuptools"))
        }
        _ => false,
    };
    // At module level, or in the body of a module-level `try` (`try: from setuptools import
    // setup` `except ImportError: from distutils.core import setup`, HunyuanDiT's
    // `IndexKits/setup.py`, docs/false-alarm-study-40.md, F-X).
    let Some(at) = suite
        .iter()
        .flat_map(|s| match s {
            Stmt::Try(t) => t.body.iter().collect::<Vec<_>>(),
            s => vec![s],
        })
        .find(|s| imports_setuptools(s))
        .map(Ranged::start)
    else {
        return;
    };
    for u in uses.iter_mut() {
        let distutils = u.path == "distutils" || u.path.starts_with("distutils.");
        let test = PathTest {
            path: "distutils".to_string(),
            present: true,
            instance: false,
            alternatives: Vec::new(),
        };
        if distutils
            && (setup_script || u.func.is_some() || u.stmt_start > at)
            && !u.requires.contains(&test)
        {
            u.requires.push(test);
        }
    }
}
