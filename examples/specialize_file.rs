//! The in-process path a JIT loader takes, as a program whose peak memory
//! can be measured (`benches/run.sh` runs it under `/usr/bin/time -v`):
//! reads the module's bytes into memory, calls `specialize` (bytes in, a
//! `Specialized` holding the output's words out) and prints the output's
//! size. The peak counts the caller's input, as issue 10's memory target
//! does.
//!
//! ```text
//! cargo run --release --example specialize_file -- gfx950 big.spv
//! ```

use std::process::ExitCode;

use rspv_specialize::{ArchTables, Options, specialize};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [target, path] = args.as_slice() else {
        eprintln!("usage: specialize_file TARGET IN.spv");
        return ExitCode::FAILURE;
    };
    match run(target, path) {
        Ok(words) => {
            println!("{path}: {words} words out");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("specialize_file: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Specializes the module in `path` for `target`; the output's word count.
fn run(target: &str, path: &str) -> Result<usize, Box<dyn std::error::Error>> {
    let bytes = std::fs::read(path)?;
    let target = ArchTables::embedded().target(target)?;
    let out = specialize(&bytes, &target, &Options::default())?;
    Ok(out.words().len())
}
