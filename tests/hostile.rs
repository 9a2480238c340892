//! Hostile inputs and resource limits: every case either fails with a clear
//! error (naming what is wrong and the byte where) or gives a correct
//! output (`spirv-val`-valid when the input was), never panics, and runs in
//! time roughly linear in its size.
//!
//! Each test runs its body in a child process (this test binary re-run on
//! that one test, under `ulimit -v`), so a stack overflow, an abort, an
//! allocation trusting a header field, or a hang fails that test alone and
//! says so, instead of taking the whole binary down.
//!
//! Modules are real golden modules (truncated, mutated by a seeded PRNG) or
//! are assembled word by word (`kasm`): cycles, forward references, 100,000
//! chained logic ops and 100,000 chained blocks, tables as large as one
//! instruction can hold.

mod common;
mod kasm;

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use kasm::{Kernel, inst, le};
use rspv_specialize::{ArchTables, Error, Options, inspect, specialize, specialize_many};
use spirv::Op;

// ---------------------------------------------------------------------------
// Harness

const CHILD: &str = "RSPV_HOSTILE_CHILD";
/// Address-space limit of a child, in KiB (4 GiB): a module of a few MB
/// never needs that much; an allocation sized by a hostile header field does.
const MEM_LIMIT_KB: u64 = 4 * 1024 * 1024;

/// Runs `body` in a child process (this binary, filtered to test `name`),
/// failing if the child panics, dies of a signal (stack overflow, abort,
/// out of memory) or runs longer than `limit`.
fn isolated(name: &str, limit: Duration, body: impl FnOnce()) {
    let Some(run) = common::isolated_run(name, CHILD, "hostile", MEM_LIMIT_KB, limit, body) else {
        return;
    };
    let text = &run.output;
    let tail: String = {
        let chars: Vec<char> = text.chars().collect();
        chars[chars.len().saturating_sub(6000)..].iter().collect()
    };
    match run.failure() {
        Some(why) => panic!("{name}: {why}; output:\n{tail}"),
        None => {
            eprintln!("{name}: passed in {:?}", run.elapsed);
            for line in text
                .lines()
                .filter(|l| l.contains("; ratio ") || l.contains(" mutants: "))
            {
                eprintln!("  {line}");
            }
        }
    }
}

/// The embedded arch tables (parsed once per process by the library).
fn tables() -> &'static ArchTables {
    ArchTables::embedded()
}

fn golden(case: &str) -> Vec<u8> {
    std::fs::read(common::golden_input(case)).unwrap()
}

/// Asserts that each of `outputs` (target, bytes), made from `input`, is
/// valid, when the validator in use accepts `input` (validators differ on
/// what input they accept; the tool promises a valid output for a valid
/// input). One parallel batch.
fn assert_valid_outputs(input: &[u8], outputs: &[(&str, Vec<u8>)], what: &str) {
    let made: Vec<common::Made> = outputs
        .iter()
        .map(|(t, out)| common::Made {
            input,
            output: out,
            what: format!("{what}: {t}"),
        })
        .collect();
    common::assert_outputs_valid(&made);
}

/// The outcome of one library call on one input.
enum Outcome {
    Ok(Vec<u8>),
    Err(String),
    Panic(String),
}

/// Where the last panic happened, recorded by a quiet panic hook (the
/// cases collect panics instead of printing each).
static LAST_PANIC: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let file = info.location().map(|l| l.file()).unwrap_or_default();
            if file.ends_with("hostile.rs") {
                // The test's own assertions print as usual.
                return default(info);
            }
            let at = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            if let Ok(mut last) = LAST_PANIC.lock() {
                *last = at;
            }
        }))
    });
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Ok(b) => write!(
                f,
                "Ok({} bytes, calling {:?})",
                b.len(),
                std::panic::catch_unwind(|| kasm::call_facts(b).called).unwrap_or_default()
            ),
            Outcome::Err(e) => write!(f, "Err({e})"),
            Outcome::Panic(p) => write!(f, "Panic({p})"),
        }
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    let msg = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "non-string panic".to_string());
    let at = LAST_PANIC.lock().map(|l| l.clone()).unwrap_or_default();
    format!("{msg} (at {at})")
}

/// An error message must say what is wrong and where: a byte offset.
fn clear(e: &Error) -> Result<String, String> {
    let msg = e.to_string();
    if msg.len() >= 12 && msg.contains("byte ") {
        Ok(msg)
    } else {
        Err(format!("unclear error (no byte offset): {msg}"))
    }
}

/// Runs `inspect`, `specialize` for each target and `specialize_many` on
/// `bytes`. Returns problems found (panics, unclear errors, outputs that
/// still hold a table, disagreement between one-by-one and many) and the
/// per-target outcomes.
fn probe(bytes: &[u8], targets: &[&str], what: &str) -> (Vec<String>, Vec<Outcome>) {
    quiet_panics();
    let tables = tables();
    let ts: Vec<_> = targets.iter().map(|t| tables.target(t).unwrap()).collect();
    let mut problems = Vec::new();
    match catch_unwind(AssertUnwindSafe(|| inspect(bytes))) {
        Err(p) => problems.push(format!("{what}: inspect panicked: {}", panic_text(&*p))),
        Ok(Err(e)) => {
            if let Err(m) = clear(&e) {
                problems.push(format!("{what}: inspect: {m}"));
            }
        }
        Ok(Ok(_)) => {}
    }
    let mut outcomes = Vec::new();
    for t in &ts {
        let r = catch_unwind(AssertUnwindSafe(|| {
            specialize(bytes, t, &Options::default())
        }));
        let o = match r {
            Err(p) => {
                let m = panic_text(&*p);
                problems.push(format!("{what}: specialize({}) panicked: {m}", t.id()));
                Outcome::Panic(m)
            }
            Ok(Err(e)) => {
                if let Err(m) = clear(&e) {
                    problems.push(format!("{what}: specialize({}): {m}", t.id()));
                }
                Outcome::Err(e.to_string())
            }
            Ok(Ok(out)) => {
                let b = out.bytes();
                match catch_unwind(AssertUnwindSafe(|| inspect(&b))) {
                    Ok(Ok(i)) if !i.has_table => {}
                    Ok(Ok(_)) => problems.push(format!(
                        "{what}: specialize({}) output still has a predicate table",
                        t.id()
                    )),
                    Ok(Err(e)) if inspect(bytes).map(|i| i.has_table).unwrap_or(true) => problems
                        .push(format!(
                            "{what}: specialize({}) output is unreadable: {e}",
                            t.id()
                        )),
                    Ok(Err(_)) => {} // no table: the input came back as it was
                    Err(p) => problems.push(format!(
                        "{what}: inspect of specialize({}) output panicked: {}",
                        t.id(),
                        panic_text(&*p)
                    )),
                }
                Outcome::Ok(b)
            }
        };
        outcomes.push(o);
    }
    match catch_unwind(AssertUnwindSafe(|| {
        specialize_many(bytes, &ts, &Options::default())
    })) {
        Err(p) => problems.push(format!(
            "{what}: specialize_many panicked: {}",
            panic_text(&*p)
        )),
        Ok(Err(e)) => {
            if outcomes.iter().any(|o| matches!(o, Outcome::Ok(_))) {
                problems.push(format!(
                    "{what}: specialize_many failed ({e}) where specialize succeeded"
                ));
            }
        }
        Ok(Ok(many)) => {
            for ((r, o), t) in many.iter().zip(&outcomes).zip(targets) {
                let agree = match (r, o) {
                    (Ok(a), Outcome::Ok(b)) => a.bytes() == *b,
                    (Err(_), Outcome::Err(_)) => true,
                    _ => false,
                };
                if !agree {
                    problems.push(format!(
                        "{what}: specialize_many and specialize disagree for {t}"
                    ));
                }
            }
        }
    }
    (problems, outcomes)
}

/// Asserts `problems` is empty, listing the first few.
fn assert_no_problems(problems: &[String], context: &str) {
    if !problems.is_empty() {
        let shown: Vec<&str> = problems.iter().take(12).map(String::as_str).collect();
        panic!(
            "{context}: {} problem(s); first ones:\n  {}",
            problems.len(),
            shown.join("\n  ")
        );
    }
}

