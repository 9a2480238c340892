//! Reading inputs, loading tables and writing outputs for the CLI.
//! Outputs are written atomically; `-` means stdin or stdout.

use std::borrow::Cow;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rspv_specialize::module::{Endian, bytes_from_words, check_start, write_words};
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

/// Reads the input straight into words, without looking at it: its words
/// as they lie in memory (host order) and its length in bytes. A regular
/// file is read into a buffer of its size (one word more, to see the end),
/// not through a byte buffer; stdin (`-`) and other streams into one that
/// grows as they come. [`words_in_order`] then checks a module's length and
/// byte-swaps its words in place only when its byte order is not the
/// host's.
pub(crate) fn read_raw_words(path: &Path) -> Result<(Vec<u32>, usize), Failure> {
    let file = display_path(path);
    let io = |e: std::io::Error| {
        Failure::from(Error::Io {
            path: file.clone(),
            message: format!("cannot read: {e}"),
        })
    };
    if path.as_os_str() == "-" {
        read_to_end_as_words(&mut std::io::stdin().lock(), 0)
    } else {
        let mut f = std::fs::File::open(path).map_err(io)?;
        let meta = f.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(io(std::io::Error::other("is a directory")));
        }
        // A FIFO or device tells no length.
        let size = if meta.is_file() { meta.len() } else { 0 };
        read_to_end_as_words(&mut f, size)
    }
    .map_err(io)
}

/// The module in `words` (`len` bytes, as [`read_raw_words`] read them),
/// checked and in host order, with its byte order. `file` names the input.
pub(crate) fn words_in_order(
    file: &str,
    mut words: Vec<u32>,
    len: usize,
) -> Result<(Vec<u32>, Endian), Failure> {
    let bytes: &[u8] = bytemuck::cast_slice(&words);
    let endian = check_start(&bytes[..len.min(4)], len).map_err(|e| Failure::in_file(file, e))?;
    // check_start made sure `len` is a multiple of 4.
    words.truncate(len / 4);
    if !is_host_order(endian) {
        for w in &mut words {
            *w = w.swap_bytes();
        }
    }
    Ok((words, endian))
}

/// Reads `src` to its end into words as they lie in memory (host order),
/// the last one zero-padded; returns them with the number of bytes read.
/// `expected` is the byte count to expect (0: unknown). A size that does not
/// fit in memory is an error, not an abort.
fn read_to_end_as_words(src: &mut dyn Read, expected: u64) -> std::io::Result<(Vec<u32>, usize)> {
    let too_big = |bytes: u64| {
        std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("{bytes} bytes do not fit in memory"),
        )
    };
    // One word more than expected: the read that finds the end needs room.
    let start = match expected {
        0 => 1024,
        n => usize::try_from(n / 4 + 1).map_err(|_| too_big(expected))?,
    };
    // Zeroed by the allocator: fresh pages from the kernel, no memset.
    let mut words: Vec<u32> =
        bytemuck::allocation::try_zeroed_vec(start).map_err(|()| too_big(expected))?;
    let mut len = 0;
    loop {
        if len == words.len() * 4 {
            let more = words.len();
            words
                .try_reserve_exact(more)
                .map_err(|_| too_big(len as u64 * 2))?;
            words.resize(more * 2, 0);
        }
        match src.read(&mut bytemuck::cast_slice_mut(&mut words)[len..]) {
            Ok(0) => return Ok((words, len)),
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// True when modules of byte order `endian` hold host-order words.
fn is_host_order(endian: Endian) -> bool {
    match endian {
        Endian::Little => cfg!(target_endian = "little"),
        Endian::Big => cfg!(target_endian = "big"),
    }
}

/// A module's bytes in the byte order `endian`: the words' own memory when
/// that is the host's order (no copy), else a byte-swapped copy.
pub(crate) fn module_bytes(words: &[u32], endian: Endian) -> Cow<'_, [u8]> {
    if is_host_order(endian) {
        Cow::Borrowed(bytemuck::cast_slice(words))
    } else {
        Cow::Owned(bytes_from_words(words, endian))
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

/// Writes `bytes` to `path` atomically (see [`write_output_with`]).
pub(crate) fn write_output(path: &Path, bytes: &[u8], fsync: bool) -> Result<(), Error> {
    write_output_with(path, fsync, |out| out.write_all(bytes))
}

/// Writes a module given as pieces of host-order words (in order) to
/// `path` in the byte order `endian` (see [`write_output_with`]): pieces in
/// the host's order are written from their own memory, others byte-swapped
/// a chunk at a time, so the whole module is never copied.
pub(crate) fn write_module<'a>(
    path: &Path,
    chunks: impl Iterator<Item = &'a [u32]>,
    endian: Endian,
    fsync: bool,
) -> Result<(), Error> {
    write_output_with(path, fsync, |out: &mut dyn Write| {
        // Small pieces are gathered; large ones go straight through.
        let mut out = std::io::BufWriter::with_capacity(256 * 1024, out);
        for chunk in chunks {
            if is_host_order(endian) {
                out.write_all(bytemuck::cast_slice(chunk))?;
            } else {
                write_words(&mut out, chunk, endian)?;
            }
        }
        out.flush()
    })
}

/// Writes to `path` whatever `write` writes, atomically: into a temporary
/// file next to it that is then renamed over it, so a failure leaves no
/// half-written output; a file replaced this way keeps its permissions. A
/// path that exists and is not a regular file (a FIFO, `/dev/stdout`) is
/// written into, not replaced. `-` writes to stdout, where a closed pipe
/// (`| head`) is not an error.
///
/// With `fsync`, the file's data and then its directory entry are flushed
/// to the disk before this returns. Without it (the default, as for gcc,
/// clang and rustc outputs) the rename is atomic for readers but the
/// operating system writes the data back when it chooses.
pub(crate) fn write_output_with(
    path: &Path,
    fsync: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        message: format!("cannot write: {e}"),
    };
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        return match write(&mut out).and_then(|()| out.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            Err(e) => Err(Error::Io {
                path: "<stdout>".to_string(),
                message: e.to_string(),
            }),
        };
    }
    let existing = std::fs::metadata(path).ok();
    if let Some(meta) = &existing
        && !meta.is_file()
    {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io)?;
        return write(&mut file).map_err(io);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or(std::ffi::OsStr::new("out")));
    name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(name);
    let result = std::fs::File::create(&tmp).and_then(|mut file| {
        if let Some(meta) = &existing {
            file.set_permissions(meta.permissions())?;
        }
        write(&mut file)?;
        if fsync {
            file.sync_all()?;
        }
        drop(file);
        std::fs::rename(&tmp, path)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)?;
    if fsync {
        // The rename is durable once the directory is.
        std::fs::File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(io)?;
    }
    Ok(())
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
pub(crate) fn emit_bytes(bytes: &[u8]) -> Result<(), Error> {
    write_output_with(Path::new("-"), false, |out| out.write_all(bytes))
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
