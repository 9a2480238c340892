//! Target IDs and the value of each predicate for one target.
//!
//! A target ID is a processor (canonical name, legacy alias or `-generic`
//! name) with optional `:feature+` / `:feature-` modifiers for the target-ID
//! features the processor supports (`sramecc`, `xnack`). `is.X` compares
//! canonical processors, aliases resolved on both sides; a generic target is
//! its own processor. `has.EXPR` evaluates clang's feature expression over
//! the processor's feature map, with `wavefrontsize64` in place of
//! `wavefrontsize32` when wave64 is asked for on a dual-wave processor.

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use crate::arch::{ArchTables, Processor, ProcessorEntry, bit, set_bit};
use crate::error::{Error, Result};
use crate::feature_expr;

/// Choices that change a target's feature set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetOptions {
    /// Use wave64 on dual-wave processors (clang's `-mwavefrontsize64`).
    pub wave64: bool,
}

/// A resolved target: the processor, its target-ID modifiers and features.
///
/// A target refers to the tables it was resolved against, borrowed
/// (`Target<'t>`) or shared: [`ArchTables::embedded`] is `'static`, so its
/// targets are `Target<'static>`, and [`ArchTables::shared_target`] makes a
/// `Target<'static>` that holds an [`Arc`] of tables loaded at run time. Either
/// way a target can be stored next to (or without) its tables, and sent to
/// other threads.
///
/// ```
/// use std::sync::Arc;
/// use rspv_specialize::{ArchTables, Target, TargetOptions};
///
/// struct Loader {
///     target: Target<'static>,
/// }
/// let embedded = Loader { target: ArchTables::embedded().target("gfx942").unwrap() };
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("arch-tables");
/// let loaded = Arc::new(ArchTables::from_dir(&dir).unwrap());
/// let shared = Loader {
///     target: ArchTables::shared_target(&loaded, "tahiti", &TargetOptions::default()).unwrap(),
/// };
/// drop(loaded); // the target keeps the tables alive
/// assert_eq!(shared.target.processor().name, "gfx600");
/// assert_eq!(embedded.target.id(), "gfx942");
/// ```
#[derive(Debug, Clone)]
pub struct Target<'t> {
    tables: TablesRef<'t>,
    given: String,
    id: String,
    processor: usize,
    modifiers: Vec<(String, bool)>,
    /// The feature set as a bitset over the tables' feature list
    /// (`Index::features`): what `has.` evaluates against.
    features: Vec<u64>,
    /// The feature set by name, made on first [`Target::features`] call.
    feature_names: OnceLock<BTreeSet<String>>,
    wavefront_size: u32,
}

/// The tables a [`Target`] was resolved against: borrowed or shared.
#[derive(Debug, Clone)]
enum TablesRef<'t> {
    Borrowed(&'t ArchTables),
    Shared(Arc<ArchTables>),
}

impl TablesRef<'_> {
    fn get(&self) -> &ArchTables {
        match self {
            TablesRef::Borrowed(t) => t,
            TablesRef::Shared(t) => t,
        }
    }
}

/// The value of one predicate for one target, with a note when the module
/// names something the tables do not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    /// True or false.
    pub value: bool,
    /// Why the value may surprise (unknown processor or feature), if it may.
    pub note: Option<String>,
}

/// The kind of a predicate, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredicateKind {
    /// `is.<processor>`: `__builtin_amdgcn_processor_is`.
    Is,
    /// `has.<expr>`: `__builtin_amdgcn_is_invocable`.
    Has,
}

impl PredicateKind {
    /// Splits a table name into its kind and the text after the prefix.
    pub fn split(name: &str) -> Option<(PredicateKind, &str)> {
        if let Some(rest) = name.strip_prefix("is.") {
            Some((PredicateKind::Is, rest))
        } else {
            name.strip_prefix("has.")
                .map(|rest| (PredicateKind::Has, rest))
        }
    }

