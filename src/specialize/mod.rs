//! Specializing a module for one target: the library's main entry point.
//!
//! The passes, in order (each in its own file):
//! 1. [`context`]: give every predicate call site its value; fold the
//!    module-scope chain (`OpSpecConstantOp` logic over predicates).
//! 2. [`scan`]: one linear pass over all function words to find which
//!    functions read a predicate, and the call graph.
//! 3. [`function`]: rewrite each function a predicate reaches (fold, drop
//!    dead arms, repair phis and merges); collect unresolved uses.
//! 4. [`sweep`]: remove functions only dead code called, the table and what
//!    only it used.
//! 5. [`emit`]: write the words; untouched functions are copied as ranges.
//!
//! A module without a predicate table comes back byte-identical.

mod context;
pub(crate) mod emit;
mod function;
mod report;
mod scan;
mod sweep;

use crate::fastmap::{Map as HashMap, Set as HashSet};

pub use report::Report;

use crate::error::{Error, Result, UnresolvedUse};
use crate::globals::Globals;
use crate::idset::IdSet;
use crate::inspect::Resolved;
use crate::module::{Endian, Module, bytes_from_words, words_from_bytes};
use crate::table::{self, PredicateTable};
use crate::target::Target;

use context::Context;

/// Options of a specialization run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {}

/// The result of [`specialize`]: the module and what was done to it.
#[derive(Debug, Clone)]
pub struct Specialized {
    words: Vec<u32>,
    endian: Endian,
    report: Report,
}

impl Specialized {
    /// The module's words, host order.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The module's bytes, in the input's byte order.
    pub fn bytes(&self) -> Vec<u8> {
        bytes_from_words(&self.words, self.endian)
    }

    /// What was resolved and removed.
    pub fn report(&self) -> &Report {
        &self.report
    }
}

/// Specializes a module given as bytes (either byte order; the output keeps
/// it) for `target`.
///
/// ```
/// use rspv_specialize::{ArchTables, specialize::{specialize, Options}};
/// let tables = ArchTables::embedded();
/// let target = tables.target("gfx950").unwrap();
/// let input = std::fs::read("tests/golden/direct-branch/input.spv").unwrap();
/// let out = specialize(&input, &target, &Options::default()).unwrap();
/// assert!(out.report().table_removed);
/// assert!(out.bytes().len() < input.len());
/// ```
pub fn specialize(bytes: &[u8], target: &Target<'_>, options: &Options) -> Result<Specialized> {
    let (words, endian) = words_from_bytes(bytes)?;
    let mut s = specialize_words(&words, target, options)?;
    s.endian = endian;
    Ok(s)
}

/// Specializes a module given as host-order words for `target`.
pub fn specialize_words(
    words: &[u32],
    target: &Target<'_>,
    _options: &Options,
) -> Result<Specialized> {
    let m = Module::parse(words)?;
    let g = Globals::scan(&m)?;
    let mut report = Report {
        target: target.id().to_string(),
        ..Report::default()
    };
    let Some(table) = table::read(&m, &g)? else {
        return Ok(Specialized {
            words: words.to_vec(),
            endian: Endian::Little,
            report,
        });
    };
    report.predicates = resolve(&table, target)?;
    let values: HashMap<u32, bool> = report
        .predicates
        .iter()
        .map(|r| (r.spec_id, r.value))
        .collect();
    let words = run(&m, &g, &table, &values, &mut report)?;
    Ok(Specialized {
        words,
        endian: Endian::Little,
        report,
    })
}

/// Values of every predicate for the target, in table order.
fn resolve(table: &PredicateTable, target: &Target<'_>) -> Result<Vec<Resolved>> {
    let inspection = crate::inspect::Inspection {
        has_table: true,
        predicates: table.predicates.clone(),
    };
    inspection.resolve(target)
}

