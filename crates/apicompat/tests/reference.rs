//! The embedded index against the facts in `../shared/reference/`: every row of
//! `symbols.tsv`, and the runtime oracle (what a real `import` exposes) for three torch
//! releases: the names of every module and the members `dir()` lists on every class.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;

use apicompat_index::{Catalog, PackageView, Status};
use apicompat_requirements::parse_version;

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference")
}

fn catalog() -> Catalog {
    apicompat::embedded_catalog()
}

fn view<'a>(catalog: &'a Catalog, package: &str) -> &'a PackageView {
    match catalog.package(package) {
        Ok(Some(v)) => v,
        other => panic!("{package} is not embedded: {:?}", other.err()),
    }
}

/// Every row: the releases (within the row's universe) that have the symbol are exactly the
/// stated inclusive range.
#[test]
fn symbols_tsv_rows_are_reproduced() {
    let text = std::fs::read_to_string(shared().join("symbols.tsv")).expect("symbols.tsv");
    let catalog = catalog();
    let mut failures = Vec::new();
    let mut rows = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let (package, symbol, present) = (cols[0], cols[1], cols[3]);
        rows += 1;
        let v = view(&catalog, package);
        let versions = v.versions();
        let expected: BTreeSet<String> = match present.split_once('-') {
            None => BTreeSet::new(),
            Some((lo, hi)) => {
                let (lo, hi) = (parse_version(lo).unwrap(), parse_version(hi).unwrap());
                v.releases()
                    .iter()
                    .filter(|r| r.version >= lo && r.version <= hi)
                    .map(|r| r.version.to_string())
                    .collect()
            }
        };
        let actual: BTreeSet<String> = (0..versions.len())
            .filter(|&i| v.status(symbol, i).unwrap().is_present())
            .map(|i| versions[i].clone())
            .collect();
        if expected != actual {
            failures.push(format!(
                "{symbol}: expected {present}, index has {}",
                apicompat_index::ranges(
                    &versions,
                    &versions
                        .iter()
                        .map(|x| actual.contains(x))
                        .collect::<Vec<_>>()
                )
                .join(", ")
            ));
        }
    }
    assert!(rows >= 40, "symbols.tsv has {rows} rows");
    assert!(
        failures.is_empty(),
        "{} of {rows} rows differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Names every module has at run time without defining them.
const IMPLICIT: &[&str] = &[
    "__builtins__",
    "__cached__",
    "__doc__",
    "__file__",
    "__loader__",
    "__name__",
    "__package__",
    "__path__",
    "__spec__",
    "__annotations__",
    "__dict__",
    "__all__",
    "__getattr__",
];

#[derive(Default, Debug)]
struct Score {
    modules: usize,
    modules_present: usize,
    pairs: usize,
    present: usize,
    absent: usize,
    unknown: usize,
    absent_examples: Vec<String>,
    /// Names the index lists in a module that a real import does not have.
    false_present: usize,
    index_names: usize,
}

fn oracle(package: &str, version: &str) -> serde_json::Value {
    let path = shared().join(format!("runtime/{package}-{version}.json.gz"));
    let mut json = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("oracle"))
        .read_to_string(&mut json)
        .expect("gzip");
    serde_json::from_str(&json).expect("json")
}

fn score(catalog: &Catalog, package: &str, version: &str) -> Score {
    let oracle = oracle(package, version);
    let v = view(catalog, package);
    let release = v
        .position(&parse_version(version).unwrap())
        .unwrap_or_else(|| panic!("{package} {version} is not embedded"));
    let mut s = Score::default();
    let modules = oracle["modules"].as_object().expect("modules");
    for (name, m) in modules {
        if m["status"] != "ok" || m.get("alias_of").is_some() {
            continue;
        }
        // A module no code can name (`numpy/_pyinstaller/pyinstaller-smoke.py`: not an
        // identifier, so no `import` or attribute chain spells it) is not scored.
        let nameable = name
            .split('.')
            .all(|p| p.chars().all(|c| c.is_alphanumeric() || c == '_'));
        if !nameable {
            continue;
        }
        s.modules += 1;
        let module_status = v.status(name, release).unwrap();
        if module_status.is_present() {
            s.modules_present += 1;
        }
        let runtime: BTreeSet<&str> = ["public", "private"]
            .iter()
            .filter_map(|g| m[*g].as_object())
            .flat_map(|o| o.keys().map(String::as_str))
            .collect();
        let (index, position) = v.index_of(release).unwrap();
        let prefix = format!("{name}.");
        for path in index.paths_with_prefix(&prefix) {
            let rest = &path[prefix.len()..];
            if rest.contains('.') || index.facet_in(&path, position).unwrap().is_none() {
                continue;
            }
            s.index_names += 1;
            if !runtime.contains(rest) {
                s.false_present += 1;
            }
        }
        for group in ["public", "private"] {
            let Some(names) = m[group].as_object() else {
                continue;
            };
            for n in names.keys() {
                if IMPLICIT.contains(&n.as_str()) {
                    continue;
                }
                s.pairs += 1;
                match v.status(&format!("{name}.{n}"), release).unwrap() {
                    Status::Present { .. } => s.present += 1,
                    Status::Unknown { .. } => s.unknown += 1,
                    Status::Absent { .. } => {
                        s.absent += 1;
                        if s.absent_examples.len() < 80 {
                            s.absent_examples.push(format!("{name}.{n}"));
                        }
                    }
                }
            }
        }
    }
    s
}

