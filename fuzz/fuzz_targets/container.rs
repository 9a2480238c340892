#![no_main]
//! Fuzz target `container`: see `check_container` in
//! `fuzz/container_checks.rs`.

use libfuzzer_sys::fuzz_target;

#[path = "../container_checks.rs"]
mod container_checks;

fuzz_target!(|data: &[u8]| {
    container_checks::check_container(data);
});
