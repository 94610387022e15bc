//! `apicompat server`: a language server over stdio (`lsp-server`, `lsp-types`).
//!
//! - Diagnostics on open and on every change: the edited document is checked, from the
//!   editor's text, with the open documents linked to it by names one defines and the other
//!   mentions (`server_names.rs`), against the targets of the project (the workspace root's
//!   declarations, as `check` reads them); all of them get their diagnostics again. The index
//!   and its tables stay loaded between requests; no file is read from disk but the project's
//!   declarations.
//! - Code actions: the edits of the findings (`check --fix`), safe ones preferred.
//! - Hover on a dotted name of an indexed package (through `import ... as` aliases of the
//!   document): what `apicompat query` prints (releases, definition and signature per range,
//!   deprecation).
//!
//! Positions are UTF-16 code units, as LSP requires by default.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use lsp_server::{Connection, Message, Notification, Request, Response};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, Diagnostic,
    DiagnosticSeverity, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, Hover, HoverContents, HoverParams,
    MarkupContent, MarkupKind, NumberOrString, Position, PublishDiagnosticsParams, Range, TextEdit,
    Uri, WorkspaceEdit,
};
use serde_json::{json, Value};

use apicompat_check::subprojects::Parts;
use apicompat_check::warm::Warm;
use apicompat_check::{check, Applicability, Finding, Options, Severity, StdinSource};

use super::server_names::Names;
use apicompat_index::Catalog;

use crate::{CmdResult, Failure};

/// An open document and what the last analysis found in it.
struct Doc {
    uri: Uri,
    text: String,
    findings: Vec<Finding>,
    names: Names,
}

struct Server<'c> {
    catalog: &'c Catalog,
    root: Option<PathBuf>,
    /// The editor named the workspace root: its files are the project the open documents
    /// are checked in (without one, only the open documents are read).
    walk_root: bool,
    docs: HashMap<String, Doc>,
    /// How `check` splits the workspace into projects (planned at the first analysis, again
    /// when a declaration is saved).
    parts: Option<Parts>,
    /// Each part's files as last analysed: only those that changed are parsed again.
    warm: HashMap<PathBuf, Arc<Warm>>,
}

