//! The fuzz targets on stable: every seed in `seeds/<target>/` (real-looking inputs and the
//! crashes fuzzing found, minimized), then a fixed number of deterministic mutations of them
//! (a xorshift generator: bit flips, byte changes, inserted tokens, deleted, repeated and
//! spliced ranges). A crash fails the test (a panic, or the process aborts on a stack
//! overflow). cargo-fuzz runs the same functions for a fixed time: `scripts/fuzz.sh`.

use std::path::PathBuf;

/// Mutated inputs per target (about 2 to 5 seconds each in a debug build).
fn rounds(target: &str) -> usize {
    match target {
        "check_file" => 3500,
        "project_files" => 15000,
        "requirements" => 8000,
        "archive" => 50000,
        "index" => 30000,
        _ => 1000,
    }
}

/// Tokens the mutator inserts, per target.
fn tokens(target: &str) -> &'static [&'static [u8]] {
    match target {
        "check_file" => &[
            b"(",
            b")",
            b"[",
            b"]",
            b"{",
            b"}",
            b"lambda:",
            b"\n    ",
            b"\n",
            b"import torch\n",
            b"torch.",
            b".probe",
            b"self.",
            b"**kw",
            b"*a",
            b":=",
            b"await ",
            b"yield ",
            b"class C(lib.Opt):\n",
            b"def f(self):\n",
            b"return ",
            b"if x:\n",
            b"\\\n",
            b"f\"{",
            b"'''",
            b"#---\n",
            b"from . import ",
            b"from .. import *\n",
            b"global x\n",
            b"nonlocal x\n",
            b"match x:\n case ",
            b"@",
            b"async ",
            b"with ",
            b"except* ",
            b"not ",
            b"getattr(torch, \"",
            b"copy.deepcopy(",
            b"super().",
            b"__version__ >= \"2.",
            b"sys.version_info < (3,",
            b"\x00",
            b"\xff",
            b"\r",
        ],
        "requirements" | "project_files" => &[
            b"(",
            b")",
            b"[",
            b"]",
            b";",
            b",",
            b"==",
            b"~=",
            b"===",
            b"!=",
            b"<=",
            b">",
            b".*",
            b"+",
            b"!",
            b"@ ",
            b"'",
            b"\"",
            b" and ",
            b" or ",
            b" not in ",
            b" in ",
            b"extra",
            b"python_version",
            b"platform_machine",
            b"\\\n",
            b"\n",
            b"#",
            b" # ",
            b"-e ",
            b"--hash=",
            b"rc1",
            b".post",
            b".dev",
            b"[",
            b"]\n",
            b"= ",
            b"=\n  ",
            b"{",
            b"}",
            b"\"\"\"",
            b"**",
            b"setup(",
            b"[project]\n",
            b"dependencies = [",
            b"- pip:\n  - ",
            b"\t",
            b"\x00",
            b"\xff",
        ],
        "archive" => &[
            b"PK\x03\x04",
            b"PK\x01\x02",
            b"PK\x05\x06",
            b"PK\x06\x06",
            b"PK\x06\x07",
            b"\xff\xff\xff\xff",
            b"\x00\x00\x00\x00",
            b"../",
            b"/",
            b"\\",
            b".py",
            b".dist-info/METADATA",
            b"\x1f\x8b\x08",
            b"ustar\x00",
        ],
        "index" => &[
            b"\x00",
            b"\xff",
            b"\xff\xff\xff\xff",
            b"\x01\x00\x00\x00",
            b"\x7f",
            b"\x80",
            b".",
            b"\"",
            b"{",
            b"}",
            b"[",
            b"]",
            b"pkg.",
            b"null",
        ],
        _ => &[],
    }
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const MAX_LEN: usize = 64 * 1024;

fn mutate(rng: &mut XorShift, seeds: &[Vec<u8>], tokens: &[&[u8]]) -> Vec<u8> {
    let mut d = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(d.len() + 1);
        match rng.below(8) {
            0 if !d.is_empty() => {
                let i = rng.below(d.len());
                d[i] ^= 1 << rng.below(8);
            }
            1 if !d.is_empty() => {
                let i = rng.below(d.len());
                d[i] = rng.next() as u8;
            }
            2 | 3 if !tokens.is_empty() => {
                let t = tokens[rng.below(tokens.len())];
                d.splice(at..at, t.iter().copied());
            }
            4 => {
                let end = (at + 1 + rng.below(16)).min(d.len());
                d.drain(at.min(end)..end);
            }
            5 => {
                // A range repeated: nesting, long lines, many members.
                let len = 1 + rng.below(8);
                let end = (at + len).min(d.len());
                let piece = d[at.min(end)..end].to_vec();
                for _ in 0..1 + rng.below(64) {
                    d.splice(at..at, piece.iter().copied());
                }
            }
            6 => {
                let other = &seeds[rng.below(seeds.len())];
                let from = rng.below(other.len() + 1);
                d.truncate(at);
                d.extend_from_slice(&other[from..]);
            }
            _ => d.truncate(at),
        }
    }
    d.truncate(MAX_LEN);
    d
}

fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("seeds")
        .join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no seeds in {}", dir.display());
    out
}

fn replay(target: &str) {
    let (_, body) = apicompat_fuzz::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .unwrap();
    let seeds = seeds(target);
    // On a thread with the stack of the CLI's main thread (the test harness gives 2 MiB).
    apicompat_fuzz::with_stack(apicompat_fuzz::MAIN_STACK, || {
        for (name, data) in &seeds {
            eprintln!("{target}: seed {name}");
            body(data);
        }
        let data: Vec<Vec<u8>> = seeds.into_iter().map(|(_, d)| d).collect();
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ target.len() as u64);
        for round in 0..rounds(target) {
            let input = mutate(&mut rng, &data, tokens(target));
            if std::env::var_os("APICOMPAT_FUZZ_VERBOSE").is_some() {
                eprintln!(
                    "{target}: round {round}: {:?}",
                    String::from_utf8_lossy(&input)
                );
            }
            let result = std::panic::catch_unwind(|| body(&input));
            if let Err(panic) = result {
                let path = std::env::temp_dir().join(format!("apicompat-fuzz-{target}-{round}"));
                let _ = std::fs::write(&path, &input);
                eprintln!(
                    "{target}: round {round} crashed; input in {}",
                    path.display()
                );
                std::panic::resume_unwind(panic);
            }
        }
    });
}

#[test]
fn check_file() {
    replay("check_file");
}

#[test]
fn requirements() {
    replay("requirements");
}

#[test]
fn project_files() {
    replay("project_files");
}

#[test]
fn archive() {
    replay("archive");
}

#[test]
fn index() {
    replay("index");
}

#[test]
fn every_target_is_replayed() {
    let names: Vec<&str> = apicompat_fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "check_file",
            "requirements",
            "project_files",
            "archive",
            "index"
        ]
    );
}
