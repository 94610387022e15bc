//! `apicompat server` driven over stdio as an editor drives it: initialize, didOpen of a file
//! with a break -> publishDiagnostics with the finding; codeAction -> the fix's edit; hover on
//! `torch.distributed.pipelining` -> its release ranges; didChange that fixes it -> no
//! diagnostics; shutdown and exit.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

mod common;

struct Client {
    stdin: ChildStdin,
    messages: Receiver<Value>,
}

impl Client {
    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }

    /// The next message that `pick` accepts (others are skipped), within 60 s.
    fn wait(&self, pick: impl Fn(&Value) -> bool) -> Value {
        loop {
            let m = self
                .messages
                .recv_timeout(Duration::from_secs(60))
                .expect("the server answers within 60 s");
            if pick(&m) {
                return m;
            }
        }
    }
}

fn read_messages(out: impl Read + Send + 'static) -> Receiver<Value> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(out);
        loop {
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("Content-Length: ") {
                    len = n.parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; len];
            if r.read_exact(&mut body).is_err() {
                return;
            }
            if let Ok(v) = serde_json::from_slice(&body) {
                if tx.send(v).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

/// The server, started on a project and sent `initialize` (id 1).
fn start(dir: &std::path::Path) -> (std::process::Child, Client) {
    let mut child = common::bin()
        .args(["--no-cache", "server"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server");
    let mut c = Client {
        stdin: child.stdin.take().expect("stdin"),
        messages: read_messages(child.stdout.take().expect("stdout")),
    };
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"processId": null, "rootUri": format!("file://{}", dir.display()), "capabilities": {}}}));
    (child, c)
}

/// Sends `shutdown` (id `id`) and `exit`; the server ends with success.
fn stop(mut child: std::process::Child, mut c: Client, id: u32) {
    c.send(json!({"jsonrpc": "2.0", "id": id, "method": "shutdown", "params": null}));
    c.wait(|m| m["id"] == id);
    c.send(json!({"jsonrpc": "2.0", "method": "exit", "params": null}));
    let status = child.wait().expect("exit");
    assert!(status.success(), "{status:?}");
}

#[test]
fn diagnostics_code_actions_and_hover_over_stdio() {
    let dir = common::project_in(
        "server",
        "basic",
        &[("requirements.txt", "torch>=2.4\n"), ("m.py", "")],
    );
    let dir = std::fs::canonicalize(&dir).expect("canonical");
    let uri = format!("file://{}", dir.join("m.py").display());
    let broken = "import torch.distributed.pipelining\nfrom torch.optim.adamw import Optimizer\n";
    let fixed = "import torch.distributed.pipelining\nfrom torch.optim import Optimizer\n";

    let (child, mut c) = start(&dir);
    let init = c.wait(|m| m["id"] == 1);
    assert_eq!(
        init["result"]["capabilities"]["hoverProvider"], true,
        "{init}"
    );
    c.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));

    c.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": broken}}}),
    );
    let diags = c.wait(|m| m["method"] == "textDocument/publishDiagnostics");
    let list = diags["params"]["diagnostics"]
        .as_array()
        .expect("diagnostics");
    assert_eq!(list.len(), 1, "{diags}");
    assert_eq!(list[0]["code"], "AC001");
    assert_eq!(
        list[0]["range"]["start"],
        json!({"line": 1, "character": 30})
    );
    assert!(
        list[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("torch.optim.adamw.Optimizer")),
        "{diags}"
    );

    c.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction", "params": {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
        "context": {"diagnostics": []}}}),
    );
    let actions = c.wait(|m| m["id"] == 2);
    let action = &actions["result"][0];
    assert_eq!(action["isPreferred"], true, "{actions}");
    let edits = &action["edit"]["changes"][&uri];
    assert_eq!(
        edits,
        &json!([{"range": {"start": {"line": 1, "character": 5}, "end": {"line": 1, "character": 22}},
                 "newText": "torch.optim"}]),
        "{actions}"
    );

    c.send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": uri}, "position": {"line": 0, "character": 28}}}),
    );
    let hover = c.wait(|m| m["id"] == 3);
    let value = hover["result"]["contents"]["value"].as_str().unwrap_or("");
    assert!(
        value.contains("torch.distributed.pipelining (torch)")
            && value.contains("module in 2.4.0 - "),
        "{hover}"
    );

    c.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"text": fixed}]}}),
    );
    let diags = c.wait(|m| m["method"] == "textDocument/publishDiagnostics");
    assert_eq!(diags["params"]["diagnostics"], json!([]), "{diags}");

    stop(child, c, 4);
}

