//! LLVM's AMDGPU backend as the tests' ground truth: translate a specialized
//! module back to LLVM IR, point the IR at `amdgcn-amd-amdhsa` and lower it
//! with `llc-22 -O0 -mcpu=<target>`.
//!
//! The way back is `llvm-spirv -r` from PyPI's `dpcpp-llvm-spirv` (it maps
//! `spirv.llvm_amdgcn_*` imports back to AMDGPU intrinsics; it reads SPIR-V
//! up to 1.5, so the copy it gets has its version word rewritten), then
//! `llvm-dis-22` (and `opt-22` for address spaces, see
//! [`Tools::to_amdgcn_ir`]). `-O0` keeps llc's branch folding from hiding a
//! dead arm left behind. A selection failure aborts llc with "Cannot
//! select: intrinsic %llvm.amdgcn…", so [`lower`] reads llc's message, not
//! only its exit status.
//!
//! Also here: the processors llc-22 and the tables share, and the committed
//! list of known differences between our tables and LLVM 22
//! (`tests/data/clang22/differences.tsv`).

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The external tools a lowering needs.
pub struct Tools {
    /// `llvm-spirv` from `dpcpp-llvm-spirv` (not on PATH; found through Python).
    pub llvm_spirv: PathBuf,
}

/// The SPIR-V version the translator reads at most (1.5).
const TRANSLATOR_VERSION: u32 = 0x0001_0500;

impl Tools {
    /// Finds `llc-22`, `llvm-dis-22`, `opt-22` and `llvm-spirv`. When one is
    /// missing: under `CI` (which installs them) that is a failure; elsewhere
    /// the test is skipped with a message naming what is missing (`None`).
    pub fn find_or_skip(test: &str) -> Option<Tools> {
        let mut missing = Vec::new();
        for tool in ["llc-22", "llvm-dis-22", "opt-22"] {
            if !runs(Command::new(tool).arg("--version")) {
                missing.push(format!("`{tool}` (Debian package llvm-22)"));
            }
        }
        let llvm_spirv = Command::new("python3")
            .args([
                "-c",
                "import dpcpp_llvm_spirv as d; print(d.get_llvm_spirv_path())",
            ])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
            .filter(|p| p.is_file());
        if llvm_spirv.is_none() {
            missing.push("`llvm-spirv` (pip install dpcpp-llvm-spirv)".to_string());
        }
        if missing.is_empty() {
            return llvm_spirv.map(|llvm_spirv| Tools { llvm_spirv });
        }
        let message = format!("{test}: needs {}", missing.join(", "));
        if std::env::var_os("CI").is_some() {
            panic!("{message}; CI installs them (.ci/run)");
        }
        eprintln!("skipped: {message}");
        None
    }

    /// Translates a specialized module back to LLVM IR text aimed at
    /// `amdgcn-amd-amdhsa` (see [`retarget`]), then lets `opt-22`'s
    /// `infer-address-spaces` give loads and stores through the allocas
    /// their private pointer (gfx6 has no flat addressing to reach them
    /// through a generic one; the pass folds no branch). `scratch` names
    /// the temporary files.
    pub fn to_amdgcn_ir(&self, spirv: &[u8], scratch: &str) -> Result<String, String> {
        let dir = std::env::temp_dir();
        let stem = format!("rspv-lower-{}-{scratch}", std::process::id());
        let spv = dir.join(format!("{stem}.spv"));
        let bc = dir.join(format!("{stem}.bc"));
        let ll = dir.join(format!("{stem}.ll"));
        let result = (|| {
            std::fs::write(&spv, with_version(spirv, TRANSLATOR_VERSION)?)
                .map_err(|e| format!("{}: {e}", spv.display()))?;
            run(Command::new(&self.llvm_spirv)
                .arg("-r")
                .arg(&spv)
                .arg("-o")
                .arg(&bc))
            .map_err(|e| format!("llvm-spirv -r: {e}"))?;
            let text = run(Command::new("llvm-dis-22").arg(&bc).arg("-o").arg("-"))
                .map_err(|e| format!("llvm-dis-22: {e}"))?;
            std::fs::write(&ll, retarget(&String::from_utf8_lossy(&text)))
                .map_err(|e| format!("{}: {e}", ll.display()))?;
            let text = run(Command::new("opt-22")
                .args([
                    "-mtriple=amdgcn-amd-amdhsa",
                    "-passes=infer-address-spaces",
                    "-S",
                    "-o",
                    "-",
                ])
                .arg(&ll))
            .map_err(|e| format!("opt-22 -passes=infer-address-spaces: {e}"))?;
            Ok(String::from_utf8_lossy(&text).into_owned())
        })();
        for f in [&spv, &bc, &ll] {
            let _ = std::fs::remove_file(f);
        }
        result
    }
}

