//! Reading inputs, loading tables and writing outputs for the CLI.
//! Outputs are written atomically; `-` means stdin or stdout.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rspv_specialize::{ArchTables, Error, Target, TargetOptions};
use serde_json::Value;

/// The arch tables: the embedded ones or those of `--arch-tables DIR`.
pub(crate) fn load_tables(dir: Option<&Path>) -> Result<ArchTables, Error> {
    match dir {
        Some(dir) => ArchTables::from_dir(dir),
        None => Ok(ArchTables::embedded()),
    }
}

/// Resolves a target ID with the wave-size choice.
pub(crate) fn resolve_target<'t>(
    tables: &'t ArchTables,
    id: &str,
    wave64: bool,
) -> Result<Target<'t>, Error> {
    tables.target_with(id, &TargetOptions { wave64 })
}

/// Reads the input module; `-` is stdin. Errors name the path.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>, Error> {
    let io = |e: std::io::Error| Error::Io {
        path: display_path(path),
        message: format!("cannot read: {e}"),
    };
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(io)?;
        Ok(bytes)
    } else {
        std::fs::read(path).map_err(io)
    }
}

/// How an input path is named in messages.
pub(crate) fn display_path(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Writes `bytes` to `path` atomically: into a temporary file next to it,
/// then renamed over it, so a failure leaves no half-written output. `-`
/// writes to stdout.
#[allow(dead_code)] // used once `run_specialize` calls the library
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if path.as_os_str() == "-" {
        return emit_bytes(bytes);
    }
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        message: format!("cannot write: {e}"),
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.as_deref().unwrap_or("out"),
        std::process::id()
    ));
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
pub(crate) fn emit_bytes(bytes: &[u8]) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::Io {
            path: "<stdout>".to_string(),
            message: e.to_string(),
        }),
    }
}

/// Writes text to stdout.
pub(crate) fn emit(text: &str) -> Result<(), Error> {
    emit_bytes(text.as_bytes())
}

/// Writes a JSON value to stdout, pretty-printed, with a final newline.
pub(crate) fn emit_json(value: &Value) -> Result<(), Error> {
    // Serializing a `Value` to a string cannot fail.
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    emit(&format!("{text}\n"))
}

/// Writes a JSON value to stderr, pretty-printed.
pub(crate) fn emit_json_to_stderr(value: &Value) {
    eprintln!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}
