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
    for (args, says) in [
        (vec![], "<IN>"),
        (vec!["in.spv", "-o", "out.spv"], "give --target TARGET"),
        (vec!["--target", "gfx950", "-o", "out.spv"], "<IN>"),
        (
            vec!["--target", "gfx950", "in.spv"],
            "give -o OUT (or --in-place)",
        ),
        (
            vec!["--all-targets", "in.spv"],
            "--all-targets writes one module per target: give --out-dir DIR",
        ),
        (
            vec!["--targets", "gfx950,gfx942", "in.spv"],
            "--targets writes one module per target: give --out-dir DIR",
        ),
        (
            vec!["--target", "gfx950", "in.spv", "--out-dir", "d"],
            "--out-dir is for --targets or --all-targets",
        ),
    ] {
        let out = run_cli(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert_usage_lines_never_conflict(&stderr);
    }
    assert!(!std::path::Path::new("d").exists());
}

/// No usage line asks for two flags that cannot go together: `-o` /
/// `--in-place` with `--out-dir`, or `--target` with `--targets` /
/// `--all-targets`.
fn assert_usage_lines_never_conflict(stderr: &str) {
    let mut lines = 0;
    let mut in_usage = false;
    for line in stderr.lines() {
        if line.starts_with("Usage:") {
            in_usage = true;
        } else if line.trim().is_empty() {
            in_usage = false;
        }
        if !in_usage {
            continue;
        }
        lines += 1;
        // `a | b` offers alternatives; what one alternative asks for with
        // the rest of the line must go together.
        for part in line.split(" | ") {
            let has = |flag: &str| part.contains(flag);
            assert!(
                !(has("--out-dir") && (has("-o <OUT>") || has("--output") || has("--in-place"))),
                "{line}"
            );
            assert!(
                !(has("--target <") && (has("--targets") || has("--all-targets"))),
                "{line}"
            );
        }
    }
    assert!(lines >= 2, "no usage lines in {stderr}");
}

#[test]
fn reports_name_the_target_as_given_its_processor_and_wave() {
    let dir = scratch("report");
    let out = dir.join("out.spv");
    let o = out.to_str().unwrap();
    let dispatch = golden("dispatch-chain");
    for (args, first_line) in [
        (
            vec!["--target", "tahiti"],
            "target tahiti (processor gfx600, wave64)",
        ),
        (
            vec!["--target", "gfx1100"],
            "target gfx1100 (processor gfx1100, wave32)",
        ),
        (
            vec!["--target", "gfx1100", "--wave64"],
            "target gfx1100 (processor gfx1100, wave64)",
        ),
        (
            vec!["--target", "gfx90a:xnack+"],
            "target gfx90a:xnack+ (processor gfx90a, wave64)",
        ),
    ] {
        let mut args = args;
        args.extend([dispatch.as_str(), "-o", o]);
        let r = run_cli(&args);
        assert!(r.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&r.stderr);
        assert_eq!(text.lines().next(), Some(first_line), "{args:?}: {text}");
        // SpecId order, though the table lists SpecIds 1, 2, 0.
        let ids: Vec<u32> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("SpecId"))
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(ids, [0, 1, 2], "{text}");

        args.extend(["--report", "json"]);
        let r = run_cli(&args);
        let v: Value = serde_json::from_slice(&r.stderr).unwrap();
        let want = ArchTablesTarget::from_args(&args);
        assert_eq!(v["target"], want.given.as_str(), "{args:?}");
        assert_eq!(v["processor"], want.processor.as_str(), "{args:?}");
        assert_eq!(v["wavefront_size"], want.wave, "{args:?}");
        let ids: Vec<u64> = v["predicates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["spec_id"].as_u64().unwrap())
            .collect();
        assert_eq!(ids, [0, 1, 2], "{args:?}");
        common::assert_outputs_valid(&[common::Made {
            input: &std::fs::read(&dispatch).unwrap(),
            output: &std::fs::read(&out).unwrap(),
            what: format!("{args:?}"),
        }]);
    }
    // The table's own order is not SpecId order: the report sorted it.
    let table = rspv_specialize::inspect(&std::fs::read(&dispatch).unwrap()).unwrap();
    let table_order: Vec<u32> = table.predicates.iter().map(|p| p.spec_id).collect();
    assert_ne!(table_order, [0, 1, 2]);
}

/// What the library resolves a command line's `--target` (and `--wave64`)
/// to: the expected report fields.
struct ArchTablesTarget {
    given: String,
    processor: String,
    wave: u32,
}

impl ArchTablesTarget {
    fn from_args(args: &[&str]) -> ArchTablesTarget {
        let at = args.iter().position(|a| *a == "--target").unwrap();
        let given = args[at + 1];
        let wave64 = args.contains(&"--wave64");
        let t = rspv_specialize::ArchTables::embedded()
            .target_with(given, &rspv_specialize::TargetOptions { wave64 })
            .unwrap();
        ArchTablesTarget {
            given: given.to_string(),
            processor: t.processor().name.clone(),
            wave: t.wavefront_size(),
        }
    }
}

#[test]
fn quiet_writes_the_module_and_no_report() {
    let dir = scratch("quiet");
    let out = dir.join("out.spv");
    for flag in ["-q", "--quiet"] {
        let _ = std::fs::remove_file(&out);
        let r = run_cli(&[
            "--target",
            "gfx942",
            &golden("dispatch-chain"),
            "-o",
            out.to_str().unwrap(),
            flag,
        ]);
        assert!(r.status.success(), "{flag}");
        assert!(
            r.stderr.is_empty(),
            "{flag}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert!(out.is_file(), "{flag}");
    }
    // Errors are still said.
    let r = run_cli(&[
        "--target",
        "gfx9999",
        &golden("dispatch-chain"),
        "-o",
        "-",
        "-q",
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("gfx9999"));
}

#[test]
fn files_that_are_not_spirv_are_said_to_be_so() {
    let dir = scratch("not-spirv");
    let readme = repo().join("README.md");
    let elf = PathBuf::from(env!("CARGO_BIN_EXE_rspv-specialize"));
    let odd = dir.join("odd.txt");
    std::fs::write(&odd, b"seven b").unwrap();
    for file in [&readme, &elf, &odd] {
        let f = file.to_str().unwrap();
        for args in [
            vec!["--target", "gfx942", f, "-o", "-"],
            vec!["inspect", f],
            vec!["--targets", "gfx942", f, "--out-dir", dir.to_str().unwrap()],
        ] {
            let r = run_cli(&args);
            assert_eq!(r.status.code(), Some(1), "{args:?}");
            let e = String::from_utf8_lossy(&r.stderr);
            assert!(
                e.contains(&format!("{f}: byte 0: not SPIR-V")),
                "{args:?}: {e}"
            );
            assert!(!e.contains("multiple of 4") && !e.contains("words"), "{e}");
            assert!(r.stdout.is_empty());
        }
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
    assert_eq!(out.status.code(), Some(2));
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
    assert!(
        text.starts_with("target tahiti (processor gfx600, gfx6, wave64)"),
        "{text}"
    );
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
