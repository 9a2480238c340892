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
    m.globals
        .iter()
        .filter(|i| i.opcode == OP_EXT_INST)
        .map(|i| m.inst_words(*i).to_vec())
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
