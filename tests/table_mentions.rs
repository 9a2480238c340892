//! A type of the predicate table that a kept function mentions stays, with
//! what it reads, when nothing else at module scope holds it: the scan
//! watches exactly the table ids whose fate the functions decide.

mod common;

use common::Made;
use rspv_specialize::{ArchTables, Options, specialize};

const OP_TYPE_ARRAY: u32 = 28;
const OP_CONSTANT: u32 = 43;
const OP_UNDEF: u32 = 1;
const OP_FUNCTION: u32 = 54;
const OP_RETURN: u32 = 253;
const OP_ENTRY_POINT: u32 = 15;

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The instructions of a module as (word index, opcode, word count).
fn instructions(w: &[u32]) -> Vec<(usize, u32, usize)> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < w.len() {
        let n = (w[i] >> 16) as usize;
        out.push((i, w[i] & 0xffff, n));
        i += n;
    }
    out
}

/// dispatch-chain with `%new = OpUndef %array` (the table's array type,
/// which only the table's pointer type and initializer read at module
/// scope) before the entry point's `OpReturn`; returns the module, the
/// array type's id and its length constant's id.
fn kernel_mentioning_the_table_array() -> (Vec<u8>, u32, u32) {
    let input = std::fs::read(common::golden_input("dispatch-chain")).unwrap();
    let mut w = words(&input);
    let insts = instructions(&w);
    let arrays: Vec<_> = insts.iter().filter(|i| i.1 == OP_TYPE_ARRAY).collect();
    assert_eq!(arrays.len(), 1, "dispatch-chain has one array type");
    let (array, length) = (w[arrays[0].0 + 1], w[arrays[0].0 + 3]);
    let entry = insts.iter().find(|i| i.1 == OP_ENTRY_POINT).unwrap();
    let kernel = w[entry.0 + 2];
    let start = insts
        .iter()
        .position(|i| i.1 == OP_FUNCTION && w[i.0 + 2] == kernel)
        .unwrap();
    let ret = insts[start..].iter().find(|i| i.1 == OP_RETURN).unwrap().0;
    let new = w[3];
    w[3] += 1;
    let mut out = w[..ret].to_vec();
    out.extend_from_slice(&[(3 << 16) | OP_UNDEF, array, new]);
    out.extend_from_slice(&w[ret..]);
    (bytes(&out), array, length)
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
    let made: Vec<Made> = outputs
        .iter()
        .map(|(name, out)| Made {
            input: &input,
            output: out,
            what: format!("dispatch-chain with OpUndef of the table's array, {name}"),
        })
        .collect();
    let checked = common::assert_outputs_valid(&made);
    assert_eq!(checked.input_rejected, 0, "spirv-val rejects the input");
}
