//! A type of the predicate table that a kept function mentions stays, with
//! what it reads, when nothing else at module scope holds it: the scan
//! watches exactly the table ids whose fate the functions decide, and
//! looks again at every function when what held an unwatched one goes.

mod common;

use common::{Made, bytes, instructions, words};
use rspv_specialize::{ArchTables, Options, specialize};

const OP_TYPE_ARRAY: u32 = 28;
const OP_CONSTANT: u32 = 43;
const OP_UNDEF: u32 = 1;
const OP_FUNCTION: u32 = 54;
const OP_RETURN: u32 = 253;
const OP_ENTRY_POINT: u32 = 15;
const OP_TYPE_INT: u32 = 21;
const OP_FUNCTION_PARAMETER: u32 = 55;
const OP_NAME: u32 = 5;

/// The golden input `golden` with `%new = OpUndef %array` (the table's
/// array type, which only the table's pointer type and initializer read at
/// module scope) before the first `OpReturn` of the function whose id
/// `function_of` finds in its words; returns the module, the array type's
/// id and its length constant's id.
fn table_array_undef_in(golden: &str, function_of: fn(&[u32]) -> u32) -> (Vec<u8>, u32, u32) {
    let input = std::fs::read(common::golden_input(golden)).unwrap();
    let mut w = words(&input);
    let insts = instructions(&w);
    let arrays: Vec<_> = insts.iter().filter(|i| i.1 == OP_TYPE_ARRAY).collect();
    assert_eq!(arrays.len(), 1, "{golden} has one array type");
    let (array, length) = (w[arrays[0].0 + 1], w[arrays[0].0 + 3]);
    let function = function_of(&w);
    let start = insts
        .iter()
        .position(|i| i.1 == OP_FUNCTION && w[i.0 + 2] == function)
        .unwrap();
    let ret = insts[start..].iter().find(|i| i.1 == OP_RETURN).unwrap().0;
    let new = w[3];
    w[3] += 1;
    let mut out = w[..ret].to_vec();
    out.extend_from_slice(&[(3 << 16) | OP_UNDEF, array, new]);
    out.extend_from_slice(&w[ret..]);
    (bytes(&out), array, length)
}

/// dispatch-chain with the table's array type mentioned by its kernel, the
/// entry point ([`table_array_undef_in`]).
fn kernel_mentioning_the_table_array() -> (Vec<u8>, u32, u32) {
    table_array_undef_in("dispatch-chain", |w| {
        let insts = instructions(w);
        let entry = insts.iter().find(|i| i.1 == OP_ENTRY_POINT).unwrap();
        w[entry.0 + 2]
    })
}

/// Checks with spirv-val that every output of `outputs` (target, bytes) of
/// `input` (`what` it is) is valid, and that the input is.
fn assert_outputs_valid(input: &[u8], outputs: &[(&str, Vec<u8>)], what: &str) {
    let made: Vec<Made> = outputs
        .iter()
        .map(|(name, out)| Made {
            input,
            output: out,
            what: format!("{what}, {name}"),
        })
        .collect();
    let checked = common::assert_outputs_valid(&made);
    assert_eq!(checked.input_rejected, 0, "spirv-val rejects the input");
}

