//! Hostile containers: truncated and corrupted bundles, compressed bundles
//! lying about their sizes or hash, ELF files without SPIR-V, and seeded
//! random mutations of the real fixtures (`tests/data/containers/`). Each
//! case must end in a clear error naming the byte offset, never a panic or
//! an allocation sized by a header field.
//!
//! Each test runs in a child process (this binary re-run on that one test)
//! under `ulimit -v` of 1 GiB, so an allocation trusting a claimed size
//! (a terabyte) kills that child and fails the test that caused it.
#![cfg(feature = "containers")]

mod common;

#[path = "../fuzz/container_checks.rs"]
mod container_checks;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use md5::{Digest, Md5};
use object::{Object, ObjectSection};
use rspv_specialize::container::{Limits, find_spirv, find_spirv_with};

const CHILD: &str = "RSPV_HOSTILE_CONTAINERS_CHILD";
/// Address-space limit of a child, in KiB: 1 GiB.
const MEM_LIMIT_KB: u64 = 1024 * 1024;

/// Runs `body` in a child process under the memory limit and `limit`.
fn isolated(name: &str, limit: Duration, body: impl FnOnce()) {
    let Some(run) =
        common::isolated_run(name, CHILD, "hostile-containers", MEM_LIMIT_KB, limit, body)
    else {
        return;
    };
    if let Some(why) = run.failure() {
        panic!("{name}: {why}; output:\n{}", run.output);
    }
}

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/containers")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The error `find_spirv` gives for `data`, which must name `offset` and
/// contain each of `words`.
fn expect_error(data: &[u8], offset: usize, words: &[&str]) -> String {
    let msg = match find_spirv(data) {
        Ok(f) => panic!("expected an error, found {} module(s)", f.modules.len()),
        Err(e) => e.to_string(),
    };
    eprintln!("{msg}");
    assert!(
        msg.starts_with(&format!("byte {offset}: ")),
        "offset {offset}: {msg}"
    );
    for w in words {
        assert!(msg.contains(w), "`{w}` not in: {msg}");
    }
    msg
}

