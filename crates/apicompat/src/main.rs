//! `apicompat`: knows the API surface of every release of Python frameworks, statically.

mod baseline;
#[path = "commands/check.rs"]
mod check_command;
mod commands;
mod noqa;
mod ui;

// `--features system-alloc` leaves the system allocator in place, for heap profilers
// (valgrind massif, heaptrack) that cannot see inside mimalloc.
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc commits each arena whole as it reserves it (on Linux, where memory is
/// overcommitted); with transparent huge pages the kernel then backs what is touched in 2 MiB
/// pages: ~70 MB more peak RSS on a large project for no CPU saved (docs/benchmarks.md).
/// Committing on demand keeps the RSS to what is used. The option must be set before the
/// first arena is reserved, which happens before `main`: this runs as an ELF constructor.
#[cfg(all(not(feature = "system-alloc"), target_os = "linux"))]
#[used]
#[unsafe(link_section = ".init_array")]
static COMMIT_ON_DEMAND: extern "C" fn() = {
    extern "C" fn commit_on_demand() {
        // `mi_option_arena_eager_commit` (mimalloc.h, the same number in v2 and v3; the crate
        // does not export option constants).
        const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
        // SAFETY: sets a plain option value, before any thread or allocation of the program.
        unsafe { libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0) }
    }
    commit_on_demand
};

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "apicompat",
    version,
    about = "Knows every release of the Python frameworks your code uses, and which lines break on which.",
    after_help = "Examples:\n  apicompat check\n  apicompat env --python .venv/bin/python\n  apicompat query torch.distributed.pipelining\n  apicompat query torch.utils.checkpoint.CheckpointPolicy --output-format json\n  apicompat index list\n  apicompat index fetch 'colossalai>=0.4'\n  apicompat completions bash > ~/.local/share/bash-completion/completions/apicompat\n\nColour is used on a terminal unless NO_COLOR is set."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Cache directory for fetched releases (default: APICOMPAT_CACHE_DIR or the user cache).
    #[arg(long, global = true, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Ignore the user's cache: use only the indexes built into the binary.
    #[arg(long, global = true)]
    no_cache: bool,
    /// Never use the network: `check` and `range` do not fetch packages the index lacks (also
    /// when APICOMPAT_OFFLINE is set).
    #[arg(long, global = true)]
    offline: bool,
    /// Print only problems and errors: no progress, notes or warnings.
    #[arg(long, short = 'q', global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Print every detail a command has (`env`: every distribution).
    #[arg(long, short = 'v', global = true)]
    verbose: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Check every use of an indexed package in a project against the releases it may run on.
    #[command(
        after_help = "Examples:\n  apicompat check\n  apicompat check --write-baseline apicompat-baseline.json\n  apicompat check --baseline apicompat-baseline.json\n  apicompat check --extend-exclude 'third_party,examples/*.py' --per-file-ignores 'tests/*:AC011'\n  apicompat check src/ --target 'torch>=2.3'\n  apicompat check --python .venv/bin/python --output-format json\n  apicompat check --output-format sarif > apicompat.sarif\n  apicompat check --diff\n  apicompat check --fix --unsafe-fixes"
    )]
    Check(Box<check_command::CheckArgs>),
    /// Which releases have a module, class, function or attribute, and what it is in each.
    #[command(
        after_help = "Examples:\n  apicompat query torch.distributed._tensor.Partial\n  apicompat query colossalai.zero.low_level.low_level_optim.LowLevelZeroOptimizer._param_store --output-format json"
    )]
    Query {
        /// A dotted path: `torch.nn.Linear`, `torch.distributed.pipelining`.
        symbol: String,
        /// The package whose releases to search (default: the one that owns the top-level module).
        #[arg(long)]
        package: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        output_format: Format,
    },
    /// Inspect a Python environment (pip check, Requires-Python, CUDA/ROCm builds that
    /// disagree), then check the project against exactly the releases installed there.
    #[command(
        after_help = "Examples:\n  apicompat env\n  apicompat env --python .venv/bin/python src/\n  apicompat env --python /opt/conda/envs/train --no-check\n  apicompat env --output-format json > env.json\n\nExit code: 0 consistent, 1 problems found (or check errors), 2 unreadable metadata or bad input."
    )]
    Env(commands::env::EnvArgs),
    /// The releases of each package on which every use works, why, and what to declare.
    #[command(
        after_help = "Examples:\n  apicompat range\n  apicompat range src/ --output-format json\n  apicompat range --python-version 3.9\n  apicompat range --cap\n\nExit code: 0, 1 when a declared requirement admits releases that break or no combination of releases works, 2 when a path cannot be read or on bad input."
    )]
    Range(commands::range::RangeArgs),
    /// What changed between two releases; with --used-by, every line of a project an upgrade affects.
    #[command(
        after_help = "Examples:\n  apicompat diff torch 2.4.1 2.5.0\n  apicompat diff torch 2.4.1 2.5.0 --prefix torch.distributed\n  apicompat diff torch 2.4.1 2.5.0 --used-by . --output-format markdown\n  apicompat diff colossalai 0.4.0 0.4.1 --output-format json\n\nExit code: 0, 1 when a line of the --used-by project breaks on the newer release, 2 on bad input."
    )]
    Diff(commands::diff::DiffArgs),
    /// A language server over stdio: diagnostics as you type, code actions from the fixes,
    /// hover on names of indexed packages.
    #[command(
        after_help = "Examples:\n  apicompat server\n\nEditors start it: see the README for VS Code, Neovim and Helix."
    )]
    Server,
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  apicompat completions bash > ~/.local/share/bash-completion/completions/apicompat\n  apicompat completions zsh > \"${fpath[1]}/_apicompat\"\n  apicompat completions fish > ~/.config/fish/completions/apicompat.fish"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Build, fetch and inspect the index of releases.
    #[command(
        after_help = "Examples:\n  apicompat index list\n  apicompat index fetch 'torch>=2.3,<2.6'\n  apicompat index show torch==2.5.0\n  apicompat index build torch-2.5.0-cp312-none-macosx_11_0_arm64.whl --package torch"
    )]
    Index {
        #[command(subcommand)]
        command: IndexCommand,
    },
}

