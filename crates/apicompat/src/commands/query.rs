//! `apicompat query SYMBOL`: which releases have it, and what it is in each.

use std::process::ExitCode;

use serde::Serialize;

use apicompat_index::{ranges, Catalog, PackageView, Status};

use crate::{CmdResult, Failure, Format};

#[derive(Serialize)]
struct RangeValue {
    ranges: Vec<String>,
    value: String,
}

#[derive(Serialize)]
struct Answer {
    package: String,
    symbol: String,
    kind: String,
    present_in: Vec<String>,
    absent_in: Vec<String>,
    unknown_in: Vec<String>,
    ranges: Vec<String>,
    canonical: Vec<RangeValue>,
    signatures: Vec<RangeValue>,
    deprecated: Vec<RangeValue>,
    unknown_reasons: Vec<RangeValue>,
    /// Releases where the path is also a submodule that its package binds another object
    /// over (`Symbol::shadow`): `import` finds the module, attribute access the object.
    module_too: Vec<String>,
    did_you_mean: Vec<String>,
}

/// Groups releases by a value: (value, releases that have it), in release order of first use.
fn group(view: &PackageView, values: &[Option<String>]) -> Vec<RangeValue> {
    let versions = view.versions();
    let mut distinct: Vec<&String> = Vec::new();
    for v in values.iter().flatten() {
        if !distinct.contains(&v) {
            distinct.push(v);
        }
    }
    distinct
        .into_iter()
        .map(|d| RangeValue {
            ranges: ranges(
                &versions,
                &values
                    .iter()
                    .map(|v| v.as_ref() == Some(d))
                    .collect::<Vec<_>>(),
            ),
            value: d.clone(),
        })
        .collect()
}

pub fn run(catalog: &Catalog, symbol: &str, package: Option<&str>, format: Format) -> CmdResult {
    let view = match package {
        Some(p) => catalog
            .package(p)?
            .ok_or_else(|| Failure::usage(unknown_package(catalog, p)))?,
        None => catalog.package_for_module(symbol)?.ok_or_else(|| {
            Failure::usage(format!(
                "no indexed package provides `{}`; known packages: {}. Add one with `apicompat index fetch NAME`.",
                symbol.split('.').next().unwrap_or(symbol),
                catalog.names().join(", ")
            ))
        })?,
    };
    let answer = answer(view, symbol)?;
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&answer)?),
        Format::Text => print!("{}", text(&answer, view.releases().len())),
    }
    Ok(
        if answer.present_in.is_empty() && answer.unknown_in.is_empty() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        },
    )
}

/// What `query` prints for a path of an indexed package, if some release has it (the
/// server's hover).
pub fn describe(catalog: &Catalog, symbol: &str) -> Option<String> {
    let view = catalog.package_for_module(symbol).ok()??;
    let answer = answer(view, symbol).ok()?;
    if answer.present_in.is_empty() && answer.unknown_in.is_empty() {
        return None;
    }
    Some(text(&answer, view.releases().len()))
}

fn unknown_package(catalog: &Catalog, name: &str) -> String {
    format!(
        "package `{name}` is not indexed (known: {}); add it with `apicompat index fetch {name}`",
        catalog.names().join(", ")
    )
}

fn answer(view: &PackageView, symbol: &str) -> Result<Answer, Failure> {
    let versions = view.versions();
    let n = versions.len();
    let mut present = vec![false; n];
    let (mut canonical, mut signatures, mut deprecated, mut reasons) =
        (vec![None; n], vec![None; n], vec![None; n], vec![None; n]);
    let mut kinds: Vec<&'static str> = Vec::new();
    let (mut absent_in, mut unknown_in) = (Vec::new(), Vec::new());
    let mut module_too = vec![false; n];
    for (i, version) in versions.iter().enumerate() {
        if let Some((index, position)) = view.index_of(i) {
            if let Some(f) = index.facet_in(symbol, position)? {
                module_too[i] = index.symbol(f)?.shadow.is_some();
            }
        }
        match view.status(symbol, i)? {
            Status::Present { path, symbol: sym } => {
                present[i] = true;
                let kind = sym.kind().as_str();
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
                canonical[i] = Some(sym.canonical.clone().unwrap_or(path));
                if !sym.signatures.is_empty() {
                    signatures[i] = Some(
                        sym.signatures
                            .iter()
                            .map(|s| s.render())
                            .collect::<Vec<_>>()
                            .join(" | "),
                    );
                }
                deprecated[i] = sym.deprecated.map(|m| {
                    if m.is_empty() {
                        "deprecated".to_string()
                    } else {
                        m
                    }
                });
            }
            Status::Absent { .. } => absent_in.push(version.clone()),
            Status::Unknown { reason } => {
                unknown_in.push(version.clone());
                reasons[i] = Some(reason);
            }
        }
    }
    let present_in: Vec<String> = versions
        .iter()
        .zip(&present)
        .filter(|(_, p)| **p)
        .map(|(v, _)| v.clone())
        .collect();
    let did_you_mean = if present_in.is_empty() {
        suggestions(view, symbol)
    } else {
        Vec::new()
    };
    Ok(Answer {
        package: view.name().to_string(),
        symbol: symbol.to_string(),
        kind: if kinds.is_empty() {
            "missing".to_string()
        } else {
            kinds.join("/")
        },
        ranges: ranges(&versions, &present),
        present_in,
        absent_in,
        unknown_in,
        canonical: group(view, &canonical),
        signatures: group(view, &signatures),
        deprecated: group(view, &deprecated),
        unknown_reasons: group(view, &reasons),
        module_too: ranges(&versions, &module_too),
        did_you_mean,
    })
}

