//! Module-level facts for one target: the value of every predicate call site,
//! the module-scope chain (`OpSpecConstantOp` logic over predicates), and the
//! boolean constants that replace them.
//!
//! Replacement constants reuse what the module has: an existing
//! `OpConstantTrue/False`, else a predicate call site turned in place into
//! `OpConstantTrue/False` (its SpecId decoration goes), else a new constant
//! right after `OpTypeBool`. A candidate is only used if it is defined before
//! the first module-scope instruction that reads a predicate, so every use
//! still follows its definition.

use crate::fastmap::Map as HashMap;

use crate::error::Result;
use crate::globals::{Globals, ModuleReads};
use crate::idbits::IdBits;
use crate::idset::IdSet;
use crate::inspect::Resolved;
use crate::module::{Inst, Module};
use crate::operands::{Role, for_each_id, names_an_id, op, result_pos};
use crate::table::PredicateTable;

use super::lattice::{self, Val};

/// What replaces a use of an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Replacement {
    /// This existing id.
    Id(u32),
    /// The boolean constant of this value ([`Context::constant`]).
    Constant(bool),
}

/// Module-level state of one specialization.
pub(super) struct Context<'a> {
    /// The module.
    pub m: &'a Module<'a>,
    /// Its module-level index.
    pub globals: &'a Globals<'a>,
    /// Predicate call site → its value for the target.
    pub site_value: SiteValues<'a>,
    /// Module-scope `OpSpecConstantOp` results computed from predicates.
    pub module_chain: HashMap<u32, Val>,
    /// Bool chain ids (sites and boolean module-scope chain values;
    /// [`ChainShape::bool_chain`]).
    chain: &'a IdSet,
    /// Every id [`Context::replacement`] may replace: the sites and the
    /// module-scope chain values of any type
    /// ([`ChainShape::rewrite_triggers`]).
    replaceable: IdSet,
    /// [`ChainShape::unchanged`]: the bits [`Context::stays`] looks up.
    unchanged: &'a [u64],
    /// Word index of the first module-scope reader of a predicate.
    first_reader: usize,
    /// The boolean constants chosen so far.
    pub constants: Constants,
    /// Module-scope instructions that use chain values unfoldably.
    pub bad_uses: Vec<(Inst, u32)>,
    /// [`ChainShape::readers`]: the only module-scope instructions the
    /// chain walk and the rewrite look at.
    pub readers: &'a [usize],
}

/// The boolean constants the replacements of one specialization use,
/// each chosen (or made) on first need ([`Context::constant`]): the only
/// state of a [`Context`] that changes once it is made. The function
/// rewrites only read the context, so the driver takes this part out
/// ([`std::mem::take`]) while they run, possibly on other threads, and
/// chooses constants in module order with [`Constants::choose`]; it puts
/// it back before the module-scope rewrite and the emit read it.
#[derive(Debug, Default)]
pub(super) struct Constants {
    /// The constant chosen for `false` and for `true`, once chosen.
    chosen: [Option<u32>; 2],
    /// Sites turned into `OpConstantTrue/False`, with their value: one
    /// for each value at most ([`Constants::repurposed`]).
    repurposed: Vec<(u32, bool)>,
    /// New constants `(id, value)` to insert after `OpTypeBool`.
    pub new_consts: Vec<(u32, bool)>,
    /// Next free id.
    pub next_id: u32,
}

impl Constants {
    /// The value of site `id` when it was turned into a constant.
    pub(super) fn repurposed(&self, id: u32) -> Option<bool> {
        self.repurposed
            .iter()
            .find_map(|&(site, b)| (site == id).then_some(b))
    }

