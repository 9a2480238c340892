//! Laying down the specialized module: module-scope instructions with
//! removed definitions, their names and decorations and the table's
//! entry-point interface slots left out, predicate uses rewritten to
//! constants; then the functions. Every instruction not named here keeps
//! its exact words, as a range of the input ([`Pieces`]): only changed
//! instructions and rewritten functions have words of their own.
//! `Globals::scan` has checked that every module-scope instruction holds
//! the operands its grammar requires.

use std::ops::Range;

use crate::globals::{DEC_SPEC_ID, Globals};
use crate::idbits::IdBits;
use crate::idset::IdSet;
use crate::module::{HEADER_WORDS, Inst, Module, header_word, literal_string_words, push_inst};
use crate::operands::{Role, Shape, for_each_id, is_annotation, op, result_pos, shapes};
use crate::parallel;

use super::context::Context;
use super::output::Pieces;

/// What to leave out or replace.
pub(super) struct Plan<'p> {
    /// Ids whose definitions, names and decorations go.
    pub removed_ids: &'p IdBits,
    /// What becomes of the `k`th function of the module (asked at most
    /// once per function, in module order).
    pub fate: &'p dyn Fn(usize) -> Fate,
    /// The functions whose fate may be other than [`Fate::Kept`]; `None`
    /// when any may be. The words of the others are taken in runs, without
    /// asking.
    pub changed: Option<Changed<'p>>,
    /// New words of module-scope instructions whose operands changed, by
    /// index into `Module::globals`, in that order.
    pub global_rewrites: &'p [(usize, Vec<u32>)],
    /// The entry points laid down once for all groups of a batch, if it
    /// made them.
    pub entry_points: Option<&'p EntryPoints>,
}

/// The module's run of `OpEntryPoint`s laid down once for all groups of a
/// batch: each group removes the table variable from every entry point's
/// interface, the same words in every group (the 1 MB benchmark module
/// has 2,040 entry points). A group whose removed ids among the
/// interfaces' are the ones assumed here copies the words; any other
/// lays the entry points down one by one. With them, the runs of
/// instructions after them that every group leaves out alike.
pub(super) struct EntryPoints {
    /// Index into `Module::globals` of the first, and how many there are.
    first: usize,
    count: usize,
    /// Runs of module-scope instructions after the entry points, by index
    /// into `Module::globals`, in order, that every group leaves out
    /// whatever its values: the `SpecId` decorations of predicate sites
    /// ([`ModuleScope::lay_down`] drops each), one a site (the 1 MB
    /// benchmark module has 1,836, in one run). Passed over without a
    /// look.
    dropped: Vec<Range<usize>>,
    /// Every id of their interfaces, sorted, each once, and whether the
    /// words assume it removed: the table's closure is.
    assumed: Vec<(u32, bool)>,
    /// Their words.
    words: Vec<u32>,
}

impl EntryPoints {
    /// Lays down the first run of `OpEntryPoint`s of `m` (`g`, its module
    /// scope facts) assuming that what goes of their interfaces is the
    /// table's `closure`; `None` when the run is too short to pay.
    pub(super) fn new(
        m: &Module<'_>,
        g: &Globals,
        closure: &[u32],
        sites: &IdSet,
    ) -> Option<EntryPoints> {
        // Fewer entry points cost less one by one than checking the
        // assumption. (Test and fuzz builds lay down even one this way,
        // so that their batches check it against one target at a time.)
        let fewest = if cfg!(any(debug_assertions, fuzzing)) {
            1
        } else {
            64
        };
        let first = m.globals().position(|inst| inst.opcode == op::EntryPoint)?;
        let count = (first..m.global_count())
            .take_while(|&k| m.global(k).opcode == op::EntryPoint)
            .count();
        if count < fewest {
            return None;
        }
        let closure = IdSet::new(closure.iter().copied(), m.words.len());
        let mut words = Vec::new();
        let mut assumed = Vec::new();
        for j in 0..count {
            let inst = m.global(first + j);
            let w = m.inst_words(inst);
            let n = entry_name_words(m, g, j, inst);
            let interface = &w[3 + n..];
            assumed.extend(interface.iter().map(|&x| (x, closure.contains(x))));
            // (The same words when none of the closure is in the
            // interface.)
            push_entry_point(w, n, |x| closure.contains(x), &mut words);
        }
        assumed.sort_unstable();
        assumed.dedup();
        Some(EntryPoints {
            first,
            count,
            dropped: dropped_runs(m, g, sites, first + count),
            assumed,
            words,
        })
    }

