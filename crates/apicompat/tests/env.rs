//! `apicompat env` end to end: a real venv with packages from the package index compared with
//! `pip check`, dist-info trees written here for the torch family cases and the check of a
//! project against the installed releases, bad input; completions, `--help` examples,
//! `--quiet`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn apicompat_in(dir: &Path, args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_apicompat"))
        .args(args)
        .current_dir(dir)
        .env("APICOMPAT_CACHE_DIR", cache)
        .env_remove("VIRTUAL_ENV")
        .env("NO_COLOR", "1")
        .output()
        .expect("run apicompat")
}

fn temp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("apicompat-env-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn no_panic(o: &Output) {
    assert!(!stderr(o).contains("panicked"), "{}", stderr(o));
}

/// A venv-like tree with `version = 3.11.7` in `pyvenv.cfg`; returns (root, site-packages).
fn venv_tree(root: &Path) -> PathBuf {
    let site = root.join("lib/python3.11/site-packages");
    fs::create_dir_all(&site).unwrap();
    fs::write(
        root.join("pyvenv.cfg"),
        "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n",
    )
    .unwrap();
    site
}

fn dist(site: &Path, name: &str, version: &str, headers: &[&str]) {
    let dir = site.join(format!("{}-{version}.dist-info", name.replace('-', "_")));
    fs::create_dir_all(&dir).unwrap();
    let mut text = format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n");
    for h in headers {
        text.push_str(h);
        text.push('\n');
    }
    fs::write(dir.join("METADATA"), text).unwrap();
}

/// torch, torchvision and torchaudio as the CUDA wheels describe themselves.
fn torch_family(site: &Path, torch: &str, vision: &str, audio: &str) {
    dist(
        site,
        "torch",
        torch,
        &[
            "Requires-Python: >=3.8.0",
            "Requires-Dist: filelock",
            "Requires-Dist: triton ==2.1.0 ; platform_system == \"Linux\"",
        ],
    );
    dist(site, "filelock", "3.13.1", &[]);
    dist(site, "triton", "2.1.0", &["Requires-Dist: filelock"]);
    let release = torch.split('+').next().unwrap();
    dist(
        site,
        "torchvision",
        vision,
        &[&format!("Requires-Dist: torch (=={release})")],
    );
    dist(
        site,
        "torchaudio",
        audio,
        &[&format!("Requires-Dist: torch =={release}")],
    );
}

#[test]
fn torch_family_mismatch_is_reported_with_both_versions() {
    let dir = temp("family-mismatch");
    let cache = dir.join("cache");
    let env = dir.join("venv");
    let site = venv_tree(&env);
    torch_family(&site, "2.1.2+cu121", "0.16.2+cu118", "2.1.2+cu121");
    let env_s = env.to_str().unwrap();

    let o = apicompat_in(&dir, &["env", "--python", env_s, "--no-check"], &cache);
    no_panic(&o);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}{}", stderr(&o));
    assert!(
        text.contains("mismatch: torch 2.1.2+cu121 and torchvision 0.16.2+cu118 are different builds (cu121 vs cu118): torchvision 0.16.2+cu118 requires torch==2.1.2."),
        "{text}"
    );
    assert!(text.contains("No broken requirements found."), "{text}");
    assert!(
        text.contains("torch 2.1.2+cu121 is required exactly by torchaudio 2.1.2+cu121 (torch==2.1.2), torchvision 0.16.2+cu118 (torch==2.1.2)"),
        "{text}"
    );
    assert!(
        text.contains("torch 2.1.2+cu121 requires exactly: triton 2.1.0"),
        "{text}"
    );
    assert!(
        text.contains("indexed: torch 2.1.2+cu121 (release 2.1.2 is in the index)"),
        "{text}"
    );

    let o = apicompat_in(
        &dir,
        &[
            "env",
            "--python",
            env_s,
            "--no-check",
            "--output-format",
            "json",
        ],
        &cache,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["label_mismatches"][0]["reference"]["version"],
        "2.1.2+cu121"
    );
    assert_eq!(v["label_mismatches"][0]["other"]["version"], "0.16.2+cu118");
    assert_eq!(v["exit_code"], 1);
    assert!(v["check"].is_null());
}

