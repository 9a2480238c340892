//! Property tests: random control flow in one Kernel function against a
//! reference written here.
//!
//! A random program (chains, if/else diamonds, ifs without else, do-while
//! and while loops with back edges, self-loops, nested) is lowered to
//! unstructured blocks, as llc writes them. Each block calls its own
//! imported declaration `b<i>`, so which blocks survive shows in the
//! output's calls. Conditional branches test a random predicate shape:
//! the site itself, `OpLogicalNot`, `OpLogicalNotEqual p false/true`,
//! `OpLogicalEqual p false`, `OpLogicalAnd/Or` of two sites, a boolean
//! `OpSelect`, or a mix with a non-constant bool (the kernel's parameter
//! compared to a constant). Join blocks and loop headers carry `OpPhi`s of
//! integers, so phi repair is exercised too.
//!
//! The reference: each condition's value for the target (the predicates'
//! values come from `Target::evaluate`; the logic is evaluated here),
//! then the blocks reachable from the entry following only the taken edge
//! of decided branches and both edges of the others. The output must call
//! exactly the imports of those blocks, declare no other import, hold no
//! predicate table, and pass `spirv-val` (where it accepts the input; the
//! cases' outputs are collected and validated in parallel batches after the
//! property has run, within a time budget a fast validator never reaches).
//!
//! An independent oracle, petgraph, checks the core's reachability and
//! dominator code: inputs laid out in a random order valid for their own
//! dominator tree; the output's blocks are exactly those petgraph finds
//! reachable in the folded CFG, its edges are the folded CFG's, and its
//! layout is the one the core's rule (input order, each block right after
//! its immediate dominator if that comes later) gives with petgraph's
//! immediate dominators of the output CFG, so every block follows its
//! immediate dominator.

mod common;
mod kasm;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::time::Duration;

use kasm::{Kernel, inst};
use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Dfs;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestRunner;
use rspv_specialize::{
    ArchTables, Options, Target, TargetOptions, inspect, specialize, specialize_many,
};
use spirv::Op;

fn tables() -> &'static ArchTables {
    ArchTables::embedded()
}

/// Predicate names the tables are drawn from: processors (aliases, a
/// generic target, one no table knows) and feature expressions (AND, OR,
/// parentheses, empty, an unknown feature).
const POOL: &[&str] = &[
    "is.gfx942",
    "is.gfx950",
    "is.gfx1100",
    "is.gfx90a",
    "is.tahiti",
    "is.gfx1201",
    "is.gfx9-4-generic",
    "is.gfx9999",
    "has.mai-insts",
    "has.wavefrontsize32",
    "has.wavefrontsize64",
    "has.gfx12-insts,wavefrontsize32",
    "has.dot7-insts|gfx940-insts",
    "has.",
    "has.bogus-feature",
    "has.(gfx11-insts|gfx12-insts),wavefrontsize32",
];

/// A branch condition; numbers pick predicate sites (modulo their count)
/// or the constant the parameter is compared to.
#[derive(Debug, Clone)]
enum Cond {
    Site(usize),
    Not(usize),
    NotEqualFalse(usize),
    NotEqualTrue(usize),
    EqualFalse(usize),
    And(usize, usize),
    Or(usize, usize),
    Select(usize, usize, usize),
    /// `x == c`: not constant.
    Param(u32),
    /// `p && x == c`.
    AndParam(usize, u32),
    /// `p || x == c`.
    OrParam(usize, u32),
    /// `p ? x == c : true`.
    SelectParam(usize, u32),
    /// `!(x == c) && true`: not constant, and the same value as
    /// `!(x == c)` (the rewrite replaces it by that).
    NotParamAndTrue(u32),
    /// `p || ((x == c) == (x == c))`: true, though neither side of the
    /// `==` is constant (the site makes the function one the pass
    /// rewrites).
    OrParamEqualsItself(usize, u32),
}

impl Cond {
    /// The condition's value, `None` when it is not constant.
    fn eval(&self, v: &[bool]) -> Option<bool> {
        let s = |i: &usize| v[*i % v.len()];
        match self {
            Cond::Site(i) | Cond::NotEqualFalse(i) => Some(s(i)),
            Cond::Not(i) | Cond::NotEqualTrue(i) | Cond::EqualFalse(i) => Some(!s(i)),
            Cond::And(i, j) => Some(s(i) && s(j)),
            Cond::Or(i, j) => Some(s(i) || s(j)),
            Cond::Select(i, j, k) => Some(if s(i) { s(j) } else { s(k) }),
            Cond::Param(_) => None,
            Cond::AndParam(i, _) => (!s(i)).then_some(false),
            Cond::OrParam(i, _) => s(i).then_some(true),
            Cond::SelectParam(i, _) => (!s(i)).then_some(true),
            Cond::NotParamAndTrue(_) => None,
            Cond::OrParamEqualsItself(..) => Some(true),
        }
    }
}