    /// `"is"` or `"has"`.
    pub fn as_str(self) -> &'static str {
        match self {
            PredicateKind::Is => "is",
            PredicateKind::Has => "has",
        }
    }
}

/// Splits a target ID into its processor (an index into the tables'
/// processors) and its modifiers.
fn parse_target_id(tables: &ArchTables, id: &str) -> Result<(usize, Vec<(String, bool)>)> {
    let mut parts = id.split(':');
    let name = parts.next().unwrap_or("");
    let index = tables
        .processor_index(name)
        .ok_or_else(|| Error::UnknownTarget {
            target: id.to_string(),
            suggestions: tables.closest_names(name),
        })?;
    let processor = &tables.index().processors[index];
    let bad = |message: String| Error::BadTarget {
        target: id.to_string(),
        message,
    };
    let mut modifiers: Vec<(String, bool)> = Vec::new();
    for m in parts {
        let (feature, on) = match m.strip_suffix('+') {
            Some(f) => (f, true),
            None => match m.strip_suffix('-') {
                Some(f) => (f, false),
                None => {
                    return Err(bad(format!(
                        "modifier `{m}` must end in `+` or `-` (e.g. `xnack+`)"
                    )));
                }
            },
        };
        if !processor.target_id_features.iter().any(|f| f == feature) {
            let supported = if processor.target_id_features.is_empty() {
                "none".to_string()
            } else {
                processor.target_id_features.join(", ")
            };
            return Err(bad(format!(
                "{} does not support the target-ID feature `{feature}` (supported: {supported})",
                processor.name
            )));
        }
        if modifiers.iter().any(|(f, _)| f == feature) {
            return Err(bad(format!("`{feature}` is given twice")));
        }
        modifiers.push((feature.to_string(), on));
    }
    Ok((index, modifiers))
}

impl ArchTables {
    /// Resolves a target ID with default options.
    ///
    /// ```
    /// use rspv_specialize::{ArchTables, Error};
    /// let tables = ArchTables::embedded();
    /// let t = tables.target("gfx90a:xnack+").unwrap();
    /// assert_eq!(t.processor().name, "gfx90a");
    /// assert!(t.features().contains("xnack"));
    /// assert_eq!(tables.target("tahiti").unwrap().id(), "gfx600");
    /// assert!(matches!(tables.target("gfx9999"), Err(Error::UnknownTarget { .. })));
    /// ```
    pub fn target(&self, id: &str) -> Result<Target<'_>> {
        self.target_with(id, &TargetOptions::default())
    }

    /// Resolves a target ID. Unknown processors are an error suggesting the
    /// closest names; a modifier the processor does not support is an error;
    /// wave64 on a wave32-only processor is an error.
    ///
    /// ```
    /// use rspv_specialize::{ArchTables, TargetOptions};
    /// let tables = ArchTables::embedded();
    /// let wave64 = TargetOptions { wave64: true };
    /// let t = tables.target_with("gfx1100", &wave64).unwrap();
    /// assert!(t.features().contains("wavefrontsize64"));
    /// assert!(tables.target_with("gfx1250", &wave64).is_err());
    /// ```
    pub fn target_with(&self, id: &str, options: &TargetOptions) -> Result<Target<'_>> {
        resolve(TablesRef::Borrowed(self), id, options)
    }

    /// Resolves a target ID against shared tables: the target holds its own
    /// reference to them, so it is `'static` and can be kept anywhere (see
    /// [`Target`]). Errors as [`ArchTables::target_with`].
    pub fn shared_target(
        tables: &Arc<ArchTables>,
        id: &str,
        options: &TargetOptions,
    ) -> Result<Target<'static>> {
        resolve(TablesRef::Shared(Arc::clone(tables)), id, options)
    }
}