    /// The id of the boolean constant `b` for `ctx`'s module, chosen (or
    /// made) on first need: an existing `OpConstantTrue/False` defined
    /// before the first reader of a predicate, else a site turned into
    /// one, else a new constant.
    pub(super) fn choose(&mut self, ctx: &Context<'_>, b: bool) -> u32 {
        if let Some(id) = self.chosen[b as usize] {
            return id;
        }
        let pos = |id: &u32| ctx.globals.defs.get(*id).map_or(usize::MAX, |i| i.at);
        let usable = |id: &u32| pos(id) < ctx.first_reader;
        let existing = ctx
            .globals
            .bool_consts
            .iter()
            .filter(|&&(id, v)| v == b && usable(&id))
            .map(|&(id, _)| id)
            .min_by_key(pos);
        let id = existing.unwrap_or_else(|| {
            let site = ctx
                .site_value
                .ids()
                .filter(|&id| self.repurposed(id).is_none() && usable(&id))
                .min_by_key(pos);
            match site {
                Some(s) => {
                    self.repurposed.push((s, b));
                    s
                }
                None => {
                    let id = self.next_id;
                    self.next_id = self.next_id.wrapping_add(1);
                    self.new_consts.push((id, b));
                    id
                }
            }
        });
        self.chosen[b as usize] = Some(id);
        id
    }
}

/// Every predicate call site with its value for one target, as bits over
/// the ids (the sites are looked up for every word a rewrite reads).
pub(super) struct SiteValues<'a> {
    /// The sites ([`ChainShape::sites`]: the same for every target).
    sites: &'a IdSet,
    /// The sites whose value is true.
    on: IdSet,
}

impl<'a> SiteValues<'a> {
    /// The module's `sites` (those of `table`'s predicates) with their
    /// predicate's value, the value of `values` at its place in the table
    /// (a site listed twice takes its last predicate's value).
    fn new(
        sites: &'a IdSet,
        table: &PredicateTable,
        values: &[Resolved],
        bound: u32,
        module_words: usize,
    ) -> SiteValues<'a> {
        let mut seen = IdBits::new(bound, module_words);
        let mut on = Vec::with_capacity(table.predicates.iter().map(|p| p.sites.len()).sum());
        for (p, r) in table.predicates.iter().zip(values).rev() {
            debug_assert_eq!(p.spec_id, r.spec_id, "values in table order");
            for &s in p.sites.iter().rev() {
                if seen.insert(s) && r.value {
                    on.push(s);
                }
            }
        }
        SiteValues {
            sites,
            on: IdSet::new(on.iter().copied(), module_words),
        }
    }

    /// The value of site `id`, if it is a site.
    #[inline]
    pub(super) fn get(&self, id: u32) -> Option<bool> {
        self.sites.contains(id).then(|| self.on.contains(id))
    }

    /// True when `id` is a site.
    #[inline]
    pub(super) fn contains(&self, id: u32) -> bool {
        self.sites.contains(id)
    }

    /// The sites, in id order.
    pub(super) fn ids(&self) -> impl Iterator<Item = u32> + Clone + '_ {
        self.sites.iter()
    }
}

/// The shape of the module-scope chain, the same whatever the predicates'
/// values: found once per module.
pub(super) struct ChainShape {
    /// The predicate call sites: every table SpecId's spec constants.
    pub sites: IdSet,
    /// The sets over the module-scope chain values, when there are any
    /// (else both are [`ChainShape::sites`]).
    chain: Option<ChainSets>,
    /// Indices into `Module::globals` of the instructions that read an id
    /// of `rewrite_triggers` (as `ModuleReads` has it: a result type, an
    /// operand id or a word that may be one), or that are an
    /// `OpDecorateId` of one.
    pub readers: Vec<usize>,
    /// One bit for each id up to about as many as the module's words
    /// ([`unchanged_bits`]), set for every id that no context keeps as it
    /// is: 0, the ids at or past the bound and the rewrite triggers.
    unchanged: Vec<u64>,
}

