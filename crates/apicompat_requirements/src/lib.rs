//! Versions, specifiers and the requirements a Python project declares.
//!
//! - [`version`]: PEP 440 versions and specifier sets, with the pre-release rule
//!   ([`admits`], [`select`]).
//! - [`read_project`] / [`read_file`]: the requirements a project directory declares
//!   (`pyproject.toml`, `requirements*.txt`, `setup.cfg`, `setup.py`, `environment.yml`),
//!   each with the file and line it came from, plus `[tool.apicompat]` settings.
//! - [`open_environment`]: an installed Python environment read from disk (no interpreter run).
//! - [`markers`]: PEP 508 marker evaluation for an environment.

mod declared;
mod environment;
mod import_names;
mod install_docs;
mod install_scripts;
mod lines;
pub mod markers;
mod package_requirements;
mod pep508_guard;
mod poetry;
mod pyproject;
mod readme_pins;
mod reqtxt;
mod requires_python;
mod safe_read;
mod scopes;
mod setup_cfg;
mod setup_py;
pub mod shims;
mod urls;
mod uv;
pub mod version;
mod yaml_env;

pub use declared::{
    is_declaration_file, normalize_name, parse_requirement, read_file, read_project,
    read_project_with, requirements_scope, Declared, DeclaredRequirement, Diagnostic,
    DirectReference, ParsedRequirement, RequirementError, Severity, Source, ToolConfig,
};
pub use environment::{
    find_site_packages, open_environment, open_environment_at, read_distributions, EnvError,
    InstalledDistribution, InstalledEnvironment, SitePackages,
};
pub use import_names::import_names;
pub use install_docs::{
    creates_environment, documented_extras, installed_dirs, installed_files, InstalledFile,
};
pub use install_scripts::has_install_script;
pub use markers::{
    evaluate_marker, marker_environment, marker_environment_on, requirement_applies,
    training_environments, MarkerError, Platform,
};
pub use pep508_rs::{
    ExtraName, MarkerEnvironment, MarkerTree, PackageName, Requirement, VersionOrUrl,
};
pub use requires_python::{admits_minor, read_requires_python, RequiresPython};
pub use safe_read::{read_regular_file, ReadError};
pub use version::{
    admits, admits_with, local_label, parse_specifiers, parse_version, release_of, satisfies,
    select, Operator, Version, VersionError, VersionSpecifier, VersionSpecifiers,
};
pub use yaml_env::{has_conda_file, is_conda_name};