#[test]
fn a_satisfied_environment_and_the_project_checked_against_it() {
    let dir = temp("family-ok");
    let cache = dir.join("cache");
    let env = dir.join("venv");
    let site = venv_tree(&env);
    torch_family(&site, "2.4.1+cu121", "0.19.1+cu121", "2.4.1+cu121");
    let project = dir.join("project");
    fs::create_dir_all(&project).unwrap();
    // Declares a range, but `env` checks exactly what is installed.
    fs::write(project.join("requirements.txt"), "torch>=2.3\n").unwrap();
    fs::write(
        project.join("train.py"),
        "from torch.distributed.pipelining import pipeline\n",
    )
    .unwrap();
    let env_s = env.to_str().unwrap();

    let o = apicompat_in(&project, &["env", "--python", env_s], &cache);
    no_panic(&o);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}{}", stderr(&o));
    assert!(text.contains("The environment is consistent."), "{text}");
    assert!(!text.contains("mismatch"), "{text}");
    assert!(
        text.contains("Check of . against the installed releases:"),
        "{text}"
    );

    let o = apicompat_in(
        &project,
        &["env", "--python", env_s, "--output-format", "json"],
        &cache,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["label_mismatches"].as_array().unwrap().len(), 0);
    let targets = &v["check"]["summary"]["targets"][0];
    assert_eq!(targets["origin"], "installed", "{v}");
    assert_eq!(targets["releases"], serde_json::json!(["2.4.1"]), "{v}");

    // The same project on an environment with torch 2.3.1: the check finds the break.
    let old = dir.join("venv-old");
    let site = venv_tree(&old);
    torch_family(&site, "2.3.1+cu121", "0.18.1+cu121", "2.3.1+cu121");
    let o = apicompat_in(
        &project,
        &["env", "--python", old.to_str().unwrap()],
        &cache,
    );
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("The environment is consistent."), "{text}");
    assert!(
        text.contains("`torch.distributed.pipelining.pipeline` is not in torch 2.3.1"),
        "{text}"
    );

    // --quiet: nothing about a consistent environment.
    let o = apicompat_in(
        &project,
        &["env", "-q", "--python", env_s, "--no-check"],
        &cache,
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "");
}

#[test]
fn bad_input_is_a_clear_error_with_exit_code_2() {
    let dir = temp("bad-input");
    let cache = dir.join("cache");

    // An environment path that does not exist.
    let o = apicompat_in(&dir, &["env", "--python", "no/such/venv"], &cache);
    no_panic(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no/such/venv: no such file or directory"),
        "{}",
        stderr(&o)
    );

    // A "Python" that is not one: a text file, and a program of another name.
    let fake = dir.join("bin");
    fs::create_dir_all(&fake).unwrap();
    fs::write(fake.join("python3"), "just text\n").unwrap();
    let o = apicompat_in(&dir, &["env", "--python", "bin/python3"], &cache);
    no_panic(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a Python interpreter"),
        "{}",
        stderr(&o)
    );
    fs::write(fake.join("node"), b"\x7fELF\x02\x01\x01").unwrap();
    let o = apicompat_in(&dir, &["env", "--python", "bin/node"], &cache);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("its name is not python"),
        "{}",
        stderr(&o)
    );

    // A directory that is no environment.
    let o = apicompat_in(&dir, &["env", "--python", "bin"], &cache);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a Python environment"),
        "{}",
        stderr(&o)
    );

    // Nothing given and no VIRTUAL_ENV.
    let o = apicompat_in(&dir, &["env"], &cache);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("VIRTUAL_ENV"), "{}", stderr(&o));

    // Broken METADATA: reported with its path, the rest still read, exit 2.
    let env = dir.join("venv");
    let site = venv_tree(&env);
    dist(&site, "fine", "1.0", &["Requires-Dist: six"]);
    let bad = site.join("broken-1.0.dist-info");
    fs::create_dir_all(&bad).unwrap();
    fs::write(
        bad.join("METADATA"),
        b"\x00\xff\xfe\x00 not metadata at all",
    )
    .unwrap();
    let o = apicompat_in(&dir, &["env", "--python", "venv", "--no-check"], &cache);
    no_panic(&o);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(text.contains("broken-1.0.dist-info/METADATA"), "{text}");
    assert!(text.contains("error:"), "{text}");
    assert!(
        text.contains("fine 1.0 requires six, which is not installed."),
        "{text}"
    );
}