#[derive(Subcommand)]
enum IndexCommand {
    /// Extract the surface of releases from wheels, sdists or directories into the cache.
    #[command(
        after_help = "Examples:\n  apicompat index build torch-2.5.0-cp312-none-macosx_11_0_arm64.whl --package torch --version 2.5.0\n  apicompat index build downloads/torch-*.whl --package torch\n  apicompat index build ./site-packages --package colossalai --version 0.4.1 --output surface.json"
    )]
    Build {
        /// Wheels (.whl), sdists (.tar.gz, .zip) or directories.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long)]
        package: String,
        /// The release (default: read from each file name).
        #[arg(long)]
        version: Option<String>,
        /// Write the surface as JSON to this file instead of adding it to the cache.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Download releases from the package index and add them to the cache.
    #[command(
        after_help = "Examples:\n  apicompat index fetch colossalai\n  apicompat index fetch torch==2.5.0\n  apicompat index fetch 'torch>=2.3,<2.6'"
    )]
    Fetch {
        /// `NAME` (every release), `NAME==V` or `NAME` with a specifier set.
        specs: Vec<String>,
        /// Fetch releases already in the cache again.
        #[arg(long)]
        refresh: bool,
        /// Download whole release files (sha256-checked) into DIR and keep them, instead of
        /// reading only the source members.
        #[arg(long, value_name = "DIR")]
        download_to: Option<PathBuf>,
    },
    /// The whole surface of one release: every module and name, every class's members.
    #[command(
        after_help = "Examples:\n  apicompat index show torch==2.5.0\n  apicompat index show colossalai==0.4.0 --output-format json"
    )]
    Show {
        /// `NAME==VERSION`.
        spec: String,
        #[arg(long, value_enum, default_value = "text")]
        output_format: Format,
    },
    /// Write the data file (the indexes shipped beside the binary) from `NAME.apix` files.
    #[command(
        after_help = "Examples:\n  apicompat index pack cache/index/deepspeed.apix cache/index/triton.apix --output crates/apicompat/wheel-data/scripts/apicompat-stack.apid"
    )]
    Pack {
        /// Package indexes (`NAME.apix`; the package is the file name).
        #[arg(required = true)]
        indexes: Vec<PathBuf>,
        #[arg(long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Write the table of what the releases of packages without a surface require (their
    /// `Requires-Dist`, `Requires-Python` and wheels), from the package index; for a package
    /// with a surface, of its releases older than the oldest indexed one.
    #[command(
        after_help = "Examples:\n  apicompat index requirements scipy opencv-python --from 2017-01-01 --until 2026-12-01 --output crates/apicompat/index/requirements.apir"
    )]
    Requirements {
        /// Distributions (any spelling).
        names: Vec<String>,
        /// Tables written by earlier runs, joined into the output.
        #[arg(long, value_name = "FILE")]
        merge: Vec<PathBuf>,
        #[arg(long, value_name = "FILE")]
        output: PathBuf,
        /// Only releases first uploaded on or after this date (ISO 8601).
        #[arg(long, value_name = "DATE", default_value = "0000")]
        from: String,
        /// Only releases first uploaded before this date (ISO 8601): the same window gives the
        /// same table.
        #[arg(long, value_name = "DATE")]
        until: String,
        /// Requests made at once.
        #[arg(long, default_value_t = commands::requirements::JOBS)]
        jobs: usize,
    },
    /// Record in index files the Pythons each release has wheels for, from the package
    /// index's file lists (for indexes built from local files; `index fetch` records it).
    #[command(
        after_help = "Examples:\n  apicompat index wheels crates/apicompat/index/*.apix crates/apicompat/wheel-data/scripts/apicompat-stack.apid"
    )]
    Wheels {
        /// Package indexes (`.apix`) or data files (`.apid`), rewritten in place.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// The packages and releases known: embedded, in the data file and cached.
    #[command(
        after_help = "Examples:\n  apicompat index list\n  apicompat index list --output-format json"
    )]
    List {
        #[arg(long, value_enum, default_value = "text")]
        output_format: Format,
    },
}

