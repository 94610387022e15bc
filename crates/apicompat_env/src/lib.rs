//! What is wrong with an installed Python environment, read from its metadata without running
//! Python (the environment itself is read by [`apicompat_requirements::open_environment_at`]):
//!
//! - every `Requires-Dist` checked against what is installed, markers evaluated for that
//!   interpreter, reported in `pip check`'s words ([`EnvReport::pip_check_lines`]);
//! - `Requires-Python` against the interpreter's version;
//! - exact pins (`torchvision` requiring `torch==2.1.2`) and the local labels (`+cu121`,
//!   `+rocm6.0`, `+cpu`) of the packages joined by them: packages built against one release
//!   of another must come from the same build variant.
//!
//! Nothing here knows a package by name: pins and labels are read from the metadata.

pub mod pip_format;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use apicompat_requirements::{
    admits_with, local_label, normalize_name, open_environment_at, release_of, requirement_applies,
    satisfies, EnvError, InstalledDistribution, InstalledEnvironment, MarkerEnvironment, Operator,
    Platform, Requirement, Severity, Version, VersionOrUrl,
};

/// Why an environment could not be opened (exit code 2 in the CLI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenError(pub String);

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpenError {}

/// Opens the environment of `--python PATH` (an interpreter or an environment directory), or
/// of `virtual_env` (`VIRTUAL_ENV`) when no path is given. A file given as the interpreter must
/// look like one: a `python*`/`pypy*` name and an executable (ELF, Mach-O, PE) or a script.
pub fn open(
    python: Option<&Path>,
    virtual_env: Option<&Path>,
) -> Result<InstalledEnvironment, OpenError> {
    let (path, how) = match (python, virtual_env) {
        (Some(p), _) => (p, "--python"),
        (None, Some(v)) => (v, "VIRTUAL_ENV"),
        (None, None) => {
            return Err(OpenError(EnvError::NotSpecified.to_string()));
        }
    };
    if std::fs::symlink_metadata(path).is_err() {
        return Err(OpenError(format!(
            "{how} {}: no such file or directory",
            path.display()
        )));
    }
    if path.is_file() {
        check_interpreter(path).map_err(|reason| {
            OpenError(format!(
                "{how} {}: not a Python interpreter ({reason})",
                path.display()
            ))
        })?;
    }
    open_environment_at(path).map_err(|e| OpenError(format!("{how}: {e}")))
}

/// Whether a file can be a Python interpreter: its name (or the name of the file a symlink
/// points to) starts with `python` or `pypy`, and it begins like a program.
pub fn check_interpreter(path: &Path) -> Result<(), String> {
    let looks_named = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .map(str::to_ascii_lowercase)
            .is_some_and(|n| n.starts_with("python") || n.starts_with("pypy"))
    };
    let real = std::fs::canonicalize(path).ok();
    if !looks_named(path) && !real.as_deref().is_some_and(looks_named) {
        return Err("its name is not python, python3, python3.X or pypy3".to_string());
    }
    let mut head = [0u8; 4];
    let n = {
        use std::io::Read;
        let mut file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
        let mut n = 0;
        while n < head.len() {
            match file.read(&mut head[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) => return Err(format!("cannot read it: {e}")),
            }
        }
        n
    };
    let head = &head[..n];
    let program = head.starts_with(b"\x7fELF")
        || head.starts_with(b"MZ")
        || head.starts_with(b"#!")
        || [
            [0xfe, 0xed, 0xfa, 0xce],
            [0xfe, 0xed, 0xfa, 0xcf],
            [0xce, 0xfa, 0xed, 0xfe],
            [0xcf, 0xfa, 0xed, 0xfe],
            [0xca, 0xfe, 0xba, 0xbe],
        ]
        .iter()
        .any(|magic| head == magic);
    if program {
        Ok(())
    } else if n == 0 {
        Err("it is an empty file".to_string())
    } else {
        Err("it is not an executable program or script".to_string())
    }
}

/// Where the environment is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvironmentInfo {
    pub root: PathBuf,
    pub interpreter: Option<PathBuf>,
    pub site_packages: Vec<PathBuf>,
    /// The interpreter's version (`3.11.7`; only `3.11` when read from a directory name).
    pub python_version: Option<String>,
    pub include_system_site_packages: bool,
}

