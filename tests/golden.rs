//! Golden-file tests per architecture.
//!
//! Each `tests/golden/<case>/` holds `input.spv` (built from the source next
//! to it by `tests/golden/build.sh`) and `expected/<target>.spvasm` — the
//! specialized module as `rspv_specialize::disasm` prints it (what
//! `spirv-dis --raw-id --no-indent` prints) — or `expected/<target>.err` for
//! an expected failure. `RSPV_BLESS=1 cargo test --test golden` rewrites
//! the expected files; CI never sets it. Every output is also checked for
//! determinism, for idempotence and for the absence of any predicate or
//! table, and, when the validator in use accepts the input, with `spirv-val`
//! (required when `CI` is set; all outputs in one parallel batch).

mod common;

use std::path::Path;

use pretty_assertions::assert_eq;
use rspv_specialize::{ArchTables, Options, inspect, specialize};

/// The targets every case is specialized for.
const TARGETS: &[&str] = &[
    "gfx906",
    "gfx908",
    "gfx90a",
    "gfx942",
    "gfx950",
    "gfx1030",
    "gfx1100",
    "gfx1151",
    "gfx1201",
    "gfx1250",
    "gfx9-4-generic",
    "gfx11-generic",
];

/// Checks one case against its expected files; returns the input and its
/// outputs, for validation.
fn run_case(dir: &Path, tables: &ArchTables) -> (Vec<u8>, Vec<(&'static str, Vec<u8>)>) {
    let input = std::fs::read(dir.join("input.spv")).unwrap();
    let mut outputs = Vec::new();
    let bless = std::env::var_os("RSPV_BLESS").is_some();
    let expected_dir = dir.join("expected");
    if bless {
        std::fs::create_dir_all(&expected_dir).unwrap();
    }
    for t in TARGETS {
        let target = tables.target(t).unwrap();
        let result = specialize(&input, &target, &Options::default());
        let (text, ext) = match &result {
            Ok(out) => {
                let bytes = out.bytes();
                // Deterministic: same input, same bytes.
                let again = specialize(&input, &target, &Options::default()).unwrap();
                assert_eq!(
                    again.bytes(),
                    bytes,
                    "{}: {t}: not deterministic",
                    dir.display()
                );
                // Idempotent: specializing the output changes nothing.
                let twice = specialize(&bytes, &target, &Options::default()).unwrap();
                assert_eq!(
                    twice.bytes(),
                    bytes,
                    "{}: {t}: not idempotent",
                    dir.display()
                );
                // No predicate or table left.
                let left = inspect(&bytes).unwrap();
                assert!(!left.has_table, "{}: {t}: table left", dir.display());
                let text = common::disassemble(&bytes);
                outputs.push((*t, bytes));
                (text, "spvasm")
            }
            Err(e) => (format!("{e}\n"), "err"),
        };
        let path = expected_dir.join(format!("{t}.{ext}"));
        if bless {
            for stale in ["spvasm", "err"] {
                let _ = std::fs::remove_file(expected_dir.join(format!("{t}.{stale}")));
            }
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
            panic!(
                "{}: missing {} (result was: {}); run RSPV_BLESS=1 cargo test --test golden",
                dir.display(),
                path.display(),
                text.lines().next().unwrap_or("")
            )
        });
        assert_eq!(expected, text, "{}: {t}", dir.display());
    }
    (input, outputs)
}

#[test]
fn golden_cases() {
    let tables = ArchTables::embedded();
    let cases = common::golden_cases("input.spv");
    assert!(cases.len() >= 20, "found only {} golden cases", cases.len());
    let results: Vec<_> = cases.iter().map(|c| run_case(c, tables)).collect();
    let made: Vec<common::Made> = cases
        .iter()
        .zip(&results)
        .flat_map(|(dir, (input, outputs))| {
            outputs.iter().map(move |(t, out)| common::Made {
                input,
                output: out,
                what: format!("{}: {t}", dir.display()),
            })
        })
        .collect();
    common::assert_outputs_valid(&made);
}