impl ChainShape {
    /// Walks every module-scope instruction once: an `OpSpecConstantOp`
    /// logic operation or select reading a site or an earlier chain value is
    /// a chain value; then every instruction reading one (`reads`, what
    /// each module-level instruction reads) is a reader.
    pub(super) fn find(
        m: &Module<'_>,
        globals: &Globals,
        reads: &ModuleReads,
        table: &PredicateTable,
    ) -> Result<ChainShape> {
        let n = m.words.len();
        let mut sites = Vec::with_capacity(table.predicates.iter().map(|p| p.sites.len()).sum());
        for p in &table.predicates {
            sites.extend_from_slice(&p.sites);
        }
        let site_set = IdSet::new(sites.iter().copied(), n);
        let mut chain: HashMap<u32, ()> = HashMap::default();
        // Only an `OpSpecConstantOp` can be a chain value (and
        // `Globals::scan` has decoded every instruction without error).
        for &k in &globals.spec_constant_ops {
            let inst = m.global(k as usize);
            let w = m.inst_words(inst);
            let in_chain = |x: u32| site_set.contains(x) || chain.contains_key(&x);
            if !w[1..].iter().any(|&x| in_chain(x)) {
                continue;
            }
            let mut reads_chain = false;
            for_each_id(w, inst.byte_offset(), &|_| 1, &mut |pos, role| {
                if matches!(role, Role::Use | Role::MaybeId) && in_chain(w[pos]) {
                    reads_chain = true;
                }
            })?;
            let inner = w.get(3).map(|x| (*x & 0xffff) as u16);
            let is_bool = Some(w.get(1).copied().unwrap_or(0)) == globals.bool_type;
            if reads_chain
                && w.len() >= 5
                && inner.is_some_and(|o| o == op::Select || (is_bool && lattice::is_logic(o)))
            {
                chain.insert(w[2], ());
            }
        }
        let chain_sets = (!chain.is_empty()).then(|| {
            let values = || sites.iter().copied().chain(chain.keys().copied());
            let bool_type = globals.bool_type;
            let bools =
                values().filter(|&id| site_set.contains(id) || globals.type_of(m, id) == bool_type);
            ChainSets {
                triggers: IdSet::new(values(), n),
                bools: IdSet::new(bools, n),
            }
        });
        let triggers = chain_sets.as_ref().map_or(&site_set, |c| &c.triggers);
        // A definition whose only mention is its own result (a site's
        // `OpSpecConstantTrue/False`) reads nothing: the chain walk and the
        // rewrite of readers would pass it over, so it is no reader. Nor
        // is an instruction whose only mention is a literal word: both
        // look at its ids only. An `OpDecorateId` reads on behalf of its
        // target, which the chain walk looks at too.
        let mut readers = Vec::new();
        for (k, reader, ids) in reads.iter() {
            if triggers.any_in(ids)
                || (triggers.contains(reader) && m.global(k).opcode == op::DecorateId)
            {
                readers.push(k);
            }
        }
        let unchanged = unchanged_bits(triggers, m.bound(), n);
        Ok(ChainShape {
            sites: site_set,
            chain: chain_sets,
            readers,
            unchanged,
        })
    }

    /// Ids whose uses make a function need rewriting: predicate call sites
    /// and module-scope `OpSpecConstantOp` logic or selects over them. A
    /// context's chain walk finds exactly these chain values for any
    /// predicate values (it walks [`ChainShape::readers`] by the same rule),
    /// so they are also every id a context may replace.
    pub(super) fn rewrite_triggers(&self) -> &IdSet {
        self.chain.as_ref().map_or(&self.sites, |c| &c.triggers)
    }

    /// The boolean ids of [`ChainShape::rewrite_triggers`]: the sites and
    /// the boolean chain values.
    pub(super) fn bool_chain(&self) -> &IdSet {
        self.chain.as_ref().map_or(&self.sites, |c| &c.bools)
    }
}

/// [`ChainShape`]'s sets when the module has chain values.
struct ChainSets {
    /// The sites and every chain value.
    triggers: IdSet,
    /// The sites and the boolean chain values.
    bools: IdSet,
}