    /// True when the interface ids `removed` holds are the ones assumed.
    fn hold_for(&self, removed: &IdBits) -> bool {
        (self.assumed.iter()).all(|&(x, gone)| removed.contains(x) == gone)
    }
}

/// The runs of `SpecId` decorations of `sites` (the predicate sites)
/// among `m`'s module-scope instructions from the `from`-th on, by index
/// into `Module::globals`, in order: what [`EntryPoints::dropped`] holds.
fn dropped_runs(m: &Module<'_>, g: &Globals, sites: &IdSet, from: usize) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    let places = (g.spec_ids.iter())
        .filter(|d| sites.contains(d.target))
        .filter_map(|d| m.global_at(d.byte_offset() / 4))
        .filter(|&k| k >= from);
    for k in places {
        match runs.last_mut() {
            Some(run) if run.end == k => run.end += 1,
            _ => runs.push(k..k + 1),
        }
    }
    runs
}

/// Appends to `own` the entry point `w` (its name `n` words) without the
/// interface ids that go (`gone`), its first word fixed.
#[inline(always)]
fn push_entry_point(w: &[u32], n: usize, gone: impl Fn(u32) -> bool, own: &mut Vec<u32>) {
    let at = own.len();
    own.extend_from_slice(&w[..3 + n]);
    for &t in &w[3 + n..] {
        if !gone(t) {
            own.push(t);
        }
    }
    own[at] = header_word(own.len() - at, op::EntryPoint);
}

/// The words of the name of the `j`th entry point of `m`, `inst`, as the
/// module-scope scan found them (`g`), or counted again.
fn entry_name_words(m: &Module<'_>, g: &Globals, j: usize, inst: Inst) -> usize {
    let n = match g.entry_name_words.get(j) {
        Some(&n) if n != 0 => n as usize,
        _ => literal_string_words(m.words, inst.at + 3, inst.end()).unwrap_or(0),
    };
    debug_assert_eq!(
        Some(n),
        literal_string_words(m.words, inst.at + 3, inst.end()),
        "the entry points' name lengths are in module order"
    );
    n
}

/// The functions whose fate may be other than [`Fate::Kept`], by index in
/// the module: those rewritten and those that go.
pub(super) struct Changed<'p> {
    /// The rewritten ones, in order.
    pub rewritten: &'p [u32],
    /// Whether each goes.
    pub dead: &'p [bool],
}

/// What becomes of one function.
pub(super) enum Fate {
    /// Its words stay as they are.
    Kept,
    /// It goes.
    Removed,
    /// Its new words are the edit list at this range of the [`Pieces`]
    /// that [`emit`] is given ([`Pieces::add_function`]).
    Rewritten(Range<usize>),
}

/// Rewrites module-scope instructions that read predicates or folded
/// module-scope values, returning new words by global index. Run before
/// [`emit`], so that every replacement constant is chosen first.
pub(super) fn rewrite_globals(m: &Module<'_>, ctx: &mut Context<'_>) -> Vec<(usize, Vec<u32>)> {
    let mut out = Vec::new();
    let mut positions = Vec::new();
    for &k in ctx.readers {
        let inst = m.global(k);
        if is_annotation(inst.opcode) {
            continue;
        }
        let w = m.inst_words(inst);
        // Only an operand that may be replaced can change.
        let result = result_pos(inst.opcode);
        if !w
            .iter()
            .enumerate()
            .skip(1)
            .any(|(pos, &x)| Some(pos) != result && ctx.may_replace(x))
        {
            continue;
        }
        positions.clear();
        let _ = for_each_id(w, inst.byte_offset(), &|_| 1, &mut |pos, role| {
            if role == Role::Use {
                positions.push(pos);
            }
        });
        let mut new: Option<Vec<u32>> = None;
        for &pos in &positions {
            if let Some(r) = ctx.global_replacement(w[pos]) {
                new.get_or_insert_with(|| w.to_vec())[pos] = r;
            }
        }
        if let Some(new) = new {
            out.push((k, new));
        }
    }
    out.sort_unstable_by_key(|(k, _)| *k);
    out
}

