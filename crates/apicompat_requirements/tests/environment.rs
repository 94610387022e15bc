use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use apicompat_requirements::{
    evaluate_marker, marker_environment, open_environment, open_environment_at,
    requirement_applies, EnvError, ParsedRequirement, Platform, Severity, Version,
};

fn fixture_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("apicompat_requirements_env")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create fixture dir");
    dir
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create parent");
    }
    fs::write(path, text).expect("write fixture");
}

fn v(s: &str) -> Version {
    s.parse().expect("test version")
}

/// The head of torch 2.1.2+cu121's METADATA as shipped in the Linux CUDA wheel.
const TORCH_METADATA: &str = r#"Metadata-Version: 2.1
Name: torch
Version: 2.1.2+cu121
Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration
Home-page: https://pytorch.org/
Author: PyTorch Team
Author-email: packages@pytorch.org
License: BSD-3
Requires-Python: >=3.8.0
Description-Content-Type: text/markdown
License-File: LICENSE
Requires-Dist: filelock
Requires-Dist: typing-extensions
Requires-Dist: sympy
Requires-Dist: networkx
Requires-Dist: jinja2
Requires-Dist: fsspec
Requires-Dist: nvidia-cuda-nvrtc-cu12 ==12.1.105 ; platform_system == "Linux" and platform_machine == "x86_64"
Requires-Dist: triton ==2.1.0 ; platform_system == "Linux" and platform_machine == "x86_64"
Provides-Extra: dynamo
Requires-Dist: jinja2 ; extra == 'dynamo'
Provides-Extra: opt-einsum
Requires-Dist: opt-einsum >=3.3 ; extra == 'opt-einsum'

