//! The parameters of `OpExecutionModeId` and `OpDecorateId` are ids: a
//! constant the table shares with them (`LocalSizeId %uint_92 …` naming the
//! table's length) stays, and one past the header's bound is an error naming
//! its byte offset. An `OpDecorateId` of a predicate site, or naming one, is
//! an unresolved use; a literal word equal to a site's id is no use.

mod common;

use common::{Made, bytes, instructions, words};
use rspv_specialize::{ArchTables, Options, specialize};

const OP_ENTRY_POINT: u32 = 15;
const OP_TYPE_ARRAY: u32 = 28;
const OP_CONSTANT: u32 = 43;
const OP_EXECUTION_MODE_ID: u32 = 331;
const LOCAL_SIZE_ID: u32 = 38;

/// dispatch-chain with `OpExecutionModeId %entry LocalSizeId %x %y %z`
/// after its entry point; returns the module and the table's length id.
fn with_local_size_id(ids: Option<[u32; 3]>) -> (Vec<u8>, u32) {
    let input = std::fs::read(common::golden_input("dispatch-chain")).unwrap();
    let w = words(&input);
    let insts = instructions(&w);
    let arrays: Vec<_> = insts.iter().filter(|i| i.1 == OP_TYPE_ARRAY).collect();
    assert_eq!(
        arrays.len(),
        1,
        "dispatch-chain has one array type, the table's"
    );
    let length = w[arrays[0].0 + 3];
    let entry = insts.iter().rfind(|i| i.1 == OP_ENTRY_POINT).unwrap();
    let [x, y, z] = ids.unwrap_or([length; 3]);
    let mode = [
        (6 << 16) | OP_EXECUTION_MODE_ID,
        w[entry.0 + 2],
        LOCAL_SIZE_ID,
        x,
        y,
        z,
    ];
    let at = entry.0 + entry.2;
    let mut out = w[..at].to_vec();
    out.extend_from_slice(&mode);
    out.extend_from_slice(&w[at..]);
    (bytes(&out), length)
}

