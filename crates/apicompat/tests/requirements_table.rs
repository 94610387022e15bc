//! Pins of packages the index has no surface for, judged offline by the embedded table of
//! what their releases require (`crates/apicompat/index/requirements.apir`, built by
//! `apicompat index requirements` from PyPI; `scripts/requirements-table.txt`). Runs the
//! binary with `--no-cache` (nothing fetched).

#[path = "../../apicompat_fetch/tests/common/server.rs"]
mod server;

mod common;

use apicompat_index::requirements_table::RequirementsTable;
use common::{check, text};
use server::{serve, Behavior};

fn project(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    common::project_in("requirements-table", name, files)
}

/// `np.Inf` went in numpy 2.0.
const INF: &str = "import numpy as np\n\n\ndef best():\n    return np.Inf\n";

#[test]
fn the_table_holds_the_requirements_of_real_releases() {
    let catalog = apicompat::embedded_catalog();
    // scipy 1.7.3's wheel METADATA: `Requires-Python: >=3.7,<3.11`,
    // `Requires-Dist: numpy (<1.23.0,>=1.16.5)`.
    let (versions, headers) = catalog
        .requirements_only("SciPy")
        .expect("scipy in the table");
    let at = versions
        .iter()
        .position(|v| v.to_string() == "1.7.3")
        .expect("scipy 1.7.3");
    assert_eq!(headers[at].requires_dist, ["numpy (<1.23.0,>=1.16.5)"]);
    assert_eq!(headers[at].requires_python.as_deref(), Some(">=3.7,<3.11"));
    // Of a package with a surface, only the releases older than the index: torch 1.0.1's
    // wheels are for CPython 3.5 - 3.7 (`torch-1.0.1-cp37-cp37m-manylinux1_x86_64.whl`).
    let (versions, headers) = catalog
        .requirements_only("torch")
        .expect("torch's older releases");
    let oldest_indexed = catalog.package("torch").unwrap().unwrap().releases()[0]
        .version
        .clone();
    assert!(versions.iter().all(|v| *v < oldest_indexed), "{versions:?}");
    let at = versions
        .iter()
        .position(|v| v.to_string() == "1.0.1")
        .expect("torch 1.0.1");
    assert_eq!(headers[at].wheel_pythons, ["3.5", "3.6", "3.7"]);
    // `index list` names the table's packages.
    let o = common::bin()
        .args(["--no-cache", "index", "list"])
        .output()
        .unwrap();
    let (out, _) = text(&o);
    let line = out
        .lines()
        .find(|l| l.starts_with("requirements only"))
        .unwrap_or_default();
    assert!(line.contains("scipy"), "{out}");
    assert!(!line.contains("torch,"), "{line}");
    assert!(
        out.lines().any(|l| l.starts_with("torch: ")
            && l.contains("older release(s) known by what they require: 1.0.0 - 1.12.1")),
        "{out}"
    );
}

/// A pin older than the index bounds the Pythons by its own wheels: `torch==1.0.1` installs
/// on Python 3.5 - 3.7 only, where numpy stops at 1.21 and `np.float` is only deprecated (study
/// 35, D1). Before, the oldest indexed torch (1.13.0, wheels up to 3.11) bounded them, and a
/// bare `numpy` was checked up to 2.4.
#[test]
fn a_pin_older_than_the_index_bounds_python_by_its_own_wheels() {
    let float = "import numpy as np\nimport torch\n\nx = np.float(1)\n";
    let (code, out, all) = checked(
        "old-torch-pin",
        &[
            ("m.py", float),
            ("requirements.txt", "torch==1.0.1\nnumpy\n"),
        ],
    );
    assert_eq!(code, Some(0), "{all}");
    assert!(
        out.contains("checked 1 file against numpy 1.21.0 - 1.21.6"),
        "{out}"
    );
    assert!(
        all.contains("the Pythons `torch==1.0.1` (requirements.txt:1) installs on: torch 1.0.1 has wheels for Python 3.5 - 3.7 only, no sdist"),
        "{all}"
    );
    // A pin the index has: numpy is checked to its newest release there.
    let (code, out, all) = checked(
        "indexed-torch-pin",
        &[
            ("m.py", float),
            ("requirements.txt", "torch==2.1.0\nnumpy\n"),
        ],
    );
    assert_eq!(code, Some(1), "{all}");
    assert!(out.contains("`numpy.float` is not in numpy"), "{out}");
}