/// The clock the time checks read: this thread's CPU time on Linux (on a
/// shared machine, wall time also counts the time other processes hold
/// the cores, which made the linearity checks fail under load), elsewhere
/// wall time.
fn work_clock() -> Duration {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid timespec for clock_gettime to fill.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
        }
    }
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

/// Asserts the library's time ([`work_clock`]) on size `n` vs `4n` scales
/// roughly linearly (ratio under 10: linear is 4, quadratic 16; against a
/// floor of 2 ms for the small size, below which CPU time is noise) and
/// stays under `bound` at `4n`. `run(n)` builds and checks
/// a case of size `n` and returns the time its slowest library call took;
/// each size runs three times and the fastest run counts (the work is
/// linear in instructions, but on a loaded machine the large size's
/// cache misses alone have taken a run past 10). The runs after a size's
/// first reuse the memory it touched: see `KEEP_FREED_MEMORY` in
/// `tests/common`.
fn assert_linear(label: &str, n: usize, bound: Duration, run: impl Fn(usize) -> Duration) {
    let best = |m: usize| run(m).min(run(m)).min(run(m));
    let small = best(n);
    let large = best(4 * n);
    let ratio = large.as_secs_f64() / small.max(Duration::from_millis(2)).as_secs_f64();
    eprintln!("{label}: n={n}: {small:?}; 4n: {large:?}; ratio {ratio:.1}");
    assert!(
        large < bound,
        "{label}: size {} took {large:?} (bound {bound:?})",
        4 * n
    );
    assert!(
        ratio < 10.0,
        "{label}: size {n} took {small:?}, size {} took {large:?}: ratio {ratio:.1} is not linear",
        4 * n
    );
}

/// `specialize` for `target`, and how long it took ([`work_clock`]).
fn timed_specialize(bytes: &[u8], target: &str) -> (Result<Vec<u8>, String>, Duration) {
    let tables = tables();
    let t = tables.target(target).unwrap();
    let start = work_clock();
    let r = specialize(bytes, &t, &Options::default());
    let took = work_clock() - start;
    (r.map(|o| o.bytes()).map_err(|e| e.to_string()), took)
}

/// A seeded xorshift64* generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `specialize` for `target`, which must succeed; the output and the time.
fn specialize_timed(bytes: &[u8], target: &str) -> (Vec<u8>, Duration) {
    let (r, took) = timed_specialize(bytes, target);
    match r {
        Ok(b) => (b, took),
        Err(e) => panic!("specialize for {target}: {e}"),
    }
}

fn specialize_ok(bytes: &[u8], target: &str) -> Vec<u8> {
    let tables = tables();
    let t = tables.target(target).unwrap();
    match specialize(bytes, &t, &Options::default()) {
        Ok(o) => o.bytes(),
        Err(e) => panic!("specialize for {target}: {e}"),
    }
}

// ---------------------------------------------------------------------------
// Truncation and random mutation of real modules

#[test]
fn truncated_at_every_word_boundary() {
    isolated(
        "truncated_at_every_word_boundary",
        Duration::from_secs(120),
        || {
            let input = golden("dispatch-chain");
            let targets = ["gfx942", "gfx1100"];
            let mut problems = Vec::new();
            let mut ok_outputs = 0;
            let mut made = Vec::new();
            let start = Instant::now();
            for len in 0..=input.len() {
                // Every word boundary, plus every byte length for the first
                // and last 64 bytes.
                if len % 4 != 0 && len > 64 && len + 64 < input.len() {
                    continue;
                }
                let cut = &input[..len];
                let what = format!("dispatch-chain truncated to {len} bytes");
                let (mut p, outcomes) = probe(cut, &targets, &what);
                problems.append(&mut p);
                for (o, t) in outcomes.into_iter().zip(targets) {
                    if let Outcome::Ok(out) = o {
                        ok_outputs += 1;
                        made.push((len, t, out));
                    }
                }
            }
            let library = start.elapsed();
            let made: Vec<common::Made> = made
                .iter()
                .map(|(len, t, out)| common::Made {
                    input: &input[..*len],
                    output: out,
                    what: format!("dispatch-chain truncated to {len} bytes, {t}"),
                })
                .collect();
            let checked = common::check_outputs(&made);
            problems.extend(checked.invalid);
            eprintln!(
                "{} bytes: {ok_outputs} successful runs in {library:?}; {} distinct outputs validated in {:?}",
                input.len(),
                checked.validated.len(),
                start.elapsed() - library
            );
            assert_no_problems(&problems, "truncation");
            // The whole module is the last case: it must have worked.
            assert!(ok_outputs >= targets.len());
        },
    );
}

/// One random mutation of a module's bytes.
fn mutate(rng: &mut Rng, input: &[u8]) -> (Vec<u8>, String) {
    let mut b = input.to_vec();
    let nwords = b.len() / 4;
    // Leave the magic number alone half the time (so most mutants get past
    // the first check); the header's other words are fair game.
    let word = |rng: &mut Rng| {
        if rng.below(2) == 0 {
            1 + rng.below(nwords - 1)
        } else {
            rng.below(nwords)
        }
    };
    let how = match rng.below(6) {
        0 => {
            let at = word(rng) * 4 + rng.below(4);
            let bit = rng.below(8);
            b[at] ^= 1 << bit;
            format!("bit {bit} of byte {at} flipped")
        }
        1 => {
            let n = 1 + rng.below(4);
            let mut d = Vec::new();
            for _ in 0..n {
                let at = word(rng) * 4 + rng.below(4);
                b[at] = rng.next() as u8;
                d.push(at);
            }
            format!("bytes {d:?} randomized")
        }
        2 => {
            // A word set to a small number: ids, word counts, opcodes.
            let at = word(rng);
            let v = rng.below(200) as u32;
            b[at * 4..at * 4 + 4].copy_from_slice(&v.to_le_bytes());
            format!("word {at} set to {v}")
        }
        3 => {
            // An instruction's word count changed (high half of a word).
            let at = word(rng);
            let v = rng.below(12) as u16;
            b[at * 4 + 2..at * 4 + 4].copy_from_slice(&v.to_le_bytes());
            format!("high half of word {at} set to {v}")
        }
        4 => {
            let (x, y) = (word(rng), word(rng));
            for k in 0..4 {
                b.swap(x * 4 + k, y * 4 + k);
            }
            format!("words {x} and {y} swapped")
        }
        _ => {
            let at = word(rng);
            let v = rng.next() as u32;
            b[at * 4..at * 4 + 4].copy_from_slice(&v.to_le_bytes());
            format!("word {at} set to {v:#x}")
        }
    };
    (b, how)
}

/// Mutants' outputs are validated until this many distinct ones are (most
/// mutants are invalid input, and only valid ones count; with Debian's
/// spirv-val that takes a few seconds) …
const MUTANT_OUTPUTS_VALIDATED: usize = 300;
/// … or this much time is spent (roughly): a validator costing 250 ms a
/// call gets through about a hundred mutants instead of stretching the
/// test to minutes.
const MUTANT_VALIDATION_BUDGET: Duration = Duration::from_secs(10);

