//! What the joint answer is evaluated for: the marker environment, the project's
//! requires-python and the oldest Python it must run on, and the declared requirements.

use std::str::FromStr;

use apicompat_check::survey::Survey;
use apicompat_index::Catalog;
use apicompat_requirements::{
    marker_environment, parse_version, read_requires_python, satisfies, Declared, ExtraName,
    MarkerEnvironment, Platform, Version, VersionSpecifiers,
};

use crate::{DeclaredRef, RangeOptions};

/// What the joint answer is evaluated for.
#[derive(Clone)]
pub struct Setup {
    pub(crate) env: Option<MarkerEnvironment>,
    /// The environment, for a human: `CPython 3.11, Linux`.
    pub environment: String,
    /// The project's `requires-python`.
    pub requires_python: Option<DeclaredRef>,
    /// The oldest Python the project must run on: releases whose Requires-Python excludes it
    /// are left out.
    pub(crate) python_floor: Option<(Version, String)>,
    /// The newer Pythons the project's requires-python admits (minor releases), for when no
    /// release supports the oldest one.
    raises: Vec<Version>,
    pub(crate) declared: Declared,
}

impl Setup {
    pub fn new(
        _catalog: &Catalog,
        survey: &Survey,
        options: &RangeOptions,
        notes: &mut Vec<String>,
    ) -> Setup {
        let mut requires_python = None;
        let mut project_spec: Option<VersionSpecifiers> = None;
        match read_requires_python(&survey.project_root) {
            Some(Ok(rp)) => {
                requires_python = Some(DeclaredRef {
                    requirement: rp.raw.clone(),
                    source: rp.source.to_string(),
                });
                project_spec = Some(rp.specifier);
            }
            Some(Err(e)) => notes.push(format!("requires-python ignored: {e}")),
            None => {}
        }
        let given = options.python_version.as_deref().and_then(|v| {
            parse_version(v)
                .map_err(|e| notes.push(format!("--python-version ignored: {e}")))
                .ok()
        });
        // The lowest Python the project's requires-python admits.
        let lowest = project_spec.as_ref().and_then(|spec| {
            let mut candidates: Vec<Version> = (0..=40)
                .filter_map(|minor| parse_version(&format!("3.{minor}")).ok())
                .collect();
            candidates.extend(spec.iter().map(|s| s.version().clone()));
            candidates.sort();
            candidates.into_iter().find(|v| satisfies(spec, v))
        });
        let raises: Vec<Version> = match (&given, &project_spec, &lowest) {
            (None, Some(spec), Some(low)) => (0..=40)
                .filter_map(|minor| parse_version(&format!("3.{minor}")).ok())
                .filter(|v| v > low && satisfies(spec, v))
                .collect(),
            _ => Vec::new(),
        };
        let python_floor = match (&given, &lowest, &requires_python) {
            (Some(v), _, _) => Some((v.clone(), format!("Python {v} (--python-version)"))),
            (None, Some(v), Some(rp)) => Some((
                v.clone(),
                format!(
                    "Python {v}, the oldest the project's requires-python `{}` ({}) admits",
                    rp.requirement, rp.source
                ),
            )),
            _ => None,
        };
        if python_floor.is_none() {
            notes.push(
                "the project declares no requires-python: Requires-Python of the releases is not compared (give --python-version to compare it)"
                    .to_string(),
            );
        }
        let marker_python = given
            .clone()
            .or(lowest)
            .or_else(|| parse_version("3.11").ok());
        let env = marker_python
            .as_ref()
            .and_then(|v| marker_environment(v, Platform::Linux).ok());
        let environment = format!(
            "CPython {}, Linux",
            marker_python.map(|v| v.to_string()).unwrap_or_default()
        );
        Setup {
            env,
            environment,
            requires_python,
            python_floor,
            raises,
            declared: survey.declared.clone(),
        }
    }

    /// The newer Pythons the project admits, oldest first, to evaluate for when no release
    /// supports the oldest.
    pub fn raises(&self) -> &[Version] {
        &self.raises
    }

    /// The same, evaluated for Python `v` (one the project's requires-python admits).
    pub fn raised(&self, v: &Version) -> Setup {
        let mut s = self.clone();
        s.env = marker_environment(v, Platform::Linux).ok();
        s.environment = format!("CPython {v}, Linux");
        if let Some(rp) = &self.requires_python {
            s.python_floor = Some((
                v.clone(),
                format!(
                    "Python {v}, the oldest the project's requires-python `{}` ({}) admits that the releases support",
                    rp.requirement, rp.source
                ),
            ));
        }
        s
    }

    /// The oldest Python the answer is for, when one is.
    pub fn floor(&self) -> Option<&Version> {
        self.python_floor.as_ref().map(|(v, _)| v)
    }
}

impl Setup {
    /// The extras the project requests of a package (`colossalai[zero]`): the Requires-Dist
    /// entries with `extra == "zero"` apply.
    pub(crate) fn extras(&self, package: &str) -> Vec<ExtraName> {
        self.declared
            .requirements_for(package)
            .iter()
            .flat_map(|r| r.extras.iter())
            .filter_map(|e| ExtraName::from_str(e).ok())
            .collect()
    }
}
