//! End to end on LLVM's AMDGPU backend: every output lowers to native code
//! for its GPU.
//!
//! For every Kernel golden case and every target `llc-22` knows (the
//! processors it shares with our tables, and the dual-wave ones again in
//! wave64), the case is specialized, translated back to LLVM IR, pointed at
//! `amdgcn-amd-amdhsa` and lowered with `llc-22 -O0 -mcpu=<target>`
//! (tests/backend). It must give an object, except for the pairs the
//! committed differences file lists (our newer tables rightly keep an arm
//! that llc-22 cannot select), which must fail on exactly the intrinsic
//! listed. Controls prove the check can fail: an output for one GPU, lowered
//! for a GPU that lacks an intrinsic the output kept, must fail naming it.
//!
//! Needs `llc-22`, `llvm-dis-22` (Debian llvm-22) and `llvm-spirv` (pip
//! dpcpp-llvm-spirv); skipped with a message naming what is missing, except
//! under `CI`, which installs them.

mod backend;
mod common;

use std::collections::{BTreeMap, HashMap};

use backend::{LlcTarget, Lowering, Tools};
use rspv_specialize::{ArchTables, Options, specialize};

/// One lowering to run: a case's output for a target, lowered for a target.
struct Job {
    case: String,
    target: LlcTarget,
    /// Index into the distinct outputs.
    output: usize,
}

