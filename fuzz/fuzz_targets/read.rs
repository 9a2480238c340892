#![no_main]
//! Fuzz target `read`: see `check_read` in `fuzz/checks.rs`.

use libfuzzer_sys::fuzz_target;

#[path = "../checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::check_read(data);
});
