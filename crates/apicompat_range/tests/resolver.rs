//! `range` on two small packages indexed in memory: holes and upper bounds in one package's
//! set, Requires-Dist between the packages, Requires-Python, declared requirements.

use std::path::{Path, PathBuf};

use apicompat_index::{Catalog, IndexBuilder};
use apicompat_range::{range, render, RangeOptions};
use apicompat_surface::{Kind, ReleaseMeta, Surface, Symbol};

fn sym(kind: Kind) -> Symbol {
    Symbol {
        kind: Some(kind),
        ..Symbol::default()
    }
}

fn release(
    package: &str,
    version: &str,
    names: &[&str],
    requires: &[&str],
    python: Option<&str>,
) -> Surface {
    let mut symbols = std::collections::BTreeMap::new();
    symbols.insert(package.to_string(), sym(Kind::Module));
    for n in names {
        symbols.insert(format!("{package}.{n}"), sym(Kind::Function));
    }
    Surface {
        package: package.into(),
        version: version.into(),
        meta: ReleaseMeta {
            requires_dist: requires.iter().map(|s| s.to_string()).collect(),
            requires_python: python.map(str::to_string),
            ..ReleaseMeta::default()
        },
        symbols,
        problems: Vec::new(),
    }
}

fn catalog() -> Catalog {
    let mut alpha = IndexBuilder::new("alpha");
    for s in [
        release("alpha", "1.0.0", &["old"], &[], None),
        release("alpha", "1.1.0", &["old", "feature"], &[], None),
        release("alpha", "1.2.0", &["feature"], &[], None),
        release("alpha", "2.0.0", &["old", "feature"], &[], None),
        release("alpha", "2.1.0", &["feature"], &[], None),
    ] {
        alpha.add(&s).unwrap();
    }
    let mut beta = IndexBuilder::new("beta");
    for s in [
        release(
            "beta",
            "1.0.0",
            &["x"],
            &["alpha>=2.0", "numpy"],
            Some(">=3.8"),
        ),
        release(
            "beta",
            "2.0.0",
            &["x"],
            &[
                "alpha<1.2; python_version >= '3.0'",
                "alpha>=9; extra == 'dev'",
            ],
            Some(">=3.8"),
        ),
        release("beta", "3.0.0", &["x"], &["alpha>=2.1"], Some(">=3.12")),
    ] {
        beta.add(&s).unwrap();
    }
    let a: &'static [u8] = Box::leak(alpha.finish().unwrap().into_boxed_slice());
    let b: &'static [u8] = Box::leak(beta.finish().unwrap().into_boxed_slice());
    let embedded: &'static [(&'static str, &'static [u8])] =
        Box::leak(vec![("alpha", a), ("beta", b)].into_boxed_slice());
    Catalog::open(embedded, None)
}

mod common;

fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    common::project("range-fixtures", name, files)
}

fn options(dir: &Path) -> RangeOptions {
    RangeOptions {
        paths: vec![dir.to_path_buf()],
        project: Some(dir.to_path_buf()),
        ..RangeOptions::default()
    }
}