#[test]
fn every_golden_output_lowers_for_its_gpu() {
    let Some(tools) = Tools::find_or_skip("lowering") else {
        return;
    };
    let tables = ArchTables::embedded();
    let targets = backend::llc_targets(tables);
    let processors = targets.iter().filter(|t| !t.wave64).count();
    assert!(
        processors >= 53,
        "llc-22 and the tables share only {processors} processors"
    );

    // Specialize every case for every target; translate each distinct output once.
    let mut outputs: Vec<Vec<u8>> = Vec::new();
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut jobs = Vec::new();
    let mut cases = 0;
    for dir in common::golden_cases("input.spv") {
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        let input = std::fs::read(dir.join("input.spv")).unwrap();
        if !backend::is_kernel(&input) {
            continue;
        }
        let mut any = false;
        for target in &targets {
            let t = tables.target_with(&target.cpu, &target.options()).unwrap();
            let Ok(out) = specialize(&input, &t, &Options::default()) else {
                continue; // a case whose predicates cannot be resolved has no output
            };
            any = true;
            let bytes = out.bytes();
            let next = outputs.len();
            let output = *index.entry(bytes.clone()).or_insert(next);
            if output == next {
                outputs.push(bytes);
            }
            jobs.push(Job {
                case: case.clone(),
                target: target.clone(),
                output,
            });
        }
        cases += usize::from(any);
    }
    assert!(cases >= 25, "only {cases} Kernel golden cases have outputs");

    let start = std::time::Instant::now();
    let ir = backend::parallel(outputs.len(), |i| {
        tools.to_amdgcn_ir(&outputs[i], &format!("out{i}"))
    });
    let results = backend::parallel(jobs.len(), |i| match &ir[jobs[i].output] {
        Ok(text) => backend::lower(text, &jobs[i].target),
        Err(e) => Lowering::Failed(format!("translation back to LLVM IR failed: {e}")),
    });

    // The committed exceptions: (case, target) -> intrinsic llc-22 cannot select.
    let mut expected_failures: BTreeMap<(String, LlcTarget), String> = BTreeMap::new();
    for d in backend::differences()
        .into_iter()
        .filter(|d| d.kind == "lower")
    {
        for t in d.targets {
            expected_failures.insert((d.subject.clone(), t), d.what.clone());
        }
    }
    let mut problems = Vec::new();
    let mut objects = 0;
    for (job, result) in jobs.iter().zip(&results) {
        let key = (job.case.clone(), job.target.clone());
        match (expected_failures.remove(&key), result) {
            (None, Lowering::Object) => objects += 1,
            (Some(want), Lowering::CannotSelect(got)) if &want == got => {}
            (None, failure) => problems.push(format!(
                "{}: output for {} does not lower for it: {}",
                job.case,
                job.target,
                describe(failure)
            )),
            (Some(want), other) => problems.push(format!(
                "{}: {}: the differences file says llc-22 cannot select {want}, but: {}",
                job.case,
                job.target,
                describe(other)
            )),
        }
    }
    for ((case, target), want) in expected_failures {
        problems.push(format!(
            "differences file: {case} on {target} ({want}) matches no lowering run"
        ));
    }
    eprintln!(
        "lowering: {cases} cases, {} targets, {} lowerings ({objects} objects) of {} distinct outputs in {:.1?}",
        targets.len(),
        jobs.len(),
        outputs.len(),
        start.elapsed()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn describe(lowering: &Lowering) -> String {
    match lowering {
        Lowering::Object => "it lowered to an object".to_string(),
        Lowering::CannotSelect(i) => format!("llc-22 cannot select intrinsic {i}"),
        Lowering::CannotSelectNode(n) => format!("llc-22 cannot select {n}"),
        Lowering::Failed(m) => format!("llc-22 failed: {m}"),
    }
}

/// Controls: `(case, specialized for, lowered for, intrinsic that must fail)`.
/// Each output keeps an intrinsic the second GPU lacks (the one named is the
/// first llc-22 reports when it keeps several); `+wave64` is the
/// wave64 output of a dual-wave processor (`--wave64`) or its wave64 lowering.
const CONTROLS: &[(&str, &str, &str, &str)] = &[
    (
        "dispatch-chain",
        "gfx942",
        "gfx1100",
        "llvm.amdgcn.mfma.f32.16x16x4f32",
    ),
    (
        "dispatch-chain",
        "gfx1100",
        "gfx942",
        "llvm.amdgcn.wmma.f32.16x16x16.f16",
    ),
    (
        "dispatch-chain",
        "gfx1201",
        "gfx1100",
        "llvm.amdgcn.wmma.f32.16x16x16.f16",
    ),
    (
        "mfma-shapes",
        "gfx950",
        "gfx942",
        "llvm.amdgcn.mfma.f32.16x16x32.f16",
    ),
    (
        "mfma-shapes",
        "gfx942",
        "gfx90a",
        "llvm.amdgcn.smfmac.f32.16x16x32.f16",
    ),
    (
        "mfma-shapes",
        "gfx90a",
        "gfx908",
        "llvm.amdgcn.mfma.f64.16x16x4f64",
    ),
    (
        "mfma-gfx950",
        "gfx950",
        "gfx942",
        "llvm.amdgcn.mfma.i32.16x16x64.i8",
    ),
    (
        "mfma-gfx950",
        "gfx942",
        "gfx90a",
        "llvm.amdgcn.smfmac.f32.16x16x64.fp8.fp8",
    ),
    (
        "wmma-forms",
        "gfx1250",
        "gfx1201",
        "llvm.amdgcn.wmma.f32.16x16x32.f16",
    ),
    (
        "wmma-forms",
        "gfx1201",
        "gfx1100",
        "llvm.amdgcn.swmmac.f32.16x16x32.f16",
    ),
    (
        "wmma-forms",
        "gfx1100+wave64",
        "gfx1100",
        "llvm.amdgcn.wmma.f32.16x16x16.f16",
    ),
    (
        "dot-families",
        "gfx1201",
        "gfx1100",
        "llvm.amdgcn.dot4.f32.fp8.bf8",
    ),
    (
        "gfx12-gfx950-misc",
        "gfx950",
        "gfx942",
        "llvm.amdgcn.bitop3",
    ),
    (
        "gfx12-gfx950-misc",
        "gfx1250",
        "gfx1201",
        "llvm.amdgcn.bitop3",
    ),
    (
        "async-lds-or",
        "gfx1250",
        "gfx950",
        "llvm.amdgcn.s.wait.asynccnt",
    ),
    (
        "translator-dispatch",
        "gfx942",
        "gfx90a",
        "llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8",
    ),
];

#[test]
fn controls_fail_on_a_gpu_lacking_a_kept_intrinsic() {
    let Some(tools) = Tools::find_or_skip("lowering controls") else {
        return;
    };
    let tables = ArchTables::embedded();
    let results = backend::parallel(CONTROLS.len(), |i| {
        let (case, made_for, lowered_for, _) = CONTROLS[i];
        let input = std::fs::read(common::golden_input(case)).unwrap();
        let made_for = LlcTarget::parse(made_for);
        let t = tables
            .target_with(&made_for.cpu, &made_for.options())
            .unwrap();
        let out = specialize(&input, &t, &Options::default()).unwrap().bytes();
        let ir = tools
            .to_amdgcn_ir(&out, &format!("control{i}"))
            .unwrap_or_else(|e| panic!("{case} for {made_for}: {e}"));
        let own = backend::lower(&ir, &made_for);
        let other = backend::lower(&ir, &LlcTarget::parse(lowered_for));
        (own, other)
    });
    let mut problems = Vec::new();
    for ((case, made_for, lowered_for, intrinsic), (own, other)) in CONTROLS.iter().zip(results) {
        if own != Lowering::Object {
            problems.push(format!(
                "control {case}: the output for {made_for} does not lower for it: {}",
                describe(&own)
            ));
        }
        if other != Lowering::CannotSelect(intrinsic.to_string()) {
            problems.push(format!(
                "control {case}: the output for {made_for} lowered for {lowered_for} must fail on {intrinsic}, but {}",
                describe(&other)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The IR rewrite on its own, with no tool: the triple, the calling
/// conventions, and allocas (named, numbered, of a pointer in another
/// address space, with metadata) moved to address space 5.
#[test]
fn retarget_points_translator_ir_at_amdgcn() {
    let ir = "target datalayout = \"e-p:64:64\"\n\
              target triple = \"spir64-unknown-unknown\"\n\
              define spir_kernel void @k(ptr addrspace(1) %out) {\n\
              entry:\n\
              \x20 %out.addr = alloca ptr addrspace(1), align 8\n\
              \x20 %0 = alloca float, align 4, !dbg !7\n\
              \x20 %v = call spir_func float @f(ptr %0)\n\
              \x20 ret void\n\
              }\n";
    let out = backend::retarget(ir);
    let want = "target triple = \"amdgcn-amd-amdhsa\"\n\
                define amdgpu_kernel void @k(ptr addrspace(1) %out) {\n\
                entry:\n\
                \x20 %priv.out.addr = alloca ptr addrspace(1), align 8, addrspace(5)\n\
                \x20 %out.addr = addrspacecast ptr addrspace(5) %priv.out.addr to ptr\n\
                \x20 %priv.0 = alloca float, align 4, addrspace(5), !dbg !7\n\
                \x20 %0 = addrspacecast ptr addrspace(5) %priv.0 to ptr\n\
                \x20 %v = call float @f(ptr %0)\n\
                \x20 ret void\n\
                }\n";
    assert_eq!(out, want);
}
