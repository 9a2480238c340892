//! Helpers shared by the integration tests: where the test data lives
//! (golden cases, `.spv` files), `spirv-val` (`$SPIRV_VAL` or the one on
//! `PATH`; each distinct module validated once, in parallel batches) and
//! disassembly,
//! running one test in a child process under limits, and running the
//! command-line binary.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Test data

/// The crate's root directory (where `Cargo.toml` is).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The input module of a golden case: `tests/golden/<case>/input.spv`.
pub fn golden_input(case: &str) -> PathBuf {
    repo().join("tests/golden").join(case).join("input.spv")
}

/// The golden case directories (`tests/golden/<case>/`) that hold a file
/// named `holding` (`input.spv`, `survivors.yaml`, …), sorted.
pub fn golden_cases(holding: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/golden"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join(holding).is_file())
        .collect();
    out.sort();
    out
}

/// Every `.spv` file under `dir`, recursively, sorted. Panics naming a
/// directory it cannot read.
pub fn spv_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "spv") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A little-endian module's bytes as words.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Words as a little-endian module's bytes.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The instructions of a module's words as (word index, opcode, word
/// count), after the 5-word header.
pub fn instructions(w: &[u32]) -> Vec<(usize, u32, usize)> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < w.len() {
        let n = (w[i] >> 16) as usize;
        out.push((i, w[i] & 0xffff, n));
        i += n.max(1);
    }
    out
}

/// Swaps the bytes of every 4-byte word: a little-endian module becomes
/// big-endian and back.
pub fn swap_words(bytes: &[u8]) -> Vec<u8> {
    bytes
        .chunks_exact(4)
        .flat_map(|c| [c[3], c[2], c[1], c[0]])
        .collect()
}

// ---------------------------------------------------------------------------
// spirv-val

/// The `spirv-val` the tests use: the program `$SPIRV_VAL` names, or
/// `spirv-val` on `PATH`.
pub struct Validator {
    /// The program run.
    pub program: PathBuf,
    /// The first line of its `--version` (`SPIRV-Tools v2025.5 …`).
    pub version: String,
}

/// True when `CI` is set (to anything but empty, `0` or `false`): a missing
/// validator is then an error instead of a skip.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// The validator, looked up once per process. `None` when there is none and
/// `CI` is not set (with a note on stderr that outputs go unvalidated);
/// under `CI` a missing validator panics.
pub fn validator() -> Option<&'static Validator> {
    static FOUND: OnceLock<Option<Validator>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let program = match std::env::var_os("SPIRV_VAL") {
                Some(p) if !p.is_empty() => PathBuf::from(p),
                _ => PathBuf::from("spirv-val"),
            };
            let why = match Command::new(&program)
                .arg("--version")
                .stdin(Stdio::null())
                .output()
            {
                Ok(o) if o.status.success() => {
                    let version = String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .next()
                        .unwrap_or("unknown version")
                        .to_string();
                    return Some(Validator { program, version });
                }
                Ok(o) => format!("`{} --version` failed ({})", program.display(), o.status),
                Err(e) => format!("cannot run `{}`: {e}", program.display()),
            };
            if in_ci() {
                panic!(
                    "spirv-val is required when CI is set: {why}; install spirv-tools or set SPIRV_VAL=/path/to/spirv-val"
                );
            }
            eprintln!(
                "note: no spirv-val ({why}): outputs are not validated; install spirv-tools or set SPIRV_VAL=/path/to/spirv-val"
            );
            None
        })
        .as_ref()
}

impl std::fmt::Display for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.program.display(), self.version)
    }
}

/// A module's identity for validation: a hash and the length of its bytes,
/// and the target environment it is validated in.
pub type ValKey = (u64, usize, Option<&'static str>);

/// Results of modules validated so far in this process, so that each
/// distinct module is validated once.
static VALIDATED: Mutex<BTreeMap<ValKey, Result<(), String>>> = Mutex::new(BTreeMap::new());

/// The target environment a module is validated in: Vulkan 1.2 for shader
/// modules, spirv-val's default for the others.
fn target_env(bytes: &[u8]) -> Option<&'static str> {
    is_shader(bytes).then_some("vulkan1.2")
}

/// True when the module declares the Shader capability.
fn is_shader(bytes: &[u8]) -> bool {
    let Ok((words, _)) = rspv_specialize::module::words_from_bytes(bytes) else {
        return false;
    };
    let mut at = 5;
    while at < words.len() {
        let len = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if opcode == spirv::Op::Capability as u32
            && words.get(at + 1) == Some(&(spirv::Capability::Shader as u32))
        {
            return true;
        }
        if len == 0 {
            break;
        }
        at += len;
    }
    false
}

