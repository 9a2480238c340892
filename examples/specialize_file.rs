//! The in-process path a JIT loader takes, as a program whose peak memory
//! can be measured (`benches/run.sh` runs it under `/usr/bin/time -v`):
//! reads the module's bytes into memory, calls `specialize` (bytes in, a
//! `Specialized` holding the output's words out) and prints the output's
//! size. The peak counts the caller's input, as issue 10's memory target
//! does. TARGET `all` calls `specialize_many` for every processor of the
//! embedded tables instead (every output materialized), the batch whose
//! work `benches/instructions.sh` counts against one target's.
//!
//! ```text
//! cargo run --release --example specialize_file -- gfx950 big.spv
//! cargo run --release --example specialize_file -- all big.spv
//! ```

use std::process::ExitCode;

use rspv_specialize::{ArchTables, Options, specialize, specialize_many};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [target, path] = args.as_slice() else {
        eprintln!("usage: specialize_file (TARGET | all) IN.spv");
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

/// Specializes the module in `path` for `target` (`all`: every
/// processor); the outputs' word count.
fn run(target: &str, path: &str) -> Result<usize, Box<dyn std::error::Error>> {
    let bytes = std::fs::read(path)?;
    let tables = ArchTables::embedded();
    if target == "all" {
        let targets = tables
            .processors()
            .iter()
            .map(|p| tables.target(&p.name))
            .collect::<Result<Vec<_>, _>>()?;
        let mut words = 0;
        for out in specialize_many(&bytes, &targets, &Options::default())? {
            words += out?.words().len();
        }
        return Ok(words);
    }
    let out = specialize(&bytes, &tables.target(target)?, &Options::default())?;
    Ok(out.words().len())
}
