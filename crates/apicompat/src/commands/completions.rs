//! `apicompat completions SHELL`: a completion script for bash, zsh, fish, elvish or
//! PowerShell on standard output.

use std::process::ExitCode;

use clap_complete::Shell;

use crate::CmdResult;

pub fn run(mut command: clap::Command, shell: Shell) -> CmdResult {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "apicompat", &mut out);
    std::io::Write::write_all(&mut std::io::stdout().lock(), &out)?;
    Ok(ExitCode::SUCCESS)
}
