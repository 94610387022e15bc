//! Ignore patterns and the project's packages (`files/discover.rs`): a `.gitignore` line meant
//! for downloads or logs never hides a module of a package (git tracks it, Python imports it);
//! outside the packages it still applies (fake torch index: `pipelining` exists from 2.4.0).

mod common;

use common::{brief, project, run_with};

const USE: &str =
    "import torch\n\n\ndef build():\n    return torch.distributed.pipelining.pipeline\n";

#[test]
fn ignore_patterns_do_not_hide_package_modules() {
    let dir = project(
        "ignored-package-modules",
        &[
            ("requirements.txt", "torch>=2.3.0\n"),
            (".gitignore", "data\nlog_*\nbuild/\n"),
            ("pkg/__init__.py", ""),
            // A subpackage and a module the patterns match: checked.
            ("pkg/data/__init__.py", USE),
            ("pkg/data/inner/__init__.py", ""),
            ("pkg/data/inner/load.py", USE),
            ("pkg/log_stft.py", USE),
            // Outside any package: the patterns hold.
            ("data/fetch.py", USE),
            ("build/lib/pkg/__init__.py", USE),
            // A directory of a package without `__init__.py` the patterns match: not a package.
            ("pkg/data_raw/data/x.py", USE),
            ("train.py", "import pkg.data\n"),
        ],
    );
    let report = run_with(&dir, &[], |_| {});
    let mut got = brief(&report, &dir);
    got.retain(|f| !f.contains("AC008"));
    assert_eq!(
        got,
        [
            "pkg/data/__init__.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
            "pkg/data/inner/load.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
            "pkg/log_stft.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
        ]
    );
}
