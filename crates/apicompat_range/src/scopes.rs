//! Which part of a project a file belongs to, for `range`: the installable package (what
//! `pip install .` ships) is the main scope; tests, examples, benchmarks, scripts and docs are
//! others, each answered apart.
//!
//! The package is found as setuptools finds it:
//! - `[tool.setuptools] packages = [...]` (exact dotted names) or
//!   `[tool.setuptools.packages.find]` (`where`, `include`, `exclude`, fnmatch patterns over
//!   dotted names) in `pyproject.toml`; `[options] packages` and `[options.packages.find]` in
//!   `setup.cfg`; `find_packages(WHERE, include=..., exclude=...)` in `setup.py` (string
//!   literals only); hatch's `[tool.hatch.build.targets.wheel] packages` and poetry's
//!   `packages = [{include = ...}]`;
//! - else setuptools' automatic discovery: the packages under `src/` when it has any, else the
//!   top-level directories with an `__init__.py` and top-level modules, less the names
//!   setuptools' flat-layout finder leaves out (`tests`, `docs`, `examples`, `scripts`, ...).
//!
//! A project with no packaging metadata (no `setup.py`, no `setup.cfg` `[options]`, no
//! `pyproject.toml` `[project]`/`[build-system]`/`[tool.poetry]`) has no package: its main
//! scope is `project`, every file outside the named scopes.
//!
//! Named scopes come from the path: a directory `test`/`tests`/`testing` or a file
//! `test_*.py`, `*_test.py`, `conftest.py` is `tests`, anywhere (also inside the package); a
//! directory `example(s)`/`demo(s)`/`tutorial(s)` is `examples`, `benchmark(s)` is
//! `benchmarks`, `script(s)`/`tools`/`bin` is `scripts`, `doc(s)`/`documentation` is `docs`,
//! outside the package. Other files outside the package are `other`.

use std::path::Path;

use apicompat_requirements::read_regular_file;
use toml::de::{DeTable, DeValue};

const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// setuptools' `FlatLayoutPackageFinder.DEFAULT_EXCLUDE` (setuptools/discovery.py), the
/// top-level names automatic discovery does not ship.
const FLAT_EXCLUDE: &[&str] = &[
    "ci",
    "bin",
    "debian",
    "doc",
    "docs",
    "documentation",
    "manpages",
    "news",
    "newsfragments",
    "changelog",
    "test",
    "tests",
    "unit_test",
    "unit_tests",
    "example",
    "examples",
    "scripts",
    "tools",
    "util",
    "utils",
    "python",
    "build",
    "dist",
    "venv",
    "env",
    "requirements",
    "tasks",
    "fabfile",
    "site_scons",
    "benchmark",
    "benchmarks",
    "exercise",
    "exercises",
    "htmlcov",
];

/// Module names automatic discovery leaves out at the top level
/// (`FlatLayoutModuleFinder.DEFAULT_EXCLUDE`, the common ones).
const FLAT_MODULE_EXCLUDE: &[&str] = &[
    "setup", "conftest", "test", "tests", "example", "examples", "build", "toolbox", "manage",
    "noxfile", "pavement", "dodo", "tasks", "fabfile",
];

/// How the installable package is known.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rule {
    /// No packaging metadata: every file outside the named scopes is the main scope.
    NoPackage,
    /// Dotted package names, exactly (and their modules).
    Exact(Vec<String>),
    /// fnmatch patterns over dotted package names.
    Find {
        include: Vec<String>,
        exclude: Vec<String>,
    },
    /// Automatic discovery: these top-level packages and modules.
    Auto(Vec<String>),
}

/// The scopes of a project's files.
#[derive(Debug, Clone)]
pub struct Scopes {
    rule: Rule,
    /// Where packages are found from (`""` or `src`), relative to the project root.
    wheres: Vec<String>,
    /// A sentence on where the package comes from.
    pub source: String,
}

