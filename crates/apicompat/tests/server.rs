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

    c.send(json!({"jsonrpc": "2.0", "id": 4, "method": "shutdown", "params": null}));
    c.wait(|m| m["id"] == 4);
    c.send(json!({"jsonrpc": "2.0", "method": "exit", "params": null}));
    let status = child.wait().expect("exit");
    assert!(status.success(), "{status:?}");
}