![PyTorch Logo](https://github.com/pytorch/pytorch/raw/main/docs/source/_static/img/pytorch-logo-dark.png)
Name: not-a-header
"#;

#[test]
fn synthetic_environments() {
    let dir = fixture_dir("synthetic");

    // A uv-style venv (version_info) with a CUDA torch build, a broken and an empty dist-info,
    // a legacy egg-info and a bad Requires-Dist line.
    let venv = dir.join("venv");
    write(&venv, "pyvenv.cfg", "home = /usr/bin\nimplementation = CPython\nuv = 0.4.0\nversion_info = 3.12.1\ninclude-system-site-packages = false\n");
    let site = "lib/python3.12/site-packages";
    write(
        &venv,
        &format!("{site}/torch-2.1.2+cu121.dist-info/METADATA"),
        TORCH_METADATA,
    );
    write(
        &venv,
        &format!("{site}/broken-1.0.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: broken\nVersion: not-a-version\n",
    );
    fs::create_dir_all(venv.join(format!("{site}/empty-0.1.dist-info"))).expect("mkdir");
    write(
        &venv,
        &format!("{site}/Legacy_Pkg-0.5-py3.12.egg-info/PKG-INFO"),
        "Metadata-Version: 1.0\nName: Legacy_Pkg\nVersion: 0.5\n",
    );
    write(
        &venv,
        &format!("{site}/colossalai-0.3.6.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: colossalai\nVersion: 0.3.6\nRequires-Dist: torch <2.2,>=1.12\nRequires-Dist: fabric ;; nonsense\nRequires-Python: >=3.7\n",
    );

    let env = open_environment_at(&venv).expect("venv opens");
    assert_eq!(env.site_packages.root, venv);
    assert_eq!(env.site_packages.dirs, vec![venv.join(site)]);
    assert_eq!(env.site_packages.python_version, Some(v("3.12.1")));
    assert!(!env.site_packages.include_system_site_packages);
    assert_eq!(env.site_packages.base_home, Some(PathBuf::from("/usr/bin")));

    let names: Vec<(&str, String)> = env
        .distributions
        .iter()
        .map(|d| (d.name.as_str(), d.version.to_string()))
        .collect();
    assert_eq!(
        names,
        vec![
            ("colossalai", "0.3.6".to_string()),
            ("legacy-pkg", "0.5".to_string()),
            ("torch", "2.1.2+cu121".to_string()),
        ]
    );

    let torch = env.get("Torch").expect("torch installed");
    assert_eq!(torch.display_name, "torch");
    assert_eq!(torch.version, v("2.1.2+cu121"));
    assert_eq!(
        apicompat_requirements::release_of(&torch.version),
        v("2.1.2")
    );
    assert_eq!(
        torch
            .requires_python
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(">=3.8.0")
    );
    assert_eq!(
        torch.provides_extra,
        vec!["dynamo".to_string(), "opt-einsum".to_string()]
    );
    let requires: Vec<String> = torch
        .requires_dist
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        requires,
        vec![
            "filelock",
            "typing-extensions",
            "sympy",
            "networkx",
            "jinja2",
            "fsspec",
            "nvidia-cuda-nvrtc-cu12==12.1.105 ; platform_machine == 'x86_64' and platform_system == 'Linux'",
            "triton==2.1.0 ; platform_machine == 'x86_64' and platform_system == 'Linux'",
            "jinja2 ; extra == 'dynamo'",
            "opt-einsum>=3.3 ; extra == 'opt-einsum'",
        ]
    );
    assert_eq!(
        torch.metadata_path,
        venv.join(site).join("torch-2.1.2+cu121.dist-info/METADATA")
    );

    let colossalai = env.get("colossalai").expect("colossalai installed");
    assert_eq!(colossalai.requires_dist.len(), 1);
    assert_eq!(colossalai.requires_dist[0].to_string(), "torch>=1.12,<2.2");

    let diags: Vec<(Severity, String, Option<u32>)> = env
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.severity,
                d.file
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                d.line,
            )
        })
        .collect();
    assert_eq!(
        diags,
        vec![
            (Severity::Error, "METADATA".to_string(), Some(3)),
            (Severity::Error, "METADATA".to_string(), Some(5)),
            (Severity::Error, "METADATA".to_string(), None),
        ]
    );
    assert_eq!(
        env.diagnostics[0].message,
        "invalid version `not-a-version`: expected version to start with a number, but no leading ASCII digits were found; skipped"
    );
    assert!(env.diagnostics[1]
        .message
        .starts_with("invalid Requires-Dist `fabric ;; nonsense`: "));
    assert!(env.diagnostics[2]
        .message
        .starts_with("cannot read metadata: "));
    assert!(env.diagnostics[2]
        .file
        .ends_with("empty-0.1.dist-info/METADATA"));

    // Markers of torch's Requires-Dist in this environment.
    let linux = env
        .marker_environment(Platform::Linux)
        .expect("version known");
    let mac = env
        .marker_environment(Platform::MacOs)
        .expect("version known");
    let triton = &torch.requires_dist[7];
    assert_eq!(
        requirement_applies(triton, &linux, &[]),
        std::env::consts::ARCH == "x86_64"
    );
    assert!(!requirement_applies(triton, &mac, &[]));
    let opt_einsum = &torch.requires_dist[9];
    assert!(!requirement_applies(opt_einsum, &linux, &[]));
    assert!(requirement_applies(opt_einsum, &linux, &["opt-einsum"]));
    assert!(requirement_applies(opt_einsum, &linux, &["opt_einsum"]));

    // The interpreter path of the same venv gives the same environment.
    write(&venv, "bin/python3.12", "");
    let by_interpreter = open_environment_at(&venv.join("bin/python3.12")).expect("opens");
    assert_eq!(by_interpreter.site_packages.root, venv);
    assert_eq!(
        by_interpreter.site_packages.interpreter,
        Some(venv.join("bin/python3.12"))
    );
    assert_eq!(by_interpreter.distributions.len(), 3);

    // VIRTUAL_ENV is used when no path is given (the only test that touches it).
    std::env::set_var("VIRTUAL_ENV", &venv);
    let from_var = open_environment(None).expect("VIRTUAL_ENV opens");
    assert_eq!(from_var.site_packages.root, venv);
    std::env::remove_var("VIRTUAL_ENV");
    assert!(matches!(
        open_environment(None),
        Err(EnvError::NotSpecified)
    ));

    // Windows layout, opened through Scripts\python.exe.
    let win = dir.join("winenv");
    write(
        &win,
        "pyvenv.cfg",
        "home = C:\\Python310\nversion = 3.10.11\n",
    );
    write(&win, "Scripts/python.exe", "");
    write(
        &win,
        "Lib/site-packages/colossalai-0.3.6.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: colossalai\nVersion: 0.3.6\n",
    );
    let env = open_environment_at(&win.join("Scripts/python.exe")).expect("windows env opens");
    assert_eq!(env.site_packages.root, win);
    assert_eq!(env.site_packages.dirs, vec![win.join("Lib/site-packages")]);
    assert_eq!(env.site_packages.python_version, Some(v("3.10.11")));
    assert_eq!(env.distributions.len(), 1);

    // A conda-style env without pyvenv.cfg: the version comes from lib/python3.X.
    let conda = dir.join("conda");
    write(
        &conda,
        "lib/python3.10/site-packages/six-1.16.0.dist-info/METADATA",
        "Name: six\nVersion: 1.16.0\n",
    );
    let env = open_environment_at(&conda).expect("conda env opens");
    assert_eq!(env.site_packages.python_version, Some(v("3.10")));
    assert_eq!(env.distributions[0].name, "six");

    // Errors.
    let missing = dir.join("does-not-exist");
    match open_environment_at(&missing) {
        Err(EnvError::NotFound(p)) => assert_eq!(p, missing),
        other => panic!("expected NotFound, got {other:?}"),
    }
    let empty = dir.join("empty");
    fs::create_dir_all(&empty).expect("mkdir");
    let err = open_environment_at(&empty).expect_err("not an environment");
    assert!(matches!(err, EnvError::NotAnEnvironment { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "{}: not a Python environment (no lib/python3.X/site-packages or Lib/site-packages under {})",
            empty.display(),
            empty.display()
        )
    );
}

