//! In-process benchmarks of `rspv_specialize` (divan), against the targets in
//! `docs/design.md` (Performance):
//!
//! - `latency`: a typical small module, specialized in tens of microseconds:
//!   the real `tests/golden/dispatch-chain/input.spv` (one llc-22 kernel,
//!   3.5 KB) and a generated ~40 KB module whose every kernel is predicated.
//! - `throughput`: generated modules of 1 and 10 MB (and 100 MB when
//!   `RSPV_BENCH_BIG=1`), with the predicate arms calling imported intrinsics
//!   (`calls`) or storing values (`no_calls`, the form spirv-opt can
//!   process; `benches/run.sh` compares the two tools on the same bytes).
//!   Cost should be linear in size, at least 1 GB/s. `calls_in_place`:
//!   the same through `specialize_in_place`, which lays the module down in
//!   the buffer it is given.
//! - `all_targets`: one module for all 61 processors: one `specialize` call
//!   per target in a loop (`sequential`), one batch `specialize_many` call
//!   (`batch`, which shares work between targets with equal predicate values
//!   and uses every core), and one target alone (`one`) as the unit.
//! - `phases`: `Prepared::new` alone (parse and scan, no rewrite) on 10 MB,
//!   to show how much of a run is analysis; parsing the arch tables at run
//!   time (`ArchTables::from_dir` on `arch-tables/`, what `--arch-tables DIR`
//!   costs; the embedded tables are compiled in and parse nothing); and
//!   resolving a target against the embedded tables (what every run pays
//!   before it reads the module).
//!
//! Modules are generated once per process (`benches/common/gen.rs`), outside
//! the timed code. Peak memory and the spirv-opt comparison are measured by
//! `benches/run.sh`, not here.
//!
//! ```text
//! cargo bench --bench specialize                      # 1 and 10 MB
//! RSPV_BENCH_BIG=1 cargo bench --bench specialize     # and 100 MB
//! cargo bench --bench specialize -- latency           # one group
//! ```

#[path = "common/gen.rs"]
mod generator;

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use divan::counter::BytesCount;
use divan::{Bencher, black_box};
use rspv_specialize::{
    ArchTables, Options, Prepared, Target, specialize, specialize_in_place, specialize_many,
};

fn main() {
    divan::main();
}

/// The one real module: an llc-22 kernel dispatching MFMA / WMMA / scalar.
const DISPATCH_CHAIN: &[u8] = include_bytes!("../tests/golden/dispatch-chain/input.spv");

/// Size of the generated "typical small module".
const SMALL_BYTES: usize = 40_000;

/// Every `EVERY`-th kernel of the large modules is predicated.
const EVERY: usize = 10;

fn tables() -> &'static ArchTables {
    ArchTables::embedded()
}

fn target(id: &str) -> Target<'static> {
    tables().target(id).expect("known target")
}

/// Every processor the tables know, as targets.
fn all_targets() -> &'static [Target<'static>] {
    static ALL: OnceLock<Vec<Target<'static>>> = OnceLock::new();
    ALL.get_or_init(|| tables().processor_names().map(target).collect())
}

/// A module by name, generated on first use and kept for the process.
fn module(name: &str) -> &'static [u8] {
    static CACHE: OnceLock<Mutex<HashMap<String, &'static [u8]>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap();
    if let Some(m) = cache.get(name) {
        return m;
    }
    let bytes: Vec<u8> = match name {
        "dispatch_chain" => DISPATCH_CHAIN.to_vec(),
        "gen_40kb" => generator::generate_bytes(SMALL_BYTES, 1, true),
        _ => {
            // "<calls|no_calls>_<N>mb"
            let (calls, mb) = name
                .strip_suffix("mb")
                .and_then(|s| s.rsplit_once('_'))
                .expect("module name");
            let mb: usize = mb.parse().expect("size in MB");
            generator::generate_bytes(mb * 1_000_000, EVERY, calls == "calls")
        }
    };
    let leaked: &'static [u8] = Vec::leak(bytes);
    cache.insert(name.to_string(), leaked);
    leaked
}

/// Throughput sizes in MB: 1 and 10, plus 100 when `RSPV_BENCH_BIG=1`.
fn sizes_mb() -> Vec<usize> {
    let mut v = vec![1, 10];
    if std::env::var("RSPV_BENCH_BIG").is_ok_and(|v| v == "1") {
        v.push(100);
    }
    v
}