/// Bounds of one release: (version, least module recall, most unknown, most false absent,
/// most false present), in percent, just past the measured figures (README): a change that
/// makes any of them worse fails.
type Bounds = (&'static str, f64, f64, f64, f64);

const TORCH_BOUNDS: [Bounds; 3] = [
    ("2.1.2", 99.6, 1.25, 0.10, 3.88),
    ("2.4.1", 99.6, 1.0, 0.07, 3.81),
    ("2.5.0", 99.4, 1.17, 0.07, 3.78),
];

/// The (module, name) agreement of `package` with its oracles, against `bounds`.
fn recall_test(package: &str, bounds: &[Bounds]) {
    let catalog = catalog();
    let mut report = String::from(
        "release | modules | module recall | pairs | present | unknown | false absent | false present\n",
    );
    let mut failures = Vec::new();
    for &(version, min_recall, max_unknown, max_absent, max_false_present) in bounds {
        let s = score(&catalog, package, version);
        let pct = |n: usize, d: usize| 100.0 * n as f64 / d.max(1) as f64;
        let (recall, absent, unknown) = (
            pct(s.modules_present, s.modules),
            pct(s.absent, s.pairs),
            pct(s.unknown, s.pairs),
        );
        let false_present = pct(s.false_present, s.index_names);
        report.push_str(&format!(
            "{version} | {} | {recall:.2}% | {} | {:.2}% | {unknown:.2}% | {absent:.2}% | {false_present:.2}%\n",
            s.modules,
            s.pairs,
            pct(s.present, s.pairs),
        ));
        report.push_str(&format!(
            "  false absent, first: {}\n",
            s.absent_examples.join(" ")
        ));
        if recall < min_recall
            || absent > max_absent
            || unknown > max_unknown
            || false_present > max_false_present
        {
            failures.push(format!("{version}: {s:?}"));
        }
    }
    eprintln!("{report}");
    assert!(failures.is_empty(), "{report}\n{}", failures.join("\n"));
}

#[test]
fn runtime_oracle_recall() {
    recall_test("torch", &TORCH_BOUNDS);
}

/// numpy, from oracles made on CPython 3.11 (`../shared/tools/introspect.py`): module recall
/// at least 99%, false absent at most 0.10%, unknown and false present just past the
/// measured figures (README).
#[test]
fn runtime_oracle_recall_numpy() {
    recall_test(
        "numpy",
        &[
            ("1.26.4", 99.0, 7.95, 0.10, 11.35),
            ("2.0.2", 99.0, 10.6, 0.10, 8.4),
        ],
    );
}

/// Bounds of the class-member agreement (percent of the pairs), just above the figures in
/// README: a change that makes more runtime members absent or unknown fails here.
const MAX_MEMBER_FALSE_ABSENT: f64 = 0.95;
const MAX_MEMBER_UNKNOWN: f64 = 14.05;

#[derive(Default, Debug)]
struct MemberScore {
    classes: usize,
    pairs: usize,
    present: usize,
    absent: usize,
    unknown: usize,
    absent_examples: Vec<String>,
}

/// Class members: for every class of the oracle that the index has in that release, every
/// non-dunder name `dir()` lists on it, looked up as `Class.name`.
fn member_score(catalog: &Catalog, version: &str) -> MemberScore {
    let oracle = oracle("torch", version);
    let v = view(catalog, "torch");
    let release = v
        .position(&parse_version(version).unwrap())
        .unwrap_or_else(|| panic!("torch {version} is not embedded"));
    let mut s = MemberScore::default();
    let classes = oracle["classes"].as_object().expect("classes");
    for (class, c) in classes {
        let is_class = matches!(v.status(class, release).unwrap(),
            Status::Present { symbol, .. } if symbol.kind() == apicompat_surface::Kind::Class);
        if !is_class {
            continue;
        }
        s.classes += 1;
        for name in c["dir"].as_array().into_iter().flatten() {
            let Some(name) = name.as_str() else { continue };
            if name.starts_with("__") && name.ends_with("__") {
                continue;
            }
            s.pairs += 1;
            match v.status(&format!("{class}.{name}"), release).unwrap() {
                Status::Present { .. } => s.present += 1,
                Status::Unknown { .. } => s.unknown += 1,
                Status::Absent { .. } => {
                    s.absent += 1;
                    if s.absent_examples.len() < 40 {
                        s.absent_examples.push(format!("{class}.{name}"));
                    }
                }
            }
        }
    }
    s
}

#[test]
fn runtime_oracle_class_members() {
    let catalog = catalog();
    let mut report = String::from(
        "release | classes | (class, member) pairs | present | unknown | false absent\n",
    );
    let mut failures = Vec::new();
    for version in ["2.1.2", "2.4.1", "2.5.0"] {
        let s = member_score(&catalog, version);
        let pct = |n: usize| 100.0 * n as f64 / s.pairs.max(1) as f64;
        report.push_str(&format!(
            "{version} | {} | {} | {:.2}% | {:.2}% | {:.2}%\n",
            s.classes,
            s.pairs,
            pct(s.present),
            pct(s.unknown),
            pct(s.absent)
        ));
        if s.classes < 1000
            || pct(s.absent) > MAX_MEMBER_FALSE_ABSENT
            || pct(s.unknown) > MAX_MEMBER_UNKNOWN
        {
            failures.push(format!("{version}: {s:?}"));
        }
    }
    eprintln!("{report}");
    assert!(failures.is_empty(), "{report}\n{}", failures.join("\n"));
}
