//! Predicate values against an independent model.
//!
//! The model below is written from scratch in this file from
//! `tests/data/reference/processors.yaml` (the LLVM-derived reference copy,
//! not the embedded `arch-tables/`): `is.X` is true when X, with a legacy
//! alias resolved through the reference `aliases`, is the target's canonical
//! processor; `has.EXPR` follows clang's grammar (`,` AND, `|` OR, `,` binds
//! tighter, parentheses group, empty = true) over the reference `features`.
//! The library's `inspect` + `Inspection::resolve` and the CLI's JSON output
//! must agree with it for every golden module and every processor.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use common::repo;

use rspv_specialize::table::Predicate;
use rspv_specialize::target::PredicateKind;
use rspv_specialize::{ArchTables, Inspection, TargetOptions, inspect};
use serde::Deserialize;

// ---------------------------------------------------------------------------
// The independent model.

#[derive(Deserialize)]
struct RefFile {
    processors: Vec<RefProcessor>,
}

#[derive(Deserialize)]
struct RefProcessor {
    name: String,
    aliases: Vec<String>,
    generic: bool,
    wavefront_sizes: Vec<u32>,
    features: Vec<String>,
    #[serde(default)]
    arch_attrs: Vec<String>,
}

struct Reference {
    processors: Vec<RefProcessor>,
    /// Canonical name or alias → index into `processors`.
    by_name: HashMap<String, usize>,
}

impl Reference {
    fn load() -> Reference {
        let path = repo().join("tests/data/reference/processors.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        let file: RefFile = serde_yaml::from_str(&text).unwrap();
        let mut by_name = HashMap::new();
        for (i, p) in file.processors.iter().enumerate() {
            for n in std::iter::once(&p.name).chain(&p.aliases) {
                assert!(by_name.insert(n.clone(), i).is_none(), "{n} twice");
            }
        }
        Reference {
            processors: file.processors,
            by_name,
        }
    }

    fn processor(&self, name: &str) -> Option<&RefProcessor> {
        self.by_name.get(name).map(|&i| &self.processors[i])
    }

    /// The canonical processor and feature set of a target ID
    /// (`proc[:feature±]*`), with wave64 on dual-wave processors if asked.
    fn target(&self, id: &str, wave64: bool) -> (&str, BTreeSet<String>) {
        let mut parts = id.split(':');
        let p = self
            .processor(parts.next().unwrap())
            .unwrap_or_else(|| panic!("reference does not know {id}"));
        let mut features: BTreeSet<String> = p.features.iter().cloned().collect();
        let dual = p.wavefront_sizes.contains(&32) && p.wavefront_sizes.contains(&64);
        if wave64 && dual {
            features.remove("wavefrontsize32");
            features.insert("wavefrontsize64".to_string());
        }
        for m in parts {
            if let Some(f) = m.strip_suffix('+') {
                features.insert(f.to_string());
            } else if let Some(f) = m.strip_suffix('-') {
                features.remove(f);
            } else {
                panic!("bad modifier {m}");
            }
        }
        (&p.name, features)
    }

    /// The value of predicate `name` for target `id`.
    fn value(&self, id: &str, wave64: bool, name: &str) -> bool {
        let (canonical, features) = self.target(id, wave64);
        if let Some(x) = name.strip_prefix("is.") {
            self.processor(x).is_some_and(|p| p.name == canonical)
        } else if let Some(expr) = name.strip_prefix("has.") {
            clang_expr(expr, &|f| features.contains(f))
        } else {
            panic!("not a predicate name: {name}")
        }
    }
}

/// clang's required-features grammar, as a recursive-descent parser:
/// `or := and ('|' and)*`, `and := term (',' term)*`,
/// `term := '(' or ')' | name`; an empty expression (or term) is true.
fn clang_expr(expr: &str, has: &dyn Fn(&str) -> bool) -> bool {
    struct P<'a> {
        s: &'a [u8],
        i: usize,
        has: &'a dyn Fn(&str) -> bool,
    }
    impl P<'_> {
        fn peek(&self) -> Option<u8> {
            self.s.get(self.i).copied()
        }
        fn or(&mut self) -> bool {
            let mut v = self.and();
            while self.peek() == Some(b'|') {
                self.i += 1;
                let r = self.and();
                v = v || r;
            }
            v
        }
        fn and(&mut self) -> bool {
            let mut v = self.term();
            while self.peek() == Some(b',') {
                self.i += 1;
                let r = self.term();
                v = v && r;
            }
            v
        }
        fn term(&mut self) -> bool {
            if self.peek() == Some(b'(') {
                self.i += 1;
                let v = self.or();
                assert_eq!(self.peek(), Some(b')'), "unbalanced");
                self.i += 1;
                return v;
            }
            let start = self.i;
            while let Some(c) = self.peek() {
                if matches!(c, b',' | b'|' | b'(' | b')') {
                    break;
                }
                self.i += 1;
            }
            let name = std::str::from_utf8(&self.s[start..self.i]).unwrap();
            name.is_empty() || (self.has)(name)
        }
    }
    let mut p = P {
        s: expr.as_bytes(),
        i: 0,
        has,
    };
    let v = p.or();
    assert_eq!(p.i, expr.len(), "trailing text in {expr}");
    v
}

