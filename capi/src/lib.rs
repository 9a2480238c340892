//! The C ABI of rspv-specialize: load arch tables once, specialize and
//! inspect modules from any thread.
//!
//! Declared in `include/rspv_specialize.h`; this crate builds the static
//! (`librspv_specialize.a`) and shared (`librspv_specialize.so`) library,
//! following cargo-c's conventions (see `Cargo.toml`). Rust programs use the
//! `rspv-specialize` crate instead.
//!
//! Conventions:
//! - Status codes: [`RSPV_OK`] (0) or one of the `RSPV_ERR_*` codes.
//! - Every fallible call clears the calling thread's last error on entry
//!   and sets it on failure; [`rspv_last_error`] reads it. Messages are the
//!   library's, without command-line hints.
//! - No panic crosses the boundary: one becomes [`RSPV_ERR_PANIC`] (or a NULL
//!   handle) with a message.
//! - Tables are immutable once built and may be shared by any number of
//!   threads; every other call is independent of the others.
//! - What the library allocates, the caller frees with the matching call:
//!   [`rspv_tables_free`], [`rspv_buffer_free`], [`rspv_string_free`].
//! - JSON text (reports, inspections) has the shape of the command line's
//!   `--report json` and `inspect --format json` (`rspv::json`).

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::ptr;

use rspv::arch::ArchTables;
use rspv::error::Error;
use rspv::specialize::{Options, specialize_in_place};
use rspv::target::{Target, TargetOptions};

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

/// Arch tables behind an opaque C handle (`RspvTables *`): the embedded
/// tables (shared by every handle, never copied) or tables loaded from a
/// directory.
///
/// Immutable once built: one handle may be used by many threads at once.
pub struct RspvTables(Cow<'static, ArchTables>);

thread_local! {
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

fn clear_error() {
    LAST_ERROR.with(|e| *e.borrow_mut() = None);
}

/// A C string of `text`; an interior NUL (which would cut it short)
/// becomes U+FFFD.
fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', "\u{fffd}")).unwrap_or_default()
}

fn set_error(message: &str) {
    let c = c_string(message);
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(c));
}

/// A failed call: its status code and message.
struct Failure(c_int, String);

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let code = match &e {
            Error::UnknownTarget { .. } | Error::BadTarget { .. } => RSPV_ERR_TARGET,
            Error::Unresolved(_) => RSPV_ERR_UNRESOLVED,
            // Binary, Table, ArchTable, Structure, Io, and any later kind.
            _ => RSPV_ERR_INPUT,
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

/// The version of the library, e.g. `"0.1.0"` (a static NUL-terminated
/// string; `RSPV_SPECIALIZE_VERSION` in the header is the version it
/// declares).
#[unsafe(no_mangle)]
pub extern "C" fn rspv_version() -> *const c_char {
    /// The library's version as a C string.
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("the package version has no NUL"),
        };
    VERSION.as_ptr()
}

/// The tables built into the library (every processor LLVM knows).
///
/// Returns a new handle to free with [`rspv_tables_free`], or NULL on error
/// (see [`rspv_last_error`]).
#[unsafe(no_mangle)]
pub extern "C" fn rspv_tables_embedded() -> *mut RspvTables {
    guard(|| {
        Ok(Box::into_raw(Box::new(RspvTables(Cow::Borrowed(
            ArchTables::embedded(),
        )))))
    })
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
        Ok(Box::into_raw(Box::new(RspvTables(Cow::Owned(tables)))))
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

/// The tables behind a handle; `func` names the calling function in the
/// error.
///
/// # Safety
///
/// `tables` is NULL or a live handle, not freed while `'a` lasts.
unsafe fn tables_arg<'a>(tables: *const RspvTables, func: &str) -> Result<&'a ArchTables, Failure> {
    if tables.is_null() {
        return Err(argument(&format!("{func}: `tables` is NULL")));
    }
    // SAFETY: a live handle, shared read-only, per the contract.
    Ok(unsafe { &(*tables).0 })
}

/// Resolves the target ID `target_id` with `wave64` (0 or 1).
///
/// # Safety
///
/// `target_id` is NULL (an error) or a NUL-terminated string valid for the
/// call.
unsafe fn target_arg<'t>(
    tables: &'t ArchTables,
    target_id: *const c_char,
    wave64: c_int,
    func: &str,
) -> Result<Target<'t>, Failure> {
    if target_id.is_null() {
        return Err(argument(&format!("{func}: `target_id` is NULL")));
    }
    let wave64 = match wave64 {
        0 => false,
        1 => true,
        w => {
            return Err(argument(&format!(
                "{func}: `wave64` must be 0 or 1, not {w}"
            )));
        }
    };
    // SAFETY: non-NULL and NUL-terminated per the contract.
    let id = unsafe { CStr::from_ptr(target_id) };
    let id = id.to_str().map_err(|_| {
        Failure(
            RSPV_ERR_TARGET,
            format!("target `{}` is not UTF-8", id.to_string_lossy()),
        )
    })?;
    Ok(tables.target_with(id, &TargetOptions { wave64 })?)
}

