//! The disassembler (`rspv_specialize::disasm::disassemble`, behind
//! `--emit spvasm` and the golden files) against SPIRV-Tools, on every
//! `.spv` under `tests/`, every saved fuzz input, and the specialized golden
//! and debug-info modules:
//!
//! - its text equals `spirv-dis --raw-id --no-indent` of SPIRV-Tools 2025.5
//!   (header included: both print the module's own version, generator and
//!   bound). With an older spirv-dis (Debian's 2023.1) the instruction
//!   lines may differ only by the enumerant aliases in [`OLDER_NAMES`], and
//!   the header only by the generator's name; with a newer one, by the
//!   renames in [`NEWER_NAMES`];
//! - `spirv-as --preserve-numeric-ids --target-env spv1.N` of its text gives
//!   back the module's instruction words;
//! - it reads what spirv-dis cannot (module-scope `OpExtInst` included);
//!   where spirv-dis cannot read a file, the instructions it cannot decode
//!   print as raw words that still assemble back.
//!
//! spirv-dis is `$SPIRV_DIS`, else the one beside `$SPIRV_VAL`, else the
//! one on `PATH`; spirv-as is `$SPIRV_AS`, else the one beside that
//! spirv-dis. Without them the test says so and passes, except under `CI`,
//! which installs them.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{repo, spv_files};
use rspv_specialize::disasm::disassemble;
use rspv_specialize::module::words_from_bytes;
use rspv_specialize::{ArchTables, Options, specialize};

