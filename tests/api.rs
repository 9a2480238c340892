//! The public Rust API across threads: the types are `Send + Sync`, and one
//! shared `ArchTables` gives the same results from many threads as from one.
//! Input bytes at any alignment, the output as pieces, and the module laid
//! down in the input's own buffer give the same module.

mod common;

use rspv_specialize::specialize::Report;
use rspv_specialize::{
    ArchTables, Error, Options, Prepared, Specialized, Target, specialize, specialize_in_place,
};

/// Checked at compile time: this file fails to build if any of these stops
/// being `Send + Sync`.
#[test]
fn public_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ArchTables>();
    send_sync::<Target<'static>>();
    send_sync::<Specialized>();
    send_sync::<rspv_specialize::Output<'static>>();
    send_sync::<Report>();
    send_sync::<Error>();
}

/// `specialize` reads bytes in the host's byte order in place when they are
/// aligned for words, and copies them otherwise: both give the same module,
/// and so does `Prepared::specialize_output` gathered from its pieces.
#[test]
fn any_alignment_and_the_pieces_give_the_same_module() {
    let tables = ArchTables::embedded();
    let target = tables.target("gfx950").unwrap();
    for path in INPUTS {
        let bytes = std::fs::read(path).unwrap();
        let aligned = specialize(&bytes, &target, &Options::default()).unwrap();
        // The same bytes one byte into a buffer: not aligned for words.
        let mut shifted = vec![0u8; bytes.len() + 1];
        shifted[1..].copy_from_slice(&bytes);
        let copied = specialize(&shifted[1..], &target, &Options::default()).unwrap();
        assert_eq!(aligned.words(), copied.words(), "{path}");
        assert_eq!(aligned.report(), copied.report(), "{path}");

        let (words, endian) = rspv_specialize::module::words_from_bytes(&bytes).unwrap();
        let prepared = Prepared::new(&words, endian).unwrap();
        let out = prepared
            .specialize_output(&target, &Options::default())
            .unwrap();
        let gathered: Vec<u32> = out.chunks().flatten().copied().collect();
        assert_eq!(gathered, aligned.words(), "{path}");
        assert_eq!(out.len_words(), gathered.len(), "{path}");
        assert_eq!(out.report(), aligned.report(), "{path}");
        // Unchanged words are the input's own, not copies.
        let input = words.as_ptr_range();
        assert!(
            out.chunks().any(|c| input.contains(&c.as_ptr())),
            "{path}: no piece borrows the input"
        );
    }
}

