//! The public Rust API across threads: the types are `Send + Sync`, and one
//! shared `ArchTables` gives the same results from many threads as from one.

use rspv_specialize::specialize::Report;
use rspv_specialize::{ArchTables, Error, Options, Specialized, Target, specialize};

/// Checked at compile time: this file fails to build if any of these stops
/// being `Send + Sync`.
#[test]
fn public_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ArchTables>();
    send_sync::<Target<'static>>();
    send_sync::<Specialized>();
    send_sync::<Report>();
    send_sync::<Error>();
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
