//! Reading inputs, loading tables and writing outputs for the CLI.
//! Outputs are written atomically; `-` means stdin or stdout.

use std::borrow::Cow;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rspv_specialize::module::{Endian, check_start, extend_words};
use rspv_specialize::{ArchTables, Error, Target, TargetOptions};

use crate::Failure;
use serde_json::Value;

/// The arch tables: the embedded ones or those of `--arch-tables DIR`.
pub(crate) fn load_tables(dir: Option<&Path>) -> Result<Cow<'static, ArchTables>, Error> {
    match dir {
        Some(dir) => ArchTables::from_dir(dir).map(Cow::Owned),
        None => Ok(Cow::Borrowed(ArchTables::embedded())),
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

/// Reads the input module straight into words, 64 KiB at a time, so the
/// file is held once (as words), not twice. `-` is stdin.
pub(crate) fn read_words(path: &Path) -> Result<(Vec<u32>, Endian), Failure> {
    let file = display_path(path);
    let io = |e: std::io::Error| {
        Failure::from(Error::Io {
            path: file.clone(),
            message: format!("cannot read: {e}"),
        })
    };
    let mut src: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(path).map_err(io)?;
        if f.metadata().map_err(io)?.is_dir() {
            return Err(io(std::io::Error::other("is a directory")));
        }
        Box::new(f)
    };
    let mut words = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut first = [0u8; 4];
    let (mut fill, mut total, mut endian) = (0usize, 0usize, None);
    loop {
        let n = match src.read(&mut buf[fill..]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        if total < 4 {
            let k = (4 - total).min(n);
            first[total..total + k].copy_from_slice(&buf[fill..fill + k]);
        }
        total += n;
        fill += n;
        if endian.is_none() && total >= 4 {
            // Byte order only: lengths are checked once the input ends.
            endian = check_start(&first, 20).ok().or(Some(Endian::Little));
        }
        let whole = fill - fill % 4;
        if let Some(e) = endian {
            extend_words(&mut words, &buf[..whole], e);
            buf.copy_within(whole..fill, 0);
            fill -= whole;
        }
    }
    let endian =
        check_start(&first[..total.min(4)], total).map_err(|e| Failure::in_file(&file, e))?;
    Ok((words, endian))
}

/// How an input path is named in messages.
pub(crate) fn display_path(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Writes `bytes` to `path` (see [`write_with`]).
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    write_with(path, &mut |w| w.write_all(bytes))
}

/// Writes what `produce` writes to `path` atomically: into a temporary file
/// next to it, then renamed over it, so a failure leaves no half-written
/// output; a file replaced this way keeps its permissions. A path that
/// exists and is not a regular file (a FIFO, `/dev/stdout`) is written into,
/// not replaced. `-` writes to stdout.
pub(crate) fn write_with(
    path: &Path,
    produce: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        message: format!("cannot write: {e}"),
    };
    if path.as_os_str() == "-" {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        return match produce(&mut out).and_then(|()| out.flush()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => r.map_err(io),
        };
    }
    let existing = std::fs::metadata(path).ok();
    if let Some(meta) = &existing
        && !meta.is_file()
    {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io)?;
        let mut out = std::io::BufWriter::new(file);
        return produce(&mut out).and_then(|()| out.flush()).map_err(io);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or(std::ffi::OsStr::new("out")));
    name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(name);
    let result = std::fs::File::create(&tmp).and_then(|file| {
        if let Some(meta) = &existing {
            file.set_permissions(meta.permissions())?;
        }
        let mut out = std::io::BufWriter::new(file);
        produce(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    });
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