/// [`ChainShape::unchanged`] of a module of `module_words` words whose ids
/// are below `bound` and whose rewrite triggers are `triggers`: one bit
/// for each id below the bound, or, for a bound far beyond the module's
/// size (a hostile one must not make us allocate gigabytes), for the
/// first eight ids a word (at least 65,536); set for 0, for the ids at or
/// past the bound and for the triggers.
fn unchanged_bits(triggers: &IdSet, bound: u32, module_words: usize) -> Vec<u64> {
    let covered = (bound as usize).min(module_words.saturating_mul(8).max(1 << 16));
    let mut bits: Vec<u64> = crate::zeroed::vec(covered.div_ceil(64).max(1));
    let mut set = |id: usize| {
        if let Some(w) = bits.get_mut(id / 64) {
            *w |= 1 << (id % 64);
        }
    };
    set(0);
    (bound as usize..covered.div_ceil(64) * 64).for_each(&mut set);
    triggers.iter().for_each(|id| set(id as usize));
    bits
}

impl<'a> Context<'a> {
    /// Evaluates the module-scope chain for the given values of the
    /// table's predicates (in table order, as
    /// `inspect::resolve_predicates` gives them), looking only at
    /// `shape`'s readers; `shape` is [`ChainShape::find`]'s of the same
    /// module.
    pub(super) fn new(
        m: &'a Module<'a>,
        globals: &'a Globals,
        table: &PredicateTable,
        values: &[Resolved],
        shape: &'a ChainShape,
    ) -> Result<Context<'a>> {
        let readers = &shape.readers[..];
        let site_value = SiteValues::new(&shape.sites, table, values, m.bound(), m.words.len());
        let mut ctx = Context {
            m,
            globals,
            site_value,
            module_chain: HashMap::default(),
            chain: shape.bool_chain(),
            replaceable: shape.rewrite_triggers().clone(),
            unchanged: &shape.unchanged,
            first_reader: usize::MAX,
            constants: Constants {
                next_id: m.bound(),
                ..Constants::default()
            },
            bad_uses: Vec::new(),
            readers,
        };
        ctx.module_scope(readers)?;
        debug_assert!(
            ctx.chain_is_the_shapes(shape),
            "the chain walk found other chain values than the module's shape"
        );
        Ok(ctx)
    }

    /// True when the chain values the walk found are `shape`'s (the sets
    /// the context took from it hold exactly the sites and those values),
    /// as they must be for any predicate values: checked in debug builds.
    fn chain_is_the_shapes(&self, shape: &ChainShape) -> bool {
        let (g, m) = (self.globals, self.m);
        let found = |id: u32| shape.sites.contains(id) || self.module_chain.contains_key(&id);
        let boolean = |id: u32| {
            shape.sites.contains(id)
                || (self.module_chain.contains_key(&id) && g.type_of(m, id) == g.bool_type)
        };
        let keys = || self.module_chain.keys().copied();
        self.replaceable.iter().all(found)
            && keys().all(|id| self.replaceable.contains(id))
            && self.chain.iter().all(boolean)
            && keys().all(|id| !boolean(id) || self.chain.contains(id))
    }

    /// Walks module-scope instructions in order: evaluates `OpSpecConstantOp`
    /// logic and selects over chain values, and records other readers.
    fn module_scope(&mut self, scope: &[usize]) -> Result<()> {
        let m = self.m;
        let sites = &self.site_value.sites;
        for &k in scope {
            let inst = m.global(k);
            if names_an_id(inst.opcode) {
                continue;
            }
            let w = m.inst_words(inst);
            // Cheap test first: does any word but the result name a site
            // or a chain value?
            let result = result_pos(inst.opcode);
            let maybe = w.iter().enumerate().skip(1).any(|(pos, x)| {
                Some(pos) != result
                    && (sites.contains(*x)
                        || (!self.module_chain.is_empty() && self.module_chain.contains_key(x)))
            });
            if !maybe {
                continue;
            }
            let mut used = Vec::new();
            for_each_id(w, inst.byte_offset(), &|_| 1, &mut |pos, role| {
                if matches!(role, Role::Use | Role::MaybeId) {
                    used.push(w[pos]);
                }
            })?;
            if !used.iter().any(|id| self.is_chain_or_folded(*id)) {
                continue;
            }
            self.first_reader = self.first_reader.min(inst.at);
            let inner = w.get(3).map(|x| (*x & 0xffff) as u16);
            let is_bool = Some(w.get(1).copied().unwrap_or(0)) == self.globals.bool_type;
            match (inst.opcode, inner) {
                (op::SpecConstantOp, Some(o))
                    if w.len() >= 5 && (o == op::Select || (is_bool && lattice::is_logic(o))) =>
                {
                    let val = lattice::fold_spec_constant_op(o, w, |id| self.val_of(id));
                    self.module_chain.insert(w[2], val);
                }
                _ => {
                    for id in used {
                        if self.site_value.contains(id)
                            || (self.module_chain.contains_key(&id)
                                && self.globals.type_of(m, id) == self.globals.bool_type)
                        {
                            self.bad_uses.push((inst, id));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn is_chain_or_folded(&self, id: u32) -> bool {
        self.site_value.contains(id) || self.module_chain.contains_key(&id)
    }

    fn val_of(&self, id: u32) -> Val {
        match self.global_val(id) {
            Some(v) => v,
            None => Val::Same(id),
        }
    }

    /// The lattice value of a module-level id, if it is known (`None` for
    /// anything that varies, including ordinary spec constants).
    pub(super) fn global_val(&self, id: u32) -> Option<Val> {
        if let Some(b) = self.site_value.get(id) {
            return Some(Val::Const(b));
        }
        if let Some(b) = self.globals.bool_const(id) {
            return Some(Val::Const(b));
        }
        match self.module_chain.get(&id) {
            Some(Val::Varying) | Some(Val::Top) | None => None,
            Some(v) => Some(*v),
        }
    }

    /// [`Context::global_val`] of an id the context does not replace
    /// ([`Context::may_replace`] false): only a boolean constant's value
    /// is known then (every site and chain value is one it may replace),
    /// so one look-up says it.
    pub(super) fn fixed_val(&self, id: u32) -> Option<Val> {
        let v = self.globals.bool_const(id).map(Val::Const);
        debug_assert!(!self.may_replace(id) && v == self.global_val(id));
        v
    }

    /// True for boolean chain values defined at module scope (predicate
    /// sites and logic over them).
    pub(super) fn is_chain(&self, id: u32) -> bool {
        self.chain.contains(id)
    }

    /// Every id whose value depends on the predicates' values: sites and
    /// module-scope chain values (of any type). The same set for any
    /// values: only what [`Context::global_val`] and
    /// [`Context::replacement`] say of them changes.
    pub(super) fn varying(&self) -> &IdSet {
        &self.replaceable
    }

    /// What a function rewrite can learn of this context through the ids
    /// `ids` (those of its words in [`Context::varying`]): each one's value and
    /// replacement. Two contexts of one module that agree on this give the
    /// same rewrite of the function (before its constants are chosen).
    /// (Appended to `out`.)
    pub(super) fn view(&self, ids: &[u32], out: &mut Vec<(Option<Val>, Option<Replacement>)>) {
        // (A site, most of them, answers both at once.)
        out.extend(ids.iter().map(|&id| match self.site_value.get(id) {
            Some(b) => (Some(Val::Const(b)), Some(Replacement::Constant(b))),
            None => (self.global_val(id), self.replacement(id)),
        }));
    }

    /// False when [`Context::replacement`] of `id` is certainly `None`: a
    /// bit test, to skip the lookups for most ids.
    #[inline]
    pub(super) fn may_replace(&self, id: u32) -> bool {
        self.replaceable.contains(id)
    }

    /// True when `id` is an id in range (nonzero, below the bound) that no
    /// rewrite replaces ([`Context::may_replace`] false): one bit looked
    /// up ([`ChainShape::unchanged`]), for all but the ids past a hostile
    /// bound's bits.
    #[inline(always)]
    pub(super) fn stays(&self, id: u32) -> bool {
        let stays = match self.unchanged.get(id as usize / 64) {
            Some(w) => w >> (id % 64) & 1 == 0,
            None => self.stays_past_bits(id),
        };
        debug_assert_eq!(stays, self.stays_past_bits(id), "id {id}");
        stays
    }

    /// [`Context::stays`] the long way (a range check and the set), for
    /// an id past [`ChainShape::unchanged`]'s bits, and in debug builds to
    /// check the bits' answer.
    #[inline(never)]
    fn stays_past_bits(&self, id: u32) -> bool {
        id != 0 && id < self.m.bound() && !self.may_replace(id)
    }

    /// What replaces a module-level id in every use, if anything: a
    /// boolean constant, or the id a folded chain value equals. Reads only,
    /// so that function rewrites can share the context.
    pub(super) fn replacement(&self, id: u32) -> Option<Replacement> {
        // Follow `Same` links iteratively; a cycle (possible only in an
        // invalid module) stops the walk where it closes.
        let mut cur = id;
        for _ in 0..=self.module_chain.len() {
            if let Some(b) = self.site_value.get(cur) {
                return Some(Replacement::Constant(b));
            }
            match self.module_chain.get(&cur).copied() {
                Some(Val::Const(b)) => return Some(Replacement::Constant(b)),
                Some(Val::Same(x)) if x != cur => cur = x,
                _ => break,
            }
        }
        (cur != id).then_some(Replacement::Id(cur))
    }

    /// The id that replaces a module-level id in every use, if it differs:
    /// [`Context::replacement`] with its constant chosen.
    pub(super) fn global_replacement(&mut self, id: u32) -> Option<u32> {
        let r = match self.replacement(id)? {
            Replacement::Id(x) => x,
            Replacement::Constant(b) => self.constant(b),
        };
        (r != id).then_some(r)
    }

    /// The integer value of a module-level `OpConstant` / `OpConstantNull`.
    pub(super) fn int_constant(&self, id: u32) -> Option<u64> {
        let inst = self.globals.defs.get(id)?;
        let w = self.m.inst_words(inst);
        self.globals.int_width.get(&w[1])?;
        match inst.opcode {
            op::Constant => Some(
                w[3..]
                    .iter()
                    .rev()
                    .fold(0u64, |acc, &x| (acc << 32) | x as u64),
            ),
            op::ConstantNull => Some(0),
            _ => None,
        }
    }

    /// The id of the boolean constant `b`, chosen (or made) on first need
    /// ([`Constants::choose`]).
    pub(super) fn constant(&mut self, b: bool) -> u32 {
        let mut constants = std::mem::take(&mut self.constants);
        let id = constants.choose(self, b);
        self.constants = constants;
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`unchanged_bits`]: a bit set for 0, for each trigger and for each
    /// id at or past the bound that the bits cover; clear for every other
    /// id; and, past a hostile bound's cover, no bits at all (those ids
    /// take the long way).
    #[test]
    fn unchanged_bits_mark_zero_the_triggers_and_what_is_out_of_range() {
        let set =
            |bits: &[u64], id: usize| bits.get(id / 64).is_some_and(|w| w >> (id % 64) & 1 != 0);
        for bound in [1u32, 2, 63, 64, 65, 130, 1000] {
            let triggers = IdSet::new([1, 7, 64, 129].into_iter().filter(|&x| x < bound), 100);
            let bits = unchanged_bits(&triggers, bound, 100);
            assert_eq!(
                bits.len(),
                (bound as usize).div_ceil(64).max(1),
                "bound {bound}"
            );
            for id in 0..bits.len() * 64 {
                let stays = id != 0 && id < bound as usize && !triggers.contains(id as u32);
                assert_eq!(set(&bits, id), !stays, "bound {bound}, id {id}");
            }
        }
        // A bound far past a 10-word module's eight ids a word: bits for
        // the first 65,536 ids only, a trigger past them left out.
        let triggers = IdSet::new([5, 70_000, u32::MAX - 1], 10);
        let bits = unchanged_bits(&triggers, u32::MAX, 10);
        assert_eq!(bits.len(), (1 << 16) / 64);
        assert!(set(&bits, 0) && set(&bits, 5) && !set(&bits, 6) && !set(&bits, 65_535));
    }
}
