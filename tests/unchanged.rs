//! Modules without a predicate table come out byte-identical, and the byte
//! order of the input is kept.

use std::path::{Path, PathBuf};

use rspv_specialize::{ArchTables, Options, specialize};

fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            spv_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "spv") {
            out.push(p);
        }
    }
}

#[test]
fn real_compiler_modules_without_a_table_are_byte_identical() {
    let tables = ArchTables::embedded();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files = Vec::new();
    spv_files(&root, &mut files);
    files.sort();
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

fn swap_words(bytes: &[u8]) -> Vec<u8> {
    bytes
        .chunks_exact(4)
        .flat_map(|c| [c[3], c[2], c[1], c[0]])
        .collect()
}

#[test]
fn big_endian_input_gives_big_endian_output() {
    let tables = ArchTables::embedded();
    let t = tables.target("gfx942").unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/dispatch-chain/input.spv");
    let little = std::fs::read(path).unwrap();
    let big = swap_words(&little);
    let out_little = specialize(&little, &t, &Options::default())
        .unwrap()
        .bytes();
    let out_big = specialize(&big, &t, &Options::default()).unwrap().bytes();
    assert_eq!(out_big, swap_words(&out_little));
    assert_ne!(out_little, little);
}