/// `check` on a new project of these files: its exit code, standard output, and both streams.
fn checked(name: &str, files: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let o = check(&project(name, files), &[]);
    let (out, err) = text(&o);
    let all = format!("{out}{err}");
    (o.status.code(), out, all)
}

#[test]
fn a_pinned_package_without_a_surface_bounds_an_undeclared_numpy() {
    let (code, _, all) = checked(
        "scipy-pinned",
        &[("tools.py", INF), ("requirements.txt", "scipy==1.7.3\n")],
    );
    assert_eq!(code, Some(0), "{all}");
    assert!(
        all.contains("checked against the newest release that `scipy==1.7.3` (requirements.txt:1) admits on python 3.8 - 3.10, 1.22.4 (scipy 1.7.3 requires `numpy (<1.23.0,>=1.16.5)`)"),
        "{all}"
    );
    // The newest scipy requires numpy 2: `np.Inf` breaks there.
    let (code, out, all) = checked(
        "scipy-bare",
        &[("tools.py", INF), ("requirements.txt", "scipy\n")],
    );
    assert_eq!(code, Some(1), "{all}");
    assert!(out.contains("`numpy.Inf` is not in numpy 2."), "{out}");
}

#[test]
fn a_pin_whose_wheels_are_for_older_pythons_leaves_numpy_and_python_unchecked() {
    // opencv-python 3.4.1.15 has wheels for cp27 and cp34 - cp36 only, no sdist: the project
    // runs on Python 3.6 at most, where numpy 1.19.5 is the newest (older than the index).
    let src = "import numpy as np\nimport imp\n\n\ndef boxes(n):\n    return np.zeros((n, 3), dtype=np.float)\n";
    let (code, _, all) = checked(
        "opencv-pinned",
        &[
            ("coco.py", src),
            ("requirements.txt", "opencv-python==3.4.1.15\n"),
        ],
    );
    assert_eq!(code, Some(0), "{all}");
    assert!(
        all.contains("numpy is not checked: no indexed release of it installs on python 3.4, 3.5, 3.6 (the Pythons `opencv-python==3.4.1.15` (requirements.txt:1) installs on: opencv-python 3.4.1.15 has wheels for Python"),
        "{all}"
    );
    assert!(
        all.contains("python is not checked: python 3.4, 3.5, 3.6 only"),
        "{all}"
    );
    // The newest opencv-python installs on current Pythons: both uses break.
    let (code, out, all) = checked(
        "opencv-bare",
        &[("coco.py", src), ("requirements.txt", "opencv-python\n")],
    );
    assert_eq!(code, Some(1), "{all}");
    assert!(out.contains("`numpy.float` is not in numpy"), "{out}");
    assert!(out.contains("`imp`"), "{out}");
}

#[test]
fn a_pinned_companion_without_a_surface_narrows_a_declared_torch() {
    // torchaudio 2.0.2 requires `torch (==2.0.1)`: beside it no other torch is installed.
    let (_, _, all) = checked(
        "torchaudio-pinned",
        &[
            ("train.py", "import torch\n\nx = torch.zeros(3)\n"),
            ("requirements.txt", "torch>=1.13\ntorchaudio==2.0.2\n"),
        ],
    );
    assert!(
        all.contains("left out: no release of torchaudio that `torchaudio==2.0.2` (requirements.txt:2) admits accepts them (torchaudio 2.0.2 requires `torch (==2.0.1)`)"),
        "{all}"
    );
    assert!(all.contains("torch 2.0.1"), "{all}");
}

