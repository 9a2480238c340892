//! `specialize_many` gives, for every target, exactly what a one-target run
//! gives: the same bytes, the same report, the same errors.

mod common;
#[path = "../benches/common/gen.rs"]
mod generator;

use rspv_specialize::{ArchTables, Options, TargetOptions, specialize, specialize_many};

/// Every processor, a target-ID modifier and wave64 on a wave32 processor.
fn all_targets(tables: &ArchTables) -> Vec<rspv_specialize::Target<'_>> {
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
    targets
}

/// Checks that `specialize_many` on `input` (named `what`) gives each of
/// `targets` what `specialize` gives it.
fn assert_batch_equals_one_by_one(
    input: &[u8],
    targets: &[rspv_specialize::Target<'_>],
    what: &str,
) {
    let many = specialize_many(input, targets, &Options::default()).unwrap();
    assert_eq!(many.len(), targets.len());
    for (t, got) in targets.iter().zip(many) {
        let one = specialize(input, t, &Options::default());
        match (one, got) {
            (Ok(a), Ok(b)) => {
                assert!(a.bytes() == b.bytes(), "{what}: {}", t.id());
                assert_eq!(a.report(), b.report(), "{what}: {}", t.id());
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("{what}: {}: {a:?} vs {b:?}", t.id()),
        }
    }
}

#[test]
fn batch_equals_one_by_one_on_every_golden_case_and_processor() {
    let tables = ArchTables::embedded();
    let targets = all_targets(tables);
    let cases: Vec<_> = common::golden_cases("input.spv")
        .into_iter()
        .map(|dir| dir.join("input.spv"))
        .collect();
    assert!(cases.len() >= 20);
    for case in cases {
        let input = std::fs::read(&case).unwrap();
        assert_batch_equals_one_by_one(&input, &targets, &case.display().to_string());
    }
}

/// Generated modules with a hundred kernels, each an entry point whose
/// interface lists the predicate table: a batch lays the entry points down
/// once for all its groups (from 64 on in release builds), and each group
/// gets what a one-target run gives.
#[test]
fn batch_equals_one_by_one_with_a_hundred_entry_points() {
    let tables = ArchTables::embedded();
    let targets = all_targets(tables);
    for (every, calls) in [(3, true), (1, false)] {
        let input = generator::to_bytes(&generator::generate(100, every, calls));
        let what = format!("100 kernels, every {every}, calls {calls}");
        assert_batch_equals_one_by_one(&input, &targets, &what);
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

/// Batches through the command line: file names, the manifest, the report,
/// failures, re-runs.
#[cfg(feature = "cli")]
mod cli {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};
    use std::process::Output;

    use rspv_specialize::{ArchTables, Options, TargetOptions, specialize};
    use serde_json::Value;

    use super::common;

    fn golden(case: &str) -> String {
        common::golden_input(case).display().to_string()
    }

    fn run(args: &[&str]) -> Output {
        common::run_cli(args)
    }

    fn stderr(o: &Output) -> String {
        String::from_utf8_lossy(&o.stderr).into_owned()
    }

    fn ok(o: &Output, what: &str) {
        assert!(
            o.status.success(),
            "{what}: {:?}: {}",
            o.status.code(),
            stderr(o)
        );
    }

    /// The file names in `dir`.
    fn names(dir: &Path) -> BTreeSet<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }

    fn manifest(dir: &Path) -> Value {
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
    }

    /// Runs a batch of `targets` on `input` into `dir`; extra arguments last.
    fn batch(targets: &str, input: &str, dir: &Path, extra: &[&str]) -> Output {
        let mut args = vec![
            "--targets",
            targets,
            input,
            "--out-dir",
            dir.to_str().unwrap(),
        ];
        args.extend(extra);
        run(&args)
    }

    /// Checks every manifest entry against the library: the file is what
    /// `specialize` gives for the target as written (with the entry's wave
    /// choice), the entry names what it resolved to, and the file name
    /// follows `<target, ':' → '_'>[-wave64].spv`. Distinct outputs pass
    /// spirv-val.
    fn check_entries(dir: &Path, input: &str) -> Vec<Value> {
        let input_bytes = std::fs::read(input).unwrap();
        let tables = ArchTables::embedded();
        let entries = manifest(dir)["targets"].as_array().unwrap().clone();
        let mut outputs = Vec::new();
        for e in &entries {
            let given = e["target"].as_str().unwrap();
            let wave64 = e["wave64"].as_bool().unwrap();
            let t = tables
                .target_with(given, &TargetOptions { wave64 })
                .unwrap();
            assert_eq!(e["target_id"], t.id(), "{given}");
            assert_eq!(e["processor"], t.processor().name.as_str(), "{given}");
            assert_eq!(e["wavefront_size"], t.wavefront_size(), "{given}");
            let suffix = if wave64 { "-wave64" } else { "" };
            let file = format!("{}{suffix}.spv", given.replace(':', "_"));
            assert_eq!(e["file"], file.as_str(), "{given}");
            let data = std::fs::read(dir.join(&file)).unwrap();
            let want = specialize(&input_bytes, &t, &Options::default()).unwrap();
            assert!(data == want.bytes(), "{file} differs from the library's");
            outputs.push((file, data));
        }
        let made: Vec<common::Made> = outputs
            .iter()
            .map(|(file, data)| common::Made {
                input: &input_bytes,
                output: data,
                what: file.clone(),
            })
            .collect();
        common::assert_outputs_valid(&made);
        entries
    }

    #[test]
    fn files_are_named_as_the_targets_were_written() {
        let dir = common::fresh_dir("batch", "names");
        let out = dir.join("out");
        let input = golden("dispatch-chain");
        ok(
            &batch("gfx600,tahiti,gfx90a:xnack+,gfx1100", &input, &out, &["-q"]),
            "batch",
        );
        assert_eq!(
            names(&out),
            [
                "gfx1100.spv",
                "gfx600.spv",
                "gfx90a_xnack+.spv",
                "manifest.json",
                "tahiti.spv"
            ]
            .map(String::from)
            .into()
        );
        let entries = check_entries(&out, &input);
        let given: Vec<&str> = entries
            .iter()
            .map(|e| e["target"].as_str().unwrap())
            .collect();
        assert_eq!(given, ["gfx600", "tahiti", "gfx90a:xnack+", "gfx1100"]);
        assert_eq!(entries[1]["processor"], "gfx600");
        assert_eq!(entries[3]["wavefront_size"], 32);
        assert_eq!(manifest(&out)["wave64"], false);
        assert_eq!(
            std::fs::read(out.join("gfx600.spv")).unwrap(),
            std::fs::read(out.join("tahiti.spv")).unwrap()
        );
    }

    #[test]
    fn wave64_is_in_the_file_names_and_the_manifest() {
        let dir = common::fresh_dir("batch", "wave64");
        let input = golden("dispatch-chain");
        let out = dir.join("some");
        ok(
            &batch("gfx1100,gfx942", &input, &out, &["--wave64", "-q"]),
            "--wave64",
        );
        assert_eq!(
            names(&out),
            ["gfx1100-wave64.spv", "gfx942-wave64.spv", "manifest.json"]
                .map(String::from)
                .into()
        );
        assert_eq!(manifest(&out)["wave64"], true);
        for e in check_entries(&out, &input) {
            assert_eq!(e["wave64"], true);
            assert_eq!(e["wavefront_size"], 64);
        }
        // Every processor: wave64 where it runs wave64; wave32-only ones keep
        // their only size and no suffix.
        let all = dir.join("all");
        ok(
            &run(&[
                "--all-targets",
                "--wave64",
                &input,
                "--out-dir",
                all.to_str().unwrap(),
                "-q",
            ]),
            "--all-targets --wave64",
        );
        let entries = check_entries(&all, &input);
        let tables = ArchTables::embedded();
        assert_eq!(entries.len(), tables.processors().len());
        let mut wave32_only = 0;
        for e in &entries {
            let p = tables.processor(e["target"].as_str().unwrap()).unwrap();
            let runs64 = p.wavefront_sizes.contains(&64);
            assert_eq!(e["wave64"], runs64, "{}", e["target"]);
            wave32_only += usize::from(!runs64);
        }
        assert!(wave32_only > 0, "no wave32-only processor was tried");
    }

    #[test]
    fn the_report_is_text_unless_json_is_asked_for() {
        let dir = common::fresh_dir("batch", "report");
        let input = golden("dispatch-chain");
        let targets = "gfx942,gfx950,gfx1100,gfx1101,tahiti";
        let o = batch(targets, &input, &dir.join("text"), &[]);
        ok(&o, "text report");
        let text = stderr(&o);
        assert!(serde_json::from_str::<Value>(&text).is_err(), "{text}");
        // gfx942 and gfx950 alike (mai), gfx1100 and gfx1101 alike (wmma),
        // tahiti alone (none).
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines.len(),
            4,
            "one line per distinct rewrite, then a summary:\n{text}"
        );
        assert!(lines[0].starts_with("gfx942, gfx950 [wave64]: "), "{text}");
        assert!(lines[0].contains("true: has.mai-insts [2]"), "{text}");
        assert!(
            lines[1].starts_with("gfx1100, gfx1101 [wave32]: "),
            "{text}"
        );
        assert!(lines[2].starts_with("tahiti=gfx600 [wave64]: "), "{text}");
        assert!(lines[2].contains("true: none"), "{text}");
        assert!(
            lines[3].contains("wrote 5 module(s) (3 distinct)"),
            "{text}"
        );

        let o = batch(targets, &input, &dir.join("json"), &["--report", "json"]);
        ok(&o, "JSON report");
        let v: Value = serde_json::from_slice(&o.stderr).unwrap();
        assert_eq!(v["modules"], 5);
        let rewrites = v["rewrites"].as_array().unwrap();
        assert_eq!(rewrites.len(), 3);
        assert_eq!(v["distinct"], 3);
        let tahiti = &rewrites[2]["targets"][0];
        assert_eq!(tahiti["target"], "tahiti");
        assert_eq!(tahiti["processor"], "gfx600");
        assert_eq!(tahiti["wavefront_size"], 64);
        assert_eq!(tahiti["file"], "tahiti.spv");
        let ids: Vec<u64> = rewrites[0]["predicates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["spec_id"].as_u64().unwrap())
            .collect();
        assert_eq!(ids, [0, 1, 2], "SpecId order");
        let quiet = batch(targets, &input, &dir.join("quiet"), &["--quiet"]);
        ok(&quiet, "--quiet");
        assert!(quiet.stderr.is_empty(), "{}", stderr(&quiet));
    }

    #[test]
    fn identical_failures_are_listed_once_with_their_targets() {
        let dir = common::fresh_dir("batch", "failures");
        let out = dir.join("out");
        let o = batch(
            "gfx600,tahiti,gfx942",
            &golden("unresolved-store"),
            &out,
            &[],
        );
        assert_eq!(o.status.code(), Some(1));
        let e = stderr(&o);
        assert!(e.contains("3 of 3 targets failed, nothing written:"), "{e}");
        assert_eq!(e.matches("unresolved use(s)").count(), 1, "{e}");
        assert!(
            e.contains("\n  gfx600, tahiti, gfx942: 2 unresolved use(s)"),
            "{e}"
        );
        assert!(!out.exists());
        // Distinct failures each get their own entry; unknown targets are
        // all listed, before the module is read.
        let o = batch("gfx9999,gfx942,gfx95", "no-such-input.spv", &out, &[]);
        assert_eq!(o.status.code(), Some(1));
        let e = stderr(&o);
        assert!(e.contains("2 of 3 targets failed"), "{e}");
        assert!(e.contains("\n  gfx9999: unknown target `gfx9999`"), "{e}");
        assert!(e.contains("\n  gfx95: unknown target `gfx95`"), "{e}");
        assert!(!e.contains("no-such-input"), "{e}");
        assert!(!out.exists());
    }

    #[test]
    fn a_rerun_removes_what_the_earlier_manifest_listed_and_nothing_else() {
        let dir = common::fresh_dir("batch", "rerun");
        let out = dir.join("out");
        let input = golden("dispatch-chain");
        ok(&batch("gfx942,gfx1100", &input, &out, &["-q"]), "first run");
        std::fs::write(out.join("notes.txt"), b"mine").unwrap();
        ok(&batch("gfx950", &input, &out, &["-q"]), "second run");
        assert_eq!(
            names(&out),
            ["gfx950.spv", "manifest.json", "notes.txt"]
                .map(String::from)
                .into()
        );
        check_entries(&out, &input);

        // A manifest naming paths that lead out of the directory, into a
        // subdirectory, a directory itself, or the manifest: none of those
        // is removed; the plain file it names is.
        let victim = dir.join("victim.spv");
        let abs = dir.join("absolute.spv");
        std::fs::write(&victim, b"keep").unwrap();
        std::fs::write(&abs, b"keep").unwrap();
        std::fs::create_dir(out.join("sub")).unwrap();
        std::fs::write(out.join("sub/x.spv"), b"keep").unwrap();
        std::fs::create_dir(out.join("adir.spv")).unwrap();
        let hostile = serde_json::json!({ "targets": [
            { "file": "../victim.spv" },
            { "file": abs.to_str().unwrap() },
            { "file": "sub/x.spv" },
            { "file": "adir.spv" },
            { "file": "manifest.json" },
            { "file": 7 },
            { "file": "gfx950.spv" },
        ]});
        std::fs::write(out.join("manifest.json"), hostile.to_string()).unwrap();
        ok(
            &batch("gfx1201", &input, &out, &["-q"]),
            "run over a hostile manifest",
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&abs).unwrap(), b"keep");
        assert_eq!(std::fs::read(out.join("sub/x.spv")).unwrap(), b"keep");
        assert!(out.join("adir.spv").is_dir());
        assert_eq!(
            names(&out),
            [
                "adir.spv",
                "gfx1201.spv",
                "manifest.json",
                "notes.txt",
                "sub"
            ]
            .map(String::from)
            .into()
        );

        // Not a manifest: nothing is removed, and the run says so.
        std::fs::write(out.join("manifest.json"), b"not json").unwrap();
        let o = batch("gfx942", &input, &out, &["-q"]);
        ok(&o, "run over a broken manifest");
        assert!(
            stderr(&o).contains("no earlier outputs removed"),
            "{}",
            stderr(&o)
        );
        assert!(out.join("gfx1201.spv").is_file());
        assert!(out.join("gfx942.spv").is_file());
    }

    #[test]
    fn out_dir_must_be_a_directory() {
        let dir = common::fresh_dir("batch", "notdir");
        let file: PathBuf = dir.join("plain");
        std::fs::write(&file, b"data").unwrap();
        let o = batch("gfx942", &golden("dispatch-chain"), &file, &[]);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains(&format!("{}: not a directory", file.display())));
        assert_eq!(std::fs::read(&file).unwrap(), b"data");
        // --target with --out-dir is a usage error; nothing is created.
        let o = run(&[
            "--target",
            "gfx942",
            &golden("dispatch-chain"),
            "--out-dir",
            dir.join("new").to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2));
        assert!(!dir.join("new").exists());
    }
}
