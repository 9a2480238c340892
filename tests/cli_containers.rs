//! The command line on containers (`tests/data/containers/`): every module
//! of every container gives, for every target, exactly the bytes the bare
//! module gives; `inspect` lists the modules; `--module`, `extract`, stdin,
//! and the errors of bad or ambiguous containers.
#![cfg(feature = "cli")]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{fresh_dir, run_cli, run_cli_piped};
use serde_json::Value;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/containers")
        .join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `expected.tsv`: fixture → the expected module file of each index.
fn expected() -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(data("expected.tsv")).unwrap();
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let list = map.entry(f[0].to_string()).or_default();
        assert_eq!(list.len(), f[1].parse::<usize>().unwrap(), "{line}");
        list.push(f[5].to_string());
    }
    map
}

/// Runs the CLI, which must succeed; its stdout.
fn ok(args: &[&str]) -> Vec<u8> {
    let r = run_cli(args);
    assert!(
        r.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    r.stdout
}

/// The `.spv` files of a batch directory, by name.
fn outputs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "spv"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
fn every_module_gives_the_bare_modules_output_for_every_target() {
    let root = fresh_dir("cli-containers", "all");
    // The bare modules' batches, once each.
    let mut bare: BTreeMap<String, BTreeMap<String, Vec<u8>>> = BTreeMap::new();
    // Each distinct output, with the bare module it was made from.
    let mut distinct: BTreeMap<Vec<u8>, String> = BTreeMap::new();
    for (fixture, modules) in expected() {
        let out = root.join(&fixture);
        ok(&[
            "--all-targets",
            s(&data(&fixture)),
            "--out-dir",
            s(&out),
            "-q",
        ]);
        let got = outputs(&out);
        let manifest: Value =
            serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
        let entries = manifest["targets"].as_array().unwrap();
        assert_eq!(entries.len(), got.len(), "{fixture}: manifest entries");
        let mut checked = 0;
        for (k, module) in modules.iter().enumerate() {
            let want = bare.entry(module.clone()).or_insert_with(|| {
                let dir = root.join(format!("bare-{module}"));
                ok(&[
                    "--all-targets",
                    s(&data(&format!("expected/{module}"))),
                    "--out-dir",
                    s(&dir),
                    "-q",
                ]);
                outputs(&dir)
            });
            assert!(want.len() > 50, "{module}: {} targets", want.len());
            for (name, bytes) in want.iter() {
                let file = format!("m{k}-{name}");
                let mine = got
                    .get(&file)
                    .unwrap_or_else(|| panic!("{fixture}: no {file}"));
                assert!(
                    mine == bytes,
                    "{fixture}: {file} differs from the bare module's {name}"
                );
                let entry = entries
                    .iter()
                    .find(|e| e["file"] == file.as_str())
                    .unwrap_or_else(|| panic!("{fixture}: {file} not in the manifest"));
                assert_eq!(entry["module"], k, "{fixture}: {file}");
                assert!(
                    entry["location"]
                        .as_str()
                        .is_some_and(|l| l.contains("bundle"))
                );
                distinct.insert(bytes.clone(), module.clone());
                checked += 1;
            }
        }
        assert_eq!(checked, got.len(), "{fixture}: files not from a module");
    }
    // Every distinct output is valid SPIR-V where the validator in use
    // accepts the bare module it was made from.
    let inputs: BTreeMap<&String, Vec<u8>> = distinct
        .values()
        .map(|m| (m, std::fs::read(data(&format!("expected/{m}"))).unwrap()))
        .collect();
    let made: Vec<common::Made> = distinct
        .iter()
        .map(|(bytes, module)| common::Made {
            input: &inputs[module],
            output: bytes,
            what: format!("an output of {module}"),
        })
        .collect();
    common::assert_outputs_valid(&made);
}

#[test]
fn one_target_writes_the_bare_modules_bytes() {
    let dir = fresh_dir("cli-containers", "one");
    let cases = [
        ("app", Some("1"), "select-pred.spv"),
        ("app", Some("0"), "dispatch-chain.spv"),
        ("libkernels.so", Some("1"), "dispatch-chain.spv"),
        ("dispatch-zlib-v2.ccob", None, "dispatch-chain.spv"),
        ("select-unaligned.hipfb", None, "select-pred.spv"),
        ("select.o", None, "select-pred.spv"),
    ];
    for (fixture, module, raw) in cases {
        for target in ["gfx950", "gfx1201", "gfx90a:xnack+"] {
            let want = dir.join("want.spv");
            let got = dir.join("got.spv");
            ok(&[
                "--target",
                target,
                s(&data(&format!("expected/{raw}"))),
                "-o",
                s(&want),
                "-q",
            ]);
            let input = data(fixture);
            let mut args = vec!["--target", target, s(&input)];
            if let Some(k) = module {
                args.extend(["--module", k]);
            }
            args.extend(["-o", s(&got), "-q"]);
            ok(&args);
            assert!(
                std::fs::read(&got).unwrap() == std::fs::read(&want).unwrap(),
                "{fixture} {module:?} {target}"
            );
        }
    }
    // From stdin too, told apart by content.
    let (r, _) = run_cli_piped(
        &["--target", "gfx942", "-", "-o", "-", "-q"],
        std::fs::read(data("dispatch.ccob")).unwrap(),
    );
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let want = ok(&[
        "--target",
        "gfx942",
        s(&data("expected/dispatch-chain.spv")),
        "-o",
        "-",
        "-q",
    ]);
    assert!(r.stdout == want, "stdin container");
}

#[test]
fn several_modules_need_module_k() {
    let dir = fresh_dir("cli-containers", "several");
    let out = dir.join("out.spv");
    let app = data("app");
    let r = run_cli(&["--target", "gfx942", s(&app), "-o", s(&out)]);
    assert_eq!(r.status.code(), Some(2));
    let e = String::from_utf8_lossy(&r.stderr);
    assert!(
        e.contains("holds 2 SPIR-V modules; pick one with --module K")
            && e.contains("module 0: section .hip_fatbin")
            && e.contains("module 1: section .hip_fatbin")
            && e.contains("zstd bundle"),
        "{e}"
    );
    assert!(!out.exists());
    let r = run_cli(&[
        "--target",
        "gfx942",
        s(&app),
        "--module",
        "2",
        "-o",
        s(&out),
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("--module 2: the input holds 2"));
    // --in-place never replaces a container with a module.
    let copy = dir.join("copy.ccob");
    std::fs::copy(data("dispatch.ccob"), &copy).unwrap();
    let r = run_cli(&["--target", "gfx942", s(&copy), "--in-place"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(std::fs::read(&copy).unwrap() == std::fs::read(data("dispatch.ccob")).unwrap());
}

#[test]
fn inspect_lists_every_module() {
    let app = data("app");
    let text = String::from_utf8(ok(&["inspect", s(&app), "--target", "gfx942"])).unwrap();
    assert!(text.contains("elf holding 2 SPIR-V module(s)"), "{text}");
    assert!(text.contains("module 0: section .hip_fatbin"), "{text}");
    assert!(text.contains("module 1: section .hip_fatbin") && text.contains("zstd bundle"));
    assert!(
        text.contains("is.gfx942") && text.contains("has.mai-insts"),
        "{text}"
    );

    let json: Value =
        serde_json::from_slice(&ok(&["inspect", s(&app), "--format", "json"])).unwrap();
    assert_eq!(json["container"], "elf");
    let modules = json["modules"].as_array().unwrap();
    assert_eq!(modules.len(), 2);
    assert_eq!(modules[0]["index"], 0);
    assert_eq!(modules[0]["section"], ".hip_fatbin");
    assert_eq!(modules[0]["entry"], "hip-spirv64-amd-amdhsa--amdgcnspirv");
    assert_eq!(modules[0]["compressed"], Value::Null);
    assert_eq!(modules[0]["size"], 3476);
    assert_eq!(modules[1]["compressed"]["method"], "zstd");
    assert_eq!(modules[1]["compressed"]["format"], 3);
    assert_eq!(modules[1]["size"], 1896);
    // Each module's table is the bare module's.
    for (m, raw) in modules
        .iter()
        .zip(["dispatch-chain.spv", "select-pred.spv"])
    {
        let bare: Value = serde_json::from_slice(&ok(&[
            "inspect",
            s(&data(&format!("expected/{raw}"))),
            "--format",
            "json",
        ]))
        .unwrap();
        assert_eq!(m["predicates"], bare["predicates"], "{raw}");
        // A bare module keeps today's JSON: no modules array.
        assert!(bare.get("modules").is_none() && bare.get("container").is_none());
    }
    let one: Value = serde_json::from_slice(&ok(&[
        "inspect",
        s(&app),
        "--module",
        "1",
        "--format",
        "json",
        "--all-targets",
    ]))
    .unwrap();
    let modules = one["modules"].as_array().unwrap();
    assert_eq!(modules.len(), 1);
    assert_eq!(modules[0]["index"], 1);
    assert!(modules[0]["targets"].as_array().unwrap().len() > 50);
}

#[test]
fn extract_writes_the_raw_modules() {
    let dir = fresh_dir("cli-containers", "extract");
    for (fixture, modules) in expected() {
        let out = dir.join(&fixture);
        ok(&["extract", s(&data(&fixture)), "--out-dir", s(&out), "-q"]);
        let got = outputs(&out);
        assert_eq!(got.len(), modules.len(), "{fixture}");
        for (k, module) in modules.iter().enumerate() {
            let want = std::fs::read(data(&format!("expected/{module}"))).unwrap();
            assert!(got[&format!("m{k}.spv")] == want, "{fixture}: m{k}.spv");
        }
    }
    let out = dir.join("one");
    let r = run_cli(&[
        "extract",
        s(&data("app")),
        "--out-dir",
        s(&out),
        "--module",
        "1",
    ]);
    assert!(r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("m1.spv: module 1: section .hip_fatbin"));
    assert_eq!(outputs(&out).keys().collect::<Vec<_>>(), ["m1.spv"]);
}

#[test]
fn bad_containers_fail_with_their_offset_and_write_nothing() {
    let dir = fresh_dir("cli-containers", "bad");
    let mut bad = std::fs::read(data("dispatch.ccob")).unwrap();
    bad[24] ^= 0xff;
    let input = dir.join("bad.ccob");
    std::fs::write(&input, &bad).unwrap();
    let out = dir.join("out.spv");
    let batch = dir.join("batch");
    for args in [
        vec!["--target", "gfx942", s(&input), "-o", s(&out)],
        vec!["inspect", s(&input)],
        vec!["--all-targets", s(&input), "--out-dir", s(&batch)],
        vec!["extract", s(&input), "--out-dir", s(&batch)],
    ] {
        let r = run_cli(&args);
        assert_eq!(r.status.code(), Some(1), "{args:?}");
        let e = String::from_utf8_lossy(&r.stderr);
        assert!(
            e.contains(&format!(
                "{}: byte 0: compressed bundle: hash mismatch",
                s(&input)
            )),
            "{args:?}: {e}"
        );
        assert!(!out.exists() && !batch.exists(), "{args:?}");
    }
    let r = run_cli(&["inspect", s(&data("rdc.o"))]);
    assert_eq!(r.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&r.stderr)
            .contains("holds an LLVM IR image for amdgcnspirv, no SPIR-V")
    );
}
