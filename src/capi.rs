//! Load arch tables once, specialize modules from any thread.
//!
//! Declared in `include/rspv_specialize.h`; the crate builds as a static
//! (`librspv_specialize.a`) and a shared (`librspv_specialize.so`) library.
//!
//! Conventions:
//! - Status codes: [`RSPV_OK`] (0) or one of the `RSPV_ERR_*` codes.
//! - Every fallible call ([`rspv_tables_embedded`], [`rspv_tables_from_dir`],
//!   [`rspv_specialize`]) clears the calling thread's last error on entry and
//!   sets it on failure; [`rspv_last_error`] reads it.
//! - No panic crosses the boundary: one becomes [`RSPV_ERR_PANIC`] (or a NULL
//!   handle) with a message.
//! - Tables are immutable once built and may be shared by any number of
//!   threads; every other call is independent of the others.
//!
//! [`RSPV_OK`]: crate::capi::RSPV_OK
//! [`RSPV_ERR_PANIC`]: crate::capi::RSPV_ERR_PANIC
//! [`rspv_tables_embedded`]: crate::capi::rspv_tables_embedded
//! [`rspv_tables_from_dir`]: crate::capi::rspv_tables_from_dir
//! [`rspv_specialize`]: crate::capi::rspv_specialize
//! [`rspv_last_error`]: crate::capi::rspv_last_error

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::ptr;

use crate::arch::ArchTables;
use crate::error::Error;
use crate::specialize::{Options, specialize};
use crate::target::TargetOptions;

/// Success.
pub const RSPV_OK: c_int = 0;
/// Bad input: not a SPIR-V module, a malformed predicate table or module
/// structure, a malformed arch table, or an I/O error.
pub const RSPV_ERR_INPUT: c_int = 1;
/// The target ID names no known processor or is malformed.
pub const RSPV_ERR_TARGET: c_int = 2;
/// A predicate reaches a use that cannot be folded; nothing is written.
pub const RSPV_ERR_UNRESOLVED: c_int = 3;
/// An invalid argument (a NULL pointer, `wave64` not 0 or 1).
pub const RSPV_ERR_ARGUMENT: c_int = 4;
/// The library panicked (a bug); the message says where.
pub const RSPV_ERR_PANIC: c_int = 5;

/// Arch tables behind an opaque C handle (`RspvTables *`).
///
/// Immutable once built: one handle may be used by many threads at once.
pub struct RspvTables(ArchTables);

thread_local! {
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

fn clear_error() {
    LAST_ERROR.with(|e| *e.borrow_mut() = None);
}

fn set_error(message: &str) {
    // An interior NUL would cut the C string short: replace it.
    let c = CString::new(message.replace('\0', "\u{fffd}")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(c));
}

/// A failed call: its status code and message.
struct Failure(c_int, String);

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let code = match &e {
            Error::UnknownTarget { .. } | Error::BadTarget { .. } => RSPV_ERR_TARGET,
            Error::Unresolved(_) => RSPV_ERR_UNRESOLVED,
            Error::Binary { .. }
            | Error::Table { .. }
            | Error::ArchTable { .. }
            | Error::Structure { .. }
            | Error::Io { .. } => RSPV_ERR_INPUT,
        };
        Failure(code, e.to_string())
    }
}

fn argument(message: &str) -> Failure {
    Failure(RSPV_ERR_ARGUMENT, message.to_string())
}

/// Runs `body` with the last error cleared; records a failure or a panic.
fn guard<T>(body: impl FnOnce() -> Result<T, Failure>) -> Result<T, c_int> {
    clear_error();
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(Failure(code, message))) => {
            set_error(&message);
            Err(code)
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic payload".to_string());
            set_error(&format!("internal error (panic): {what}"));
            Err(RSPV_ERR_PANIC)
        }
    }
}

/// The tables built into the library (every processor LLVM knows).
///
/// Returns a new handle to free with [`rspv_tables_free`], or NULL on error
/// (see [`rspv_last_error`]).
#[unsafe(no_mangle)]
pub extern "C" fn rspv_tables_embedded() -> *mut RspvTables {
    guard(|| Ok(Box::into_raw(Box::new(RspvTables(ArchTables::embedded())))))
        .unwrap_or(ptr::null_mut())
}

