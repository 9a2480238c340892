//! The `rspv-specialize` command line.
//!
//! - `rspv-specialize --target T IN -o OUT` specializes a module for one
//!   target (the main job; top-level arguments, no subcommand).
//! - `rspv-specialize inspect IN [--target T | --all-targets]` prints the
//!   predicate table, and the predicates' values for one or every target.
//! - `rspv-specialize targets` lists the processors of the arch tables.
//!
//! - `rspv-specialize (--targets T1,T2 | --all-targets) IN --out-dir DIR`
//!   writes one module per target (a batch).
//! - `rspv-specialize extract IN --out-dir DIR` writes the SPIR-V modules of
//!   a container (offload bundle, compressed bundle, ELF file) as they are.
//!
//! IN may be a bare SPIR-V module or a container holding SPIR-V modules
//! (told apart by content); `--module K` picks one of a container's modules.
//!
//! Errors go to stderr as `error: <message>`. Exit codes: 0 success, 1 bad
//! input (module, predicate table, arch tables, target, unreadable file or
//! unwritable output), 2 usage errors (clap's and this tool's own checks,
//! printed with the usage lines).

use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;

mod cli;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use rspv_specialize::Error;

/// Command-line arguments.
#[derive(Parser, Debug)]
#[command(
    name = "rspv-specialize",
    version,
    about = "Specialize AMD-flavoured SPIR-V feature predicates for one GPU",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    // Which of --target / --targets / --all-targets, -o / --in-place /
    // --out-dir go together is checked after parsing (`cli::specialize`),
    // so no usage line ever asks for two flags that conflict.
    override_usage = "rspv-specialize --target <TARGET> <IN> (-o <OUT> | --in-place) [OPTIONS]\n       \
        rspv-specialize (--targets <T1,T2,...> | --all-targets) <IN> --out-dir <DIR> [OPTIONS]\n       \
        rspv-specialize inspect <IN> [--target <TARGET> | --all-targets] [OPTIONS]\n       \
        rspv-specialize extract <IN> --out-dir <DIR> [OPTIONS]\n       \
        rspv-specialize targets [OPTIONS]"
)]
struct Cli {
    /// The main job's arguments (used when no subcommand is given).
    #[command(flatten)]
    specialize: SpecializeArgs,
    /// A subcommand, if any.
    #[command(subcommand)]
    command: Option<Command>,
}

/// Arguments of the main job: `--target T IN -o OUT`.
#[derive(Args, Debug)]
struct SpecializeArgs {
    /// Target ID: a processor (gfx950), a legacy alias (tahiti), a generic
    /// target (gfx9-4-generic), optionally with target-ID features
    /// (gfx950:sramecc+:xnack-).
    #[arg(long, short = 't', value_name = "TARGET")]
    target: Option<String>,
    /// Specialize for each of these targets (comma-separated) into --out-dir.
    #[arg(
        long,
        value_name = "T1,T2,...",
        value_delimiter = ',',
        conflicts_with_all = ["target", "all_targets"]
    )]
    targets: Vec<String>,
    /// Specialize for every processor of the arch tables into --out-dir.
    #[arg(long, conflicts_with = "target")]
    all_targets: bool,
    /// Batch output: one module per target, named as the target was written
    /// (`:` as `_`) with `-wave64` under --wave64, e.g. `tahiti.spv`,
    /// `gfx90a_xnack+.spv`, `gfx1100-wave64.spv`; plus `manifest.json`. The
    /// files an earlier manifest there lists are removed first.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["output", "in_place"])]
    out_dir: Option<PathBuf>,
    /// Arch tables and wave size.
    #[command(flatten)]
    tables: TablesArgs,
    /// Input: a SPIR-V module, or an offload bundle, compressed bundle or
    /// ELF file holding SPIR-V modules (`-` reads stdin).
    #[arg(value_name = "IN", required = true)]
    input: Option<PathBuf>,
    /// Which SPIR-V module of a container IN to use, as `inspect` numbers
    /// them (from 0). A batch without it writes every module.
    #[arg(long, value_name = "K")]
    module: Option<usize>,
    /// Output module (`-` writes stdout). Never the input file itself
    /// unless `--in-place` is given.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Overwrite the input file with the result (atomically).
    #[arg(long, conflicts_with = "output")]
    in_place: bool,
    /// Write SPIR-V binary (`spv`, the default) or assembly text (`spvasm`).
    #[arg(long, value_enum, default_value_t = ModuleFormat::Spv)]
    emit: ModuleFormat,
    /// The report of what was resolved and removed, on stderr.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    report: ReportFormat,
    /// No report (same as `--report none`); errors are still printed.
    #[arg(short = 'q', long, conflicts_with = "report")]
    quiet: bool,
    /// Flush each output file and its directory to the disk (fsync) before
    /// exiting. Without it, as with compilers, the atomic rename makes
    /// readers see the whole output or none, and the operating system
    /// writes it back when it chooses.
    #[arg(long)]
    fsync: bool,
}

