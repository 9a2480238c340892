//! The arch tables cross-checked against a real compiler.
//!
//! `tests/data/clang22/matrix.tsv` records, for about a hundred builtins
//! spread over the feature families and every processor clang-22 shares
//! with our tables (the dual-wave ones again with `-mwavefrontsize64`),
//! whether clang-22 compiles a call to the builtin (`1`) or rejects it with
//! "needs target feature" (`0`), or lacks the builtin (`-`). It was produced
//! by `tools/clang22_matrix.py` from `tests/data/clang22/builtins.c`; this
//! test needs no clang. Each cell must equal our value of
//! `has.<requirement>` for that target, unless
//! `tests/data/clang22/differences.tsv` lists the pair with its reason; a
//! listed difference that no longer occurs fails too.

mod backend;

use std::collections::{BTreeMap, BTreeSet};

use backend::LlcTarget;
use rspv_specialize::ArchTables;

/// One row of the matrix: a builtin, its requirement, clang-22's answers.
struct Row {
    builtin: String,
    requires: String,
    cells: Vec<char>,
}

fn matrix() -> (Vec<LlcTarget>, Vec<Row>) {
    let path = backend::differences_path().with_file_name("matrix.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().expect("matrix header").split('\t').collect();
    assert_eq!(header[..2], ["builtin", "requires"], "{}", path.display());
    let targets: Vec<LlcTarget> = header[2..].iter().map(|t| LlcTarget::parse(t)).collect();
    let rows = lines
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), targets.len() + 2, "{}: {line}", path.display());
            let cells: Vec<char> = f[2..]
                .iter()
                .map(|c| match *c {
                    "1" => '1',
                    "0" => '0',
                    "-" => '-',
                    other => panic!("{}: bad cell `{other}` in {}", path.display(), f[0]),
                })
                .collect();
            Row {
                builtin: f[0].to_string(),
                requires: f[1].to_string(),
                cells,
            }
        })
        .collect();
    (targets, rows)
}

/// What the differences file says for a cell that differs.
fn describe(cell: char) -> &'static str {
    match cell {
        '1' => "clang-22 accepts",
        '0' => "clang-22 rejects",
        _ => "clang-22 lacks the builtin",
    }
}

#[test]
fn has_values_match_clang22() {
    let tables = ArchTables::embedded();
    let (targets, rows) = matrix();
    let processors: BTreeSet<&str> = targets.iter().map(|t| t.cpu.as_str()).collect();
    assert!(
        processors.len() >= 53 && rows.len() >= 90,
        "the matrix covers only {} processors and {} builtins",
        processors.len(),
        rows.len()
    );
    let families: BTreeSet<&str> = rows.iter().map(|r| r.requires.as_str()).collect();
    assert!(
        families.len() >= 60,
        "only {} requirement strings",
        families.len()
    );
    // The matrix must describe the builtins as our tables do.
    for r in &rows {
        let ours = tables.builtins().iter().find(|b| b.name == r.builtin);
        assert_eq!(
            ours.map(|b| b.requires.as_str()),
            Some(r.requires.as_str()),
            "{}: the tables' requirement changed; rerun tools/clang22_matrix.py",
            r.builtin
        );
    }

    let mut listed: BTreeMap<(String, LlcTarget), (String, String)> = BTreeMap::new();
    for d in backend::differences()
        .into_iter()
        .filter(|d| d.kind == "builtin")
    {
        for t in d.targets {
            let key = (d.subject.clone(), t);
            assert!(
                listed
                    .insert(key.clone(), (d.what.clone(), d.reason.clone()))
                    .is_none(),
                "differences file lists {} on {} twice",
                key.0,
                key.1
            );
        }
    }

    let mut problems = Vec::new();
    let (mut compared, mut agree) = (0, 0);
    for r in &rows {
        for (t, &cell) in targets.iter().zip(&r.cells) {
            let target = tables
                .target_with(&t.cpu, &t.options())
                .unwrap_or_else(|e| panic!("{t}: {e}"));
            let ours = target
                .evaluate(&format!("has.{}", r.requires))
                .unwrap_or_else(|e| panic!("{}: {e}", r.builtin))
                .value;
            compared += 1;
            let key = (r.builtin.clone(), t.clone());
            let same = (cell == '1') == ours && cell != '-';
            match (same, listed.remove(&key)) {
                (true, None) => agree += 1,
                (true, Some((what, _))) => problems.push(format!(
                    "differences file: {} on {t} ({what}) agrees with clang-22 now; remove it",
                    r.builtin
                )),
                (false, None) => problems.push(format!(
                    "{} on {t}: has.{} is {ours} for us but {} (not in the differences file)",
                    r.builtin,
                    r.requires,
                    describe(cell)
                )),
                (false, Some((what, _))) if what != describe(cell) => problems.push(format!(
                    "{} on {t}: the differences file says `{what}`, the matrix `{}`",
                    r.builtin,
                    describe(cell)
                )),
                (false, Some(_)) => {}
            }
        }
    }
    for ((builtin, t), (what, _)) in listed {
        problems.push(format!(
            "differences file: {builtin} on {t} ({what}) is not in the matrix"
        ));
    }
    eprintln!(
        "clang-22 matrix: {} builtins x {} targets: {compared} compared, {agree} agree",
        rows.len(),
        targets.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