/// A project in a fresh directory (canonical), with the server started on it and initialized.
fn session(
    name: &str,
    files: &[(&str, &str)],
) -> (std::path::PathBuf, std::process::Child, Client) {
    let dir = common::project_in("server", name, files);
    let dir = std::fs::canonicalize(&dir).expect("canonical");
    let (child, mut c) = start(&dir);
    c.wait(|m| m["id"] == 1);
    c.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    (dir, child, c)
}

/// `didOpen` of a Python document.
fn open_doc(c: &mut Client, uri: &str, text: &str) {
    c.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}}),
    );
}

/// The diagnostics the server publishes next for each of `uris` (other messages are skipped).
fn published(c: &Client, uris: &[&str]) -> Vec<Vec<Value>> {
    let mut out: Vec<Option<Vec<Value>>> = vec![None; uris.len()];
    while out.iter().any(Option::is_none) {
        let m = c.wait(|m| m["method"] == "textDocument/publishDiagnostics");
        if let Some(i) = uris.iter().position(|u| m["params"]["uri"] == *u) {
            out[i] = Some(
                m["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default(),
            );
        }
    }
    out.into_iter().flatten().collect()
}

/// A change in one open document re-checks the open documents that depend on it: `lib.py`'s
/// `build` uses `torch.distributed.pipelining` (from 2.4; `torch>=2.3` is declared) and is
/// called only from `main.py`. Guarded there, the use is guarded; unguarded, it breaks.
#[test]
fn a_change_updates_the_diagnostics_of_dependent_open_documents() {
    let (dir, child, mut c) = session(
        "dependents",
        &[
            ("requirements.txt", "torch>=2.3\n"),
            ("lib.py", ""),
            ("main.py", ""),
        ],
    );
    let lib = format!("file://{}", dir.join("lib.py").display());
    let main = format!("file://{}", dir.join("main.py").display());
    let lib_text = "import torch\n\n\ndef build(model):\n    return torch.distributed.pipelining.pipeline(model)\n";
    let guarded = "import torch\n\nfrom lib import build\n\nif torch.__version__ >= \"2.4\":\n    build(None)\n";
    let unguarded = "import torch\n\nfrom lib import build\n\nbuild(None)\n";

    // Alone, `build` may run anywhere: its use breaks on 2.3.
    open_doc(&mut c, &lib, lib_text);
    let [alone] = <[_; 1]>::try_from(published(&c, &[&lib])).expect("one");
    assert!(
        alone.iter().any(|d| d["range"]["start"]["line"] == 4),
        "{alone:?}"
    );
    // Its only caller, opened, runs it on 2.4 and later: `lib.py` is published again, clean.
    open_doc(&mut c, &main, guarded);
    let both = published(&c, &[&lib, &main]);
    assert_eq!(both, vec![Vec::<Value>::new(), Vec::new()]);
    // The guard removed in `main.py`: `lib.py` breaks again, without being edited.
    c.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": main, "version": 2}, "contentChanges": [{"text": unguarded}]}}),
    );
    let after = published(&c, &[&lib, &main]);
    assert_eq!(after[0], alone);

    stop(child, c, 2);
}

/// The open documents are checked in their project: files that are not open are read from
/// disk (and read again when they change there), so `lib.py` alone is clean while `main.py`
/// on disk calls it only under a version guard, and breaks once `main.py` is rewritten
/// without it.
#[test]
fn open_documents_are_checked_with_the_files_on_disk() {
    let lib_text = "import torch\n\n\ndef build(model):\n    return torch.distributed.pipelining.pipeline(model)\n";
    let guarded = "import torch\n\nfrom lib import build\n\nif torch.__version__ >= \"2.4\":\n    build(None)\n";
    let unguarded = "import torch\n\nfrom lib import build\n\nbuild(None)\n";
    let (dir, child, mut c) = session(
        "on-disk",
        &[
            ("requirements.txt", "torch>=2.3\n"),
            ("lib.py", lib_text),
            ("main.py", guarded),
        ],
    );
    let lib = format!("file://{}", dir.join("lib.py").display());

    open_doc(&mut c, &lib, lib_text);
    let [first] = <[_; 1]>::try_from(published(&c, &[&lib])).expect("one");
    assert_eq!(first, Vec::<Value>::new());
    let mut version = 1;
    let mut change = |c: &mut Client| -> Vec<Value> {
        version += 1;
        c.send(
            json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": lib, "version": version},
            "contentChanges": [{"text": lib_text}]}}),
        );
        let [d] = <[_; 1]>::try_from(published(c, &[&lib])).expect("one");
        d
    };
    let breaks = |d: &[Value]| d.iter().any(|d| d["range"]["start"]["line"] == 4);
    // A new file on disk calls `build` unguarded: the next change of `lib.py` sees it.
    std::fs::write(dir.join("other.py"), unguarded).expect("write other.py");
    let with_new = change(&mut c);
    assert!(breaks(&with_new), "{with_new:?}");
    // Deleted again: clean.
    std::fs::remove_file(dir.join("other.py")).expect("remove other.py");
    assert_eq!(change(&mut c), Vec::<Value>::new());
    // `main.py` changed on disk (a checkout, another editor).
    std::fs::write(dir.join("main.py"), unguarded).expect("write main.py");
    let after = change(&mut c);
    assert!(breaks(&after), "{after:?}");
    stop(child, c, 2);
}