#[test]
fn random_mutations_of_golden_modules() {
    isolated(
        "random_mutations_of_golden_modules",
        Duration::from_secs(240),
        || {
            let cases = [
                "dispatch-chain",
                "multi-callsite",
                "o0-notequal",
                "for-loop-pred-and",
                "do-while-pred-and",
                "select-pred",
                "structured-glsl",
                "unresolved-store",
            ];
            let targets = ["gfx942", "gfx1100"];
            let per_case = 600;
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
            let mut problems = Vec::new();
            let (mut ok, mut err) = (0usize, 0usize);
            // Per case, the mutants the tool changed, with their outputs.
            let mut changed_mutants: Vec<Vec<_>> = Vec::new();
            let start = Instant::now();
            for case in cases {
                let input = golden(case);
                let mut of_case = Vec::new();
                for k in 0..per_case {
                    let (m, how) = mutate(&mut rng, &input);
                    let what = format!("{case} mutant {k} ({how})");
                    let t = Instant::now();
                    let (mut p, outcomes) = probe(&m, &targets, &what);
                    if t.elapsed() > Duration::from_secs(2) {
                        p.push(format!("{what}: took {:?}", t.elapsed()));
                    }
                    if !p.is_empty() {
                        // Keep the mutant for the report.
                        let file =
                            std::env::temp_dir().join(format!("rspv-hostile-{case}-{k}.spv"));
                        let _ = std::fs::write(&file, &m);
                        p.push(format!("{what}: saved as {}", file.display()));
                    }
                    problems.append(&mut p);
                    let mut changed = Vec::new();
                    for (o, target) in outcomes.into_iter().zip(targets) {
                        match o {
                            Outcome::Ok(out) => {
                                ok += 1;
                                if out != m {
                                    changed.push((target, out));
                                }
                            }
                            _ => err += 1,
                        }
                    }
                    if !changed.is_empty() {
                        of_case.push((what, m, changed));
                    }
                }
                changed_mutants.push(of_case);
            }
            let library = start.elapsed();
            // Validate the outputs of valid mutants, taking the cases in
            // turn, in batches, until enough are done or the budget is
            // spent.
            let mut queue = Vec::new();
            for i in 0.. {
                let row: Vec<_> = changed_mutants.iter().filter_map(|c| c.get(i)).collect();
                if row.is_empty() {
                    break;
                }
                queue.extend(row);
            }
            let (mut done, mut rejected, mut validated) = (0, 0, BTreeSet::new());
            for batch in queue.chunks(32) {
                if start.elapsed() - library > MUTANT_VALIDATION_BUDGET
                    || validated.len() >= MUTANT_OUTPUTS_VALIDATED
                {
                    break;
                }
                // Most mutants are invalid: validate the inputs first, then
                // the outputs of the valid ones.
                let inputs: Vec<&[u8]> = batch.iter().map(|(_, m, _)| m.as_slice()).collect();
                let verdicts = common::validate_all(&inputs);
                let made: Vec<common::Made> = batch
                    .iter()
                    .zip(&verdicts)
                    .filter(|(_, v)| v.is_ok())
                    .flat_map(|((what, m, outs), _)| {
                        outs.iter().map(move |(t, out)| common::Made {
                            input: m,
                            output: out,
                            what: format!("{what}, {t}"),
                        })
                    })
                    .collect();
                let checked = common::check_outputs(&made);
                problems.extend(checked.invalid);
                done += batch.len();
                rejected += batch
                    .iter()
                    .zip(&verdicts)
                    .filter(|(_, v)| v.is_err())
                    .map(|((_, _, outs), _)| outs.len())
                    .sum::<usize>();
                validated.extend(checked.validated);
            }
            eprintln!(
                "{} mutants: {ok} runs ok, {err} errors, in {library:?}; {} mutants changed: outputs of {done} checked in {:?} ({rejected} not validated: input rejected; {} distinct validated)",
                cases.len() * per_case,
                queue.len(),
                start.elapsed() - library,
                validated.len()
            );
            assert_no_problems(&problems, "random mutations");
        },
    );
}

// ---------------------------------------------------------------------------
// Word counts, the id bound, header fields

/// Word index of the first instruction with `op` at or after `from`.
fn find(words: &[u32], op: Op, from: usize) -> usize {
    kasm::instructions(words)
        .into_iter()
        .find(|&(at, o, _)| at >= from && o == op as u32)
        .map(|(at, _, _)| at)
        .unwrap_or_else(|| panic!("no {op:?}"))
}

fn expect_error(bytes: &[u8], what: &str, wanted: &[&str]) {
    expect_error_in(bytes, what, wanted, true)
}

/// [`expect_error`]; `inspect_too`: `inspect` (which reads only the
/// table) must fail the same way.
fn expect_error_in(bytes: &[u8], what: &str, wanted: &[&str], inspect_too: bool) {
    let (problems, outcomes) = probe(bytes, &["gfx942", "gfx950"], what);
    assert_no_problems(&problems, what);
    for o in &outcomes {
        match o {
            Outcome::Err(msg) => {
                for w in wanted {
                    assert!(msg.contains(w), "{what}: expected `{w}` in: {msg}");
                }
            }
            other => panic!("{what}: expected an error, got {other:?}"),
        }
    }
    match inspect(bytes) {
        Err(e) => {
            let msg = e.to_string();
            for w in wanted {
                assert!(msg.contains(w), "{what}: inspect: expected `{w}` in: {msg}");
            }
        }
        Ok(_) if inspect_too => panic!("{what}: inspect accepted it"),
        Ok(_) => {}
    }
}

#[test]
fn word_counts_of_zero_and_0xffff() {
    isolated(
        "word_counts_of_zero_and_0xffff",
        Duration::from_secs(60),
        || {
            let base = kasm::words(&golden("dispatch-chain"));
            let first_fn = find(&base, Op::Function, 5);
            let in_body = find(&base, Op::Label, first_fn) + 2;
            for (at, label) in [
                (5usize, "first instruction"),
                (in_body, "inside a function"),
            ] {
                let mut w = base.clone();
                w[at] &= 0xffff;
                expect_error(
                    &le(&w),
                    &format!("word count 0 at word {at} ({label})"),
                    &[&format!("byte {}", at * 4), "word count 0"],
                );
                let mut w = base.clone();
                w[at] |= 0xffff << 16;
                expect_error(
                    &le(&w),
                    &format!("word count 0xFFFF at word {at} ({label})"),
                    &[&format!("byte {}", at * 4), "65535"],
                );
            }
            // The last instruction claims one word more than remains.
            let last = kasm::instructions(&base).last().unwrap().0;
            let mut w = base.clone();
            w[last] += 1 << 16;
            expect_error(&le(&w), "last instruction one word too long", &["byte"]);

            // A real 0xFFFF-word instruction: an OpName of 65,533 words on
            // the kernel. Valid; specialized like the module without it.
            let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
            let (kern, _) = branch_kernel(&mut k, |k, _| k.sites[0]);
            let name: String = "n".repeat(65_533 * 4 - 1);
            inst(
                &mut k.names,
                Op::Name,
                &[&[kern][..], &kasm::string(&name)].concat(),
            );
            let bytes = k.bytes();
            assert_eq!(
                kasm::instructions(&k.finish())
                    .iter()
                    .filter(|(_, _, w)| w.len() == 0xffff)
                    .count(),
                1
            );
            let mut outputs = Vec::new();
            for (t, want) in [("gfx942", "then"), ("gfx950", "else")] {
                let out = specialize_ok(&bytes, t);
                let facts = kasm::call_facts(&out);
                assert_eq!(facts.called, [want.to_string()].into(), "{t}");
                assert!(
                    kasm::instructions(&kasm::words(&out))
                        .iter()
                        .any(|(_, _, w)| w.len() == 0xffff)
                );
                outputs.push((t, out));
            }
            assert_valid_outputs(&bytes, &outputs, "OpName of 0xFFFF words");
        },
    );
}

/// A kernel `k(uint x)`: entry computes `cond(k, x)`, branches to a block
/// calling `then` or one calling `else`, both return. Returns the kernel's
/// id and its parameter.
fn branch_kernel(k: &mut Kernel, cond: impl FnOnce(&mut Kernel, u32) -> u32) -> (u32, u32) {
    let then_f = k.import("then");
    let else_f = k.import("else");
    let kern = k.id();
    let x = k.id();
    let (entry, lt, le_) = (k.id(), k.id(), k.id());
    let mut body = Vec::new();
    inst(&mut body, Op::Function, &[k.void, kern, 0, k.void_fn_uint]);
    inst(&mut body, Op::FunctionParameter, &[k.uint, x]);
    inst(&mut body, Op::Label, &[entry]);
    k.functions.extend(body);
    let c = cond(k, x);
    let mut body = Vec::new();
    inst(&mut body, Op::BranchConditional, &[c, lt, le_]);
    k.end_with_calls(&mut body, &[(lt, then_f), (le_, else_f)]);
    k.functions.extend(body);
    k.entry_point(kern, "k");
    (kern, x)
}