/// Specializes `input` for `target` through the public API, checking success.
fn run(input: &[u8], target: &Target<'_>) -> usize {
    let out = specialize(black_box(input), target, &Options::default()).expect("specialize");
    out.words().len()
}

/// Single small modules, one target each (gfx950 takes the MFMA arms,
/// gfx1100 the WMMA ones).
mod latency {
    use super::*;

    #[divan::bench(args = ["gfx950", "gfx1100"])]
    fn dispatch_chain(bencher: Bencher, target_id: &str) {
        let (input, t) = (module("dispatch_chain"), target(target_id));
        bencher
            .counter(BytesCount::new(input.len()))
            .bench(|| run(input, &t));
    }

    #[divan::bench(args = ["gfx950", "gfx1100"])]
    fn gen_40kb(bencher: Bencher, target_id: &str) {
        let (input, t) = (module("gen_40kb"), target(target_id));
        bencher
            .counter(BytesCount::new(input.len()))
            .bench(|| run(input, &t));
    }
}

/// Large generated modules for gfx950; the argument is the size in MB.
mod throughput {
    use super::*;

    fn bench(bencher: Bencher, name: &str) {
        let (input, t) = (module(name), target("gfx950"));
        bencher
            .counter(BytesCount::new(input.len()))
            .bench(|| run(input, &t));
    }

    #[divan::bench(args = sizes_mb(), sample_count = 10, sample_size = 1)]
    fn calls(bencher: Bencher, mb: usize) {
        bench(bencher, &format!("calls_{mb}mb"));
    }

    #[divan::bench(args = sizes_mb(), sample_count = 10, sample_size = 1)]
    fn no_calls(bencher: Bencher, mb: usize) {
        bench(bencher, &format!("no_calls_{mb}mb"));
    }

    /// `specialize_in_place` on the "calls" modules: each call is given a
    /// copy of the bytes made outside the timed code (a loader's buffer,
    /// just read).
    #[divan::bench(args = sizes_mb(), sample_count = 10, sample_size = 1)]
    fn calls_in_place(bencher: Bencher, mb: usize) {
        let (input, t) = (module(&format!("calls_{mb}mb")), target("gfx950"));
        bencher
            .counter(BytesCount::new(input.len()))
            .with_inputs(|| input.to_vec())
            .bench_values(|bytes| {
                let out = specialize_in_place(bytes, &t, &Options::default());
                out.expect("specialize_in_place").words().len()
            });
    }
}

/// One module for all 61 processors; compare with `one` on the same module.
mod all_targets {
    use super::*;

    const MODULES: [&str; 3] = ["dispatch_chain", "gen_40kb", "calls_1mb"];

    #[divan::bench(args = MODULES, sample_count = 20)]
    fn one(bencher: Bencher, name: &str) {
        let (input, t) = (module(name), target("gfx950"));
        bencher.bench(|| run(input, &t));
    }

    #[divan::bench(args = MODULES, sample_count = 20)]
    fn sequential(bencher: Bencher, name: &str) {
        let (input, targets) = (module(name), all_targets());
        bencher.bench(|| targets.iter().map(|t| run(input, t)).sum::<usize>());
    }

    #[divan::bench(args = MODULES, sample_count = 20)]
    fn batch(bencher: Bencher, name: &str) {
        let (input, targets) = (module(name), all_targets());
        bencher.bench(|| {
            let outs = specialize_many(black_box(input), targets, &Options::default())
                .expect("specialize_many");
            outs.into_iter()
                .map(|o| o.expect("one target").words().len())
                .sum::<usize>()
        });
    }
}

/// Where the time goes: analysis alone, without any rewrite; loading the
/// tables at run time; resolving a target.
mod phases {
    use super::*;

    #[divan::bench(sample_count = 20)]
    fn load_tables() -> ArchTables {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("arch-tables");
        ArchTables::from_dir(&dir).expect("arch-tables/ loads")
    }

    #[divan::bench]
    fn embedded_target() -> bool {
        let target = ArchTables::embedded()
            .target(divan::black_box("gfx950:sramecc+"))
            .expect("gfx950 resolves");
        target.evaluate("has.mai-insts").expect("evaluates").value
    }

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn prepare_calls_10mb(bencher: Bencher) {
        let input = module("calls_10mb");
        let (words, endian) = rspv_specialize::module::words_from_bytes(input).expect("words");
        bencher
            .counter(BytesCount::new(input.len()))
            .bench(|| Prepared::new(black_box(&words), endian).map(|p| p.table().is_some()));
    }
}