/// A failure the user should read; `code` is the exit code.
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl Failure {
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 2,
        }
    }
}

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure {
            message: e.to_string(),
            code: 2,
        }
    }
}

pub type CmdResult = Result<ExitCode, Failure>;

/// A closed standard output (`apicompat index show torch==2.5.0 | head`) ends the run quietly
/// with exit code 0, for every subcommand: `print!` panics on a write error, and this hook
/// turns that one panic into an exit; every other panic is reported as usual.
fn exit_quietly_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if is_closed_stdout_message(message) {
            std::process::exit(0);
        }
        default(info);
    }));
}

/// The message std's `print!` panics with when standard output is a closed pipe.
fn is_closed_stdout_message(message: &str) -> bool {
    message.starts_with("failed printing to stdout")
        && (message.contains("Broken pipe") || message.contains("os error 32"))
}

fn main() -> ExitCode {
    exit_quietly_on_closed_stdout();
    let cli = Cli::parse();
    ui::set_verbosity(cli.quiet, cli.verbose);
    let cache_dir = if cli.no_cache {
        None
    } else {
        cli.cache_dir
            .clone()
            .or_else(apicompat_index::cache::default_dir)
    };
    let open_catalog = || {
        let catalog = apicompat::shipped_catalog(cache_dir.as_deref());
        if !ui::quiet() {
            for w in &catalog.warnings {
                eprintln!("warning: {w}");
            }
            catalog.set_warning_sink(std::sync::Arc::new(|w: &str| eprintln!("warning: {w}")));
        }
        catalog
    };
    let on_demand = commands::on_demand::OnDemand {
        cache_dir: cache_dir.clone(),
        offline: commands::on_demand::offline(cli.offline),
    };
    let result = match cli.command {
        Command::Check(args) => check_command::run(&open_catalog, &on_demand, *args),
        Command::Env(args) => commands::env::run(&open_catalog(), args),
        Command::Range(args) => commands::range::run(&open_catalog, &on_demand, args),
        Command::Diff(args) => commands::diff::run(&open_catalog(), args),
        Command::Server => commands::server::run(&open_catalog()),
        Command::Completions { shell } => commands::completions::run(Cli::command(), shell),
        Command::Query {
            symbol,
            package,
            output_format,
        } => match package
            .as_deref()
            .map(apicompat_index::cache::check_package_name)
        {
            Some(Err(e)) => Err(Failure::usage(format!("--package: {e}"))),
            _ => commands::query::run(&open_catalog(), &symbol, package.as_deref(), output_format),
        },
        Command::Index { command } => match command {
            IndexCommand::Build {
                paths,
                package,
                version,
                output,
            } => commands::build::run(
                &paths,
                &package,
                version.as_deref(),
                output.as_deref(),
                cache_dir.as_deref(),
            ),
            IndexCommand::Fetch {
                specs,
                refresh,
                download_to,
            } => commands::fetch::run(
                &specs,
                refresh,
                download_to.as_deref(),
                cache_dir.as_deref(),
            ),
            IndexCommand::Show {
                spec,
                output_format,
            } => commands::show::run(&open_catalog(), &spec, output_format),
            IndexCommand::Pack { indexes, output } => commands::pack::run(&indexes, &output),
            IndexCommand::Wheels { files } => commands::wheels::run(&files),
            IndexCommand::Requirements {
                names,
                merge,
                output,
                from,
                until,
                jobs,
            } => {
                let catalog = open_catalog();
                let surfaces: Vec<(&str, apicompat_requirements::Version)> = catalog
                    .names()
                    .into_iter()
                    .filter_map(|n| {
                        let view = catalog.package(n).ok().flatten()?;
                        let oldest = view.releases().first()?.version.clone();
                        Some((n, oldest))
                    })
                    .collect();
                let window = commands::requirements::Window {
                    from: &from,
                    until: &until,
                    jobs,
                };
                commands::requirements::run(&names, &surfaces, &merge, &output, &window)
            }
            IndexCommand::List { output_format } => {
                commands::list::run(&open_catalog(), output_format)
            }
        },
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            eprintln!("error: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