/// The main scope's name: `package` when the project ships one, else `project`.
pub const PACKAGE: &str = "package";
pub const PROJECT: &str = "project";

impl Scopes {
    /// Reads the project's packaging metadata.
    pub fn read(root: &Path) -> Scopes {
        let text = |name: &str| -> Option<String> {
            read_regular_file(&root.join(name), MAX_CONFIG_BYTES)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        let pyproject = text("pyproject.toml").and_then(|t| {
            DeTable::parse(&t)
                .ok()
                .map(|doc| Value::table(doc.get_ref(), 0))
        });
        if let Some(s) = pyproject.as_ref().and_then(from_pyproject) {
            return s;
        }
        let cfg = text("setup.cfg");
        if let Some(s) = cfg.as_deref().and_then(from_setup_cfg) {
            return s;
        }
        let setup_py = text("setup.py");
        if let Some(s) = setup_py.as_deref().and_then(from_setup_py) {
            return s;
        }
        let packaged = setup_py.is_some()
            || cfg.as_deref().is_some_and(|c| c.contains("[options]"))
            || pyproject.as_ref().is_some_and(|t| {
                t.get("project").is_some()
                    || t.get("build-system").is_some()
                    || t.get("tool").and_then(|t| t.get("poetry")).is_some()
            });
        if !packaged {
            return Scopes {
                rule: Rule::NoPackage,
                wheres: vec![String::new()],
                source: "no packaging metadata: every file outside tests, examples, benchmarks, scripts and docs".to_string(),
            };
        }
        auto(root)
    }

    /// The main scope's name.
    pub fn main(&self) -> &'static str {
        if self.rule == Rule::NoPackage {
            PROJECT
        } else {
            PACKAGE
        }
    }

    /// The scope of a file, from its path relative to the project root.
    pub fn of(&self, relative: &Path) -> &'static str {
        let parts: Vec<String> = relative
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let Some((file, dirs)) = parts.split_last() else {
            return self.main();
        };
        if dirs.iter().any(|d| named(d) == Some("tests")) || is_test_file(file) {
            return "tests";
        }
        if self.rule == Rule::NoPackage || self.in_package(dirs, file) {
            if self.rule == Rule::NoPackage {
                if let Some(s) = dirs.iter().find_map(|d| named(d)) {
                    return s;
                }
            }
            return self.main();
        }
        dirs.iter().find_map(|d| named(d)).unwrap_or("other")
    }

    fn in_package(&self, dirs: &[String], file: &str) -> bool {
        for w in &self.wheres {
            let w: Vec<&str> = w.split('/').filter(|s| !s.is_empty()).collect();
            if dirs.len() < w.len() || dirs[..w.len()].iter().zip(&w).any(|(a, b)| a != b) {
                continue;
            }
            let inner = &dirs[w.len()..];
            let stem = file.strip_suffix(".py").unwrap_or(file);
            let hit = match &self.rule {
                Rule::NoPackage => true,
                Rule::Exact(names) => {
                    let dotted = inner.join(".");
                    names.contains(&dotted) || (inner.is_empty() && names.iter().any(|n| n == stem))
                }
                Rule::Find { include, exclude } => {
                    // Every package from the top down must be found (setuptools walks down
                    // only through packages it finds or that hold found ones; a file's own
                    // package is what matters).
                    !inner.is_empty() && {
                        let dotted = inner.join(".");
                        (include.is_empty() || include.iter().any(|p| fnmatch(p, &dotted)))
                            && !exclude.iter().any(|p| fnmatch(p, &dotted))
                    }
                }
                Rule::Auto(tops) => match inner.first() {
                    Some(top) => tops.contains(top),
                    None => tops.iter().any(|t| t == stem),
                },
            };
            if hit {
                return true;
            }
        }
        false
    }
}

