//! `apicompat check` as a user runs it: the binary's exit codes (0 without errors, 1 with
//! errors, 2 when it could not run or a path could not be read), its output formats, standard
//! input, and a 50 MB source file (generated here) that is checked to its last line without
//! blowing memory.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{bin, check, text, BREAKS_ON_23};

fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    common::project_in("check-cli", name, files)
}

#[test]
fn exit_0_without_errors_warnings_included() {
    let dir = project(
        "exit0",
        &[
            ("ok.py", "import torch\nimport pandas\ntorch.zeros(3)\n"),
            ("requirements.txt", "torch==2.5.0\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    // The unindexed `pandas` is a warning: it does not change the exit code.
    assert!(out.contains("AC004"), "{out}");
    // `--quiet` shows errors only; its summary is the whole run's (files with warnings too).
    let o = check(&dir, &["-q", "--select", "AC004"]);
    let (quiet, _) = text(&o);
    assert!(!quiet.contains("warning[AC004]"), "{quiet}");
    assert!(quiet.contains("Found 1 warning in 1 file"), "{quiet}");

    // A use that breaks on some release, guarded: exit 0 too.
    let dir = project(
        "exit0-guarded",
        &[(
            "m.py",
            "try:\n    from torch.distributed.pipelining import pipeline\nexcept ImportError:\n    pipeline = None\n",
        )],
    );
    let o = check(&dir, &["--target", "torch>=2.3"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
}

#[test]
fn exit_1_with_errors_in_every_output_format() {
    let dir = project(
        "exit1",
        &[
            ("m.py", BREAKS_ON_23),
            ("requirements.txt", "torch>=2.3.0\n"),
        ],
    );
    for format in ["text", "json", "sarif", "github"] {
        let o = check(&dir, &["--output-format", format]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{format}: {out}\n{err}");
        assert!(
            out.contains("torch.distributed.pipelining"),
            "{format}: {out}"
        );
    }
    let o = check(&dir, &["--output-format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let import = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["code"] == "AC001")
        .expect("an AC001 finding");
    assert_eq!(import["display_path"], "m.py");
    assert_eq!(import["missing_in"], serde_json::json!(["2.3.0", "2.3.1"]));

    // Other rules only, or a target where it works: exit 0.
    let o = check(&dir, &["--select", "AC002"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = check(&dir, &["--target", "torch==2.5.0"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // An exact target the index lacks: the indexed release of its series, said so.
    let o = check(&dir, &["--target", "torch==2.3.7"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("against torch 2.3.1 (--target `torch==2.3.7`)"),
        "{out}"
    );
    assert!(
        (out.clone() + &err).contains("torch 2.3.7 is not indexed; checked against 2.3.1"),
        "{out}{err}"
    );
    // No indexed release at all: not a pass in disguise.
    let o = check(&dir, &["--target", "torch==9.0"]);
    let (out, err) = text(&o);
    assert!(
        out.contains("torch (not checked: no indexed release; --target `torch==9.0`)"),
        "{out}{err}"
    );
}

#[test]
fn exit_1_from_standard_input() {
    let dir = project("stdin", &[]);
    let mut child = bin()
        .args([
            "--no-cache",
            "check",
            "-",
            "--stdin-filename",
            "train.py",
            "--target",
            "torch==2.3.1",
        ])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(BREAKS_ON_23.as_bytes())
        .expect("write stdin");
    let o = child.wait_with_output().expect("wait");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("train.py:1:"), "{out}");
}

#[test]
fn exit_2_for_usage_errors_and_unreadable_paths() {
    let dir = project("exit2", &[("m.py", "import torch\n")]);
    let cases: &[(&[&str], &str)] = &[
        (&["no_such_dir"], "no_such_dir"),
        (&["--target", "torch>>2"], "invalid --target"),
        (&["--select", "XYZ9"], "unknown rule code"),
        (&["--output-format", "yaml"], "yaml"),
        (&["--no-such-flag"], "--no-such-flag"),
    ];
    for (args, expected) in cases {
        let o = check(&dir, args);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}\n{err}");
        assert!(
            out.contains(expected) || err.contains(expected),
            "{args:?}: {out}\n{err}"
        );
    }
    // A missing path among good ones: the rest is still checked, and the exit code is 2 even
    // though there are errors too.
    std::fs::write(dir.join("bad.py"), BREAKS_ON_23).expect("write");
    let o = check(&dir, &[".", "missing.py", "--target", "torch==2.3.0"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(out.contains("AC006") && out.contains("missing.py"), "{out}");
    assert!(out.contains("bad.py:1:42"), "{out}");
}

/// Peak resident memory of a running child, in bytes (Linux: `VmHWM` in `/proc`), polled until
/// it exits; and its output.
fn run_measured(mut cmd: Command, timeout: Duration) -> (Output, Option<u64>) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let status_file = PathBuf::from(format!("/proc/{}/status", child.id()));
    let start = Instant::now();
    let mut peak: Option<u64> = None;
    // Read the pipes on threads so the child never blocks on a full pipe.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut v).ok();
        v
    });
    let err_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut v).ok();
        v
    });
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            if let Some(kb) = hwm {
                peak = Some(peak.unwrap_or(0).max(kb * 1024));
            }
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            panic!("still running after {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = Output {
        status,
        stdout: out_thread.join().unwrap_or_default(),
        stderr: err_thread.join().unwrap_or_default(),
    };
    (output, peak)
}

#[test]
fn a_50_mb_file_is_checked_to_its_last_line_in_bounded_memory() {
    let dir = project("big", &[]);
    let path = dir.join("generated.py");
    // What generated modules look like: a breaking import at the top, a large data table, code,
    // and a breaking import at the end (proof that the whole file was read).
    let mut src = String::with_capacity(52 << 20);
    src.push_str("import torch\n");
    src.push_str(BREAKS_ON_23);
    src.push_str("TABLE = {\n");
    let mut i = 0u64;
    while src.len() < 44 << 20 {
        src.push_str(&format!(
            "    \"key_{i}\": ({i}, {}, \"value {i}\"),\n",
            i * 7
        ));
        i += 1;
    }
    src.push_str("}\n\n");
    while src.len() < 50 << 20 {
        src.push_str(&format!(
            "def f{i}(x, y=None):\n    z = torch.cat([x, x], dim=0)\n    return torch.nn.functional.relu(z) + {i}\n\n"
        ));
        i += 1;
    }
    src.push_str("from torch.utils.checkpoint import CheckpointPolicy\n");
    let lines = src.lines().count();
    std::fs::write(&path, &src).expect("write 50 MB");
    drop(src);

    let mut cmd = bin();
    cmd.args([
        "--no-cache",
        "check",
        "generated.py",
        "--target",
        "torch==2.3.0",
        "--output-format",
        "json",
    ])
    .current_dir(&dir);
    let (o, peak) = run_measured(cmd, Duration::from_secs(600));
    let _ = std::fs::remove_file(&path);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let found: Vec<(u64, String)> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap_or(0),
                f["symbol"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (2, "torch.distributed.pipelining.pipeline".to_string()),
            (
                lines as u64,
                "torch.utils.checkpoint.CheckpointPolicy".to_string()
            ),
        ]
    );
    // The parser's syntax tree of the whole file is the floor (Ruff's own `ruff check` takes
    // about as much on such a file): what is asked here is that the rest stays in proportion.
    if let Some(peak) = peak {
        eprintln!("50 MB file: peak RSS {} MB", peak >> 20);
        assert!(peak < 3 << 29, "peak RSS {} MB", peak >> 20);
    }
}

/// `check` run in the project's directory (files walked as `./ns/core/m.py`, the root found
/// canonical) knows the project's modules as `check DIR` does: a class of a namespace
/// package (no `__init__.py`) derives from `torch.nn.Module` through a base in another file,
/// so `self._modules` is a private torch member either way.
#[test]
fn the_working_directory_and_an_absolute_path_give_the_same_findings() {
    let dir = project(
        "relative-paths",
        &[
            ("requirements.txt", "torch>=2.3\n"),
            (
                "ns/core/base.py",
                "import torch\n\n\nclass Base(torch.nn.Module):\n    pass\n",
            ),
            (
                "ns/core/m.py",
                "from ns.core.base import Base\n\n\nclass M(Base):\n    def f(self):\n        return self._modules\n",
            ),
        ],
    );
    let dir = std::fs::canonicalize(&dir).expect("canonical");
    let codes = |o: &std::process::Output| -> Vec<(String, u64)> {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                (
                    f["code"].as_str().unwrap_or_default().to_string(),
                    f["line"].as_u64().unwrap_or(0),
                )
            })
            .collect()
    };
    let here = bin()
        .args(["--no-cache", "check", "--output-format", "json"])
        .current_dir(&dir)
        .output()
        .expect("run");
    let absolute = bin()
        .args(["--no-cache", "check", "--output-format", "json"])
        .arg(&dir)
        .output()
        .expect("run");
    assert_eq!(codes(&absolute), vec![("AC011".to_string(), 6)]);
    assert_eq!(codes(&here), codes(&absolute));
}

/// A name deprecated in the oldest indexed release already is not said to be deprecated
/// "since" that release (`tempfile.mktemp`'s own note says Python 2.3).
#[test]
fn a_deprecation_older_than_the_index_names_no_first_release() {
    let dir = project(
        "deprecated-before-index",
        &[("m.py", "import tempfile\n\nNAME = tempfile.mktemp()\n")],
    );
    let (out, _) = text(&check(&dir, &["--select", "AC012"]));
    assert!(
        out.contains("`tempfile.mktemp` is deprecated in every indexed release of python (3.8 - "),
        "{out}"
    );
    assert!(!out.contains("since python"), "{out}");
}

/// A cookiecutter template (placeholders in its path, Jinja tags in its lines) is not Python
/// until rendered: no syntax errors and none of its uses; a note names it. The same file
/// without the placeholders in its path is left out by its tags; a Python file with a syntax
/// error is still one (`docs/false-alarm-study-16.md`, F4).
#[test]
fn templates_are_not_checked() {
    let template = "\
{%- if cookiecutter.can_train == \"True\" %}
from torch.distributed.tensor import DTensor
{%- endif %}
from transformers import {{cookiecutter.camelcase_modelname}}Model
";
    let dir = project(
        "templates",
        &[
            (
                "templates/{{cookiecutter.name}}/run_{{cookiecutter.short}}.py",
                template,
            ),
            ("tags/run.py", template),
            ("broken.py", "def f(:\n    pass\n"),
            ("requirements.txt", "torch==2.3.1\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    let at = common::locations(&out);
    assert_eq!(at, ["broken.py:1:7", "broken.py:1:8"], "{out}");
    assert!(!out.contains("DTensor"), "{out}");
    assert!(out.contains("checked 1 file against"), "{out}");
    assert!(
        out.contains("tags/run.py`, `")
            && out.contains("run_{{cookiecutter.short}}.py` not checked: each is a template"),
        "{out}"
    );
}

/// A tree without a Python file (a checkout cut short) says so instead of a bare "checked 0
/// files" (`docs/false-alarm-study-16.md`, D7).
#[test]
fn no_python_file_is_said() {
    let dir = project(
        "no-python",
        &[("README.md", "# x\n"), ("requirements.txt", "torch\n")],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("note: no Python file found under `") && out.contains("nothing was checked"),
        "{out}"
    );
    // A tree with one says nothing of the kind.
    let dir = project("one-python", &[("a.py", "x = 1\n")]);
    let (out, _) = text(&check(&dir, &[]));
    assert!(!out.contains("no Python file found"), "{out}");
}

/// A member no release defines, read on an object of the project's subclass of an indexed
/// class, is the project's own bug: the message says neither class defines it and the help
/// is to define it, not to guard it (lighteval; `docs/false-alarm-study-16.md`, D5).
#[test]
fn a_member_no_release_defines_is_the_projects_to_define() {
    let source = "\
from torch.utils.data import Dataset


class Chunks(Dataset):
    def splits_iterator(self):
        return iter(())


def run():
    data = Chunks()
    data.splits_start_end_iterator()
    data.splits_iterator()
";
    let dir = project(
        "project-bug",
        &[("m.py", source), ("requirements.txt", "torch>=2.4\n")],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("neither `Chunks` nor its base `torch.utils.data.Dataset` defines `splits_start_end_iterator`"),
        "{out}"
    );
    assert!(
        out.contains("help: no release defines it: define `splits_start_end_iterator` in `Chunks`, or check the name"),
        "{out}"
    );
    assert!(!out.contains("hasattr"), "{out}");
}

/// A private attribute of an object made by a package the index does not have is that
/// package's: rich's `Progress()._tasks` is no `asyncio.TaskGroup._tasks` (mmpretrain; study
/// 17, F-D). The same read on an object of unknown origin is still judged by its name.
#[test]
fn objects_of_unindexed_packages_are_not_matched_by_name() {
    let source = "\
import asyncio
import rich.progress as progress
from rich.console import Console

bar = progress.Progress()


def track(task_id, other):
    console = Console()
    return bar._tasks[task_id], console._buffer, other._tasks
";
    let dir = project(
        "foreign-origin",
        &[
            ("m.py", source),
            (
                "pyproject.toml",
                "[project]\nname = \"x\"\nrequires-python = \">=3.8\"\n",
            ),
        ],
    );
    let o = check(&dir, &["--select", "AC009"]);
    let (out, err) = text(&o);
    let at = common::locations(&out);
    assert_eq!(at, ["m.py:10:50"], "{out}\n{err}");
    assert!(out.contains("`_tasks` is set only by `asyncio"), "{out}");
}

/// A private attribute of an object the standard library made is unknown: its classes are
/// known from typeshed's stubs, which leave private attributes out. nnUNet's
/// `multiprocessing.get_context("spawn").Pool(n)` keeps its workers in `_pool` on every Python
/// (`multiprocessing/pool.py`), which torch's `AutotuneProcessPool` (2.11+) also sets (study
/// 33, F-H). A parameter annotated with the module-level factory `multiprocessing.Pool` (not a
/// class: PyTorch-BigGraph's `pool: mp.Pool`, study 37, F-Q) holds an object from the standard
/// library too. The same read on an object of unknown origin is still judged by its name.
#[test]
fn objects_the_standard_library_made_are_not_matched_by_name() {
    let source = "\
import multiprocessing

import torch


def export_all(n, pool, annotated: multiprocessing.Pool):
    with multiprocessing.get_context(\"spawn\").Pool(n) as export_pool:
        workers = list(export_pool._pool)
    direct = multiprocessing.Pool(n)._pool
    return workers, direct, pool._pool, torch.zeros(n), annotated._pool
";
    let dir = project(
        "stdlib-origin",
        &[
            ("m.py", source),
            ("requirements.txt", "torch>=2.1.2,!=2.9.*\n"),
        ],
    );
    let o = check(&dir, &["--select", "AC009"]);
    let (out, err) = text(&o);
    let at = common::locations(&out);
    assert_eq!(at, ["m.py:10:29"], "{out}\n{err}");
    assert!(
        out.contains(
            "`_pool` is set only by `torch._inductor.autotune_process.AutotuneProcessPool`"
        ),
        "{out}"
    );
}

/// A private name some class of the standard library defines (`argparse`'s `_get_kwargs`,
/// `NamedTuple._replace`) says nothing about a receiver of unknown type, though only an
/// internal torch class defines it too, in some releases (study 44, F-AG). The control above
/// (`pool._pool`) is still judged.
#[test]
fn names_the_standard_library_defines_are_not_matched() {
    let source = "\
import torch


def build(args, blocks):
    if \"dropout\" not in args._get_kwargs():
        args.dropout = 0
    return [b._replace(stride=1) for b in blocks], torch.zeros(1)
";
    let dir = project(
        "stdlib-names",
        &[("m.py", source), ("requirements.txt", "torch>=2.1.2\n")],
    );
    let o = check(&dir, &["--select", "AC009"]);
    let (out, err) = text(&o);
    assert_eq!(
        common::locations(&out),
        Vec::<String>::new(),
        "{out}\n{err}"
    );
}

/// A function body reads a module-level name with the binding live when it is called. A file
/// that binds `nn` to torch.nn, then to an unindexed module, defines a function and calls it,
/// then binds `nn` to torch.nn again, may run the function with either (study 34, F-I): its
/// reads of `nn` are not judged. One defined after the last binding to another value still is
/// (binding the same module again changes nothing).
#[test]
fn a_function_defined_before_a_rebinding_is_not_judged_by_the_last_one() {
    let source = "\
import torch.nn as nn

import flax.linen as nn


def build():
    return nn.Dense(3)


model = build()

import torch.nn as nn


def build_torch():
    return nn.Dense(3)


from torch import nn
";
    let dir = project(
        "rebound-name",
        &[("m.py", source), ("requirements.txt", "torch>=2.1.2\n")],
    );
    let o = check(&dir, &["--select", "AC002"]);
    let (out, err) = text(&o);
    assert_eq!(common::locations(&out), ["m.py:16:12"], "{out}\n{err}");
}

/// Code switched off by a constant test never runs: `if False:` and `if 0:` bodies, the
/// `else:` of `if True:`; the branch the constant picks runs as if unconditional.
#[test]
fn branches_a_constant_test_never_takes_are_not_judged() {
    let source = "\
import torch

if False:
    import imp
else:
    import importlib

if 0:
    torch.nn.FooBar()
if not False:
    torch.nn.NotThere()
if True:
    torch.nn.AlsoNotThere()
else:
    torch.nn.OtherMissing()
";
    let dir = project("constant-tests", &[("m.py", source)]);
    let o = check(&dir, &["--target", "python==3.12"]);
    let (out, err) = text(&o);
    assert_eq!(
        common::locations(&out),
        ["m.py:11:5", "m.py:13:5"],
        "{out}\n{err}"
    );
}

/// A module-level flag the file sets once, to a constant, is that constant in the module's
/// own top-level tests: yacs' `_PY2 = False`, whose only other store follows a read of
/// Python 2's `file` in a `try` that catches `NameError` (study 34, F-K). A flag stored twice,
/// and a test inside a function (which may run after another module changed the flag), are
/// read as before.
#[test]
fn a_flag_set_once_to_a_constant_decides_the_modules_own_tests() {
    let source = "\
import io
import torch

_PY2 = False
try:
    _FILE_TYPES = (file, io.IOBase)
    _PY2 = True
except NameError:
    _FILE_TYPES = (io.IOBase,)

if _PY2:
    import imp

DEBUG = False
if DEBUG:
    torch.nn.Hidden()

FLAG = False
FLAG = True
if FLAG:
    torch.nn.Reported()


def f():
    if DEBUG:
        torch.nn.InFunction()
";
    let dir = project("constant-flags", &[("yacs.py", source)]);
    let o = check(&dir, &["--target", "python==3.12"]);
    let (out, err) = text(&o);
    assert_eq!(
        common::locations(&out),
        ["yacs.py:21:5", "yacs.py:26:9"],
        "{out}\n{err}"
    );
}

/// The message names where the first missing segment is absent when that is not every release
/// listed: torch 1.13 has `torch._six` (not its `PY3`), 2.0 and later have no `torch._six`
/// (study 35, FCOS).
#[test]
fn a_missing_parent_is_named_with_the_releases_that_lack_it() {
    let dir = project(
        "parent-absent-in",
        &[
            ("m.py", "import torch\n\nif torch._six.PY3:\n    pass\n"),
            ("requirements.txt", "torch>=1.13\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert!(
        out.contains("(declared `torch>=1.13`): `torch._six` does not exist in 2.0.0 - "),
        "{out}\n{err}"
    );
}

/// A requirement declared alike in two files is named once in a message's headline; the
/// detail names both files (study 54, M-2: CleanDiffuser's `pyproject.toml` and
/// `requirements.txt`).
#[test]
fn a_requirement_declared_alike_twice_is_named_once() {
    let dir = project(
        "declared-alike-twice",
        &[
            ("m.py", "import torch\n\nnorm = torch.nn.RMSNorm(8)\n"),
            ("requirements.txt", "torch>=2.2,<2.5\n"),
            (
                "pyproject.toml",
                "[project]\nname = \"x\"\nversion = \"0.1\"\ndependencies = [\"torch>=2.2,<2.5\"]\n",
            ),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert!(
        out.contains("is not in torch 2.2.0 - 2.3.1 (declared `torch>=2.2,<2.5`); it exists"),
        "{out}\n{err}"
    );
    assert!(
        out.contains(
            "declared `torch>=2.2,<2.5` (pyproject.toml:4), `torch>=2.2,<2.5` (requirements.txt:1)"
        ),
        "{out}\n{err}"
    );
}

/// A `.py` file that is a Git LFS pointer (a checkout without Git LFS) is no syntax error: a
/// note names it (study 53, F-2: ultravox's `assets/tiny_ultravox/*.py`). A file that only
/// starts like one is Python as usual.
#[test]
fn a_git_lfs_pointer_is_named_in_a_note_not_a_syntax_error() {
    let pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";
    let dir = project(
        "lfs-pointer",
        &[
            ("model.py", pointer),
            (
                "broken.py",
                "version https://git-lfs.github.com/spec/v1\nimport (\n",
            ),
            ("m.py", "import torch\n"),
            ("requirements.txt", "torch>=2.1\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    let at = common::locations(&out);
    assert!(
        !at.is_empty() && at.iter().all(|l| l.starts_with("broken.py:")),
        "{out}\n{err}"
    );
    assert!(
        out.contains("1 file(s) are Git LFS pointers, not Python source, so they are not checked:")
            && out.contains("model.py (`git lfs pull` fetches their content)"),
        "{out}\n{err}"
    );
}

/// `torch.Dict` (2.0 - 2.4) is `typing.Dict`: the help names the standard library's
/// definition, not another torch module that imports it too (`torch.hub.Dict`; study 54,
/// M-1, CleanDiffuser).
#[test]
fn a_standard_library_object_is_offered_from_its_definition() {
    let dir = project(
        "stdlib-reexport",
        &[
            (
                "main.py",
                "import torch\n\n\ndef f(d: torch.Dict[str, int]):\n    return d\n",
            ),
            ("requirements.txt", "torch>=1.13,<2.3\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert!(
        out.contains("`torch.Dict` is `typing.Dict` of the standard library, which torch only imports: import it from `typing`"),
        "{out}\n{err}"
    );
    assert!(!out.contains("torch.hub.Dict"), "{out}\n{err}");
}