impl SpecializeArgs {
    /// The report format, `--quiet` included.
    fn report_format(&self) -> ReportFormat {
        if self.quiet {
            ReportFormat::None
        } else {
            self.report
        }
    }
}

/// How the specialized module is written.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ModuleFormat {
    /// SPIR-V binary.
    Spv,
    /// SPIR-V assembly text (as `spirv-dis --raw-id --no-indent` prints it).
    Spvasm,
}

/// How the report is written (to stderr).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ReportFormat {
    /// Lines for people.
    Text,
    /// One JSON object for tools.
    Json,
    /// Nothing.
    None,
}

/// Where the arch tables come from and how targets are configured.
#[derive(Args, Debug, Clone)]
struct TablesArgs {
    /// Load the arch tables from DIR (one YAML file per processor, plus
    /// builtins.yaml) instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    arch_tables: Option<PathBuf>,
    /// Use wave64 on dual-wave processors (clang's -mwavefrontsize64).
    #[arg(long)]
    wave64: bool,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
enum Command {
    /// Print a module's predicate table, and the predicates' values for one
    /// target or for every known processor.
    Inspect(InspectArgs),
    /// List the processors of the arch tables.
    Targets(TargetsArgs),
    /// Write the SPIR-V modules of a container, unchanged, as DIR/m<K>.spv.
    Extract(ExtractArgs),
}

/// Arguments of `extract`.
#[derive(Args, Debug)]
struct ExtractArgs {
    /// Input: an offload bundle, compressed bundle or ELF file (or a bare
    /// SPIR-V module, written as m0.spv); `-` reads stdin.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Directory to write the modules to (created if missing).
    #[arg(long, value_name = "DIR")]
    out_dir: PathBuf,
    /// Only module K.
    #[arg(long, value_name = "K")]
    module: Option<usize>,
    /// Do not list the files written.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Flush each file and the directory to the disk (fsync) before exiting.
    #[arg(long)]
    fsync: bool,
}

/// Arguments of `inspect`.
#[derive(Args, Debug)]
struct InspectArgs {
    /// Input: a SPIR-V module, or a container holding SPIR-V modules (each
    /// is listed, with where it was found); `-` reads stdin.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Only module K of a container.
    #[arg(long, value_name = "K")]
    module: Option<usize>,
    /// Also print each predicate's value for this target ID.
    #[arg(
        long,
        short = 't',
        value_name = "TARGET",
        conflicts_with = "all_targets"
    )]
    target: Option<String>,
    /// Print the value of every predicate for every processor in the tables.
    #[arg(long)]
    all_targets: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Arch tables and wave size.
    #[command(flatten)]
    tables: TablesArgs,
}

/// Arguments of `targets`.
#[derive(Args, Debug)]
struct TargetsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Load the arch tables from DIR instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    arch_tables: Option<PathBuf>,
}

/// Output formats of `inspect` and `targets`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// Human-readable tables.
    Text,
    /// One JSON object.
    Json,
}

/// An error as the CLI reports it.
enum Failure {
    /// A usage error (exit 2), printed with the usage lines.
    Usage(String),
    /// Bad input (exit 1): the library's error, with the input file it
    /// concerns when there is one.
    Input {
        /// The input file the error is about, if any.
        file: Option<String>,
        /// What went wrong.
        error: Error,
    },
    /// A failure the command line words itself (exit 1), e.g. a batch's
    /// failed targets.
    Message(String),
}

impl Failure {
    /// A usage error.
    fn usage(message: impl Into<String>) -> Failure {
        Failure::Usage(message.into())
    }

    /// A library error about the input file `file`.
    fn in_file(file: &str, error: Error) -> Failure {
        Failure::Input {
            file: Some(file.to_string()),
            error,
        }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure::Input { file: None, error }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Usage(m) | Failure::Message(m) => write!(f, "{m}"),
            Failure::Input {
                file: Some(file),
                error,
            } => write!(f, "{file}: {error}{}", hint(error)),
            Failure::Input { file: None, error } => write!(f, "{error}{}", hint(error)),
        }
    }
}

/// What the command line adds to a library error: where to look next.
fn hint(error: &Error) -> &'static str {
    match error {
        Error::UnknownTarget { .. } => " (`rspv-specialize targets` lists them all)",
        _ => "",
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Inspect(args)) => cli::inspect::run_inspect(args),
        Some(Command::Targets(args)) => cli::targets::run_targets(args),
        Some(Command::Extract(args)) => cli::container::run_extract(args),
        None => cli::specialize::run_specialize(&cli.specialize),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => Cli::command()
            .error(clap::error::ErrorKind::ArgumentConflict, message)
            .exit(),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
