//! Fuzz regressions: the checks of the fuzz targets (`fuzz/checks.rs`,
//! shared with `fuzz/fuzz_targets/`) run on every file in
//! `tests/data/fuzz-regressions/` and on every `.spv` module under
//! `tests/golden/` and `tests/corpus/`.
//!
//! A crash the fuzzer finds is kept by minimizing it (`cargo +nightly fuzz
//! tmin TARGET ARTIFACT`) and dropping the result in
//! `tests/data/fuzz-regressions/<target>-<n>.bin`; no code changes are
//! needed. Every file gets all three checks (`read`, `inspect`,
//! `specialize`), each file in a child process of its own (this test binary
//! re-run under `ulimit -v`), so a stack overflow, an abort, an allocation
//! trusting a header field or a hang fails with the file's name instead of
//! taking the test binary down, and one bad file does not hide the others.

#[path = "../fuzz/checks.rs"]
mod checks;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in a child: the one input it checks.
const CHILD: &str = "RSPV_FUZZ_REGRESSION_INPUT";
/// The test a child runs.
const TEST: &str = "fuzz_checks_pass_on_saved_inputs_and_golden_modules";
/// A child's address-space limit, in KiB (4 GiB; the fuzzer allows 2 GiB RSS).
const MEM_LIMIT_KB: u64 = 4 * 1024 * 1024;
/// A child's time limit (debug build; the fuzzer's limit is 10 s optimized).
const TIME_LIMIT: Duration = Duration::from_secs(120);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Files directly in `dir` (none if it does not exist), sorted.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .filter(|p| {
                    !p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Every `.spv` file under `dir`, recursively, sorted.
fn spv_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "spv") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Runs the three checks on `path` in a child process; `Err` describes how
/// the child failed, with the end of its output.
fn check_in_child(path: &Path) -> Result<(), String> {
    let proc_exe = PathBuf::from(format!("/proc/{}/exe", std::process::id()));
    let exe = if proc_exe.exists() {
        proc_exe
    } else {
        std::env::current_exe().unwrap()
    };
    let mut cmd = if cfg!(unix) {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(format!("ulimit -v {MEM_LIMIT_KB}; exec \"$0\" \"$@\""))
            .arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    let log = std::env::temp_dir().join(format!(
        "rspv-fuzz-regression-{}-{}.log",
        std::process::id(),
        path.file_name().unwrap().to_string_lossy()
    ));
    let file = std::fs::File::create(&log).unwrap();
    let mut child = cmd
        .args([TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, path)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let text = String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default()).into_owned();
    let _ = std::fs::remove_file(&log);
    // The panic message (or, failing that, the end of the output).
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty()
                && !t.starts_with("note: ")
                && !matches!(t, "FAILED" | "failures:" | TEST)
                && !t.starts_with("running ")
                && !t.starts_with("test ")
        })
        .collect();
    let from = lines
        .iter()
        .position(|l| l.contains("panicked at"))
        .unwrap_or(lines.len().saturating_sub(12));
    let tail = lines[from..(from + 12).min(lines.len())].join("\n    ");
    match status {
        None => Err(format!(
            "still running after {TIME_LIMIT:?} (a hang?)\n    {tail}"
        )),
        Some(s) if s.success() && text.contains("1 passed") => Ok(()),
        Some(s) => Err(format!(
            "child process failed ({s}{})\n    {tail}",
            if s.code().is_none() {
                ", killed by a signal: stack overflow, abort or out of memory"
            } else {
                ""
            }
        )),
    }
}

#[test]
fn fuzz_checks_pass_on_saved_inputs_and_golden_modules() {
    if let Some(path) = std::env::var_os(CHILD) {
        // Child: check one input; a panic fails this process.
        let data = std::fs::read(&path).unwrap();
        checks::check_read(&data);
        checks::check_inspect(&data);
        checks::check_specialize(&data);
        return;
    }
    let saved = files_in(&repo().join("tests/data/fuzz-regressions"));
    let golden = spv_under(&repo().join("tests/golden"));
    let corpus = spv_under(&repo().join("tests/corpus"));
    // The golden cases are directories with an input.spv each: all must be here.
    let cases = std::fs::read_dir(repo().join("tests/golden"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().join("input.spv").is_file())
        .count();
    assert!(
        cases > 0 && golden.len() >= cases,
        "found {} golden .spv modules for {cases} golden cases",
        golden.len()
    );
    assert!(!corpus.is_empty(), "no .spv under tests/corpus");

    let mut failures = Vec::new();
    let inputs: Vec<&PathBuf> = saved.iter().chain(&golden).chain(&corpus).collect();
    for path in &inputs {
        if let Err(e) = check_in_child(path) {
            let name = path.strip_prefix(repo()).unwrap_or(path);
            failures.push(format!("{}: {e}", name.display()));
        }
    }
    eprintln!(
        "fuzz checks (read, inspect, specialize for {:?}) ran on {} saved fuzz input(s), {} golden and {} corpus module(s)",
        checks::TARGETS,
        saved.len(),
        golden.len(),
        corpus.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} input(s) fail the fuzz checks (reproduce one: cargo +nightly fuzz run TARGET FILE in fuzz/):\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
}
