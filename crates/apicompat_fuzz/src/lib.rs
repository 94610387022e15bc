//! The bodies of apicompat's fuzz targets, one plain function per target, so that the same
//! code runs under cargo-fuzz (`fuzz/fuzz_targets/*.rs`, nightly) and under the stable test
//! `tests/replay.rs`, which replays the seed corpus in `seeds/<target>/` and deterministic
//! mutations of it on every `cargo test --workspace` (see `docs/fuzzing.md`).
//!
//! Every function accepts any bytes and must neither panic nor overflow its stack nor hang:
//! a crash is a bug in the code under test (or in the harness).

mod check;
mod index;
mod requirements;

pub use check::check_file;
pub use index::{frame, index, unframe};
pub use requirements::{project_files, requirements};

/// A target's body.
pub type Body = fn(&[u8]);

/// Every target: its name (the file in `fuzz/fuzz_targets/` and the folder in `seeds/`) and
/// its body.
pub const TARGETS: &[(&str, Body)] = &[
    ("check_file", check_file),
    ("requirements", requirements),
    ("project_files", project_files),
    ("archive", archive),
    ("index", index),
];

/// Wheel and sdist reading from memory. The first byte picks the file name the reader is
/// given (a wheel, a zip sdist, a tar.gz sdist, none); the rest is the file.
pub fn archive(data: &[u8]) {
    let (pick, body) = data.split_first().unwrap_or((&0, &[]));
    let name = match pick % 4 {
        0 => "pkg-1.0-py3-none-any.whl",
        1 => "pkg-1.0.zip",
        2 => "pkg-1.0.tar.gz",
        _ => "",
    };
    if let Ok(tree) = apicompat_archive::read_bytes(name, body) {
        // What the extractor asks of a tree.
        for file in &tree.files {
            let _ = file.kind();
            let _ = tree.file(&file.path);
        }
    }
    // The metadata parsers see member bytes as they are.
    let meta = apicompat_archive::parse_metadata(body);
    let _ = meta;
}

/// Runs `f` on a thread with the stack size the code under test gets in apicompat
/// (`check` parses on workers with 256 MiB stacks; the CLI's main thread has the usual
/// 8 MiB), propagating a panic. A stack overflow aborts the process, as it would in
/// apicompat.
pub fn with_stack<T: Send>(stack: usize, f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .stack_size(stack)
            .spawn_scoped(s, f)
            .expect("cannot start a thread");
        match handle.join() {
            Ok(v) => v,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// The stack of `check`'s worker threads (`apicompat_check::STACK_SIZE`).
pub const CHECK_STACK: usize = 256 * 1024 * 1024;
/// The stack of the CLI's main thread, where declarations and indexes are read.
pub const MAIN_STACK: usize = 8 * 1024 * 1024;