pub fn run(catalog: &Catalog) -> CmdResult {
    let (conn, io) = Connection::stdio();
    let caps = json!({
        "textDocumentSync": { "openClose": true, "change": 1, "save": true },
        "hoverProvider": true,
        "codeActionProvider": { "codeActionKinds": ["quickfix"] },
    });
    let params = conn
        .initialize(caps)
        .map_err(|e| Failure::usage(format!("server: {e}")))?;
    let given = params
        .get("rootUri")
        .and_then(Value::as_str)
        .and_then(file_path);
    let walk_root = given.is_some();
    let root = given.or_else(|| std::env::current_dir().ok());
    let mut server = Server {
        catalog,
        root,
        walk_root,
        docs: HashMap::new(),
        parts: None,
        warm: HashMap::new(),
    };
    for msg in &conn.receiver {
        match msg {
            Message::Request(req) => {
                if conn
                    .handle_shutdown(&req)
                    .map_err(|e| Failure::usage(format!("server: {e}")))?
                {
                    break;
                }
                let resp = server.request(req);
                if conn.sender.send(Message::Response(resp)).is_err() {
                    break;
                }
            }
            Message::Notification(n) => {
                for out in server.notification(n) {
                    if conn.sender.send(Message::Notification(out)).is_err() {
                        break;
                    }
                }
            }
            Message::Response(_) => {}
        }
    }
    drop(conn);
    io.join()
        .map_err(|e| Failure::usage(format!("server: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

impl Server<'_> {
    fn notification(&mut self, n: Notification) -> Vec<Notification> {
        let (uri, text) = match n.method.as_str() {
            "textDocument/didOpen" => {
                let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                (p.text_document.uri, p.text_document.text)
            }
            "textDocument/didChange" => {
                let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                // Full synchronisation: the last change is the whole text.
                let Some(change) = p.content_changes.into_iter().last() else {
                    return Vec::new();
                };
                (p.text_document.uri, change.text)
            }
            "textDocument/didSave" => {
                // A declaration's findings come from the file on disk: saved, it is read again.
                let Ok(p) = serde_json::from_value::<DidSaveTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                let key = p.text_document.uri.as_str().to_string();
                if !self.docs.contains_key(&key) || !self.is_declaration(&key) {
                    return Vec::new();
                }
                // The tree may split differently now.
                self.parts = None;
                let group = self.linked(&self.docs[&key].names, Some(&key));
                return self.analyse_with_declaration(&key, group);
            }
            "textDocument/didClose" => {
                let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                let Some(closed) = self.docs.remove(p.text_document.uri.as_str()) else {
                    return vec![publish(p.text_document.uri, Vec::new())];
                };
                // The open documents that shared names with it are checked without it.
                let group = self.linked(&closed.names, None);
                let mut out = vec![publish(closed.uri, Vec::new())];
                out.extend(self.analyse(&group));
                return out;
            }
            _ => return Vec::new(),
        };
        let Some(path) = file_path(uri.as_str()) else {
            return Vec::new();
        };
        let key = uri.as_str().to_string();
        let python = is_python(&path);
        if !python && !self.is_declaration(&key) {
            // Not Python and not a declaration of the project: nothing to check.
            return Vec::new();
        }
        let names = Names::of(&text);
        let old = self.docs.remove(&key);
        // Documents linked through the old text's names may change too.
        let reach = match &old {
            Some(d) => names.union(&d.names),
            None => names.clone(),
        };
        let mut group = self.linked(&reach, Some(&key));
        self.docs.insert(
            key.clone(),
            Doc {
                uri,
                text,
                findings: old.map(|d| d.findings).unwrap_or_default(),
                names,
            },
        );
        if self.is_declaration(&key) {
            return self.analyse_with_declaration(&key, group);
        }
        group.insert(0, key);
        self.analyse(&group)
    }

    /// Whether an open document is one the requirements of its project (the workspace or a
    /// sub-project `check` splits off) are read from (`pyproject.toml`, `requirements*.txt`,
    /// `setup.py`, ...): AC008 reports on it.
    fn is_declaration(&mut self, key: &str) -> bool {
        let (Some(root), Some(path)) = (self.root.clone(), file_path(key)) else {
            return false;
        };
        if !self.walk_root {
            return false;
        }
        if apicompat_requirements::is_declaration_file(&root, &path) {
            return true;
        }
        let parts = self
            .parts
            .get_or_insert_with(|| Parts::of(&root, &Default::default()));
        let (dir, _) = parts.options_for(&Options::default(), &root, &path);
        apicompat_requirements::is_declaration_file(&dir, &path)
    }

    /// A declaration's findings (AC008) weigh every use of the project: `check` of the whole
    /// project (the open Python documents from the editor's texts, the declarations as saved),
    /// published for the declaration and the open documents of `group`.
    fn analyse_with_declaration(&mut self, key: &str, group: Vec<String>) -> Vec<Notification> {
        let mut keys = vec![key.to_string()];
        keys.extend(group.into_iter().filter(|k| k != key));
        self.run(&keys, false)
    }

    /// The open documents linked to one with these names, directly or through other open
    /// documents (every open document but `except`): a document's findings can depend on the
    /// text of exactly these (see docs/server.md).
    fn linked(&self, names: &Names, except: Option<&str>) -> Vec<String> {
        let mut group: Vec<String> = Vec::new();
        let mut frontier: Vec<&Names> = vec![names];
        while let Some(n) = frontier.pop() {
            for (key, doc) in &self.docs {
                if Some(key.as_str()) == except
                    || group.contains(key)
                    || !file_path(key).is_some_and(|p| is_python(&p))
                    || !n.links(&doc.names)
                {
                    continue;
                }
                group.push(key.clone());
                frontier.push(&doc.names);
            }
        }
        group.sort();
        group
    }

    /// `check` of these open documents together, from the editor's texts, in their project,
    /// against the project's targets; their diagnostics, published.
    fn analyse(&mut self, group: &[String]) -> Vec<Notification> {
        self.run(group, true)
    }

    /// `check` with the open Python documents of `group` (with `documents_only`; else every
    /// open Python document) given by their texts; the diagnostics of `group`, published.
    fn run(&mut self, group: &[String], documents_only: bool) -> Vec<Notification> {
        let mut by_path: HashMap<PathBuf, Vec<Finding>> = HashMap::new();
        for options in self.part_options(group, documents_only) {
            if let Ok(report) = check(self.catalog, &options) {
                for f in report.findings {
                    by_path.entry(f.path.clone()).or_default().push(f);
                }
            }
        }
        let mut out = Vec::new();
        for key in group {
            let (Some(path), Some(doc)) = (file_path(key), self.docs.get_mut(key)) else {
                continue;
            };
            doc.findings = by_path.remove(&path).unwrap_or_default();
            let lines = Lines::new(&doc.text);
            let diagnostics = doc.findings.iter().map(|f| diagnostic(f, &lines)).collect();
            out.push(publish(doc.uri.clone(), diagnostics));
        }
        out
    }

    /// The checks that cover `group`: one per part of the workspace (`check` splits a tree
    /// whose sub-directories declare other bounds: `Parts`) holding one of its documents,
    /// each with that part's open Python documents (only those of `group` with
    /// `documents_only`) and the part's kept files.
    fn part_options(&mut self, group: &[String], documents_only: bool) -> Vec<Options> {
        let text_of = |key: &str, docs: &HashMap<String, Doc>| -> Option<StdinSource> {
            let name = file_path(key).filter(|p| is_python(p))?;
            Some(StdinSource {
                name,
                bytes: docs.get(key)?.text.as_bytes().to_vec(),
            })
        };
        let base = Options {
            documents_only,
            ..Options::default()
        };
        let root = match (&self.root, self.walk_root) {
            (Some(root), true) => root.clone(),
            _ => {
                // No workspace: the open documents alone.
                let documents: Vec<StdinSource> = group
                    .iter()
                    .filter_map(|k| text_of(k, &self.docs))
                    .collect();
                if documents.is_empty() {
                    return Vec::new();
                }
                return vec![Options {
                    documents,
                    project: self.root.clone(),
                    warm: Some(self.warm_of(PathBuf::new())),
                    ..base
                }];
            }
        };
        let parts = self
            .parts
            .get_or_insert_with(|| Parts::of(&root, &Default::default()));
        let mut by_part: BTreeMap<PathBuf, Options> = BTreeMap::new();
        let mut wanted: Vec<PathBuf> = Vec::new();
        for key in group {
            let Some(path) = file_path(key) else { continue };
            let (dir, options) = parts.options_for(&base, &root, &path);
            by_part.entry(dir.clone()).or_insert(options);
            if !wanted.contains(&dir) {
                wanted.push(dir);
            }
        }
        // Each part's open Python documents (of the group, or all of them).
        for key in self.docs.keys() {
            if documents_only && !group.contains(key) {
                continue;
            }
            let Some(path) = file_path(key) else { continue };
            let (dir, _) = parts.options_for(&base, &root, &path);
            if let (Some(options), Some(doc)) = (by_part.get_mut(&dir), text_of(key, &self.docs)) {
                options.documents.push(doc);
            }
        }
        let mut out = Vec::new();
        for (dir, mut options) in by_part {
            if documents_only && options.documents.is_empty() {
                continue;
            }
            options.warm = Some(self.warm_of(dir));
            out.push(options);
        }
        out
    }

    /// The kept files of one part of the workspace.
    fn warm_of(&mut self, dir: PathBuf) -> Arc<Warm> {
        Arc::clone(self.warm.entry(dir).or_default())
    }

    fn request(&self, req: Request) -> Response {
        let result = match req.method.as_str() {
            "textDocument/hover" => serde_json::from_value::<HoverParams>(req.params)
                .ok()
                .and_then(|p| self.hover(&p))
                .map_or(Value::Null, |h| {
                    serde_json::to_value(h).unwrap_or(Value::Null)
                }),
            "textDocument/codeAction" => serde_json::from_value::<CodeActionParams>(req.params)
                .ok()
                .map_or(Value::Null, |p| {
                    serde_json::to_value(self.code_actions(&p)).unwrap_or(Value::Null)
                }),
            _ => {
                return Response::new_err(
                    req.id,
                    lsp_server::ErrorCode::MethodNotFound as i32,
                    format!("unsupported request {}", req.method),
                )
            }
        };
        Response::new_ok(req.id, result)
    }

    fn hover(&self, p: &HoverParams) -> Option<Hover> {
        let pos = &p.text_document_position_params;
        let doc = self.docs.get(pos.text_document.uri.as_str())?;
        let (symbol, range) = dotted_at(&doc.text, pos.position)?;
        let symbol = resolve_alias(&doc.text, &symbol);
        let text = crate::commands::query::describe(self.catalog, &symbol)?;
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: format!("```text\n{text}```"),
            }),
            range: Some(range),
        })
    }

    fn code_actions(&self, p: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let Some(doc) = self.docs.get(p.text_document.uri.as_str()) else {
            return Vec::new();
        };
        let lines = Lines::new(&doc.text);
        let mut actions = Vec::new();
        for f in &doc.findings {
            let Some(fix) = &f.fix else { continue };
            let d = diagnostic(f, &lines);
            if d.range.end.line < p.range.start.line || d.range.start.line > p.range.end.line {
                continue;
            }
            let edits = fix
                .edits
                .iter()
                .map(|e| TextEdit {
                    range: Range {
                        start: lines.at_offset(e.start),
                        end: lines.at_offset(e.end),
                    },
                    new_text: e.content.clone(),
                })
                .collect();
            let safe = fix.applicability == Applicability::Safe;
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("{} ({})", fix.message, fix.applicability.as_str()),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![d]),
                edit: Some(WorkspaceEdit {
                    changes: Some([(p.text_document.uri.clone(), edits)].into_iter().collect()),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(safe),
                ..CodeAction::default()
            }));
        }
        actions
    }
}