/// `index requirements` on a loopback package index: release 1.0 serves its core metadata
/// beside the wheel (PEP 658), 2.0 does not (its `METADATA` is read from the wheel with Range
/// requests); 3.0 came after the window and 0.9 is yanked; `other`, pure Python and requiring
/// nothing with a surface, is left out.
#[test]
fn index_requirements_reads_core_metadata_from_the_package_index() {
    let wheel = apicompat_archive::zipwrite::small_wheel();
    let file = |v: &str, time: &str, yanked: bool| {
        format!(
            r#"{{"filename": "pkg-{v}-py3-none-any.whl", "url": "/files/pkg-{v}-py3-none-any.whl", "size": {}, "packagetype": "bdist_wheel", "yanked": {yanked}, "upload_time_iso_8601": "{time}"}}"#,
            wheel.len()
        )
    };
    let doc = format!(
        r#"{{"releases": {{"0.9": [{}], "1.0": [{}], "2.0": [{}], "3.0": [{}]}}}}"#,
        file("0.9", "2020-01-01T00:00:00Z", true),
        file("1.0", "2021-01-01T00:00:00Z", false),
        file("2.0", "2022-01-01T00:00:00Z", false),
        file("3.0", "2027-01-01T00:00:00Z", false)
    );
    let other = format!(
        r#"{{"releases": {{"1.0": [{{"filename": "other-1.0-py3-none-any.whl", "url": "/files/other-1.0-py3-none-any.whl", "size": {}, "packagetype": "bdist_wheel", "yanked": false}}]}}}}"#,
        wheel.len()
    );
    let metadata_1 = b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\nRequires-Python: >=3.7,<3.11\nRequires-Dist: numpy (<1.23)\nRequires-Dist: requests\n\n".to_vec();
    let metadata_other =
        b"Metadata-Version: 2.1\nName: other\nVersion: 1.0\nRequires-Dist: requests\n\n".to_vec();
    let server = serve(
        vec![
            ("/pypi/pkg/json".into(), doc.into_bytes()),
            ("/pypi/other/json".into(), other.into_bytes()),
            (
                "/files/pkg-1.0-py3-none-any.whl.metadata".into(),
                metadata_1,
            ),
            ("/files/pkg-1.0-py3-none-any.whl".into(), wheel.clone()),
            ("/files/pkg-2.0-py3-none-any.whl".into(), wheel.clone()),
            (
                "/files/other-1.0-py3-none-any.whl.metadata".into(),
                metadata_other,
            ),
        ],
        Behavior::Normal,
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("requirements-table-index");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // One run of the command into `output`, with `--jobs` when given.
    let build = |output: &std::path::Path, jobs: Option<&str>| {
        let mut c = common::bin();
        c.args(["--no-cache", "index", "requirements", "pkg", "other"])
            .args(["--from", "2017-01-01", "--until", "2026-12-01"])
            .arg("--output")
            .arg(output)
            .env("APICOMPAT_INDEX_URL", &server.base);
        if let Some(jobs) = jobs {
            c.args(["--jobs", jobs]);
        }
        c.output().unwrap()
    };
    let out = dir.join("table.apir");
    let o = build(&out, Some("1"));
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("other: left out"), "{stderr}");
    let table = RequirementsTable::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(table.packages.keys().collect::<Vec<_>>(), ["pkg"]);
    let (versions, headers) = table.releases("pkg").unwrap();
    let names: Vec<String> = versions.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["1.0", "2.0"]);
    // Only the requirements on packages with a surface are kept (`requests` has none).
    assert_eq!(headers[0].requires_dist, ["numpy (<1.23)"]);
    assert_eq!(headers[0].requires_python.as_deref(), Some(">=3.7,<3.11"));
    // Read from the wheel's own METADATA.
    assert_eq!(
        headers[1].requires_dist,
        ["numpy>=1.20", "torch (>=2.1) ; extra == 'gpu'"]
    );
    assert_eq!(headers[1].requires_python.as_deref(), Some(">=3.8"));
    let log = server.log.lock().unwrap().join("\n");
    assert!(
        log.contains("GET /files/pkg-2.0-py3-none-any.whl range=Some"),
        "{log}"
    );
    // The same index and window give the same bytes.
    let again = dir.join("again.apir");
    let o = build(&again, None);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}