#[test]
fn a_constant_the_table_shares_with_local_size_id_stays() {
    let (input, length) = with_local_size_id(None);
    let tables = ArchTables::embedded();
    let mut outputs = Vec::new();
    for name in ["gfx942", "gfx1100", "gfx1201", "tahiti"] {
        let out = specialize(&input, &tables.target(name).unwrap(), &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(out.report().table_removed, "{name}: the table stays");
        let w = words(&out.bytes());
        let insts = instructions(&w);
        assert!(
            insts
                .iter()
                .any(|i| i.1 == OP_CONSTANT && w[i.0 + 2] == length),
            "{name}: the constant %{length} OpExecutionModeId reads was removed with the table"
        );
        assert!(
            insts.iter().all(|i| i.1 != OP_TYPE_ARRAY),
            "{name}: the table's array type stays"
        );
        assert!(
            insts
                .iter()
                .any(|i| i.1 == OP_EXECUTION_MODE_ID && w[i.0 + 3] == length),
            "{name}: OpExecutionModeId is gone"
        );
        outputs.push((name, out.bytes()));
    }
    let made: Vec<Made> = outputs
        .iter()
        .map(|(name, out)| Made {
            input: &input,
            output: out,
            what: format!("dispatch-chain with LocalSizeId, {name}"),
        })
        .collect();
    common::assert_outputs_valid(&made);
}

#[test]
fn an_execution_mode_id_past_the_bound_is_an_error() {
    let (input, _) = with_local_size_id(Some([1, 0xFFFF_0011, 1]));
    let at = instructions(&words(&input))
        .into_iter()
        .find(|i| i.1 == OP_EXECUTION_MODE_ID)
        .unwrap()
        .0;
    let tables = ArchTables::embedded();
    let Err(e) = specialize(
        &input,
        &tables.target("gfx942").unwrap(),
        &Options::default(),
    ) else {
        panic!("an id past the bound is accepted");
    };
    assert_eq!(
        e.to_string().split(": id").next().unwrap(),
        format!("byte {}", (at + 4) * 4),
        "{e}"
    );
    assert!(e.to_string().contains("4294901777"), "{e}");
    assert!(e.to_string().contains("OpExecutionModeId"), "{e}");
    let Err(e) = rspv_specialize::inspect(&input) else {
        panic!("inspect accepts an id past the bound");
    };
    assert!(
        e.to_string().starts_with(&format!("byte {}", (at + 4) * 4)),
        "{e}"
    );
}

const OP_TYPE_INT: u32 = 21;
const OP_DECORATE: u32 = 71;
const OP_DECORATE_ID: u32 = 332;
const OP_SPEC_CONSTANT_FALSE: u32 = 49;
const ALIGNMENT_ID: u32 = 46;

/// dispatch-chain's words, its predicate sites and its constants of the
/// 32-bit integer type (`(word index, id)`; not the table's characters).
fn dispatch_chain_parts() -> (Vec<u32>, Vec<u32>, Vec<(usize, u32)>) {
    let input = std::fs::read(common::golden_input("dispatch-chain")).unwrap();
    let w = words(&input);
    let insts = instructions(&w);
    let sites = (insts.iter())
        .filter(|i| i.1 == OP_SPEC_CONSTANT_FALSE)
        .map(|i| w[i.0 + 2])
        .collect();
    let uint = (insts.iter())
        .find(|i| i.1 == OP_TYPE_INT && w[i.0 + 2] == 32)
        .map(|i| w[i.0 + 1])
        .unwrap();
    let constants = (insts.iter())
        .filter(|i| i.1 == OP_CONSTANT && w[i.0 + 1] == uint)
        .map(|i| (i.0, w[i.0 + 2]))
        .collect();
    (w, sites, constants)
}

#[test]
fn a_decorate_id_on_or_of_a_predicate_site_is_an_unresolved_use() {
    let (w, sites, constants) = dispatch_chain_parts();
    let (site, c) = (sites[0], constants[0].1);
    let last_decoration = instructions(&w)
        .into_iter()
        .filter(|i| i.1 == OP_DECORATE)
        .map(|i| i.0 + i.2)
        .max()
        .unwrap();
    let tables = ArchTables::embedded();
    for (target, operand) in [(site, c), (c, site)] {
        let mut m = w[..last_decoration].to_vec();
        m.extend([(4 << 16) | OP_DECORATE_ID, target, ALIGNMENT_ID, operand]);
        m.extend_from_slice(&w[last_decoration..]);
        // (SPIRV-Tools 2023.1 accepts both forms; 2025.5 rejects the
        // second, whose parameter, the site, is defined after its target.
        // The pass reports the use either way.)
        let input = bytes(&m);
        let what = format!("OpDecorateId %{target} AlignmentId %{operand}");
        for name in ["gfx942", "gfx950", "gfx1100"] {
            let Err(e) = specialize(&input, &tables.target(name).unwrap(), &Options::default())
            else {
                panic!("{what}, {name}: specialized");
            };
            let msg = e.to_string();
            for want in [
                "unresolved use".to_string(),
                format!("(byte {})", last_decoration * 4),
                format!("`OpDecorateId %{target} {ALIGNMENT_ID} %{operand}`"),
            ] {
                assert!(msg.contains(&want), "{what}, {name}: no `{want}` in: {msg}");
            }
        }
    }
}

#[test]
fn a_literal_equal_to_a_predicate_site_is_left_alone() {
    let (w, sites, constants) = dispatch_chain_parts();
    let tables = ArchTables::embedded();
    let mut outputs = Vec::new();
    // (Constants the table alone reads go with it; the others must stay,
    // word for word: some do.)
    let mut kept_somewhere = 0;
    for &(at, id) in &constants {
        let mut m = w.clone();
        m[at + 3] = sites[0];
        let input = bytes(&m);
        for name in ["gfx942", "gfx950"] {
            let out = specialize(&input, &tables.target(name).unwrap(), &Options::default())
                .unwrap_or_else(|e| panic!("%{id} = {}, {name}: {e}", sites[0]));
            let out = out.bytes();
            let ow = words(&out);
            let kept = instructions(&ow)
                .into_iter()
                .find(|i| i.1 == OP_CONSTANT && ow[i.0 + 2] == id);
            if let Some(i) = kept {
                assert_eq!(ow[i.0..i.0 + 4], m[at..at + 4], "%{id}, {name}");
                kept_somewhere += 1;
            }
            outputs.push((input.clone(), out, format!("%{id} = {}, {name}", sites[0])));
        }
    }
    assert!(
        kept_somewhere > 0,
        "no constant with a site's id as its literal was kept"
    );
    let made: Vec<Made> = (outputs.iter())
        .map(|(input, output, what)| Made {
            input,
            output,
            what: what.clone(),
        })
        .collect();
    common::assert_outputs_valid(&made);
}