#[test]
fn the_model_follows_clangs_grammar() {
    let e = |expr: &str, set: &[&str]| clang_expr(expr, &|f| set.contains(&f));
    assert!(e("", &[]));
    assert!(e("a", &["a"]));
    assert!(!e("a", &["b"]));
    assert!(e("a,b", &["a", "b"]));
    assert!(!e("a,b", &["a"]));
    assert!(e("a|b", &["b"]));
    assert!(!e("a|b", &["c"]));
    assert!(e("a,b|c", &["c"]));
    assert!(!e("a,b|c", &["a"]));
    assert!(e("a|b,c", &["a"]));
    assert!(!e("a|b,c", &["b"]));
    assert!(e("a,(b|c)", &["a", "c"]));
    assert!(!e("a,(b|c)", &["b", "c"]));
    assert!(e("(a|b),(c|d)", &["b", "d"]));
}

// ---------------------------------------------------------------------------
// Fixtures.

/// `(case name, input.spv path)` of every golden case.
fn golden_inputs() -> Vec<(String, PathBuf)> {
    common::golden_cases("input.spv")
        .into_iter()
        .map(|dir| {
            (
                dir.file_name().unwrap().to_string_lossy().into_owned(),
                dir.join("input.spv"),
            )
        })
        .collect()
}

