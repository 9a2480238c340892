//! The arch-table files and the form lookups use.
//!
//! This file is shared: the library compiles it as `arch::schema`, and
//! `build.rs` includes it to turn `arch-tables/*.yaml` into the statics of
//! [`ArchTables::embedded`](super::ArchTables::embedded). So the embedded
//! tables and tables loaded at run time are read, checked and indexed by the
//! same code, and the YAML stays the single source of truth. It depends on
//! `std`, `serde` and `serde_yaml` only.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

/// The file name reserved for the builtins table.
pub const BUILTINS_FILE: &str = "builtins.yaml";

/// One AMDGPU processor (a specific GPU or a `-generic` target).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Processor {
    /// Canonical name, e.g. `gfx950` or `gfx9-4-generic`.
    pub name: String,
    /// Legacy names LLVM accepts for it, e.g. `tahiti` for gfx600.
    pub aliases: Vec<String>,
    /// ISA generation, e.g. `gfx9`.
    pub generation: String,
    /// True for `-generic` targets.
    pub generic: bool,
    /// For a generic target: the processors it covers.
    #[serde(default)]
    pub covers: Vec<String>,
    /// Wavefront sizes the processor supports (32, 64 or both).
    pub wavefront_sizes: Vec<u32>,
    /// The wavefront size clang picks by default.
    pub default_wavefront_size: u32,
    /// Target-ID features the processor supports (`sramecc`, `xnack`).
    pub target_id_features: Vec<String>,
    /// Clang's target-feature map for the processor (names set to true).
    pub features: BTreeSet<String>,
    /// Where these facts came from (repository, paths, commits).
    pub source: BTreeMap<String, String>,
}

impl Processor {
    /// True when the processor runs both wave32 and wave64.
    pub fn is_dual_wave(&self) -> bool {
        self.wavefront_sizes.contains(&32) && self.wavefront_sizes.contains(&64)
    }
}

/// One `__builtin_amdgcn_*` and its required-features expression.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Builtin {
    /// The builtin's name.
    pub name: String,
    /// Its required-features expression (`""` = none).
    pub requires: String,
}

/// `builtins.yaml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BuiltinsFile {
    source: BTreeMap<String, String>,
    builtins: Vec<Builtin>,
}

/// A problem in one arch-table file.
#[derive(Debug)]
pub(crate) struct FileError {
    /// The file.
    pub(crate) file: String,
    /// The 1-based line, when known.
    pub(crate) line: Option<usize>,
    /// What is wrong.
    pub(crate) message: String,
}

/// The target-ID and wave features a target can have that no processor's
/// feature map need list: they are always known feature names.
pub(crate) const ALWAYS_KNOWN: [&str; 4] =
    ["sramecc", "wavefrontsize32", "wavefrontsize64", "xnack"];

/// Text borrowed from the binary (embedded tables) or owned (loaded ones).
pub(crate) type Text = Cow<'static, str>;
/// A list borrowed from the binary (embedded tables) or owned (loaded ones).
pub(crate) type List<T> = Cow<'static, [T]>;

/// Arch tables in the form lookups use: names sorted for binary search,
/// feature sets as bitsets over one sorted feature list. Made from the YAML
/// by [`Index::new`], at build time for the embedded tables (as statics
/// borrowing from the binary) or at run time for `--arch-tables DIR`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Index {
    /// Processors in file-name order.
    pub(crate) processors: List<ProcessorEntry>,
    /// Every canonical name and alias with its processor's index, sorted by
    /// name.
    pub(crate) names: List<(Text, u32)>,
    /// Every feature any processor has, plus [`ALWAYS_KNOWN`], sorted: bit
    /// `i` of a feature bitset is `features[i]`.
    pub(crate) features: List<Text>,
    /// `builtins.yaml`'s `(name, requires)` pairs in file order.
    pub(crate) builtins: List<(Text, Text)>,
    /// Indices into `builtins` sorted by requirement (then file order).
    pub(crate) builtins_by_requirement: List<u32>,
}

