#![no_main]
//! Fuzz target `specialize`: see `check_specialize` in `fuzz/checks.rs`.

use libfuzzer_sys::fuzz_target;

#[path = "../checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::check_specialize(data);
});
