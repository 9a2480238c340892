//! The properties the fuzz targets check, shared with
//! `tests/fuzz_regressions.rs` (which includes this file with `#[path]`), so
//! a saved fuzz input is re-checked by `cargo test` exactly as the fuzzer
//! checked it. Every check panics on a violated property; an `Err` from the
//! library is a valid answer to bad input and is not a failure.

#![allow(dead_code)]

use std::sync::OnceLock;

use rspv_specialize::module::{Module, bytes_from_words, words_from_bytes};
use rspv_specialize::{
    ArchTables, Error, Options, Prepared, Target, inspect, specialize, specialize_in_place,
    specialize_many,
};

/// The targets the `specialize` check runs: a CDNA3/4 processor, an RDNA3
/// processor and a generic target.
pub const TARGETS: [&str; 3] = ["gfx950", "gfx1100", "gfx9-4-generic"];

/// The embedded arch tables (compiled into the library).
pub fn tables() -> &'static ArchTables {
    ArchTables::embedded()
}

/// The [`TARGETS`], resolved once per process.
pub fn targets() -> &'static [Target<'static>] {
    static TARGETS_: OnceLock<Vec<Target<'static>>> = OnceLock::new();
    TARGETS_.get_or_init(|| {
        TARGETS
            .iter()
            .map(|t| {
                tables()
                    .target(t)
                    .unwrap_or_else(|e| panic!("target {t}: {e}"))
            })
            .collect()
    })
}

/// `read`: the word view and the module index are lossless. When
/// `Module::parse` accepts the input, the header, the module-level
/// instructions and the function ranges tile the words exactly, and writing
/// them back gives the input byte for byte. The disassembler never panics,
/// and prints every module `Module::parse` accepts.
pub fn check_read(data: &[u8]) {
    let Ok((words, endian)) = words_from_bytes(data) else {
        return;
    };
    assert_eq!(words.len() * 4, data.len(), "word count");
    let text = rspv_specialize::disasm::disassemble(&words);
    let Ok(m) = Module::parse(&words) else {
        return;
    };
    if let Err(e) = text {
        panic!("disassemble rejects a module Module::parse accepts: {e}");
    }
    assert!(
        bytes_from_words(m.words, endian) == data,
        "bytes_from_words(words_from_bytes(x)) != x"
    );
    // Rebuild the module from its index alone.
    let mut rebuilt: Vec<u32> = words[..5].to_vec();
    for inst in m.globals() {
        assert_eq!(
            inst.at,
            rebuilt.len(),
            "module-level instruction out of order"
        );
        assert!(
            inst.len > 0 && inst.end() <= words.len(),
            "bad instruction {inst:?}"
        );
        rebuilt.extend_from_slice(m.inst_words(inst));
    }
    for f in &m.functions {
        assert_eq!(f.start, rebuilt.len(), "function %{} out of order", f.id);
        assert!(f.start < f.end && f.end <= words.len(), "bad range {f:?}");
        rebuilt.extend_from_slice(&words[f.start..f.end]);
    }
    assert_eq!(
        rebuilt.len(),
        words.len(),
        "index does not cover the module"
    );
    assert!(
        bytes_from_words(&rebuilt, endian) == data,
        "module rebuilt from its index differs from the input"
    );
}

/// `inspect`: never panics; bytes and host words give the same answer; a
/// module without a table has no predicates; resolving the table for the
/// [`TARGETS`] does not panic.
pub fn check_inspect(data: &[u8]) {
    let r = inspect(data);
    let Ok(i) = r else {
        return;
    };
    assert!(
        i.has_table || i.predicates.is_empty(),
        "predicates without a table"
    );
    let (words, _) = words_from_bytes(data).expect("inspect accepted the bytes");
    let w =
        rspv_specialize::inspect_words(&words).expect("inspect_words rejects what inspect accepts");
    assert_eq!(w, i, "inspect and inspect_words disagree");
    for t in targets() {
        let _ = i.resolve(t);
    }
}

