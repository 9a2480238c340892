//! The container reader on real containers (`tests/data/containers/`, made
//! by its `build.sh` with clang-22, clang-offload-bundler and llvm-objcopy):
//! it finds exactly the modules `clang-offload-bundler -unbundle` and
//! `llvm-objdump --offloading` extract (`expected.tsv`), byte for byte, and
//! says where they were.
#![cfg(feature = "containers")]

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rspv_specialize::container::{Kind, find_spirv};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/containers")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// One line of `expected.tsv`.
struct Row {
    index: usize,
    entry: String,
    compression: String,
    size: usize,
    module: String,
}

/// `expected.tsv`, by fixture.
fn expected() -> BTreeMap<String, Vec<Row>> {
    let text = String::from_utf8(read("expected.tsv")).unwrap();
    let mut by_fixture: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 6, "expected.tsv: {line}");
        by_fixture.entry(f[0].to_string()).or_default().push(Row {
            index: f[1].parse().unwrap(),
            entry: f[2].to_string(),
            compression: f[3].to_string(),
            size: f[4].parse().unwrap(),
            module: f[5].to_string(),
        });
    }
    by_fixture
}

#[test]
fn reader_finds_what_the_llvm_tools_extract() {
    let expected = expected();
    assert!(
        expected.len() >= 13,
        "expected.tsv lists {} fixtures",
        expected.len()
    );
    for (fixture, rows) in &expected {
        let data = read(fixture);
        let found = find_spirv(&data).unwrap_or_else(|e| panic!("{fixture}: {e}"));
        assert_eq!(found.modules.len(), rows.len(), "{fixture}: module count");
        for row in rows {
            let m = &found.modules[row.index];
            let what = format!("{fixture} module {}", row.index);
            let want = read(&format!("expected/{}", row.module));
            assert_eq!(want.len(), row.size, "{what}: expected.tsv size");
            assert!(
                *m.bytes == want[..],
                "{what}: bytes differ from expected/{}",
                row.module
            );
            assert_eq!(
                m.location.entry.as_deref(),
                Some(row.entry.as_str()),
                "{what}"
            );
            let method = m
                .location
                .compression
                .map(|c| c.method.name())
                .unwrap_or("-");
            assert_eq!(method, row.compression, "{what}: compression");
            // Borrowed exactly when nothing was compressed, and then the
            // location's offset is where the bytes are in the input.
            match (&m.bytes, m.location.compression) {
                (Cow::Borrowed(b), None) => {
                    let at = b.as_ptr() as usize - data.as_ptr() as usize;
                    assert_eq!(at, m.location.offset, "{what}: offset");
                }
                (Cow::Owned(_), Some(_)) => {}
                _ => panic!("{what}: borrowed/owned does not match compression"),
            }
        }
        let kind = match fixture.rsplit('.').next() {
            Some("hipfb") => Kind::Bundle,
            Some("ccob") => Kind::CompressedBundle,
            _ => Kind::Elf,
        };
        assert_eq!(found.kind, kind, "{fixture}: kind");
    }
}

#[test]
fn linked_bundles_are_found_at_4096_byte_boundaries() {
    let data = read("app");
    let found = find_spirv(&data).unwrap();
    let locs: Vec<_> = found.modules.iter().map(|m| &m.location).collect();
    let (name, section) = locs[0].section.clone().unwrap();
    assert_eq!(name, ".hip_fatbin");
    assert_eq!(locs[0].bundle_offset, Some(section));
    // dispatch.o's bundle is 7572 bytes: the next one starts 8192 bytes in.
    assert_eq!(read("dispatch.hipfb").len(), 7572);
    assert_eq!(locs[1].bundle_offset, Some(section + 8192));
    let shown = locs[1].to_string();
    assert!(
        shown.contains("section .hip_fatbin")
            && shown.contains("zstd bundle (CCOB v3")
            && shown.contains("hip-spirv64-amd-amdhsa--amdgcnspirv"),
        "{shown}"
    );
}