/// The named scope a directory name stands for.
fn named(dir: &str) -> Option<&'static str> {
    Some(match dir {
        "test" | "tests" | "testing" | "unit_test" | "unit_tests" => "tests",
        "example" | "examples" | "demo" | "demos" | "tutorial" | "tutorials" => "examples",
        "benchmark" | "benchmarks" => "benchmarks",
        "script" | "scripts" | "tools" | "bin" => "scripts",
        "doc" | "docs" | "documentation" => "docs",
        _ => return None,
    })
}

fn is_test_file(file: &str) -> bool {
    let stem = file.strip_suffix(".py").unwrap_or(file);
    stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest"
}

/// What `pyproject.toml` says, as much as the package needs.
#[derive(Debug, Clone)]
enum Value {
    Str(String),
    Array(Vec<Value>),
    Table(Vec<(String, Value)>),
    Other,
}

/// TOML nests rarely; deeper tables than this are not read.
const MAX_TOML_DEPTH: usize = 32;

impl Value {
    fn of(v: &DeValue<'_>, depth: usize) -> Value {
        if depth > MAX_TOML_DEPTH {
            return Value::Other;
        }
        if let Some(s) = v.as_str() {
            return Value::Str(s.to_string());
        }
        if let Some(a) = v.as_array() {
            return Value::Array(
                a.iter()
                    .map(|x| Value::of(x.get_ref(), depth + 1))
                    .collect(),
            );
        }
        if let Some(t) = v.as_table() {
            return Value::table(t, depth + 1);
        }
        Value::Other
    }

    fn table(t: &DeTable<'_>, depth: usize) -> Value {
        Value::Table(
            t.iter()
                .map(|(k, v)| (k.get_ref().to_string(), Value::of(v.get_ref(), depth + 1)))
                .collect(),
        )
    }

    fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Table(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        Some(Value::Str(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

fn normalize_where(w: &str) -> String {
    w.trim_matches('/').trim_start_matches("./").to_string()
}

fn from_pyproject(t: &Value) -> Option<Scopes> {
    let tool = t.get("tool");
    let st = tool.and_then(|t| t.get("setuptools"));
    if let Some(p) = st.and_then(|s| s.get("packages")) {
        if let Some(find) = p.get("find") {
            let mut wheres: Vec<String> = strings(find.get("where"))
                .iter()
                .map(|w| normalize_where(w))
                .collect();
            if wheres.is_empty() {
                wheres.push(String::new());
            }
            return Some(Scopes {
                rule: Rule::Find {
                    include: strings(find.get("include")),
                    exclude: strings(find.get("exclude")),
                },
                wheres,
                source: "pyproject.toml [tool.setuptools.packages.find]".to_string(),
            });
        }
        let names = strings(Some(p));
        if !names.is_empty() {
            let wheres = package_dir_root(st);
            return Some(Scopes {
                rule: Rule::Exact(names),
                wheres,
                source: "pyproject.toml [tool.setuptools] packages".to_string(),
            });
        }
    }
    let hatch = tool
        .and_then(|t| t.get("hatch"))
        .and_then(|h| h.get("build"))
        .and_then(|b| b.get("targets"))
        .and_then(|t| t.get("wheel"))
        .and_then(|w| w.get("packages"));
    let hatch = strings(hatch);
    if !hatch.is_empty() {
        // `src/foo`: the package `foo` under `src`.
        return Some(paths_rule(
            &hatch,
            "pyproject.toml [tool.hatch.build.targets.wheel] packages",
        ));
    }
    let poetry = tool
        .and_then(|t| t.get("poetry"))
        .and_then(|p| p.get("packages"))
        .and_then(|p| p.as_array());
    if let Some(items) = poetry {
        let paths: Vec<String> = items
            .iter()
            .filter_map(|i| {
                let inc = i.get("include")?.as_str()?;
                let from = i.get("from").and_then(|f| f.as_str()).unwrap_or("");
                Some(if from.is_empty() {
                    inc.to_string()
                } else {
                    format!("{}/{inc}", normalize_where(from))
                })
            })
            .collect();
        if !paths.is_empty() {
            return Some(paths_rule(&paths, "pyproject.toml [tool.poetry] packages"));
        }
    }
    None
}

/// `package-dir = {"" = "src"}`: where the listed packages are.
fn package_dir_root(st: Option<&Value>) -> Vec<String> {
    let root = st
        .and_then(|s| s.get("package-dir"))
        .and_then(|d| d.get(""))
        .and_then(|r| r.as_str())
        .map(normalize_where)
        .unwrap_or_default();
    vec![root]
}

/// Package directories given as paths (`src/foo`, `foo`): their top-level names, by root.
fn paths_rule(paths: &[String], source: &str) -> Scopes {
    let mut wheres: Vec<String> = Vec::new();
    let mut tops: Vec<String> = Vec::new();
    for p in paths {
        let p = normalize_where(p);
        let (w, top) = p.rsplit_once('/').unwrap_or(("", p.as_str()));
        if !wheres.iter().any(|x| x == w) {
            wheres.push(w.to_string());
        }
        tops.push(top.trim_end_matches(".py").to_string());
    }
    Scopes {
        rule: Rule::Auto(tops),
        wheres,
        source: source.to_string(),
    }
}

/// `setup.cfg` `[options] packages = a, b` or `find:` with `[options.packages.find]`.
fn from_setup_cfg(text: &str) -> Option<Scopes> {
    let mut section = String::new();
    let mut packages: Option<String> = None;
    let mut find: Vec<(String, String)> = Vec::new();
    let mut key: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            section = trimmed[1..trimmed.len() - 1].trim().to_string();
            key = None;
            continue;
        }
        let continued = line.starts_with(' ') || line.starts_with('\t');
        if continued && !trimmed.is_empty() {
            if let Some(k) = &key {
                append(&section, k, trimmed, &mut packages, &mut find);
            }
            continue;
        }
        if let Some((k, v)) = trimmed.split_once('=') {
            let k = k.trim().to_string();
            append(&section, &k, v.trim(), &mut packages, &mut find);
            key = Some(k);
        }
    }
    let packages = packages?;
    let items: Vec<String> = packages
        .split([',', '\n', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if items.first().is_some_and(|s| s.starts_with("find")) {
        let get = |k: &str| -> Vec<String> {
            find.iter()
                .filter(|(fk, _)| fk == k)
                .flat_map(|(_, v)| v.split([',', '\n', ' ']))
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        };
        let mut wheres: Vec<String> = get("where").iter().map(|w| normalize_where(w)).collect();
        if wheres.is_empty() {
            wheres.push(String::new());
        }
        return Some(Scopes {
            rule: Rule::Find {
                include: get("include"),
                exclude: get("exclude"),
            },
            wheres,
            source: "setup.cfg [options.packages.find]".to_string(),
        });
    }
    (!items.is_empty()).then(|| Scopes {
        rule: Rule::Exact(items),
        wheres: vec![String::new()],
        source: "setup.cfg [options] packages".to_string(),
    })
}

fn append(
    section: &str,
    key: &str,
    value: &str,
    packages: &mut Option<String>,
    find: &mut Vec<(String, String)>,
) {
    match section {
        "options" if key == "packages" => {
            let p = packages.get_or_insert_with(String::new);
            p.push(' ');
            p.push_str(value);
        }
        "options.packages.find" => find.push((key.to_string(), value.to_string())),
        _ => {}
    }
}

/// `find_packages("src", include=[...], exclude=(...))` in `setup.py`: string literals only.
fn from_setup_py(text: &str) -> Option<Scopes> {
    let start = text
        .find("find_packages(")
        .or_else(|| text.find("find_namespace_packages("))?;
    let open = start + text[start..].find('(')?;
    // The call's text, up to its closing parenthesis (strings are not looked into: a
    // parenthesis inside one would end it early, which only drops patterns).
    let mut depth = 0usize;
    let mut end = None;
    for (i, ch) in text[open..].char_indices() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    end = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let args = &text[open + 1..end?];
    let (mut wheres, mut include, mut exclude) = (Vec::new(), Vec::new(), Vec::new());
    let mut current: Option<&str> = None;
    let mut nested = 0usize;
    let mut chars = args.char_indices().peekable();
    while let Some((i, ch)) = chars.next() {
        match ch {
            '(' | '[' | '{' => nested += 1,
            ')' | ']' | '}' => nested = nested.saturating_sub(1),
            ',' if nested == 0 => current = None,
            '=' => {
                let before = args[..i].trim_end();
                let word_start = before
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .map_or(0, |p| p + 1);
                current = Some(match &before[word_start..] {
                    "where" => "where",
                    "include" => "include",
                    "exclude" => "exclude",
                    _ => "",
                });
            }
            '"' | '\'' => {
                let rest = &args[i + 1..];
                let Some(close) = rest.find(ch) else { break };
                let s = rest[..close].to_string();
                for _ in 0..rest[..close].chars().count() + 1 {
                    chars.next();
                }
                match current {
                    None if nested == 0 => wheres.push(normalize_where(&s)),
                    Some("where") => wheres.push(normalize_where(&s)),
                    Some("include") => include.push(s),
                    Some("exclude") => exclude.push(s),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    if wheres.is_empty() {
        wheres.push(String::new());
    }
    Some(Scopes {
        rule: Rule::Find { include, exclude },
        wheres,
        source: "setup.py find_packages(...)".to_string(),
    })
}

/// setuptools' automatic discovery: `src/` layout, else the flat layout.
fn auto(root: &Path) -> Scopes {
    let list = |dir: &Path| -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            if name.starts_with(['.', '_']) {
                continue;
            }
            if path.join("__init__.py").is_file() {
                out.push(name);
            } else if let Some(stem) = name.strip_suffix(".py") {
                if path.is_file() {
                    out.push(stem.to_string());
                }
            }
        }
        out.sort();
        out
    };
    let src = list(&root.join("src"));
    if !src.is_empty() {
        return Scopes {
            rule: Rule::Auto(src),
            wheres: vec!["src".to_string()],
            source: "setuptools' automatic discovery (src layout)".to_string(),
        };
    }
    let flat: Vec<String> = list(root)
        .into_iter()
        .filter(|n| {
            !FLAT_EXCLUDE.contains(&n.as_str()) && !FLAT_MODULE_EXCLUDE.contains(&n.as_str())
        })
        .collect();
    Scopes {
        rule: Rule::Auto(flat),
        wheres: vec![String::new()],
        source: "setuptools' automatic discovery (flat layout)".to_string(),
    }
}

/// `fnmatch.fnmatchcase`: `*` matches anything (dots too), `?` one character; `[...]` is read
/// as a literal. Iterative, O(len(pattern) * len(name)).
fn fnmatch(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut i, mut j) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    while i < p.len() && p[i] == '*' {
        i += 1;
    }
    i == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnmatch_reads_setuptools_patterns() {
        assert!(fnmatch("torchtitan*", "torchtitan.models"));
        assert!(fnmatch("megatron.core.*", "megatron.core.transformer"));
        assert!(!fnmatch("megatron.core.*", "megatron.core"));
        assert!(!fnmatch("megatron.core", "megatron.training"));
    }

    #[test]
    fn setup_py_find_packages_arguments() {
        let s =
            from_setup_py("setup(packages=find_packages(\"src\", exclude=(\"tests\", 'docs*')))")
                .expect("read");
        assert_eq!(s.wheres, vec!["src".to_string()]);
        assert_eq!(
            s.rule,
            Rule::Find {
                include: vec![],
                exclude: vec!["tests".to_string(), "docs*".to_string()]
            }
        );
    }
}
