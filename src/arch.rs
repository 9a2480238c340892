//! The per-GPU arch tables: one YAML file per AMDGPU processor, plus
//! `builtins.yaml` (which builtin requires which feature expression).
//!
//! The files in the repository's `arch-tables/` are embedded at build time
//! ([`ArchTables::embedded`]); [`ArchTables::from_dir`] loads another set at
//! run time, so a new GPU needs a YAML file, not a rebuild. Schema errors name
//! the file and line. Tables are plain immutable data (`Send + Sync`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::error::{Error, Result};

include!(concat!(env!("OUT_DIR"), "/embedded_tables.rs"));

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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BuiltinsFile {
    source: BTreeMap<String, String>,
    builtins: Vec<Builtin>,
}

/// All processors and builtins the predicates are resolved against.
#[derive(Debug, Clone)]
pub struct ArchTables {
    processors: Vec<Processor>,
    by_name: HashMap<String, usize>,
    builtins: Vec<Builtin>,
    builtins_by_requirement: HashMap<String, Vec<usize>>,
}

impl ArchTables {
    /// The tables built into the library from the repository's `arch-tables/`.
    ///
    /// They are parsed on the first call and shared by every later call for
    /// the life of the process, so the reference is `'static` and targets
    /// resolved against it are `Target<'static>`: they can be stored anywhere
    /// without keeping the tables alongside.
    ///
    /// ```
    /// use rspv_specialize::{ArchTables, Target};
    /// let tables: &'static ArchTables = ArchTables::embedded();
    /// assert_eq!(tables.processors().len(), 61);
    /// assert_eq!(tables.processor("tahiti").unwrap().name, "gfx600");
    /// let kept: Target<'static> = tables.target("gfx950").unwrap();
    /// assert_eq!(kept.id(), "gfx950");
    /// ```
    pub fn embedded() -> &'static ArchTables {
        static EMBEDDED_TABLES: OnceLock<ArchTables> = OnceLock::new();
        EMBEDDED_TABLES.get_or_init(|| {
            let files = EMBEDDED
                .iter()
                .map(|(name, text)| (format!("<embedded>/{name}"), (*text).to_string()));
            // The embedded files are checked by this crate's tests; failing
            // here would be a build defect, not bad input.
            Self::from_files(files).expect("embedded arch tables are valid")
        })
    }

    /// Loads every `*.yaml` file in `dir`: one per processor, plus an optional
    /// `builtins.yaml`.
    ///
    /// ```
    /// use std::path::Path;
    /// use rspv_specialize::ArchTables;
    /// let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("arch-tables");
    /// let tables = ArchTables::from_dir(&dir).unwrap();
    /// assert_eq!(tables.processors(), ArchTables::embedded().processors());
    ///
    /// let missing = ArchTables::from_dir(Path::new("no/such/dir")).unwrap_err();
    /// assert!(missing.to_string().starts_with("no/such/dir: "));
    /// ```
    pub fn from_dir(dir: &Path) -> Result<ArchTables> {
        let io = |e: std::io::Error| Error::Io {
            path: dir.display().to_string(),
            message: e.to_string(),
        };
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map_err(io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        paths.sort();
        let mut files = Vec::with_capacity(paths.len());
        for p in paths {
            let text = std::fs::read_to_string(&p).map_err(|e| Error::Io {
                path: p.display().to_string(),
                message: e.to_string(),
            })?;
            files.push((p.display().to_string(), text));
        }
        Self::from_files(files)
    }

    /// Builds tables from `(file name, YAML text)` pairs. A file whose name
    /// ends in `builtins.yaml` is the builtins table; every other file is one
    /// processor.
    pub fn from_files(files: impl IntoIterator<Item = (String, String)>) -> Result<ArchTables> {
        let mut t = ArchTables {
            processors: Vec::new(),
            by_name: HashMap::new(),
            builtins: Vec::new(),
            builtins_by_requirement: HashMap::new(),
        };
        for (file, text) in files {
            if file.ends_with(BUILTINS_FILE) {
                let b: BuiltinsFile =
                    serde_yaml::from_str(&text).map_err(|e| yaml_err(&file, e))?;
                if b.source.is_empty() {
                    return Err(arch_err(
                        &file,
                        Some(1),
                        "`source` must name where the data came from",
                    ));
                }
                t.builtins = b.builtins;
            } else {
                let p: Processor = serde_yaml::from_str(&text).map_err(|e| yaml_err(&file, e))?;
                t.add(p, &file, &text)?;
            }
        }
        if t.processors.is_empty() {
            return Err(arch_err("(arch tables)", None, "no processor files found"));
        }
        for (i, b) in t.builtins.iter().enumerate() {
            t.builtins_by_requirement
                .entry(b.requires.clone())
                .or_default()
                .push(i);
        }
        Ok(t)
    }

    fn add(&mut self, p: Processor, file: &str, text: &str) -> Result<()> {
        let line_of = |key: &str, value: &str| {
            text.lines()
                .position(|l| l.trim_start().starts_with(key) && l.contains(value))
                .map(|i| i + 1)
        };
        if p.name.is_empty() {
            return Err(arch_err(file, line_of("name:", ""), "empty `name`"));
        }
        if p.wavefront_sizes.is_empty() || p.wavefront_sizes.iter().any(|w| *w != 32 && *w != 64) {
            return Err(arch_err(
                file,
                line_of("wavefront_sizes:", ""),
                "`wavefront_sizes` must list 32, 64 or both",
            ));
        }
        if !p.wavefront_sizes.contains(&p.default_wavefront_size) {
            return Err(arch_err(
                file,
                line_of("default_wavefront_size:", ""),
                "`default_wavefront_size` is not one of `wavefront_sizes`",
            ));
        }
        if let Some(f) = p
            .target_id_features
            .iter()
            .find(|f| *f != "xnack" && *f != "sramecc")
        {
            return Err(arch_err(
                file,
                line_of("target_id_features:", ""),
                format!("unknown target-ID feature `{f}` (expected xnack or sramecc)"),
            ));
        }
        if p.source.is_empty() {
            return Err(arch_err(
                file,
                line_of("source:", ""),
                "`source` must name where the data came from",
            ));
        }
        let idx = self.processors.len();
        for (key, n) in
            std::iter::once(("name:", &p.name)).chain(p.aliases.iter().map(|a| ("aliases:", a)))
        {
            if let Some(&other) = self.by_name.get(n.as_str()) {
                return Err(arch_err(
                    file,
                    line_of(key, n),
                    format!(
                        "`{n}` is already defined by processor {}",
                        self.processors[other].name
                    ),
                ));
            }
            self.by_name.insert(n.clone(), idx);
        }
        self.processors.push(p);
        Ok(())
    }

    /// All processors, in file-name order.
    pub fn processors(&self) -> &[Processor] {
        &self.processors
    }

    /// The processor with this canonical name or alias.
    pub fn processor(&self, name: &str) -> Option<&Processor> {
        self.processor_index(name).map(|i| &self.processors[i])
    }

    /// The index into [`ArchTables::processors`] of the processor with this
    /// canonical name or alias.
    pub(crate) fn processor_index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// All builtins of `builtins.yaml`.
    pub fn builtins(&self) -> &[Builtin] {
        &self.builtins
    }

    /// The builtins whose requirement is exactly `expr`.
    pub fn builtins_requiring(&self, expr: &str) -> impl Iterator<Item = &Builtin> {
        self.builtins_by_requirement
            .get(expr)
            .into_iter()
            .flatten()
            .map(|&i| &self.builtins[i])
    }

    /// Known names (canonical and aliases) closest to `name`, best first.
    pub fn closest_names(&self, name: &str) -> Vec<String> {
        let mut scored: Vec<(usize, &String)> = self
            .by_name
            .keys()
            .map(|k| (edit_distance(name, k), k))
            .collect();
        scored.sort();
        let best = scored.first().map(|s| s.0).unwrap_or(0);
        scored
            .into_iter()
            .filter(|(d, _)| *d <= best.max(1) + 1 && *d <= 4)
            .take(4)
            .map(|(_, k)| k.clone())
            .collect()
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn arch_err(file: &str, line: Option<usize>, message: impl Into<String>) -> Error {
    Error::ArchTable {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

fn yaml_err(file: &str, e: serde_yaml::Error) -> Error {
    let line = e.location().map(|l| l.line());
    let mut message = e.to_string();
    // serde_yaml appends " at line L column C"; the line is reported apart.
    if let Some(i) = message.find(" at line ") {
        message.truncate(i);
    }
    arch_err(file, line, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GFX: &str = "name: gfx1\naliases: [one]\ngeneration: gfx1\ngeneric: false\n\
        wavefront_sizes: [64]\ndefault_wavefront_size: 64\ntarget_id_features: []\n\
        features: [a]\nsource: {repository: test}\n";

    fn load(files: &[(&str, &str)]) -> Result<ArchTables> {
        ArchTables::from_files(files.iter().map(|(a, b)| (a.to_string(), b.to_string())))
    }

    #[test]
    fn embedded_tables_cover_every_reference_processor() {
        let t = ArchTables::embedded();
        assert_eq!(t.processors().len(), 61);
        assert_eq!(t.processor("tahiti").unwrap().name, "gfx600");
        assert!(t.processor("gfx9-4-generic").unwrap().generic);
        assert!(t.builtins().len() > 700);
    }

    #[test]
    fn unknown_key_names_file_and_line() {
        let text = format!("{GFX}colour: blue\n");
        let e = load(&[("x/gfx1.yaml", &text)]).unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("arch table x/gfx1.yaml:10:"), "{s}");
        assert!(s.contains("unknown field `colour`"), "{s}");
    }

    #[test]
    fn missing_field_is_an_error() {
        let text = GFX.replace("generation: gfx1\n", "");
        let e = load(&[("gfx1.yaml", &text)]).unwrap_err();
        assert!(e.to_string().contains("missing field `generation`"), "{e}");
    }

    #[test]
    fn duplicate_alias_names_file_and_line() {
        let other = GFX.replace("name: gfx1", "name: gfx2");
        let e = load(&[("a.yaml", GFX), ("b.yaml", &other)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "arch table b.yaml:2: `one` is already defined by processor gfx1"
        );
        let e = load(&[("a.yaml", GFX), ("b.yaml", GFX)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "arch table b.yaml:1: `gfx1` is already defined by processor gfx1"
        );
    }

    #[test]
    fn suggests_close_names() {
        let t = ArchTables::embedded();
        let s = t.closest_names("gfx95");
        assert!(s.contains(&"gfx950".to_string()), "{s:?}");
    }
}