#[test]
fn marker_evaluation() {
    let env = marker_environment(&v("3.11.7"), Platform::Linux).expect("env");
    assert_eq!(
        evaluate_marker(
            "python_version >= '3.9' and sys_platform == 'linux'",
            &env,
            &[]
        ),
        Ok(true)
    );
    assert_eq!(
        evaluate_marker("python_version < '3.10'", &env, &[]),
        Ok(false)
    );
    assert_eq!(
        evaluate_marker("python_full_version == '3.11.7'", &env, &[]),
        Ok(true)
    );
    assert_eq!(
        evaluate_marker("platform_system == 'Windows'", &env, &[]),
        Ok(false)
    );
    assert_eq!(evaluate_marker("os_name == 'posix'", &env, &[]), Ok(true));
    assert_eq!(
        evaluate_marker("extra == 'cuda'", &env, &["cuda"]),
        Ok(true)
    );
    assert_eq!(evaluate_marker("extra == 'cuda'", &env, &[]), Ok(false));
    assert!(evaluate_marker("python_version >>> '3'", &env, &[]).is_err());
    let win = marker_environment(&v("3.12"), Platform::Windows).expect("env");
    assert_eq!(
        evaluate_marker(
            "sys_platform == 'win32' and platform_system == 'Windows' and os_name == 'nt'",
            &win,
            &[]
        ),
        Ok(true)
    );
    assert_eq!(
        evaluate_marker("python_version == '3.12'", &win, &[]),
        Ok(true)
    );
}