/// Names SPIRV-Tools before 2025.5 (Debian's 2023.1) prints for an opcode
/// or enumerant value the disassembler names otherwise: `(ours, theirs)`.
/// SPIRV-Headers has since listed ours first, theirs as an alias. Every
/// such value of the two releases' grammars, made by
/// `tools/gen_older_names.py` (the files here need only `OptNoneEXT`).
const OLDER_NAMES: &[(&str, &str)] = &[
    ("OpSDot", "OpSDotKHR"),
    ("OpUDot", "OpUDotKHR"),
    ("OpSUDot", "OpSUDotKHR"),
    ("OpSDotAccSat", "OpSDotAccSatKHR"),
    ("OpUDotAccSat", "OpUDotAccSatKHR"),
    ("OpSUDotAccSat", "OpSUDotAccSatKHR"),
    (
        "OpDemoteToHelperInvocation",
        "OpDemoteToHelperInvocationEXT",
    ),
    ("OpDecorateString", "OpDecorateStringGOOGLE"),
    ("OpMemberDecorateString", "OpMemberDecorateStringGOOGLE"),
    (
        "OpArbitraryFloatSinCosPiALTERA",
        "OpArbitraryFloatSinCosPiINTEL",
    ),
    ("OpArbitraryFloatCastALTERA", "OpArbitraryFloatCastINTEL"),
    (
        "OpArbitraryFloatCastFromIntALTERA",
        "OpArbitraryFloatCastFromIntINTEL",
    ),
    (
        "OpArbitraryFloatCastToIntALTERA",
        "OpArbitraryFloatCastToIntINTEL",
    ),
    ("OpArbitraryFloatAddALTERA", "OpArbitraryFloatAddINTEL"),
    ("OpArbitraryFloatSubALTERA", "OpArbitraryFloatSubINTEL"),
    ("OpArbitraryFloatMulALTERA", "OpArbitraryFloatMulINTEL"),
    ("OpArbitraryFloatDivALTERA", "OpArbitraryFloatDivINTEL"),
    ("OpArbitraryFloatGTALTERA", "OpArbitraryFloatGTINTEL"),
    ("OpArbitraryFloatGEALTERA", "OpArbitraryFloatGEINTEL"),
    ("OpArbitraryFloatLTALTERA", "OpArbitraryFloatLTINTEL"),
    ("OpArbitraryFloatLEALTERA", "OpArbitraryFloatLEINTEL"),
    ("OpArbitraryFloatEQALTERA", "OpArbitraryFloatEQINTEL"),
    ("OpArbitraryFloatRecipALTERA", "OpArbitraryFloatRecipINTEL"),
    ("OpArbitraryFloatRSqrtALTERA", "OpArbitraryFloatRSqrtINTEL"),
    ("OpArbitraryFloatCbrtALTERA", "OpArbitraryFloatCbrtINTEL"),
    ("OpArbitraryFloatHypotALTERA", "OpArbitraryFloatHypotINTEL"),
    ("OpArbitraryFloatSqrtALTERA", "OpArbitraryFloatSqrtINTEL"),
    ("OpFixedSqrtALTERA", "OpFixedSqrtINTEL"),
    ("OpFixedRecipALTERA", "OpFixedRecipINTEL"),
    ("OpFixedRsqrtALTERA", "OpFixedRsqrtINTEL"),
    ("OpFixedSinALTERA", "OpFixedSinINTEL"),
    ("OpFixedCosALTERA", "OpFixedCosINTEL"),
    ("OpFixedSinCosALTERA", "OpFixedSinCosINTEL"),
    ("OpFixedSinPiALTERA", "OpFixedSinPiINTEL"),
    ("OpFixedCosPiALTERA", "OpFixedCosPiINTEL"),
    ("OpFixedSinCosPiALTERA", "OpFixedSinCosPiINTEL"),
    ("OpFixedLogALTERA", "OpFixedLogINTEL"),
    ("OpFixedExpALTERA", "OpFixedExpINTEL"),
    (
        "OpPtrCastToCrossWorkgroupALTERA",
        "OpPtrCastToCrossWorkgroupINTEL",
    ),
    (
        "OpCrossWorkgroupCastToPtrALTERA",
        "OpCrossWorkgroupCastToPtrINTEL",
    ),
    ("OpReadPipeBlockingALTERA", "OpReadPipeBlockingINTEL"),
    ("OpWritePipeBlockingALTERA", "OpWritePipeBlockingINTEL"),
    ("OpFPGARegALTERA", "OpFPGARegINTEL"),
    ("AllowContract", "AllowContractFastINTEL"),
    ("AllowReassoc", "AllowReassocINTEL"),
    ("InitiationIntervalALTERA", "InitiationIntervalINTEL"),
    ("MaxConcurrencyALTERA", "MaxConcurrencyINTEL"),
    ("DependencyArrayALTERA", "DependencyArrayINTEL"),
    ("PipelineEnableALTERA", "PipelineEnableINTEL"),
    ("LoopCoalesceALTERA", "LoopCoalesceINTEL"),
    ("MaxInterleavingALTERA", "MaxInterleavingINTEL"),
    ("SpeculatedIterationsALTERA", "SpeculatedIterationsINTEL"),
    ("NoFusionALTERA", "NoFusionINTEL"),
    ("LoopCountALTERA", "LoopCountINTEL"),
    ("MaxReinvocationDelayALTERA", "MaxReinvocationDelayINTEL"),
    ("OptNoneEXT", "OptNoneINTEL"),
    ("RayGenerationKHR", "RayGenerationNV"),
    ("IntersectionKHR", "IntersectionNV"),
    ("AnyHitKHR", "AnyHitNV"),
    ("ClosestHitKHR", "ClosestHitNV"),
    ("MissKHR", "MissNV"),
    ("CallableKHR", "CallableNV"),
    ("OutputLinesEXT", "OutputLinesNV"),
    ("OutputPrimitivesEXT", "OutputPrimitivesNV"),
    ("DerivativeGroupQuadsKHR", "DerivativeGroupQuadsNV"),
    ("DerivativeGroupLinearKHR", "DerivativeGroupLinearNV"),
    ("OutputTrianglesEXT", "OutputTrianglesNV"),
    ("CallableDataKHR", "CallableDataNV"),
    ("IncomingCallableDataKHR", "IncomingCallableDataNV"),
    ("RayPayloadKHR", "RayPayloadNV"),
    ("HitAttributeKHR", "HitAttributeNV"),
    ("IncomingRayPayloadKHR", "IncomingRayPayloadNV"),
    ("ShaderRecordBufferKHR", "ShaderRecordBufferNV"),
    ("DeviceOnlyALTERA", "DeviceOnlyINTEL"),
    ("HostOnlyALTERA", "HostOnlyINTEL"),
    ("RuntimeAlignedALTERA", "RuntimeAlignedINTEL"),
    ("PerPrimitiveEXT", "PerPrimitiveNV"),
    ("RegisterALTERA", "RegisterINTEL"),
    ("MemoryALTERA", "MemoryINTEL"),
    ("NumbanksALTERA", "NumbanksINTEL"),
    ("BankwidthALTERA", "BankwidthINTEL"),
    ("MaxPrivateCopiesALTERA", "MaxPrivateCopiesINTEL"),
    ("SinglepumpALTERA", "SinglepumpINTEL"),
    ("DoublepumpALTERA", "DoublepumpINTEL"),
    ("MaxReplicatesALTERA", "MaxReplicatesINTEL"),
    ("SimpleDualPortALTERA", "SimpleDualPortINTEL"),
    ("MergeALTERA", "MergeINTEL"),
    ("BankBitsALTERA", "BankBitsINTEL"),
    ("ForcePow2DepthALTERA", "ForcePow2DepthINTEL"),
    ("BurstCoalesceALTERA", "BurstCoalesceINTEL"),
    ("CacheSizeALTERA", "CacheSizeINTEL"),
    (
        "DontStaticallyCoalesceALTERA",
        "DontStaticallyCoalesceINTEL",
    ),
    ("PrefetchALTERA", "PrefetchINTEL"),
    ("StallEnableALTERA", "StallEnableINTEL"),
    ("FuseLoopsInFunctionALTERA", "FuseLoopsInFunctionINTEL"),
    ("MathOpDSPModeALTERA", "MathOpDSPModeINTEL"),
    ("BufferLocationALTERA", "BufferLocationINTEL"),
    ("IOPipeStorageALTERA", "IOPipeStorageINTEL"),
    ("LaunchIdKHR", "LaunchIdNV"),
    ("LaunchSizeKHR", "LaunchSizeNV"),
    ("WorldRayOriginKHR", "WorldRayOriginNV"),
    ("WorldRayDirectionKHR", "WorldRayDirectionNV"),
    ("ObjectRayOriginKHR", "ObjectRayOriginNV"),
    ("ObjectRayDirectionKHR", "ObjectRayDirectionNV"),
    ("RayTminKHR", "RayTminNV"),
    ("RayTmaxKHR", "RayTmaxNV"),
    ("InstanceCustomIndexKHR", "InstanceCustomIndexNV"),
    ("ObjectToWorldKHR", "ObjectToWorldNV"),
    ("WorldToObjectKHR", "WorldToObjectNV"),
    ("HitKindKHR", "HitKindNV"),
    ("IncomingRayFlagsKHR", "IncomingRayFlagsNV"),
    (
        "ComputeDerivativeGroupQuadsKHR",
        "ComputeDerivativeGroupQuadsNV",
    ),
    (
        "ComputeDerivativeGroupLinearKHR",
        "ComputeDerivativeGroupLinearNV",
    ),
    ("FPGAMemoryAttributesALTERA", "FPGAMemoryAttributesINTEL"),
    (
        "ArbitraryPrecisionIntegersALTERA",
        "ArbitraryPrecisionIntegersINTEL",
    ),
    (
        "ArbitraryPrecisionFloatingPointALTERA",
        "ArbitraryPrecisionFloatingPointINTEL",
    ),
    ("FPGALoopControlsALTERA", "FPGALoopControlsINTEL"),
    ("FPGAMemoryAccessesALTERA", "FPGAMemoryAccessesINTEL"),
    ("FPGAClusterAttributesALTERA", "FPGAClusterAttributesINTEL"),
    ("LoopFuseALTERA", "LoopFuseINTEL"),
    ("FPGADSPControlALTERA", "FPGADSPControlINTEL"),
    (
        "FPGAInvocationPipeliningAttributesALTERA",
        "FPGAInvocationPipeliningAttributesINTEL",
    ),
    ("FPGABufferLocationALTERA", "FPGABufferLocationINTEL"),
    (
        "ArbitraryPrecisionFixedPointALTERA",
        "ArbitraryPrecisionFixedPointINTEL",
    ),
    ("USMStorageClassesALTERA", "USMStorageClassesINTEL"),
    (
        "RuntimeAlignedAttributeALTERA",
        "RuntimeAlignedAttributeINTEL",
    ),
    ("IOPipesALTERA", "IOPipesINTEL"),
    ("BlockingPipesALTERA", "BlockingPipesINTEL"),
    ("FPGARegALTERA", "FPGARegINTEL"),
    ("LongCompositesINTEL", "LongConstantCompositeINTEL"),
];