fn cond() -> impl Strategy<Value = Cond> {
    let i = || 0..6usize;
    let c = || 0..4u32;
    prop_oneof![
        i().prop_map(Cond::Site),
        i().prop_map(Cond::Not),
        i().prop_map(Cond::NotEqualFalse),
        i().prop_map(Cond::NotEqualTrue),
        i().prop_map(Cond::EqualFalse),
        (i(), i()).prop_map(|(a, b)| Cond::And(a, b)),
        (i(), i()).prop_map(|(a, b)| Cond::Or(a, b)),
        (i(), i(), i()).prop_map(|(a, b, c)| Cond::Select(a, b, c)),
        c().prop_map(Cond::Param),
        (i(), c()).prop_map(|(a, b)| Cond::AndParam(a, b)),
        (i(), c()).prop_map(|(a, b)| Cond::OrParam(a, b)),
        (i(), c()).prop_map(|(a, b)| Cond::SelectParam(a, b)),
        c().prop_map(Cond::NotParamAndTrue),
        (i(), c()).prop_map(|(a, b)| Cond::OrParamEqualsItself(a, b)),
    ]
}

/// A structured program, lowered to unstructured blocks.
#[derive(Debug, Clone)]
enum Node {
    /// One block.
    Leaf,
    Seq(Vec<Node>),
    /// `if c { a } else { b }`; without `b` the false edge goes to the join.
    If(Cond, Box<Node>, Option<Box<Node>>),
    /// `do { body } while c` (back edge from the body's end).
    DoWhile(Box<Node>, Cond),
    /// `while c { body }` (back edge to the header).
    While(Cond, Box<Node>),
    /// A header that branches to itself or out.
    SelfLoop(Cond),
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![4 => Just(Node::Leaf), 1 => cond().prop_map(Node::SelfLoop)];
    leaf.prop_recursive(8, 256, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..5).prop_map(Node::Seq),
            (cond(), inner.clone(), prop::option::of(inner.clone()))
                .prop_map(|(c, a, b)| Node::If(c, Box::new(a), b.map(Box::new))),
            (inner.clone(), cond()).prop_map(|(b, c)| Node::DoWhile(Box::new(b), c)),
            (cond(), inner).prop_map(|(c, b)| Node::While(c, Box::new(b))),
        ]
    })
}

#[derive(Debug, Clone)]
enum Term {
    Open,
    Branch(usize),
    Conditional(Cond, usize, usize),
    Return,
}

#[derive(Debug)]
struct Block {
    term: Term,
    /// Incoming edges that carry an integer phi: `(value, parent)`.
    phi: Vec<(u32, usize)>,
}

/// The blocks of a lowered program; block 0 is the entry.
struct Cfg {
    blocks: Vec<Block>,
}

impl Cfg {
    fn lower(root: &Node) -> Cfg {
        let mut cfg = Cfg {
            blocks: vec![Block {
                term: Term::Open,
                phi: Vec::new(),
            }],
        };
        let end = cfg.node(root, 0);
        cfg.blocks[end].term = Term::Return;
        cfg
    }

    fn block(&mut self) -> usize {
        self.blocks.push(Block {
            term: Term::Open,
            phi: Vec::new(),
        });
        self.blocks.len() - 1
    }

    /// Lowers `n` with `cur` the open block control arrives in; returns the
    /// open block control leaves from.
    fn node(&mut self, n: &Node, cur: usize) -> usize {
        match n {
            Node::Leaf => {
                let b = self.block();
                self.blocks[cur].term = Term::Branch(b);
                b
            }
            Node::Seq(v) => v.iter().fold(cur, |c, n| self.node(n, c)),
            Node::If(c, a, b) => {
                let ta = self.block();
                let end_a = self.node(a, ta);
                let (fb, end_b) = match b {
                    Some(b) => {
                        let fb = self.block();
                        (Some(fb), self.node(b, fb))
                    }
                    None => (None, cur),
                };
                let join = self.block();
                self.blocks[cur].term = Term::Conditional(c.clone(), ta, fb.unwrap_or(join));
                self.blocks[end_a].term = Term::Branch(join);
                if fb.is_some() {
                    self.blocks[end_b].term = Term::Branch(join);
                }
                self.blocks[join].phi = vec![(1, end_a), (2, end_b)];
                join
            }
            Node::DoWhile(body, c) => {
                let h = self.block();
                self.blocks[cur].term = Term::Branch(h);
                let end = self.node(body, h);
                let x = self.block();
                self.blocks[end].term = Term::Conditional(c.clone(), h, x);
                self.blocks[h].phi = vec![(1, cur), (2, end)];
                x
            }
            Node::While(c, body) => {
                let h = self.block();
                self.blocks[cur].term = Term::Branch(h);
                let b0 = self.block();
                let end = self.node(body, b0);
                let x = self.block();
                self.blocks[h].term = Term::Conditional(c.clone(), b0, x);
                self.blocks[end].term = Term::Branch(h);
                self.blocks[h].phi = vec![(1, cur), (3, end)];
                x
            }
            Node::SelfLoop(c) => {
                let h = self.block();
                self.blocks[cur].term = Term::Branch(h);
                let x = self.block();
                self.blocks[h].term = Term::Conditional(c.clone(), h, x);
                self.blocks[h].phi = vec![(1, cur), (2, h)];
                x
            }
        }
    }

