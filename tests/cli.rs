//! The command line: argument handling, exit codes, the text layouts,
//! `targets`, modules without a table, stdin and unreadable paths.
#![cfg(feature = "cli")]

use std::path::PathBuf;
use std::process::Output;

use common::{repo, run_cli};
use rspv_specialize::module::{Endian, bytes_from_words};
use serde_json::Value;

mod asm;
mod common;

/// Runs with `input` on stdin, which the binary must read to the end.
fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let (out, written) = common::run_cli_piped(args, input.to_vec());
    written.unwrap();
    out
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn golden(case: &str) -> String {
    common::golden_input(case).display().to_string()
}

#[test]
fn main_job_needs_its_arguments() {
    for args in [
        vec![],
        vec!["in.spv", "-o", "out.spv"],
        vec!["--target", "gfx950", "-o", "out.spv"],
        vec!["--target", "gfx950", "in.spv"],
    ] {
        let out = run_cli(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("required"), "{args:?}: {stderr}");
    }
}

fn scratch(name: &str) -> PathBuf {
    common::fresh_dir("cli", name)
}

#[test]
fn main_job_writes_a_valid_module_and_a_report() {
    let dir = scratch("ok");
    let out_path = dir.join("out.spv");
    let out = run_cli(&[
        "--target",
        "gfx950",
        &golden("dispatch-chain"),
        "-o",
        out_path.to_str().unwrap(),
        "--report",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(report["target"], "gfx950");
    assert_eq!(report["table_removed"], true);
    let mai = report["predicates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "has.mai-insts")
        .unwrap();
    assert_eq!(mai["value"], true);
    let written = std::fs::read(&out_path).unwrap();
    let lib = rspv_specialize::specialize(
        &std::fs::read(golden("dispatch-chain")).unwrap(),
        &rspv_specialize::ArchTables::embedded()
            .target("gfx950")
            .unwrap(),
        &rspv_specialize::Options::default(),
    )
    .unwrap();
    assert_eq!(
        written,
        lib.bytes(),
        "the CLI writes what the library returns"
    );
    // Only the output file is left: no temporary files.
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(files.len(), 1);
}

#[test]
fn main_job_failure_writes_nothing() {
    let dir = scratch("fail");
    let out_path = dir.join("out.spv");
    let out = run_cli(&[
        "--target",
        "gfx950",
        &golden("unresolved-store"),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("in function unresolved_store"), "{stderr}");
    assert!(stderr.contains("has.mai-insts (SpecId 0)"), "{stderr}");
    assert!(!out_path.exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // An unknown target fails the same way.
    let out = run_cli(&[
        "--target",
        "gfx9999",
        &golden("direct-branch"),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown target `gfx9999`"));
    assert!(!out_path.exists());
}

#[test]
fn main_job_never_overwrites_its_input_unless_asked() {
    let dir = scratch("inplace");
    let path = dir.join("m.spv");
    let original = std::fs::read(golden("direct-branch")).unwrap();
    std::fs::write(&path, &original).unwrap();
    let p = path.to_str().unwrap();
    let out = run_cli(&["--target", "gfx950", p, "-o", p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--in-place"));
    assert_eq!(std::fs::read(&path).unwrap(), original);
    let out = run_cli(&["--target", "gfx950", p, "--in-place", "--report", "none"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    let changed = std::fs::read(&path).unwrap();
    assert_ne!(changed, original);
    assert!(!rspv_specialize::inspect(&changed).unwrap().has_table);
}

#[test]
fn main_job_pipes_and_writes_assembly() {
    let input = std::fs::read(golden("direct-branch")).unwrap();
    let out = run_stdin(
        &["--target", "gfx1100", "-", "-o", "-", "--report", "none"],
        &input,
    );
    assert!(out.status.success());
    assert!(!rspv_specialize::inspect(&out.stdout).unwrap().has_table);
    let out = run_cli(&[
        "--target",
        "gfx950",
        &golden("direct-branch"),
        "-o",
        "-",
        "--emit",
        "spvasm",
        "--report",
        "none",
    ]);
    let text = stdout(&out);
    assert!(text.contains("OpFunctionCall"), "{text}");
    assert!(!text.contains("OpSpecConstantFalse"), "{text}");
}

#[test]
fn usage_errors_exit_2() {
    let g = golden("direct-branch");
    for args in [
        vec!["inspect", "--target", "gfx950", "--all-targets", g.as_str()],
        vec!["inspect", "--format", "yaml", g.as_str()],
        vec!["inspect"],
        vec!["targets", "--bogus"],
        vec!["--target", "gfx950", "in.spv", "-o", "out.spv", "inspect"],
    ] {
        let out = run_cli(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(run_cli(&["--help"]).status.success());
    assert!(run_cli(&["inspect", "--help"]).status.success());
    assert!(run_cli(&["--version"]).status.success());
}

#[test]
fn inspect_text_lists_the_table() {
    let text = stdout(&run_cli(&["inspect", &golden("alias-and-or")]));
    assert!(text.contains("3 predicates, 3 call sites"), "{text}");
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with(char::is_numeric))
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    // SpecId order, with the kind and the builtins requiring the expression.
    assert!(
        rows[0].contains("is.tahiti") && rows[0].contains(" is "),
        "{text}"
    );
    assert!(
        rows[1].contains("has.vmem-to-lds-load-insts|asynccnt"),
        "{text}"
    );
    assert!(rows[1].contains("asyncmark, wait_asyncmark"), "{text}");
    assert!(rows[2].contains("has.s-memtime-inst") && rows[2].contains("s_memtime"));

    let text = stdout(&run_cli(&[
        "inspect",
        "--target",
        "tahiti",
        &golden("alias-and-or"),
    ]));
    assert!(text.starts_with("target gfx600 "), "{text}");
    let row = text.lines().find(|l| l.contains("is.tahiti")).unwrap();
    assert!(row.contains("true"), "{text}");
    let row = text.lines().find(|l| l.contains("vmem-to-lds")).unwrap();
    assert!(row.contains("false"), "{text}");
}

#[test]
fn inspect_notes_unknown_processors_and_features() {
    // A module naming a processor no table knows: false, with a note.
    let words = asm::table_module(
        &asm::text(b"is.gfx9999 0\0has.quantum-insts 1\0"),
        &[0, 1],
        false,
    );
    let w = bytes_from_words(&words, Endian::Little);
    let out = run_stdin(
        &["inspect", "--format", "json", "--target", "gfx950", "-"],
        &w,
    );
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let p = &v["predicates"][0];
    assert_eq!(p["name"], "is.gfx9999");
    assert_eq!(p["value"], false);
    assert!(p["note"].as_str().unwrap().contains("gfx9999"), "{p}");
    let p = &v["predicates"][1];
    assert_eq!(p["name"], "has.quantum-insts");
    assert_eq!(p["value"], false);
    assert!(p["note"].as_str().unwrap().contains("quantum-insts"), "{p}");
    let text = stdout(&run_stdin(&["inspect", "-", "--target", "gfx950"], &w));
    assert!(text.contains("note:"), "{text}");
}

#[test]
fn module_without_a_table() {
    let g = golden("no-table");
    let text = stdout(&run_cli(&["inspect", &g]));
    assert_eq!(text.trim(), "no predicate table: nothing to specialize");
    let text = stdout(&run_cli(&["inspect", "--target", "gfx950", &g]));
    assert!(
        text.contains("no predicate table: nothing to specialize"),
        "{text}"
    );
    let text = stdout(&run_cli(&["inspect", "--all-targets", &g]));
    assert!(
        text.contains("no predicate table: nothing to specialize"),
        "{text}"
    );
    for args in [
        vec!["inspect", "--format", "json", g.as_str()],
        vec![
            "inspect",
            "--format",
            "json",
            "--target",
            "gfx950",
            g.as_str(),
        ],
        vec!["inspect", "--format", "json", "--all-targets", g.as_str()],
    ] {
        let v: Value = serde_json::from_str(&stdout(&run_cli(&args))).unwrap();
        assert_eq!(v["has_table"], false, "{args:?}");
        assert_eq!(v["predicates"], Value::Array(vec![]), "{args:?}");
    }
    // The corpus modules have spec constants but no predicate table.
    let corpus = repo().join("tests/corpus/clang22-opencl-O2/clang22-opencl-O2.spv");
    let text = stdout(&run_cli(&["inspect", &corpus.display().to_string()]));
    assert!(text.contains("no predicate table"), "{text}");
}

#[test]
fn all_targets_matrix_is_compact() {
    let text = stdout(&run_cli(&[
        "inspect",
        "--all-targets",
        &golden("dispatch-chain"),
    ]));
    let width = text.lines().map(str::len).max().unwrap();
    assert!(width <= 120, "{width} columns:\n{text}");
    let tables = rspv_specialize::ArchTables::embedded();
    for p in tables.processors() {
        let row = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(p.name.as_str()))
            .unwrap_or_else(|| panic!("no row for {}:\n{text}", p.name));
        let cells: Vec<&str> = row
            .split_whitespace()
            .filter(|c| *c == "1" || *c == ".")
            .collect();
        assert_eq!(cells.len(), 3, "{row}");
        let t = tables.target(&p.name).unwrap();
        for (cell, id) in cells.iter().zip(0..) {
            let name = [
                "has.wmma-256b-insts,wavefrontsize32",
                "has.wmma-128b-insts,wavefrontsize32",
                "has.mai-insts",
            ][id];
            let v = t.evaluate(name).unwrap().value;
            assert_eq!(*cell == "1", v, "{} {name}: {row}", p.name);
        }
    }
    // The legend names every column.
    for name in ["has.wmma-256b-insts,wavefrontsize32", "has.mai-insts"] {
        assert!(text.contains(name), "{text}");
    }
}

#[test]
fn stdin_is_dash() {
    let bytes = std::fs::read(golden("alias-and-or")).unwrap();
    let from_file = stdout(&run_cli(&[
        "inspect",
        "--format",
        "json",
        "--target",
        "gfx950",
        &golden("alias-and-or"),
    ]));
    let from_stdin = stdout(&run_stdin(
        &["inspect", "--format", "json", "--target", "gfx950", "-"],
        &bytes,
    ));
    let a: Value = serde_json::from_str(&from_file).unwrap();
    let b: Value = serde_json::from_str(&from_stdin).unwrap();
    assert_eq!(a["predicates"], b["predicates"]);
    assert_eq!(b["input"], "<stdin>");
}

#[test]
fn unreadable_paths_are_named() {
    for path in ["/nonexistent/dir/in.spv", env!("CARGO_MANIFEST_DIR")] {
        let out = run_cli(&["inspect", path]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.starts_with("error: "), "{stderr}");
        assert!(stderr.contains(path), "{stderr}");
        assert!(stderr.contains("cannot read"), "{stderr}");
    }
    let out = run_cli(&["targets", "--arch-tables", "/nonexistent/tables"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("/nonexistent/tables"), "{stderr}");
}

#[test]
fn targets_lists_every_processor() {
    let tables = rspv_specialize::ArchTables::embedded();
    let v: Value =
        serde_json::from_str(&stdout(&run_cli(&["targets", "--format", "json"]))).unwrap();
    let procs = v["processors"].as_array().unwrap();
    assert_eq!(procs.len(), tables.processors().len());
    for p in tables.processors() {
        let j = procs.iter().find(|j| j["name"] == p.name.as_str()).unwrap();
        assert_eq!(j["aliases"], serde_json::json!(p.aliases));
        assert_eq!(j["generation"], p.generation.as_str());
        assert_eq!(j["generic"], p.generic);
        assert_eq!(j["wavefront_sizes"], serde_json::json!(p.wavefront_sizes));
        assert_eq!(
            j["target_id_features"],
            serde_json::json!(p.target_id_features)
        );
    }
    let text = stdout(&run_cli(&["targets"]));
    for needle in [
        "gfx600",
        "tahiti",
        "gfx9-4-generic",
        "sramecc,xnack",
        "32*,64",
        "gfx1250",
    ] {
        assert!(text.contains(needle), "{needle}:\n{text}");
    }
    // Loading the same tables from the directory gives the same listing.
    let dir = repo().join("arch-tables").display().to_string();
    assert_eq!(stdout(&run_cli(&["targets", "--arch-tables", &dir])), text);
}

#[test]
fn batch_writes_one_module_per_target_and_a_manifest() {
    use sha2::{Digest, Sha256};
    let dir = scratch("batch");
    let out_dir = dir.join("out");
    let out = run_cli(&[
        "--all-targets",
        &golden("dispatch-chain"),
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--report",
        "none",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("manifest.json")).unwrap()).unwrap();
    let entries = manifest["targets"].as_array().unwrap();
    let tables = rspv_specialize::ArchTables::embedded();
    assert_eq!(entries.len(), tables.processors().len());
    let input = std::fs::read(golden("dispatch-chain")).unwrap();
    for e in entries {
        let file = out_dir.join(e["file"].as_str().unwrap());
        let data = std::fs::read(&file).unwrap();
        assert_eq!(e["size"].as_u64().unwrap() as usize, data.len());
        let sha: String = Sha256::digest(&data)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(e["sha256"], sha.as_str());
        let t = tables.target(e["target"].as_str().unwrap()).unwrap();
        let one =
            rspv_specialize::specialize(&input, &t, &rspv_specialize::Options::default()).unwrap();
        assert_eq!(data, one.bytes(), "{}", t.id());
        for p in &one.report().predicates {
            assert_eq!(e["predicates"][&p.name], p.value);
        }
    }
    // All or nothing: a module that fails for some target writes nothing.
    let bad_dir = dir.join("bad");
    let out = run_cli(&[
        "--targets",
        "gfx950,gfx1100",
        &golden("unresolved-store"),
        "--out-dir",
        bad_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 of 2 targets failed"));
    assert!(!bad_dir.exists());
}
