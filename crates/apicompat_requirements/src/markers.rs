//! PEP 508 environment markers evaluated for a given interpreter and platform.

use std::fmt;
use std::str::FromStr;

use pep508_rs::{ExtraName, MarkerEnvironment, MarkerEnvironmentBuilder, MarkerTree, Requirement};

use crate::version::Version;

/// The operating system a marker environment describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Platform {
    /// `sys_platform == "linux"`, `platform_system == "Linux"`.
    Linux,
    /// `sys_platform == "darwin"`, `platform_system == "Darwin"`.
    MacOs,
    /// `sys_platform == "win32"`, `platform_system == "Windows"`.
    Windows,
}

impl Platform {
    /// The platform this program runs on (Linux for anything not macOS or Windows).
    pub fn host() -> Self {
        match std::env::consts::OS {
            "macos" => Platform::MacOs,
            "windows" => Platform::Windows,
            _ => Platform::Linux,
        }
    }

    fn sys_platform(self) -> &'static str {
        match self {
            Platform::Linux => "linux",
            Platform::MacOs => "darwin",
            Platform::Windows => "win32",
        }
    }

    fn platform_system(self) -> &'static str {
        match self {
            Platform::Linux => "Linux",
            Platform::MacOs => "Darwin",
            Platform::Windows => "Windows",
        }
    }

    fn os_name(self) -> &'static str {
        match self {
            Platform::Windows => "nt",
            _ => "posix",
        }
    }

    /// `platform_machine` as Python reports it for this build's CPU on that platform.
    fn machine(self) -> &'static str {
        match (self, std::env::consts::ARCH) {
            (Platform::Windows, "x86_64") => "AMD64",
            (Platform::Windows, "aarch64") => "ARM64",
            (Platform::MacOs, "aarch64") => "arm64",
            (_, arch) => arch,
        }
    }
}

/// Parentheses in a requirement or marker nest at most this deep: the PEP 508 parser
/// recurses once per level, so `((((...` 100k deep would overflow its stack. No real marker
/// nests more than a few levels.
pub const MAX_MARKER_NESTING: usize = 100;

/// Refuses text whose parentheses nest deeper than [`MAX_MARKER_NESTING`], before any parser
/// sees it. Parentheses inside quoted values count too: an unbalanced quote (in a URL) must
/// not hide the nesting that follows it.
pub(crate) fn check_nesting(text: &str) -> Result<(), String> {
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'(' => {
                depth += 1;
                if depth > MAX_MARKER_NESTING {
                    return Err(format!(
                        "parentheses nested deeper than {MAX_MARKER_NESTING}; not parsed"
                    ));
                }
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// At most this many characters of a refused input are quoted in messages.
const QUOTED_CHARS: usize = 80;

/// The start of `text` for a message: at most [`QUOTED_CHARS`] characters.
pub(crate) fn quote_start(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

/// A marker that is not valid PEP 508.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerError {
    /// The marker text.
    pub input: String,
    /// The parser's message.
    pub message: String,
}

impl fmt::Display for MarkerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid marker `{}`: {}", self.input, self.message)
    }
}

impl std::error::Error for MarkerError {}

/// The marker environment of a CPython interpreter of version `python` (`3.11.7`; a bare
/// `3.11` gives `python_full_version == "3.11"`) on `platform`. `platform_release` and
/// `platform_version` are empty (they cannot be known without running Python).
pub fn marker_environment(
    python: &Version,
    platform: Platform,
) -> Result<MarkerEnvironment, MarkerError> {
    marker_environment_on(python, platform, platform.machine())
}

/// [`marker_environment`] on a given CPU (`platform_machine`: `x86_64`, `aarch64`, `arm64`).
pub fn marker_environment_on(
    python: &Version,
    platform: Platform,
    machine: &str,
) -> Result<MarkerEnvironment, MarkerError> {
    let release = python.release();
    let short = match release {
        [major, minor, ..] => format!("{major}.{minor}"),
        [major] => format!("{major}.0"),
        [] => String::from("3"),
    };
    let full = python.to_string();
    MarkerEnvironment::try_from(MarkerEnvironmentBuilder {
        implementation_name: "cpython",
        implementation_version: &full,
        os_name: platform.os_name(),
        platform_machine: machine,
        platform_python_implementation: "CPython",
        platform_release: "",
        platform_system: platform.platform_system(),
        platform_version: "",
        python_full_version: &full,
        python_version: &short,
        sys_platform: platform.sys_platform(),
    })
    .map_err(|e| MarkerError {
        input: full.clone(),
        message: e.to_string(),
    })
}