    /// Blocks reachable from the entry when each condition has the value
    /// `eval` gives it (`None`: both edges).
    fn reachable(&self, site_values: &[bool]) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![0];
        while let Some(b) = stack.pop() {
            if !seen.insert(b) {
                continue;
            }
            match &self.blocks[b].term {
                Term::Branch(t) => stack.push(*t),
                Term::Conditional(c, t, f) => match c.eval(site_values) {
                    Some(true) => stack.push(*t),
                    Some(false) => stack.push(*f),
                    None => stack.extend([*t, *f]),
                },
                Term::Return | Term::Open => {}
            }
        }
        seen
    }
}

/// A generated case: the table's names (table order = SpecId order
/// permuted), each site's SpecId, and the program.
#[derive(Debug, Clone)]
struct Case {
    /// `(name, SpecId)` in table order.
    entries: Vec<(String, u32)>,
    /// SpecId of each site.
    sites: Vec<u32>,
    program: Node,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::subsequence(POOL, 1..=5).prop_shuffle(),
        prop::collection::vec(any::<Index>(), 1..=6),
        node(),
    )
        .prop_flat_map(|(names, sites, program)| {
            let n = names.len();
            // SpecIds 0..n in a random order.
            let ids = Just((0..n as u32).collect::<Vec<_>>()).prop_shuffle();
            (Just(names), ids, Just(sites), Just(program))
        })
        .prop_map(|(names, ids, sites, program)| Case {
            entries: names
                .iter()
                .zip(&ids)
                .map(|(n, i)| (n.to_string(), *i))
                .collect(),
            sites: sites.iter().map(|s| s.index(ids.len()) as u32).collect(),
            program,
        })
}

/// The module of a case: `void k(uint x)`, blocks as lowered, block i
/// calling the import `b<i>`.
fn assemble(case: &Case, cfg: &Cfg) -> Vec<u8> {
    let order: Vec<usize> = (0..cfg.blocks.len()).collect();
    assemble_in_order(case, cfg, &order)
}

