//! The property the `container` fuzz target checks, shared with
//! `tests/hostile_containers.rs` (which includes this file with `#[path]`).
//! It panics on a violated property; an `Err` is a valid answer to bad
//! input when its message names a byte offset inside the input.

use std::borrow::Cow;

use rspv_specialize::container::{Kind, Limits, find_spirv_with};
use rspv_specialize::inspect;

/// Decompression limit of the check: small, so an input claiming much does
/// not make the fuzzer allocate much.
pub const MAX_DECOMPRESSED: usize = 16 << 20;

/// `container`: `find_spirv_with` never panics; an error names a byte
/// offset within the input; every module found starts with the SPIR-V
/// magic, a borrowed module is a slice of the input at the offset its
/// location gives, an owned one came out of a compressed bundle; a bare
/// module is the whole input. Each module then goes through `inspect`.
pub fn check_container(data: &[u8]) {
    let mut limits = Limits::default();
    limits.max_decompressed = MAX_DECOMPRESSED;
    let found = match find_spirv_with(data, &limits) {
        Ok(f) => f,
        Err(e) => {
            let msg = e.to_string();
            let offset: usize = msg
                .strip_prefix("byte ")
                .and_then(|r| r.split(':').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("error without a leading byte offset: {msg}"));
            assert!(
                offset <= data.len(),
                "error offset {offset} past the input's {} bytes: {msg}",
                data.len()
            );
            return;
        }
    };
    assert!(!found.modules.is_empty(), "Ok with no module");
    if found.kind == Kind::Spirv {
        assert_eq!(found.modules.len(), 1);
        assert!(
            *found.modules[0].bytes == *data,
            "bare module is not the input"
        );
    }
    for (k, m) in found.modules.iter().enumerate() {
        let magic = m.bytes.first_chunk::<4>().map(|b| u32::from_le_bytes(*b));
        assert!(
            matches!(magic, Some(0x0723_0203 | 0x0302_2307)),
            "module {k} does not start with the SPIR-V magic ({:?})",
            m.location
        );
        match (&m.bytes, m.location.compression) {
            (Cow::Borrowed(b), None) => {
                let at = (b.as_ptr() as usize).wrapping_sub(data.as_ptr() as usize);
                assert!(at + b.len() <= data.len(), "module {k} is not in the input");
                assert_eq!(at, m.location.offset, "module {k}: location offset");
            }
            (Cow::Owned(_), Some(_)) => {}
            _ => panic!("module {k}: borrowed/owned does not match {:?}", m.location),
        }
        let _ = inspect(&m.bytes);
    }
}
