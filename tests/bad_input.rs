//! Malformed input: every case is an `Err` whose message names the problem
//! and its byte offset, never a panic; the CLI reports each as `error: …`
//! with a non-zero exit.
//!
//! Binary defects are made by editing a real golden module's words. Table
//! defects are made both by editing the golden table of
//! `tests/golden/direct-branch` and by assembling small modules with
//! `rspirv::dr::Builder` (see `asm::table_module`).

mod asm;
mod common;

use std::collections::HashMap;

use asm::{Elem, TABLE, table_module, text};
use rspv_specialize::module::{Endian, bytes_from_words, words_from_bytes};
use rspv_specialize::{ArchTables, Error, Options, inspect, specialize};
use spirv::{Decoration, Op};

fn golden_words(case: &str) -> Vec<u32> {
    let bytes = std::fs::read(common::golden_input(case)).unwrap();
    words_from_bytes(&bytes).unwrap().0
}

fn le(words: &[u32]) -> Vec<u8> {
    bytes_from_words(words, Endian::Little)
}

/// `(word index, opcode, word count)` of every instruction after the header.
fn insts(words: &[u32]) -> Vec<(usize, u16, usize)> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let len = (words[at] >> 16) as usize;
        out.push((at, (words[at] & 0xffff) as u16, len));
        at += len.max(1);
    }
    out
}

/// Word index of the instruction with this opcode and result id (at word 2).
fn find_def(words: &[u32], op: Op, id: u32) -> usize {
    insts(words)
        .into_iter()
        .find(|&(at, o, len)| o == op as u16 && len > 2 && words[at + 2] == id)
        .unwrap_or_else(|| panic!("no {op:?} defining %{id}"))
        .0
}