#[test]
fn id_bound_below_ids_and_ids_at_or_past_it() {
    isolated(
        "id_bound_below_ids_and_ids_at_or_past_it",
        Duration::from_secs(60),
        || {
            let base = kasm::words(&golden("dispatch-chain"));
            let max_id = kasm::instructions(&base)
                .iter()
                .filter_map(|(_, op, iw)| {
                    rspv_specialize::operands::result_pos(*op as u16)
                        .and_then(|p| iw.get(p).copied())
                })
                .max()
                .unwrap();
            for bound in [0u32, 1, 5, max_id / 2, max_id] {
                let mut w = base.clone();
                w[3] = bound;
                // inspect reads the table only; ids past the bound in a
                // function need not stop it.
                expect_error_in(
                    &le(&w),
                    &format!("bound {bound} below the ids used"),
                    &["out of range", &format!("bound is {bound}")],
                    bound <= max_id / 2,
                );
            }
            // Ids at or past the bound, only inside the function a
            // predicate reaches: its result ids, then a branch target, a
            // phi parent and a call's callee.
            let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
            let (_, x) = branch_kernel(&mut k, |k, _| k.sites[0]);
            let mut w = k.finish();
            w[3] = x + 1; // labels and call results are past it

            expect_error_in(
                &le(&w),
                "function ids at or past the bound",
                &["out of range"],
                false,
            );

            let huge = [0u32, 0xffff_fff0, u32::MAX];
            for (role, op) in [
                ("branch target", Op::BranchConditional),
                ("call's callee", Op::FunctionCall),
            ] {
                for bad in huge {
                    let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
                    branch_kernel(&mut k, |k, _| k.sites[0]);
                    let mut w = k.finish();
                    let at = find(&w, op, 5);
                    w[at + 3] = bad;
                    let what = format!("{role} %{bad}");
                    let (problems, _) = probe(&le(&w), &["gfx942", "gfx950"], &what);
                    assert_no_problems(&problems, &what);
                }
            }
        },
    );
}

#[test]
fn header_fields_claiming_huge_sizes() {
    isolated(
        "header_fields_claiming_huge_sizes",
        Duration::from_secs(60),
        || {
            // bound = u32::MAX on real modules: must not size anything by it.
            for case in ["dispatch-chain", "multi-callsite", "structured-glsl"] {
                let mut w = kasm::words(&golden(case));
                w[3] = u32::MAX;
                let t = Instant::now();
                let (problems, outcomes) = probe(
                    &le(&w),
                    &["gfx942", "gfx950"],
                    &format!("{case}, bound u32::MAX"),
                );
                assert_no_problems(&problems, case);
                assert!(
                    t.elapsed() < Duration::from_secs(5),
                    "{case}: {:?}",
                    t.elapsed()
                );
                for o in outcomes {
                    assert!(matches!(o, Outcome::Ok(_)), "{case}, bound u32::MAX: {o:?}");
                }
            }
            // The table's array length claims 4 G elements.
            let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
            branch_kernel(&mut k, |k, _| k.sites[0]);
            let mut w = k.finish();
            let arr = find(&w, Op::TypeArray, 5);
            let len_id = w[arr + 3];
            let c = kasm::instructions(&w)
                .into_iter()
                .find(|(_, o, iw)| *o == Op::Constant as u32 && iw[2] == len_id)
                .unwrap()
                .0;
            w[c + 3] = u32::MAX;
            let (problems, _) = probe(&le(&w), &["gfx942", "gfx950"], "array length u32::MAX");
            assert_no_problems(&problems, "array length u32::MAX");

            // SpecId u32::MAX, in the table and on the site.
            let k = {
                let mut k = Kernel::new(&[("is.gfx942", u32::MAX)], &[u32::MAX]);
                branch_kernel(&mut k, |k, _| k.sites[0]);
                k
            };
            let bytes = k.bytes();
            let mut outputs = Vec::new();
            for (t, want) in [("gfx942", "then"), ("gfx950", "else")] {
                let out = specialize_ok(&bytes, t);
                assert_eq!(kasm::call_facts(&out).called, [want.to_string()].into());
                outputs.push((t, out));
            }
            assert_valid_outputs(&bytes, &outputs, "SpecId u32::MAX");
        },
    );
}

/// One predicate site, no `OpConstantTrue/False` in the module, and two
/// kept phis that need one constant `true` and one `false`: one comes from
/// the repurposed site, the other needs a new id at the bound.
fn needs_a_new_id() -> Vec<u32> {
    let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
    let (t, f) = (k.t, k.f);
    let p = k.sites[0];
    let (then_f, else_f) = (k.import("then"), k.import("else"));
    let kern = k.id();
    let x = k.id();
    let [entry, a, b, j, lt, lf] = [(); 6].map(|_| k.id());
    let (q, np, ph1, ph2, both, zero) = (k.id(), k.id(), k.id(), k.id(), k.id(), k.uint_const(0));
    let mut w = Vec::new();
    inst(&mut w, Op::Function, &[k.void, kern, 0, k.void_fn_uint]);
    inst(&mut w, Op::FunctionParameter, &[k.uint, x]);
    inst(&mut w, Op::Label, &[entry]);
    inst(&mut w, Op::IEqual, &[k.boolean, q, x, zero]);
    inst(&mut w, Op::LogicalNot, &[k.boolean, np, p]);
    inst(&mut w, Op::BranchConditional, &[q, a, b]);
    inst(&mut w, Op::Label, &[a]);
    inst(&mut w, Op::Branch, &[j]);
    inst(&mut w, Op::Label, &[b]);
    inst(&mut w, Op::Branch, &[j]);
    inst(&mut w, Op::Label, &[j]);
    inst(&mut w, Op::Phi, &[k.boolean, ph1, p, a, q, b]);
    inst(&mut w, Op::Phi, &[k.boolean, ph2, np, a, q, b]);
    inst(&mut w, Op::LogicalAnd, &[k.boolean, both, ph1, ph2]);
    inst(&mut w, Op::BranchConditional, &[both, lt, lf]);
    k.end_with_calls(&mut w, &[(lt, then_f), (lf, else_f)]);
    k.functions.extend(w);
    k.entry_point(kern, "k");
    let words = k.finish();
    // Drop OpConstantTrue/False (unused by the body).
    let mut out = words[..5].to_vec();
    for (_, op, iw) in kasm::instructions(&words) {
        let is_bool_const = (op == Op::ConstantTrue as u32 || op == Op::ConstantFalse as u32)
            && (iw[2] == t || iw[2] == f);
        if !is_bool_const {
            out.extend_from_slice(iw);
        }
    }
    out
}

#[test]
fn new_constant_at_the_bound_and_no_id_left() {
    isolated(
        "new_constant_at_the_bound_and_no_id_left",
        Duration::from_secs(60),
        || {
            let w = needs_a_new_id();
            let bytes = le(&w);
            let mut outputs = Vec::new();
            for t in ["gfx942", "gfx950"] {
                let out = specialize_ok(&bytes, t);
                let facts = kasm::call_facts(&out);
                // The branch on `ph1 && ph2` is not decided: both calls stay.
                assert_eq!(facts.called.len(), 2, "{t}: {facts:?}");
                outputs.push((t, out));
            }
            assert_valid_outputs(&bytes, &outputs, "a new constant");
            // The same module with bound u32::MAX: there is no id left for
            // the new constant (ids must stay below the bound).
            let mut w = w;
            w[3] = u32::MAX;
            let tables = tables();
            for t in ["gfx942", "gfx950"] {
                match specialize(&le(&w), &tables.target(t).unwrap(), &Options::default()) {
                    Err(e) => {
                        let m = clear(&e).unwrap();
                        assert!(m.contains("id"), "{m}");
                    }
                    Ok(o) => {
                        let out = kasm::words(&o.bytes());
                        let max_id = kasm::instructions(&out)
                            .iter()
                            .filter(|(_, op, _)| {
                                matches!(*op, x if x == Op::ConstantTrue as u32 || x == Op::ConstantFalse as u32)
                            })
                            .map(|(_, _, iw)| iw[2])
                            .max()
                            .unwrap_or(0);
                        assert!(
                            max_id < out[3],
                            "{t}: new constant %{max_id} is not below the bound {}",
                            out[3]
                        );
                    }
                }
            }
        },
    );
}

// ---------------------------------------------------------------------------
// Cycles

/// A module whose kernel branches on `cond` (a module-scope value built by
/// `globals` after the predicate site `p` = `is.gfx942`).
fn module_scope_cycle(globals: impl FnOnce(&mut Kernel, u32) -> u32) -> Vec<u8> {
    let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
    let p = k.sites[0];
    let c = globals(&mut k, p);
    branch_kernel(&mut k, |_, _| c);
    k.bytes()
}

fn spec_op(k: &mut Kernel, result: u32, op: Op, operands: &[u32]) {
    let mut w = vec![k.boolean, result, op as u32];
    w.extend_from_slice(operands);
    inst(&mut k.globals, Op::SpecConstantOp, &w);
}

