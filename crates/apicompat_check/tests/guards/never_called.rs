//! Functions defined inside a function and never named again: their bodies never run.

use super::check_files;

#[test]
fn a_nested_function_never_named_never_runs() {
    let got = check_files(
        "never_called",
        &[(
            "m.py",
            "\
import torch

def load(module):
    def fetch(m):
        torch.distributed.pipelining.pipeline(m)

    def used(m):
        torch.distributed.pipelining.Schedule1F1B(m)

    def returned():
        torch.distributed.pipelining.pipe_split()

    def decorated():
        torch.distributed.pipelining.SplitPoint

    used(module)
    register(decorated)
    return returned

def dynamic():
    def by_name():
        torch.distributed.pipelining.PipelineStage
    return locals()[\"by_name\"]

def recursive(n):
    def again(k):
        torch.distributed.pipelining.ScheduleGPipe
        again(k - 1)
",
        )],
        &["torch==2.3.0"],
    );
    // `fetch` is never named; `again` names itself (counted as called, to stay on the safe
    // side); `locals()` can reach every local by a string.
    assert_eq!(
        got,
        [
            "m.py:8:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0",
            "m.py:11:9 AC002 error call-time torch.distributed.pipelining.pipe_split missing=2.3.0",
            "m.py:14:9 AC002 error call-time torch.distributed.pipelining.SplitPoint missing=2.3.0",
            "m.py:22:9 AC002 error call-time torch.distributed.pipelining.PipelineStage missing=2.3.0",
            "m.py:27:9 AC002 error call-time torch.distributed.pipelining.ScheduleGPipe missing=2.3.0",
        ]
    );
}