/// [`assemble`] with the blocks laid out in `order` (a permutation of the
/// blocks, entry first).
fn assemble_in_order(case: &Case, cfg: &Cfg, order: &[usize]) -> Vec<u8> {
    let entries: Vec<(&str, u32)> = case.entries.iter().map(|(n, i)| (n.as_str(), *i)).collect();
    let mut k = Kernel::new(&entries, &case.sites);
    let imports: Vec<u32> = (0..cfg.blocks.len())
        .map(|i| k.import(&format!("b{i}")))
        .collect();
    let kern = k.id();
    let x = k.id();
    let labels: Vec<u32> = (0..cfg.blocks.len()).map(|_| k.id()).collect();
    let site = |k: &Kernel, i: usize| k.sites[i % k.sites.len()];
    let mut w = Vec::new();
    inst(&mut w, Op::Function, &[k.void, kern, 0, k.void_fn_uint]);
    inst(&mut w, Op::FunctionParameter, &[k.uint, x]);
    for &b in order {
        let block = &cfg.blocks[b];
        inst(&mut w, Op::Label, &[labels[b]]);
        if !block.phi.is_empty() {
            let r = k.id();
            let mut ops = vec![k.uint, r];
            for &(v, parent) in &block.phi {
                ops.push(k.uint_const(v));
                ops.push(labels[parent]);
            }
            inst(&mut w, Op::Phi, &ops);
        }
        let r = k.id();
        inst(&mut w, Op::FunctionCall, &[k.void, r, imports[b]]);
        match &block.term {
            Term::Open => unreachable!("block {b} left open"),
            Term::Return => inst(&mut w, Op::Return, &[]),
            Term::Branch(t) => inst(&mut w, Op::Branch, &[labels[*t]]),
            Term::Conditional(c, t, f) => {
                let (boolean, tr, fa) = (k.boolean, k.t, k.f);
                let op = |k: &mut Kernel, w: &mut Vec<u32>, o: Op, operands: &[u32]| {
                    let r = k.id();
                    let mut all = vec![boolean, r];
                    all.extend_from_slice(operands);
                    inst(w, o, &all);
                    r
                };
                let param = |k: &mut Kernel, w: &mut Vec<u32>, c: u32| {
                    let cst = k.uint_const(c);
                    let r = k.id();
                    inst(w, Op::IEqual, &[boolean, r, x, cst]);
                    r
                };
                let cv = match c {
                    Cond::Site(i) => site(&k, *i),
                    Cond::Not(i) => {
                        let p = site(&k, *i);
                        op(&mut k, &mut w, Op::LogicalNot, &[p])
                    }
                    Cond::NotEqualFalse(i) => {
                        let p = site(&k, *i);
                        op(&mut k, &mut w, Op::LogicalNotEqual, &[p, fa])
                    }
                    Cond::NotEqualTrue(i) => {
                        let p = site(&k, *i);
                        op(&mut k, &mut w, Op::LogicalNotEqual, &[p, tr])
                    }
                    Cond::EqualFalse(i) => {
                        let p = site(&k, *i);
                        op(&mut k, &mut w, Op::LogicalEqual, &[p, fa])
                    }
                    Cond::And(i, j) => {
                        let (p, q) = (site(&k, *i), site(&k, *j));
                        op(&mut k, &mut w, Op::LogicalAnd, &[p, q])
                    }
                    Cond::Or(i, j) => {
                        let (p, q) = (site(&k, *i), site(&k, *j));
                        op(&mut k, &mut w, Op::LogicalOr, &[p, q])
                    }
                    Cond::Select(i, j, l) => {
                        let (p, q, s) = (site(&k, *i), site(&k, *j), site(&k, *l));
                        op(&mut k, &mut w, Op::Select, &[p, q, s])
                    }
                    Cond::Param(c) => param(&mut k, &mut w, *c),
                    Cond::AndParam(i, c) => {
                        let q = param(&mut k, &mut w, *c);
                        let p = site(&k, *i);
                        op(&mut k, &mut w, Op::LogicalAnd, &[p, q])
                    }
                    Cond::OrParam(i, c) => {
                        let q = param(&mut k, &mut w, *c);
                        let p = site(&k, *i);
                        op(&mut k, &mut w, Op::LogicalOr, &[p, q])
                    }
                    Cond::SelectParam(i, c) => {
                        let q = param(&mut k, &mut w, *c);
                        let p = site(&k, *i);
                        op(&mut k, &mut w, Op::Select, &[p, q, tr])
                    }
                    Cond::NotParamAndTrue(c) => {
                        let q = param(&mut k, &mut w, *c);
                        let n = op(&mut k, &mut w, Op::LogicalNot, &[q]);
                        op(&mut k, &mut w, Op::LogicalAnd, &[n, tr])
                    }
                    Cond::OrParamEqualsItself(i, c) => {
                        let q = param(&mut k, &mut w, *c);
                        let e = op(&mut k, &mut w, Op::LogicalEqual, &[q, q]);
                        let p = site(&k, *i);
                        op(&mut k, &mut w, Op::LogicalOr, &[p, e])
                    }
                };
                inst(&mut w, Op::BranchConditional, &[cv, labels[*t], labels[*f]]);
            }
        }
    }
    inst(&mut w, Op::FunctionEnd, &[]);
    k.functions.extend(w);
    k.entry_point(kern, "k");
    k.bytes()
}

/// Every processor of the tables, and the wave64 variant of each
/// dual-wave one.
fn all_targets() -> Vec<Target<'static>> {
    let t = tables();
    let mut out = Vec::new();
    for p in t.processors() {
        out.push(t.target(&p.name).unwrap());
        if p.is_dual_wave() {
            out.push(
                t.target_with(&p.name, &TargetOptions { wave64: true })
                    .unwrap(),
            );
        }
    }
    out
}

/// Each site's value for `target`.
fn site_values(case: &Case, target: &Target<'_>) -> Vec<bool> {
    let by_id: BTreeMap<u32, &str> = case.entries.iter().map(|(n, i)| (*i, n.as_str())).collect();
    case.sites
        .iter()
        .map(|id| target.evaluate(by_id[id]).unwrap().value)
        .collect()
}

/// The imports the output must call for `target`.
fn expected_calls(case: &Case, cfg: &Cfg, target: &Target<'_>) -> BTreeSet<String> {
    cfg.reachable(&site_values(case, target))
        .into_iter()
        .map(|b| format!("b{b}"))
        .collect()
}

/// Time a property's outputs are validated for, at most (roughly): enough
/// for all of them with Debian's spirv-val (under a second), a few dozen
/// with a validator costing a quarter of a second a call.
const VALIDATION_BUDGET: Duration = Duration::from_secs(10);

/// Outputs a property made: (input, output, what), validated after it ran.
type Made = Mutex<Vec<(Vec<u8>, Vec<u8>, String)>>;