fn publish(uri: Uri, diagnostics: Vec<Diagnostic>) -> Notification {
    Notification::new(
        "textDocument/publishDiagnostics".to_string(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: None,
        },
    )
}

fn diagnostic(f: &Finding, lines: &Lines) -> Diagnostic {
    let start = lines.at(f.line, f.column);
    let end = lines.at(f.end_line.max(f.line), f.end_column);
    Diagnostic {
        range: Range { start, end },
        severity: Some(match f.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(f.code.to_string())),
        source: Some("apicompat".to_string()),
        message: f.message.clone(),
        ..Diagnostic::default()
    }
}

/// Where each line of a text starts: LSP positions of findings in O(log n + line length)
/// each (a scan from the start of the text per finding made files with tens of findings
/// cost more than their analysis).
struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Lines<'t> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// The LSP position (line, UTF-16 column) of a 1-based line and character column, as
    /// findings give them (clamped to the text).
    fn at(&self, line: u32, column: u32) -> Position {
        let i = line.max(1) as usize - 1;
        let Some(&start) = self.starts.get(i) else {
            return self.at_offset(self.text.len());
        };
        let rest = self.text.get(start..).unwrap_or("");
        let line_text = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let character: usize = line_text
            .chars()
            .take(column.max(1) as usize - 1)
            .map(char::len_utf16)
            .sum();
        position(i, character)
    }

    /// The LSP position of a byte offset.
    fn at_offset(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let i = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.starts[i];
        let character: usize = self.text[start..offset].chars().map(char::len_utf16).sum();
        position(i, character)
    }
}