/// Lays down the output's words; `out` already holds the rewritten
/// functions' edit lists (see [`Fate::Rewritten`]): the header, every
/// module-scope instruction ([`ModuleScope::lay_down`]), then the functions.
pub(super) fn emit(m: &Module<'_>, ctx: &Context<'_>, plan: &Plan<'_>, out: &mut Pieces) {
    let words = m.words;
    let start = out.own().len();
    out.own().extend_from_slice(&words[..HEADER_WORDS]);
    out.own()[start + 3] = words[3].max(ctx.constants.next_id);
    out.own_since(start);
    let mut scope = ModuleScope {
        m,
        ctx,
        removed: plan.removed_ids,
        global_rewrites: plan.global_rewrites,
        next_rewrite: 0,
        next_entry: 0,
        shapes: shapes(),
    };
    match plan.entry_points.filter(|e| e.hold_for(plan.removed_ids)) {
        // (One part: the loop here, where `scope`'s references are this
        // function's arguments, took 0.1% fewer instructions than
        // [`ModuleScope::lay_range`] on the 10 MB module in one part.)
        None if !in_two_parts(m) => {
            for (k, inst) in m.globals().enumerate() {
                scope.lay(k, inst, out);
            }
        }
        None => scope.lay_in_two_parts(out),
        Some(e) => scope.lay_with_entry_points(e, out),
    }
    lay_functions(m, plan, out);
}

/// True when `m`'s module-scope instructions are laid down in two parts
/// ([`ModuleScope::lay_in_two_parts`]): in a module large enough for the
/// passes over every function to run in pieces ([`parallel::pieces`]: 8
/// MB, with two cores), and always in test and fuzz builds, which check
/// the result against one part. (The 100 MB benchmark module has 573,069
/// module-scope instructions, 5 ms of work on one thread; the 10 MB one
/// 57,309, where two parts took 0.1% fewer instructions and the same
/// time as one.)
fn in_two_parts(m: &Module<'_>) -> bool {
    let checked = cfg!(any(debug_assertions, fuzzing));
    checked || parallel::pieces(m.words.len(), 2) > 1
}

/// [`ModuleScope::lay_range`] with the walk's references as arguments:
/// the compiler then knows that what `out` writes leaves what they point
/// to alone, and loads it once (read through `scope`'s fields, it was
/// loaded again at every step: 3.3 M instructions more on the 100 MB
/// module's 573,069 module-scope instructions).
fn lay_part(
    m: &Module<'_>,
    ctx: &Context<'_>,
    removed: &IdBits,
    scope: &mut ModuleScope<'_, '_>,
    range: Range<usize>,
    out: &mut Pieces,
) {
    let mut walk = ModuleScope {
        m,
        ctx,
        removed,
        global_rewrites: scope.global_rewrites,
        next_rewrite: scope.next_rewrite,
        next_entry: scope.next_entry,
        shapes: scope.shapes,
    };
    for k in range {
        walk.lay(k, m.global(k), out);
    }
    (scope.next_rewrite, scope.next_entry) = (walk.next_rewrite, walk.next_entry);
}

/// [`ModuleScope::next_entry`] where it is not known: each entry point's
/// name is measured again.
const UNKNOWN_ENTRY: usize = usize::MAX;

