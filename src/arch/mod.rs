//! The per-GPU arch tables: one YAML file per AMDGPU processor, plus
//! `builtins.yaml` (which builtin requires which feature expression).
//!
//! The files in the repository's `arch-tables/` are compiled into the
//! library at build time ([`ArchTables::embedded`]: statics, nothing is parsed
//! at run time); [`ArchTables::from_dir`] loads another set at run time, so a
//! new GPU needs a YAML file, not a rebuild. Both are read by the same code
//! (`src/arch/schema.rs`, which `build.rs` includes). Schema errors name the
//! file and line. Tables are plain immutable data (`Send + Sync`).
//!
//! Lookups (names, feature sets, builtins by requirement) go through an
//! index of sorted lists and bitsets; the owned [`Processor`] and [`Builtin`]
//! values of [`ArchTables::processors`] and [`ArchTables::builtins`] are
//! made on first use, so resolving a target and evaluating predicates never
//! builds them.

use std::path::Path;
use std::sync::OnceLock;

mod schema;

pub use schema::{BUILTINS_FILE, Builtin, Processor};
pub(crate) use schema::{Index, ProcessorEntry, bit, set_bit};

use crate::error::{Error, Result};

/// The embedded tables: `arch-tables/*.yaml` as compiled by `build.rs`.
static EMBEDDED: ArchTables = ArchTables {
    index: include!(concat!(env!("OUT_DIR"), "/embedded_tables.rs")),
    processors: OnceLock::new(),
    builtins: OnceLock::new(),
};

/// All processors and builtins the predicates are resolved against.
#[derive(Debug, Clone)]
pub struct ArchTables {
    /// What lookups use.
    index: Index,
    /// The owned processors, made from `index` on first use.
    processors: OnceLock<Vec<Processor>>,
    /// The owned builtins, made from `index` on first use.
    builtins: OnceLock<Vec<Builtin>>,
}

impl ArchTables {
    /// The tables built into the library from the repository's `arch-tables/`.
    ///
    /// They are compiled into the binary, so this costs nothing, the
    /// reference is `'static`, and targets resolved against it are
    /// `Target<'static>`: they can be stored anywhere without keeping the
    /// tables alongside.
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
        &EMBEDDED
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
        let (processors, builtins) = schema::parse_files(files).map_err(|e| Error::ArchTable {
            file: e.file,
            line: e.line,
            message: e.message,
        })?;
        Ok(ArchTables {
            index: Index::new(&processors, &builtins),
            processors: OnceLock::from(processors),
            builtins: OnceLock::from(builtins),
        })
    }

    /// The index lookups use.
    pub(crate) fn index(&self) -> &Index {
        &self.index
    }

    /// All processors, in file-name order.
    pub fn processors(&self) -> &[Processor] {
        self.processors.get_or_init(|| {
            let features = &self.index.features;
            self.index
                .processors
                .iter()
                .map(|e| e.to_processor(features))
                .collect()
        })
    }

    /// The canonical names of all processors, in file-name order (the
    /// order of [`ArchTables::processors`]), without making the owned
    /// [`Processor`] values: what a caller needs to resolve every target.
    ///
    /// ```
    /// use rspv_specialize::ArchTables;
    /// let tables = ArchTables::embedded();
    /// let names: Vec<&str> = tables.processor_names().collect();
    /// assert_eq!(names.len(), 61);
    /// assert!(names.iter().zip(tables.processors()).all(|(n, p)| *n == p.name));
    /// ```
    pub fn processor_names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.index.processors.iter().map(|e| e.name.as_ref())
    }

    /// The processor with this canonical name or alias.
    pub fn processor(&self, name: &str) -> Option<&Processor> {
        self.processor_index(name).map(|i| &self.processors()[i])
    }

    /// The index into [`ArchTables::processors`] of the processor with this
    /// canonical name or alias.
    pub(crate) fn processor_index(&self, name: &str) -> Option<usize> {
        let names = &self.index.names;
        names
            .binary_search_by(|(n, _)| n.as_ref().cmp(name))
            .ok()
            .map(|i| names[i].1 as usize)
    }

    /// All builtins of `builtins.yaml`.
    pub fn builtins(&self) -> &[Builtin] {
        self.builtins.get_or_init(|| {
            self.index
                .builtins
                .iter()
                .map(|(name, requires)| Builtin {
                    name: name.to_string(),
                    requires: requires.to_string(),
                })
                .collect()
        })
    }

    /// The builtins whose requirement is exactly `expr`.
    pub fn builtins_requiring(&self, expr: &str) -> impl Iterator<Item = &Builtin> {
        let index = &self.index;
        let requirement = |i: &u32| index.builtins[*i as usize].1.as_ref();
        let sorted = &index.builtins_by_requirement;
        let start = sorted.partition_point(|i| requirement(i) < expr);
        let end = start + sorted[start..].partition_point(|i| requirement(i) == expr);
        let builtins = if start < end { self.builtins() } else { &[] };
        sorted[start..end].iter().map(|&i| &builtins[i as usize])
    }

    /// Known names (canonical and aliases) closest to `name`, best first.
    pub fn closest_names(&self, name: &str) -> Vec<String> {
        let mut scored: Vec<(usize, &str)> = self
            .index
            .names
            .iter()
            .map(|(k, _)| (edit_distance(name, k), k.as_ref()))
            .collect();
        scored.sort();
        let best = scored.first().map(|s| s.0).unwrap_or(0);
        scored
            .into_iter()
            .filter(|(d, _)| *d <= best.max(1) + 1 && *d <= 4)
            .take(4)
            .map(|(_, k)| k.to_string())
            .collect()
    }
}