/// One installed distribution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Distribution {
    /// Normalized name (`importlib-metadata`).
    pub name: String,
    /// As written in the metadata (`importlib_metadata`).
    pub display_name: String,
    /// With the local label (`2.1.2+cu121`).
    pub version: String,
    /// Without it (`2.1.2`).
    pub release: String,
    pub local_label: Option<String>,
    pub requires_python: Option<String>,
    pub metadata_path: PathBuf,
}

/// `X 1.0 requires Y, which is not installed.`
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Missing {
    pub package: String,
    pub version: String,
    /// Normalized name of the missing distribution.
    pub dependency: String,
    /// The requirement as pip prints it.
    pub requirement: String,
}

/// `X 1.0 has requirement Y>=2, but you have Y 1.0.`
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Conflict {
    pub package: String,
    pub version: String,
    pub dependency: String,
    pub installed: String,
    pub requirement: String,
}

/// A distribution whose `Requires-Python` excludes the interpreter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PythonMismatch {
    pub package: String,
    pub version: String,
    pub requires_python: String,
    pub python: String,
}

/// One installed distribution that requires an exact release of another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pin {
    pub package: String,
    pub version: String,
    pub local_label: Option<String>,
    /// As pip prints it: `torch==2.1.2`.
    pub requirement: String,
    /// Whether the installed release is the one pinned.
    pub satisfied: bool,
}

/// A distribution that others require exactly (torch, with torchvision and torchaudio).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PinGroup {
    pub package: String,
    pub version: String,
    pub local_label: Option<String>,
    pub pinned_by: Vec<Pin>,
}

/// One side of a label mismatch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Labelled {
    pub package: String,
    pub version: String,
    pub local_label: String,
}

/// Two distributions joined by an exact pin whose local labels name different build variants
/// (`torch 2.1.2+cu121` with `torchvision 0.16.2+cu118`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LabelMismatch {
    /// The distribution pinned (or, when it has no label, the first labelled one pinning it).
    pub reference: Labelled,
    pub other: Labelled,
    /// The pin that joins them: `torchvision 0.16.2+cu118 requires torch==2.1.2`.
    pub via: String,
}

/// A problem reading the environment (broken metadata: exit code 2 in the CLI).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvDiagnostic {
    pub file: PathBuf,
    pub line: Option<u32>,
    /// `error`, `warning` or `note`.
    pub severity: &'static str,
    pub message: String,
}

/// Everything [`inspect`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvReport {
    pub environment: EnvironmentInfo,
    pub distributions: Vec<Distribution>,
    pub missing: Vec<Missing>,
    pub conflicts: Vec<Conflict>,
    pub requires_python: Vec<PythonMismatch>,
    pub exact_pins: Vec<PinGroup>,
    pub label_mismatches: Vec<LabelMismatch>,
    pub diagnostics: Vec<EnvDiagnostic>,
    /// What could not be checked, and why.
    pub notes: Vec<String>,
}

impl EnvReport {
    /// The requirement problems in `pip check`'s words, missing ones first (as pip orders
    /// them), each group sorted by distribution.
    pub fn pip_check_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .missing
            .iter()
            .map(|m| {
                format!(
                    "{} {} requires {}, which is not installed.",
                    m.package, m.version, m.dependency
                )
            })
            .collect();
        out.extend(self.conflicts.iter().map(|c| {
            format!(
                "{} {} has requirement {}, but you have {} {}.",
                c.package, c.version, c.requirement, c.dependency, c.installed
            )
        }));
        out
    }

    /// Requirement problems, Requires-Python mismatches and label mismatches.
    pub fn problem_count(&self) -> usize {
        self.missing.len()
            + self.conflicts.len()
            + self.requires_python.len()
            + self.label_mismatches.len()
    }

    /// Whether some metadata could not be read.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == "error")
    }
}