/// `specialize_in_place` gives what `specialize` gives (the module, the
/// report, or the error) for every golden input, corpus and test-data
/// module, for targets of four families, in both byte orders and from
/// containers (those two gathered into a new buffer); and most
/// little-endian raw modules are laid down in the buffer they came in.
#[test]
fn in_place_gives_what_specialize_gives() {
    let tables = ArchTables::embedded();
    let mut inputs: Vec<std::path::PathBuf> = common::golden_cases("input.spv")
        .into_iter()
        .map(|case| case.join("input.spv"))
        .collect();
    inputs.extend(common::spv_files(&common::repo().join("tests/corpus")));
    inputs.extend(common::spv_files(&common::repo().join("tests/data")));
    let containers = common::repo().join("tests/data/containers");
    inputs.extend(["dispatch.hipfb", "dispatch.ccob", "dispatch.o"].map(|f| containers.join(f)));
    let (mut checked, mut raw, mut in_buffer) = (0, 0, 0);
    for path in &inputs {
        let bytes = std::fs::read(path).unwrap();
        let swapped =
            (bytes.len() % 4 == 0 && bytes.len() >= 20).then(|| common::swap_words(&bytes));
        for name in ["gfx950", "gfx1100", "gfx1201", "gfx90a"] {
            let target = tables.target(name).unwrap();
            for input in std::iter::once(&bytes).chain(swapped.as_ref()) {
                let want = specialize(input, &target, &Options::default());
                let buffer = input.clone();
                let start = buffer.as_ptr();
                let got = specialize_in_place(buffer, &target, &Options::default());
                let what = format!("{} for {name}", path.display());
                match (&want, got) {
                    (Ok(w), Ok(g)) => {
                        assert_eq!(g.words(), w.words(), "{what}");
                        assert_eq!(g.bytes(), w.bytes(), "{what}");
                        assert_eq!(g.report(), w.report(), "{what}");
                        let laid = g.words().as_ptr().cast() == start;
                        if std::ptr::eq(input, &bytes) && bytes.first() == Some(&0x03) {
                            raw += 1;
                            in_buffer += usize::from(laid);
                        }
                        // The buffer itself comes back, once no clone
                        // shares it.
                        let shared = g.clone();
                        assert_eq!(shared.into_bytes(), w.bytes(), "{what}");
                        let own = g.into_bytes();
                        assert_eq!(own, w.bytes(), "{what}");
                        assert!(!laid || own.as_ptr() == start, "{what}: into_bytes copied");
                    }
                    (Err(w), Err(g)) => assert_eq!(g.to_string(), w.to_string(), "{what}"),
                    (w, g) => panic!("{what}: {w:?} against {g:?}"),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 400, "{checked} runs");
    // (The buffer can move when it is cut to the module's length.)
    assert!(
        in_buffer * 2 > raw,
        "{in_buffer} of {raw} laid down in their buffer"
    );
}

const INPUTS: [&str; 2] = [
    "tests/golden/dispatch-chain/input.spv",
    "tests/golden/alias-and-or/input.spv",
];
const THREADS: usize = 4;

/// Output bytes, or the error message.
type Outcome = Result<Vec<u8>, String>;

/// The outcome for one processor.
fn one(tables: &ArchTables, name: &str, input: &[u8]) -> Outcome {
    let target = tables.target(name).map_err(|e| e.to_string())?;
    specialize(input, &target, &Options::default())
        .map(|s| s.bytes())
        .map_err(|e| e.to_string())
}

#[test]
fn all_processors_on_four_threads_match_one_by_one() {
    let tables = ArchTables::embedded();
    let names: Vec<&str> = tables
        .processors()
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names.len(), 61);
    for path in INPUTS {
        let input = std::fs::read(path).unwrap();
        let sequential: Vec<_> = names.iter().map(|n| one(tables, n, &input)).collect();
        assert!(sequential.iter().all(Result::is_ok), "{path}");
        // Every thread does all processors, each starting elsewhere, all at
        // the same time on the same tables.
        let barrier = std::sync::Barrier::new(THREADS);
        let concurrent: Vec<Vec<(usize, Outcome)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (tables, names, input, barrier) = (&tables, &names, &input, &barrier);
                    s.spawn(move || {
                        barrier.wait();
                        (0..names.len())
                            .map(|k| {
                                let i = (k + t * names.len() / THREADS) % names.len();
                                (i, one(tables, names[i], input))
                            })
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (t, results) in concurrent.iter().enumerate() {
            assert_eq!(results.len(), names.len());
            for (i, r) in results {
                assert!(
                    *r == sequential[*i],
                    "{path}: thread {t}, {} differs from the one-by-one run",
                    names[*i]
                );
            }
        }
    }
}

/// A target can be kept next to (or without) its tables: `'static` for the
/// embedded tables, and for tables loaded at run time through an `Arc`.
#[test]
fn targets_can_be_kept_without_their_tables_in_scope() {
    use rspv_specialize::TargetOptions;
    use std::sync::Arc;

    /// What a JIT loader might keep: targets, no tables, no lifetime.
    struct Loader {
        targets: Vec<Target<'static>>,
    }
    let embedded = Loader {
        targets: vec![ArchTables::embedded().target("tahiti").unwrap()],
    };
    // One parse per process: every call returns the same tables.
    assert!(std::ptr::eq(ArchTables::embedded(), ArchTables::embedded()));

    let loaded = Arc::new(ArchTables::from_dir(std::path::Path::new("arch-tables")).unwrap());
    let wave64 = TargetOptions { wave64: true };
    let shared = Loader {
        targets: vec![ArchTables::shared_target(&loaded, "gfx1100", &wave64).unwrap()],
    };
    drop(loaded);
    // The shared target still works after the caller dropped its tables,
    // on another thread, and gives what a borrowed target gives.
    let input = std::fs::read(INPUTS[0]).unwrap();
    let from_thread = std::thread::spawn(move || {
        let t = &shared.targets[0];
        (
            t.wavefront_size(),
            specialize(&input, t, &Options::default()).unwrap().bytes(),
        )
    })
    .join()
    .unwrap();
    assert_eq!(from_thread.0, 64);
    let input = std::fs::read(INPUTS[0]).unwrap();
    let borrowed = ArchTables::embedded()
        .target_with("gfx1100", &wave64)
        .unwrap();
    let want = specialize(&input, &borrowed, &Options::default())
        .unwrap()
        .bytes();
    assert!(from_thread.1 == want);

    let t = &embedded.targets[0];
    assert_eq!(
        (t.given(), t.id(), t.processor().name.as_str()),
        ("tahiti", "gfx600", "gfx600")
    );
    assert!(
        ArchTables::shared_target(
            &Arc::new(ArchTables::embedded().clone()),
            "gfx9999",
            &wave64
        )
        .is_err()
    );
}

/// Library errors carry no command-line hints (the CLI adds its own), and
/// `Error` is `#[non_exhaustive]`: matching it needs a catch-all arm, which
/// this match has (it would not compile without one outside the crate).
#[test]
fn errors_carry_no_command_line_hints() {
    let e = ArchTables::embedded().target("gfx95").unwrap_err();
    let message = e.to_string();
    assert!(
        message.starts_with("unknown target `gfx95`; did you mean gfx950"),
        "{message}"
    );
    assert!(!message.contains("rspv-specialize"), "{message}");
    let kind = match &e {
        Error::UnknownTarget { suggestions, .. } => suggestions.len(),
        _ => usize::MAX,
    };
    assert!(kind > 0 && kind != usize::MAX);
    // Not SPIR-V at all: said by the magic number, whatever the length.
    for bytes in [b"# README\n".as_slice(), b"\x7fELF\x02\x01\x01\0\0\0\0\0"] {
        let e = specialize(
            bytes,
            &ArchTables::embedded().target("gfx942").unwrap(),
            &Options::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("byte 0: not SPIR-V: bad magic number"), "{e}");
    }
}

/// A module scope of mostly entry points (`dispatch-chain` with 150 more
/// for its kernel) is laid down in two parts in test builds, the second
/// starting among the entry points, where it measures their names itself:
/// every entry point stays, in order, each as the single one of the
/// module is laid down (the table variable out of its interface), and the
/// output is valid.
#[test]
fn entry_points_across_the_module_scope_split_stay_in_order() {
    let tables = ArchTables::embedded();
    let target = tables.target("gfx950").unwrap();
    let input = common::words(&std::fs::read(common::golden_input("dispatch-chain")).unwrap());
    let insts = common::instructions(&input);
    let &(at, _, len) = (insts.iter())
        .find(|&&(_, opcode, _)| opcode == spirv::Op::EntryPoint as u32)
        .unwrap();
    let entry = &input[at..at + len];
    // OpEntryPoint Kernel %fn "dispatch_chain_<k>" %table: names of
    // several lengths.
    let more: Vec<Vec<u32>> = (0..150)
        .map(|k| {
            let mut name = format!("dispatch_chain_{k}").into_bytes();
            name.resize(name.len() / 4 * 4 + 4, 0);
            let mut w = vec![0, entry[1], entry[2]];
            w.extend(
                name.chunks(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap())),
            );
            w.push(entry[entry.len() - 1]);
            w[0] = (w.len() as u32) << 16 | spirv::Op::EntryPoint as u32;
            w
        })
        .collect();
    let mut module = input[..at + len].to_vec();
    module.extend(more.iter().flatten());
    module.extend_from_slice(&input[at + len..]);
    let bytes = common::bytes(&module);
    let out = specialize(&bytes, &target, &Options::default()).unwrap();
    let out_words = out.words();
    let kept: Vec<&[u32]> = (common::instructions(out_words).into_iter())
        .filter(|&(_, opcode, _)| opcode == spirv::Op::EntryPoint as u32)
        .map(|(at, _, len)| &out_words[at..at + len])
        .collect();
    let alone = specialize(&common::bytes(&input), &target, &Options::default()).unwrap();
    let alone_words = alone.words();
    let (a, _, n) = (common::instructions(alone_words).into_iter())
        .find(|&(_, opcode, _)| opcode == spirv::Op::EntryPoint as u32)
        .unwrap();
    // (Each laid down as the single one is: without its last word, the
    // table variable.)
    let expect = |w: &[u32]| {
        let mut w = w[..w.len() - 1].to_vec();
        w[0] = (w.len() as u32) << 16 | spirv::Op::EntryPoint as u32;
        w
    };
    assert_eq!(kept.len(), 151);
    assert_eq!(kept[0], &alone_words[a..a + n]);
    assert_eq!(expect(entry), &alone_words[a..a + n]);
    for (k, w) in more.iter().enumerate() {
        assert_eq!(kept[k + 1], &expect(w)[..], "entry point {k}");
    }
    common::assert_outputs_valid(&[common::Made {
        input: &bytes,
        output: &out.bytes(),
        what: "dispatch-chain with 151 entry points".to_string(),
    }]);
}
