//! Writes a benchmark module (see `benches/common/gen.rs`) to a file, for the
//! command-line and spirv-opt comparisons in `benches/run.sh`.
//!
//! ```text
//! cargo run --release --example gen_module -- --mb 10 [--every 10] [--no-calls] -o big.spv
//! cargo run --release --example gen_module -- --kernels 40 --every 1 -o small.spv
//! ```

#[path = "../benches/common/gen.rs"]
mod generator;

use std::process::ExitCode;

const USAGE: &str = "usage: gen_module (--mb MB | --kernels N) [--every N] [--no-calls] -o OUT";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen_module: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut mb: Option<f64> = None;
    let mut kernels: Option<usize> = None;
    let mut every = 10usize;
    let mut calls = true;
    let mut out: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--mb" => mb = Some(parse(&value("--mb")?)?),
            "--kernels" => kernels = Some(parse(&value("--kernels")?)?),
            "--every" => every = parse(&value("--every")?)?,
            "--no-calls" => calls = false,
            "-o" | "--output" => out = Some(value("-o")?),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if every == 0 {
        return Err("--every must be at least 1".into());
    }
    let out = out.ok_or("-o OUT is required")?;
    let kernels = match (mb, kernels) {
        (Some(mb), None) => generator::kernels_for_bytes((mb * 1e6) as usize, every, calls),
        (None, Some(k)) => k,
        _ => return Err("give exactly one of --mb and --kernels".into()),
    };
    let bytes = generator::to_bytes(&generator::generate(kernels, every, calls));
    std::fs::write(&out, &bytes).map_err(|e| format!("{out}: {e}"))?;
    eprintln!(
        "{out}: {} bytes, {kernels} kernels, every {every}, {}",
        bytes.len(),
        if calls { "calls" } else { "no calls" }
    );
    Ok(())
}

fn parse<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("bad number `{s}`"))
}
