//! Output settings shared by every subcommand: the global `--quiet` / `--verbose` flags and
//! colour, which is used only on a terminal and never when `NO_COLOR` is set (to anything but
//! the empty string, as <https://no-color.org> says).

use std::sync::atomic::{AtomicI8, Ordering};

static VERBOSITY: AtomicI8 = AtomicI8::new(0);

/// Set once by `main` from the global flags.
pub fn set_verbosity(quiet: bool, verbose: bool) {
    let level = if quiet { -1 } else { i8::from(verbose) };
    VERBOSITY.store(level, Ordering::Relaxed);
}

/// `--quiet`: only problems and errors are printed (no progress, notes or warnings).
pub fn quiet() -> bool {
    VERBOSITY.load(Ordering::Relaxed) < 0
}

/// `--verbose`: every detail a command has (all distributions, every note).
pub fn verbose() -> bool {
    VERBOSITY.load(Ordering::Relaxed) > 0
}

/// Whether `NO_COLOR` asks for no colour.
pub fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// Whether to colour what goes to standard output.
pub fn color_stdout() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stdout()) && !no_color()
}

/// Bold text when `color`, plain otherwise.
pub fn bold(text: &str, color: bool) -> String {
    if color {
        format!("\x1b[1m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Red bold text when `color`, plain otherwise.
pub fn red(text: &str, color: bool) -> String {
    if color {
        format!("\x1b[1;31m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Writes a command's output to standard output. A reader that went away (`apicompat check |
/// head`) ends the run quietly with exit code 0, as for every subcommand; another write error
/// is a failure (exit 2).
pub fn print_stdout(out: &str) -> Result<(), crate::Failure> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(crate::Failure::from(format!(
            "cannot write the output: {e}"
        ))),
        Ok(()) => Ok(()),
    }
}