/// The key `bytes` are validated (and remembered) under.
fn val_key(bytes: &[u8]) -> ValKey {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    bytes.hash(&mut h);
    (h.finish(), bytes.len(), target_env(bytes))
}

/// Runs the validator on one module, given on its stdin.
fn run_validator(v: &Validator, bytes: &[u8], env: Option<&str>) -> Result<(), String> {
    use std::io::Write;
    let mut cmd = Command::new(&v.program);
    if let Some(env) = env {
        cmd.args(["--target-env", env]);
    }
    let mut child = cmd
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("running {v}: {e}"));
    // spirv-val reads all of its input before it writes anything.
    let written = child.stdin.take().unwrap().write_all(bytes);
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("running {v}: {e}"));
    if out.status.success() {
        return written.map_err(|e| format!("{v}: writing the module to its stdin: {e}"));
    }
    Err(format!(
        "{v}{} rejects it ({}):\n{}{}",
        env.map(|e| format!(" --target-env {e}"))
            .unwrap_or_default(),
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    ))
}

/// Validates `modules`: one result per module, in order; `Ok` when valid,
/// or when no validator is installed outside CI (see [`validator`]).
///
/// Each distinct module (by hash of its bytes and target environment) is
/// validated once per process, and the runs (one process per module:
/// spirv-val takes one file) are spread over the cores, two per core, so a
/// slow validator does not multiply the suite's time.
pub fn validate_all(modules: &[&[u8]]) -> Vec<Result<(), String>> {
    let Some(v) = validator() else {
        return modules.iter().map(|_| Ok(())).collect();
    };
    let keys: Vec<ValKey> = modules.iter().map(|m| val_key(m)).collect();
    // The first module of each key not validated yet.
    let todo: Vec<(ValKey, &[u8])> = {
        let done = VALIDATED.lock().unwrap();
        let mut seen = BTreeSet::new();
        keys.iter()
            .zip(modules)
            .filter(|(k, _)| !done.contains_key(k) && seen.insert(**k))
            .map(|(k, m)| (*k, *m))
            .collect()
    };
    let next = AtomicUsize::new(0);
    // Two processes per core: much of a call is process start-up and
    // waiting (a wrapper script, a Python launcher), not work.
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| 2 * n.get())
        .min(todo.len());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((key, bytes)) = todo.get(i) else {
                        break;
                    };
                    let r = run_validator(v, bytes, key.2);
                    VALIDATED.lock().unwrap().insert(*key, r);
                }
            });
        }
    });
    let done = VALIDATED.lock().unwrap();
    keys.iter().map(|k| done[k].clone()).collect()
}

/// Validates one module; see [`validate_all`].
pub fn spirv_val(bytes: &[u8]) -> Result<(), String> {
    validate_all(&[bytes]).remove(0)
}

/// One output a test made: the input it came from, its bytes, and what it
/// is (for messages).
pub struct Made<'a> {
    /// The input the output was made from.
    pub input: &'a [u8],
    /// The output.
    pub output: &'a [u8],
    /// What it is: case, target.
    pub what: String,
}

/// What [`check_outputs`] found.
#[derive(Debug, Default)]
pub struct Checked {
    /// An error per output the validator rejects although it accepts the
    /// input.
    pub invalid: Vec<String>,
    /// The distinct outputs validated (see [`ValKey`]).
    pub validated: BTreeSet<ValKey>,
    /// Outputs the validator rejects, of inputs it rejects too: not a
    /// failure (validators disagree on inputs: 2025.5 rejects some modules
    /// 2023.1 accepts).
    pub input_rejected: usize,
}

