//! Import chains from the project's entry points to modules with import-time findings, on the
//! fake torch index (`torch.distributed.pipelining` exists from 2.4.0).

mod common;

use apicompat_check::Reach;
use common::{brief, project, run};

const BREAKS: &str = "from torch.distributed.pipelining import pipeline\n";

#[test]
fn chains_from_scripts_main_blocks_and_main_modules() {
    let dir = project(
        "chains",
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"mypkg\"\n\n[project.scripts]\nmytool = \"mypkg.cli:main\"\n",
            ),
            ("mypkg/__init__.py", ""),
            (
                "mypkg/cli.py",
                "from . import model\n\n\ndef main():\n    from .lazy import later\n    later()\n",
            ),
            ("mypkg/model.py", "from mypkg.parallel import build\n"),
            (
                "mypkg/parallel.py",
                &format!("{BREAKS}\n\ndef build():\n    from torch.distributed.pipelining import PipelineStage\n"),
            ),
            // Imported only inside a function: no chain.
            ("mypkg/lazy.py", &format!("{BREAKS}\n\ndef later():\n    pass\n")),
            // Imported by nothing.
            ("mypkg/orphan.py", BREAKS),
            (
                "train.py",
                &format!("{BREAKS}\n\nif __name__ == \"__main__\":\n    pass\n"),
            ),
            ("tools/__init__.py", ""),
            ("tools/__main__.py", "from .helpers import x\n"),
            (
                "tools/helpers.py",
                &format!("import typing\nif typing.TYPE_CHECKING:\n    from mypkg import orphan\n{BREAKS}x = 1\n"),
            ),
        ],
    );
    let report = run(&dir, &["torch==2.3.0"]);
    let got: Vec<String> = report
        .findings
        .iter()
        .map(|f| {
            let path = f.path.strip_prefix(&dir).unwrap_or(&f.path).display();
            match report.chain(f) {
                Some(chain) => format!("{path}:{} {}", f.line, chain.join(" -> ")),
                None => format!("{path}:{} -", f.line),
            }
        })
        .collect();
    assert_eq!(
        got,
        [
            "mypkg/lazy.py:1 -",
            "mypkg/orphan.py:1 -",
            "mypkg/parallel.py:1 mypkg.cli -> mypkg.model -> mypkg.parallel",
            "tools/helpers.py:4 tools.__main__ -> tools.helpers",
            "train.py:1 train",
        ],
        "{:?}",
        brief(&report, &dir)
    );
    // The call-time use of `parallel.py:5` is behind its module's failure at line 1 (no
    // chain either way).
    assert_eq!(report.summary.behind, 1);
}

/// A use in the `if __name__ == "__main__":` block runs when the file runs as a script, not
/// when it is imported: `script`, without an import chain; the module's top level is still
/// import-time (a function defined in the block is call-time, behind the top level's failure).
#[test]
fn the_main_block_is_script_reach() {
    let dir = project(
        "main-block",
        &[(
            "train.py",
            &format!(
                "{BREAKS}\n\nif __name__ == \"__main__\":\n    import torch.distributed.pipelining as pp\n\n    def run():\n        from torch.distributed.pipelining import PipelineStage\n"
            ),
        )],
    );
    let report = run(&dir, &["torch==2.3.0"]);
    let got: Vec<(u32, Reach, bool)> = report
        .findings
        .iter()
        .map(|f| (f.line, f.reach, report.chain(f).is_some()))
        .collect();
    assert_eq!(
        got,
        [(1, Reach::ImportTime, true), (5, Reach::Script, false),],
        "{:?}",
        brief(&report, &dir)
    );
}