/// True when the command starts and exits successfully.
fn runs(cmd: &mut Command) -> bool {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The command's stdout when it exits successfully, else its first lines of
/// stderr.
fn run(cmd: &mut Command) -> Result<Vec<u8>, String> {
    let out = cmd.output().map_err(|e| e.to_string())?;
    if out.status.success() {
        return Ok(out.stdout);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let head: Vec<&str> = stderr.lines().take(4).collect();
    Err(format!("{} ({})", head.join(" | "), out.status))
}

/// A copy of `spirv` whose header says SPIR-V `version`.
fn with_version(spirv: &[u8], version: u32) -> Result<Vec<u8>, String> {
    let (mut words, _) = rspv_specialize::module::words_from_bytes(spirv)
        .map_err(|e| format!("not a SPIR-V module: {e}"))?;
    words[1] = version;
    Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// Points LLVM IR that `llvm-spirv -r` wrote (SPIR triple and data layout,
/// `spir_kernel` / `spir_func` calling conventions, allocas in address space
/// 0) at `amdgcn-amd-amdhsa`: drops the data layout, sets the triple, turns
/// `spir_kernel` into `amdgpu_kernel`, drops `spir_func`, and moves every
/// `alloca` into address space 5 with an `addrspacecast` back to the old
/// (generic) pointer, as AMDGPU requires.
pub fn retarget(ir: &str) -> String {
    let mut out = String::with_capacity(ir.len() + ir.len() / 8);
    for line in ir.lines() {
        if line.starts_with("target datalayout") {
            continue;
        }
        if line.starts_with("target triple") {
            out.push_str("target triple = \"amdgcn-amd-amdhsa\"\n");
            continue;
        }
        let line = line
            .replace("spir_kernel", "amdgpu_kernel")
            .replace("spir_func ", "");
        match private_alloca(&line) {
            Some(two) => out.push_str(&two),
            None => out.push_str(&line),
        }
        out.push('\n');
    }
    out
}

/// `%x = alloca T, align N[, !md …]` as an alloca in address space 5 named
/// `%priv.x` and `%x = addrspacecast ptr addrspace(5) %priv.x to ptr`; `None`
/// for any other line.
fn private_alloca(line: &str) -> Option<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let (name, rest) = line.trim_start().split_once(" = alloca ")?;
    if !name.starts_with('%') || rest.contains(", addrspace(") {
        return None;
    }
    let private = match name.strip_prefix("%\"") {
        Some(quoted) => format!("%\"priv.{quoted}"),
        None => format!("%priv.{}", &name[1..]),
    };
    let (operands, metadata) = match rest.find(", !") {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    Some(format!(
        "{indent}{private} = alloca {operands}, addrspace(5){metadata}\n\
         {indent}{name} = addrspacecast ptr addrspace(5) {private} to ptr"
    ))
}

/// One llc target: a processor, in wave64 on a dual-wave one if asked.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LlcTarget {
    /// The processor's canonical name (`-mcpu`).
    pub cpu: String,
    /// `-mattr=+wavefrontsize64` here, `--wave64` for us.
    pub wave64: bool,
}

impl std::fmt::Display for LlcTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.cpu)?;
        if self.wave64 {
            write!(f, "+wave64")?;
        }
        Ok(())
    }
}

impl LlcTarget {
    /// Parses `gfx1100` or `gfx1100+wave64` (the spelling of [`Display`]).
    pub fn parse(s: &str) -> LlcTarget {
        match s.strip_suffix("+wave64") {
            Some(cpu) => LlcTarget {
                cpu: cpu.to_string(),
                wave64: true,
            },
            None => LlcTarget {
                cpu: s.to_string(),
                wave64: false,
            },
        }
    }

    /// Our options for this target.
    pub fn options(&self) -> rspv_specialize::TargetOptions {
        rspv_specialize::TargetOptions {
            wave64: self.wave64,
        }
    }
}

/// The processors (canonical names, not aliases or `generic`) that `llc-22`
/// lists for amdgcn and our tables know, in the tables' order.
pub fn shared_processors(tables: &rspv_specialize::ArchTables) -> Vec<String> {
    let help = Command::new("llc-22")
        .args(["-mtriple=amdgcn", "-mcpu=help"])
        .output()
        .expect("llc-22 -mcpu=help");
    let text =
        String::from_utf8_lossy(&help.stderr).into_owned() + &String::from_utf8_lossy(&help.stdout);
    let listed: std::collections::BTreeSet<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Available CPUs"))
        .take_while(|l| !l.starts_with("Available features"))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    tables
        .processors()
        .iter()
        .filter(|p| listed.contains(p.name.as_str()))
        .map(|p| p.name.clone())
        .collect()
}

/// Every processor of `shared_processors`, and the dual-wave ones again in
/// wave64.
pub fn llc_targets(tables: &rspv_specialize::ArchTables) -> Vec<LlcTarget> {
    let mut out = Vec::new();
    for cpu in shared_processors(tables) {
        let dual = tables.processor(&cpu).is_some_and(|p| p.is_dual_wave());
        out.push(LlcTarget {
            cpu: cpu.clone(),
            wave64: false,
        });
        if dual {
            out.push(LlcTarget { cpu, wave64: true });
        }
    }
    out
}