/// The input bytes `input[0..input_len]`.
///
/// # Safety
///
/// `input` points to `input_len` readable bytes that no one writes during
/// `'a` (it may be NULL only when `input_len` is 0).
unsafe fn input_arg<'a>(
    input: *const u8,
    input_len: usize,
    func: &str,
) -> Result<&'a [u8], Failure> {
    if input_len == 0 {
        return Ok(&[]);
    }
    if input.is_null() {
        return Err(argument(&format!("{func}: `input` is NULL")));
    }
    // SAFETY: `input_len` readable bytes, unchanged during the call.
    Ok(unsafe { std::slice::from_raw_parts(input, input_len) })
}

/// A JSON value as a NUL-terminated string the caller frees with
/// [`rspv_string_free`].
fn json_string(value: &serde_json::Value) -> *mut c_char {
    // Serializing a `Value` cannot fail; JSON escapes NUL as `\u0000`.
    c_string(&serde_json::to_string_pretty(value).unwrap_or_default()).into_raw()
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
    // SAFETY: the same contract, and no report is asked for.
    unsafe {
        specialize_impl(
            "rspv_specialize",
            tables,
            target_id,
            wave64,
            input,
            input_len,
            out,
            out_len,
            None,
        )
    }
}

/// [`rspv_specialize`], and the report of what was resolved and removed as
/// JSON text: on success `*report_json` is set to a NUL-terminated string
/// the caller frees with [`rspv_string_free`]; on error to NULL. The report
/// names the target as given (`target`), the canonical target ID
/// (`target_id`), the `processor` and `wavefront_size` it resolved to, and
/// lists the predicates in SpecId order.
///
/// # Safety
///
/// As [`rspv_specialize`]; `report_json` is NULL (an error) or valid for
/// writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rspv_specialize_with_report(
    tables: *const RspvTables,
    target_id: *const c_char,
    wave64: c_int,
    input: *const u8,
    input_len: usize,
    out: *mut *mut u8,
    out_len: *mut usize,
    report_json: *mut *mut c_char,
) -> c_int {
    if !report_json.is_null() {
        // SAFETY: non-NULL and writable per the contract.
        unsafe { report_json.write(ptr::null_mut()) };
    }
    // SAFETY: the same contract; `report_json` is checked inside.
    unsafe {
        specialize_impl(
            "rspv_specialize_with_report",
            tables,
            target_id,
            wave64,
            input,
            input_len,
            out,
            out_len,
            Some(report_json),
        )
    }
}

/// Both specialize calls; `report_json` is `Some` for the one with a report.
///
/// # Safety
///
/// As [`rspv_specialize_with_report`].
#[allow(clippy::too_many_arguments)]
unsafe fn specialize_impl(
    func: &str,
    tables: *const RspvTables,
    target_id: *const c_char,
    wave64: c_int,
    input: *const u8,
    input_len: usize,
    out: *mut *mut u8,
    out_len: *mut usize,
    report_json: Option<*mut *mut c_char>,
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
            return Err(argument(&format!("{func}: `out` or `out_len` is NULL")));
        }
        if report_json.is_some_and(|r| r.is_null()) {
            return Err(argument(&format!("{func}: `report_json` is NULL")));
        }
        // SAFETY: per the contract (see the function's documentation).
        let tables = unsafe { tables_arg(tables, func)? };
        // SAFETY: as above.
        let target = unsafe { target_arg(tables, target_id, wave64, func)? };
        // SAFETY: as above.
        let bytes = unsafe { input_arg(input, input_len, func)? };
        // The module laid down in one copy of the input, which becomes the
        // output buffer: no words buffer beside it and no second copy.
        let done = specialize_in_place(bytes.to_vec(), &target, &Options::default())?;
        let report = report_json.map(|_| rspv::json::report(done.report()));
        Ok((done.into_bytes().into_boxed_slice(), report))
    });
    match result {
        Ok((buffer, report)) => {
            let len = buffer.len();
            // SAFETY: all checked non-NULL inside the guard.
            unsafe {
                out.write(Box::into_raw(buffer).cast::<u8>());
                out_len.write(len);
                if let (Some(slot), Some(report)) = (report_json, report) {
                    slot.write(json_string(&report));
                }
            }
            RSPV_OK
        }
        Err(code) => code,
    }
}