#[test]
fn holes_upper_bounds_and_requires_dist() {
    let catalog = catalog();
    let dir = project(
        "two",
        &[
            ("app.py", "from alpha import old, feature\nimport beta\n\ndef f():\n    return beta.x()\n"),
            ("pyproject.toml", "[project]\nname = 'app'\nrequires-python = '>=3.9'\ndependencies = ['beta>=2.0']\n"),
        ],
    );
    let report = range(&catalog, &options(&dir)).unwrap();
    let alpha = &report.packages[0];
    assert_eq!(alpha.package, "alpha");
    // A hole: 1.2.0 lacks `old`; 2.1.0 lacks it too (an upper bound).
    assert_eq!(alpha.needs.ranges, ["1.1.0", "2.0.0"]);
    assert_eq!(
        alpha.requirement.as_deref(),
        Some("alpha>=1.1,!=1.2.0,<2.1")
    );
    let kinds: Vec<(&str, &str, &str)> = alpha
        .bounds
        .iter()
        .filter(|b| b.scope == "all")
        .map(|b| (b.kind, b.version.as_str(), b.uses[0].symbol.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("lower", "1.1.0", "alpha.feature"),
            ("upper", "1.2.0", "alpha.old"),
            ("lower", "2.0.0", "alpha.old"),
            ("upper", "2.1.0", "alpha.old"),
        ]
    );
    assert!(alpha.declared.is_empty());
    let beta = &report.packages[1];
    assert_eq!(beta.needs.ranges, ["1.0.0 - 3.0.0"]);
    assert_eq!(beta.declared[0].requirement, "beta>=2.0");
    assert!(beta.admitted_broken.is_empty());
    assert_eq!(beta.excluded_working.releases, ["1.0.0"]);

    // Jointly: beta 3.0.0 needs Python 3.12 (the project supports 3.9); beta 1.0.0 needs
    // alpha 2.0.0, beta 2.0.0 alpha 1.1.0 (the `extra == 'dev'` requirement does not apply).
    let j = &report.joint;
    assert!(j.possible);
    let a = j.packages.iter().find(|p| p.package == "alpha").unwrap();
    let b = j.packages.iter().find(|p| p.package == "beta").unwrap();
    assert_eq!(a.releases, ["1.1.0", "2.0.0"]);
    assert_eq!(b.releases, ["1.0.0", "2.0.0"]);
    assert_eq!(b.excluded.len(), 1);
    assert!(
        b.excluded[0].reason.contains("Python `>=3.12`"),
        "{:?}",
        b.excluded
    );
    let accepts: Vec<(String, String)> = b
        .accepts
        .iter()
        .map(|x| (x.ranges.join(","), x.with.join(",")))
        .collect();
    assert_eq!(
        accepts,
        [
            ("1.0.0".to_string(), "2.0.0".to_string()),
            ("2.0.0".to_string(), "1.1.0".to_string())
        ]
    );
    assert_eq!(
        report.recommended,
        ["alpha>=1.1,!=1.2.0,<2.1", "beta>=1.0,<3.0"]
    );

    // Within `beta>=2.0`: only beta 2.0.0, so only alpha 1.1.0.
    let d = report.joint_declared.as_ref().unwrap();
    assert!(d.possible);
    let a = d.packages.iter().find(|p| p.package == "alpha").unwrap();
    assert_eq!(a.releases, ["1.1.0"]);

    let text = render::range_text(&report, false, false);
    assert!(
        text.contains("needs < 1.2.0 because of `alpha.old` at app.py:1, import-time"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&render::range_json(&report)).unwrap();
    assert_eq!(json["packages"][0]["needs"]["ranges"][1], "2.0.0");
    assert_eq!(json["recommended"][1], "beta>=1.0,<3.0");
}

#[test]
fn no_combination_says_why() {
    let catalog = catalog();
    // `feature` only, with beta declared `==3.0.0`: beta 3.0.0 needs alpha>=2.1 and Python
    // 3.12, but the project supports 3.9.
    let dir = project(
        "none",
        &[
            ("app.py", "import alpha.feature\nimport beta.x\n"),
            ("requirements.txt", "beta==3.0.0\n"),
            ("setup.cfg", "[options]\npython_requires = >=3.9\n"),
        ],
    );
    let report = range(&catalog, &options(&dir)).unwrap();
    assert!(report.joint.possible);
    let d = report.joint_declared.as_ref().unwrap();
    assert!(!d.possible);
    assert_eq!(d.conflicts.len(), 1, "{:?}", d.conflicts);
    assert!(
        d.conflicts[0].contains("beta 3.0.0 requires Python `>=3.12`"),
        "{:?}",
        d.conflicts
    );
}

#[test]
fn uses_that_never_meet_and_empty_projects() {
    let catalog = catalog();
    // `alpha.old` is gone in 2.1.0; a use only 2.1.0 cannot have with it: no release works.
    let dir = project(
        "clash",
        &[(
            "app.py",
            "from alpha import old\nfrom alpha import feature\nimport alpha.nowhere\n",
        )],
    );
    let report = range(&catalog, &options(&dir)).unwrap();
    let alpha = &report.packages[0];
    assert_eq!(alpha.needs.ranges, ["1.1.0", "2.0.0"]);
    assert_eq!(alpha.missing_everywhere[0].symbol, "alpha.nowhere");

    let empty = project(
        "empty",
        &[("app.py", "import os\n"), ("bad.py", "def (:\n")],
    );
    let report = range(&catalog, &options(&empty)).unwrap();
    assert!(report.packages.is_empty());
    assert!(render::range_text(&report, false, false).contains("No use of an indexed package"));

    let missing = range(
        &catalog,
        &RangeOptions {
            paths: vec![empty.join("no-such-dir")],
            project: Some(empty.clone()),
            ..RangeOptions::default()
        },
    )
    .unwrap();
    assert!(
        missing.notes.iter().any(|n| n.contains("no-such-dir")),
        "{:?}",
        missing.notes
    );
}

#[test]
fn extras_requested_by_the_project_apply() {
    let catalog = catalog();
    // `beta[dev]`: beta 2.0.0's `alpha>=9; extra == 'dev'` applies, and no alpha is that new
    // (beta 3.0.0 needs Python 3.12, which nothing rules out here).
    let dir = project(
        "extras",
        &[
            ("app.py", "import alpha.feature\nimport beta.x\n"),
            ("requirements.txt", "beta[dev]>=2.0\n"),
        ],
    );
    let report = range(&catalog, &options(&dir)).unwrap();
    let b = report
        .joint
        .packages
        .iter()
        .find(|p| p.package == "beta")
        .unwrap();
    assert_eq!(b.releases, ["1.0.0", "3.0.0"]);
    assert!(
        b.excluded
            .iter()
            .any(|e| e.releases == ["2.0.0"] && e.reason.contains("alpha>=9")),
        "{:?}",
        b.excluded
    );
}

#[test]
fn releases_without_a_wheel_for_the_oldest_python_are_left_out() {
    // gamma 1.0.0 ships wheels for CPython 3.7 - 3.8 only (no sdist), whatever its
    // Requires-Python says; 2.0.0 is pure. The project runs on 3.9 and newer.
    let mut gamma = IndexBuilder::new("gamma");
    let mut old = release("gamma", "1.0.0", &["x"], &[], Some(">=3.7"));
    old.meta.wheel_pythons = vec!["3.7".into(), "3.8".into()];
    for s in [old, release("gamma", "2.0.0", &["x"], &[], Some(">=3.7"))] {
        gamma.add(&s).unwrap();
    }
    let g: &'static [u8] = Box::leak(gamma.finish().unwrap().into_boxed_slice());
    let embedded: &'static [(&'static str, &'static [u8])] =
        Box::leak(vec![("gamma", g)].into_boxed_slice());
    let catalog = Catalog::open(embedded, None);
    let dir = project(
        "wheels",
        &[
            ("app.py", "from gamma import x\n"),
            (
                "pyproject.toml",
                "[project]\nname = 'app'\nrequires-python = '>=3.9'\n",
            ),
        ],
    );
    let report = range(&catalog, &options(&dir)).unwrap();
    let g = report
        .joint
        .packages
        .iter()
        .find(|p| p.package == "gamma")
        .unwrap();
    assert_eq!(g.releases, ["2.0.0"]);
    assert!(
        g.excluded[0]
            .reason
            .contains("has wheels for Python 3.7 - 3.8 only (no sdist), which excludes Python 3.9"),
        "{:?}",
        g.excluded
    );
}