/// What `llc-22` made of a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lowering {
    /// An ELF object.
    Object,
    /// Instruction selection failed on this intrinsic (`llvm.amdgcn.…`).
    CannotSelect(String),
    /// Instruction selection failed on a node an intrinsic had become
    /// (`AMDGPUISD::FDOT2`).
    CannotSelectNode(String),
    /// Any other failure, with llc's first lines.
    Failed(String),
}

/// Lowers `ir` with `llc-22 -O0 -mtriple=amdgcn-amd-amdhsa -mcpu=<cpu>
/// [-mattr=+wavefrontsize64] -filetype=obj` and says what came out.
pub fn lower(ir: &str, target: &LlcTarget) -> Lowering {
    let mut cmd = Command::new("llc-22");
    cmd.args([
        "-O0",
        "-mtriple=amdgcn-amd-amdhsa",
        "-filetype=obj",
        "-o",
        "-",
    ])
    .arg(format!("-mcpu={}", target.cpu));
    if target.wave64 {
        cmd.arg("-mattr=+wavefrontsize64");
    }
    let mut child = match cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Lowering::Failed(format!("cannot run llc-22: {e}")),
    };
    let mut stdin = child.stdin.take().expect("piped stdin");
    let text = ir.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("llc-22 output");
    let _ = writer.join();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(at) = stderr.find("Cannot select: intrinsic %") {
        let name: String = stderr[at + "Cannot select: intrinsic %".len()..]
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect();
        return Lowering::CannotSelect(name);
    }
    if let Some(at) = stderr.find("Cannot select: ") {
        // A node the intrinsic was already turned into, e.g.
        // `f32 = AMDGPUISD::FDOT2 # D:1 …`: name its operation.
        let node = stderr[at..].lines().next().unwrap_or("");
        let op = node
            .split(" = ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or(node);
        return Lowering::CannotSelectNode(op.to_string());
    }
    if out.status.success() && out.stdout.starts_with(b"\x7fELF") {
        return Lowering::Object;
    }
    let head: Vec<&str> = stderr.lines().take(4).collect();
    Lowering::Failed(format!("{} ({})", head.join(" | "), out.status))
}

/// True when the module declares the Kernel capability (an OpenCL-style
/// module `llvm-spirv -r` can read; Shader modules are out).
pub fn is_kernel(spirv: &[u8]) -> bool {
    let Ok((words, _)) = rspv_specialize::module::words_from_bytes(spirv) else {
        return false;
    };
    let mut at = 5;
    while at < words.len() {
        let len = (words[at] >> 16) as usize;
        if words[at] & 0xffff == spirv::Op::Capability as u32
            && words.get(at + 1) == Some(&(spirv::Capability::Kernel as u32))
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

/// Runs `job(i)` for every `i < count` on as many threads as the machine
/// has cores, and returns the results in order.
pub fn parallel<T: Send>(count: usize, job: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..count).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.min(count.max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    let r = job(i);
                    results.lock().unwrap()[i] = Some(r);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// One line of the committed differences file.
#[derive(Debug, Clone)]
pub struct Difference {
    /// `lower` (a case that llc-22 cannot lower for a target although our
    /// tables rightly keep the arm) or `builtin` (clang-22's answer differs
    /// from our `has.` value).
    pub kind: String,
    /// The golden case or the builtin.
    pub subject: String,
    /// The targets it holds for (`gfx1250`, `gfx1100+wave64`).
    pub targets: Vec<LlcTarget>,
    /// `lower`: the intrinsic llc cannot select; `builtin`: `clang-22
    /// rejects`, `clang-22 accepts` or `clang-22 lacks the builtin`.
    pub what: String,
    /// Why the difference is legitimate.
    pub reason: String,
}

/// The committed differences file.
pub fn differences_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/clang22/differences.tsv")
}

/// Reads the differences file: tab-separated `kind`, `subject`, `targets`
/// (comma-separated), `what`, `reason`; `#` starts a comment line. Panics
/// naming the line of a malformed entry.
pub fn differences() -> Vec<Difference> {
    let path = differences_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert!(
            fields.len() == 5 && fields.iter().all(|f| !f.trim().is_empty()),
            "{}:{}: expected 5 non-empty tab-separated fields",
            path.display(),
            n + 1
        );
        assert!(
            matches!(fields[0], "lower" | "builtin"),
            "{}:{}: kind must be `lower` or `builtin`",
            path.display(),
            n + 1
        );
        out.push(Difference {
            kind: fields[0].to_string(),
            subject: fields[1].to_string(),
            targets: fields[2].split(',').map(LlcTarget::parse).collect(),
            what: fields[3].to_string(),
            reason: fields[4].to_string(),
        });
    }
    out
}