/// Loads the arch tables from the `*.yaml` files of directory `path`.
///
/// Returns a new handle to free with [`rspv_tables_free`], or NULL on error
/// (see [`rspv_last_error`]).
///
/// # Safety
///
/// `path` is NULL (an error) or points to a NUL-terminated string that stays
/// valid and unchanged during the call. On Unix the bytes are taken as the
/// path as is; elsewhere they must be UTF-8.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rspv_tables_from_dir(path: *const c_char) -> *mut RspvTables {
    guard(|| {
        if path.is_null() {
            return Err(argument("rspv_tables_from_dir: `path` is NULL"));
        }
        // SAFETY: non-NULL and NUL-terminated per this function's contract.
        let bytes = unsafe { CStr::from_ptr(path) }.to_bytes();
        let tables = ArchTables::from_dir(path_from_bytes(bytes)?)?;
        Ok(Box::into_raw(Box::new(RspvTables(tables))))
    })
    .unwrap_or(ptr::null_mut())
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> Result<&Path, Failure> {
    use std::os::unix::ffi::OsStrExt;
    Ok(Path::new(std::ffi::OsStr::from_bytes(bytes)))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8]) -> Result<&Path, Failure> {
    std::str::from_utf8(bytes)
        .map(Path::new)
        .map_err(|_| argument("rspv_tables_from_dir: `path` is not UTF-8"))
}

/// Frees tables from [`rspv_tables_embedded`] or [`rspv_tables_from_dir`].
/// NULL is ignored.
///
/// # Safety
///
/// `tables` is NULL or a handle those functions returned that has not been
/// freed yet, and no other thread is using it (or will use it afterwards).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rspv_tables_free(tables: *mut RspvTables) {
    if tables.is_null() {
        return;
    }
    // SAFETY: per the contract, a live handle from `Box::into_raw`, owned
    // by no one else from here on. Dropping plain data cannot panic.
    drop(unsafe { Box::from_raw(tables) });
}

/// Specializes the SPIR-V module `input[0..input_len]` (either byte order;
/// the output keeps it) for the target ID `target_id` (e.g. `gfx950`,
/// `gfx90a:xnack+`, `gfx11-generic`), in wave64 on dual-wave processors when
/// `wave64` is 1.
///
/// Returns [`RSPV_OK`] and sets `*out` to a buffer of `*out_len` bytes that
/// the caller owns and frees with [`rspv_buffer_free`]; or returns an error
/// code, allocates nothing, sets `*out` to NULL and `*out_len` to 0 (when
/// they are not NULL) and records a message for [`rspv_last_error`].
///
/// # Safety
///
/// - `tables` is NULL (an error) or a live handle from
///   [`rspv_tables_embedded`] / [`rspv_tables_from_dir`]; other threads may
///   use it at the same time, but none may free it during the call.
/// - `target_id` is NULL (an error) or a NUL-terminated string valid for the
///   call.
/// - `input` points to `input_len` readable bytes that no one writes during
///   the call (it may be NULL only when `input_len` is 0).
/// - `out` and `out_len` are NULL (an error) or valid for writing one value
///   each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rspv_specialize(
    tables: *const RspvTables,
    target_id: *const c_char,
    wave64: c_int,
    input: *const u8,
    input_len: usize,
    out: *mut *mut u8,
    out_len: *mut usize,
) -> c_int {
    let result = guard(|| {
        if !out.is_null() {
            // SAFETY: non-NULL and writable per the contract.
            unsafe { out.write(ptr::null_mut()) };
        }
        if !out_len.is_null() {
            // SAFETY: as above.
            unsafe { out_len.write(0) };
        }
        if out.is_null() || out_len.is_null() {
            return Err(argument("rspv_specialize: `out` or `out_len` is NULL"));
        }
        if tables.is_null() {
            return Err(argument("rspv_specialize: `tables` is NULL"));
        }
        if target_id.is_null() {
            return Err(argument("rspv_specialize: `target_id` is NULL"));
        }
        if input.is_null() && input_len != 0 {
            return Err(argument("rspv_specialize: `input` is NULL"));
        }
        let wave64 = match wave64 {
            0 => false,
            1 => true,
            w => {
                return Err(argument(&format!(
                    "rspv_specialize: `wave64` must be 0 or 1, not {w}"
                )));
            }
        };
        // SAFETY: a live handle, shared read-only, per the contract.
        let tables = unsafe { &(*tables).0 };
        // SAFETY: non-NULL and NUL-terminated per the contract.
        let id = unsafe { CStr::from_ptr(target_id) };
        let id = id.to_str().map_err(|_| {
            Failure(
                RSPV_ERR_TARGET,
                format!("target `{}` is not UTF-8", id.to_string_lossy()),
            )
        })?;
        let bytes: &[u8] = if input_len == 0 {
            &[]
        } else {
            // SAFETY: `input_len` readable bytes, unchanged during the call.
            unsafe { std::slice::from_raw_parts(input, input_len) }
        };
        let target = tables.target_with(id, &TargetOptions { wave64 })?;
        let done = specialize(bytes, &target, &Options::default())?;
        Ok(done.bytes().into_boxed_slice())
    });
    match result {
        Ok(buffer) => {
            let len = buffer.len();
            // SAFETY: both checked non-NULL inside the guard.
            unsafe {
                out.write(Box::into_raw(buffer).cast::<u8>());
                out_len.write(len);
            }
            RSPV_OK
        }
        Err(code) => code,
    }
}