/// Golden modules that have a predicate table, inspected.
fn golden_tables() -> Vec<(String, PathBuf, Inspection)> {
    let out: Vec<_> = golden_inputs()
        .into_iter()
        .filter_map(|(name, path)| {
            let t =
                inspect(&std::fs::read(&path).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
            t.has_table.then_some((name, path, t))
        })
        .collect();
    assert!(
        out.len() >= 15,
        "only {} golden modules with a table",
        out.len()
    );
    out
}

/// Decodes the table string of an `input.ll` (`c"is.gfx950 0\00..."`).
fn table_from_ll(ll: &str) -> Option<BTreeSet<(String, u32)>> {
    let line = ll
        .lines()
        .find(|l| l.starts_with("@llvm.amdgcn.feature.predicate.ids ="))?;
    let start = line.find("c\"")? + 2;
    let body = &line[start..line[start..].find('"')? + start];
    let mut bytes = Vec::new();
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            bytes.push(u8::from_str_radix(&body[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            bytes.push(b[i]);
            i += 1;
        }
    }
    assert_eq!(bytes.last(), Some(&0));
    Some(
        bytes[..bytes.len() - 1]
            .split(|&c| c == 0)
            .map(|e| {
                let s = std::str::from_utf8(e).unwrap();
                let (name, id) = s.rsplit_once(' ').unwrap();
                (name.to_string(), id.parse().unwrap())
            })
            .collect(),
    )
}

// ---------------------------------------------------------------------------
// Library against the model.

#[test]
fn embedded_tables_know_exactly_the_reference_processors() {
    let reference = Reference::load();
    let tables = ArchTables::embedded();
    let ours: BTreeSet<&str> = tables
        .processors()
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let theirs: BTreeSet<&str> = reference
        .processors
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(ours, theirs);
    for p in &reference.processors {
        for a in &p.aliases {
            let t = tables
                .target(a)
                .unwrap_or_else(|e| panic!("alias {a}: {e}"));
            assert_eq!(t.processor().name, p.name, "alias {a}");
        }
        assert_eq!(tables.processor(&p.name).unwrap().generic, p.generic);
    }
}

#[test]
fn golden_tables_match_their_sources() {
    let mut checked = 0;
    for (name, path, t) in golden_tables() {
        let ll = path.with_file_name("input.ll");
        let Ok(text) = std::fs::read_to_string(&ll) else {
            continue;
        };
        let Some(expected) = table_from_ll(&text) else {
            continue;
        };
        let got: BTreeSet<(String, u32)> = t
            .predicates
            .iter()
            .map(|p| (p.name.clone(), p.spec_id))
            .collect();
        assert_eq!(got, expected, "{name}");
        for p in &t.predicates {
            assert!(!p.sites.is_empty(), "{name}: {} has no call site", p.name);
            let kind = if p.name.starts_with("is.") {
                PredicateKind::Is
            } else {
                PredicateKind::Has
            };
            assert_eq!(p.kind, kind, "{name}: {}", p.name);
        }
        checked += 1;
    }
    assert!(
        checked >= 15,
        "only {checked} golden tables checked against input.ll"
    );
}

#[test]
fn every_golden_table_for_every_processor_matches_the_model() {
    let reference = Reference::load();
    let tables = ArchTables::embedded();
    let mut compared = 0;
    for (name, _, t) in golden_tables() {
        for p in tables.processors() {
            for wave64 in [false, true] {
                let opts = TargetOptions { wave64 };
                let target = match tables.target_with(&p.name, &opts) {
                    Ok(t) => t,
                    Err(e) => {
                        // Only wave64 on a wave32-only processor may fail.
                        assert!(
                            wave64 && !p.wavefront_sizes.contains(&64),
                            "{}: {e}",
                            p.name
                        );
                        continue;
                    }
                };
                let resolved = t.resolve(&target).unwrap();
                assert_eq!(resolved.len(), t.predicates.len());
                for r in resolved {
                    let want = reference.value(&p.name, wave64, &r.name);
                    assert_eq!(
                        r.value,
                        want,
                        "{name}: {} (SpecId {}) for {}{}",
                        r.name,
                        r.spec_id,
                        p.name,
                        if wave64 { " wave64" } else { "" }
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 1000, "only {compared} values compared");
}

/// Every `is.` name the reference knows (canonical and alias), an unknown
/// processor, every requirement expression of the builtins table, and a few
/// hand-made expressions, for every processor and target-ID variant.
#[test]
fn every_known_name_for_every_processor_matches_the_model() {
    let reference = Reference::load();
    let tables = ArchTables::embedded();
    let mut names: BTreeSet<String> = reference
        .by_name
        .keys()
        .map(|n| format!("is.{n}"))
        .collect();
    names.insert("is.gfx9999".to_string());
    for b in tables.builtins() {
        names.insert(format!("has.{}", b.requires));
    }
    for extra in [
        "has.",
        "has.mai-insts,wavefrontsize64",
        "has.gfx12-insts|gfx11-insts",
        "has.(gfx12-insts|gfx11-insts),wavefrontsize32",
        "has.dot10-insts,(mai-insts|wmma-256b-insts)",
        "has.xnack",
        "has.sramecc",
        "has.quantum-insts",
    ] {
        names.insert(extra.to_string());
    }
    let inspection = Inspection {
        has_table: true,
        predicates: names
            .iter()
            .enumerate()
            .map(|(i, n)| Predicate {
                spec_id: i as u32,
                name: n.clone(),
                kind: PredicateKind::split(n).unwrap().0,
                sites: vec![],
            })
            .collect(),
    };
    let mut ids: Vec<String> = Vec::new();
    for p in &reference.processors {
        ids.push(p.name.clone());
        ids.extend(p.aliases.iter().cloned());
        let attrs = &p.arch_attrs;
        let xnack = attrs.iter().any(|a| a == "FEATURE_XNACK");
        let sramecc = attrs.iter().any(|a| a == "FEATURE_SRAMECC");
        if xnack {
            ids.push(format!("{}:xnack+", p.name));
            ids.push(format!("{}:xnack-", p.name));
        }
        if sramecc && xnack {
            ids.push(format!("{}:sramecc+:xnack-", p.name));
            ids.push(format!("{}:sramecc-:xnack+", p.name));
        }
    }
    let mut compared = 0;
    for id in &ids {
        let target = tables.target(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        for r in inspection.resolve(&target).unwrap() {
            assert_eq!(
                r.value,
                reference.value(id, false, &r.name),
                "{} for {id}",
                r.name
            );
            compared += 1;
        }
    }
    assert!(compared > 10_000, "only {compared}");
}

#[test]
fn aliases_target_ids_and_generics() {
    let tables = ArchTables::embedded();
    let by =
        |target: &str, name: &str| tables.target(target).unwrap().evaluate(name).unwrap().value;
    // tahiti is gfx600, whichever side names it.
    assert!(by("tahiti", "is.gfx600"));
    assert!(by("gfx600", "is.tahiti"));
    assert!(by("tahiti", "is.tahiti"));
    assert!(!by("gfx601", "is.tahiti"));
    assert_eq!(tables.target("tahiti").unwrap().id(), "gfx600");
    // Target-ID modifiers keep the processor.
    let t = tables.target("gfx950:sramecc+:xnack-").unwrap();
    assert_eq!(t.processor().name, "gfx950");
    assert!(by("gfx950:sramecc+:xnack-", "is.gfx950"));
    assert!(by("gfx950:sramecc+:xnack-", "has.gfx950-insts"));
    assert!(!by("gfx950:sramecc+:xnack-", "is.gfx942"));
    // A generic target is its own processor.
    assert!(!by("gfx9-4-generic", "is.gfx942"));
    assert!(!by("gfx9-4-generic", "is.gfx950"));
    assert!(by("gfx9-4-generic", "is.gfx9-4-generic"));
    assert!(by("gfx9-4-generic", "has.mai-insts"));
    assert!(!by("gfx9-4-generic", "has.gfx950-insts"));
    // Golden modules agree.
    for (name, _, t) in golden_tables() {
        let generic = tables.target("gfx9-4-generic").unwrap();
        for r in t.resolve(&generic).unwrap() {
            if r.name.starts_with("is.") {
                assert!(!r.value, "{name}: {} true for gfx9-4-generic", r.name);
            }
        }
        let alias = t.resolve(&tables.target("tahiti").unwrap()).unwrap();
        let canonical = t.resolve(&tables.target("gfx600").unwrap()).unwrap();
        assert_eq!(alias, canonical, "{name}");
    }
}

#[test]
fn unknown_targets_suggest_names() {
    let tables = ArchTables::embedded();
    let e = tables.target("gfx95").unwrap_err().to_string();
    assert!(e.contains("unknown target `gfx95`"), "{e}");
    assert!(e.contains("gfx950"), "{e}");
    let e = tables.target("tahity").unwrap_err().to_string();
    assert!(e.contains("tahiti"), "{e}");
}

// ---------------------------------------------------------------------------
// The CLI's JSON against the model.

#[cfg(feature = "cli")]
mod cli {
    use super::common::run_cli;
    use super::*;
    use serde_json::Value;
    use std::collections::BTreeMap;

    fn json(args: &[&str]) -> Value {
        let out = run_cli(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {stderr}"))
    }

    fn golden(case: &str) -> String {
        common::golden_input(case).display().to_string()
    }

    /// Checks one `predicates` array against the model and the library.
    fn check_predicates(
        what: &str,
        preds: &Value,
        inspection: &Inspection,
        value_of: &dyn Fn(&str) -> Option<bool>,
    ) {
        let tables = ArchTables::embedded();
        let preds = preds
            .as_array()
            .unwrap_or_else(|| panic!("{what}: no predicates"));
        assert_eq!(preds.len(), inspection.predicates.len(), "{what}");
        let by_id: BTreeMap<u32, &Predicate> = inspection
            .predicates
            .iter()
            .map(|p| (p.spec_id, p))
            .collect();
        for p in preds {
            let id = p["spec_id"].as_u64().unwrap() as u32;
            let name = p["name"].as_str().unwrap();
            let lib = by_id[&id];
            assert_eq!(name, lib.name, "{what}");
            assert_eq!(p["kind"], lib.kind.as_str(), "{what}");
            assert_eq!(
                p["call_sites"].as_u64().unwrap() as usize,
                lib.sites.len(),
                "{what}"
            );
            assert!(p["note"].is_null() || p["note"].is_string(), "{what}");
            let builtins: Vec<&str> = p["builtins"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_str().unwrap())
                .collect();
            let expected: Vec<&str> = match name.strip_prefix("has.") {
                Some(expr) => tables
                    .builtins_requiring(expr)
                    .map(|b| b.name.as_str())
                    .collect(),
                None => vec![],
            };
            assert_eq!(builtins, expected, "{what}: {name}");
            match value_of(name) {
                Some(v) => assert_eq!(p["value"], Value::Bool(v), "{what}: {name}"),
                None => assert!(p.get("value").is_none(), "{what}: {name} has a value"),
            }
        }
    }

    #[test]
    fn json_for_one_target_matches_the_model() {
        let reference = Reference::load();
        let cases = [
            "alias-and-or",
            "dispatch-chain",
            "multi-callsite",
            "empty-has",
            "direct-branch",
        ];
        let targets = [
            "gfx950",
            "gfx942",
            "tahiti",
            "gfx1100",
            "gfx1201",
            "gfx1250",
            "gfx9-4-generic",
            "gfx950:sramecc+:xnack-",
            "gfx90a:xnack+",
        ];
        for case in cases {
            let path = golden(case);
            let inspection = inspect(&std::fs::read(&path).unwrap()).unwrap();
            for target in targets {
                let v = json(&["inspect", "--format", "json", "--target", target, &path]);
                let what = format!("{case} --target {target}");
                let t = ArchTables::embedded().target(target).unwrap();
                // Named as given, with what it resolved to.
                assert_eq!(v["target"], target, "{what}");
                assert_eq!(v["target_id"], t.id(), "{what}");
                assert_eq!(v["processor"], t.processor().name.as_str(), "{what}");
                assert_eq!(v["wavefront_size"], t.wavefront_size(), "{what}");
                assert_eq!(v["has_table"], true, "{what}");
                check_predicates(&what, &v["predicates"], &inspection, &|n| {
                    Some(reference.value(target, false, n))
                });
            }
            // wave64 on a dual-wave processor.
            let v = json(&[
                "inspect", "--format", "json", "--wave64", "--target", "gfx1100", &path,
            ]);
            check_predicates(
                &format!("{case} gfx1100 wave64"),
                &v["predicates"],
                &inspection,
                &|n| Some(reference.value("gfx1100", true, n)),
            );
            // Without a target: the same, without values.
            let v = json(&["inspect", "--format", "json", &path]);
            check_predicates(
                &format!("{case} (no target)"),
                &v["predicates"],
                &inspection,
                &|_| None,
            );
        }
    }

    #[test]
    fn json_for_all_targets_matches_the_model() {
        let reference = Reference::load();
        for case in ["alias-and-or", "dispatch-chain"] {
            let path = golden(case);
            let inspection = inspect(&std::fs::read(&path).unwrap()).unwrap();
            let v = json(&["inspect", "--format", "json", "--all-targets", &path]);
            let targets = v["targets"].as_array().unwrap();
            assert_eq!(targets.len(), reference.processors.len(), "{case}");
            let mut seen = BTreeSet::new();
            for t in targets {
                let target = t["target"].as_str().unwrap();
                assert!(seen.insert(target.to_string()), "{target} twice");
                check_predicates(
                    &format!("{case} all/{target}"),
                    &t["predicates"],
                    &inspection,
                    &|n| Some(reference.value(target, false, n)),
                );
            }
        }
    }

    #[test]
    fn generic_and_alias_targets_on_the_command_line() {
        // A module with `is.gfx942`: false for the generic target that covers it.
        let (case, _, _) = golden_tables()
            .into_iter()
            .find(|(_, _, t)| t.predicates.iter().any(|p| p.name == "is.gfx942"))
            .expect("a golden module with is.gfx942");
        let v = json(&[
            "inspect",
            "--format",
            "json",
            "--target",
            "gfx9-4-generic",
            &golden(&case),
        ]);
        let preds = v["predicates"].as_array().unwrap();
        let is942 = preds.iter().find(|p| p["name"] == "is.gfx942").unwrap();
        assert_eq!(is942["value"], false);
        let v = json(&[
            "inspect",
            "--format",
            "json",
            "--target",
            "gfx942",
            &golden(&case),
        ]);
        let is942 = v["predicates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "is.gfx942")
            .cloned()
            .unwrap();
        assert_eq!(is942["value"], true);

        let v = json(&[
            "inspect",
            "--format",
            "json",
            "--target",
            "tahiti",
            &golden("alias-and-or"),
        ]);
        assert_eq!(v["target"], "tahiti");
        assert_eq!(v["processor"], "gfx600");
        assert_eq!(v["wavefront_size"], 64);
        let tahiti = v["predicates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "is.tahiti")
            .cloned()
            .unwrap();
        assert_eq!(tahiti["value"], true);
    }

    #[test]
    fn unknown_target_fails_with_suggestions() {
        for args in [
            vec!["inspect", "--target", "gfx95", "GOLDEN"],
            vec!["inspect", "--format", "json", "--target", "gfx95", "GOLDEN"],
        ] {
            let g = golden("direct-branch");
            let args: Vec<&str> = args
                .iter()
                .map(|a| if *a == "GOLDEN" { g.as_str() } else { a })
                .collect();
            let out = run_cli(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{stderr}");
            assert!(stderr.starts_with("error: "), "{stderr}");
            assert!(stderr.contains("unknown target `gfx95`"), "{stderr}");
            assert!(stderr.contains("gfx950"), "{stderr}");
            assert!(!stderr.contains("panicked"), "{stderr}");
            assert!(out.stdout.is_empty());
        }
        let out = run_cli(&[
            "inspect",
            "--target",
            "gfx1100:xnack+",
            &golden("direct-branch"),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("xnack"), "{stderr}");
    }
}