/// Decodes a literal string of whole words.
fn string_at(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Where a module's table lives: the variable's and the initializer's word
/// index, and the `OpConstant %uchar v` ids by value.
struct TableLoc {
    var_at: usize,
    init_at: usize,
    byte_consts: HashMap<u32, u32>,
    null_byte: Option<u32>,
}

fn locate_table(words: &[u32]) -> TableLoc {
    let all = insts(words);
    let var = all
        .iter()
        .find(|&&(at, o, _)| {
            o == Op::Name as u16 && string_at(&words[at + 2..at + all_len(words, at)]) == TABLE
        })
        .map(|&(at, _, _)| words[at + 1])
        .expect("table OpName");
    let var_at = find_def(words, Op::Variable, var);
    let init_at = find_def(words, Op::ConstantComposite, words[var_at + 4]);
    let uchar = all
        .iter()
        .find(|&&(at, o, _)| o == Op::TypeInt as u16 && words[at + 2] == 8)
        .map(|&(at, _, _)| words[at + 1])
        .expect("OpTypeInt 8");
    let mut byte_consts = HashMap::new();
    let mut null_byte = None;
    for &(at, o, len) in &all {
        if o == Op::Constant as u16 && len == 4 && words[at + 1] == uchar {
            byte_consts.insert(words[at + 3], words[at + 2]);
        }
        if o == Op::ConstantNull as u16 && words[at + 1] == uchar {
            null_byte = Some(words[at + 2]);
        }
    }
    TableLoc {
        var_at,
        init_at,
        byte_consts,
        null_byte,
    }
}

fn all_len(words: &[u32], at: usize) -> usize {
    (words[at] >> 16) as usize
}

/// Expects a binary error at `offset` whose message contains `what`.
fn expect_binary(bytes: &[u8], offset: usize, what: &str) -> String {
    match inspect(bytes) {
        Err(e @ Error::Binary { .. }) => {
            let msg = e.to_string();
            let Error::Binary { offset: at, .. } = e else {
                unreachable!()
            };
            assert_eq!(at, offset, "{msg}");
            assert!(msg.contains(&format!("byte {offset}")), "{msg}");
            assert!(msg.contains(what), "expected `{what}` in: {msg}");
            msg
        }
        other => panic!("expected a binary error `{what}`, got {other:?}"),
    }
}

/// Expects a table error at `offset` whose message contains `what`.
fn expect_table(words: &[u32], offset: usize, what: &str) -> String {
    match inspect(&le(words)) {
        Err(e @ Error::Table { .. }) => {
            let msg = e.to_string();
            let Error::Table { offset: at, .. } = e else {
                unreachable!()
            };
            assert_eq!(at, offset, "{msg}");
            assert!(msg.contains(&format!("byte {offset}")), "{msg}");
            assert!(msg.contains(what), "expected `{what}` in: {msg}");
            msg
        }
        other => panic!("expected a table error `{what}`, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Binary defects.

#[test]
fn length_not_a_multiple_of_four() {
    let mut bytes = le(&golden_words("direct-branch"));
    let n = bytes.len();
    for _ in 1..4 {
        bytes.push(0);
        expect_binary(&bytes, n, "not a multiple of 4");
    }
}

#[test]
fn fewer_than_five_words() {
    let bytes = le(&golden_words("direct-branch"));
    for n in [0, 4, 16] {
        expect_binary(&bytes[..n], 0, "fewer than the 5-word header");
    }
}

#[test]
fn bad_magic() {
    let mut w = golden_words("direct-branch");
    w[0] = 0xdead_beef;
    expect_binary(&le(&w), 0, "bad magic");
}

#[test]
fn schema_not_zero() {
    let mut w = golden_words("direct-branch");
    w[4] = 1;
    expect_binary(&le(&w), 16, "schema");
}

#[test]
fn word_count_zero() {
    let w0 = golden_words("direct-branch");
    // At the first instruction, at the table's initializer, and inside a function.
    let loc = locate_table(&w0);
    let in_function = insts(&w0)
        .into_iter()
        .find(|&(_, o, _)| o == Op::Label as u16)
        .unwrap()
        .0;
    for at in [5, loc.init_at, in_function] {
        let mut w = w0.clone();
        w[at] &= 0xffff;
        expect_binary(&le(&w), at * 4, "word count 0");
    }
}

#[test]
fn instruction_running_past_the_end() {
    let w0 = golden_words("direct-branch");
    // The last instruction (OpFunctionEnd) claims more words than remain.
    let last = w0.len() - 1;
    let mut w = w0.clone();
    w[last] = (w[last] & 0xffff) | (3 << 16);
    expect_binary(&le(&w), last * 4, "claims 3 words but only 1 remain");
    // Cut in the middle of an instruction.
    let (at, _, len) = insts(&w0)
        .into_iter()
        .find(|&(_, _, len)| len >= 4)
        .unwrap();
    let cut = &w0[..at + len - 1];
    expect_binary(&le(cut), at * 4, "only");
}

#[test]
fn literal_string_without_nul() {
    let mut w = golden_words("direct-branch");
    // An OpName whose string fits one word: fill its NUL padding.
    let (at, _, _) = insts(&w)
        .into_iter()
        .find(|&(at, o, len)| o == Op::Name as u16 && len == 3 && w[at + 2] >> 24 == 0)
        .expect("a one-word OpName");
    let mut bytes = w[at + 2].to_le_bytes();
    for b in &mut bytes {
        if *b == 0 {
            *b = b'x';
        }
    }
    w[at + 2] = u32::from_le_bytes(bytes);
    expect_binary(&le(&w), (at + 2) * 4, "no terminating NUL");
}

#[test]
fn id_at_or_above_the_bound() {
    let w0 = golden_words("direct-branch");
    for bound in [1, 10, 40] {
        let mut w = w0.clone();
        w[3] = bound;
        let msg = match inspect(&le(&w)) {
            Err(e @ Error::Binary { .. }) => e.to_string(),
            other => panic!("bound {bound}: expected a binary error, got {other:?}"),
        };
        assert!(
            msg.contains(&format!("the header's bound is {bound}")),
            "{msg}"
        );
        // The offset named is the word holding the offending id.
        let offset: usize = msg
            .strip_prefix("byte ")
            .and_then(|s| s.split(':').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no offset in {msg}"));
        assert_eq!(offset % 4, 0, "{msg}");
        let id = w[offset / 4];
        assert!(id >= bound, "{msg}: word {} is {id}", offset / 4);
        assert!(msg.contains(&format!("id {id} is out of range")), "{msg}");
    }
}

/// Expects `specialize` for gfx942 to fail with a binary error at `offset`
/// whose message contains every one of `what`.
fn expect_specialize_binary(bytes: &[u8], offset: usize, what: &[&str]) {
    let tables = ArchTables::embedded();
    let target = tables.target("gfx942").unwrap();
    match specialize(bytes, &target, &Options::default()) {
        Err(e @ Error::Binary { .. }) => {
            let msg = e.to_string();
            let Error::Binary { offset: at, .. } = e else {
                unreachable!()
            };
            assert_eq!(at, offset, "{msg}");
            for w in what {
                assert!(msg.contains(w), "expected `{w}` in: {msg}");
            }
        }
        other => panic!("expected a binary error {what:?}, got {other:?}"),
    }
}

/// An id operand at or past the bound (or 0) anywhere at module scope is an
/// error of `inspect` and `specialize` naming the word's byte offset, the
/// id, the bound and the instruction; in a function a predicate reaches,
/// `specialize` names it the same way (`inspect` reads no function).
#[test]
fn operand_ids_at_or_past_the_bound() {
    let w0 = golden_words("dispatch-chain");
    let bound = w0[3];
    let all = insts(&w0);
    let first = |op: Op, from: usize| {
        all.iter()
            .find(|&&(at, o, _)| o == op as u16 && at >= from)
            .unwrap_or_else(|| panic!("no {op:?}"))
            .0
    };
    let entry = first(Op::EntryPoint, 0);
    let module_scope = [
        (Op::ExecutionMode, first(Op::ExecutionMode, 0), 1),
        (Op::EntryPoint, entry, all_len(&w0, entry) - 1),
        (Op::Name, first(Op::Name, 0), 1),
        (Op::Decorate, first(Op::Decorate, 0), 1),
        (Op::TypePointer, first(Op::TypePointer, 0), 3),
        (Op::TypeFunction, first(Op::TypeFunction, 0), 2),
        (Op::Constant, first(Op::Constant, 0), 1),
        (Op::Variable, locate_table(&w0).var_at, 4),
    ];
    // The kernel is the last function: the predicates reach it.
    let kernel = all
        .iter()
        .rev()
        .find(|&&(_, o, _)| o == Op::Function as u16)
        .unwrap()
        .0;
    let call = first(Op::FunctionCall, kernel);
    let in_kernel = [
        (Op::Load, first(Op::Load, kernel), 3),
        (Op::Store, first(Op::Store, kernel), 2),
        (Op::FunctionCall, call, 3),
        (Op::FunctionCall, call, 4),
        (Op::FunctionCall, call, 1),
        (Op::Phi, first(Op::Phi, kernel), 3),
    ];
    for value in [0xffff_0011, bound, 0] {
        for (scope, cases) in [("module", &module_scope[..]), ("kernel", &in_kernel[..])] {
            for &(op, at, pos) in cases {
                let mut w = w0.clone();
                w[at + pos] = value;
                let bytes = le(&w);
                let offset = (at + pos) * 4;
                let what = [
                    format!("byte {offset}: id {value} is out of range"),
                    format!("the header's bound is {bound}"),
                    format!("word {pos} of Op{op:?} at byte {}", at * 4),
                ];
                let what: Vec<&str> = what.iter().map(String::as_str).collect();
                if scope == "module" {
                    let msg = expect_binary(&bytes, offset, what[0]);
                    for w in &what {
                        assert!(msg.contains(w), "expected `{w}` in: {msg}");
                    }
                }
                expect_specialize_binary(&bytes, offset, &what);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Table defects, by editing the golden table of direct-branch
// ("has.mai-insts 0\0").

#[test]
fn golden_table_edits() {
    let w0 = golden_words("direct-branch");
    let loc = locate_table(&w0);
    let var_off = loc.var_at * 4;
    let init_off = loc.init_at * 4;
    let elem = |k: usize| loc.init_at + 3 + k;
    let byte = |c: u8| loc.byte_consts[&u32::from(c)];
    let n = all_len(&w0, loc.init_at) - 3;
    assert_eq!(n, 16);
    // The unedited table reads.
    let t = inspect(&le(&w0)).unwrap();
    assert_eq!(t.predicates[0].name, "has.mai-insts");

    // Non-integer SpecId: "has.mai-insts a".
    let mut w = w0.clone();
    w[elem(14)] = byte(b'a');
    expect_table(&w, var_off, "SpecId `a` is not a decimal integer");

    // Missing final NUL: the last byte becomes '0'.
    let mut w = w0.clone();
    w[elem(15)] = byte(b'0');
    expect_table(&w, var_off, "last byte is not NUL");

    // A NUL in the middle leaves an entry without a SpecId.
    let mut w = w0.clone();
    w[elem(13)] = loc.null_byte.unwrap();
    expect_table(&w, var_off, "no space before its SpecId");

    // Neither is. nor has.: "mas.mai-insts 0".
    let mut w = w0.clone();
    w[elem(0)] = byte(b'm');
    expect_table(&w, var_off, "neither `is.` nor `has.`");

    // An element that is a 32-bit constant (%uint_16).
    let uint16 = insts(&w0)
        .into_iter()
        .find(|&(at, o, len)| o == Op::Constant as u16 && len == 4 && w0[at + 3] == 16)
        .map(|(at, _, _)| w0[at + 2])
        .unwrap();
    let mut w = w0.clone();
    w[elem(3)] = uint16;
    let msg = expect_table(&w, init_off, "element 3");
    assert!(msg.contains("has another type"), "{msg}");
    assert!(msg.contains("8-bit OpConstant"), "{msg}");

    // An element that is not defined at module scope (a function parameter).
    let param = insts(&w0)
        .into_iter()
        .find(|&(_, o, _)| o == Op::FunctionParameter as u16)
        .map(|(at, _, _)| w0[at + 2])
        .unwrap();
    let mut w = w0.clone();
    w[elem(5)] = param;
    expect_table(&w, init_off, "not defined at module scope");
}

// ---------------------------------------------------------------------------
// Table defects, by assembling small modules.

fn offsets(words: &[u32]) -> (usize, usize) {
    let loc = locate_table(words);
    (loc.var_at * 4, loc.init_at * 4)
}

#[test]
fn assembled_tables_read_when_well_formed() {
    let w = table_module(&text(b"is.gfx950 1\0has.mai-insts 0\0"), &[0, 1, 1], false);
    let t = inspect(&le(&w)).unwrap();
    let got: Vec<(&str, u32, usize)> = t
        .predicates
        .iter()
        .map(|p| (p.name.as_str(), p.spec_id, p.sites.len()))
        .collect();
    assert_eq!(got, [("is.gfx950", 1, 2), ("has.mai-insts", 0, 1)]);
    // Zero bytes as `OpConstant %uchar 0` read the same.
    let mut elems = text(b"is.gfx950 1\0has.mai-insts 0\0");
    for e in &mut elems {
        if matches!(e, Elem::Null) {
            *e = Elem::Byte(0);
        }
    }
    let t2 = inspect(&le(&table_module(&elems, &[0, 1, 1], false))).unwrap();
    assert_eq!(t.predicates, t2.predicates);
}

#[test]
fn non_integer_spec_id() {
    for (table, bad) in [
        (&b"is.gfx950 x\0"[..], "`x`"),
        (b"is.gfx950 1.5\0", "`1.5`"),
        (b"is.gfx950 -1\0", "`-1`"),
        (b"is.gfx950 \0", "``"),
        (b"is.gfx950 0x10\0", "`0x10`"),
    ] {
        let w = table_module(&text(table), &[0], false);
        let msg = expect_table(&w, offsets(&w).0, "is not a decimal integer");
        assert!(msg.contains(bad), "{msg}");
    }
}

#[test]
fn spec_id_out_of_range() {
    for table in [
        &b"is.gfx950 4294967296\0"[..],
        b"has. 99999999999999999999\0",
    ] {
        let w = table_module(&text(table), &[0], false);
        expect_table(&w, offsets(&w).0, "out of range");
    }
    // u32::MAX itself is a valid SpecId.
    let w = table_module(&text(b"is.gfx950 4294967295\0"), &[u32::MAX], false);
    let t = inspect(&le(&w)).unwrap();
    assert_eq!(t.predicates[0].spec_id, u32::MAX);
    assert_eq!(t.predicates[0].sites.len(), 1);
}

#[test]
fn missing_final_nul() {
    let w = table_module(&text(b"is.gfx950 0\0has. 1"), &[0, 1], false);
    expect_table(&w, offsets(&w).0, "last byte is not NUL");
}

#[test]
fn same_name_with_two_spec_ids() {
    let w = table_module(
        &text(b"is.gfx950 0\0has. 1\0is.gfx950 2\0"),
        &[0, 1, 2],
        false,
    );
    let msg = expect_table(&w, offsets(&w).0, "`is.gfx950` already has SpecId 0");
    assert!(msg.contains("entry 2"), "{msg}");
}

#[test]
fn one_spec_id_with_two_names() {
    let w = table_module(&text(b"is.gfx950 0\0has.mai-insts 0\0"), &[0], false);
    expect_table(&w, offsets(&w).0, "SpecId 0 already names `is.gfx950`");
}

#[test]
fn element_not_an_eight_bit_constant() {
    let mut elems = text(b"is.gfx950 0\0");
    let cases = [
        (Elem::Wide(0x169), "is not an 8-bit value"),
        (Elem::Int32(0x69), "has another type"),
        (Elem::Spec(0x69), "is not a constant"),
    ];
    for (e, what) in cases {
        elems[1] = e;
        let w = table_module(&elems, &[0], false);
        let msg = expect_table(&w, offsets(&w).1, what);
        assert!(msg.contains("element 1"), "{msg}");
    }
}

#[test]
fn name_neither_is_nor_has() {
    for table in [
        &b"gfx950 0\0"[..],
        b"IS.gfx950 0\0",
        b"has 0\0",
        b"processor_is.gfx950 0\0",
    ] {
        let w = table_module(&text(table), &[0], false);
        expect_table(&w, offsets(&w).0, "neither `is.` nor `has.`");
    }
}

#[test]
fn spec_id_on_a_non_boolean() {
    let w = table_module(&text(b"is.gfx950 0\0"), &[0], true);
    let dec = insts(&w)
        .into_iter()
        .rev()
        .find(|&(at, o, _)| o == Op::Decorate as u16 && w[at + 2] == Decoration::SpecId as u32)
        .unwrap()
        .0;
    expect_table(&w, dec * 4, "not a boolean OpSpecConstantTrue/False");
}

// ---------------------------------------------------------------------------
// No panics on arbitrary damage.

/// Every prefix, and every word replaced by a few hostile values: `inspect`
/// returns (Ok or Err) and never panics.
#[test]
fn damaged_modules_never_panic() {
    for case in ["direct-branch", "alias-and-or", "multi-callsite"] {
        let w0 = golden_words(case);
        let bytes = le(&w0);
        for n in 0..bytes.len() {
            let _ = inspect(&bytes[..n]);
        }
        for i in 0..w0.len() {
            let op = w0[i] & 0xffff;
            let count = w0[i] >> 16;
            for v in [
                0,
                1,
                u32::MAX,
                w0[i] ^ 1,
                w0[i].wrapping_add(1 << 16),
                (count.saturating_sub(1) << 16) | op,
                0xffff_0000 | op,
                w0[3],
                w0[3] - 1,
            ] {
                let mut w = w0.clone();
                w[i] = v;
                let r = std::panic::catch_unwind(|| inspect(&le(&w)));
                assert!(r.is_ok(), "{case}: word {i} = {v:#x} panicked");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The CLI on every bad input.

/// `(name, bytes)` of one instance of every defect above.
fn bad_inputs() -> Vec<(String, Vec<u8>)> {
    let w0 = golden_words("direct-branch");
    let bytes0 = le(&w0);
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let mut add = |name: &str, bytes: Vec<u8>| out.push((name.to_string(), bytes));
    add("misaligned", [&bytes0[..], &[0]].concat());
    add("short", bytes0[..16].to_vec());
    add("empty", Vec::new());
    let edit = |at: usize, v: u32| {
        let mut w = w0.clone();
        w[at] = v;
        le(&w)
    };
    add("magic", edit(0, 0xdead_beef));
    add("schema", edit(4, 1));
    add("wordcount0", edit(5, w0[5] & 0xffff));
    let last = w0.len() - 1;
    add("overrun", edit(last, (w0[last] & 0xffff) | (3 << 16)));
    add("bound", edit(3, 10));
    let name_at = insts(&w0)
        .into_iter()
        .find(|&(at, o, len)| o == Op::Name as u16 && len == 3 && w0[at + 2] >> 24 == 0)
        .unwrap()
        .0;
    add("no-nul", edit(name_at + 2, u32::from_le_bytes(*b"outx")));
    let loc = locate_table(&w0);
    add(
        "golden-specid",
        edit(loc.init_at + 3 + 14, loc.byte_consts[&u32::from(b'a')]),
    );
    for (name, w) in [
        (
            "table-x",
            table_module(&text(b"is.gfx950 x\0"), &[0], false),
        ),
        (
            "table-range",
            table_module(&text(b"is.gfx950 4294967296\0"), &[0], false),
        ),
        (
            "table-nul",
            table_module(&text(b"is.gfx950 0"), &[0], false),
        ),
        (
            "table-dup-name",
            table_module(&text(b"is.a 0\0is.a 1\0"), &[0, 1], false),
        ),
        (
            "table-dup-id",
            table_module(&text(b"is.a 0\0is.b 0\0"), &[0], false),
        ),
        ("table-wide", {
            let mut e = text(b"is.a 0\0");
            e[0] = Elem::Wide(300);
            table_module(&e, &[0], false)
        }),
        (
            "table-prefix",
            table_module(&text(b"gfx950 0\0"), &[0], false),
        ),
        ("table-sites", table_module(&text(b"is.a 0\0"), &[0], true)),
    ] {
        add(name, le(&w));
    }
    out
}

#[test]
fn every_bad_input_is_an_error_naming_a_byte_offset() {
    let inputs = bad_inputs();
    assert!(inputs.len() >= 18);
    for (name, bytes) in &inputs {
        match inspect(bytes) {
            Ok(t) => panic!("{name}: accepted: {t:?}"),
            Err(e) => assert!(e.to_string().contains("byte "), "{name}: {e}"),
        }
    }
}

#[cfg(feature = "cli")]
#[test]
fn cli_reports_every_bad_input() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bad_input");
    std::fs::create_dir_all(&dir).unwrap();
    let inputs = bad_inputs();
    assert!(inputs.len() >= 18);
    for (name, bytes) in &inputs {
        // The library says no.
        assert!(inspect(bytes).is_err(), "{name}: library accepted it");
        let path = dir.join(format!("{name}.spv"));
        std::fs::write(&path, bytes).unwrap();
        let p = path.display().to_string();
        for args in [
            vec!["inspect", p.as_str()],
            vec![
                "inspect",
                "--format",
                "json",
                "--target",
                "gfx950",
                p.as_str(),
            ],
            vec!["inspect", "--all-targets", p.as_str()],
        ] {
            let out = common::run_cli(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{name} {args:?}: {stderr}");
            assert!(stderr.starts_with("error: "), "{name}: {stderr}");
            assert!(stderr.contains(&p), "{name}: path not named: {stderr}");
            assert!(stderr.contains("byte "), "{name}: no offset: {stderr}");
            assert!(!stderr.contains("panicked"), "{name}: {stderr}");
            assert!(out.stdout.is_empty(), "{name}: wrote to stdout");
        }
        // The same through stdin.
        let (out, written) = common::run_cli_piped(&["inspect", "-"], bytes.clone());
        written.unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name} (stdin): {stderr}");
        assert!(stderr.starts_with("error: <stdin>: "), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
}

/// `w` with `OpDecorate %target SpecId spec` added after its last
/// decoration, for each pair in order; the byte offsets of the added ones.
fn with_spec_ids(w: &[u32], added: &[(u32, u32)]) -> (Vec<u32>, Vec<usize>) {
    let last = insts(w)
        .into_iter()
        .filter(|&(_, o, _)| o == Op::Decorate as u16)
        .map(|(at, _, len)| at + len)
        .max()
        .unwrap();
    let mut out = w[..last].to_vec();
    let mut offsets = Vec::new();
    for &(target, spec) in added {
        offsets.push(out.len() * 4);
        out.extend([
            (4 << 16) | Op::Decorate as u32,
            target,
            Decoration::SpecId as u32,
            spec,
        ]);
    }
    out.extend_from_slice(&w[last..]);
    (out, offsets)
}

#[test]
fn spec_constant_with_two_table_spec_ids() {
    let w = table_module(&text(b"is.gfx950 0\0has. 1\0"), &[0, 1], false);
    let sites: Vec<u32> = insts(&w)
        .into_iter()
        .filter(|&(_, o, _)| o == Op::SpecConstantFalse as u16)
        .map(|(at, _, _)| w[at + 2])
        .collect();
    let (a, b) = (sites[0], sites[1]);
    // The same SpecId again says nothing new: still one site each.
    let (same, _) = with_spec_ids(&w, &[(a, 0), (b, 1)]);
    let t = inspect(&le(&same)).unwrap();
    assert_eq!(t.predicates[0].sites, [a]);
    assert_eq!(t.predicates[1].sites, [b]);
    // Another SpecId of the table is an error at that decoration.
    let (two, at) = with_spec_ids(&w, &[(a, 1)]);
    let msg = expect_table(&two, at[0], "has two SpecIds of the table");
    assert!(
        msg.contains(&format!("%{a} has two SpecIds of the table: 0 and 1")),
        "{msg}"
    );
    // Also after a harmless repeat, for a site first seen before it.
    let (late, at) = with_spec_ids(&w, &[(a, 0), (b, 0)]);
    let msg = expect_table(&late, at[1], "has two SpecIds of the table");
    assert!(
        msg.contains(&format!("%{b} has two SpecIds of the table: 1 and 0")),
        "{msg}"
    );
}