/// Names SPIRV-Tools after 2025.5 may print for a value the disassembler
/// names as 2025.5 does: `(ours, theirs)`, the renames in rspirv's newer
/// grammar (SPIRV-Headers vulkan-sdk-1.4.341.0).
const NEWER_NAMES: &[(&str, &str)] = &[
    (
        "GroupNonUniformPartitionedNV",
        "GroupNonUniformPartitionedEXT",
    ),
    ("PartitionedReduceNV", "PartitionedReduceEXT"),
    ("PartitionedInclusiveScanNV", "PartitionedInclusiveScanEXT"),
    ("PartitionedExclusiveScanNV", "PartitionedExclusiveScanEXT"),
    (
        "OpGroupNonUniformPartitionNV",
        "OpGroupNonUniformPartitionEXT",
    ),
    ("OpTypeCooperativeVectorNV", "OpTypeVectorIdEXT"),
];

/// A SPIRV-Tools program and its version (`(2025, 5)`).
struct Tool {
    path: PathBuf,
    version: (u32, u32),
}

impl Tool {
    /// The program at `path`, if it runs and says its version.
    fn at(path: PathBuf) -> Option<Tool> {
        let out = Command::new(&path).arg("--version").output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        // "SPIRV-Tools v2025.5 262bdab4..." (older: "SPIRV-Tools v2023.1 unknown hash").
        let v = text.split_whitespace().find_map(|w| w.strip_prefix('v'))?;
        let (year, minor) = v.split_once('.')?;
        let minor: String = minor.chars().take_while(char::is_ascii_digit).collect();
        Some(Tool {
            path,
            version: (year.parse().ok()?, minor.parse().ok()?),
        })
    }

