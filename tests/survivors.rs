//! Independent check of which calls survive specialization.
//!
//! Each `tests/golden/<case>/survivors.yaml` (written by hand from `input.ll`
//! and the case README, not by running the tool) maps every function some
//! kernel calls to the condition under which a call to it survives: a
//! boolean expression over the case's predicate names (`always`, `is.X`,
//! `has.EXPR`, `!`, `&&`, `||`, parentheses).
//!
//! For every processor in the embedded arch tables, the test specializes
//! `input.spv`, collects the callee names of all `OpFunctionCall`s left in
//! the output (parsed from raw words by the tests' own reader in
//! `tests/kasm`, without the crate's own module code) and compares them
//! with the set predicted by evaluating the conditions. Predicate values
//! come from this file's own evaluation of the LLVM-derived reference
//! `tests/data/reference/processors.yaml`, not from the crate's arch tables
//! or feature-expression code.

mod common;
mod kasm;

use std::collections::{BTreeMap, BTreeSet};

use pretty_assertions::assert_eq;
use rspv_specialize::{ArchTables, Options, specialize};
use serde::Deserialize;

// ---------------------------------------------------------------------------
// Reference processors (tests/data/reference/processors.yaml)

#[derive(Debug, Deserialize)]
struct RefFile {
    processors: Vec<RefProcessor>,
}

#[derive(Debug, Deserialize)]
struct RefProcessor {
    name: String,
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    features: Vec<String>,
}

fn load_reference() -> RefFile {
    let path = common::repo().join("tests/data/reference/processors.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Predicate values for one reference processor.
struct Env<'a> {
    all: &'a [RefProcessor],
    proc_: &'a RefProcessor,
}

impl Env<'_> {
    /// Value of one table name (`is.X` / `has.EXPR`).
    fn predicate(&self, name: &str) -> bool {
        if let Some(x) = name.strip_prefix("is.") {
            // X names this processor, directly or through an alias that
            // resolves to it. Unknown names are false.
            let named = self
                .all
                .iter()
                .find(|p| p.name == x || p.aliases.iter().any(|a| a == x));
            named.is_some_and(|p| p.name == self.proc_.name)
        } else if let Some(expr) = name.strip_prefix("has.") {
            has_expr(expr, &self.proc_.features)
        } else {
            panic!("not a predicate name: {name:?}")
        }
    }
}

/// clang's required-features grammar: `,` AND, `|` OR, `,` binds tighter
/// than `|`, parentheses group, empty is true.
fn has_expr(expr: &str, features: &[String]) -> bool {
    let expr = expr.trim();
    if expr.is_empty() {
        return true;
    }
    let chars: Vec<char> = expr.chars().collect();
    let mut pos = 0;
    let v = feat_or(&chars, &mut pos, features);
    assert_eq!(
        pos,
        chars.len(),
        "trailing text in feature expression {expr:?}"
    );
    v
}

fn feat_or(c: &[char], pos: &mut usize, f: &[String]) -> bool {
    let mut v = feat_and(c, pos, f);
    while *pos < c.len() && c[*pos] == '|' {
        *pos += 1;
        let r = feat_and(c, pos, f);
        v = v || r;
    }
    v
}

fn feat_and(c: &[char], pos: &mut usize, f: &[String]) -> bool {
    let mut v = feat_atom(c, pos, f);
    while *pos < c.len() && c[*pos] == ',' {
        *pos += 1;
        let r = feat_atom(c, pos, f);
        v = v && r;
    }
    v
}

fn feat_atom(c: &[char], pos: &mut usize, f: &[String]) -> bool {
    if *pos < c.len() && c[*pos] == '(' {
        *pos += 1;
        let v = feat_or(c, pos, f);
        assert!(
            *pos < c.len() && c[*pos] == ')',
            "missing ')' in feature expression"
        );
        *pos += 1;
        return v;
    }
    let start = *pos;
    while *pos < c.len() && !matches!(c[*pos], ',' | '|' | '(' | ')') {
        *pos += 1;
    }
    let name: String = c[start..*pos].iter().collect::<String>().trim().to_string();
    assert!(!name.is_empty(), "empty feature name in expression");
    f.contains(&name)
}

// ---------------------------------------------------------------------------
// Survival conditions

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    LParen,
    RParen,
    Not,
    And,
    Or,
    Name(String),
}