/// Requirements of `dist` that apply in this environment with no extra requested (as pip
/// check takes them). `None` for the marker environment: only unmarked ones apply.
fn applicable<'a>(
    dist: &'a InstalledDistribution,
    markers: Option<&'a MarkerEnvironment>,
) -> impl Iterator<Item = (&'a Requirement, String)> + 'a {
    dist.requires_dist
        .iter()
        .enumerate()
        .filter(move |(_, req)| {
            if req.marker.is_true() {
                return true;
            }
            markers.is_some_and(|env| requirement_applies(req, env, &[]))
        })
        .map(move |(i, req)| {
            let raw = dist.requires_dist_raw.get(i).map_or("", String::as_str);
            let text = pip_format::packaging_str(raw).unwrap_or_else(|| req.to_string());
            (req, text)
        })
}

fn specifiers(req: &Requirement) -> Option<&apicompat_requirements::VersionSpecifiers> {
    match &req.version_or_url {
        Some(VersionOrUrl::VersionSpecifier(spec)) => Some(spec),
        _ => None,
    }
}

/// Whether a requirement names exactly one release: a `==V` (not `==V.*`) or `===V` clause.
fn is_exact(req: &Requirement) -> bool {
    specifiers(req).is_some_and(|spec| {
        spec.iter()
            .any(|s| matches!(s.operator(), Operator::Equal | Operator::ExactEqual))
    })
}

/// The build variant a local label names: its first segment and the numeric segments right
/// after it, lowercased (`cu121` of `cu121.with.pypi.cudnn`, `rocm6.0` of `rocm6.0.dev1`).
pub fn build_variant(label: &str) -> String {
    let mut parts = label.split(['.', '-', '_']);
    let mut out = parts.next().unwrap_or_default().to_ascii_lowercase();
    for p in parts {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        out.push('.');
        out.push_str(p);
    }
    out
}

/// Inspects an opened environment; markers are evaluated for its interpreter on `platform`.
pub fn inspect(env: &InstalledEnvironment, platform: Platform) -> EnvReport {
    let sp = &env.site_packages;
    let mut notes = Vec::new();
    let markers = env.marker_environment(platform);
    if markers.is_none() {
        notes.push(
            "the interpreter's version is unknown (no version in pyvenv.cfg, no python3.X directory): requirements with environment markers are not checked".to_string(),
        );
    }
    if sp.include_system_site_packages {
        notes.push(
            "include-system-site-packages is true: the base interpreter's packages are not read"
                .to_string(),
        );
    }

    let distributions = env
        .distributions
        .iter()
        .map(|d| Distribution {
            name: d.name.clone(),
            display_name: d.display_name.clone(),
            version: d.version.to_string(),
            release: release_of(&d.version).to_string(),
            local_label: local_label(&d.version),
            requires_python: d.requires_python.as_ref().map(ToString::to_string),
            metadata_path: d.metadata_path.clone(),
        })
        .collect();

    // pip check.
    let mut missing: BTreeSet<Missing> = BTreeSet::new();
    let mut conflicts: BTreeSet<Conflict> = BTreeSet::new();
    let mut pins: BTreeMap<String, Vec<Pin>> = BTreeMap::new();
    for dist in &env.distributions {
        for (req, text) in applicable(dist, markers.as_ref()) {
            let dependency = normalize_name(req.name.as_ref());
            let Some(installed) = env.get(&dependency) else {
                missing.insert(Missing {
                    package: dist.name.clone(),
                    version: dist.version.to_string(),
                    dependency,
                    requirement: text,
                });
                continue;
            };
            let satisfied = specifiers(req).is_none_or(|spec| satisfies(spec, &installed.version));
            if !satisfied {
                conflicts.insert(Conflict {
                    package: dist.name.clone(),
                    version: dist.version.to_string(),
                    dependency: dependency.clone(),
                    installed: installed.version.to_string(),
                    requirement: text.clone(),
                });
            }
            if is_exact(req) && installed.name != dist.name {
                let group = pins.entry(installed.name.clone()).or_default();
                if !group.iter().any(|p| p.package == dist.name) {
                    group.push(Pin {
                        package: dist.name.clone(),
                        version: dist.version.to_string(),
                        local_label: local_label(&dist.version),
                        requirement: text,
                        satisfied,
                    });
                }
            }
        }
    }

    // Requires-Python.
    let mut requires_python = Vec::new();
    if let Some(python) = &sp.python_version {
        let partial = python.release().len() < 3;
        let mut undecided = Vec::new();
        for dist in &env.distributions {
            let Some(spec) = &dist.requires_python else {
                continue;
            };
            let verdict = if partial {
                // Only `3.X` is known: decide only when every patch release agrees.
                let lo = python.clone();
                let hi = Version::new(
                    python
                        .release()
                        .iter()
                        .copied()
                        .chain(std::iter::once(u64::from(u32::MAX))),
                );
                let (a, b) = (admits_with(spec, &lo, true), admits_with(spec, &hi, true));
                (a == b).then_some(a)
            } else {
                Some(admits_with(spec, python, true))
            };
            match verdict {
                Some(true) => {}
                Some(false) => requires_python.push(PythonMismatch {
                    package: dist.name.clone(),
                    version: dist.version.to_string(),
                    requires_python: spec.to_string(),
                    python: python.to_string(),
                }),
                None => undecided.push(format!("{} {} ({spec})", dist.name, dist.version)),
            }
        }
        if !undecided.is_empty() {
            notes.push(format!(
                "the interpreter is known only as Python {python}: Requires-Python of {} depends on the patch release",
                undecided.join(", ")
            ));
        }
    } else {
        notes.push(
            "the interpreter's version is unknown: Requires-Python is not checked".to_string(),
        );
    }

    // Exact pins and the local labels of the packages they join.
    let mut exact_pins = Vec::new();
    let mut label_mismatches = Vec::new();
    let mut reported: BTreeSet<(String, String)> = BTreeSet::new();
    for (anchor_name, mut pinned_by) in pins {
        let Some(anchor) = env.get(&anchor_name) else {
            continue;
        };
        pinned_by.sort_by(|a, b| a.package.cmp(&b.package));
        let anchor_label = local_label(&anchor.version);
        // The reference build: the pinned distribution's, else the first labelled pinner's.
        let reference: Option<(Labelled, Option<String>)> = match &anchor_label {
            Some(l) => Some((
                Labelled {
                    package: anchor.name.clone(),
                    version: anchor.version.to_string(),
                    local_label: l.clone(),
                },
                None,
            )),
            None => pinned_by.iter().find_map(|p| {
                p.local_label.as_ref().map(|l| {
                    (
                        Labelled {
                            package: p.package.clone(),
                            version: p.version.clone(),
                            local_label: l.clone(),
                        },
                        Some(format!(
                            "{} {} requires {}",
                            p.package, p.version, p.requirement
                        )),
                    )
                })
            }),
        };
        if let Some((reference, reference_via)) = reference {
            let want = build_variant(&reference.local_label);
            for p in &pinned_by {
                let Some(label) = &p.local_label else {
                    continue;
                };
                if p.package == reference.package || build_variant(label) == want {
                    continue;
                }
                let key = if p.package < reference.package {
                    (p.package.clone(), reference.package.clone())
                } else {
                    (reference.package.clone(), p.package.clone())
                };
                if !reported.insert(key) {
                    continue;
                }
                let via = format!("{} {} requires {}", p.package, p.version, p.requirement);
                let via = match &reference_via {
                    Some(r) => format!("{r}; {via}"),
                    None => via,
                };
                label_mismatches.push(LabelMismatch {
                    reference: reference.clone(),
                    other: Labelled {
                        package: p.package.clone(),
                        version: p.version.clone(),
                        local_label: label.clone(),
                    },
                    via,
                });
            }
        }
        exact_pins.push(PinGroup {
            package: anchor.name.clone(),
            version: anchor.version.to_string(),
            local_label: anchor_label,
            pinned_by,
        });
    }

    let diagnostics = env
        .diagnostics
        .iter()
        .map(|d| EnvDiagnostic {
            file: d.file.clone(),
            line: d.line,
            severity: match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "note",
            },
            message: d.message.clone(),
        })
        .collect();

    EnvReport {
        environment: EnvironmentInfo {
            root: sp.root.clone(),
            interpreter: sp.interpreter.clone(),
            site_packages: sp.dirs.clone(),
            python_version: sp.python_version.as_ref().map(ToString::to_string),
            include_system_site_packages: sp.include_system_site_packages,
        },
        distributions,
        missing: missing.into_iter().collect(),
        conflicts: conflicts.into_iter().collect(),
        requires_python,
        exact_pins,
        label_mismatches,
        diagnostics,
        notes,
    }
}