/// Each cycle either fails clearly or specializes without a table; it must
/// not overflow the stack, hang or panic.
fn check_cycle(name: &str, bytes: &[u8]) {
    let t = Instant::now();
    let (problems, outcomes) = probe(bytes, &["gfx942", "gfx950"], name);
    assert_no_problems(&problems, name);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "{name}: {:?}",
        t.elapsed()
    );
    eprintln!(
        "{name}: {:?}",
        outcomes
            .iter()
            .map(|o| match o {
                Outcome::Ok(_) => "ok".to_string(),
                Outcome::Err(e) => e.clone(),
                Outcome::Panic(p) => p.clone(),
            })
            .collect::<Vec<_>>()
    );
}

#[test]
fn cyclic_spec_constant_op_self_reference() {
    isolated(
        "cyclic_spec_constant_op_self_reference",
        Duration::from_secs(30),
        || {
            // %a = OpSpecConstantOp %bool LogicalOr %p %a
            let bytes = module_scope_cycle(|k, p| {
                let a = k.id();
                spec_op(k, a, Op::LogicalOr, &[p, a]);
                a
            });
            check_cycle("a = p || a", &bytes);
        },
    );
}

#[test]
fn cyclic_spec_constant_op_two_cycle() {
    isolated(
        "cyclic_spec_constant_op_two_cycle",
        Duration::from_secs(30),
        || {
            // %a = LogicalAnd %p %b (forward reference); %b = LogicalAnd %a %true
            let bytes = module_scope_cycle(|k, p| {
                let (a, b) = (k.id(), k.id());
                let t = k.t;
                spec_op(k, a, Op::LogicalAnd, &[p, b]);
                spec_op(k, b, Op::LogicalAnd, &[a, t]);
                b
            });
            check_cycle("a = p && b; b = a && true", &bytes);
        },
    );
}

#[test]
fn cyclic_spec_constant_op_longer_cycles() {
    isolated(
        "cyclic_spec_constant_op_longer_cycles",
        Duration::from_secs(30),
        || {
            // a = !c; b = a && p; c = b || false  (a 3-cycle through a Not)
            let bytes = module_scope_cycle(|k, p| {
                let (a, b, c) = (k.id(), k.id(), k.id());
                let f = k.f;
                spec_op(k, a, Op::LogicalNot, &[c]);
                spec_op(k, b, Op::LogicalAnd, &[a, p]);
                spec_op(k, c, Op::LogicalOr, &[b, f]);
                c
            });
            check_cycle("a = !c; b = a && p; c = b || false", &bytes);
            // s = select(p, s, true); a select cycling through itself
            let bytes = module_scope_cycle(|k, p| {
                let s = k.id();
                let t = k.t;
                spec_op(k, s, Op::Select, &[p, s, t]);
                s
            });
            check_cycle("s = p ? s : true", &bytes);
            // Equal / NotEqual cycle: e = (n == p); n = (e != false)
            let bytes = module_scope_cycle(|k, p| {
                let (e, n) = (k.id(), k.id());
                let f = k.f;
                spec_op(k, e, Op::LogicalEqual, &[n, p]);
                spec_op(k, n, Op::LogicalNotEqual, &[e, f]);
                n
            });
            check_cycle("e = n == p; n = e != false", &bytes);
        },
    );
}

#[test]
fn phi_cycles_and_self_loops() {
    isolated("phi_cycles_and_self_loops", Duration::from_secs(60), || {
        // entry: br p ? L1 : E
        // L1: a = phi(p: entry, b: L2); call l1; br L2
        // L2: b = phi(a: L1);           call l2; br b ? L1 : X
        // X:  call x; br E
        // E:  call e; br S
        // S:  c = phi(p: E, c: S);      call s; br c ? S : R   (self-loop)
        // R:  call r; return
        let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
        let p = k.sites[0];
        let f: Vec<u32> = ["l1", "l2", "x", "e", "s", "r"]
            .iter()
            .map(|n| k.import(n))
            .collect();
        let kern = k.id();
        let [entry, l1, l2, x, e, s, r] = [(); 7].map(|_| k.id());
        let (a, b, c) = (k.id(), k.id(), k.id());
        let mut w = Vec::new();
        let call = |k: &mut Kernel, w: &mut Vec<u32>, func: u32| {
            let id = k.id();
            inst(w, Op::FunctionCall, &[k.void, id, func]);
        };
        inst(&mut w, Op::Function, &[k.void, kern, 0, k.void_fn]);
        inst(&mut w, Op::Label, &[entry]);
        inst(&mut w, Op::BranchConditional, &[p, l1, e]);
        inst(&mut w, Op::Label, &[l1]);
        inst(&mut w, Op::Phi, &[k.boolean, a, p, entry, b, l2]);
        call(&mut k, &mut w, f[0]);
        inst(&mut w, Op::Branch, &[l2]);
        inst(&mut w, Op::Label, &[l2]);
        inst(&mut w, Op::Phi, &[k.boolean, b, a, l1]);
        call(&mut k, &mut w, f[1]);
        inst(&mut w, Op::BranchConditional, &[b, l1, x]);
        inst(&mut w, Op::Label, &[x]);
        call(&mut k, &mut w, f[2]);
        inst(&mut w, Op::Branch, &[e]);
        inst(&mut w, Op::Label, &[e]);
        call(&mut k, &mut w, f[3]);
        inst(&mut w, Op::Branch, &[s]);
        inst(&mut w, Op::Label, &[s]);
        inst(&mut w, Op::Phi, &[k.boolean, c, p, e, c, s]);
        call(&mut k, &mut w, f[4]);
        inst(&mut w, Op::BranchConditional, &[c, s, r]);
        inst(&mut w, Op::Label, &[r]);
        call(&mut k, &mut w, f[5]);
        inst(&mut w, Op::Return, &[]);
        inst(&mut w, Op::FunctionEnd, &[]);
        k.functions.extend(w);
        k.entry_point(kern, "k");
        let bytes = k.bytes();
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        // gfx942: p true: entry→L1→L2→L1… forever; X, E, S, R are dead.
        // gfx950: p false: entry→E→S, c = false → R.
        let mut outputs = Vec::new();
        for (t, want) in [
            ("gfx942", set(&["l1", "l2"])),
            ("gfx950", set(&["e", "s", "r"])),
        ] {
            let out = specialize_ok(&bytes, t);
            let facts = kasm::call_facts(&out);
            assert_eq!(facts.called, want, "{t}");
            assert_eq!(facts.declared, want, "{t}: dead imports are removed");
            assert_eq!(
                facts.conditional_branches, 0,
                "{t}: every branch is decided"
            );
            outputs.push((t, out));
        }
        assert_valid_outputs(&bytes, &outputs, "phi cycles");
        let (problems, _) = probe(&bytes, &["gfx942", "gfx950"], "phi cycles");
        assert_no_problems(&problems, "phi cycles");
    });
}

#[test]
fn phi_naming_no_block_of_the_function() {
    // entry: br p ? A : B;  A: call a; br M;  B: call b; br M;
    // M: v = phi(p: A, p: %a), where %a is the imported function `a`.
    // Invalid input: the propagation reaches the phi for either value of
    // p and reports the parent that is no block.
    isolated(
        "phi_naming_no_block_of_the_function",
        Duration::from_secs(30),
        || {
            let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
            let p = k.sites[0];
            let (fa, fb) = (k.import("a"), k.import("b"));
            let kern = k.id();
            let [entry, a, b, m, v, ca, cb] = [(); 7].map(|_| k.id());
            let mut w = Vec::new();
            inst(&mut w, Op::Function, &[k.void, kern, 0, k.void_fn]);
            inst(&mut w, Op::Label, &[entry]);
            inst(&mut w, Op::BranchConditional, &[p, a, b]);
            inst(&mut w, Op::Label, &[a]);
            inst(&mut w, Op::FunctionCall, &[k.void, ca, fa]);
            inst(&mut w, Op::Branch, &[m]);
            inst(&mut w, Op::Label, &[b]);
            inst(&mut w, Op::FunctionCall, &[k.void, cb, fb]);
            inst(&mut w, Op::Branch, &[m]);
            inst(&mut w, Op::Label, &[m]);
            inst(&mut w, Op::Phi, &[k.boolean, v, p, a, p, fa]);
            inst(&mut w, Op::Return, &[]);
            inst(&mut w, Op::FunctionEnd, &[]);
            k.functions.extend(w);
            k.entry_point(kern, "k");
            let wanted = format!("OpPhi names %{fa}, which is not a block of this function");
            expect_error_in(&k.bytes(), "a phi naming a function", &[&wanted], false);
        },
    );
}