/// One processor's facts (the fields of [`Processor`]), its feature map as a
/// bitset over [`Index::features`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProcessorEntry {
    /// [`Processor::name`].
    pub(crate) name: Text,
    /// [`Processor::aliases`].
    pub(crate) aliases: List<Text>,
    /// [`Processor::generation`].
    pub(crate) generation: Text,
    /// [`Processor::generic`].
    pub(crate) generic: bool,
    /// [`Processor::covers`].
    pub(crate) covers: List<Text>,
    /// [`Processor::wavefront_sizes`].
    pub(crate) wavefront_sizes: List<u32>,
    /// [`Processor::default_wavefront_size`].
    pub(crate) default_wavefront_size: u32,
    /// [`Processor::target_id_features`].
    pub(crate) target_id_features: List<Text>,
    /// [`Processor::features`], bit `i` standing for `Index::features[i]`.
    pub(crate) features: List<u64>,
    /// [`Processor::source`], sorted by key.
    pub(crate) source: List<(Text, Text)>,
}

/// Parses and checks `(file name, YAML text)` pairs: a file whose name ends
/// in [`BUILTINS_FILE`] is the builtins table, every other file one
/// processor. Errors name the file and, where known, the line.
pub(crate) fn parse_files(
    files: impl IntoIterator<Item = (String, String)>,
) -> Result<(Vec<Processor>, Vec<Builtin>), FileError> {
    let mut processors: Vec<Processor> = Vec::new();
    let mut builtins = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (file, text) in files {
        if file.ends_with(BUILTINS_FILE) {
            let b: BuiltinsFile = serde_yaml::from_str(&text).map_err(|e| yaml_err(&file, e))?;
            if b.source.is_empty() {
                return Err(file_err(
                    &file,
                    Some(1),
                    "`source` must name where the data came from",
                ));
            }
            builtins = b.builtins;
        } else {
            let p: Processor = serde_yaml::from_str(&text).map_err(|e| yaml_err(&file, e))?;
            check_processor(&p, &file, &text)?;
            let line_of = |key: &str, value: &str| line_of(&text, key, value);
            for (key, n) in
                std::iter::once(("name:", &p.name)).chain(p.aliases.iter().map(|a| ("aliases:", a)))
            {
                if let Some(&other) = seen.get(n.as_str()) {
                    // `other` is this processor when an alias repeats its
                    // own name or another alias.
                    let owner = processors.get(other).map_or(&p.name, |o| &o.name);
                    return Err(file_err(
                        &file,
                        line_of(key, n),
                        format!("`{n}` is already defined by processor {owner}"),
                    ));
                }
                seen.insert(n.clone(), processors.len());
            }
            processors.push(p);
        }
    }
    if processors.is_empty() {
        return Err(file_err("(arch tables)", None, "no processor files found"));
    }
    if processors.len() > u32::MAX as usize || builtins.len() > u32::MAX as usize {
        return Err(file_err("(arch tables)", None, "too many entries"));
    }
    Ok((processors, builtins))
}

/// The line of `text` whose key is `key` and which mentions `value`.
fn line_of(text: &str, key: &str, value: &str) -> Option<usize> {
    text.lines()
        .position(|l| l.trim_start().starts_with(key) && l.contains(value))
        .map(|i| i + 1)
}