/// Runs `test` on `cases` values of `strategy` (like `proptest!`, whose
/// failure it reports the same way), then validates the outputs it
/// recorded in `made` (all, unless the validator is slow: see
/// [`VALIDATION_BUDGET`]). A module whose output is invalid is saved in the
/// temp directory, named in the panic.
fn run_property<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value, &Made) -> Result<(), TestCaseError>,
) {
    let made: Made = Mutex::new(Vec::new());
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    if let Err(e) = runner.run(&strategy, |v| test(v, &made)) {
        panic!("{name}: {e}");
    }
    let made = made.into_inner().unwrap();
    let batch: Vec<common::Made> = made
        .iter()
        .map(|(input, output, what)| common::Made {
            input,
            output,
            what: what.clone(),
        })
        .collect();
    let (checked, done) = common::check_outputs_within(&batch, 32, VALIDATION_BUDGET);
    eprintln!(
        "{name}: {} outputs, {done} checked: {} distinct validated, {} invalid of invalid input",
        made.len(),
        checked.validated.len(),
        checked.input_rejected
    );
    if !checked.invalid.is_empty() {
        let mut saved = Vec::new();
        for (i, (input, _, what)) in made.iter().enumerate() {
            if checked.invalid.iter().any(|e| e.starts_with(what.as_str())) {
                let file = std::env::temp_dir().join(format!(
                    "rspv-proptest-cfg-{}-{name}-{i}.spv",
                    std::process::id()
                ));
                std::fs::write(&file, input).unwrap();
                saved.push(format!("{what}: input saved as {}", file.display()));
            }
        }
        panic!(
            "{name}: {} invalid output(s):\n{}\n{}",
            checked.invalid.len(),
            checked.invalid.join("\n"),
            saved.join("\n")
        );
    }
}

/// Checks one output against the reference.
fn check_output(out: &[u8], want: &BTreeSet<String>, what: &str) -> Result<(), TestCaseError> {
    let facts = kasm::call_facts(out);
    prop_assert_eq!(&facts.called, want, "{}: calls", what);
    prop_assert_eq!(
        &facts.declared,
        want,
        "{}: imports only dead code called are removed",
        what
    );
    prop_assert!(
        !inspect(out).unwrap().has_table,
        "{}: a predicate table is left",
        what
    );
    prop_assert_eq!(facts.spec_ids, 0, "{}: SpecId decorations are left", what);
    Ok(())
}

/// One random target per case.
#[test]
fn surviving_calls_match_the_reference() {
    run_property(
        "surviving_calls_match_the_reference",
        128,
        (case(), any::<Index>()),
        |(case, pick), made| {
            let cfg = Cfg::lower(&case.program);
            let bytes = assemble(&case, &cfg);
            let targets = all_targets();
            let target = &targets[pick.index(targets.len())];
            let what = format!("{} ({} blocks)", target.id(), cfg.blocks.len());
            let out = specialize(&bytes, target, &Options::default())
                .map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?
                .bytes();
            check_output(&out, &expected_calls(&case, &cfg, target), &what)?;
            made.lock().unwrap().push((bytes, out, what));
            Ok(())
        },
    );
}

/// Every target at once through `specialize_many`: each output matches
/// the reference, and `specialize` for that target alone.
#[test]
fn every_target_at_once_matches_the_reference() {
    run_property(
        "every_target_at_once_matches_the_reference",
        24,
        case(),
        |case, made| {
            let cfg = Cfg::lower(&case.program);
            let bytes = assemble(&case, &cfg);
            let targets = all_targets();
            let outs = specialize_many(&bytes, &targets, &Options::default())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut distinct: BTreeSet<Vec<u8>> = BTreeSet::new();
            for (t, o) in targets.iter().zip(outs) {
                let out = o
                    .map_err(|e| TestCaseError::fail(format!("{}: {e}", t.id())))?
                    .bytes();
                check_output(&out, &expected_calls(&case, &cfg, t), t.id())?;
                if distinct.insert(out.clone()) {
                    prop_assert_eq!(
                        &specialize(&bytes, t, &Options::default()).unwrap().bytes(),
                        &out,
                        "{}: specialize_many and specialize differ",
                        t.id()
                    );
                    let what = format!("{} ({} blocks, specialize_many)", t.id(), cfg.blocks.len());
                    made.lock().unwrap().push((bytes.clone(), out, what));
                }
            }
            Ok(())
        },
    );
}

