//! Modules without a predicate table come out byte-identical, and the byte
//! order of the input is kept.

mod common;

use common::{spv_files, swap_words};
use rspv_specialize::{ArchTables, Options, specialize};

#[test]
fn real_compiler_modules_without_a_table_are_byte_identical() {
    let tables = ArchTables::embedded();
    let files = spv_files(&common::repo().join("tests/corpus"));
    assert!(files.len() >= 10, "found {} corpus modules", files.len());
    for target in ["gfx950", "gfx1100", "gfx9-4-generic"] {
        let t = tables.target(target).unwrap();
        for f in &files {
            let input = std::fs::read(f).unwrap();
            let out = specialize(&input, &t, &Options::default())
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            assert!(out.bytes() == input, "{} changed for {target}", f.display());
            assert!(!out.report().table_removed);
        }
    }
}

#[test]
fn big_endian_input_gives_big_endian_output() {
    let tables = ArchTables::embedded();
    let t = tables.target("gfx942").unwrap();
    let little = std::fs::read(common::golden_input("dispatch-chain")).unwrap();
    let big = swap_words(&little);
    let out_little = specialize(&little, &t, &Options::default())
        .unwrap()
        .bytes();
    let out_big = specialize(&big, &t, &Options::default()).unwrap().bytes();
    assert_eq!(out_big, swap_words(&out_little));
    assert_ne!(out_little, little);
}
