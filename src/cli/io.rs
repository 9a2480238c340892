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

/// The error for an input, named `file` in messages, that cannot be read.
fn cannot_read(file: &str, e: std::io::Error) -> Error {
    Error::Io {
        path: file.to_string(),
        message: format!("cannot read: {e}"),
    }
}

/// Reads the input module; `-` is stdin. Errors name the path.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>, Error> {
    let io = |e| cannot_read(&display_path(path), e);
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

/// Files this large or larger are mapped rather than read (see
/// [`Raw::Mapped`]); smaller ones cost no more to read than to map.
const MAP_FROM_BYTES: u64 = 1 << 16;

/// Files larger than this are read, not mapped: reading a file larger
/// than memory fails with a clear error, where populating its map would
/// take whatever memory there is first.
const MAP_UP_TO_BYTES: u64 = 1 << 32;

/// An input as it was read, before anything looked at it.
pub(crate) enum Raw {
    /// Read into words as they lie in memory (host order), the last one
    /// zero-padded, with the number of bytes read.
    Read(Vec<u32>, usize),
    /// A large regular file mapped read-only and private (copy-on-write
    /// once made writable), its pages populated up front: no buffer to
    /// fault in and no copy, and what the pass keeps of the input is
    /// written straight from the file's pages.
    Mapped(memmap2::Mmap),
}

impl Raw {
    /// The input's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Raw::Read(words, len) => &bytemuck::cast_slice(words)[..*len],
            Raw::Mapped(map) => map,
        }
    }
}

/// A module's words in host order: read into memory, or those of a mapped
/// input (a large file already in the host's byte order).
pub(crate) enum Words {
    /// Words of their own.
    Read(Vec<u32>),
    /// The mapped file's words, in the host's order.
    Mapped(memmap2::Mmap),
    /// The mapped file's words, swapped into the host's order in place:
    /// each page written became the process's own copy, as a read page
    /// would have been.
    Swapped(memmap2::MmapMut),
}

impl Default for Words {
    fn default() -> Words {
        Words::Read(Vec::new())
    }
}

impl std::ops::Deref for Words {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            Words::Read(words) => words,
            // (A map's bytes always cast: see `words_in_order`.)
            Words::Mapped(map) => bytemuck::try_cast_slice(map).unwrap_or_default(),
            Words::Swapped(map) => bytemuck::try_cast_slice(map).unwrap_or_default(),
        }
    }
}

/// Reads the input without looking at it: a regular file of
/// [`MAP_FROM_BYTES`] to [`MAP_UP_TO_BYTES`] is mapped ([`Raw::Mapped`])
/// where its file system can map it; another file is read straight into
/// words, into a buffer of its size (one word more, to see the end), not
/// through a byte buffer; stdin (`-`) and other streams into one that
/// grows as they come. [`words_in_order`] then checks a module's length
/// and puts its words in host order.
pub(crate) fn read_raw(path: &Path) -> Result<Raw, Failure> {
    let file = display_path(path);
    let io = |e| Failure::from(cannot_read(&file, e));
    if path.as_os_str() == "-" {
        return read_to_end_as_words(&mut std::io::stdin().lock(), 0)
            .map(|(words, len)| Raw::Read(words, len))
            .map_err(io);
    }
    let mut f = std::fs::File::open(path).map_err(io)?;
    let meta = f.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(io(std::io::Error::other("is a directory")));
    }
    if meta.is_file() && (MAP_FROM_BYTES..=MAP_UP_TO_BYTES).contains(&meta.len()) {
        // SAFETY: the map is private (copy-on-write: nothing written to it
        // reaches the file). What `Mmap` cannot rule out is another
        // process changing the file while it is mapped: changed words
        // would be read as they change, and a file truncated under the
        // map would stop the process with SIGBUS. Compilers map their
        // inputs on the same terms (rustc its crate metadata, LLVM's
        // MemoryBuffer source and object files); an input being rewritten
        // while it is read is garbage in any case. The output never goes
        // into the input's file: it is written to a new file renamed over
        // the output's path.
        // (Read-only until `words_in_order` swaps a big-endian module's
        // words: a writable private map would be populated by copying
        // every page.)
        let map = unsafe {
            memmap2::MmapOptions::new()
                .populate()
                .map_copy_read_only(&f)
        };
        // A file system that cannot map files (some FUSE and network
        // ones) still reads them.
        if let Ok(map) = map {
            return Ok(Raw::Mapped(map));
        }
    }
    // A FIFO or device tells no length.
    let size = if meta.is_file() { meta.len() } else { 0 };
    read_to_end_as_words(&mut f, size)
        .map(|(words, len)| Raw::Read(words, len))
        .map_err(io)
}

/// The module in `raw` (as [`read_raw`] read it), checked and in
/// host order, with its byte order. `file` names the input. Words not in
/// the host's order are swapped in place, mapped or read.
pub(crate) fn words_in_order(file: &str, raw: Raw) -> Result<(Words, Endian), Failure> {
    let bytes = raw.bytes();
    let len = bytes.len();
    let endian = check_start(&bytes[..len.min(4)], len).map_err(|e| Failure::in_file(file, e))?;
    // check_start made sure `len` is a multiple of 4.
    let words = match raw {
        Raw::Read(mut words, _) => {
            words.truncate(len / 4);
            if !is_host_order(endian) {
                for w in &mut words {
                    *w = w.swap_bytes();
                }
            }
            Words::Read(words)
        }
        // (A map starts on a page, and `len` is a multiple of 4: its bytes
        // always cast to words.)
        Raw::Mapped(map) if is_host_order(endian) => Words::Mapped(map),
        Raw::Mapped(map) => {
            let mut map = map
                .make_mut()
                .map_err(|e| Failure::from(cannot_read(file, e)))?;
            if let Ok(words) = bytemuck::try_cast_slice_mut::<u8, u32>(&mut map) {
                for w in words {
                    *w = w.swap_bytes();
                }
            }
            Words::Swapped(map)
        }
    };
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