/// Lays down the functions (after module scope): each as [`Plan::fate`]
/// says, those [`Plan::changed`] leaves out as they are, in runs.
#[inline(never)]
fn lay_functions(m: &Module<'_>, plan: &Plan<'_>, out: &mut Pieces) {
    let lay_function = |k: usize, out: &mut Pieces| {
        let f = &m.functions[k];
        match (plan.fate)(k) {
            Fate::Kept => out.input(f.start..f.end),
            Fate::Removed => {}
            Fate::Rewritten(edits) => out.function(edits),
        }
    };
    let Some(changed) = &plan.changed else {
        (0..m.functions.len()).for_each(|k| lay_function(k, out));
        return;
    };
    // The others in runs (the functions lie one after the other: the
    // parse allows nothing between them).
    let mut rewritten = changed.rewritten.iter().peekable();
    let mut run = m.functions.first().map_or(0, |f| f.start);
    for (k, f) in m.functions.iter().enumerate() {
        let rewrite = rewritten.next_if(|&&r| r as usize == k).is_some();
        if rewrite || changed.dead.get(k) == Some(&true) {
            if run < f.start {
                out.input(run..f.start);
            }
            lay_function(k, out);
            run = f.end;
        } else if cfg!(any(debug_assertions, fuzzing)) {
            // (Test and fuzz builds check that it is so.)
            assert!(
                matches!((plan.fate)(k), Fate::Kept),
                "function {k} changes but is not listed as changed"
            );
        }
    }
    out.input(run..m.functions.last().map_or(run, |f| f.end));
}

/// [`emit`]'s walk over the module-scope instructions.
#[derive(Clone, Copy)]
struct ModuleScope<'e, 'm> {
    m: &'e Module<'m>,
    ctx: &'e Context<'e>,
    /// Ids whose definitions, names and decorations go.
    removed: &'e IdBits,
    /// [`Plan::global_rewrites`], consumed in order from `next_rewrite`.
    global_rewrites: &'e [(usize, Vec<u32>)],
    next_rewrite: usize,
    /// How many `OpEntryPoint`s were laid down: the next one's place in
    /// `Globals::entry_name_words` ([`UNKNOWN_ENTRY`] where not known).
    next_entry: usize,
    /// Result positions by opcode ([`shapes`]): one small table look-up
    /// per instruction.
    shapes: &'static [Shape],
}

impl ModuleScope<'_, '_> {
    /// Lays down every module-scope instruction in two parts: the second
    /// on a thread of its own into pieces of its own, appended after the
    /// first's. That part does not know how many entry points came before
    /// it, so it measures the names of any it has (usually none: the
    /// layout puts entry points first). Test and fuzz builds check the
    /// result against the instructions laid down in one part.
    #[inline(never)]
    fn lay_in_two_parts(&mut self, out: &mut Pieces) {
        let n = self.m.global_count();
        let one_part = cfg!(any(debug_assertions, fuzzing)).then(|| {
            let (mut scope, mut out) = (*self, out.clone());
            scope.lay_range(0..n, &mut out);
            out
        });
        let split = n / 2;
        let (mut rest, mut second) = (self.part_from(split), Pieces::default());
        parallel::both(
            || rest.lay_range(split..n, &mut second),
            || self.lay_range(0..split, out),
        );
        out.append(second);
        if let Some(one_part) = one_part {
            assert!(
                one_part == *out,
                "module scope laid down in two parts differs"
            );
        }
    }

    /// The same walk, to lay down instructions from the `k`-th on (the
    /// rewrites from there on, the entry points' count unknown).
    fn part_from(&self, k: usize) -> Self {
        ModuleScope {
            next_rewrite: self.global_rewrites.partition_point(|(at, _)| *at < k),
            next_entry: UNKNOWN_ENTRY,
            ..*self
        }
    }

    /// Lays down the module-scope instructions in `range`, in order.
    fn lay_range(&mut self, range: Range<usize>, out: &mut Pieces) {
        lay_part(self.m, self.ctx, self.removed, self, range, out);
    }

    /// Lays down every module-scope instruction, the entry points all at
    /// once as a batch laid them down for every group (`e`).
    #[inline(never)]
    fn lay_with_entry_points(&mut self, e: &EntryPoints, out: &mut Pieces) {
        self.lay_range(0..e.first, out);
        let start = out.own().len();
        out.own().extend_from_slice(&e.words);
        out.own_since(start);
        self.next_entry += e.count;
        // (Each instruction found at its place: the iterator's `skip`
        // would decode every one it passes over. The runs every group
        // drops are passed over.)
        let mut k = e.first + e.count;
        for run in &e.dropped {
            if run.start >= k {
                self.lay_range(k..run.start, out);
                k = run.end;
            }
        }
        self.lay_range(k..self.m.global_count(), out);
    }