#[derive(Debug)]
enum Cond {
    Always,
    Pred(String),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

fn tokenize(s: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    for chunk in s.split_whitespace() {
        match chunk {
            "&&" => out.push(Tok::And),
            "||" => out.push(Tok::Or),
            _ => {
                let mut name = String::new();
                for ch in chunk.chars() {
                    let t = match ch {
                        '(' => Tok::LParen,
                        ')' => Tok::RParen,
                        '!' => Tok::Not,
                        _ => {
                            name.push(ch);
                            continue;
                        }
                    };
                    if !name.is_empty() {
                        out.push(Tok::Name(std::mem::take(&mut name)));
                    }
                    out.push(t);
                }
                if !name.is_empty() {
                    out.push(Tok::Name(name));
                }
            }
        }
    }
    out
}

fn parse_cond(s: &str) -> Cond {
    let toks = tokenize(s);
    let mut pos = 0;
    let c = cond_or(&toks, &mut pos, s);
    assert_eq!(pos, toks.len(), "trailing tokens in condition {s:?}");
    c
}

fn cond_or(t: &[Tok], pos: &mut usize, s: &str) -> Cond {
    let mut c = cond_and(t, pos, s);
    while t.get(*pos) == Some(&Tok::Or) {
        *pos += 1;
        c = Cond::Or(Box::new(c), Box::new(cond_and(t, pos, s)));
    }
    c
}

fn cond_and(t: &[Tok], pos: &mut usize, s: &str) -> Cond {
    let mut c = cond_unary(t, pos, s);
    while t.get(*pos) == Some(&Tok::And) {
        *pos += 1;
        c = Cond::And(Box::new(c), Box::new(cond_unary(t, pos, s)));
    }
    c
}

fn cond_unary(t: &[Tok], pos: &mut usize, s: &str) -> Cond {
    let tok = t.get(*pos).cloned();
    *pos += 1;
    match tok {
        Some(Tok::Not) => Cond::Not(Box::new(cond_unary(t, pos, s))),
        Some(Tok::LParen) => {
            let c = cond_or(t, pos, s);
            assert_eq!(
                t.get(*pos),
                Some(&Tok::RParen),
                "missing ')' in condition {s:?}"
            );
            *pos += 1;
            c
        }
        Some(Tok::Name(n)) if n == "always" => Cond::Always,
        Some(Tok::Name(n)) => {
            assert!(
                n.starts_with("is.") || n.starts_with("has."),
                "bad predicate name {n:?} in condition {s:?}"
            );
            Cond::Pred(n)
        }
        other => panic!("unexpected token {other:?} in condition {s:?}"),
    }
}

impl Cond {
    fn eval(&self, env: &Env<'_>) -> bool {
        match self {
            Cond::Always => true,
            Cond::Pred(n) => env.predicate(n),
            Cond::Not(c) => !c.eval(env),
            Cond::And(a, b) => a.eval(env) && b.eval(env),
            Cond::Or(a, b) => a.eval(env) || b.eval(env),
        }
    }