#[test]
fn the_reference_on_a_fixed_case() {
    // if (is.gfx942) { b1 } else { b2 }; b3 … then a while loop on
    // `x == 0` that stays.
    let case = Case {
        entries: vec![("is.gfx942".into(), 0)],
        sites: vec![0],
        program: Node::Seq(vec![
            Node::If(
                Cond::Site(0),
                Box::new(Node::Leaf),
                Some(Box::new(Node::Leaf)),
            ),
            Node::While(Cond::Param(0), Box::new(Node::Leaf)),
        ]),
    };
    let cfg = Cfg::lower(&case.program);
    // 0: br is.gfx942 ? 1 : 3; 1 -> 2 -> 5; 3 -> 4 -> 5 (join);
    // 5 -> 6 (header): br x == 0 ? 7 : 9; 7 -> 8 -> 6; 9: return.
    assert_eq!(cfg.blocks.len(), 10);
    let bytes = assemble(&case, &cfg);
    let t = tables();
    let mut outputs = Vec::new();
    for (target, dead) in [("gfx942", ["b3", "b4"]), ("gfx950", ["b1", "b2"])] {
        let target = t.target(target).unwrap();
        let want = expected_calls(&case, &cfg, &target);
        assert_eq!(want.len(), 8);
        assert!(dead.iter().all(|d| !want.contains(*d)));
        let out = specialize(&bytes, &target, &Options::default())
            .unwrap()
            .bytes();
        let facts = kasm::call_facts(&out);
        assert_eq!(facts.called, want);
        assert_eq!(facts.conditional_branches, 1, "the loop's branch stays");
        outputs.push((target.id().to_string(), out));
    }
    let made: Vec<common::Made> = outputs
        .iter()
        .map(|(t, out)| common::Made {
            input: &bytes,
            output: out,
            what: format!("fixed case: {t}"),
        })
        .collect();
    common::assert_outputs_valid(&made);
}

// ---------------------------------------------------------------------------
// petgraph oracle: reachability, dominators and block layout

/// The CFG of a case as petgraph sees it: one node per block (node `i` is
/// block `i`), the edges each branch takes; with `site_values`, decided
/// conditions keep only their taken edge (the folded CFG).
fn petgraph_cfg(cfg: &Cfg, site_values: Option<&[bool]>) -> DiGraph<(), ()> {
    let mut g = DiGraph::new();
    for _ in &cfg.blocks {
        g.add_node(());
    }
    let n = |b: usize| NodeIndex::new(b);
    for (b, block) in cfg.blocks.iter().enumerate() {
        match &block.term {
            Term::Branch(t) => {
                g.add_edge(n(b), n(*t), ());
            }
            Term::Conditional(c, t, f) => match site_values.and_then(|v| c.eval(v)) {
                Some(true) => {
                    g.add_edge(n(b), n(*t), ());
                }
                Some(false) => {
                    g.add_edge(n(b), n(*f), ());
                }
                None => {
                    g.add_edge(n(b), n(*t), ());
                    g.add_edge(n(b), n(*f), ());
                }
            },
            Term::Return | Term::Open => {}
        }
    }
    g
}

/// The nodes petgraph reaches from node 0.
fn petgraph_reachable<N, E>(g: &DiGraph<N, E>) -> BTreeSet<usize> {
    let mut dfs = Dfs::new(g, NodeIndex::new(0));
    let mut seen = BTreeSet::new();
    while let Some(v) = dfs.next(g) {
        seen.insert(v.index());
    }
    seen
}

/// A random block order of `cfg` (entry first) in which every block comes
/// after its immediate dominator (petgraph's), as SPIR-V requires: each
/// step places one of the blocks whose dominator is placed, chosen by
/// `picks`.
fn random_layout(cfg: &Cfg, picks: &[Index]) -> Vec<usize> {
    let g = petgraph_cfg(cfg, None);
    let dom = simple_fast(&g, NodeIndex::new(0));
    let mut order = vec![0];
    let mut ready: Vec<usize> = Vec::new();
    let children = |d: usize, ready: &mut Vec<usize>| {
        ready.extend(
            (1..cfg.blocks.len())
                .filter(|&b| dom.immediate_dominator(NodeIndex::new(b)) == Some(NodeIndex::new(d))),
        )
    };
    children(0, &mut ready);
    let mut step = 0;
    while !ready.is_empty() {
        let i = picks[step % picks.len()].index(ready.len());
        step += 1;
        let b = ready.remove(i);
        order.push(b);
        children(b, &mut ready);
    }
    assert_eq!(
        order.len(),
        cfg.blocks.len(),
        "every lowered block is reachable"
    );
    order
}

/// The function of an output module as blocks: each block's case block
/// (from the `b<i>` it calls), in output order, and the edges between them.
#[derive(Debug)]
struct OutputCfg {
    order: Vec<usize>,
    edges: BTreeSet<(usize, usize)>,
}