#[test]
fn unaligned_module_in_a_bundle_is_read() {
    let data = read("select-unaligned.hipfb");
    let found = find_spirv(&data).unwrap();
    assert_ne!(found.modules[0].location.offset % 4, 0, "not unaligned");
    let tables = rspv_specialize::ArchTables::embedded();
    let target = tables.target("gfx950").unwrap();
    let options = rspv_specialize::Options::default();
    let from_container =
        rspv_specialize::specialize(&found.modules[0].bytes, &target, &options).unwrap();
    let raw = read("expected/select-pred.spv");
    let from_raw = rspv_specialize::specialize(&raw, &target, &options).unwrap();
    assert_eq!(from_container.bytes(), from_raw.bytes());
}

#[test]
fn raw_spirv_is_the_whole_input() {
    let raw = read("expected/dispatch-chain.spv");
    let found = find_spirv(&raw).unwrap();
    assert_eq!(found.kind, Kind::Spirv);
    assert_eq!(found.modules.len(), 1);
    assert!(matches!(found.modules[0].bytes, Cow::Borrowed(b) if b == &raw[..]));
    // Big-endian words are SPIR-V too.
    let swapped: Vec<u8> = raw
        .chunks(4)
        .flat_map(|w| w.iter().rev().copied())
        .collect();
    assert_eq!(find_spirv(&swapped).unwrap().kind, Kind::Spirv);
}

/// The message of the error `find_spirv` gives for fixture `name`.
fn error_of(name: &str) -> String {
    match find_spirv(&read(name)) {
        Ok(f) => panic!(
            "{name}: found {} module(s), expected an error",
            f.modules.len()
        ),
        Err(e) => e.to_string(),
    }
}

#[test]
fn containers_without_spirv_say_what_they_hold() {
    let rdc = error_of("rdc.o");
    assert!(
        rdc.contains("holds an LLVM IR image for amdgcnspirv, no SPIR-V")
            && rdc.contains(".llvm.offloading"),
        "{rdc}"
    );
    let native = error_of("native.hipfb");
    assert!(
        native.starts_with("byte 0: no SPIR-V found")
            && native.contains("host-x86_64-unknown-linux-gnu-, hipv4-amdgcn-amd-amdhsa--gfx950"),
        "{native}"
    );
    let plain = error_of("stubs.o");
    assert!(
        plain.contains("no SPIR-V found") && plain.contains("no .hip_fatbin section"),
        "{plain}"
    );
}

#[test]
fn from_bytes_entry_points_read_single_module_containers() {
    let tables = rspv_specialize::ArchTables::embedded();
    let targets: Vec<_> = ["gfx950", "gfx1100", "gfx9-4-generic"]
        .iter()
        .map(|t| tables.target(t).unwrap())
        .collect();
    let options = rspv_specialize::Options::default();
    for (fixture, rows) in expected().iter().filter(|(_, rows)| rows.len() == 1) {
        let data = read(fixture);
        let raw = read(&format!("expected/{}", rows[0].module));
        let from_raw = rspv_specialize::specialize_many(&raw, &targets, &options).unwrap();
        let from_container = rspv_specialize::specialize_many(&data, &targets, &options)
            .unwrap_or_else(|e| panic!("{fixture}: {e}"));
        for ((a, b), t) in from_raw.iter().zip(&from_container).zip(&targets) {
            let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
            assert_eq!(a.bytes(), b.bytes(), "{fixture}, {}", t.id());
        }
        let one = rspv_specialize::specialize(&data, &targets[0], &options).unwrap();
        assert_eq!(
            one.bytes(),
            from_raw[0].as_ref().unwrap().bytes(),
            "{fixture}"
        );
        assert_eq!(
            rspv_specialize::inspect(&data).unwrap().predicates,
            rspv_specialize::inspect(&raw).unwrap().predicates,
            "{fixture}"
        );
    }
    // Two modules: the error lists both and where they are.
    let e = rspv_specialize::inspect(&read("app"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("holds 2 SPIR-V modules") && e.contains("module 0: section .hip_fatbin"),
        "{e}"
    );
}