fn put_u64(data: &mut [u8], at: usize, value: u64) {
    data[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// Truncated MD5 of `bytes`, as clang stores it.
fn md5_low(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(Md5::digest(bytes)[..8].try_into().unwrap())
}

/// A version-3 compressed bundle of `bundle` with zlib; the header's sizes
/// and hash are those given.
fn ccob_v3(stream: &[u8], total: u64, uncompressed: u64, hash: u64) -> Vec<u8> {
    let mut out = b"CCOB".to_vec();
    out.extend_from_slice(&3u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    for v in [total, uncompressed, hash] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(stream);
    out
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn truncated_bundles_and_objects() {
    isolated(
        "truncated_bundles_and_objects",
        Duration::from_secs(120),
        || {
            // Every prefix: each one is an error or (past the last entry) the
            // whole module, never a panic.
            for name in [
                "dispatch.hipfb",
                "dispatch.ccob",
                "dispatch-zlib-v2.ccob",
                "dispatch.o",
            ] {
                let data = fixture(name);
                let step = if name.ends_with(".o") { 7 } else { 1 };
                for len in (0..data.len()).step_by(step) {
                    container_checks::check_container(&data[..len]);
                }
            }
            let bundle = fixture("dispatch.hipfb");
            expect_error(&bundle[..30], 24, &["truncated", "number of entries"]);
            expect_error(
                &bundle[..4096 + 100],
                86,
                &[
                    "entry 1 (hip-spirv64-amd-amdhsa--amdgcnspirv): offset 4096 + size 3476",
                    "(4196 bytes)",
                ],
            );
        },
    );
}

#[test]
fn entries_past_the_end() {
    isolated("entries_past_the_end", Duration::from_secs(60), || {
        let bundle = fixture("dispatch.hipfb");
        // Entry 1 (the SPIR-V) starts after entry 0: 32 + 24 + 30 bytes.
        let e1 = 32 + 24 + 30;
        let mut bad = bundle.clone();
        put_u64(&mut bad, e1, 1 << 40);
        expect_error(
            &bad,
            e1,
            &[
                "entry 1 (hip-spirv64-amd-amdhsa--amdgcnspirv)",
                "runs past the end",
            ],
        );
        let mut bad = bundle.clone();
        put_u64(&mut bad, e1 + 8, u64::MAX);
        expect_error(
            &bad,
            e1,
            &["size 18446744073709551615", "runs past the end"],
        );
        let mut bad = bundle.clone();
        put_u64(&mut bad, e1 + 16, u64::MAX);
        expect_error(&bad, e1 + 16, &["id length", "runs past the end"]);
        let mut bad = bundle.clone();
        put_u64(&mut bad, 24, u64::MAX);
        expect_error(
            &bad,
            24,
            &["claims 18446744073709551615 entries", "room for at most"],
        );
        // A SPIR-V entry that holds something else.
        let mut bad = bundle.clone();
        bad[4096..4100].copy_from_slice(b"\x7fELF");
        expect_error(&bad, 4096, &["not SPIR-V", "7f 45 4c 46"]);
    });
}

#[test]
fn compressed_bundle_claiming_a_terabyte() {
    isolated(
        "compressed_bundle_claiming_a_terabyte",
        Duration::from_secs(60),
        || {
            let bundle = fixture("dispatch.hipfb");
            let stream = zlib(&bundle);
            let total = 32 + stream.len() as u64;
            let good = ccob_v3(&stream, total, bundle.len() as u64, md5_low(&bundle));
            assert_eq!(find_spirv(&good).unwrap().modules.len(), 1);
            let tb = 1u64 << 40;
            expect_error(
                &ccob_v3(&stream, total, tb, md5_low(&bundle)),
                0,
                &["claims 1099511627776 bytes uncompressed", "limit"],
            );
            expect_error(
                &ccob_v3(&stream, tb, bundle.len() as u64, 0),
                8,
                &["total size 1099511627776", "past the end"],
            );
            // Under the limit but still a lie: stops at the data's real size.
            expect_error(
                &ccob_v3(&stream, total, 1 << 29, md5_low(&bundle)),
                0,
                &["decompresses to 7572 bytes", "claims 536870912"],
            );
            expect_error(
                &ccob_v3(&stream, total, 100, md5_low(&bundle)),
                0,
                &["decompresses to more than 100 bytes"],
            );
        },
    );
}

#[test]
fn inflating_past_the_limit_stops_there() {
    isolated(
        "inflating_past_the_limit_stops_there",
        Duration::from_secs(60),
        || {
            // 64 MiB of zeros compress to a few KiB: with a 1 MiB limit the
            // reader refuses it from the header, and with a claim under the
            // limit it stops inflating one byte past the claim.
            let zeros = vec![0u8; 64 << 20];
            let stream = zlib(&zeros);
            let total = 32 + stream.len() as u64;
            let mut limits = Limits::default();
            limits.max_decompressed = 1 << 20;
            let claim_all = ccob_v3(&stream, total, zeros.len() as u64, 0);
            let e = find_spirv_with(&claim_all, &limits)
                .unwrap_err()
                .to_string();
            assert!(e.contains("more than the limit of 1048576 bytes"), "{e}");
            let claim_less = ccob_v3(&stream, total, 1 << 20, 0);
            let e = find_spirv_with(&claim_less, &limits)
                .unwrap_err()
                .to_string();
            assert!(e.contains("decompresses to more than 1048576 bytes"), "{e}");
        },
    );
}

#[test]
fn corrupt_data_and_wrong_hash() {
    isolated(
        "corrupt_data_and_wrong_hash",
        Duration::from_secs(60),
        || {
            for name in ["dispatch.ccob", "dispatch-zlib.ccob"] {
                let good = fixture(name);
                // A wrong hash names both values.
                let mut bad = good.clone();
                bad[24] ^= 0xff;
                let msg = expect_error(&bad, 0, &["hash mismatch", "the header says 0x"]);
                let stored = u64::from_le_bytes(good[24..32].try_into().unwrap());
                assert!(msg.contains(&format!("0x{stored:016x}")), "{msg}");
                // Corrupt compressed bytes: an error (corrupt data, a size or a
                // hash that does not match), whichever the damage gives.
                for at in (40..good.len()).step_by(37) {
                    let mut bad = good.clone();
                    bad[at] ^= 0x5a;
                    let e = find_spirv(&bad)
                        .expect_err(&format!("{name}: byte {at} flipped"))
                        .to_string();
                    assert!(
                        e.starts_with("byte 0: compressed bundle")
                            || e.starts_with("byte 32: compressed bundle"),
                        "{name}, byte {at}: {e}"
                    );
                }
            }
            let mut bad = fixture("dispatch.ccob");
            bad[6] = 7;
            expect_error(&bad, 6, &["unknown compression method 7"]);
            bad[4] = 9;
            expect_error(&bad, 4, &["unknown format version 9"]);
        },
    );
}

#[test]
fn containers_without_spirv() {
    isolated("containers_without_spirv", Duration::from_secs(60), || {
        expect_error(
            &fixture("stubs.o"),
            0,
            &["no SPIR-V found", "no .hip_fatbin section"],
        );
        expect_error(
            &fixture("native.hipfb"),
            0,
            &["no SPIR-V found", "hipv4-amdgcn-amd-amdhsa--gfx950"],
        );
        let rdc = fixture("rdc.o");
        let file = object::File::parse(&*rdc).unwrap();
        let section = file.section_by_name(".llvm.offloading").unwrap();
        let at = section.file_range().unwrap().0 as usize;
        expect_error(
            &rdc,
            at,
            &["holds an LLVM IR image for amdgcnspirv, no SPIR-V"],
        );
        // Non-zero bytes after a bundle in a section: named at their offset.
        let mut app = fixture("app");
        let found = find_spirv(&app).unwrap();
        let second = found.modules[1].location.bundle_offset.unwrap();
        app[second - 16] = 0xee;
        expect_error(&app, second - 16, &["expected an offload bundle", "ee 00"]);
        expect_error(b"\x7fEL", 0, &["too short"]);
        expect_error(b"hello, world", 0, &["bad magic number 0x6c6c6568", "ELF"]);
        expect_error(
            b"\x7fELF\x02\x01\x01",
            0,
            &["an ELF file, which could not be read"],
        );
    });
}

/// A small xorshift PRNG: the same mutants on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn random_mutations_of_the_fixtures() {
    isolated(
        "random_mutations_of_the_fixtures",
        Duration::from_secs(240),
        || {
            let names = [
                "dispatch.hipfb",
                "dispatch.ccob",
                "dispatch-v2.ccob",
                "dispatch-zlib.ccob",
                "select-unaligned.hipfb",
                "hip-a.o",
                "app",
                "libkernels.so",
                "rdc.o",
            ];
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
            let mut runs = 0;
            for name in names {
                let data = fixture(name);
                for _ in 0..300 {
                    let mut m = data.clone();
                    for _ in 0..1 + rng.next() % 4 {
                        let at = (rng.next() % m.len() as u64) as usize;
                        match rng.next() % 3 {
                            0 => m[at] ^= 1 << (rng.next() % 8),
                            1 => m[at] = 0xff,
                            _ => {
                                // A header-sized field made huge.
                                let end = (at + 8).min(m.len());
                                m[at..end].fill(0x7f);
                            }
                        }
                    }
                    container_checks::check_container(&m);
                    runs += 1;
                }
            }
            eprintln!("mutants: {runs}");
        },
    );
}

#[test]
fn saved_fuzz_inputs_and_fixtures_pass_the_container_check() {
    isolated(
        "saved_fuzz_inputs_and_fixtures_pass_the_container_check",
        Duration::from_secs(60),
        || {
            // Inputs the `container` fuzz target saved (fuzz/README.md:
            // tests/data/fuzz-regressions/container-N.bin), and every fixture.
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
            let mut files = Vec::new();
            for dir in ["fuzz-regressions", "containers"] {
                for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                    let path = entry.unwrap().path();
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    let saved = dir == "fuzz-regressions" && name.starts_with("container-");
                    let fixture = dir == "containers" && path.is_file();
                    if saved || fixture {
                        files.push(path);
                    }
                }
            }
            assert!(files.len() >= 16, "{} files", files.len());
            for path in &files {
                eprintln!("{}", path.display());
                container_checks::check_container(&std::fs::read(path).unwrap());
            }
        },
    );
}
