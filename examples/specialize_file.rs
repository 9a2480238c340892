//! The in-process path a JIT loader takes, as a program whose peak memory
//! can be measured (`benches/run.sh` runs it under `/usr/bin/time -v`):
//! reads the module's bytes into memory, calls `specialize` (bytes in, a
//! `Specialized` holding the output's words out) and prints the output's
//! size. The peak counts the caller's input, as issue 10's memory target
//! does. TARGET `all` calls `specialize_many` for every processor of the
//! embedded tables instead (every output materialized), the batch whose
//! work `benches/instructions.sh` counts against one target's. REPEAT
//! calls it that many times on the same bytes, so that the difference
//! of two counts is the work of one call (`benches/instructions.sh`: the
//! latency of small modules in instructions). With `--in-place` it calls
//! `specialize_in_place` instead, on the file's bytes read anew for each
//! call (the buffer it gives up).
//!
//! ```text
//! cargo run --release --example specialize_file -- gfx950 big.spv
//! cargo run --release --example specialize_file -- --in-place gfx950 big.spv
//! cargo run --release --example specialize_file -- all big.spv
//! cargo run --release --example specialize_file -- gfx950 small.spv 101
//! ```

use std::process::ExitCode;

use rspv_specialize::{ArchTables, Options, specialize, specialize_in_place, specialize_many};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let in_place = args.first().is_some_and(|a| a == "--in-place");
    if in_place {
        args.remove(0);
    }
    let (target, path, repeat) = match args.as_slice() {
        [target, path] => (target, path, 1),
        [target, path, n] if n.parse::<usize>().is_ok_and(|n| n > 0) => {
            (target, path, n.parse().unwrap_or(1))
        }
        _ => {
            eprintln!("usage: specialize_file [--in-place] (TARGET | all) IN.spv [REPEAT]");
            return ExitCode::FAILURE;
        }
    };
    match run(target, path, repeat, in_place) {
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
/// processor), `repeat` times, in place or not; the last call's outputs'
/// word count.
fn run(
    target: &str,
    path: &str,
    repeat: usize,
    in_place: bool,
) -> Result<usize, Box<dyn std::error::Error>> {
    if in_place {
        // (The file's bytes, read anew each time: the buffer is given up.)
        let tables = ArchTables::embedded();
        let target = tables.target(target)?;
        let mut words = 0;
        for _ in 0..repeat {
            let out = specialize_in_place(std::fs::read(path)?, &target, &Options::default())?;
            words = out.words().len();
        }
        return Ok(words);
    }
    let bytes = std::fs::read(path)?;
    let mut words = 0;
    for _ in 0..repeat {
        words = run_once(target, &bytes)?;
    }
    Ok(words)
}

/// One call for `target` (`all`: every processor) on `bytes`; the outputs'
/// word count.
fn run_once(target: &str, bytes: &[u8]) -> Result<usize, Box<dyn std::error::Error>> {
    let tables = ArchTables::embedded();
    if target == "all" {
        let targets = tables
            .processor_names()
            .map(|name| tables.target(name))
            .collect::<Result<Vec<_>, _>>()?;
        let mut words = 0;
        for out in specialize_many(bytes, &targets, &Options::default())? {
            words += out?.words().len();
        }
        return Ok(words);
    }
    let out = specialize(bytes, &tables.target(target)?, &Options::default())?;
    Ok(out.words().len())
}
