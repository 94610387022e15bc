//! The `apicompat` binary end to end: queries on the embedded index, and bad input.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::Scratch;

fn apicompat(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_apicompat"))
        .args(args)
        .env("APICOMPAT_CACHE_DIR", cache)
        .env("NO_COLOR", "1")
        .output()
        .expect("run apicompat")
}

fn temp(name: &str) -> Scratch {
    Scratch::new("apicompat-cli", name)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn query_answers_from_the_embedded_index() {
    let cache = temp("query");
    let o = apicompat(
        &[
            "query",
            "torch.utils.checkpoint.CheckpointPolicy",
            "--output-format",
            "json",
        ],
        &cache,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["package"], "torch");
    assert_eq!(v["kind"], "class");
    assert_eq!(v["ranges"][0], "2.5.0 - 2.15.0");
    assert_eq!(v["present_in"][0], "2.5.0");
    assert!(v["absent_in"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x == "2.4.1"));

    // Re-exported class: the definition per range.
    let o = apicompat(&["query", "torch.distributed._tensor.Partial"], &cache);
    let text = stdout(&o);
    assert!(text.contains("class in 2.4.0 - 2.15.0"), "{text}");
    assert!(
        text.contains(
            "defined at torch.distributed.tensor.placement_types.Partial in 2.5.0 - 2.15.0"
        ),
        "{text}"
    );

    // No release has it: exit 1 and suggestions.
    let o = apicompat(&["query", "torch.distributed._tensor._Partial"], &cache);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("torch.distributed._tensor.placement_types._Partial"),
        "{}",
        stdout(&o)
    );

    // Unknown package: usage error naming the fix.
    let o = apicompat(&["query", "nosuchpkg.thing"], &cache);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("apicompat index fetch"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn index_show_and_list() {
    let cache = temp("show");
    let o = apicompat(
        &[
            "index",
            "show",
            "colossalai==0.4.0",
            "--output-format",
            "json",
        ],
        &cache,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["version"], "0.4.0");
    let module = &v["modules"]["colossalai.zero.low_level.low_level_optim"];
    assert_eq!(module["open"], false);
    assert_eq!(module["names"]["LowLevelZeroOptimizer"], "class");
    let members =
        &v["classes"]["colossalai.zero.low_level.low_level_optim.LowLevelZeroOptimizer"]["members"];
    assert_eq!(members["_param_store"], "attribute");
    assert!(v["requires_dist"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r.as_str().unwrap().starts_with("torch")));

    let o = apicompat(&["index", "show", "colossalai==9.9.9"], &cache);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not indexed"), "{}", stderr(&o));

    let o = apicompat(&["index", "list"], &cache);
    assert!(
        stdout(&o).contains("torch: 30 embedded release(s): 1.13.0 - 2.15.0"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn build_adds_a_release_to_the_cache_and_queries_merge_it() {
    let cache = temp("build");
    let src = cache.join("src/mypkg");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    std::fs::write(
        src.join("__init__.py"),
        "from .sub import thing\n__all__ = ['thing']\n",
    )
    .unwrap();
    std::fs::write(src.join("sub/__init__.py"), "def thing(a, *, b=1): ...\n").unwrap();
    let o = apicompat(
        &[
            "index",
            "build",
            cache.join("src").to_str().unwrap(),
            "--package",
            "mypkg",
            "--version",
            "1.0",
        ],
        &cache,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = apicompat(&["query", "mypkg.thing", "--output-format", "json"], &cache);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["present_in"][0], "1.0");
    assert_eq!(v["canonical"][0]["value"], "mypkg.sub.thing");
    assert_eq!(v["signatures"][0]["value"], "(a, *, b=...)");

    // A corrupt cached index is reported and moved aside (mypkg is unknown then); the
    // embedded index still answers.
    std::fs::write(cache.join("index/mypkg.apix"), b"garbage").unwrap();
    let o = apicompat(&["query", "mypkg.thing"], &cache);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("corrupt") && stderr(&o).contains("moved it to"),
        "{}",
        stderr(&o)
    );
    let o = apicompat(&["query", "torch.compile"], &cache);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn bad_archives_give_clear_errors() {
    let cache = temp("bad");
    let empty = cache.join("empty-1.0-py3-none-any.whl");
    std::fs::write(&empty, b"").unwrap();
    let not_zip = cache.join("notzip-1.0-py3-none-any.whl");
    std::fs::write(&not_zip, b"this is not a zip file").unwrap();
    for (path, pkg) in [(&empty, "empty"), (&not_zip, "notzip")] {
        let o = apicompat(
            &["index", "build", path.to_str().unwrap(), "--package", pkg],
            &cache,
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.starts_with("error: ") && err.contains(path.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
    }
    let o = apicompat(
        &[
            "index",
            "build",
            cache.join("missing.whl").to_str().unwrap(),
            "--package",
            "x",
            "--version",
            "1",
        ],
        &cache,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.whl"), "{}", stderr(&o));

    // A zip with an escaping member and a broken Python file: the rest is still read.
    let zip = cache.join("evil-1.0-py3-none-any.whl");
    write_zip(
        &zip,
        &[
            ("../escape.py", b"x = 1\n".as_slice()),
            ("/abs.py", b"y = 1\n"),
            ("evil/__init__.py", b"def ok(): ...\ndef broken(:\n"),
            ("evil/latin.py", b"s = '\xe9'\n"),
        ],
    );
    let out = cache.join("surface.json");
    let o = apicompat(
        &[
            "index",
            "build",
            zip.to_str().unwrap(),
            "--package",
            "evil",
            "--output",
            out.to_str().unwrap(),
        ],
        &cache,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert!(v["symbols"].get("evil.ok").is_some());
    assert!(v["symbols"].get("escape").is_none());
    let problems = v["problems"].to_string();
    assert!(
        problems.contains("../escape.py")
            && problems.contains("syntax error")
            && problems.contains("UTF-8"),
        "{problems}"
    );
}

fn write_zip(path: &Path, members: &[(&str, &[u8])]) {
    let mut z = apicompat_archive::zipwrite::ZipWriter::new();
    for (name, data) in members {
        z.add(name, data, false);
    }
    std::fs::write(path, z.finish()).unwrap();
}
