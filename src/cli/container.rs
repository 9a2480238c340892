//! Inputs that are containers (offload bundles, compressed bundles, ELF
//! host objects, executables, shared libraries), told apart from bare
//! SPIR-V by content: loading their SPIR-V modules, choosing them with
//! `--module K`, describing where each was found (text and JSON), and
//! `rspv-specialize extract`.
//!
//! The input is read (or mapped) once (`io::read_raw`); a bare SPIR-V
//! module keeps everything the commands always printed for it.

use std::path::Path;

use rspv_specialize::Error;
use rspv_specialize::container::{Embedded, Kind, Location, detect, find_spirv};
use rspv_specialize::module::{Endian, words_from_bytes};
use serde_json::{Map, Value, json};

use super::io::{Words, display_path, read_input, read_raw, words_in_order, write_output};
use crate::{ExtractArgs, Failure};

/// One SPIR-V module of a container, owned.
pub(crate) struct Module {
    /// Its index, as `inspect` numbers them (from 0, in file order).
    pub index: usize,
    /// Where it was found.
    pub location: Location,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl Module {
    /// The module's words and byte order.
    pub fn words(&self) -> Result<(Vec<u32>, Endian), Error> {
        words_from_bytes(&self.bytes)
    }

    /// How messages name this module of input `file`:
    /// `FILE, module K (<where>)`.
    pub fn label(&self, file: &str) -> String {
        format!("{file}, module {} ({})", self.index, self.location)
    }
}

/// A container input and its modules.
pub(crate) struct Container {
    /// What the input is.
    pub kind: Kind,
    /// Its modules, in file order.
    pub modules: Vec<Module>,
}

/// An input as the commands read it.
pub(crate) enum Source {
    /// A bare SPIR-V module, as words.
    Spirv(Words, Endian),
    /// A container and its modules.
    Container(Container),
}

/// Reads the input at `path` (`-`: stdin) once, as words, and tells by its
/// first bytes whether it is a container (then finds its modules) or a
/// bare module (then checks it and puts it in host order).
pub(crate) fn read_source(path: &Path) -> Result<Source, Failure> {
    let file = display_path(path);
    let raw = read_raw(path)?;
    if is_container(raw.bytes()) {
        return Ok(Source::Container(
            from_bytes(raw.bytes()).map_err(|e| Failure::in_file(&file, e))?,
        ));
    }
    let (words, endian) = words_in_order(&file, raw)?;
    Ok(Source::Spirv(words, endian))
}

/// Whether `head` (an input's first bytes) is a container's.
fn is_container(head: &[u8]) -> bool {
    matches!(
        detect(head),
        Ok(Kind::Bundle | Kind::CompressedBundle | Kind::Elf)
    )
}

/// Finds the SPIR-V modules of the container `data`.
fn from_bytes(data: &[u8]) -> Result<Container, Error> {
    let found = find_spirv(data)?;
    let modules = found
        .modules
        .into_iter()
        .enumerate()
        .map(|(index, Embedded { bytes, location })| Module {
            index,
            location,
            bytes: bytes.into_owned(),
        })
        .collect();
    Ok(Container {
        kind: found.kind,
        modules,
    })
}

impl Container {
    /// The modules `--module K` selects: that one, or all of them. A `K`
    /// past the last module is a usage error listing them.
    pub fn select(&self, k: Option<usize>) -> Result<Vec<&Module>, Failure> {
        match k {
            None => Ok(self.modules.iter().collect()),
            Some(k) => self.modules.get(k).map(|m| vec![m]).ok_or_else(|| {
                Failure::usage(format!(
                    "--module {k}: the input holds {} SPIR-V module(s), numbered from 0:\n{}",
                    self.modules.len(),
                    self.listing().trim_end()
                ))
            }),
        }
    }

