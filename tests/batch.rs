//! `specialize_many` gives, for every target, exactly what a one-target run
//! gives: the same bytes, the same report, the same errors.

mod common;

use rspv_specialize::{ArchTables, Options, TargetOptions, specialize, specialize_many};

#[test]
fn batch_equals_one_by_one_on_every_golden_case_and_processor() {
    let tables = ArchTables::embedded();
    let mut targets: Vec<_> = tables
        .processors()
        .iter()
        .map(|p| tables.target(&p.name).unwrap())
        .collect();
    targets.push(tables.target("gfx950:sramecc+:xnack-").unwrap());
    targets.push(
        tables
            .target_with("gfx1100", &TargetOptions { wave64: true })
            .unwrap(),
    );
    let cases: Vec<_> = common::golden_cases("input.spv")
        .into_iter()
        .map(|dir| dir.join("input.spv"))
        .collect();
    assert!(cases.len() >= 20);
    for case in cases {
        let input = std::fs::read(&case).unwrap();
        let many = specialize_many(&input, &targets, &Options::default()).unwrap();
        assert_eq!(many.len(), targets.len());
        for (t, got) in targets.iter().zip(many) {
            let one = specialize(&input, t, &Options::default());
            match (one, got) {
                (Ok(a), Ok(b)) => {
                    assert!(a.bytes() == b.bytes(), "{}: {}", case.display(), t.id());
                    assert_eq!(a.report(), b.report(), "{}: {}", case.display(), t.id());
                }
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                (a, b) => panic!("{}: {}: {a:?} vs {b:?}", case.display(), t.id()),
            }
        }
    }
}

#[test]
fn batch_reports_a_broken_module_once() {
    let tables = ArchTables::embedded();
    let targets = vec![tables.target("gfx950").unwrap()];
    let e = specialize_many(&[0u8; 8], &targets, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("not SPIR-V"), "{e}");
    let short = [0x0723_0203u32.to_le_bytes(), [0; 4]].concat();
    let e = specialize_many(&short, &targets, &Options::default()).unwrap_err();
    assert!(
        e.to_string().contains("fewer than the 5-word header"),
        "{e}"
    );
}
