//! The lossless module layer: every committed `.spv` under `tests/` reads and
//! writes back byte for byte, in both byte orders.

mod common;

use std::path::PathBuf;

use common::{spv_files, swap_words};
use rspv_specialize::inspect;
use rspv_specialize::module::{Endian, Module, bytes_from_words, words_from_bytes};

fn tests_dir() -> PathBuf {
    common::repo().join("tests")
}

/// Reads, indexes and re-serializes a module; the module must parse fully.
fn roundtrip(bytes: &[u8], what: &str) -> (Vec<u8>, Endian) {
    let (words, endian) =
        words_from_bytes(bytes).unwrap_or_else(|e| panic!("{what}: words_from_bytes: {e}"));
    let m = Module::parse(&words).unwrap_or_else(|e| panic!("{what}: parse: {e}"));
    // The index covers the whole module: header, globals, then functions,
    // contiguous and in order.
    let mut at = rspv_specialize::module::HEADER_WORDS;
    for g in m.globals() {
        assert_eq!(g.at, at, "{what}: gap before global at word {}", g.at);
        at = g.end();
    }
    for f in &m.functions {
        assert_eq!(f.start, at, "{what}: gap before function %{}", f.id);
        at = f.end;
    }
    assert_eq!(at, words.len(), "{what}: index does not reach the end");
    (bytes_from_words(m.words, endian), endian)
}

#[test]
fn every_committed_module_roundtrips_byte_for_byte() {
    let files = spv_files(&tests_dir());
    assert!(
        files.len() >= 20,
        "expected at least 20 .spv files under tests/, found {}",
        files.len()
    );
    for path in &files {
        let what = path.display().to_string();
        let bytes = std::fs::read(path).unwrap();
        let (back, endian) = roundtrip(&bytes, &what);
        assert_eq!(endian, Endian::Little, "{what}");
        assert!(back == bytes, "{what}: bytes differ after round trip");
    }
}

#[test]
fn big_endian_modules_read_and_write_in_their_own_order() {
    let mut checked = 0;
    for path in spv_files(&tests_dir()) {
        let what = path.display().to_string();
        let little = std::fs::read(&path).unwrap();
        let big = swap_words(&little);
        assert_ne!(big, little);
        let (back, endian) = roundtrip(&big, &what);
        assert_eq!(endian, Endian::Big, "{what}");
        assert!(
            back == big,
            "{what}: big-endian bytes differ after round trip"
        );
        // Same words whatever the byte order.
        assert_eq!(
            words_from_bytes(&big).unwrap().0,
            words_from_bytes(&little).unwrap().0,
            "{what}"
        );
        // The predicate table reads the same.
        match (inspect(&little), inspect(&big)) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{what}");
                checked += usize::from(a.has_table);
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "{what}"),
            (a, b) => panic!("{what}: little {a:?} but big {b:?}"),
        }
    }
    assert!(checked >= 15, "only {checked} modules with a table");
}

#[test]
fn big_endian_golden_module_has_the_expected_table() {
    let path = tests_dir().join("golden/dispatch-chain/input.spv");
    let big = swap_words(&std::fs::read(path).unwrap());
    assert_eq!(&big[..4], &[0x07, 0x23, 0x02, 0x03]);
    let t = inspect(&big).unwrap();
    let mut names: Vec<(u32, &str)> = t
        .predicates
        .iter()
        .map(|p| (p.spec_id, p.name.as_str()))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            (0, "has.wmma-256b-insts,wavefrontsize32"),
            (1, "has.wmma-128b-insts,wavefrontsize32"),
            (2, "has.mai-insts"),
        ]
    );
}
