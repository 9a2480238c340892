//! A real module with debug info at module scope (NonSemantic.Shader.DebugInfo.100
//! `OpExtInst`s, which rspirv's loader rejects) and a predicate table: the
//! pass must fold the predicate, keep every debug instruction word for word,
//! and produce a valid module. Built by clang-22/llc-22, see
//! `tests/data/debug-info/command.txt`.

mod common;

use std::path::Path;

use rspv_specialize::module::{Module, words_from_bytes};
use rspv_specialize::{ArchTables, Options, inspect, specialize};

const OP_EXT_INST: u16 = spirv::Op::ExtInst as u16;
const OP_FUNCTION_CALL: u32 = spirv::Op::FunctionCall as u32;

/// Module-scope `OpExtInst`s, each as its words.
fn module_scope_ext_insts(bytes: &[u8]) -> Vec<Vec<u32>> {
    let (words, _) = words_from_bytes(bytes).unwrap();
    let m = Module::parse(&words).unwrap();
    m.globals()
        .filter(|i| i.opcode == OP_EXT_INST)
        .map(|i| m.inst_words(i).to_vec())
        .collect()
}

/// Callee ids of every OpFunctionCall.
fn callees(bytes: &[u8]) -> Vec<u32> {
    let (words, _) = words_from_bytes(bytes).unwrap();
    let mut at = 5;
    let mut out = Vec::new();
    while at < words.len() {
        let len = (words[at] >> 16) as usize;
        if words[at] & 0xffff == OP_FUNCTION_CALL {
            out.push(words[at + 3]);
        }
        at += len;
    }
    out
}

#[test]
fn debug_info_passes_through_word_for_word() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/debug-info");
    let input = std::fs::read(dir.join("k.spv")).unwrap();
    let debug = module_scope_ext_insts(&input);
    assert!(debug.len() >= 4, "the input has module-scope debug info");
    let tables = ArchTables::embedded();
    let mut seen_callees = Vec::new();
    let mut outputs = Vec::new();
    for t in ["gfx950", "gfx1100"] {
        let out = specialize(&input, &tables.target(t).unwrap(), &Options::default()).unwrap();
        let bytes = out.bytes();
        assert!(!inspect(&bytes).unwrap().has_table);
        assert_eq!(
            module_scope_ext_insts(&bytes),
            debug,
            "{t}: debug info changed"
        );
        assert_eq!(out.report().functions_removed.len(), 1, "{t}");
        seen_callees.push(callees(&bytes));
        outputs.push((t, bytes));
    }
    let made: Vec<common::Made> = outputs
        .iter()
        .map(|(t, out)| common::Made {
            input: &input,
            output: out,
            what: format!("debug-info: {t}"),
        })
        .collect();
    common::assert_outputs_valid(&made);
    // mai-insts (gfx950) keeps fast_path, gfx1100 keeps slow_path.
    assert_ne!(seen_callees[0], seen_callees[1]);
}

/// `--emit spvasm` prints a module with module-scope debug info (which
/// rspirv's loader rejects): the library's disassembly of the `--emit spv`
/// output, with the module's own header fields and the debug instructions
/// by name, before the first function.
#[cfg(feature = "cli")]
#[test]
fn emit_spvasm_prints_module_scope_debug_info() {
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/debug-info/k.spv");
    let run = |emit: &str| {
        let out = common::run_cli(&[
            "--target".as_ref(),
            "gfx950".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            "-".as_ref(),
            "--emit".as_ref(),
            emit.as_ref(),
            "--report".as_ref(),
            "none".as_ref(),
        ]);
        assert!(
            out.status.success(),
            "--emit {emit}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let text = String::from_utf8(run("spvasm")).unwrap();
    let binary = run("spv");
    let (words, _) = words_from_bytes(&binary).unwrap();
    assert_eq!(
        text,
        rspv_specialize::disasm::disassemble(&words).unwrap(),
        "--emit spvasm is the disassembly of --emit spv"
    );
    // llc-22 writes the generator word 0x0000ffff: tool 0 (Khronos), 65535.
    assert_eq!(words[2], 0x0000_ffff);
    let header: Vec<&str> = text.lines().take(5).collect();
    assert_eq!(
        header,
        [
            "; SPIR-V",
            "; Version: 1.6",
            "; Generator: Khronos; 65535",
            &format!("; Bound: {}", words[3]),
            "; Schema: 0",
        ]
    );
    let module_scope: Vec<&str> = text
        .lines()
        .take_while(|l| !l.contains("= OpFunction "))
        .collect();
    for debug in [
        "OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"",
        "DebugSource",
        "DebugCompilationUnit",
        "DebugTypeBasic",
        "DebugTypePointer",
    ] {
        assert!(
            module_scope.iter().any(|l| l.contains(debug)),
            "{debug} missing at module scope:\n{text}"
        );
    }
}

/// `OpenCL.DebugInfo.100` extended instructions at module scope take
/// literals where the core grammar's `OpExtInst` has ids
/// (`DebugCompilationUnit`'s version 65536, past the bound): the id-bound
/// check must not read them as ids, and they pass through word for word.
#[test]
fn opencl_debug_info_literals_are_not_ids() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/debug-info");
    let input = std::fs::read(dir.join("opencl-debuginfo.spv")).unwrap();
    let debug = module_scope_ext_insts(&input);
    assert_eq!(debug.len(), 3);
    let bound = words_from_bytes(&input).unwrap().0[3];
    assert!(debug.iter().flatten().any(|&w| w >= bound));
    assert!(inspect(&input).unwrap().has_table);
    let tables = ArchTables::embedded();
    for (t, callee) in [("gfx942", "then"), ("gfx950", "else")] {
        let out = specialize(&input, &tables.target(t).unwrap(), &Options::default())
            .unwrap_or_else(|e| panic!("{t}: {e}"));
        let bytes = out.bytes();
        assert_eq!(module_scope_ext_insts(&bytes), debug, "{t}");
        assert_eq!(callees(&bytes).len(), 1, "{t}");
        assert!(
            out.report().functions_removed.iter().all(|f| f != callee),
            "{t}: {:?}",
            out.report().functions_removed
        );
        common::assert_outputs_valid(&[common::Made {
            input: &input,
            output: &bytes,
            what: format!("opencl-debuginfo: {t}"),
        }]);
    }
}