/// Checks that each output is valid where the validator in use accepts
/// its input: the tool's promise is a valid output for a valid input, and
/// what counts as a valid input differs between SPIRV-Tools versions. The
/// outputs are validated as one batch of [`validate_all`], then the inputs
/// of the rejected ones (most outputs are valid, so most inputs need no
/// run). Rejected inputs are noted on stderr.
pub fn check_outputs(made: &[Made<'_>]) -> Checked {
    let mut checked = Checked::default();
    if made.is_empty() || validator().is_none() {
        return checked;
    }
    let outputs = validate_all(&made.iter().map(|m| m.output).collect::<Vec<_>>());
    checked.validated = made.iter().map(|m| val_key(m.output)).collect();
    let rejected: Vec<(&Made, String)> = made
        .iter()
        .zip(outputs)
        .filter_map(|(m, r)| r.err().map(|e| (m, e)))
        .collect();
    let inputs = validate_all(&rejected.iter().map(|(m, _)| m.input).collect::<Vec<_>>());
    let mut rejected_inputs = BTreeSet::new();
    for ((m, e), input) in rejected.iter().zip(inputs) {
        match input {
            Ok(()) => checked
                .invalid
                .push(format!("{}: valid input, invalid output: {e}", m.what)),
            Err(why) => {
                checked.input_rejected += 1;
                if rejected_inputs.insert(val_key(m.input)) && rejected_inputs.len() <= 3 {
                    let first = why.lines().take(2).collect::<Vec<_>>().join(" ");
                    eprintln!("note: {}: the input is rejected too: {first}", m.what);
                }
            }
        }
    }
    if rejected_inputs.len() > 3 {
        eprintln!(
            "note: … {} distinct rejected inputs in all",
            rejected_inputs.len()
        );
    }
    checked
}

/// [`check_outputs`] on `made` in order, a batch of `batch` outputs at a
/// time, until all are checked or `budget` is spent (a batch started within
/// it runs to its end). The second value is how many outputs were checked:
/// all of them with Debian's spirv-val; fewer with a validator costing a
/// quarter of a second a call, which would otherwise take minutes.
pub fn check_outputs_within(made: &[Made<'_>], batch: usize, budget: Duration) -> (Checked, usize) {
    let start = Instant::now();
    let mut all = Checked::default();
    let mut done = 0;
    for chunk in made.chunks(batch) {
        if start.elapsed() > budget {
            break;
        }
        let c = check_outputs(chunk);
        all.invalid.extend(c.invalid);
        all.validated.extend(c.validated);
        all.input_rejected += c.input_rejected;
        done += chunk.len();
    }
    (all, done)
}

/// [`check_outputs`], panicking with every invalid output.
pub fn assert_outputs_valid(made: &[Made<'_>]) -> Checked {
    let checked = check_outputs(made);
    assert!(
        checked.invalid.is_empty(),
        "{} invalid output(s):\n{}",
        checked.invalid.len(),
        checked.invalid.join("\n")
    );
    checked
}

// ---------------------------------------------------------------------------
// Disassembly

/// The module as SPIR-V assembly (the crate's disassembler, which prints
/// what `spirv-dis --raw-id --no-indent` prints): the text golden files hold.
pub fn disassemble(bytes: &[u8]) -> String {
    let (words, _) = rspv_specialize::module::words_from_bytes(bytes).expect("a SPIR-V module");
    rspv_specialize::disasm::disassemble(&words).expect("the module disassembles")
}

// ---------------------------------------------------------------------------
// One test in a child process

/// One test of the running test binary, re-run alone in a child process
/// under an address-space and a time limit, so that a stack overflow, an
/// abort, an allocation trusting a header field or a hang fails that one
/// run instead of the whole binary. See [`Child::run`].
pub struct Child<'a> {
    /// The test the child runs (`--exact`).
    pub test: &'a str,
    /// An environment variable set in the child: tells it that it is the
    /// child, and what to do.
    pub env: (&'a str, &'a OsStr),
    /// The child's temporary log file is `rspv-<log>-<pid>-<label>.log`.
    pub log: &'a str,
    /// See [`Child::log`]; keeps concurrent children's logs apart.
    pub label: &'a str,
    /// Address-space limit (`ulimit -v`, on Unix), in KiB.
    pub mem_limit_kb: u64,
    /// The child is killed when it runs longer.
    pub time_limit: Duration,
    /// How often to look whether the child has ended.
    pub poll: Duration,
    /// On Unix, make the child lead a process group of its own and kill
    /// the whole group at the time limit (ending what it started too).
    pub own_group: bool,
}

/// glibc allocator settings every [`Child`] runs with, under which memory
/// a run frees stays in the process for the next run: one arena (the
/// test thread's own arena hands a whole 64 MiB sub-heap back to the
/// kernel when it empties, whatever the trim threshold), no trimming, and
/// buffers under 32 MiB taken from that heap rather than mapped alone.
///
/// Why: the kernel zeroes a fresh page on its first touch, in the
/// toucher's CPU time, and on this project's VMs that costs more than the
/// library's own work. Without these settings the hostile suite's
/// function Not chain of 100,000 took about 12,600 page faults and 35–40
/// ms of system time in every run (against 44–52 ms of user time), while
/// the one of 25,000 reused its pages and took none; its time ratio read
/// 7 to 11 (the check's limit is 10) for work that cachegrind counts as
/// linear (13.3 M instructions at 25,000, 49.9 M at 100,000). With them,
/// a size's later runs take next to no faults, and the suite's ratios
/// read 2.4 to 6.5 in five runs.
const KEEP_FREED_MEMORY: &str = "glibc.malloc.arena_max=1:\
    glibc.malloc.trim_threshold=2147483647:glibc.malloc.mmap_threshold=33554432";

/// Runs `body` and returns `None` when this process is the child re-run
/// for test `name` (its environment has `child_var` = `name`); otherwise
/// re-runs test `name` in a child process of its own process group under
/// `mem_limit_kb` and `time_limit`, logging to `rspv-<log>-…`, and returns
/// how that run ended.
pub fn isolated_run(
    name: &str,
    child_var: &str,
    log: &str,
    mem_limit_kb: u64,
    time_limit: Duration,
    body: impl FnOnce(),
) -> Option<ChildRun> {
    if std::env::var(child_var).as_deref() == Ok(name) {
        body();
        return None;
    }
    Some(
        Child {
            test: name,
            env: (child_var, OsStr::new(name)),
            log,
            label: name,
            mem_limit_kb,
            time_limit,
            poll: Duration::from_millis(20),
            own_group: true,
        }
        .run(),
    )
}

/// How a [`Child`] run ended.
pub struct ChildRun {
    /// The exit status; `None` when it was killed at the time limit.
    pub status: Option<ExitStatus>,
    /// Its stdout and stderr, as written.
    pub output: String,
    /// From start to exit (or kill).
    pub elapsed: Duration,
    /// The time limit it ran under.
    pub time_limit: Duration,
}

impl Child<'_> {
    /// Runs the child to its end or its time limit.
    pub fn run(&self) -> ChildRun {
        // The running binary, even if a concurrent build has replaced the file.
        let proc_exe = PathBuf::from(format!("/proc/{}/exe", std::process::id()));
        let exe = if proc_exe.exists() {
            proc_exe
        } else {
            std::env::current_exe().unwrap()
        };
        let log = std::env::temp_dir().join(format!(
            "rspv-{}-{}-{}.log",
            self.log,
            std::process::id(),
            self.label
        ));
        let file = std::fs::File::create(&log).unwrap();
        let mut cmd = if cfg!(unix) {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg(format!(
                    "ulimit -v {}; exec \"$0\" \"$@\"",
                    self.mem_limit_kb
                ))
                .arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        #[cfg(unix)]
        {
            if self.own_group {
                std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
            }
        }
        let mut child = cmd
            .args([self.test, "--exact", "--nocapture", "--test-threads=1"])
            .env(self.env.0, self.env.1)
            .env("RUST_BACKTRACE", "0")
            .env("GLIBC_TUNABLES", KEEP_FREED_MEMORY)
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
            if start.elapsed() > self.time_limit {
                if self.own_group {
                    // The child leads its own process group: end it and
                    // whatever it started (spirv-val).
                    let _ = Command::new("kill")
                        .args(["-KILL", &format!("-{}", child.id())])
                        .status();
                }
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(self.poll);
        };
        let elapsed = start.elapsed();
        let output = String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default()).into_owned();
        let _ = std::fs::remove_file(&log);
        ChildRun {
            status,
            output,
            elapsed,
            time_limit: self.time_limit,
        }
    }
}

impl ChildRun {
    /// `None` when the child's one test passed; otherwise how it failed.
    pub fn failure(&self) -> Option<String> {
        match self.status {
            None => Some(format!(
                "killed: ran {:.1} s, over its {} s time limit",
                self.elapsed.as_secs_f64(),
                self.time_limit.as_secs_f64()
            )),
            Some(s) if s.success() && self.output.contains("1 passed") => None,
            Some(s) => Some(format!(
                "child process failed ({s}{})",
                if s.code().is_none() {
                    ", killed by a signal: stack overflow, abort or out of memory"
                } else {
                    ""
                }
            )),
        }
    }
}

// ---------------------------------------------------------------------------
// The command-line binary

/// A command running the `rspv-specialize` binary.
#[cfg(feature = "cli")]
pub fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rspv-specialize"))
}

/// Runs the binary with `args` and no stdin; its exit status and output.
#[cfg(feature = "cli")]
pub fn run_cli<S: AsRef<OsStr>>(args: &[S]) -> std::process::Output {
    cli()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("running rspv-specialize")
}

/// Runs the binary with `args` and `input` written to its stdin through a
/// pipe (from a thread, so a large input and a large output cannot
/// deadlock). Also returns whether all of `input` was written (a binary
/// that exits without reading it all breaks the pipe).
#[cfg(feature = "cli")]
pub fn run_cli_piped<S: AsRef<OsStr>>(
    args: &[S],
    input: Vec<u8>,
) -> (std::process::Output, std::io::Result<()>) {
    use std::io::Write;
    let mut child = cli()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    let written = writer.join().unwrap();
    (out, written)
}

/// An empty directory `rspv-<prefix>-<pid>-<name>` in the temp directory
/// (emptied if it was there).
pub fn fresh_dir(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rspv-{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