#[test]
fn terminator_in_the_middle_of_a_block() {
    // entry: OpBranchConditional %p %A %B, then OpBranch %A in the same
    // block (a mutated OpLabel leaves such blocks). Invalid input: a clear
    // error, never a panic.
    isolated(
        "terminator_in_the_middle_of_a_block",
        Duration::from_secs(30),
        || {
            for second in [Op::Branch, Op::Return] {
                let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
                let p = k.sites[0];
                let (fa, fb) = (k.import("a"), k.import("b"));
                let kern = k.id();
                let [entry, a, b] = [(); 3].map(|_| k.id());
                let mut w = Vec::new();
                inst(&mut w, Op::Function, &[k.void, kern, 0, k.void_fn]);
                inst(&mut w, Op::Label, &[entry]);
                inst(&mut w, Op::BranchConditional, &[p, a, b]);
                if second == Op::Branch {
                    inst(&mut w, Op::Branch, &[a]);
                } else {
                    inst(&mut w, Op::Return, &[]);
                }
                k.end_with_calls(&mut w, &[(a, fa), (b, fb)]);
                k.functions.extend(w);
                k.entry_point(kern, "k");
                let what = format!("OpBranchConditional followed by Op{second:?} in one block");
                let (problems, _) = probe(&k.bytes(), &["gfx942", "gfx950"], &what);
                assert_no_problems(&problems, &what);
            }
        },
    );
}

#[test]
fn label_sharing_its_id_with_a_logic_result() {
    // entry: n = OpLogicalNot p; br n ? A : B; with A's label given n's
    // id, the logic result defined before the label or (A first in the
    // function) after it. Invalid input (an id defined twice), which the
    // full rewrite specializes as the branch says; the quick rewrite must
    // not take the function otherwise (debug builds compare the two), and
    // nothing may panic.
    isolated(
        "label_sharing_its_id_with_a_logic_result",
        Duration::from_secs(30),
        || {
            for label_first in [false, true] {
                let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
                let p = k.sites[0];
                let (fa, fb) = (k.import("a"), k.import("b"));
                let kern = k.id();
                let [first, entry, n, b, ca, cb] = [(); 6].map(|_| k.id());
                let mut w = Vec::new();
                inst(&mut w, Op::Function, &[k.void, kern, 0, k.void_fn]);
                let void = k.void;
                let block_a = |w: &mut Vec<u32>| {
                    inst(w, Op::Label, &[n]);
                    inst(w, Op::FunctionCall, &[void, ca, fa]);
                    inst(w, Op::Return, &[]);
                };
                if label_first {
                    inst(&mut w, Op::Label, &[first]);
                    inst(&mut w, Op::Branch, &[entry]);
                    block_a(&mut w);
                }
                inst(&mut w, Op::Label, &[entry]);
                inst(&mut w, Op::LogicalNot, &[k.boolean, n, p]);
                inst(&mut w, Op::BranchConditional, &[n, n, b]);
                if !label_first {
                    block_a(&mut w);
                }
                inst(&mut w, Op::Label, &[b]);
                inst(&mut w, Op::FunctionCall, &[k.void, cb, fb]);
                inst(&mut w, Op::Return, &[]);
                inst(&mut w, Op::FunctionEnd, &[]);
                k.functions.extend(w);
                k.entry_point(kern, "k");
                let what = format!("a label with a logic result's id (label first: {label_first})");
                let (problems, outcomes) = probe(&k.bytes(), &["gfx942", "gfx950"], &what);
                assert_no_problems(&problems, &what);
                for (o, want) in outcomes.iter().zip(["b", "a"]) {
                    match o {
                        Outcome::Ok(out) => assert_eq!(
                            kasm::call_facts(out).called,
                            [want.to_string()].into(),
                            "{what}"
                        ),
                        other => panic!("{what}: expected an output, got {other:?}"),
                    }
                }
            }
        },
    );
}

#[test]
fn a_word_read_before_the_result_defining_it() {
    // entry: y = OpCopyObject x, then x defined: by a logic instruction
    // (x = !p, branched on), by a phi of a later block, or by a plain
    // instruction (x = OpCopyObject true). Invalid input (a use before its
    // definition). The full rewrite may replace the word where x is a
    // logic result or a phi; the quick rewrite must then decline (debug
    // builds compare the two), take the plain case as the full one does,
    // and nothing may panic. The logic result stays a use of the
    // predicate, an error; otherwise each target keeps the arm `p` says.
    isolated(
        "a_word_read_before_the_result_defining_it",
        Duration::from_secs(30),
        || {
            for later in ["logic", "phi", "plain"] {
                let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
                let p = k.sites[0];
                let (fa, fb) = (k.import("a"), k.import("b"));
                let kern = k.id();
                let [entry, a, b, m, x, y, ca, cb, va, vb] = [(); 10].map(|_| k.id());
                let (void, boolean, t, f) = (k.void, k.boolean, k.t, k.f);
                let phi = later == "phi";
                let mut w = Vec::new();
                inst(&mut w, Op::Function, &[void, kern, 0, k.void_fn]);
                inst(&mut w, Op::Label, &[entry]);
                inst(&mut w, Op::CopyObject, &[boolean, y, x]);
                match later {
                    "logic" => {
                        inst(&mut w, Op::LogicalNot, &[boolean, x, p]);
                        inst(&mut w, Op::BranchConditional, &[x, a, b]);
                    }
                    "plain" => {
                        inst(&mut w, Op::CopyObject, &[boolean, x, t]);
                        inst(&mut w, Op::BranchConditional, &[p, a, b]);
                    }
                    _ => inst(&mut w, Op::BranchConditional, &[p, a, b]),
                }
                // Each arm calls its import; for the phi, it also makes
                // the phi's value (a local one: the quick way takes no
                // constant) and goes on to the phi's block.
                for (label, callee, result, value, c) in [(a, fa, ca, va, t), (b, fb, cb, vb, f)] {
                    inst(&mut w, Op::Label, &[label]);
                    inst(&mut w, Op::FunctionCall, &[void, result, callee]);
                    if phi {
                        inst(&mut w, Op::CopyObject, &[boolean, value, c]);
                        inst(&mut w, Op::Branch, &[m]);
                    } else {
                        inst(&mut w, Op::Return, &[]);
                    }
                }
                if phi {
                    inst(&mut w, Op::Label, &[m]);
                    inst(&mut w, Op::Phi, &[boolean, x, va, a, vb, b]);
                    inst(&mut w, Op::Return, &[]);
                }
                inst(&mut w, Op::FunctionEnd, &[]);
                k.functions.extend(w);
                k.entry_point(kern, "k");
                let what = format!("a word read before the {later} result defining it");
                let (problems, outcomes) = probe(&k.bytes(), &["gfx942", "gfx950"], &what);
                assert_no_problems(&problems, &what);
                for (o, want) in outcomes.iter().zip(["a", "b"]) {
                    match o {
                        // (The logic result stays a use of the predicate:
                        // the full rewrite's error, for every target.)
                        Outcome::Err(e) if later == "logic" => {
                            assert!(e.contains("unresolved use"), "{what}: {e}")
                        }
                        // (gfx942: p true.)
                        Outcome::Ok(out) if later != "logic" => assert_eq!(
                            kasm::call_facts(out).called,
                            [want.to_string()].into(),
                            "{what}"
                        ),
                        other => panic!("{what}: got {other:?}"),
                    }
                }
            }
        },
    );
}

// ---------------------------------------------------------------------------
// Depth: chains and CFGs deep enough to overflow a recursive walk

/// `x_0 = p`, `x_i = OpLogicalNot x_{i-1}` (in the function, or as
/// module-scope `OpSpecConstantOp`s), then `br x_n ? then : else`.
fn not_chain(n: usize, module_scope: bool) -> Vec<u8> {
    let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
    let p = k.sites[0];
    let mut cur = p;
    if module_scope {
        for _ in 0..n {
            let x = k.id();
            spec_op(&mut k, x, Op::LogicalNot, &[cur]);
            cur = x;
        }
        branch_kernel(&mut k, |_, _| cur);
    } else {
        branch_kernel(&mut k, |k, _| {
            let mut w = Vec::new();
            for _ in 0..n {
                let x = k.id();
                inst(&mut w, Op::LogicalNot, &[k.boolean, x, cur]);
                cur = x;
            }
            k.functions.extend(w);
            cur
        });
    }
    k.bytes()
}