/// Of a package the index has, `index requirements` reads only the releases older than the
/// oldest indexed one (torch's index starts at 1.13.0).
#[test]
fn index_requirements_reads_only_the_releases_below_the_index_of_an_indexed_package() {
    let wheel = apicompat_archive::zipwrite::small_wheel();
    let file = |v: &str| {
        format!(
            r#"{{"filename": "torch-{v}-cp37-cp37m-manylinux1_x86_64.whl", "url": "/files/torch-{v}.whl", "size": {}, "packagetype": "bdist_wheel", "yanked": false, "upload_time_iso_8601": "2022-01-01T00:00:00Z"}}"#,
            wheel.len()
        )
    };
    let doc = format!(
        r#"{{"releases": {{"1.12.1": [{}], "1.13.0": [{}]}}}}"#,
        file("1.12.1"),
        file("1.13.0")
    );
    let metadata = b"Metadata-Version: 2.1\nName: torch\nVersion: 1.12.1\nRequires-Python: >=3.7.0\nRequires-Dist: typing-extensions\n\n".to_vec();
    let server = serve(
        vec![
            ("/pypi/torch/json".into(), doc.into_bytes()),
            ("/files/torch-1.12.1.whl.metadata".into(), metadata),
        ],
        Behavior::Normal,
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("requirements-table-below");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("table.apir");
    let o = common::bin()
        .args(["--no-cache", "index", "requirements", "torch"])
        .args(["--from", "2017-01-01", "--until", "2026-12-01", "--output"])
        .arg(&out)
        .env("APICOMPAT_INDEX_URL", &server.base)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}\n{stderr}");
    let table = RequirementsTable::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    let (versions, headers) = table.releases("torch").unwrap();
    let names: Vec<String> = versions.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["1.12.1"]);
    assert_eq!(headers[0].requires_python.as_deref(), Some(">=3.7.0"));
    assert_eq!(headers[0].wheel_pythons, ["3.7"]);
    let log = server.log.lock().unwrap().join("\n");
    assert!(!log.contains("torch-1.13.0"), "{log}");
}

/// pandas 2.3.3 requires numpy only under Python markers (`numpy>=1.23.2; python_version ==
/// "3.11"`, `numpy>=1.26.0; python_version >= "3.12"`, its wheel METADATA): on Python 3.11 -
/// 3.13 no numpy older than 1.23.2 is installed beside it, so `np.argmax(keepdims=)` (a
/// keyword from numpy 1.22.0) is no error there (granite-tsfm, docs/false-alarm-study-45.md,
/// F-AH). Without pandas, the same declaration admits numpy 1.21.0 and 1.21.1.
#[test]
fn requirements_under_python_markers_bound_a_declared_package_where_they_apply() {
    const ARGMAX: &str =
        "import numpy as np\n\n\ndef top(x):\n    return np.argmax(x, axis=0, keepdims=True)\n";
    let pyproject = |deps: &str| {
        format!("[project]\nname = \"p\"\nversion = \"0.1\"\nrequires-python = \">=3.11,<3.14\"\ndependencies = [{deps}]\n")
    };
    let (code, _, all) = checked(
        "pandas-marked-floor",
        &[
            ("m.py", ARGMAX),
            (
                "pyproject.toml",
                &pyproject("\"numpy<3\", \"pandas>=2.3.3,<4\""),
            ),
        ],
    );
    assert_eq!(code, Some(0), "{all}");
    assert!(
        all.contains("numpy 1.21.0 - 1.23.1 left out: no release of pandas that `pandas>=2.3.3,<4` (pyproject.toml:5) admits accepts them (pandas 2.3.3 requires"),
        "{all}"
    );
    let (code, out, all) = checked(
        "pandas-marked-floor-control",
        &[
            ("m.py", ARGMAX),
            ("pyproject.toml", &pyproject("\"numpy<3\"")),
        ],
    );
    assert_eq!(code, Some(1), "{all}");
    assert!(
        out.contains("does not accept the keyword `keepdims` in numpy 1.21.0, 1.21.1"),
        "{out}"
    );
}