/// A venv built here with real packages from the package index whose Requires-Dist is violated
/// (installed with `--no-deps`): `apicompat env` reports exactly what `pip check` says.
#[test]
fn real_venv_matches_pip_check() {
    if std::env::var_os("APICOMPAT_OFFLINE").is_some() {
        eprintln!("APICOMPAT_OFFLINE is set: skipped");
        return;
    }
    let dir = temp("real-venv");
    let cache = dir.join("cache");
    let venv = dir.join("venv");
    let python = std::env::var("APICOMPAT_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let made = Command::new(&python)
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .expect("python3 -m venv");
    assert!(made.status.success(), "{}", stderr(&made));
    let py = venv.join("bin/python");
    // importlib-metadata 8.5.0 requires zipp>=3.20 (3.1.0 installed) and typing-extensions
    // only on Python < 3.8 (a marker that is false here); python-dateutil requires six (absent).
    let pip = Command::new(&py)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--disable-pip-version-check",
            "importlib-metadata==8.5.0",
            "zipp==3.1.0",
            "python-dateutil==2.9.0.post0",
        ])
        .output()
        .expect("pip install");
    assert!(pip.status.success(), "{}", stderr(&pip));
    let check = Command::new(&py)
        .args(["-m", "pip", "check"])
        .output()
        .expect("pip check");
    let mut want: Vec<String> = stdout(&check).lines().map(str::to_string).collect();
    want.sort();
    assert_eq!(
        want,
        vec![
            "importlib-metadata 8.5.0 has requirement zipp>=3.20, but you have zipp 3.1.0.",
            "python-dateutil 2.9.0.post0 requires six, which is not installed.",
        ],
        "pip check said something else"
    );

    let o = apicompat_in(
        &dir,
        &[
            "env",
            "--python",
            py.to_str().unwrap(),
            "--no-check",
            "--output-format",
            "json",
        ],
        &cache,
    );
    no_panic(&o);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let mut got: Vec<String> = v["pip_check"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(
        v["environment"]["python_version"]
            .as_str()
            .map(|s| s.starts_with("3.")),
        Some(true)
    );

    // The text report carries the same lines word for word.
    let o = apicompat_in(
        &dir,
        &["env", "--python", py.to_str().unwrap(), "--no-check"],
        &cache,
    );
    let text = stdout(&o);
    for line in &want {
        assert!(text.lines().any(|l| l == line), "{line}\n{text}");
    }

    // Fixed the way pip would fix it: nothing left.
    let fix = Command::new(&py)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "zipp==3.20.0",
            "six==1.16.0",
        ])
        .output()
        .expect("pip install");
    assert!(fix.status.success(), "{}", stderr(&fix));
    let pip_ok = Command::new(&py)
        .args(["-m", "pip", "check"])
        .output()
        .unwrap();
    assert!(stdout(&pip_ok).contains("No broken requirements found."));
    let o = apicompat_in(
        &dir,
        &["env", "--python", py.to_str().unwrap(), "--no-check"],
        &cache,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("No broken requirements found."));
}

#[test]
fn completions_for_each_shell() {
    let dir = temp("completions");
    for shell in ["bash", "zsh", "fish"] {
        let o = apicompat_in(&dir, &["completions", shell], &dir);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        assert!(script.contains("apicompat"), "{shell}");
        assert!(script.contains("env"), "{shell}");
    }
    let o = apicompat_in(&dir, &["completions", "tcsh"], &dir);
    assert_eq!(o.status.code(), Some(2));
}

/// The subcommands listed under `Commands:` in a help text (clap's own `help` left out).
fn listed_subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        // Wrapped descriptions continue on lines indented further.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// Every subcommand, found from the help itself (so new ones are held to it too), has
/// examples at the end of its `--help`.
#[test]
fn every_subcommand_has_help_with_examples() {
    let dir = temp("help");
    let o = apicompat_in(&dir, &["--version"], &dir);
    assert!(stdout(&o).starts_with("apicompat "), "{}", stdout(&o));
    let mut queue: Vec<Vec<String>> = vec![vec![]];
    let mut seen = 0;
    while let Some(sub) = queue.pop() {
        let mut args: Vec<&str> = sub.iter().map(String::as_str).collect();
        args.push("--help");
        let o = apicompat_in(&dir, &args, &dir);
        assert!(o.status.success(), "{sub:?}");
        let text = stdout(&o);
        assert!(text.contains("Examples:\n  apicompat"), "{sub:?}: {text}");
        for child in listed_subcommands(&text) {
            let mut next = sub.clone();
            next.push(child);
            queue.push(next);
        }
        seen += 1;
    }
    // apicompat, check, env, query, completions, index and its four subcommands at least.
    assert!(seen >= 10, "{seen}");
}

/// Colour on a terminal (through `script`, which gives the command a pseudo-terminal), none
/// with `NO_COLOR`, in `env` and in clap's help alike.
#[test]
fn no_color_is_honoured_on_a_terminal() {
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        eprintln!("no `script` command: skipped");
        return;
    }
    let dir = temp("no-color");
    let env = dir.join("venv");
    let site = venv_tree(&env);
    torch_family(&site, "2.1.2+cu121", "0.16.2+cu118", "2.1.2+cu121");
    let bin = env!("CARGO_BIN_EXE_apicompat");
    let on_tty = |cmd: &str, no_color: bool| {
        let mut c = Command::new("script");
        c.args(["-qec", cmd, "/dev/null"])
            .current_dir(&dir)
            .env("APICOMPAT_CACHE_DIR", dir.join("cache"))
            .env_remove("NO_COLOR");
        if no_color {
            c.env("NO_COLOR", "1");
        }
        stdout(&c.output().expect("script"))
    };
    for cmd in [
        format!("{bin} env --no-check --python {}", env.display()),
        format!("{bin} --help"),
    ] {
        assert!(
            on_tty(&cmd, false).contains('\x1b'),
            "{cmd}: no colour on a terminal"
        );
        assert!(
            !on_tty(&cmd, true).contains('\x1b'),
            "{cmd}: colour despite NO_COLOR"
        );
    }
}