    /// The one module a single-output run works on: `--module K`, or the
    /// only one. Several without `--module` is a usage error listing them.
    pub fn one(&self, k: Option<usize>) -> Result<&Module, Failure> {
        let mut chosen = self.select(k)?;
        if chosen.len() > 1 {
            return Err(Failure::usage(format!(
                "the input holds {} SPIR-V modules; pick one with --module K:\n{}",
                chosen.len(),
                self.listing().trim_end()
            )));
        }
        Ok(chosen.remove(0))
    }

    /// One line per module: index, where, size, compression.
    pub fn listing(&self) -> String {
        self.modules
            .iter()
            .map(|m| format!("  {}\n", describe(m)))
            .collect()
    }
}

/// `module K: <where>, N bytes`.
pub(crate) fn describe(m: &Module) -> String {
    format!(
        "module {}: {}, {} bytes",
        m.index,
        m.location,
        m.bytes.len()
    )
}

/// The JSON fields saying which module `m` is and where it was found.
pub(crate) fn module_json(m: &Module) -> Map<String, Value> {
    let l = &m.location;
    let mut o = Map::new();
    o.insert("index".into(), json!(m.index));
    o.insert("location".into(), json!(l.to_string()));
    o.insert("section".into(), json!(l.section.as_ref().map(|(n, _)| n)));
    o.insert(
        "section_offset".into(),
        json!(l.section.as_ref().map(|(_, at)| at)),
    );
    o.insert("bundle_offset".into(), json!(l.bundle_offset));
    o.insert("entry".into(), json!(l.entry));
    o.insert("offset".into(), json!(l.offset));
    o.insert(
        "compressed".into(),
        match l.compression {
            Some(c) => json!({
                "method": c.method.name(),
                "format": c.version,
                "size": c.compressed_size,
            }),
            None => Value::Null,
        },
    );
    o.insert("size".into(), json!(m.bytes.len()));
    o
}

/// The file name of module `k`: `m<K>.spv`, or, for a batch output, its
/// target's file name prefixed: `m<K>-<name>` (`m1-gfx942.spv`).
pub(crate) fn module_file(k: usize, target_file: Option<&str>) -> String {
    match target_file {
        Some(name) => format!("m{k}-{name}"),
        None => format!("m{k}.spv"),
    }
}

/// `rspv-specialize extract IN --out-dir DIR`: writes each SPIR-V module of
/// IN (or the one `--module K` picks), unchanged, as `DIR/m<K>.spv`, and
/// prints one line per file saying where the module came from. A bare
/// module is written as `m0.spv`.
pub(crate) fn run_extract(args: &ExtractArgs) -> Result<(), Failure> {
    let file = display_path(&args.input);
    let out_dir = &args.out_dir;
    if out_dir.exists() && !out_dir.is_dir() {
        return Err(Failure::from(Error::Io {
            path: out_dir.display().to_string(),
            message: "not a directory".to_string(),
        }));
    }
    let data = read_input(&args.input)?;
    let container = from_bytes(&data).map_err(|e| Failure::in_file(&file, e))?;
    let chosen = container.select(args.module)?;
    std::fs::create_dir_all(out_dir).map_err(|e| Error::Io {
        path: out_dir.display().to_string(),
        message: format!("cannot create: {e}"),
    })?;
    let mut lines = String::new();
    for m in chosen {
        let name = module_file(m.index, None);
        write_output(&out_dir.join(&name), &m.bytes, args.fsync)?;
        lines += &format!("{}: {}\n", out_dir.join(&name).display(), describe(m));
    }
    if !args.quiet {
        eprint!("{lines}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_files_follow_one_scheme() {
        assert_eq!(module_file(0, None), "m0.spv");
        assert_eq!(
            module_file(3, Some("gfx90a_xnack+.spv")),
            "m3-gfx90a_xnack+.spv"
        );
        assert_eq!(
            module_file(1, Some("gfx1100-wave64.spv")),
            "m1-gfx1100-wave64.spv"
        );
    }
}