    /// True for SPIRV-Tools 2025.5, whose names the disassembler prints.
    fn is_current(&self) -> bool {
        self.version == (2025, 5)
    }

    /// The names this version prints otherwise: `(ours, theirs)`.
    fn other_names(&self) -> &'static [(&'static str, &'static str)] {
        match self.version.cmp(&(2025, 5)) {
            std::cmp::Ordering::Less => OLDER_NAMES,
            std::cmp::Ordering::Equal => &[],
            std::cmp::Ordering::Greater => NEWER_NAMES,
        }
    }
}

/// `name` per the lookup order in the module docs: `$var`, the program
/// beside `$beside`, or `name` on `PATH`.
fn find(name: &str, var: &str, beside: Option<&Path>) -> Option<Tool> {
    if let Some(p) = std::env::var_os(var) {
        let tool = Tool::at(PathBuf::from(&p));
        assert!(
            tool.is_some(),
            "${var}={} does not run",
            p.to_string_lossy()
        );
        return tool;
    }
    if let Some(dir) = beside.and_then(Path::parent) {
        let p = dir.join(name);
        if p.is_file() {
            return Tool::at(p);
        }
    }
    Tool::at(PathBuf::from(name))
}

/// spirv-dis and spirv-as, or `None` (after saying why) when they are
/// missing outside CI.
fn tools() -> Option<(Tool, Tool)> {
    let val = std::env::var_os("SPIRV_VAL").map(PathBuf::from);
    let dis = find("spirv-dis", "SPIRV_DIS", val.as_deref());
    let asm = dis
        .as_ref()
        .and_then(|d| find("spirv-as", "SPIRV_AS", Some(&d.path)));
    match (dis, asm) {
        (Some(d), Some(a)) => Some((d, a)),
        _ if std::env::var_os("CI").is_some() => {
            panic!("spirv-dis and spirv-as are required in CI (set SPIRV_DIS / SPIRV_AS)")
        }
        _ => {
            eprintln!("skipped: spirv-dis or spirv-as not found (set SPIRV_DIS / SPIRV_AS)");
            None
        }
    }
}