/// Reads the predicate table of the SPIR-V module `input[0..input_len]`
/// without changing anything, and writes it as JSON text to `*json` (a
/// NUL-terminated string the caller frees with [`rspv_string_free`]).
///
/// `{"has_table": ..., "predicates": [...]}`, predicates in SpecId order,
/// each with its `spec_id`, `name`, `kind`, `call_sites`, the `builtins`
/// that require it and a `note`. With a `target_id` (NULL for none) the
/// object also names the target (as `rspv_specialize_with_report` does) and
/// each predicate has its `value` for it.
///
/// Returns [`RSPV_OK`], or an error code with `*json` set to NULL (when
/// `json` is not NULL) and a message for [`rspv_last_error`].
///
/// # Safety
///
/// - `tables` as for [`rspv_specialize`] (required: the builtins and notes
///   come from the tables).
/// - `target_id` is NULL (no values) or a NUL-terminated string valid for
///   the call.
/// - `input` points to `input_len` readable bytes that no one writes during
///   the call (it may be NULL only when `input_len` is 0).
/// - `json` is NULL (an error) or valid for writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rspv_inspect(
    tables: *const RspvTables,
    target_id: *const c_char,
    wave64: c_int,
    input: *const u8,
    input_len: usize,
    json: *mut *mut c_char,
) -> c_int {
    const FUNC: &str = "rspv_inspect";
    let result = guard(|| {
        if json.is_null() {
            return Err(argument("rspv_inspect: `json` is NULL"));
        }
        // SAFETY: non-NULL and writable per the contract.
        unsafe { json.write(ptr::null_mut()) };
        // SAFETY: per the contract (see the function's documentation).
        let tables = unsafe { tables_arg(tables, FUNC)? };
        let target = if target_id.is_null() {
            None
        } else {
            // SAFETY: as above.
            Some(unsafe { target_arg(tables, target_id, wave64, FUNC)? })
        };
        // SAFETY: as above.
        let bytes = unsafe { input_arg(input, input_len, FUNC)? };
        let inspection = rspv::inspect(bytes)?;
        Ok(rspv::json::inspection(
            &inspection,
            tables,
            target.as_ref(),
        )?)
    });
    match result {
        Ok(value) => {
            // SAFETY: checked non-NULL inside the guard.
            unsafe { json.write(json_string(&value)) };
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

/// Frees a string from [`rspv_specialize_with_report`] or [`rspv_inspect`].
/// NULL is ignored.
///
/// # Safety
///
/// `s` is NULL or a string those functions returned, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rspv_string_free(s: *mut c_char) {
    if s.is_null() {
        return;
    }
    // SAFETY: per the contract, from `CString::into_raw`, owned by no one
    // else from here on.
    drop(unsafe { CString::from_raw(s) });
}

/// The message of the calling thread's last failed call, or NULL when the
/// last fallible call on this thread succeeded (or none was made).
///
/// The string is owned by the library and stays valid until the next
/// fallible call (`rspv_tables_*`, `rspv_specialize*`, `rspv_inspect`) on
/// the same thread.
#[unsafe(no_mangle)]
pub extern "C" fn rspv_last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|e| e.borrow().as_ref().map_or(ptr::null(), |c| c.as_ptr()))
        .unwrap_or(ptr::null())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspv::specialize::specialize;

    const DISPATCH: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/golden/dispatch-chain/input.spv"
    );

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
        // A container holding the module gives the same bytes.
        let container = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/containers/dispatch.ccob"
        ))
        .unwrap();
        assert_eq!(
            run(h, Some("gfx942"), 0, &container).unwrap(),
            run(h, Some("gfx942"), 0, &input).unwrap()
        );
        assert_eq!(run(h, Some("gfx942"), 0, b"nope").unwrap_err().0, 1);
        assert_eq!(run(h, Some("gfx942"), 0, &[]).unwrap_err().0, 1);
        let bad = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/golden/unresolved-store/input.spv"
        ))
        .unwrap();
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
        let dir = CString::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../arch-tables")).unwrap();
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