/// Evaluates a marker string (`python_version < "3.10" and extra == "cuda"`) in `env` with the
/// given extras active.
pub fn evaluate_marker(
    marker: &str,
    env: &MarkerEnvironment,
    extras: &[&str],
) -> Result<bool, MarkerError> {
    check_nesting(marker).map_err(|message| MarkerError {
        input: quote_start(marker),
        message,
    })?;
    crate::pep508_guard::marker(marker).map_err(|message| MarkerError {
        input: quote_start(marker),
        message,
    })?;
    let tree = MarkerTree::from_str(marker).map_err(|e| MarkerError {
        input: marker.to_string(),
        message: e.message.to_string(),
    })?;
    let extras = extra_names(extras);
    Ok(tree.evaluate(env, &extras))
}

/// Whether a requirement (a `Requires-Dist` entry) applies in `env` with the given extras of
/// its dependent requested.
pub fn requirement_applies(req: &Requirement, env: &MarkerEnvironment, extras: &[&str]) -> bool {
    req.evaluate_markers(env, &extra_names(extras))
}

fn extra_names(extras: &[&str]) -> Vec<ExtraName> {
    extras
        .iter()
        .filter_map(|e| ExtraName::from_str(e).ok())
        .collect()
}

/// Drops the markers of `reqs` that hold everywhere the project runs: in each of the
/// [`training_environments`] whose Python the project's `requires-python` (`python`) admits
/// (metavoice's `torch==2.1.0 ; python_version >= "3.10" and python_version < "4.0"` beside
/// `requires-python = "^3.10"`: a bound on every install, not an alternative; study 53, D-1).
/// Markers naming an extra are left as they are.
pub(crate) fn settle(reqs: &mut [crate::DeclaredRequirement], python: &crate::VersionSpecifiers) {
    let envs: Vec<&MarkerEnvironment> = training_environments()
        .iter()
        .filter(|(env, _)| crate::admits_minor(python, &env.python_version().version))
        .map(|(env, _)| env)
        .collect();
    if envs.is_empty() {
        return;
    }
    for r in reqs.iter_mut() {
        let Some(marker) = &r.marker else { continue };
        if marker.contains("extra") {
            continue;
        }
        if envs.iter().all(|env| r.marker_tree.evaluate(env, &[])) {
            r.marker = None;
            r.marker_tree = MarkerTree::TRUE;
        }
    }
}

/// The environments a declaration's markers are read in, each with the platform name of its
/// wheels: Linux and macOS on x86_64 and on ARM, each with CPython 3.8 - 3.14 (the Pythons
/// the index has). Training code runs there; a lock file exported for those platforms
/// (`accelerate==1.12.0 ; sys_platform == 'linux' or sys_platform == 'darwin'`, open-instruct)
/// is not undone by the Windows it leaves out.
pub fn training_environments() -> &'static [(MarkerEnvironment, &'static str)] {
    static ENVS: std::sync::OnceLock<Vec<(MarkerEnvironment, &'static str)>> =
        std::sync::OnceLock::new();
    ENVS.get_or_init(|| {
        let mut out = Vec::new();
        for (platform, machine, wheels) in [
            (Platform::Linux, "x86_64", "linux_x86_64"),
            (Platform::Linux, "aarch64", "linux_aarch64"),
            (Platform::MacOs, "x86_64", "macos_x86_64"),
            (Platform::MacOs, "arm64", "macos_arm64"),
        ] {
            for minor in 8..=14 {
                let Ok(python) = crate::parse_version(&format!("3.{minor}")) else {
                    continue;
                };
                if let Ok(env) = marker_environment_on(&python, platform, machine) {
                    out.push((env, wheels));
                }
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    /// metavoice-src's declarations (study 53, D-1): a marker that holds on every Python the
    /// project admits is no marker; one that holds on some of them stays.
    #[test]
    fn a_marker_every_admitted_python_meets_is_settled() {
        let dir =
            std::env::temp_dir().join(format!("apicompat-settle-markers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("pyproject.toml"),
            "[project]\nname = \"p\"\nversion = \"0\"\nrequires-python = \">=3.10,<4\"\ndependencies = [\"torch>=2.1.0,<3\"]\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("requirements.txt"),
            "torch==2.4.0 ; python_version >= \"3.10\" and python_version < \"4.0\"\n\
             numpy<2 ; python_version < \"3.12\"\n\
             einops ; sys_platform == \"linux\"\n",
        )
        .unwrap();
        let declared = crate::read_project(&dir);
        let markers: Vec<(&str, Option<&str>)> = declared
            .requirements
            .iter()
            .map(|r| (r.name.as_str(), r.marker.as_deref()))
            .collect();
        assert_eq!(markers[0], ("torch", None));
        assert_eq!(markers[1], ("torch", None));
        assert_eq!(markers[2].0, "numpy");
        assert!(markers[2].1.is_some());
        assert_eq!(markers[3].0, "einops");
        assert!(markers[3].1.is_some(), "macOS is left out");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