#[test]
fn a_table_type_a_kernel_mentions_stays_with_what_it_reads() {
    let (input, array, length) = kernel_mentioning_the_table_array();
    let tables = ArchTables::embedded();
    let mut outputs = Vec::new();
    for name in ["gfx942", "gfx1100", "gfx1201", "tahiti"] {
        let out = specialize(&input, &tables.target(name).unwrap(), &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let w = words(&out.bytes());
        let insts = instructions(&w);
        assert!(
            insts
                .iter()
                .any(|i| i.1 == OP_TYPE_ARRAY && w[i.0 + 1] == array),
            "{name}: the array type %{array} the kernel mentions was removed with the table"
        );
        assert!(
            insts
                .iter()
                .any(|i| i.1 == OP_CONSTANT && w[i.0 + 2] == length),
            "{name}: the array's length %{length} was removed with the table"
        );
        assert!(
            insts.iter().any(|i| i.1 == OP_UNDEF && w[i.0 + 1] == array),
            "{name}: the kernel's OpUndef is gone"
        );
        outputs.push((name, out.bytes()));
    }
    let what = "dispatch-chain with OpUndef of the table's array";
    assert_outputs_valid(&input, &outputs, what);
}

/// The id of the `OpFunction` named `name` in `w`, and its first
/// parameter's id.
fn function_named(w: &[u32], name: &str) -> (u32, u32) {
    let insts = instructions(w);
    let named = insts
        .iter()
        .find(|i| {
            i.1 == OP_NAME
                && bytes(&w[i.0 + 2..i.0 + i.2])
                    .split(|&b| b == 0)
                    .next()
                    .is_some_and(|s| s == name.as_bytes())
        })
        .unwrap_or_else(|| panic!("no OpName {name}"));
    let id = w[named.0 + 1];
    let f = insts
        .iter()
        .position(|i| i.1 == OP_FUNCTION && w[i.0 + 2] == id)
        .unwrap();
    assert_eq!(
        insts[f + 1].1,
        OP_FUNCTION_PARAMETER,
        "{name} has a parameter"
    );
    (id, w[insts[f + 1].0 + 2])
}

/// dispatch-chain where the table's byte type `%uchar` is read at module
/// scope outside the table only by `%p = OpConstant %uchar 7`, whose id is
/// also (invalidly) the first parameter of a function every target
/// removes, and where the kernel mentions `%uchar`
/// (`OpUndef %uchar`); returns the module and `%uchar`'s id.
fn uchar_held_by_a_doubly_defined_constant() -> (Vec<u8>, u32) {
    let input = std::fs::read(common::golden_input("dispatch-chain")).unwrap();
    let w = words(&input);
    let insts = instructions(&w);
    let uchar = insts
        .iter()
        .find(|i| i.1 == OP_TYPE_INT && w[i.0 + 2] == 8)
        .map(|i| w[i.0 + 1])
        .unwrap();
    let (_, param) = function_named(&w, "spirv.llvm_amdgcn_fmul_legacy");
    let entry = insts.iter().find(|i| i.1 == OP_ENTRY_POINT).unwrap();
    let kernel = w[entry.0 + 2];
    let start = insts
        .iter()
        .position(|i| i.1 == OP_FUNCTION && w[i.0 + 2] == kernel)
        .unwrap();
    let ret = insts[start..].iter().find(|i| i.1 == OP_RETURN).unwrap().0;
    let first_function = insts.iter().find(|i| i.1 == OP_FUNCTION).unwrap().0;
    let new = w[3];
    let mut out = w[..first_function].to_vec();
    out[3] += 1;
    out.extend_from_slice(&[(4 << 16) | OP_CONSTANT, uchar, param, 7]);
    out.extend_from_slice(&w[first_function..ret]);
    out.extend_from_slice(&[(3 << 16) | OP_UNDEF, uchar, new]);
    out.extend_from_slice(&w[ret..]);
    (bytes(&out), uchar)
}

#[test]
fn a_table_type_stays_when_what_held_it_goes_with_a_dead_function() {
    let (input, uchar) = uchar_held_by_a_doubly_defined_constant();
    let tables = ArchTables::embedded();
    for name in ["gfx942", "gfx1100", "gfx950"] {
        let out = specialize(&input, &tables.target(name).unwrap(), &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            out.report()
                .functions_removed
                .iter()
                .any(|f| f == "spirv.llvm_amdgcn_fmul_legacy"),
            "{name}: the function whose parameter is the constant's id stays"
        );
        let w = words(&out.bytes());
        let insts = instructions(&w);
        assert!(
            insts.iter().any(|i| i.1 == OP_UNDEF && w[i.0 + 1] == uchar),
            "{name}: the kernel's OpUndef is gone"
        );
        assert!(
            insts
                .iter()
                .any(|i| i.1 == OP_TYPE_INT && w[i.0 + 1] == uchar),
            "{name}: %{uchar}, which the kernel mentions, was removed with the table"
        );
    }
}

/// helper-one-arm with the table's array type mentioned by
/// `gfx950_path`, the helper no predicate reaches (it is not rewritten)
/// that only gfx950 keeps ([`table_array_undef_in`]).
fn helper_mentioning_the_table_array() -> (Vec<u8>, u32, u32) {
    table_array_undef_in("helper-one-arm", |w| function_named(w, "gfx950_path").0)
}

#[test]
fn a_table_type_a_kept_helper_mentions_stays_and_goes_with_it() {
    // The helper is not rewritten, so its mention is the scan's record of
    // the input: the sweep must look at it where the helper stays (gfx950)
    // and may drop the type with the table where the helper goes.
    let (input, array, length) = helper_mentioning_the_table_array();
    let tables = ArchTables::embedded();
    let mut outputs = Vec::new();
    for (name, kept) in [("gfx950", true), ("gfx942", false), ("gfx1100", false)] {
        let out = specialize(&input, &tables.target(name).unwrap(), &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let w = words(&out.bytes());
        let insts = instructions(&w);
        let has = |opcode: u32, at: usize, id: u32| {
            insts.iter().any(|i| i.1 == opcode && w[i.0 + at] == id)
        };
        assert_eq!(
            has(OP_UNDEF, 1, array),
            kept,
            "{name}: the helper's OpUndef"
        );
        assert_eq!(
            has(OP_TYPE_ARRAY, 1, array),
            kept,
            "{name}: the array type %{array}, which only the helper mentions"
        );
        assert_eq!(
            has(OP_CONSTANT, 2, length),
            kept,
            "{name}: the array's length %{length}"
        );
        outputs.push((name, out.bytes()));
    }
    let what = "helper-one-arm with OpUndef of the table's array";
    assert_outputs_valid(&input, &outputs, what);
}