/// A function the edit defines for the first time is typed from its callers in files that
/// are not open: `main.py` (on disk) calls `attach(torch.nn.Linear(2, 2))` before `lib.py`
/// defines `attach`; once it does, `m.set_submodule` (torch 2.5+) breaks on 2.3 - 2.4.
#[test]
fn a_new_function_is_typed_from_callers_on_disk() {
    let (dir, child, mut c) = session(
        "new-function",
        &[
            ("requirements.txt", "torch>=2.3\n"),
            ("lib.py", ""),
            (
                "main.py",
                "import torch\nfrom lib import attach\n\nattach(torch.nn.Linear(2, 2))\n",
            ),
        ],
    );
    let lib = format!("file://{}", dir.join("lib.py").display());

    open_doc(&mut c, &lib, "");
    let [first] = <[_; 1]>::try_from(published(&c, &[&lib])).expect("one");
    assert_eq!(first, Vec::<Value>::new());
    c.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": lib, "version": 2},
        "contentChanges": [{"text": "def attach(m):\n    m.set_submodule(\"x\", None)\n"}]}}),
    );
    let [after] = <[_; 1]>::try_from(published(&c, &[&lib])).expect("one");
    assert!(
        after
            .iter()
            .any(|d| d["range"]["start"]["line"] == 1 && d["code"] == "AC002"),
        "{after:?}"
    );
    stop(child, c, 2);
}

/// A declaration file is not Python: opened, it gets the findings `check` reports on it
/// (AC008, which weighs every use of the project), not syntax errors.
#[test]
fn a_declaration_file_gets_its_requirement_findings() {
    let (dir, child, mut c) = session(
        "declaration",
        &[
            ("requirements.txt", "torch>=2.3\n"),
            ("main.py", "import torch.distributed.pipelining\n"),
        ],
    );
    let req = format!("file://{}", dir.join("requirements.txt").display());

    c.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": req, "languageId": "pip-requirements", "version": 1,
                         "text": "torch>=2.3\n"}}}),
    );
    let [diags] = <[_; 1]>::try_from(published(&c, &[&req])).expect("one");
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "AC008", "{diags:?}");
    assert_eq!(diags[0]["range"]["start"]["line"], 0, "{diags:?}");
    stop(child, c, 2);
}

/// A sub-directory that declares other bounds is its own project, for the server as for
/// `check`: `tools/` requires `torch>=2.5`, so its use of `torch.distributed.pipelining`
/// (2.4+) is clean there, while the same line at the root (`torch>=2.3`) breaks.
#[test]
fn a_sub_project_is_checked_against_its_own_declarations() {
    let line = "import torch.distributed.pipelining\n";
    let (dir, child, mut c) = session(
        "sub-project",
        &[
            ("requirements.txt", "torch>=2.3\n"),
            ("main.py", line),
            ("tools/requirements.txt", "torch>=2.5\n"),
            ("tools/run.py", line),
        ],
    );
    let main = format!("file://{}", dir.join("main.py").display());
    let tool = format!("file://{}", dir.join("tools/run.py").display());

    for uri in [&main, &tool] {
        open_doc(&mut c, uri, line);
    }
    let got = published(&c, &[&main, &tool]);
    assert_eq!(got[0].len(), 1, "{got:?}");
    assert_eq!(got[0][0]["code"], "AC001", "{got:?}");
    assert_eq!(got[1], Vec::<Value>::new(), "{got:?}");
    stop(child, c, 2);
}