    fn predicates<'a>(&'a self, out: &mut BTreeSet<&'a str>) {
        match self {
            Cond::Always => {}
            Cond::Pred(n) => {
                out.insert(n);
            }
            Cond::Not(c) => c.predicates(out),
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.predicates(out);
                b.predicates(out);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Raw SPIR-V walking

const OP_NAME: u32 = 5;
const OP_CONSTANT: u32 = 43;
const OP_CONSTANT_COMPOSITE: u32 = 44;
const OP_CONSTANT_NULL: u32 = 46;
const OP_FUNCTION_CALL: u32 = 57;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const DECORATION_LINKAGE_ATTRIBUTES: u32 = 41;

/// Instructions as (opcode, all words including the first).
fn instructions(bytes: &[u8]) -> Vec<(u32, Vec<u32>)> {
    assert!(
        bytes.len().is_multiple_of(4) && bytes.len() >= 20,
        "not a SPIR-V binary"
    );
    let mut words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if words[0] == 0x0302_2307 {
        for w in &mut words {
            *w = w.swap_bytes();
        }
    }
    assert_eq!(words[0], 0x0723_0203, "bad SPIR-V magic");
    kasm::instructions(&words)
        .into_iter()
        .map(|(_, opcode, w)| (opcode, w.to_vec()))
        .collect()
}

/// A NUL-terminated, little-endian packed literal string (valid UTF-8).
fn literal_string(words: &[u32]) -> String {
    String::from_utf8(kasm::literal_bytes(words)).unwrap()
}

/// Names of the callees of every OpFunctionCall: the LinkageAttributes name
/// if the callee has one, else its OpName, else `%<id>`.
fn callees(bytes: &[u8]) -> BTreeSet<String> {
    let insts = instructions(bytes);
    let mut linkage: BTreeMap<u32, String> = BTreeMap::new();
    let mut names: BTreeMap<u32, String> = BTreeMap::new();
    let mut called: BTreeSet<u32> = BTreeSet::new();
    for (op, w) in &insts {
        match *op {
            OP_NAME => {
                names.insert(w[1], literal_string(&w[2..]));
            }
            OP_DECORATE if w.len() > 3 && w[2] == DECORATION_LINKAGE_ATTRIBUTES => {
                linkage.insert(w[1], literal_string(&w[3..]));
            }
            OP_FUNCTION_CALL => {
                called.insert(w[3]);
            }
            _ => {}
        }
    }
    called
        .into_iter()
        .map(|id| {
            linkage
                .get(&id)
                .or_else(|| names.get(&id))
                .cloned()
                .unwrap_or_else(|| format!("%{id}"))
        })
        .collect()
}

/// Names in the module's predicate table (empty if there is none).
fn table_names(bytes: &[u8]) -> BTreeSet<String> {
    let insts = instructions(bytes);
    let Some(table_id) = insts
        .iter()
        .find(|(op, w)| *op == OP_NAME && literal_string(&w[2..]) == kasm::TABLE)
        .map(|(_, w)| w[1])
    else {
        return BTreeSet::new();
    };
    let by_result = |id: u32| {
        insts
            .iter()
            .find(|(op, w)| {
                matches!(
                    *op,
                    OP_VARIABLE | OP_CONSTANT | OP_CONSTANT_COMPOSITE | OP_CONSTANT_NULL
                ) && w.len() > 2
                    && w[2] == id
            })
            .unwrap_or_else(|| panic!("no definition of %{id}"))
    };
    let (op, var) = by_result(table_id);
    assert_eq!(*op, OP_VARIABLE);
    let (op, init) = by_result(var[4]);
    assert_eq!(*op, OP_CONSTANT_COMPOSITE);
    let text: Vec<u8> = init[3..]
        .iter()
        .map(|&id| match by_result(id) {
            (OP_CONSTANT, w) => w[3] as u8,
            (OP_CONSTANT_NULL, _) => 0,
            (op, _) => panic!("table byte %{id} defined by opcode {op}"),
        })
        .collect();
    text.split(|&b| b == 0)
        .filter(|e| !e.is_empty())
        .map(|e| {
            let e = std::str::from_utf8(e).unwrap();
            let (name, spec_id) = e.rsplit_once(' ').expect("table entry without SpecId");
            spec_id.parse::<u32>().expect("non-numeric SpecId");
            name.to_string()
        })
        .collect()
}

// ---------------------------------------------------------------------------

/// Distinct outputs, each with the first processor that made it.
type Outputs = BTreeMap<Vec<u8>, String>;

#[test]
fn surviving_calls_match_predicate_semantics() {
    let reference = load_reference();
    let tables = ArchTables::embedded();
    let processors = tables.processors();
    assert!(!processors.is_empty());
    let cases = common::golden_cases("survivors.yaml");
    assert!(!cases.is_empty(), "no survivors.yaml found");

    // Only mismatching (case, target) pairs, keyed "case @ target".
    let mut expected_bad: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut got_bad: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut checked = 0usize;
    // Per case: its input and its distinct outputs (with the first
    // processor that made each), validated in one batch at the end.
    let mut made: Vec<(String, Vec<u8>, Outputs)> = Vec::new();

    for dir in &cases {
        let case = dir.file_name().unwrap().to_string_lossy().to_string();
        let input = std::fs::read(dir.join("input.spv")).unwrap();
        let text = std::fs::read_to_string(dir.join("survivors.yaml")).unwrap();
        let spec: BTreeMap<String, String> =
            serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{case}/survivors.yaml: {e}"));
        let conds: BTreeMap<&str, Cond> = spec
            .iter()
            .map(|(k, v)| (k.as_str(), parse_cond(v)))
            .collect();

        // The yaml covers exactly the calls in the input ...
        let input_callees = callees(&input);
        let keys: BTreeSet<String> = spec.keys().cloned().collect();
        assert_eq!(
            keys, input_callees,
            "{case}: survivors.yaml keys vs calls in input.spv"
        );
        // ... and only names predicates from the input's table.
        let table = table_names(&input);
        assert!(!table.is_empty(), "{case}: input has no predicate table");
        let mut used = BTreeSet::new();
        for c in conds.values() {
            c.predicates(&mut used);
        }
        for p in used {
            assert!(
                table.contains(p),
                "{case}: condition names {p:?}, not in table {table:?}"
            );
        }

        let mut true_for: BTreeMap<&str, usize> = conds.keys().map(|k| (*k, 0)).collect();
        let mut outputs = BTreeMap::new();
        for p in processors {
            let reference_proc = reference
                .processors
                .iter()
                .find(|r| r.name == p.name)
                .unwrap_or_else(|| panic!("{}: not in the reference processors.yaml", p.name));
            let env = Env {
                all: &reference.processors,
                proc_: reference_proc,
            };
            let expected: Vec<String> = conds
                .iter()
                .filter(|(_, c)| c.eval(&env))
                .map(|(k, _)| k.to_string())
                .collect();
            for k in &expected {
                *true_for.get_mut(k.as_str()).unwrap() += 1;
            }
            let target = tables.target(&p.name).unwrap();
            let got: Vec<String> = match specialize(&input, &target, &Options::default()) {
                Ok(out) => {
                    let bytes = out.bytes();
                    let got = callees(&bytes).into_iter().collect();
                    outputs.entry(bytes).or_insert_with(|| p.name.clone());
                    got
                }
                Err(e) => vec![format!("<specialize failed: {e}>")],
            };
            checked += 1;
            if expected != got {
                let key = format!("{case} @ {}", p.name);
                eprintln!("MISMATCH {key}\n  expected: {expected:?}\n  got:      {got:?}");
                expected_bad.insert(key.clone(), expected);
                got_bad.insert(key, got);
            }
        }
        eprintln!(
            "{case}: predicted survival counts over {} processors: {true_for:?}",
            processors.len()
        );
        made.push((case, input, outputs));
    }
    eprintln!(
        "survivors: checked {checked} (case, target) pairs over {} cases x {} processors; {} mismatches",
        cases.len(),
        processors.len(),
        expected_bad.len()
    );
    assert_eq!(
        expected_bad, got_bad,
        "surviving callees per \"case @ target\" (left: predicted, right: tool)"
    );
    let batch: Vec<common::Made> = made
        .iter()
        .flat_map(|(case, input, outputs)| {
            outputs.iter().map(move |(out, p)| common::Made {
                input,
                output: out,
                what: format!("{case} @ {p}"),
            })
        })
        .collect();
    common::assert_outputs_valid(&batch);
}

#[test]
fn feature_expression_grammar() {
    let f: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    assert!(has_expr("", &f));
    assert!(has_expr("a", &f));
    assert!(!has_expr("x", &f));
    assert!(has_expr("a,b", &f));
    assert!(!has_expr("a,x", &f));
    assert!(has_expr("x|a", &f));
    assert!(has_expr("x,y|a,b", &f)); // (x,y) | (a,b)
    assert!(!has_expr("a,(x|y)", &f));
    assert!(has_expr("a,(x|c)", &f));
    assert!(!has_expr("x,a|y", &f)); // (x,a) | y
}

#[test]
fn condition_grammar() {
    let reference = load_reference();
    let find = |n: &str| reference.processors.iter().find(|p| p.name == n).unwrap();
    let env600 = Env {
        all: &reference.processors,
        proc_: find("gfx600"),
    };
    let env942 = Env {
        all: &reference.processors,
        proc_: find("gfx942"),
    };
    let e = |s: &str, env: &Env<'_>| parse_cond(s).eval(env);
    assert!(e("is.tahiti", &env600));
    assert!(e("is.gfx600", &env600));
    assert!(!e("is.tahiti", &env942));
    assert!(!e("is.gfx9-4-generic", &env942));
    assert!(!e("is.gfx9999", &env942));
    assert!(e("has.mai-insts && !is.gfx950", &env942));
    assert!(e("!(is.gfx950 || !has.mai-insts)", &env942));
    assert!(e("is.gfx600 || is.gfx942 && has.mai-insts", &env600));
    assert!(!e("(is.gfx600 || is.gfx942) && has.mai-insts", &env600));
    assert!(e("has.", &env600) && e("always", &env600));
    assert!(e("has.vmem-to-lds-load-insts|s-memtime-inst", &env600));
}