fn position(line: usize, character: usize) -> Position {
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        character: u32::try_from(character).unwrap_or(u32::MAX),
    }
}

/// The dotted name under the cursor, up to the end of the segment the cursor is in.
fn dotted_at(text: &str, pos: Position) -> Option<(String, Range)> {
    let line = text.lines().nth(pos.line as usize)?;
    let chars: Vec<char> = line.chars().collect();
    // UTF-16 column -> char index.
    let (mut units, mut at) = (0usize, chars.len());
    for (i, c) in chars.iter().enumerate() {
        if units >= pos.character as usize {
            at = i;
            break;
        }
        units += c.len_utf16();
    }
    let part = |c: &char| c.is_alphanumeric() || *c == '_';
    let mut start = at.min(chars.len());
    while start > 0 && (part(&chars[start - 1]) || chars[start - 1] == '.') {
        start -= 1;
    }
    let mut end = at.min(chars.len());
    while end < chars.len() && part(&chars[end]) {
        end += 1;
    }
    let name: String = chars.get(start..end)?.iter().collect();
    let name = name.trim_matches('.').to_string();
    if name.is_empty() {
        return None;
    }
    let col = |i: usize| -> u32 {
        let units: usize = chars[..i].iter().map(|c| c.len_utf16()).sum();
        u32::try_from(units).unwrap_or(u32::MAX)
    };
    let range = Range {
        start: Position {
            line: pos.line,
            character: col(start),
        },
        end: Position {
            line: pos.line,
            character: col(end),
        },
    };
    Some((name, range))
}

/// `dist.all_reduce` -> `torch.distributed.all_reduce` when the document says
/// `import torch.distributed as dist` (or `from torch import distributed as dist`).
fn resolve_alias(text: &str, name: &str) -> String {
    let (first, rest) = name.split_once('.').map_or((name, ""), |(a, b)| (a, b));
    for line in text.lines() {
        let line = line.trim();
        let target = if let Some(r) = line.strip_prefix("import ") {
            r.split(',').find_map(|part| {
                let (module, alias) = part.trim().split_once(" as ")?;
                (alias.trim() == first).then(|| module.trim().to_string())
            })
        } else if let Some((module, names)) = line
            .strip_prefix("from ")
            .and_then(|r| r.split_once(" import "))
        {
            names
                .trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace())
                .split(',')
                .find_map(|part| {
                    let part = part.trim();
                    let (n, alias) = part.split_once(" as ").unwrap_or((part, part));
                    (alias.trim() == first).then(|| format!("{}.{}", module.trim(), n.trim()))
                })
        } else {
            None
        };
        if let Some(t) = target {
            return if rest.is_empty() {
                t
            } else {
                format!("{t}.{rest}")
            };
        }
    }
    name.to_string()
}

/// A local path from a `file://` URI (percent-decoded).
fn file_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?, 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    Some(PathBuf::from(String::from_utf8(out).ok()?))
}

/// A Python source or stub, checked as the project's code.
fn is_python(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "py" || e == "pyi")
}