impl OutputCfg {
    fn parse(out: &[u8]) -> Result<OutputCfg, String> {
        let w = kasm::words(out);
        let mut names: BTreeMap<u32, String> = BTreeMap::new();
        let mut labels: Vec<u32> = Vec::new();
        let mut block_of_label: BTreeMap<u32, usize> = BTreeMap::new();
        let mut label_edges: Vec<(u32, u32)> = Vec::new();
        for (_, op, iw) in kasm::instructions(&w) {
            let current = labels.last().copied();
            match op {
                x if x == Op::Name as u32 => {
                    names.insert(iw[1], kasm::literal(&iw[2..]));
                }
                x if x == Op::Label as u32 => labels.push(iw[1]),
                x if x == Op::FunctionCall as u32 => {
                    let label = current.ok_or("a call outside a block")?;
                    let name = names
                        .get(&iw[3])
                        .ok_or(format!("call of unnamed %{}", iw[3]))?;
                    let b: usize = name
                        .strip_prefix('b')
                        .and_then(|i| i.parse().ok())
                        .ok_or(format!("call of `{name}`"))?;
                    if block_of_label.insert(label, b).is_some() {
                        return Err(format!("block %{label} calls two imports"));
                    }
                }
                x if x == Op::Branch as u32 => {
                    label_edges.push((current.ok_or("a branch outside a block")?, iw[1]));
                }
                x if x == Op::BranchConditional as u32 => {
                    let from = current.ok_or("a branch outside a block")?;
                    label_edges.push((from, iw[2]));
                    label_edges.push((from, iw[3]));
                }
                x if x == Op::Switch as u32 => return Err("an OpSwitch".into()),
                _ => {}
            }
        }
        let block = |l: &u32| {
            block_of_label
                .get(l)
                .copied()
                .ok_or(format!("block %{l} calls no import"))
        };
        Ok(OutputCfg {
            order: labels.iter().map(block).collect::<Result<_, _>>()?,
            edges: label_edges
                .iter()
                .map(|(a, b)| Ok((block(a)?, block(b)?)))
                .collect::<Result<_, String>>()?,
        })
    }
}

/// The layout rule of the core's block ordering, with petgraph's immediate
/// dominators of the output CFG: walk the kept blocks in input order; a
/// block whose immediate dominator is not placed yet waits for it and is
/// placed (with its own waiters, in input order) right after it.
fn expected_layout(kept_in_input_order: &[usize], edges: &BTreeSet<(usize, usize)>) -> Vec<usize> {
    let pos: BTreeMap<usize, usize> = kept_in_input_order
        .iter()
        .enumerate()
        .map(|(k, &b)| (b, k))
        .collect();
    let mut g: DiGraph<(), ()> = DiGraph::new();
    for _ in kept_in_input_order {
        g.add_node(());
    }
    for (a, b) in edges {
        g.add_edge(NodeIndex::new(pos[a]), NodeIndex::new(pos[b]), ());
    }
    let dom = simple_fast(&g, NodeIndex::new(0));
    let n = kept_in_input_order.len();
    let mut placed = vec![false; n];
    let mut waiters: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut order = Vec::with_capacity(n);
    for k in 0..n {
        if let Some(d) = dom
            .immediate_dominator(NodeIndex::new(k))
            .map(|d| d.index())
            && !placed[d]
        {
            waiters[d].push(k);
            continue;
        }
        let mut stack = vec![k];
        while let Some(b) = stack.pop() {
            order.push(kept_in_input_order[b]);
            placed[b] = true;
            stack.extend(std::mem::take(&mut waiters[b]).into_iter().rev());
        }
    }
    order
}