fn check_not_chain(n: usize, module_scope: bool, validate: bool) -> Duration {
    let bytes = not_chain(n, module_scope);
    let mut slowest = Duration::ZERO;
    let mut outputs = Vec::new();
    for (t, p) in [("gfx942", true), ("gfx950", false)] {
        let (out, took) = specialize_timed(&bytes, t);
        slowest = slowest.max(took);
        let want = if p ^ (n % 2 == 1) { "then" } else { "else" };
        let facts = kasm::call_facts(&out);
        assert_eq!(facts.called, [want.to_string()].into(), "{t}, n = {n}");
        assert_eq!(facts.conditional_branches, 0);
        assert!(
            out.len() < 4096,
            "{t}: the chain is gone ({} bytes)",
            out.len()
        );
        if validate {
            outputs.push((t, out));
        }
    }
    assert_valid_outputs(&bytes, &outputs, &format!("Not chain of {n}"));
    slowest
}

#[test]
fn logical_not_chain_of_100000_in_a_function() {
    isolated(
        "logical_not_chain_of_100000_in_a_function",
        Duration::from_secs(120),
        || {
            check_not_chain(5_000, false, true);
            check_not_chain(100_001, false, false);
            assert_linear("function Not chain", 25_000, Duration::from_secs(5), |n| {
                check_not_chain(n, false, false)
            });
        },
    );
}

#[test]
fn logical_not_chain_of_100000_at_module_scope() {
    isolated(
        "logical_not_chain_of_100000_at_module_scope",
        Duration::from_secs(120),
        || {
            check_not_chain(5_000, true, true);
            check_not_chain(100_001, true, false);
            assert_linear(
                "module-scope Not chain",
                25_000,
                Duration::from_secs(5),
                |n| check_not_chain(n, true, false),
            );
        },
    );
}

/// A kernel of `n` chained blocks: block i branches on site `sites[i %
/// len]` to block i+1 when the site's value is `go_on(i)`, else to `exit`;
/// odd blocks test `OpLogicalNot` of the site with the targets swapped. The
/// last block calls `end`, `exit` calls `exit`. With `reversed`, the
/// chain's blocks are written last-first (invalid: each block precedes its
/// dominator).
fn block_chain(k: &mut Kernel, n: usize, reversed: bool, go_on: impl Fn(usize) -> bool) {
    let (end_f, exit_f) = (k.import("end"), k.import("exit"));
    let kern = k.id();
    let entry = k.id();
    let labels: Vec<u32> = (0..n).map(|_| k.id()).collect();
    let (last, exit) = (k.id(), k.id());
    let mut w = Vec::new();
    inst(&mut w, Op::Function, &[k.void, kern, 0, k.void_fn]);
    inst(&mut w, Op::Label, &[entry]);
    inst(&mut w, Op::Branch, &[labels[0]]);
    let mut blocks: Vec<Vec<u32>> = Vec::with_capacity(n);
    for i in 0..n {
        let mut b = Vec::new();
        let next = labels.get(i + 1).copied().unwrap_or(last);
        let p = k.sites[i % k.sites.len()];
        inst(&mut b, Op::Label, &[labels[i]]);
        let negated = i % 2 == 1;
        let cond = if negated {
            let np = k.id();
            inst(&mut b, Op::LogicalNot, &[k.boolean, np, p]);
            np
        } else {
            p
        };
        if go_on(i) ^ negated {
            inst(&mut b, Op::BranchConditional, &[cond, next, exit]);
        } else {
            inst(&mut b, Op::BranchConditional, &[cond, exit, next]);
        }
        blocks.push(b);
    }
    if reversed {
        blocks.reverse();
    }
    for b in blocks {
        w.extend(b);
    }
    for (l, f, next) in [(last, end_f, Some(exit)), (exit, exit_f, None)] {
        inst(&mut w, Op::Label, &[l]);
        let r = k.id();
        inst(&mut w, Op::FunctionCall, &[k.void, r, f]);
        match next {
            Some(x) => inst(&mut w, Op::Branch, &[x]),
            None => inst(&mut w, Op::Return, &[]),
        }
    }
    inst(&mut w, Op::FunctionEnd, &[]);
    k.functions.extend(w);
    k.entry_point(kern, "k");
}

fn check_block_chain(n: usize, validate: bool) -> Duration {
    let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
    block_chain(&mut k, n, false, |_| true);
    let bytes = k.bytes();
    let mut slowest = Duration::ZERO;
    let mut outputs = Vec::new();
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    // gfx942: p true, every block goes on; gfx950: the first goes to exit.
    for (t, want, blocks) in [
        ("gfx942", set(&["end", "exit"]), n + 3),
        ("gfx950", set(&["exit"]), 3),
    ] {
        let (out, took) = specialize_timed(&bytes, t);
        slowest = slowest.max(took);
        let facts = kasm::call_facts(&out);
        assert_eq!(facts.called, want, "{t}, n = {n}");
        assert_eq!(facts.blocks, blocks, "{t}, n = {n}");
        assert_eq!(facts.conditional_branches, 0, "{t}");
        if validate {
            outputs.push((t, out));
        }
    }
    assert_valid_outputs(&bytes, &outputs, &format!("block chain of {n}"));
    slowest
}

#[test]
fn block_chain_of_100000_predicate_branches() {
    isolated(
        "block_chain_of_100000_predicate_branches",
        Duration::from_secs(180),
        || {
            // spirv-val is superlinear on long chains: validate a shorter one.
            check_block_chain(5_000, true);
            assert_linear("block chain", 25_000, Duration::from_secs(5), |n| {
                check_block_chain(n, false)
            });
        },
    );
}

#[test]
fn block_chain_written_last_first() {
    // Invalid input (blocks before their dominators); a clear error or an
    // output, in linear time.
    isolated(
        "block_chain_written_last_first",
        Duration::from_secs(120),
        || {
            let run = |n: usize| {
                let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
                block_chain(&mut k, n, true, |_| true);
                let bytes = k.bytes();
                let (problems, _) = probe(&bytes, &["gfx942", "gfx950"], "reversed chain");
                assert_no_problems(&problems, "reversed chain");
                ["gfx942", "gfx950"]
                    .iter()
                    .map(|t| timed_specialize(&bytes, t).1)
                    .max()
                    .unwrap()
            };
            assert_linear("reversed block chain", 5_000, Duration::from_secs(5), run);
        },
    );
}

// ---------------------------------------------------------------------------
// Big and conflicting tables

/// The largest table one `OpConstantComposite` can hold is 65,532 bytes
/// (word count 0xFFFF), so a table of 100,000 entries cannot be written;
/// this fills one: `has.f<i>` (false everywhere) for even i and
/// `has.f<i>|mai-insts` (true on gfx942, false on gfx950) for odd i, each
/// with its own call site deciding one block of a chain.
fn big_table(max_entries: usize) -> (Vec<u8>, usize) {
    let mut entries: Vec<(String, u32)> = Vec::new();
    let mut size = 0;
    for i in 0..max_entries {
        let name = if i % 2 == 0 {
            format!("has.f{i}")
        } else {
            format!("has.f{i}|mai-insts")
        };
        let len = format!("{name} {i}").len() + 1;
        if size + len > 0xffff - 3 {
            break;
        }
        size += len;
        entries.push((name, i as u32));
    }
    let n = entries.len();
    let refs: Vec<(&str, u32)> = entries.iter().map(|(s, i)| (s.as_str(), *i)).collect();
    let ids: Vec<u32> = (0..n as u32).collect();
    let mut k = Kernel::new(&refs, &ids);
    // Block i branches on site i and goes on when it has the value it has
    // on gfx942: true for odd i, false for even i.
    block_chain(&mut k, n, false, |i| i % 2 == 1);
    (k.bytes(), n)
}