/// Structured (Shader) modules are where merge instructions can go wrong:
/// their outputs must be valid for every processor, not only the golden
/// targets.
#[test]
fn structured_cases_are_valid_for_every_processor() {
    let tables = ArchTables::embedded();
    let root = common::repo().join("tests/golden");
    for case in ["structured-glsl", "structured-loops"] {
        let input = std::fs::read(root.join(case).join("input.spv")).unwrap();
        let mut distinct = std::collections::BTreeMap::new();
        for p in tables.processors() {
            let t = tables.target(&p.name).unwrap();
            let out = specialize(&input, &t, &Options::default()).unwrap().bytes();
            distinct.entry(out).or_insert(&p.name);
        }
        assert!(
            distinct.len() >= 3,
            "{case}: only {} distinct outputs",
            distinct.len()
        );
        let made: Vec<common::Made> = distinct
            .iter()
            .map(|(out, p)| common::Made {
                input: &input,
                output: out,
                what: format!("{case}: {p}"),
            })
            .collect();
        common::assert_outputs_valid(&made);
    }
}

/// Module-scope ids of `m` that any instruction other than a name or a
/// decoration reads (result types and id operands), read off rspirv's
/// grammar-typed operands.
fn ids_read(m: &rspirv::dr::Module) -> std::collections::BTreeSet<u32> {
    use rspirv::dr::Operand;
    let mut out = std::collections::BTreeSet::new();
    let mut add = |i: &rspirv::dr::Instruction| {
        out.extend(i.result_type);
        for o in &i.operands {
            if let Operand::IdRef(x) | Operand::IdScope(x) | Operand::IdMemorySemantics(x) = o {
                out.insert(*x);
            }
        }
    };
    m.entry_points
        .iter()
        .chain(&m.execution_modes)
        .chain(&m.types_global_values)
        .for_each(&mut add);
    for f in &m.functions {
        f.def.iter().chain(&f.parameters).for_each(&mut add);
        for b in &f.blocks {
            b.instructions.iter().for_each(&mut add);
        }
    }
    out
}

/// The table variable of `m` and every module-scope id it uses,
/// transitively.
fn table_closure(m: &rspirv::dr::Module) -> std::collections::BTreeSet<u32> {
    use rspirv::dr::Operand;
    let table = m
        .debug_names
        .iter()
        .find_map(|i| match i.operands.as_slice() {
            [Operand::IdRef(id), Operand::LiteralString(s)]
                if s == rspv_specialize::table::TABLE_NAME =>
            {
                Some(*id)
            }
            _ => None,
        });
    let defs: std::collections::BTreeMap<u32, &rspirv::dr::Instruction> = m
        .types_global_values
        .iter()
        .filter_map(|i| i.result_id.map(|id| (id, i)))
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    let mut stack: Vec<u32> = table.into_iter().collect();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Some(i) = defs.get(&id) else { continue };
        stack.extend(i.result_type);
        for o in &i.operands {
            if let Operand::IdRef(x) = o {
                stack.push(*x);
            }
        }
    }
    seen
}

/// The table goes with every type and constant only it used: for every
/// processor, an id of the input's table closure that the output still
/// defines is read by something in the output. (A literal that equals such
/// an id, as `Aligned 32` does, is not a read.)
#[test]
fn nothing_only_the_table_used_is_left_for_any_processor() {
    let tables = ArchTables::embedded();
    let targets: Vec<_> = tables
        .processors()
        .iter()
        .map(|p| tables.target(&p.name).unwrap())
        .collect();
    for dir in common::golden_cases("input.spv") {
        let input = std::fs::read(dir.join("input.spv")).unwrap();
        let closure = table_closure(&rspirv::dr::load_bytes(&input).unwrap());
        if closure.is_empty() {
            continue;
        }
        let outs = rspv_specialize::specialize_many(&input, &targets, &Options::default()).unwrap();
        let mut distinct = std::collections::BTreeSet::new();
        for (t, out) in targets.iter().zip(outs) {
            let Ok(out) = out else { continue };
            if !distinct.insert(out.bytes()) {
                continue;
            }
            let m = rspirv::dr::load_bytes(out.bytes()).unwrap();
            let read = ids_read(&m);
            let orphans: Vec<u32> = m
                .types_global_values
                .iter()
                .filter_map(|i| i.result_id)
                .filter(|id| closure.contains(id) && !read.contains(id))
                .collect();
            assert!(
                orphans.is_empty(),
                "{}: {}: left only-table ids {orphans:?}",
                dir.display(),
                t.id()
            );
        }
    }
}
