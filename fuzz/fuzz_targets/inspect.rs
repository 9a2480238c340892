#![no_main]
//! Fuzz target `inspect`: see `check_inspect` in `fuzz/checks.rs`.

use libfuzzer_sys::fuzz_target;

#[path = "../checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::check_inspect(data);
});
