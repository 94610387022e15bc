//! SARIF 2.1.0 with the properties GitHub code scanning reads.

use serde::Serialize;

use apicompat_check::{rules, Report, Severity};

use crate::display_path;

#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
struct Run {
    tool: Tool,
    results: Vec<ResultItem>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: String,
    rules: Vec<RuleDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor {
    id: &'static str,
    name: &'static str,
    short_description: Text,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultItem {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
    /// The finding's edits (`check --fix`), as SARIF `fix` objects.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fixes: Vec<SarifFix>,
    properties: Properties,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifFix {
    description: Text,
    artifact_changes: Vec<ArtifactChange>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactChange {
    artifact_location: ArtifactLocation,
    replacements: Vec<Replacement>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Replacement {
    deleted_region: Region,
    inserted_content: Text,
}

fn sarif_fixes(f: &apicompat_check::Finding, uri: &str, relative: bool) -> Vec<SarifFix> {
    let Some(fix) = &f.fix else {
        return Vec::new();
    };
    vec![SarifFix {
        description: Text {
            text: format!("{} ({})", fix.message, fix.applicability.as_str()),
        },
        artifact_changes: vec![ArtifactChange {
            artifact_location: ArtifactLocation {
                uri: uri.to_string(),
                uri_base_id: relative.then_some("%SRCROOT%"),
            },
            replacements: fix
                .edits
                .iter()
                .map(|e| Replacement {
                    deleted_region: Region {
                        start_line: e.line,
                        start_column: e.column,
                        end_line: e.end_line,
                        end_column: e.end_column,
                    },
                    inserted_content: Text {
                        text: e.content.clone(),
                    },
                })
                .collect(),
        }],
    }]
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
    end_line: u32,
    end_column: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Properties {
    symbol: String,
    package: String,
    missing_in: Vec<String>,
    present_in: Vec<String>,
    reach: &'static str,
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The report as a SARIF 2.1.0 log; `tool_version` is the CLI's version.
pub fn sarif(report: &Report, tool_version: &str) -> String {
    let rules_list: Vec<RuleDescriptor> = rules::ALL
        .iter()
        .map(|r| RuleDescriptor {
            id: r.code,
            name: r.name,
            short_description: Text {
                text: r.summary.to_string(),
            },
            default_configuration: Configuration {
                level: sarif_level(r.severity),
            },
        })
        .collect();
    let results = report
        .findings
        .iter()
        .map(|f| {
            let (uri, relative) = sarif_uri(&display_path(&f.path));
            let fixes = sarif_fixes(f, &uri, relative);
            ResultItem {
                rule_id: f.code,
                rule_index: rules::ALL
                    .iter()
                    .position(|r| r.code == f.code)
                    .unwrap_or(0),
                level: sarif_level(f.severity),
                message: Text {
                    text: f.message.clone(),
                },
                locations: vec![Location {
                    physical_location: PhysicalLocation {
                        artifact_location: ArtifactLocation {
                            uri,
                            uri_base_id: relative.then_some("%SRCROOT%"),
                        },
                        region: Region {
                            start_line: f.line.max(1),
                            start_column: f.column.max(1),
                            end_line: f.end_line.max(f.line).max(1),
                            end_column: f.end_column.max(1),
                        },
                    },
                }],
                fixes,
                properties: Properties {
                    symbol: f.symbol.clone(),
                    package: f.package.clone(),
                    missing_in: f.missing_in.clone(),
                    present_in: f.present_in.clone(),
                    reach: f.reach.as_str(),
                },
            }
        })
        .collect();
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "apicompat",
                    version: tool_version.to_string(),
                    rules: rules_list,
                },
            },
            results,
        }],
    };
    serde_json::to_string_pretty(&log).unwrap_or_default()
}

/// A path as a SARIF URI: percent-encoded (RFC 3986: only unreserved characters and `/` stay
/// as they are), `file://` for an absolute path; relative paths are relative to `%SRCROOT%`.
fn sarif_uri(path: &str) -> (String, bool) {
    let drive =
        path.len() >= 2 && path.as_bytes()[1] == b':' && path.as_bytes()[0].is_ascii_alphabetic();
    let (prefix, rest, relative) = if path.starts_with('/') {
        ("file://", path, false)
    } else if drive {
        ("file:///", &path[2..], false)
    } else {
        ("", path, true)
    };
    let mut out = String::from(prefix);
    if drive {
        out.push_str(&path[..2]);
    }
    for b in rest.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            let _ = std::fmt::Write::write_fmt(&mut out, format_args!("%{b:02X}"));
        }
    }
    (out, relative)
}