/// Resolves a target ID against `tables` (see [`ArchTables::target_with`]).
fn resolve<'t>(tables: TablesRef<'t>, id: &str, options: &TargetOptions) -> Result<Target<'t>> {
    let (index, modifiers) = parse_target_id(tables.get(), id)?;
    let table_index = tables.get().index();
    let processor: &ProcessorEntry = &table_index.processors[index];
    let mut features = processor.features.to_vec();
    // The wave and target-ID features are always in the feature list.
    let mut set = |name: &str, on: bool| {
        if let Some(i) = table_index.feature_bit(name) {
            set_bit(&mut features, i, on);
        }
    };
    let mut wavefront_size = processor.default_wavefront_size;
    if options.wave64 {
        let sizes = &processor.wavefront_sizes;
        if sizes.contains(&32) && sizes.contains(&64) {
            set("wavefrontsize32", false);
            set("wavefrontsize64", true);
        } else if !sizes.contains(&64) {
            return Err(Error::BadTarget {
                target: id.to_string(),
                message: format!("{} supports wave32 only", processor.name),
            });
        }
        wavefront_size = 64;
    }
    for (f, on) in &modifiers {
        if *on {
            set(f, true);
        }
    }
    let mut canonical = processor.name.to_string();
    for (f, on) in &modifiers {
        canonical.push_str(&format!(":{f}{}", if *on { '+' } else { '-' }));
    }
    Ok(Target {
        tables,
        given: id.to_string(),
        id: canonical,
        processor: index,
        modifiers,
        features,
        feature_names: OnceLock::new(),
        wavefront_size,
    })
}