impl Index {
    /// The position of `feature` in [`Index::features`] (its bit in feature
    /// bitsets), if any processor has it or it is always known.
    pub(crate) fn feature_bit(&self, feature: &str) -> Option<usize> {
        self.features
            .binary_search_by(|n| n.as_ref().cmp(feature))
            .ok()
    }
}

impl ProcessorEntry {
    /// The owned [`Processor`], feature names from `features`.
    fn to_processor(&self, features: &[schema::Text]) -> Processor {
        let strings = |v: &[schema::Text]| v.iter().map(|s| s.to_string()).collect();
        Processor {
            name: self.name.to_string(),
            aliases: strings(&self.aliases),
            generation: self.generation.to_string(),
            generic: self.generic,
            covers: strings(&self.covers),
            wavefront_sizes: self.wavefront_sizes.to_vec(),
            default_wavefront_size: self.default_wavefront_size,
            target_id_features: strings(&self.target_id_features),
            features: features
                .iter()
                .enumerate()
                .filter(|(i, _)| schema::bit(&self.features, *i))
                .map(|(_, f)| f.to_string())
                .collect(),
            source: self
                .source
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
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
    fn embedded_tables_equal_the_yaml_loaded_at_run_time() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("arch-tables");
        let loaded = ArchTables::from_dir(&dir).unwrap();
        let embedded = ArchTables::embedded();
        assert_eq!(embedded.index(), loaded.index());
        // The owned views: made from the index for the embedded tables,
        // parsed from the YAML for the loaded ones.
        assert_eq!(embedded.processors(), loaded.processors());
        assert_eq!(embedded.builtins(), loaded.builtins());
        for b in loaded.builtins() {
            let listed: Vec<&Builtin> = embedded.builtins_requiring(&b.requires).collect();
            assert!(listed.contains(&b), "{} under {:?}", b.name, b.requires);
            assert!(listed.iter().all(|l| l.requires == b.requires));
        }
    }

    #[test]
    fn builtins_requiring_lists_exactly_that_requirement_in_file_order() {
        let t = ArchTables::embedded();
        for expr in ["", "mai-insts", "gfx1250-insts", "no-such-expression"] {
            let expected: Vec<&Builtin> =
                t.builtins().iter().filter(|b| b.requires == expr).collect();
            let listed: Vec<&Builtin> = t.builtins_requiring(expr).collect();
            assert_eq!(listed, expected, "{expr:?}");
        }
        assert!(t.builtins_requiring("mai-insts").count() > 0);
    }

    #[test]
    fn alias_repeating_its_own_name_is_an_error() {
        let text = GFX.replace("aliases: [one]", "aliases: [gfx1]");
        let e = load(&[("a.yaml", &text)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "arch table a.yaml:2: `gfx1` is already defined by processor gfx1"
        );
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
