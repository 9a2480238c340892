//! Helpers shared by the integration tests: where the test data lives
//! (golden cases, `.spv` files), `spirv-val` and disassembly,
//! running one test in a child process under limits, and running the
//! command-line binary.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
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

/// Swaps the bytes of every 4-byte word: a little-endian module becomes
/// big-endian and back.
pub fn swap_words(bytes: &[u8]) -> Vec<u8> {
    bytes
        .chunks_exact(4)
        .flat_map(|c| [c[3], c[2], c[1], c[0]])
        .collect()
}

// ---------------------------------------------------------------------------
// spirv-val and disassembly

/// Runs `spirv-val` on `bytes`. `Ok` when valid, or when spirv-val is not
/// installed and `CI` is unset (CI installs it and requires it). Shader
/// modules are validated for Vulkan 1.2, others in spirv-val's default
/// environment.
pub fn spirv_val(bytes: &[u8], dir: &Path) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!(
        "rspv-val-{}-{}.spv",
        std::process::id(),
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    std::fs::write(&tmp, bytes).unwrap();
    let shader = is_shader(bytes);
    let mut cmd = Command::new("spirv-val");
    if shader {
        cmd.args(["--target-env", "vulkan1.2"]);
    }
    let out = cmd.arg(&tmp).output();
    let _ = std::fs::remove_file(&tmp);
    match out {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => {
            Err(String::from_utf8_lossy(&o.stderr).into_owned()
                + &String::from_utf8_lossy(&o.stdout))
        }
        Err(_) if std::env::var_os("CI").is_none() => Ok(()),
        Err(e) => Err(format!("spirv-val is required in CI: {e}")),
    }
}

/// True when the module declares the Shader capability.
fn is_shader(bytes: &[u8]) -> bool {
    let (words, _) = rspv_specialize::module::words_from_bytes(bytes).unwrap();
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
                "still running after {:?} (a hang?)",
                self.time_limit
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
