//! Golden-file tests per architecture.
//!
//! Each `tests/golden/<case>/` holds `input.spv` (built from the source next
//! to it by `tests/golden/build.sh`) and `expected/<target>.spvasm` — the
//! specialized module as rspirv disassembles it — or `expected/<target>.err`
//! for an expected failure. `RSPV_BLESS=1 cargo test --test golden` rewrites
//! the expected files; CI never sets it. Every output is also checked with
//! `spirv-val` (required when `CI` is set), for determinism, for idempotence
//! and for the absence of any predicate or table.

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

fn run_case(dir: &Path, tables: &ArchTables) {
    let input = std::fs::read(dir.join("input.spv")).unwrap();
    let input_valid = common::spirv_val(&input, dir).is_ok();
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
                if input_valid && let Err(e) = common::spirv_val(&bytes, dir) {
                    panic!("{}: {t}: spirv-val rejects the output:\n{e}", dir.display());
                }
                (common::disassemble(&bytes), "spvasm")
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
}

#[test]
fn golden_cases() {
    let tables = ArchTables::embedded();
    let cases = common::golden_cases("input.spv");
    assert!(cases.len() >= 20, "found only {} golden cases", cases.len());
    for case in cases {
        run_case(&case, tables);
    }
}

/// Structured (Shader) modules are where merge instructions can go wrong:
/// their outputs must be valid for every processor, not only the golden
/// targets.
#[test]
fn structured_cases_are_valid_for_every_processor() {
    let tables = ArchTables::embedded();
    let root = common::repo().join("tests/golden");
    for case in ["structured-glsl", "structured-loops"] {
        let dir = root.join(case);
        let input = std::fs::read(dir.join("input.spv")).unwrap();
        common::spirv_val(&input, &dir).expect("input is valid");
        let mut distinct = std::collections::BTreeSet::new();
        for p in tables.processors() {
            let t = tables.target(&p.name).unwrap();
            let out = specialize(&input, &t, &Options::default()).unwrap().bytes();
            if distinct.insert(out.clone()) {
                common::spirv_val(&out, &dir)
                    .unwrap_or_else(|e| panic!("{case}: {}: spirv-val: {e}", p.name));
            }
        }
        assert!(
            distinct.len() >= 3,
            "{case}: only {} distinct outputs",
            distinct.len()
        );
    }
}