/// Every module the test reads: the `.spv` files under `tests/` and the
/// saved fuzz inputs.
fn inputs() -> Vec<PathBuf> {
    let mut files = spv_files(&repo().join("tests"));
    let fuzz = repo().join("tests/data/fuzz-regressions");
    let mut saved: Vec<PathBuf> = std::fs::read_dir(&fuzz)
        .unwrap_or_else(|e| panic!("{}: {e}", fuzz.display()))
        .map(|e| e.unwrap().path())
        .collect();
    saved.sort();
    files.extend(saved);
    files
}

/// A scratch file for one input, named after it.
fn scratch(path: &Path, ext: &str) -> PathBuf {
    let rel = path.strip_prefix(repo()).unwrap_or(path);
    let name = rel.to_string_lossy().replace(['/', '\\'], "_");
    std::env::temp_dir().join(format!("rspv-disasm-{}-{name}.{ext}", std::process::id()))
}

/// spirv-dis's text of `path`, or its complaint.
fn spirv_dis(dis: &Tool, path: &Path) -> Result<String, String> {
    let out = Command::new(&dis.path)
        .args(["--raw-id", "--no-indent", "--no-color"])
        .arg(path)
        .output()
        .unwrap();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The instruction words spirv-as makes of `text` for SPIR-V `version`.
fn spirv_as(asm: &Tool, text: &str, version: (u32, u32), path: &Path) -> Result<Vec<u32>, String> {
    let src = scratch(path, "spvasm");
    let bin = scratch(path, "as.spv");
    std::fs::write(&src, text).unwrap();
    let out = Command::new(&asm.path)
        .arg("--preserve-numeric-ids")
        .args(["--target-env", &format!("spv{}.{}", version.0, version.1)])
        .arg(&src)
        .arg("-o")
        .arg(&bin)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&src);
    let bytes = std::fs::read(&bin);
    let _ = std::fs::remove_file(&bin);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let (words, _) = words_from_bytes(&bytes.unwrap()).map_err(|e| e.to_string())?;
    Ok(words[5..].to_vec())
}

/// `text` with each name of `names` (`(ours, theirs)` pairs) renamed:
/// from theirs to ours (`to_ours`), or back.
fn renamed(text: &str, names: &[(&str, &str)], to_ours: bool) -> String {
    let mut out = String::new();
    let mut token = String::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if c == ' ' || c == '|' || c == '\n' || c == '\0' {
            let other = names.iter().find_map(|&(ours, theirs)| match to_ours {
                true if theirs == token => Some(ours),
                false if ours == token => Some(theirs),
                _ => None,
            });
            out.push_str(other.unwrap_or(&token));
            token.clear();
            if c != '\0' {
                out.push(c);
            }
        } else {
            token.push(c);
        }
    }
    out
}

/// Where `ours` and spirv-dis's `theirs` differ beyond what `dis`'s version
/// allows, one line each.
fn differences(ours: &str, theirs: &str, dis: &Tool) -> Vec<String> {
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
    let mut out = Vec::new();
    if a.len() != b.len() {
        out.push(format!("{} lines, spirv-dis {}", a.len(), b.len()));
    }
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        let same = x == y
            || (!dis.is_current()
                && if x.starts_with("; Generator: ") {
                    y.starts_with("; Generator: ")
                } else {
                    *x == renamed(y, dis.other_names(), true)
                });
        if !same {
            out.push(format!(
                "line {}:\n  ours:      {x}\n  spirv-dis: {y}",
                i + 1
            ));
        }
    }
    out
}

/// Inputs spirv-dis 2025.5 is expected not to read: the saved fuzz inputs
/// and the module of deliberately undecodable instructions.
fn meant_to_be_unreadable(name: &str) -> bool {
    name.starts_with("tests/data/fuzz-regressions/") || name.ends_with("undecodable.spv")
}

/// Checks modules one by one and keeps the tally.
struct Checker {
    dis: Tool,
    asm: Tool,
    failures: Vec<String>,
    compared: usize,
    assembled: usize,
    unreadable: Vec<String>,
}

impl Checker {
    fn new() -> Option<Checker> {
        let (dis, asm) = tools()?;
        Some(Checker {
            dis,
            asm,
            failures: Vec::new(),
            compared: 0,
            assembled: 0,
            unreadable: Vec::new(),
        })
    }