/// `specialize`: for each of [`TARGETS`], alone and through
/// `specialize_many`:
/// - a success has no predicate table left (and `inspect` reads it);
/// - specializing a success again gives the same bytes (idempotence);
/// - `specialize_in_place` (on a copy of the bytes) and `specialize_many`
///   give, for each target, what `specialize` gives;
/// - the one-target and many-target runs that stop the scan at triggers
///   give what `Prepared::new` and its runs give ([`check_once`]).
pub fn check_specialize(data: &[u8]) {
    check_once(data);
    let opts = Options::default();
    let single: Vec<_> = targets()
        .iter()
        .map(|t| specialize(data, t, &opts).map(|s| s.bytes()))
        .collect();
    for ((t, target), s) in TARGETS.iter().zip(targets()).zip(&single) {
        let p = specialize_in_place(data.to_vec(), target, &opts);
        assert_same(t, "specialize_in_place", p.map(|p| p.bytes()), s);
    }
    for (t, r) in TARGETS.iter().zip(&single) {
        let Ok(out) = r else {
            continue;
        };
        match inspect(out) {
            Ok(i) => assert!(!i.has_table, "{t}: the output still has a predicate table"),
            Err(e) => panic!("{t}: inspect rejects the output: {e}"),
        }
        let target = tables().target(t).unwrap();
        match specialize(out, &target, &opts) {
            Ok(again) => assert!(
                again.bytes() == *out,
                "{t}: specializing the output again changes it ({} -> {} bytes)",
                out.len(),
                again.bytes().len()
            ),
            Err(e) => panic!("{t}: specializing the output again fails: {e}"),
        }
    }
    match specialize_many(data, targets(), &opts) {
        Err(e) => {
            for (t, r) in TARGETS.iter().zip(&single) {
                assert!(
                    r.is_err(),
                    "{t}: specialize succeeds but specialize_many fails on the module: {e}"
                );
            }
        }
        Ok(many) => {
            assert_eq!(many.len(), TARGETS.len(), "specialize_many result count");
            for ((t, m), s) in TARGETS.iter().zip(many).zip(&single) {
                assert_same(t, "specialize_many", m.map(|m| m.bytes()), s);
            }
        }
    }
}

/// `Prepared::specialize_once` and `Prepared::specialize_many_once` (the
/// scan stopped at each function's first trigger) against
/// `Prepared::new` then `specialize` / `specialize_many` (every function
/// scanned whole), on the module's words: the same modules, and the same
/// errors (the first error of the whole scan first).
fn check_once(data: &[u8]) {
    let Ok((words, endian)) = words_from_bytes(data) else {
        return;
    };
    let opts = Options::default();
    let whole = Prepared::new(&words, endian);
    for (t, target) in TARGETS.iter().zip(targets()) {
        let once = Prepared::specialize_once(&words, endian, target, &opts);
        let want = match &whole {
            Ok(p) => p.specialize(target, &opts).map(|s| s.bytes()),
            Err(e) => Err(e.clone()),
        };
        assert_same(
            t,
            "specialize_once",
            once.map(|o| o.into_specialized().bytes()),
            &want,
        );
    }
    let many = Prepared::specialize_many_once(&words, endian, targets(), &opts, &|_, _| {});
    let want = match &whole {
        Ok(p) => Ok(p.specialize_many(targets(), &opts)),
        Err(e) => Err(e.clone()),
    };
    match (many, want) {
        (Ok(many), Ok(want)) => {
            for ((t, m), w) in TARGETS.iter().zip(many).zip(want) {
                let (m, w) = (m.map(|m| m.bytes()), w.map(|w| w.bytes()));
                assert_same(t, "specialize_many_once", m, &w);
            }
        }
        // (The outer results: the same error, or one fails alone.)
        (many, want) => assert_same(
            "all",
            "specialize_many_once",
            many.map(|_| Vec::new()),
            &want.map(|_| Vec::new()),
        ),
    }
}

/// Panics unless `got`, what `how` gave for target `t`, is the module or
/// the error `want` that `specialize` gave.
fn assert_same(t: &str, how: &str, got: Result<Vec<u8>, Error>, want: &Result<Vec<u8>, Error>) {
    match (got, want) {
        (Ok(g), Ok(w)) => assert!(g == *w, "{t}: {how} and specialize give different modules"),
        (Err(g), Err(w)) => assert_eq!(
            g.to_string(),
            w.to_string(),
            "{t}: {how} and specialize fail differently"
        ),
        (g, w) => panic!(
            "{t}: {how} {} but specialize {}",
            describe(&g.map(|_| ())),
            describe(&w.as_ref().map(|_| ()))
        ),
    }
}

fn describe<E: std::fmt::Display>(r: &Result<(), E>) -> String {
    match r {
        Ok(()) => "succeeds".to_string(),
        Err(e) => format!("fails ({e})"),
    }
}