    /// Lays down module-scope instruction `inst` (the `k`-th) with
    /// [`ModuleScope::lay_down`], and the own words it wrote, if any.
    #[inline(always)]
    fn lay(&mut self, k: usize, inst: Inst, out: &mut Pieces) {
        crate::prefetch::ahead(self.m.words, inst.at);
        let start = out.own().len();
        self.lay_down(k, inst, out);
        if out.own().len() > start {
            out.own_since(start);
        }
    }

    /// Lays down module-scope instruction `inst` (the `k`-th): left out
    /// when it defines, names or decorates a removed id (or decorates a
    /// predicate site with its `SpecId`), with the removed ids left out of
    /// a group decoration or an entry point's interface, as a constant
    /// when it is a predicate site repurposed as one, as its rewrite when
    /// it has one, else as it is; after the bool type, the new constants.
    /// The caller lays down the own words it wrote, if any.
    #[inline(always)]
    fn lay_down(&mut self, k: usize, inst: Inst, out: &mut Pieces) {
        let (m, ctx, removed) = (self.m, self.ctx, self.removed);
        let w = m.inst_words(inst);
        // (Its result's place and whether it is an annotation, in one
        // look-up.)
        let shape = (self.shapes).get(inst.opcode as usize);
        let result = shape.map_or(0, |s| s.result as usize);
        if result != 0 && w.get(result).is_some_and(|&id| removed.contains(id)) {
            return;
        }
        match inst.opcode {
            o if shape.is_some_and(|s| s.annotation) => {
                let target = w.get(1).copied().unwrap_or(0);
                if removed.contains(target)
                    || (o == op::Decorate
                        && w.get(2) == Some(&DEC_SPEC_ID)
                        && ctx.site_value.contains(target))
                {
                    return;
                }
                out.input(inst.at..inst.end());
            }
            op::GroupDecorate => {
                if w[2..].iter().any(|&t| removed.contains(t)) {
                    let kept = || w[2..].iter().copied().filter(|&t| !removed.contains(t));
                    if kept().next().is_some() {
                        push_inst(
                            out.own(),
                            op::GroupDecorate,
                            std::iter::once(w[1]).chain(kept()),
                        );
                    }
                } else {
                    out.input(inst.at..inst.end());
                }
            }
            op::EntryPoint => {
                let n = entry_name_words(m, ctx.globals, self.next_entry, inst);
                self.next_entry = self.next_entry.saturating_add(1);
                if w[3 + n..].iter().any(|&t| removed.contains(t)) {
                    // The head as it is, then the interface ids that stay.
                    push_entry_point(w, n, |t| removed.contains(t), out.own());
                } else {
                    out.input(inst.at..inst.end());
                }
            }
            op::SpecConstantTrue | op::SpecConstantFalse
                if ctx.constants.repurposed(w[2]).is_some() =>
            {
                let opcode = if ctx.constants.repurposed(w[2]) == Some(true) {
                    op::ConstantTrue
                } else {
                    op::ConstantFalse
                };
                push_inst(out.own(), opcode, [w[1], w[2]]);
            }
            _ => match self.rewrite_of(k) {
                Some(new) => out.own().extend_from_slice(new),
                None => out.input(inst.at..inst.end()),
            },
        }
        if inst.opcode == op::TypeBool && Some(w[1]) == ctx.globals.bool_type {
            for &(id, b) in &ctx.constants.new_consts {
                let opcode = if b {
                    op::ConstantTrue
                } else {
                    op::ConstantFalse
                };
                push_inst(out.own(), opcode, [w[1], id]);
            }
        }
    }

    /// The new words of the `k`-th module-scope instruction, if it was
    /// rewritten. Asked in increasing `k`; the rewrites of instructions
    /// left out before it are passed over.
    fn rewrite_of(&mut self, k: usize) -> Option<&[u32]> {
        let rewrites = self.global_rewrites;
        while rewrites
            .get(self.next_rewrite)
            .is_some_and(|(at, _)| *at < k)
        {
            self.next_rewrite += 1;
        }
        match rewrites.get(self.next_rewrite) {
            Some((at, new)) if *at == k => {
                self.next_rewrite += 1;
                Some(new)
            }
            _ => None,
        }
    }
}
