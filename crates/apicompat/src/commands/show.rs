//! `apicompat index show NAME==V`: the whole surface of one release.

use std::collections::BTreeMap;
use std::process::ExitCode;

use serde::Serialize;

use apicompat_index::Catalog;
use apicompat_requirements::{normalize_name, parse_version};
use apicompat_surface::Kind;

use crate::{CmdResult, Failure, Format};

#[derive(Serialize, Default)]
struct ModuleOut {
    open: bool,
    opaque: bool,
    names: BTreeMap<String, &'static str>,
}

#[derive(Serialize, Default)]
struct ClassOut {
    members: BTreeMap<String, &'static str>,
}

#[derive(Serialize)]
struct ShowOut {
    package: String,
    version: String,
    requires_dist: Vec<String>,
    requires_python: Option<String>,
    modules: BTreeMap<String, ModuleOut>,
    classes: BTreeMap<String, ClassOut>,
}

pub fn run(catalog: &Catalog, spec: &str, format: Format) -> CmdResult {
    let (name, version) = spec.split_once("==").ok_or_else(|| {
        Failure::usage(format!("`{spec}`: give NAME==VERSION, e.g. torch==2.5.0"))
    })?;
    let name = normalize_name(name.trim());
    let version =
        parse_version(version.trim()).map_err(|e| Failure::usage(format!("`{spec}`: {e}")))?;
    let view = catalog.package(&name)?.ok_or_else(|| {
        Failure::usage(format!(
            "package `{name}` is not indexed; add it with `apicompat index fetch {name}=={version}`"
        ))
    })?;
    let release = view.position(&version).ok_or_else(|| {
        Failure::usage(format!(
            "{name} {version} is not indexed (indexed: {}); add it with `apicompat index fetch {name}=={version}`",
            view.versions().join(", ")
        ))
    })?;
    let (index, position) = view
        .index_of(release)
        .ok_or_else(|| Failure::usage("release out of range"))?;
    // Every path this release has, by kind.
    let mut kinds: BTreeMap<String, (Kind, bool, bool)> = BTreeMap::new();
    let mut importable: Vec<String> = Vec::new();
    let mut error = None;
    index.for_each_path(|path| {
        match index.facet_in(path, position).and_then(|f| match f {
            Some(f) => index.kind(f).map(|k| Some((k, f))),
            None => Ok(None),
        }) {
            Ok(Some((k, f))) => {
                if k.0 == Kind::Module && index.symbol(f).is_ok_and(|s| s.importable) {
                    importable.push(path.to_string());
                }
                kinds.insert(path.to_string(), k);
            }
            Ok(None) => {}
            Err(e) => error = Some(e),
        }
    });
    if let Some(e) = error {
        return Err(e.into());
    }
    let header = view.header(release).cloned();
    let mut out = ShowOut {
        package: name.clone(),
        version: version.to_string(),
        requires_dist: header
            .as_ref()
            .map(|h| h.requires_dist.clone())
            .unwrap_or_default(),
        requires_python: header.and_then(|h| h.requires_python),
        modules: BTreeMap::new(),
        classes: BTreeMap::new(),
    };
    for path in &importable {
        let (_, open, opaque) = kinds[path];
        let m = out.modules.entry(path.clone()).or_default();
        m.open = open;
        m.opaque = opaque;
    }
    for (path, (kind, ..)) in &kinds {
        let Some((parent, name)) = path.rsplit_once('.') else {
            continue;
        };
        match kinds.get(parent) {
            Some((Kind::Module, ..)) if out.modules.contains_key(parent) => {
                out.modules
                    .entry(parent.to_string())
                    .or_default()
                    .names
                    .insert(name.to_string(), kind.as_str());
            }
            Some((Kind::Class, ..)) => {
                out.classes
                    .entry(parent.to_string())
                    .or_default()
                    .members
                    .insert(name.to_string(), kind.as_str());
            }
            _ => {}
        }
    }
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&out)?),
        Format::Text => {
            println!(
                "{} {}: {} modules, {} classes",
                out.package,
                out.version,
                out.modules.len(),
                out.classes.len()
            );
            if let Some(rp) = &out.requires_python {
                println!("requires-python: {rp}");
            }
            for r in &out.requires_dist {
                println!("requires: {r}");
            }
            for (m, info) in &out.modules {
                let flags = match (info.open, info.opaque) {
                    (_, true) => " (compiled, members unknown)",
                    (true, _) => " (open: answers any attribute)",
                    _ => "",
                };
                println!("\nmodule {m}{flags}");
                for (n, k) in &info.names {
                    println!("  {n}: {k}");
                    if let Some(c) = out.classes.get(&format!("{m}.{n}")) {
                        for (member, mk) in &c.members {
                            println!("    .{member}: {mk}");
                        }
                    }
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