#[test]
fn table_as_large_as_one_instruction_allows() {
    isolated(
        "table_as_large_as_one_instruction_allows",
        Duration::from_secs(120),
        || {
            let (bytes, n) = big_table(usize::MAX);
            eprintln!("{n} entries fit in one table");
            assert!(n > 3000);
            let table = inspect(&bytes).unwrap();
            assert_eq!(table.predicates.len(), n);
            assert!(table.predicates.iter().all(|p| p.sites.len() == 1));
            let check = |bytes: &[u8], n: usize, validate: bool| -> Duration {
                let mut slowest = Duration::ZERO;
                let mut outputs = Vec::new();
                // gfx942: every block goes on. gfx1100: block 1's site
                // (`has.f1|mai-insts`) is false: exit.
                let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
                for (t, want) in [
                    ("gfx942", set(&["end", "exit"])),
                    ("gfx1100", set(&["exit"])),
                ] {
                    let (out, took) = specialize_timed(bytes, t);
                    slowest = slowest.max(took);
                    assert_eq!(kasm::call_facts(&out).called, want, "{t}, {n} entries");
                    assert!(!inspect(&out).unwrap().has_table);
                    if validate {
                        outputs.push((t, out));
                    }
                }
                assert_valid_outputs(bytes, &outputs, &format!("table of {n} entries"));
                slowest
            };
            check(&bytes, n, true);
            assert_linear("table entries", 1000, Duration::from_secs(5), |m| {
                let (b, got) = big_table(m);
                check(&b, got, false)
            });
        },
    );
}

#[test]
fn one_hundred_thousand_call_sites() {
    // 100,000 `OpSpecConstantFalse` sites of one SpecId, each deciding one
    // block of a chain.
    isolated(
        "one_hundred_thousand_call_sites",
        Duration::from_secs(120),
        || {
            let run = |n: usize, validate: bool| -> Duration {
                let mut slowest = Duration::ZERO;
                let mut outputs = Vec::new();
                let mut k = Kernel::new(&[("is.gfx942", 0)], &vec![0; n]);
                block_chain(&mut k, n, false, |_| true);
                let bytes = k.bytes();
                let table = inspect(&bytes).unwrap();
                assert_eq!(table.predicates[0].sites.len(), n);
                for (t, want) in [("gfx942", 2), ("gfx950", 1)] {
                    let (out, took) = specialize_timed(&bytes, t);
                    slowest = slowest.max(took);
                    let facts = kasm::call_facts(&out);
                    assert_eq!(facts.called.len(), want, "{t}");
                    assert_eq!(facts.spec_ids, 0, "{t}: no SpecId left");
                    if validate {
                        outputs.push((t, out));
                    }
                }
                assert_valid_outputs(&bytes, &outputs, &format!("{n} call sites"));
                slowest
            };
            run(5_000, true);
            // 4n = 100,000 sites is a 6 MB module: 10 s.
            assert_linear("call sites", 25_000, Duration::from_secs(10), |n| {
                run(n, false)
            });
        },
    );
}

#[test]
fn table_name_on_a_second_id() {
    // The table variable has the table's OpName; another id (an unused
    // module-scope variable) carries the table's name as its
    // LinkageAttributes. A clear error, or an output the tool itself reads
    // back as having no table.
    isolated("table_name_on_a_second_id", Duration::from_secs(30), || {
        let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
        branch_kernel(&mut k, |k, _| k.sites[0]);
        let ptr = k.global(
            Op::TypePointer,
            &[spirv::StorageClass::CrossWorkgroup as u32, k.uint],
        );
        let other = k.global(
            Op::Variable,
            &[ptr, spirv::StorageClass::CrossWorkgroup as u32],
        );
        let mut link = vec![other, spirv::Decoration::LinkageAttributes as u32];
        link.extend(kasm::string(kasm::TABLE));
        link.push(spirv::LinkageType::Export as u32);
        inst(&mut k.decorations, Op::Decorate, &link);
        let bytes = k.bytes();
        let (problems, outcomes) =
            probe(&bytes, &["gfx942", "gfx950"], "table name on a second id");
        assert_no_problems(&problems, "table name on a second id");
        for o in outcomes {
            if let Outcome::Ok(out) = o {
                // The output is read back: no table, and specializing it
                // again changes nothing.
                assert!(!inspect(&out).unwrap().has_table);
                assert_eq!(specialize_ok(&out, "gfx942"), out);
            }
        }
    });
}

#[test]
fn conflicting_duplicates_in_the_table() {
    isolated(
        "conflicting_duplicates_in_the_table",
        Duration::from_secs(60),
        || {
            let build = |entries: &[(&str, u32)], sites: &[u32]| {
                let mut k = Kernel::new(entries, sites);
                branch_kernel(&mut k, |k, _| k.sites[0]);
                k.bytes()
            };
            // One name, two SpecIds.
            expect_error(
                &build(&[("is.gfx942", 0), ("is.gfx942", 1)], &[0, 1]),
                "one name with two SpecIds",
                &["is.gfx942", "already has SpecId 0"],
            );
            // One SpecId, two names.
            expect_error(
                &build(&[("is.gfx942", 0), ("is.gfx950", 0)], &[0]),
                "one SpecId with two names",
                &["SpecId 0 already names `is.gfx942`"],
            );
            // An exact repeat says nothing new: fine.
            let bytes = build(
                &[("is.gfx942", 0), ("has.mai-insts", 1), ("is.gfx942", 0)],
                &[0],
            );
            assert_eq!(inspect(&bytes).unwrap().predicates.len(), 2);
            for (t, want) in [("gfx942", "then"), ("gfx950", "else")] {
                let out = specialize_ok(&bytes, t);
                assert_eq!(kasm::call_facts(&out).called, [want.to_string()].into());
            }
            // One call site decorated with two SpecIds whose predicates
            // disagree (is.gfx942 / is.gfx950): no single value is right.
            let mut k = Kernel::new(&[("is.gfx942", 0), ("is.gfx950", 1)], &[0]);
            let p = k.sites[0];
            inst(
                &mut k.decorations,
                Op::Decorate,
                &[p, spirv::Decoration::SpecId as u32, 1],
            );
            branch_kernel(&mut k, |k, _| k.sites[0]);
            // (SPIRV-Tools 2023.1 accepts this module, 2025.5 rejects it;
            // either way the tool must refuse it.)
            expect_error(&k.bytes(), "one site with two SpecIds", &["SpecId"]);
        },
    );
}

/// A 64-bit `OpSwitch` whose case literal equals a table id, in a function
/// no predicate reaches: the scan, which does not know the selector's
/// width, must neither fail on its two-word literals nor keep the table for
/// them; the function is copied word for word.
#[test]
fn wide_switch_literal_equal_to_a_table_id() {
    isolated(
        "wide_switch_literal_equal_to_a_table_id",
        Duration::from_secs(60),
        || {
            let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
            branch_kernel(&mut k, |k, _| k.sites[0]);
            let ulong = k.global(Op::TypeInt, &[64, 0]);
            let sel = k.global(Op::Constant, &[ulong, 7, 0]);
            let (g, l0, d, c) = (k.id(), k.id(), k.id(), k.id());
            let mut body = Vec::new();
            inst(&mut body, Op::Function, &[k.void, g, 0, k.void_fn]);
            inst(&mut body, Op::Label, &[l0]);
            // One case: three words after the default, `k.table` the low
            // word of its literal.
            inst(&mut body, Op::Switch, &[sel, d, k.table, 0, c]);
            for l in [d, c] {
                inst(&mut body, Op::Label, &[l]);
                inst(&mut body, Op::Return, &[]);
            }
            inst(&mut body, Op::FunctionEnd, &[]);
            k.functions.extend(&body);
            let mut w = k.finish();
            let mut cap = Vec::new();
            inst(&mut cap, Op::Capability, &[spirv::Capability::Int64 as u32]);
            w.splice(5..5, cap);
            let bytes = le(&w);
            let mut outputs = Vec::new();
            for t in ["gfx942", "gfx950"] {
                let out = specialize_ok(&bytes, t);
                assert!(!inspect(&out).unwrap().has_table, "{t}");
                let words = kasm::words(&out);
                assert!(
                    words.windows(body.len()).any(|x| x == body.as_slice()),
                    "{t}: the switch function changed"
                );
                outputs.push((t, out));
            }
            let made: Vec<common::Made> = outputs
                .iter()
                .map(|(t, out)| common::Made {
                    input: &bytes,
                    output: out,
                    what: format!("wide switch: {t}"),
                })
                .collect();
            common::assert_outputs_valid(&made);
        },
    );
}