/// Frees a buffer [`rspv_specialize`] returned. NULL is ignored.
///
/// # Safety
///
/// `ptr` is NULL or a buffer from [`rspv_specialize`] not yet freed, and
/// `len` is the length returned with it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rspv_buffer_free(ptr: *mut u8, len: usize) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: per the contract, the pointer and length of a boxed slice made
    // by `rspv_specialize`, owned by no one else from here on.
    drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(ptr, len)) });
}

/// The message of the calling thread's last failed call, or NULL when the
/// last fallible call on this thread succeeded (or none was made).
///
/// The string is owned by the library and stays valid until the next call of
/// [`rspv_tables_embedded`], [`rspv_tables_from_dir`] or [`rspv_specialize`]
/// on the same thread.
#[unsafe(no_mangle)]
pub extern "C" fn rspv_last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|e| e.borrow().as_ref().map_or(ptr::null(), |c| c.as_ptr()))
        .unwrap_or(ptr::null())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DISPATCH: &str = "tests/golden/dispatch-chain/input.spv";

    fn last_error() -> Option<String> {
        let p = rspv_last_error();
        // SAFETY: NULL or a NUL-terminated string valid until the next call.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }

    /// Calls `rspv_specialize`; `Ok(bytes)` or `Err((code, message))`.
    fn run(
        tables: *const RspvTables,
        target: Option<&str>,
        wave64: c_int,
        input: &[u8],
    ) -> Result<Vec<u8>, (c_int, String)> {
        let target = target.map(|t| CString::new(t).unwrap());
        let target_ptr = target.as_ref().map_or(ptr::null(), |t| t.as_ptr());
        let mut out: *mut u8 = ptr::dangling_mut();
        let mut out_len = 99usize;
        // SAFETY: valid pointers and lengths throughout.
        let code = unsafe {
            rspv_specialize(
                tables,
                target_ptr,
                wave64,
                input.as_ptr(),
                input.len(),
                &mut out,
                &mut out_len,
            )
        };
        if code != RSPV_OK {
            assert!(out.is_null() && out_len == 0, "output not reset on error");
            return Err((code, last_error().expect("an error message")));
        }
        assert!(last_error().is_none());
        // SAFETY: the buffer just returned.
        let v = unsafe { std::slice::from_raw_parts(out, out_len) }.to_vec();
        // SAFETY: freed once, with its length.
        unsafe { rspv_buffer_free(out, out_len) };
        Ok(v)
    }

    #[test]
    fn matches_the_rust_api_and_maps_errors_to_codes() {
        let input = std::fs::read(DISPATCH).unwrap();
        let h = rspv_tables_embedded();
        assert!(!h.is_null());
        let tables = ArchTables::embedded();
        for (id, wave64) in [("gfx942", 0), ("gfx1100", 0), ("gfx1100", 1)] {
            let t = tables
                .target_with(
                    id,
                    &TargetOptions {
                        wave64: wave64 == 1,
                    },
                )
                .unwrap();
            let want = specialize(&input, &t, &Options::default()).unwrap().bytes();
            assert_eq!(run(h, Some(id), wave64, &input).unwrap(), want, "{id}");
        }
        let e = run(h, Some("gfx9999"), 0, &input).unwrap_err();
        assert_eq!(e.0, RSPV_ERR_TARGET);
        assert!(e.1.contains("gfx9999"), "{}", e.1);
        assert_eq!(run(h, Some("gfx1250"), 1, &input).unwrap_err().0, 2);
        assert_eq!(run(h, Some("gfx942"), 0, b"nope").unwrap_err().0, 1);
        assert_eq!(run(h, Some("gfx942"), 0, &[]).unwrap_err().0, 1);
        let bad = std::fs::read("tests/golden/unresolved-store/input.spv").unwrap();
        let e = run(h, Some("gfx942"), 0, &bad).unwrap_err();
        assert_eq!(e.0, RSPV_ERR_UNRESOLVED, "{}", e.1);
        assert_eq!(run(h, None, 0, &input).unwrap_err().0, 4);
        assert_eq!(run(h, Some("gfx942"), 2, &input).unwrap_err().0, 4);
        assert_eq!(
            run(ptr::null(), Some("gfx942"), 0, &input).unwrap_err().0,
            4
        );
        // SAFETY: NULL pointers are rejected, not dereferenced.
        let code = unsafe {
            rspv_specialize(
                h,
                c"gfx942".as_ptr(),
                0,
                ptr::null(),
                5,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        assert_eq!(code, RSPV_ERR_ARGUMENT);
        // A successful call clears the previous error.
        run(h, Some("gfx942"), 0, &input).unwrap();
        // SAFETY: the handle from above, freed once; NULL is ignored.
        unsafe {
            rspv_tables_free(h);
            rspv_tables_free(ptr::null_mut());
            rspv_buffer_free(ptr::null_mut(), 0);
        }
    }

    #[test]
    fn tables_from_dir() {
        let dir = CString::new(concat!(env!("CARGO_MANIFEST_DIR"), "/arch-tables")).unwrap();
        // SAFETY: a NUL-terminated path.
        let h = unsafe { rspv_tables_from_dir(dir.as_ptr()) };
        assert!(!h.is_null(), "{:?}", last_error());
        let input = std::fs::read(DISPATCH).unwrap();
        assert!(run(h, Some("gfx950"), 0, &input).is_ok());
        // SAFETY: the handle from above, freed once.
        unsafe { rspv_tables_free(h) };

        // SAFETY: a NUL-terminated path / NULL (rejected).
        let h = unsafe { rspv_tables_from_dir(c"/nonexistent/rspv-tables".as_ptr()) };
        assert!(h.is_null());
        assert!(last_error().unwrap().contains("/nonexistent/rspv-tables"));
        let h = unsafe { rspv_tables_from_dir(ptr::null()) };
        assert!(h.is_null());
        assert!(last_error().unwrap().contains("NULL"));
    }

    #[test]
    fn a_panic_becomes_code_5_with_a_message() {
        let r: Result<(), c_int> = guard(|| panic!("boom"));
        assert_eq!(r, Err(RSPV_ERR_PANIC));
        let m = last_error().unwrap();
        assert!(m.contains("panic") && m.contains("boom"), "{m}");
    }

    #[test]
    fn last_error_is_per_thread() {
        let r: Result<(), c_int> = guard(|| Err(argument("here")));
        assert_eq!(r, Err(RSPV_ERR_ARGUMENT));
        std::thread::spawn(|| assert!(last_error().is_none()))
            .join()
            .unwrap();
        assert_eq!(last_error().as_deref(), Some("here"));
    }
}