/// The passes, for one set of predicate values.
fn run(
    m: &Module<'_>,
    g: &Globals,
    table: &PredicateTable,
    values: &HashMap<u32, bool>,
    report: &mut Report,
) -> Result<Vec<u32>> {
    let mut ctx = Context::new(m, g, table, values)?;
    let n = m.words.len();
    let function_ids: Vec<u32> = m.functions.iter().map(|f| f.id).collect();
    let functions = IdSet::new(function_ids.iter().copied(), n);
    let closure = sweep::table_closure(m, g, table);
    let watch = IdSet::new(closure.iter().copied(), n);
    let interest = scan::Interest::new(ctx.touch.clone(), functions.clone(), watch.clone(), n);

    // Scan, then rewrite what predicates reach.
    let mut before: HashMap<u32, Vec<u32>> = HashMap::default();
    let mut after: HashMap<u32, Vec<u32>> = HashMap::default();
    let mut roots: HashSet<u32> = HashSet::default();
    let mut rewritten: HashMap<u32, Vec<u32>> = HashMap::default();
    let mut mentions: HashMap<u32, Vec<u32>> = HashMap::default();
    let mut removed_ids: HashSet<u32> = HashSet::default();
    let mut bad: Vec<(u32, function::BadUse, HashMap<u32, crate::module::Inst>)> = Vec::new();
    for f in &m.functions {
        let facts = scan::scan_function(m, f, &interest)?;
        roots.extend(facts.fn_refs.iter().copied());
        before.insert(f.id, facts.callees.clone());
        if facts.touched {
            let name = g.function_name(f.id);
            let r = function::rewrite(m, &mut ctx, f.start, f.end, &name)?;
            report.branches_folded += r.branches_folded;
            report.selects_folded += r.selects_folded;
            report.phis_folded += r.phis_folded;
            report.blocks_removed += r.blocks_removed;
            report.functions_rewritten.push(name);
            removed_ids.extend(r.removed_ids.iter().copied());
            for b in r.bad_uses {
                bad.push((f.id, b, r.chain_defs.clone()));
            }
            after.insert(f.id, r.callees);
            let fwatch: Vec<u32> = r
                .words
                .iter()
                .copied()
                .filter(|x| watch.contains(*x))
                .collect();
            mentions.insert(f.id, fwatch);
            rewritten.insert(f.id, r.words);
        } else {
            after.insert(f.id, facts.callees);
            mentions.insert(f.id, facts.watched);
        }
    }
    for &ep in &g.entry_points {
        roots.insert(m.words[ep.at + 2]);
    }
    roots.extend(
        g.exported
            .iter()
            .copied()
            .filter(|id| functions.contains(*id)),
    );
    let dead = sweep::dead_functions(&function_ids, &roots, &before, &after);

    // Unresolved uses in what survives fail the run.
    let mut unresolved: Vec<UnresolvedUse> = Vec::new();
    for (inst, id) in &ctx.bad_uses {
        unresolved.push(describe(
            m,
            g,
            table,
            &ctx,
            None,
            None,
            *inst,
            *id,
            &HashMap::default(),
        ));
    }
    for (fid, b, defs) in &bad {
        if !dead.contains(fid) {
            unresolved.push(describe(
                m,
                g,
                table,
                &ctx,
                Some(*fid),
                Some(b.block),
                b.inst,
                b.value,
                defs,
            ));
        }
    }
    if !unresolved.is_empty() {
        return Err(Error::Unresolved(unresolved));
    }

    // Module scope: rewrite readers, then decide what goes.
    let global_rewrites = emit::rewrite_globals(m, &mut ctx);
    if ctx.next_id < m.bound() || (ctx.next_id == u32::MAX && !ctx.new_consts.is_empty()) {
        return Err(crate::error::binary(
            12,
            "no id left below 2^32 for a new constant",
        ));
    }
    for f in &m.functions {
        if dead.contains(&f.id) {
            report.functions_removed.push(g.function_name(f.id));
            removed_ids.insert(f.id);
            for inst in crate::module::insts(m.words, f.start, f.end) {
                if let Some(p) = crate::operands::result_pos(inst.opcode)
                    && let Some(&id) = m.words.get(inst.at + p)
                {
                    removed_ids.insert(id);
                }
            }
        }
    }
    for &site in ctx.site_value.keys() {
        if !ctx.repurposed.contains_key(&site) {
            removed_ids.insert(site);
        }
    }
    for (&id, v) in &ctx.module_chain {
        if matches!(v, context::Val::Const(_) | context::Val::Same(_)) {
            removed_ids.insert(id);
        }
    }
    let kept_mentions: HashSet<u32> = mentions
        .iter()
        .filter(|(f, _)| !dead.contains(f))
        .flat_map(|(_, v)| v.iter().copied())
        .collect();
    let table_ids =
        sweep::removable_table_ids(m, &closure, &removed_ids, &kept_mentions, table.variable);
    removed_ids.extend(table_ids);
    report.table_removed = true;
    report.functions_removed.sort();

    let plan = emit::Plan {
        removed_ids: &removed_ids,
        removed_functions: &dead,
        rewritten: &rewritten,
        global_rewrites: &global_rewrites,
    };
    Ok(emit::emit(m, &ctx, &plan))
}

/// Turns a bad use into the message parts people need.
#[allow(clippy::too_many_arguments)]
fn describe(
    m: &Module<'_>,
    g: &Globals,
    table: &PredicateTable,
    ctx: &Context<'_>,
    function: Option<u32>,
    block: Option<u32>,
    inst: crate::module::Inst,
    value: u32,
    local_defs: &HashMap<u32, crate::module::Inst>,
) -> UnresolvedUse {
    // Walk back from the value to the predicate sites behind it.
    let mut sites: Vec<u32> = Vec::new();
    let mut seen: HashSet<u32> = HashSet::default();
    let mut stack = vec![value];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        if ctx.site_value.contains_key(&id) {
            sites.push(id);
            continue;
        }
        let def = local_defs.get(&id).or_else(|| g.defs.get(&id));
        if let Some(d) = def {
            let w = m.inst_words(*d);
            let _ = crate::operands::for_each_id(w, d.byte_offset(), &|_| 1, &mut |pos, role| {
                if role == crate::operands::Role::Use {
                    stack.push(w[pos]);
                }
            });
        }
    }
    let mut predicates: Vec<(String, u32)> = table
        .predicates
        .iter()
        .filter(|p| p.sites.iter().any(|s| sites.contains(s)))
        .map(|p| (p.name.clone(), p.spec_id))
        .collect();
    predicates.sort_by_key(|p| p.1);
    UnresolvedUse {
        function: match function {
            Some(f) => g.function_name(f),
            None => "module scope".to_string(),
        },
        block: block.map(|b| g.display_id(b)),
        instruction: crate::disasm::text(m.inst_words(inst), g),
        offset: inst.byte_offset(),
        predicates,
    }
}