impl Target<'_> {
    /// The canonical target ID (aliases resolved, modifiers as given):
    /// `gfx600` for `tahiti`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The target ID as it was given (`tahiti`), for messages and file names.
    pub fn given(&self) -> &str {
        &self.given
    }

    /// The processor.
    pub fn processor(&self) -> &Processor {
        &self.tables.get().processors()[self.processor]
    }

    /// The processor's canonical name (`gfx600` for `tahiti`): the name of
    /// [`Target::processor`], without making the tables' owned processors.
    pub fn processor_name(&self) -> &str {
        &self.tables.get().index().processors[self.processor].name
    }

    /// The wavefront size the target runs with: 64 when wave64 was asked for
    /// (or the processor runs only wave64), else the processor's default.
    pub fn wavefront_size(&self) -> u32 {
        self.wavefront_size
    }

    /// The feature set `has.` expressions are evaluated against.
    pub fn features(&self) -> &BTreeSet<String> {
        self.feature_names.get_or_init(|| {
            let index = self.tables.get().index();
            (0..index.features.len())
                .filter(|&i| self.has_bit(i))
                .map(|i| index.features[i].to_string())
                .collect()
        })
    }

    /// True when the target has the feature of bit `i`.
    fn has_bit(&self, i: usize) -> bool {
        bit(&self.features, i)
    }

    /// The value of the predicate named `name` (`is.X` or `has.EXPR`) for
    /// this target. Errors only for names that are neither, or malformed
    /// expressions.
    ///
    /// ```
    /// use rspv_specialize::ArchTables;
    /// let tables = ArchTables::embedded();
    /// let gfx942 = tables.target("gfx942").unwrap();
    /// assert!(gfx942.evaluate("has.mai-insts").unwrap().value);
    /// assert!(!gfx942.evaluate("is.gfx950").unwrap().value);
    /// let unknown = gfx942.evaluate("is.gfx9999").unwrap();
    /// assert!(!unknown.value && unknown.note.is_some());
    /// assert!(gfx942.evaluate("mai-insts").is_err());
    /// ```
    pub fn evaluate(&self, name: &str) -> std::result::Result<Evaluation, String> {
        match PredicateKind::split(name) {
            Some((PredicateKind::Is, what)) => Ok(self.evaluate_is(what)),
            Some((PredicateKind::Has, expr)) => self.evaluate_has(expr),
            None => Err(format!(
                "predicate name `{name}` starts with neither `is.` nor `has.`"
            )),
        }
    }

    fn evaluate_is(&self, what: &str) -> Evaluation {
        match parse_target_id(self.tables.get(), what) {
            Ok((p, mods)) => {
                let same = p == self.processor && mods.iter().all(|m| self.modifiers.contains(m));
                Evaluation {
                    value: same,
                    note: None,
                }
            }
            Err(Error::UnknownTarget { .. }) => Evaluation {
                value: false,
                note: Some(format!(
                    "processor `{what}` is not in the arch tables (a newer compiler?): false"
                )),
            },
            Err(e) => Evaluation {
                value: false,
                note: Some(format!("{e}: false")),
            },
        }
    }

    fn evaluate_has(&self, expr: &str) -> std::result::Result<Evaluation, String> {
        let unknown = std::cell::RefCell::new(Vec::<String>::new());
        // One binary search per name: the tables' feature list holds every
        // feature any processor has, plus the wave and target-ID features.
        let index = self.tables.get().index();
        let value = feature_expr::evaluate(expr, &|f| match index.feature_bit(f) {
            Some(i) => self.has_bit(i),
            None => {
                unknown.borrow_mut().push(f.to_string());
                false
            }
        })
        .map_err(|e| format!("feature expression `{expr}`: {e}"))?;
        let unknown = unknown.into_inner();
        let note = (!unknown.is_empty()).then(|| {
            format!(
                "feature(s) {} not in any processor's table (a newer compiler?): absent",
                unknown.join(", ")
            )
        });
        Ok(Evaluation { value, note })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(target: &str, name: &str) -> bool {
        let t = ArchTables::embedded();
        t.target(target).unwrap().evaluate(name).unwrap().value
    }

    #[test]
    fn processor_is_resolves_aliases_both_sides() {
        assert!(val("gfx600", "is.tahiti"));
        assert!(val("tahiti", "is.gfx600"));
        assert!(!val("gfx601", "is.tahiti"));
        assert!(val("gfx950:sramecc+:xnack-", "is.gfx950"));
    }

    #[test]
    fn processor_is_with_target_id_modifiers() {
        // `is.X:f±` holds when the processor matches and the target was
        // given the same modifier.
        assert!(val("gfx90a:xnack+", "is.gfx90a:xnack+"));
        assert!(!val("gfx90a:xnack-", "is.gfx90a:xnack+"));
        assert!(!val("gfx90a", "is.gfx90a:xnack+"));
        assert!(val("gfx90a:xnack+", "is.gfx90a"));
        // A modifier the named processor does not support is false, noted.
        let t = ArchTables::embedded();
        let e = t
            .target("gfx1100")
            .unwrap()
            .evaluate("is.gfx1100:xnack+")
            .unwrap();
        assert!(!e.value);
        assert!(e.note.unwrap().contains("xnack"));
    }

    #[test]
    fn generic_is_its_own_processor() {
        assert!(!val("gfx9-4-generic", "is.gfx942"));
        assert!(val("gfx9-4-generic", "is.gfx9-4-generic"));
        assert!(!val("gfx942", "is.gfx9-4-generic"));
    }

    #[test]
    fn unknown_processor_is_false_with_note() {
        let t = ArchTables::embedded();
        let e = t.target("gfx950").unwrap().evaluate("is.gfx9999").unwrap();
        assert!(!e.value);
        assert!(e.note.unwrap().contains("gfx9999"));
    }

    #[test]
    fn has_uses_the_feature_map() {
        assert!(val("gfx950", "has.mai-insts"));
        assert!(val("gfx908", "has.mai-insts"));
        assert!(!val("gfx1100", "has.mai-insts"));
        assert!(val("gfx950", "has.gfx950-insts"));
        assert!(!val("gfx942", "has.gfx950-insts"));
        assert!(val("gfx1100", "has.wmma-256b-insts,wavefrontsize32"));
        assert!(!val("gfx1201", "has.wmma-256b-insts,wavefrontsize32"));
        assert!(val("gfx1100", "has."));
        assert!(val("gfx600", "has."));
    }

    #[test]
    fn wave64_swaps_the_wave_feature() {
        let t = ArchTables::embedded();
        let o = TargetOptions { wave64: true };
        let g = t.target_with("gfx1100", &o).unwrap();
        assert!(
            !g.evaluate("has.wmma-256b-insts,wavefrontsize32")
                .unwrap()
                .value
        );
        assert!(
            g.evaluate("has.wmma-256b-insts,wavefrontsize64")
                .unwrap()
                .value
        );
        assert!(t.target_with("gfx1250", &o).is_err());
        assert!(t.target_with("gfx950", &o).is_ok());
    }

    #[test]
    fn feature_bitset_matches_the_processor_feature_maps() {
        // For every processor, wave choice and modifier: the feature set by
        // name is the processor's map with the wave swap and the `+`
        // modifiers, and `has.F` is true exactly for its members.
        let t = ArchTables::embedded();
        let every: BTreeSet<&str> = t
            .processors()
            .iter()
            .flat_map(|p| p.features.iter().map(String::as_str))
            .chain(["wavefrontsize32", "wavefrontsize64", "xnack", "sramecc"])
            .collect();
        for p in t.processors() {
            let mut ids = vec![p.name.clone()];
            ids.extend(
                p.target_id_features
                    .iter()
                    .map(|f| format!("{}:{f}+", p.name)),
            );
            ids.extend(
                p.target_id_features
                    .iter()
                    .map(|f| format!("{}:{f}-", p.name)),
            );
            for id in &ids {
                for wave64 in [false, true] {
                    let Ok(target) = t.target_with(id, &TargetOptions { wave64 }) else {
                        assert!(wave64 && !p.wavefront_sizes.contains(&64), "{id}");
                        continue;
                    };
                    let mut want = p.features.clone();
                    if wave64 && p.is_dual_wave() {
                        want.remove("wavefrontsize32");
                        want.insert("wavefrontsize64".to_string());
                    }
                    if let Some(f) = id.split(':').nth(1).and_then(|m| m.strip_suffix('+')) {
                        want.insert(f.to_string());
                    }
                    assert_eq!(target.features(), &want, "{id} wave64 {wave64}");
                    assert_eq!(target.processor_name(), p.name);
                    for f in &every {
                        let e = target.evaluate(&format!("has.{f}")).unwrap();
                        assert_eq!(e.value, want.contains(*f), "{id} wave64 {wave64}: {f}");
                        assert_eq!(e.note, None, "{f} is known");
                    }
                }
            }
        }
    }

    #[test]
    fn bad_targets() {
        let t = ArchTables::embedded();
        match t.target("gfx95").unwrap_err() {
            Error::UnknownTarget { suggestions, .. } => {
                assert!(suggestions.contains(&"gfx950".to_string()))
            }
            e => panic!("{e}"),
        }
        let e = t.target("gfx1100:xnack+").unwrap_err().to_string();
        assert!(
            e.contains("does not support the target-ID feature `xnack`"),
            "{e}"
        );
        let e = t.target("gfx90a:xnack").unwrap_err().to_string();
        assert!(e.contains("must end in `+` or `-`"), "{e}");
        let e = t.target("gfx90a:xnack+:xnack-").unwrap_err().to_string();
        assert!(e.contains("given twice"), "{e}");
    }

    #[test]
    fn unknown_feature_is_absent_with_note() {
        let t = ArchTables::embedded();
        let e = t
            .target("gfx950")
            .unwrap()
            .evaluate("has.quantum-insts")
            .unwrap();
        assert!(!e.value);
        assert!(e.note.unwrap().contains("quantum-insts"));
    }
}