/// Checks one output's CFG against petgraph: `input_order` is the input's
/// block layout, `site_values` the target's predicate values.
fn check_with_petgraph(
    out: &[u8],
    cfg: &Cfg,
    input_order: &[usize],
    site_values: &[bool],
    what: &str,
) -> Result<(), TestCaseError> {
    let folded = petgraph_cfg(cfg, Some(site_values));
    let reachable = petgraph_reachable(&folded);
    let got = OutputCfg::parse(out).map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
    let kept: BTreeSet<usize> = got.order.iter().copied().collect();
    prop_assert_eq!(
        kept.len(),
        got.order.len(),
        "{}: a block appears twice",
        what
    );
    prop_assert_eq!(
        &kept,
        &reachable,
        "{}: kept blocks differ from petgraph's reachable set of the folded CFG",
        what
    );
    let folded_edges: BTreeSet<(usize, usize)> = folded
        .raw_edges()
        .iter()
        .map(|e| (e.source().index(), e.target().index()))
        .filter(|(a, _)| reachable.contains(a))
        .collect();
    prop_assert_eq!(
        &got.edges,
        &folded_edges,
        "{}: output edges differ from the folded CFG",
        what
    );
    // The output's own CFG: all reachable from its first block, each
    // block after its immediate dominator.
    prop_assert_eq!(
        got.order.first(),
        Some(&0),
        "{}: the entry is not first",
        what
    );
    let pos: BTreeMap<usize, usize> = got.order.iter().enumerate().map(|(k, &b)| (b, k)).collect();
    let mut g: DiGraph<(), ()> = DiGraph::new();
    for _ in &got.order {
        g.add_node(());
    }
    for (a, b) in &got.edges {
        g.add_edge(NodeIndex::new(pos[a]), NodeIndex::new(pos[b]), ());
    }
    prop_assert_eq!(
        petgraph_reachable(&g).len(),
        got.order.len(),
        "{}: the output keeps blocks its entry does not reach",
        what
    );
    let dom = simple_fast(&g, NodeIndex::new(0));
    for k in 1..got.order.len() {
        let d = dom
            .immediate_dominator(NodeIndex::new(k))
            .map(|d| d.index());
        prop_assert!(
            d.is_some_and(|d| d < k),
            "{}: block b{} comes before its immediate dominator {:?} (layout {:?})",
            what,
            got.order[k],
            d.map(|d| got.order[d]),
            got.order
        );
    }
    let kept_in_input_order: Vec<usize> = input_order
        .iter()
        .copied()
        .filter(|b| kept.contains(b))
        .collect();
    prop_assert_eq!(
        &got.order,
        &expected_layout(&kept_in_input_order, &got.edges),
        "{}: the layout is not the dominator-order rule's (input order {:?})",
        what,
        input_order
    );
    Ok(())
}

/// Inputs in a random valid layout, every target: reachability, edges and
/// layout of each output against petgraph.
#[test]
fn reachability_and_dominators_match_petgraph() {
    run_property(
        "reachability_and_dominators_match_petgraph",
        48,
        (case(), prop::collection::vec(any::<Index>(), 1..32)),
        |(case, picks), made| {
            let cfg = Cfg::lower(&case.program);
            let order = random_layout(&cfg, &picks);
            let bytes = assemble_in_order(&case, &cfg, &order);
            let targets = all_targets();
            let outs = specialize_many(&bytes, &targets, &Options::default())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut distinct: BTreeSet<Vec<u8>> = BTreeSet::new();
            for (t, o) in targets.iter().zip(outs) {
                let out = o
                    .map_err(|e| TestCaseError::fail(format!("{}: {e}", t.id())))?
                    .bytes();
                let what = format!("{} ({} blocks, layout {order:?})", t.id(), cfg.blocks.len());
                check_with_petgraph(&out, &cfg, &order, &site_values(&case, t), &what)?;
                if distinct.insert(out.clone()) {
                    made.lock().unwrap().push((bytes.clone(), out, what));
                }
            }
            Ok(())
        },
    );
}

#[test]
fn petgraph_oracle_on_a_join_that_moves() {
    // if (is.gfx942) { b1 -> b2 } else { b3 -> b4 }; join b5 — laid out
    // 0 1 2 5 3 4 (valid: b0 dominates the join). On gfx950 the true arm
    // goes, b4 becomes the join's dominator, and the join must move after it.
    let case = Case {
        entries: vec![("is.gfx942".into(), 0)],
        sites: vec![0],
        program: Node::If(
            Cond::Site(0),
            Box::new(Node::Leaf),
            Some(Box::new(Node::Leaf)),
        ),
    };
    let cfg = Cfg::lower(&case.program);
    assert_eq!(cfg.blocks.len(), 6);
    let order = [0, 1, 2, 5, 3, 4];
    let dom = simple_fast(&petgraph_cfg(&cfg, None), NodeIndex::new(0));
    let at = |b: usize| order.iter().position(|&o| o == b).unwrap();
    for b in 1..cfg.blocks.len() {
        let d = dom.immediate_dominator(NodeIndex::new(b)).unwrap().index();
        assert!(at(d) < at(b), "b{b} laid out before its dominator b{d}");
    }
    let bytes = assemble_in_order(&case, &cfg, &order);
    let t = tables();
    let mut outputs = Vec::new();
    for (target, layout) in [("gfx942", vec![0, 1, 2, 5]), ("gfx950", vec![0, 3, 4, 5])] {
        let target = t.target(target).unwrap();
        let out = specialize(&bytes, &target, &Options::default())
            .unwrap()
            .bytes();
        let got = OutputCfg::parse(&out).unwrap();
        assert_eq!(got.order, layout, "{}", target.id());
        check_with_petgraph(
            &out,
            &cfg,
            &order,
            &site_values(&case, &target),
            target.id(),
        )
        .unwrap();
        outputs.push((target.id().to_string(), out));
    }
    let made: Vec<common::Made> = outputs
        .iter()
        .map(|(t, out)| common::Made {
            input: &bytes,
            output: out,
            what: format!("join that moves: {t}"),
        })
        .collect();
    common::assert_outputs_valid(&made);
}