/// A real venv made by `python3 -m venv` with real packages installed from PyPI by pip.
#[test]
fn real_venv_dist_info() {
    let dir = fixture_dir("real");
    let venv = dir.join("venv");
    let created = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .output();
    match created {
        Err(e) => {
            eprintln!("SKIPPED real_venv_dist_info: python3 is not available ({e})");
            return;
        }
        Ok(out) if !out.status.success() => {
            eprintln!(
                "SKIPPED real_venv_dist_info: `python3 -m venv` failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return;
        }
        Ok(_) => {}
    }
    let python = venv.join("bin/python");
    let installed = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "-q",
        ])
        .args(["six==1.16.0", "python-dateutil==2.9.0.post0"])
        .output()
        .expect("run pip");
    if !installed.status.success() {
        eprintln!(
            "SKIPPED real_venv_dist_info: pip install failed (no package index?): {}",
            String::from_utf8_lossy(&installed.stderr)
        );
        return;
    }
    let truth = Command::new(&python)
        .args(["-c", "import sys, sysconfig; print('%d.%d.%d' % sys.version_info[:3]); print(sysconfig.get_paths()['purelib'])"])
        .output()
        .expect("run python");
    let truth = String::from_utf8_lossy(&truth.stdout).into_owned();
    let mut lines = truth.lines();
    let py_version = v(lines.next().expect("version line"));
    let purelib = PathBuf::from(lines.next().expect("purelib line"));

    for env in [
        open_environment_at(&venv).expect("venv dir opens"),
        open_environment_at(&python).expect("interpreter opens"),
    ] {
        assert_eq!(env.site_packages.root, venv);
        assert_eq!(env.site_packages.python_version.as_ref(), Some(&py_version));
        assert_eq!(env.site_packages.dirs.len(), 1);
        assert_eq!(
            fs::canonicalize(&env.site_packages.dirs[0]).expect("canonical"),
            fs::canonicalize(&purelib).expect("canonical")
        );
        assert_eq!(env.diagnostics, vec![]);

        let six = env.get("six").expect("six installed");
        assert_eq!(six.display_name, "six");
        assert_eq!(six.version, v("1.16.0"));
        assert_eq!(six.requires_dist, vec![]);
        assert_eq!(
            six.requires_python
                .as_ref()
                .map(ToString::to_string)
                .as_deref(),
            Some(">=2.7, !=3.0.*, !=3.1.*, !=3.2.*")
        );

        let dateutil = env.get("python_dateutil").expect("dateutil installed");
        assert_eq!(dateutil.display_name, "python-dateutil");
        assert_eq!(dateutil.version, v("2.9.0.post0"));
        let requires: Vec<String> = dateutil
            .requires_dist
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(requires, vec!["six>=1.5".to_string()]);
        let six_req = ParsedRequirement::from(&dateutil.requires_dist[0]);
        assert_eq!(six_req.name, "six");
        assert!(apicompat_requirements::admits(
            &six_req.specifier,
            &six.version
        ));
        // pip itself is there (its version depends on the Python that made the venv).
        assert!(env.get("pip").is_some());
    }
}

#[test]
fn raw_requires_dist_and_egg_info_requires_txt() {
    let root = fixture_dir("raw_and_requires_txt");
    let site = "lib/python3.11/site-packages";
    write(&root, "pyvenv.cfg", "version = 3.11.7\n");
    write(
        &root,
        &format!("{site}/zipp_user-1.0.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: zipp-user\nVersion: 1.0\nRequires-Dist: zipp (>=3.20)\nRequires-Dist: bad requirement !!\nRequires-Dist: six ; python_version < '3'\n",
    );
    // A legacy egg-info whose PKG-INFO lists no requirements: requires.txt is read as pip does.
    write(
        &root,
        &format!("{site}/legacy-0.5-py3.11.egg-info/PKG-INFO"),
        "Metadata-Version: 1.1\nName: legacy\nVersion: 0.5\n",
    );
    write(
        &root,
        &format!("{site}/legacy-0.5-py3.11.egg-info/requires.txt"),
        "six>=1.5\n# comment\n\n[:sys_platform == \"win32\"]\npywin32\n\n[Test:python_version < \"3.8\"]\npytest\n",
    );
    let env = open_environment_at(&root).expect("open");
    let user = env.get("zipp-user").expect("zipp-user");
    assert_eq!(user.requires_dist.len(), 2);
    assert_eq!(
        user.requires_dist_raw,
        vec![
            "zipp (>=3.20)".to_string(),
            "six ; python_version < '3'".to_string()
        ]
    );
    let legacy = env.get("legacy").expect("legacy");
    assert_eq!(
        legacy.requires_dist_raw,
        vec![
            "six>=1.5".to_string(),
            "pywin32 ; sys_platform == \"win32\"".to_string(),
            "pytest ; (python_version < \"3.8\") and extra == \"test\"".to_string(),
        ]
    );
    assert_eq!(legacy.requires_dist.len(), 3);
    assert_eq!(legacy.provides_extra, vec!["test".to_string()]);
}