/// Checks one processor's fields (names are checked across files by
/// [`parse_files`]).
fn check_processor(p: &Processor, file: &str, text: &str) -> Result<(), FileError> {
    let line_of = |key: &str| line_of(text, key, "");
    if p.name.is_empty() {
        return Err(file_err(file, line_of("name:"), "empty `name`"));
    }
    if p.wavefront_sizes.is_empty() || p.wavefront_sizes.iter().any(|w| *w != 32 && *w != 64) {
        return Err(file_err(
            file,
            line_of("wavefront_sizes:"),
            "`wavefront_sizes` must list 32, 64 or both",
        ));
    }
    if !p.wavefront_sizes.contains(&p.default_wavefront_size) {
        return Err(file_err(
            file,
            line_of("default_wavefront_size:"),
            "`default_wavefront_size` is not one of `wavefront_sizes`",
        ));
    }
    if let Some(f) = p
        .target_id_features
        .iter()
        .find(|f| *f != "xnack" && *f != "sramecc")
    {
        return Err(file_err(
            file,
            line_of("target_id_features:"),
            format!("unknown target-ID feature `{f}` (expected xnack or sramecc)"),
        ));
    }
    if p.source.is_empty() {
        return Err(file_err(
            file,
            line_of("source:"),
            "`source` must name where the data came from",
        ));
    }
    Ok(())
}

impl Index {
    /// Indexes checked tables (from [`parse_files`]).
    pub(crate) fn new(processors: &[Processor], builtins: &[Builtin]) -> Index {
        let text = |s: &String| Text::Owned(s.clone());
        let texts = |v: &[String]| v.iter().map(text).collect::<Vec<_>>().into();
        let mut features: BTreeSet<&str> = ALWAYS_KNOWN.into_iter().collect();
        for p in processors {
            features.extend(p.features.iter().map(String::as_str));
        }
        let features: Vec<Text> = features.into_iter().map(|f| f.to_string().into()).collect();
        let bitset = |set: &BTreeSet<String>| {
            let mut bits = vec![0u64; features.len().div_ceil(64)];
            for f in set {
                if let Ok(i) = features.binary_search_by(|n| n.as_ref().cmp(f)) {
                    set_bit(&mut bits, i, true);
                }
            }
            bits.into()
        };
        let entries: Vec<ProcessorEntry> = processors
            .iter()
            .map(|p| ProcessorEntry {
                name: text(&p.name),
                aliases: texts(&p.aliases),
                generation: text(&p.generation),
                generic: p.generic,
                covers: texts(&p.covers),
                wavefront_sizes: p.wavefront_sizes.clone().into(),
                default_wavefront_size: p.default_wavefront_size,
                target_id_features: texts(&p.target_id_features),
                features: bitset(&p.features),
                source: p.source.iter().map(|(k, v)| (text(k), text(v))).collect(),
            })
            .collect();
        // parse_files checked the counts fit u32 and the names are unique.
        let mut names: Vec<(Text, u32)> = Vec::new();
        for (i, p) in processors.iter().enumerate() {
            for n in std::iter::once(&p.name).chain(&p.aliases) {
                names.push((text(n), i as u32));
            }
        }
        names.sort();
        let mut by_requirement: Vec<u32> = (0..builtins.len() as u32).collect();
        by_requirement.sort_by_key(|&i| (&builtins[i as usize].requires, i));
        Index {
            processors: entries.into(),
            names: names.into(),
            features: features.into(),
            builtins: builtins
                .iter()
                .map(|b| (text(&b.name), text(&b.requires)))
                .collect(),
            builtins_by_requirement: by_requirement.into(),
        }
    }
}

/// True when bit `i` of the feature bitset `bits` is set.
pub(crate) fn bit(bits: &[u64], i: usize) -> bool {
    bits[i / 64] & (1 << (i % 64)) != 0
}

/// Sets or clears bit `i` of the feature bitset `bits`.
pub(crate) fn set_bit(bits: &mut [u64], i: usize, on: bool) {
    if on {
        bits[i / 64] |= 1 << (i % 64);
    } else {
        bits[i / 64] &= !(1 << (i % 64));
    }
}

fn file_err(file: &str, line: Option<usize>, message: impl Into<String>) -> FileError {
    FileError {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

fn yaml_err(file: &str, e: serde_yaml::Error) -> FileError {
    let line = e.location().map(|l| l.line());
    let mut message = e.to_string();
    // serde_yaml appends " at line L column C"; the line is reported apart.
    if let Some(i) = message.find(" at line ") {
        message.truncate(i);
    }
    file_err(file, line, message)
}