fn text(a: &Answer, total: usize) -> String {
    let mut out = format!("{} ({})\n", a.symbol, a.package);
    if a.present_in.is_empty() {
        out.push_str(&format!("  in none of the {total} indexed releases\n"));
    } else {
        out.push_str(&format!(
            "  {} in {} ({} of {total} releases)\n",
            a.kind,
            a.ranges.join(", "),
            a.present_in.len()
        ));
    }
    let absent = a.absent_in.len();
    if absent > 0 && !a.present_in.is_empty() {
        out.push_str(&format!("  absent in {absent} release(s)\n"));
    }
    for r in &a.unknown_reasons {
        out.push_str(&format!(
            "  unknown in {}: {}\n",
            r.ranges.join(", "),
            r.value
        ));
    }
    let only_self = a.canonical.len() == 1 && a.canonical[0].value == a.symbol;
    if !only_self {
        for c in &a.canonical {
            out.push_str(&format!(
                "  defined at {} in {}\n",
                c.value,
                c.ranges.join(", ")
            ));
        }
    }
    for s in &a.signatures {
        let suffix = if a.signatures.len() > 1 {
            format!("  [{}]", s.ranges.join(", "))
        } else {
            String::new()
        };
        out.push_str(&format!("  signature {}{suffix}\n", s.value));
    }
    if !a.module_too.is_empty() {
        out.push_str(&format!(
            "  also a module in {}: `import` finds the module, attribute access the object its package binds over it\n",
            a.module_too.join(", ")
        ));
    }
    for d in &a.deprecated {
        out.push_str(&format!(
            "  deprecated in {}: {}\n",
            d.ranges.join(", "),
            d.value
        ));
    }
    if !a.did_you_mean.is_empty() {
        out.push_str("  did you mean:\n");
        for s in &a.did_you_mean {
            out.push_str(&format!("    {s}\n"));
        }
    }
    out
}

/// Paths of any release close to `symbol`: the same name elsewhere, or a close spelling
/// under the same parent.
fn suggestions(view: &PackageView, symbol: &str) -> Vec<String> {
    let (parent, last) = symbol.rsplit_once('.').unwrap_or(("", symbol));
    let mut scored: Vec<(usize, String)> = Vec::new();
    view.for_each_path(|p| {
        let (p_parent, p_last) = p.rsplit_once('.').unwrap_or(("", p));
        let score = if p_last == last {
            // Same name in another module: prefer the longest shared prefix.
            Some(1000 - common_prefix(parent, p_parent).min(999))
        } else if p_parent == parent {
            let d = edit_distance(p_last, last);
            (d <= 2.max(last.len() / 4)).then_some(2000 + d)
        } else {
            None
        };
        if let Some(s) = score {
            scored.push((s, p.to_string()));
        }
    });
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    // Re-exports of one object collapse into its definition.
    let mut out: Vec<String> = Vec::new();
    for (_, path) in scored.into_iter().take(64) {
        let definition = (0..view.releases().len())
            .rev()
            .find_map(|r| match view.status(&path, r) {
                Ok(Status::Present {
                    path: found,
                    symbol,
                }) => Some(symbol.canonical.unwrap_or(found)),
                _ => None,
            })
            .unwrap_or(path);
        if !out.contains(&definition) {
            out.push(definition);
        }
        if out.len() == 8 {
            break;
        }
    }
    out
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