    /// Checks the module in file `path`, called `name` in messages.
    fn check(&mut self, name: &str, path: &Path) {
        let bytes = std::fs::read(path).unwrap();
        let Ok((words, _)) = words_from_bytes(&bytes) else {
            return; // not a module at all: nothing to print
        };
        let ours = match disassemble(&words) {
            Ok(t) => t,
            Err(e) => {
                // Only a malformed header or word count may stop it; then
                // spirv-dis must fail too.
                if spirv_dis(&self.dis, path).is_ok() {
                    self.failures
                        .push(format!("{name}: spirv-dis reads it, we fail: {e}"));
                }
                return;
            }
        };
        let readable = match spirv_dis(&self.dis, path) {
            Ok(theirs) => {
                self.compared += 1;
                let diff = differences(&ours, &theirs, &self.dis);
                if !diff.is_empty() {
                    self.failures.push(format!(
                        "{name}: differs from spirv-dis:\n{}",
                        diff.join("\n")
                    ));
                }
                true
            }
            Err(e) => {
                if self.dis.is_current() && !meant_to_be_unreadable(name) {
                    self.failures
                        .push(format!("{name}: spirv-dis cannot read it: {e}"));
                }
                self.unreadable.push(name.to_string());
                false
            }
        };
        // An older spirv-as knows only the older names, and only what the
        // spirv-dis of its release can read.
        let text = match (self.asm.is_current(), readable) {
            (true, _) => ours,
            (false, true) => renamed(&ours, self.asm.other_names(), false),
            (false, false) => return,
        };
        let version = ((words[1] >> 16) & 0xff, (words[1] >> 8) & 0xff);
        match spirv_as(&self.asm, &text, version, path) {
            Ok(back) if back == words[5..] => self.assembled += 1,
            Ok(_) => self
                .failures
                .push(format!("{name}: spirv-as gives other instruction words")),
            Err(e) => self
                .failures
                .push(format!("{name}: spirv-as rejects our text: {e}")),
        }
    }

    /// Says what was checked; fails with every failure.
    fn finish(self) {
        eprintln!(
            "{} v{}.{}: {} modules equal to spirv-dis, {} assembled back by {}; \
             spirv-dis cannot read {}: {:?}",
            self.dis.path.display(),
            self.dis.version.0,
            self.dis.version.1,
            self.compared,
            self.assembled,
            self.asm.path.display(),
            self.unreadable.len(),
            self.unreadable
        );
        assert!(self.failures.is_empty(), "{}", self.failures.join("\n\n"));
        assert!(self.compared > 0, "no module compared");
    }
}

#[test]
fn text_matches_spirv_dis_and_assembles_back() {
    let Some(mut checker) = Checker::new() else {
        return;
    };
    for path in inputs() {
        let name = path.strip_prefix(repo()).unwrap().display().to_string();
        checker.check(&name, &path);
    }
    checker.finish();
}

/// What `--emit spvasm` prints: the specialized golden and debug-info
/// modules, for a target where each predicate is true and one where it is
/// false.
#[test]
fn specialized_outputs_match_spirv_dis() {
    let Some(mut checker) = Checker::new() else {
        return;
    };
    let tables = ArchTables::embedded();
    let mut inputs = common::golden_cases("input.spv")
        .into_iter()
        .map(|d| d.join("input.spv"))
        .collect::<Vec<_>>();
    inputs.push(repo().join("tests/data/debug-info/k.spv"));
    for input in inputs {
        let bytes = std::fs::read(&input).unwrap();
        for t in ["gfx950", "gfx1100"] {
            let Ok(out) = specialize(&bytes, &tables.target(t).unwrap(), &Options::default())
            else {
                continue; // an expected failure (see the golden .err files)
            };
            let name = format!("{} for {t}", input.strip_prefix(repo()).unwrap().display());
            let file = scratch(&input, &format!("{t}.spv"));
            std::fs::write(&file, out.bytes()).unwrap();
            checker.check(&name, &file);
            let _ = std::fs::remove_file(&file);
        }
    }
    checker.finish();
}
