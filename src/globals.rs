//! What the module-level instructions say, gathered in one pass: definitions
//! by id, names, `SpecId` and linkage decorations, entry points, and the
//! boolean and integer types the rewrite needs.

use std::borrow::Cow;
use std::ops::Range;

use crate::fastmap::{Map as HashMap, Set as HashSet};

use crate::error::{Result, binary};
use crate::module::{
    Inst, Module, check_inst_id, literal_string, literal_string_words, must_be_id, shrink_spare,
};
use crate::operands::{Role, for_each_id, is_annotation, op, result_pos};

/// `Decoration::SpecId`.
pub(crate) const DEC_SPEC_ID: u32 = spirv::Decoration::SpecId as u32;
/// `Decoration::LinkageAttributes`.
const DEC_LINKAGE: u32 = spirv::Decoration::LinkageAttributes as u32;
/// `LinkageType::Export`.
const LINK_EXPORT: u32 = spirv::LinkageType::Export as u32;
/// `OpTypeVoid`, `OpTypeVector`, `OpTypeFunction` (not among the opcodes
/// of [`op`]).
const TYPE_VOID: u16 = spirv::Op::TypeVoid as u16;
const TYPE_VECTOR: u16 = spirv::Op::TypeVector as u16;
const TYPE_FUNCTION: u16 = spirv::Op::TypeFunction as u16;
/// `OpCapability` and `OpMemoryModel`: no ids, frequent in every module.
const CAPABILITY: u16 = spirv::Op::Capability as u16;
const MEMORY_MODEL: u16 = spirv::Op::MemoryModel as u16;

/// Index of the module-level instructions of a module whose words live
/// for `'w`.
#[derive(Debug, Default)]
pub struct Globals<'w> {
    /// Module-level definitions by result id.
    pub defs: Defs,
    /// The `OpName` and linkage name strings.
    strings: Strings<'w>,
    /// Every `OpDecorate %x SpecId N`, in module order.
    pub spec_ids: Vec<SpecIdDecoration>,
    /// Ids decorated `LinkageAttributes … Export`.
    pub exported: HashSet<u32>,
    /// The function of each `OpEntryPoint`, in module order (4 bytes an
    /// entry point: a module may hold 200,000 of them).
    pub entry_functions: Vec<u32>,
    /// The words of each `OpEntryPoint`'s name, in module order (0: more
    /// than 255), so that the emit finds its interface without reading
    /// the name again for every target.
    pub(crate) entry_name_words: Vec<u8>,
    /// The place among the module-level instructions of each
    /// `OpSpecConstantOp`, in module order (the only instructions a
    /// predicate chain runs through: most modules have none).
    pub(crate) spec_constant_ops: Vec<u32>,
    /// The first `OpTypeBool`.
    pub bool_type: Option<u32>,
    /// Every `OpConstantTrue` / `OpConstantFalse` of the bool type, with its
    /// value, sorted by id (an id defined twice: its last definition). A
    /// module has a few, most one or two: [`Globals::bool_const`] finds
    /// one in a step or two of a binary search, where a hash look-up
    /// costs more.
    pub bool_consts: Vec<(u32, bool)>,
    /// The smallest and the largest id of [`Globals::bool_consts`] (`(0,
    /// 0)` when it has none): most ids asked about are outside this span,
    /// which two comparisons tell without searching.
    bool_const_span: (u32, u32),
    /// Width in bits of each `OpTypeInt`.
    pub int_width: HashMap<u32, u32>,
}

/// The most module-level instructions of a module whose lists
/// [`Globals::scan_with_reads`] reserves at their likely size.
const SMALL_MODULE_SCOPE: usize = 1 << 12;

impl<'w> Globals<'w> {
    /// Scans the module-level instructions of `m`.
    pub fn scan(m: &Module<'w>) -> Result<Globals<'w>> {
        Globals::scan_with_reads(m).map(|(g, _)| g)
    }

    /// [`Globals::scan`], with the ids each module-level instruction reads
    /// (for the analysis, which drops them once used).
    pub(crate) fn scan_with_reads(m: &Module<'w>) -> Result<(Globals<'w>, ModuleReads)> {
        let mut g = Globals::default();
        g.strings.words = m.words;
        let mut defs = DefsBuilder::default();
        let mut reads = ModuleReads::with_room(m.globals().len());
        // (Room for the names and definitions of a small module, in one
        // allocation each; every module-level instruction defines one id
        // at most.)
        g.strings.names.reserve(32);
        defs.defs.reserve_exact(m.globals().len());
        // (And, in a small module, for its SpecIds, entry points and
        // linkage names: a site takes a decoration and a definition, an
        // import a decoration, a name and its declaration. A larger
        // module's lists grow from empty: where they start moves the peak
        // of a 100 MB run.)
        let globals = m.globals().len();
        if globals <= SMALL_MODULE_SCOPE {
            g.spec_ids.reserve(globals / 2);
            g.entry_functions.reserve(globals / 8);
            g.entry_name_words.reserve(globals / 8);
            g.strings.linkage_names.reserve(globals / 8);
        }
        let w = m.words;
        let bound = m.bound();
        let id_ok = |id: u32| id != 0 && id < bound;
        for (k, inst) in m.globals().enumerate() {
            let words = m.inst_words(inst);
            crate::prefetch::ahead(w, inst.at);
            reads.begin(k);
            if g.scan_common(words, bound, inst, &mut defs, &mut reads) {
                continue;
            }
            // Every known instruction must hold the operands its grammar
            // requires, each id below the bound: later stages index them
            // without further checks.
            let mut bad = None;
            let (annotation, names_only) =
                (is_annotation(inst.opcode), names_only_its_target(words));
            let start = reads.ids.len();
            for_each_id(words, inst.byte_offset(), &|_| 1, &mut |pos, role| {
                if bad.is_none() && !id_ok(words[pos]) && must_be_id(inst.opcode, pos, role) {
                    bad = Some(pos);
                }
                if !names_only && is_read(annotation, pos, role) {
                    reads.ids.push(words[pos]);
                }
            })?;
            if let Some(pos) = bad {
                check_inst_id(w, inst, pos)?;
            }
            if let Some(pos) = result_pos(inst.opcode)
                && pos < words.len()
            {
                let id = words[pos];
                check_inst_id(w, inst, pos)?;
                defs.push(id, inst);
            }
            reads.close(reader(inst.opcode, words), start);
            match inst.opcode {
                op::Name if inst.len >= 3 => {
                    let (s, _) = StringAt::find(w, inst.at + 2, inst.end())?;
                    g.strings.names.push((words[1], s));
                }
                op::Decorate if inst.len >= 3 => {
                    let target = m.id_at(inst.at + 1)?;
                    match words[2] {
                        DEC_SPEC_ID if inst.len >= 4 => g
                            .spec_ids
                            .push(SpecIdDecoration::new(target, words[3], inst)),
                        DEC_LINKAGE if inst.len >= 5 => {
                            let (s, n) = StringAt::find(w, inst.at + 3, inst.end())?;
                            if let Some(&ty) = words.get(3 + n) {
                                if ty == LINK_EXPORT {
                                    g.exported.insert(target);
                                }
                                g.strings.linkage_names.push((target, s));
                            }
                        }
                        _ => {}
                    }
                }
                op::EntryPoint if inst.len >= 4 => {
                    let function = m.id_at(inst.at + 2)?;
                    let (_, n) = literal_string(w, inst.at + 3, inst.end())?;
                    g.entry_functions.push(function);
                    g.entry_name_words.push(u8::try_from(n).unwrap_or(0));
                }
                op::TypeBool if inst.len >= 2 => {
                    g.bool_type.get_or_insert(words[1]);
                }
                op::TypeInt if inst.len >= 3 => {
                    g.int_width.insert(words[1], words[2]);
                }
                op::ConstantTrue | op::ConstantFalse
                    if inst.len >= 3 && Some(words[1]) == g.bool_type =>
                {
                    g.bool_consts
                        .push((words[2], inst.opcode == op::ConstantTrue));
                }
                // (Only this generic path sees them: `scan_common` takes
                // none.)
                op::SpecConstantOp => g.spec_constant_ops.push(k as u32),
                _ => {}
            }
        }
        g.defs = defs.finish();
        sort_keeping_last(&mut g.bool_consts);
        g.bool_const_span = match (g.bool_consts.first(), g.bool_consts.last()) {
            (Some(&(lo, _)), Some(&(hi, _))) => (lo, hi),
            _ => (0, 0),
        };
        g.strings.finish();
        // (The lists are kept for the whole run.)
        shrink_spare(&mut g.spec_ids);
        shrink_spare(&mut g.entry_functions);
        shrink_spare(&mut g.entry_name_words);
        // (Fuzz builds check the fast paths against the grammar walk.)
        if cfg!(fuzzing) {
            assert!(
                reads == ModuleReads::walked(m),
                "module-scope reads differ from the walk's"
            );
        }
        Ok((g, reads))
    }

    /// The generic scan's work on the most frequent well-formed module-level
    /// instructions (capabilities, the memory model, entry points,
    /// decorations, boolean and integer types, boolean constants, names,
    /// and the definitions of [`definition_ids`]), without walking
    /// the grammar: true when `words` (`inst`'s) is one of
    /// them, with every id in range, and has been recorded. Anything else,
    /// and every error, is left to the generic scan, which then says
    /// exactly what is wrong. What it reads goes to `reads`, as the
    /// generic scan would put it.
    #[inline]
    fn scan_common(
        &mut self,
        words: &[u32],
        bound: u32,
        inst: Inst,
        defs: &mut DefsBuilder,
        reads: &mut ModuleReads,
    ) -> bool {
        let id_ok = |x: u32| x != 0 && x < bound;
        match inst.opcode {
            op::EntryPoint if words.len() >= 4 && id_ok(words[2]) => {
                // Model, function, name, then interface ids.
                let Some(n) = literal_string_words(words, 3, words.len()) else {
                    return false;
                };
                if !words[3 + n..].iter().all(|&x| id_ok(x)) {
                    return false;
                }
                self.entry_functions.push(words[2]);
                self.entry_name_words.push(u8::try_from(n).unwrap_or(0));
                reads.record(0, Some(words[2]), &words[3 + n..]);
                true
            }
            // (A decoration's only id is its target: see the test
            // `names_and_decorations_name_only_their_target`.)
            op::Decorate if words.len() >= 3 && id_ok(words[1]) => {
                let (target, len) = (words[1], words.len());
                match words[2] {
                    DEC_SPEC_ID if len >= 4 => self
                        .spec_ids
                        .push(SpecIdDecoration::new(target, words[3], inst)),
                    DEC_LINKAGE if len >= 5 => {
                        let Some(n) = literal_string_words(words, 3, len) else {
                            return false;
                        };
                        if let Some(&ty) = words.get(3 + n) {
                            if ty == LINK_EXPORT {
                                self.exported.insert(target);
                            }
                            let name = StringAt::new(inst.at + 3, &words[3..3 + n]);
                            self.strings.linkage_names.push((target, name));
                        }
                    }
                    _ => {}
                }
                true
            }
            op::SpecConstantTrue | op::SpecConstantFalse | op::ConstantTrue | op::ConstantFalse
                if words.len() == 3 && id_ok(words[1]) && id_ok(words[2]) =>
            {
                defs.push(words[2], inst);
                reads.record(words[2], Some(words[1]), &[]);
                if matches!(inst.opcode, op::ConstantTrue | op::ConstantFalse)
                    && Some(words[1]) == self.bool_type
                {
                    self.bool_consts
                        .push((words[2], inst.opcode == op::ConstantTrue));
                }
                true
            }
            op::Name if names_only_its_target(words) && id_ok(words[1]) => {
                // (The string ends with its instruction: its bytes are all
                // but the NUL and what follows it in the last word.)
                let string = StringAt::new(inst.at + 2, &words[2..]);
                self.strings.names.push((words[1], string));
                true
            }
            // (Their only id, if any, is the result: see the test
            // `instructions_read_directly_match_the_walk`.)
            CAPABILITY if words.len() == 2 => true,
            MEMORY_MODEL if words.len() == 3 => true,
            op::TypeBool if words.len() == 2 && id_ok(words[1]) => {
                defs.push(words[1], inst);
                self.bool_type.get_or_insert(words[1]);
                true
            }
            op::TypeInt if words.len() == 4 && id_ok(words[1]) => {
                defs.push(words[1], inst);
                self.int_width.insert(words[1], words[2]);
                true
            }
            _ => {
                let Some((typed, result, uses)) = definition_ids(words) else {
                    return false;
                };
                let ids_ok = (!typed || id_ok(words[1]))
                    && id_ok(words[result])
                    && words[uses.clone()].iter().all(|&x| id_ok(x));
                if ids_ok {
                    defs.push(words[result], inst);
                    reads.record(words[result], typed.then(|| words[1]), &words[uses]);
                }
                ids_ok
            }
        }
    }

    /// The result type of a module-level value, if it has one.
    pub fn type_of(&self, m: &Module<'_>, id: u32) -> Option<u32> {
        let inst = self.defs.get(id)?;
        (result_pos(inst.opcode) == Some(2)).then(|| m.words[inst.at + 1])
    }

    /// The `OpName` of `id`, if it has one (the last, if several).
    pub fn name(&self, id: u32) -> Option<Cow<'w, str>> {
        self.strings.name(id)
    }

    /// The ids whose `OpName` or linkage name is `name`: the `OpName`s by
    /// id (one per id, the last), then the `LinkageAttributes` decorations
    /// in module order. Compares the strings' bytes, without decoding
    /// them; `name` holds no U+FFFD, the only character a string that is
    /// not UTF-8 can differ in once decoded.
    pub fn ids_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = u32> + 's {
        debug_assert!(!name.contains('\u{FFFD}'));
        let strings = &self.strings;
        let named =
            move |&(id, s): &(u32, StringAt)| (strings.bytes(s) == name.as_bytes()).then_some(id);
        strings
            .names
            .iter()
            .chain(&strings.linkage_names)
            .filter_map(named)
    }

    /// `%id` with its `OpName` if it has one: `%12 (main)`.
    pub fn display_id(&self, id: u32) -> String {
        match self.name(id) {
            Some(n) => format!("%{id} ({n})"),
            None => format!("%{id}"),
        }
    }

    /// The value of `id` when it is one of [`Globals::bool_consts`].
    #[inline]
    pub(crate) fn bool_const(&self, id: u32) -> Option<bool> {
        let (lo, hi) = self.bool_const_span;
        if id.wrapping_sub(lo) > hi - lo {
            return None;
        }
        let list = &self.bool_consts;
        list.binary_search_by_key(&id, |&(c, _)| c)
            .ok()
            .map(|k| list[k].1)
    }

    /// A function as people name it: its `OpName`, else its linkage name,
    /// else `%id`.
    pub fn function_name(&self, id: u32) -> String {
        let mut name = String::new();
        self.write_function_name(id, &mut name);
        name
    }

    /// [`Globals::function_name`], appended to `out`.
    pub fn write_function_name(&self, id: u32, out: &mut String) {
        if let Some(n) = self.name(id) {
            out.push_str(&n);
            return;
        }
        if let Some(n) = self.strings.linkage_name(id) {
            out.push_str(&n);
            return;
        }
        // (Digits by hand: `format!` costs some thousand instructions, and
        // most functions of a large module may be named this way.)
        let mut digits = [0u8; 10];
        let (mut rest, mut k) = (id, digits.len());
        loop {
            k -= 1;
            digits[k] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        out.push('%');
        out.extend(digits[k..].iter().map(|&d| d as char));
    }
}

/// Sorts `list` by id and keeps each id's last entry, as collecting the
/// pairs into a map would (a stable sort keeps an id's entries in list
/// order).
fn sort_keeping_last<T>(list: &mut Vec<(u32, T)>) {
    list.sort_by_key(|(id, _)| *id);
    list.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            std::mem::swap(later, kept);
        }
        same
    });
}

/// True when the word at `pos` with `role` (as [`for_each_id`] reports
/// it) is an id the instruction reads: its result type, an operand, or a
/// word that may be an id, but not the id a name or decoration
/// (`annotation`) names.
fn is_read(annotation: bool, pos: usize, role: Role) -> bool {
    matches!(role, Role::Use | Role::ResultType | Role::MaybeId) && !(annotation && pos == 1)
}

/// The id on whose behalf a module-level instruction (`opcode`, `words`)
/// reads: its result, or for a name or decoration the id it names; 0 for
/// none.
fn reader(opcode: u16, words: &[u32]) -> u32 {
    let at = if is_annotation(opcode) {
        Some(1)
    } else {
        result_pos(opcode)
    };
    at.and_then(|k| words.get(k)).copied().unwrap_or(0)
}

/// The ids each module-level instruction reads, in module order, made by
/// the same walk as the rest of [`Globals`] so that no later pass decodes
/// the module-level instructions again to learn them: per instruction
/// that reads any, its result type and operand ids (and the words that
/// may be ids) as [`for_each_id`] reports them, with the instruction's
/// "reader": its result, or for a name or decoration the id it names
/// (a decoration's other ids are read on that id's behalf). Names and
/// decorations whose only id is the one they name read nothing.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct ModuleReads {
    /// `(its index in Module::globals, its reader or 0 for an instruction
    /// without one, where its ids end in ids)` of each instruction that
    /// reads an id.
    readers: Vec<(u32, u32, u32)>,
    /// The ids read, one instruction after another.
    ids: Vec<u32>,
    /// The index in `Module::globals` of the instruction being recorded.
    global: u32,
}

impl ModuleReads {
    /// Room for what `globals` module-level instructions of a small module
    /// read (a larger module's lists grow as they go).
    fn with_room(globals: usize) -> ModuleReads {
        let globals = globals.min(1 << 12);
        ModuleReads {
            readers: Vec::with_capacity(globals),
            ids: Vec::with_capacity(4 * globals),
            global: 0,
        }
    }

    /// Starts the `k`th module-level instruction (the parse checked that
    /// every word index, and so every instruction's index, fits in 32
    /// bits).
    #[inline]
    fn begin(&mut self, k: usize) {
        self.global = k as u32;
    }

    /// Records that an instruction whose reader is `reader` (0: none)
    /// reads `first` (its result type, or an entry point's function), if
    /// any, then `rest`.
    #[inline]
    fn record(&mut self, reader: u32, first: Option<u32>, rest: &[u32]) {
        let start = self.ids.len();
        self.ids.extend(first);
        self.ids.extend_from_slice(rest);
        self.close(reader, start);
    }

    /// Ends the instruction whose ids were pushed from `start` on (nothing
    /// is recorded when it read none).
    #[inline]
    fn close(&mut self, reader: u32, start: usize) {
        if self.ids.len() > start {
            self.readers
                .push((self.global, reader, self.ids.len() as u32));
        }
    }

    /// What the grammar walk says each module-level instruction of `m`
    /// reads (the scan's fast paths must agree: fuzz builds and a unit
    /// test compare them). `m`'s instructions are the scan's, which the
    /// walk has taken without error.
    fn walked(m: &Module<'_>) -> ModuleReads {
        let mut reads = ModuleReads::default();
        for (k, inst) in m.globals().enumerate() {
            let words = m.inst_words(inst);
            reads.begin(k);
            if names_only_its_target(words) {
                continue;
            }
            let annotation = is_annotation(inst.opcode);
            let start = reads.ids.len();
            let _ = for_each_id(words, inst.byte_offset(), &|_| 1, &mut |pos, role| {
                if is_read(annotation, pos, role) {
                    reads.ids.push(words[pos]);
                }
            });
            reads.close(reader(inst.opcode, words), start);
        }
        reads
    }

    /// How many ids the instructions read, all told.
    pub(crate) fn ids_read(&self) -> usize {
        self.ids.len()
    }

    /// Each instruction that reads an id: its index in `Module::globals`,
    /// its reader (0: none) and the ids it reads, in module order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, u32, &[u32])> + '_ {
        let mut start = 0;
        self.readers.iter().map(move |&(k, reader, end)| {
            let ids = &self.ids[start..end as usize];
            start = end as usize;
            (k as usize, reader, ids)
        })
    }
}

/// An `OpDecorate %target SpecId N`, in 12 bytes (a module may hold one
/// for each of 200,000 predicate sites).
#[derive(Debug, Clone, Copy)]
pub struct SpecIdDecoration {
    /// The decorated id.
    pub target: u32,
    /// The SpecId, N.
    pub spec_id: u32,
    /// Index of the decoration's first word in the module.
    at: u32,
}

impl SpecIdDecoration {
    /// `inst` decorates `target` with SpecId `spec_id` (the parse checked
    /// that every word index fits in 32 bits).
    fn new(target: u32, spec_id: u32, inst: Inst) -> SpecIdDecoration {
        SpecIdDecoration {
            target,
            spec_id,
            at: inst.at as u32,
        }
    }

    /// Byte offset of the decoration in the input.
    pub fn byte_offset(&self) -> usize {
        self.at as usize * 4
    }
}

/// The ids of a frequent module-scope definition (a type, constant or
/// variable of the common layouts), read off its opcode and length without
/// the grammar walk: `(whether word 1 is a result type, the result's
/// word, the words of the ids it reads)`, exactly as [`for_each_id`]
/// reports them ([`Role::ResultType`](crate::operands::Role), `Result`,
/// `Use`; nothing else). `None` for any other instruction or length.
#[inline]
pub(crate) fn definition_ids(words: &[u32]) -> Option<(bool, usize, Range<usize>)> {
    let len = words.len();
    let (typed, result, uses) = match ((words[0] & 0xffff) as u16, len) {
        (TYPE_VOID, 2) | (op::TypeFloat, 3) => (false, 1, 2..2),
        (TYPE_VECTOR, 4) => (false, 1, 2..3),
        (op::TypePointer, 4) => (false, 1, 3..4),
        (op::TypeArray, 4) => (false, 1, 2..4),
        (TYPE_FUNCTION, 3..) => (false, 1, 2..len),
        (op::Constant, 4..) => (true, 2, 3..3),
        (op::ConstantNull, 3) => (true, 2, 3..3),
        (op::ConstantComposite, 3..) => (true, 2, 3..len),
        (op::Variable, 4 | 5) => (true, 2, 4..len),
        _ => return None,
    };
    Some((typed, result, uses))
}

/// True when `words` is a well-formed `OpName` or `OpDecorate`: its only id
/// is the one it names (word 1), as [`for_each_id`] reports it.
#[inline]
pub(crate) fn names_only_its_target(words: &[u32]) -> bool {
    let len = words.len();
    match (words[0] & 0xffff) as u16 {
        op::Name => len >= 3 && literal_string_words(words, 2, len) == Some(len - 2),
        op::Decorate => len >= 3,
        _ => false,
    }
}

/// A literal string of the module: where it starts and its length in
/// bytes, its terminating NUL left out (8 bytes; the string is decoded
/// only when asked for).
#[derive(Debug, Clone, Copy)]
struct StringAt {
    /// Index of the string's first word in the module.
    at: u32,
    /// The number of bytes before the NUL.
    len: u32,
}

impl StringAt {
    /// The literal string starting at word index `at` of an instruction
    /// ending at word index `end` (as [`literal_string`], the error
    /// included), and the number of words it takes. (The parse checked
    /// that every word index fits in 32 bits.)
    fn find(words: &[u32], at: usize, end: usize) -> Result<(StringAt, usize)> {
        let n = literal_string_words(words, at, end).ok_or_else(|| {
            binary(
                at * 4,
                "literal string has no terminating NUL within its instruction",
            )
        })?;
        Ok((StringAt::new(at, &words[at..at + n]), n))
    }

    /// The string at word index `at` of the module, made of `words`, the
    /// last of which holds its NUL (the string's first zero byte, its
    /// octets packed low byte first).
    fn new(at: usize, words: &[u32]) -> StringAt {
        let last = words[words.len() - 1];
        let tail = (0..4)
            .position(|k| (last >> (8 * k)) as u8 == 0)
            .unwrap_or(4);
        StringAt {
            at: at as u32,
            len: ((words.len() - 1) * 4 + tail) as u32,
        }
    }
}

/// The module's `OpName` and linkage name strings, where they are in the
/// module's words: decoded only when one is asked for (most never are).
#[derive(Debug, Default)]
struct Strings<'w> {
    /// The module's words.
    words: &'w [u32],
    /// `(target id, its string)` of each `OpName`: in module order while
    /// scanning, then by id, one per id (the last).
    names: Vec<(u32, StringAt)>,
    /// `(id, its string)` of each `LinkageAttributes` decoration, in
    /// module order.
    linkage_names: Vec<(u32, StringAt)>,
    /// Index into `linkage_names` of each id's first, by id (filled by
    /// [`Strings::finish`]).
    linkage_by_id: Vec<u32>,
}

impl<'w> Strings<'w> {
    /// The bytes of `s`. On a little-endian host they are read in place.
    fn bytes(&self, s: StringAt) -> Cow<'w, [u8]> {
        let (at, len) = (s.at as usize, s.len as usize);
        let raw = &self.words[at..at + len / 4 + 1];
        if cfg!(target_endian = "little") {
            Cow::Borrowed(&bytemuck::cast_slice(raw)[..len])
        } else {
            Cow::Owned(raw.iter().flat_map(|w| w.to_le_bytes()).take(len).collect())
        }
    }

    /// `s` decoded (UTF-8, any bytes that are not replaced by U+FFFD).
    /// (The strict check first: it is several times faster on the valid
    /// strings nearly all are.)
    fn text(&self, s: StringAt) -> Cow<'w, str> {
        match self.bytes(s) {
            Cow::Borrowed(b) => match std::str::from_utf8(b) {
                Ok(text) => Cow::Borrowed(text),
                Err(_) => String::from_utf8_lossy(b),
            },
            Cow::Owned(b) => Cow::Owned(String::from_utf8_lossy(&b).into_owned()),
        }
    }

    /// Sorts the names by id, keeping each id's last, and indexes the
    /// linkage names by id, each id's first.
    fn finish(&mut self) {
        let ids = &self.linkage_names;
        self.linkage_by_id = (0..ids.len() as u32).collect();
        // A stable sort keeps an id's linkage names in module order.
        self.linkage_by_id.sort_by_key(|&k| ids[k as usize].0);
        self.linkage_by_id
            .dedup_by_key(|k| self.linkage_names[*k as usize].0);
        sort_keeping_last(&mut self.names);
    }

    /// The `OpName` of `id`.
    fn name(&self, id: u32) -> Option<Cow<'w, str>> {
        let k = self.names.binary_search_by_key(&id, |(t, _)| *t).ok()?;
        Some(self.text(self.names[k].1))
    }

    /// The first linkage name of `id`.
    fn linkage_name(&self, id: u32) -> Option<Cow<'w, str>> {
        let list = &self.linkage_names;
        let k = self
            .linkage_by_id
            .binary_search_by_key(&id, |&k| list[k as usize].0)
            .ok()?;
        Some(self.text(list[self.linkage_by_id[k] as usize].1))
    }
}

/// A module-level instruction as [`Defs`] keeps it: its first word's
/// index and the first word itself (8 bytes, where an [`Inst`] takes 24).
#[derive(Debug, Clone, Copy)]
struct PackedInst {
    /// Index of the instruction's first word in the module.
    at: u32,
    /// The first word: word count and opcode.
    header: u32,
}

impl PackedInst {
    /// Packs `inst` (the parse checked that every word index fits in 32
    /// bits).
    fn new(inst: Inst) -> PackedInst {
        PackedInst {
            at: inst.at as u32,
            header: crate::module::header_word(inst.len, inst.opcode),
        }
    }

    /// The instruction.
    fn unpack(self) -> Inst {
        Inst {
            at: self.at as usize,
            opcode: (self.header & 0xffff) as u16,
            len: (self.header >> 16) as usize,
        }
    }
}

/// Module-level definitions by result id (an id defined twice maps to its
/// last definition). Compact: 8 bytes per definition, and an index of 4
/// bytes per id up to the largest defined one when that is at most four
/// times the definitions, 65,536 at least (else the ids sorted, searched
/// by halving: at most 24 bytes per definition either way, where a hash
/// map of `Inst` took 33).
#[derive(Debug, Default)]
pub struct Defs {
    /// The definitions, in module order (dense) or by id (sparse).
    insts: Vec<PackedInst>,
    /// Dense: index + 1 into `insts` of every id up to the largest (0: none).
    dense: Vec<u32>,
    /// Sparse: the id of each of `insts`, ascending.
    sorted_ids: Vec<u32>,
}

impl Defs {
    /// The instruction that defines `id` at module scope.
    #[inline]
    pub fn get(&self, id: u32) -> Option<Inst> {
        let k = match self.dense.get(id as usize) {
            Some(&k) => (k as usize).checked_sub(1)?,
            None if self.sorted_ids.is_empty() => return None,
            None => self.sorted_ids.binary_search(&id).ok()?,
        };
        Some(self.insts[k].unpack())
    }

    /// True when `id` is defined at module scope.
    #[inline]
    pub fn contains(&self, id: u32) -> bool {
        self.get(id).is_some()
    }
}

/// [`Defs`] under construction: the definitions in module order.
#[derive(Default)]
struct DefsBuilder {
    /// `(id, its definition)`, in module order.
    defs: Vec<(u32, PackedInst)>,
    /// The largest id.
    max: u32,
}

impl DefsBuilder {
    /// Records that `inst` defines `id`.
    #[inline]
    fn push(&mut self, id: u32, inst: Inst) {
        self.max = self.max.max(id);
        self.defs.push((id, PackedInst::new(inst)));
    }

    /// The finished index.
    fn finish(mut self) -> Defs {
        let n = self.defs.len();
        if (self.max as usize) <= n.saturating_mul(4).max(1 << 16) {
            let mut dense = crate::zeroed::vec(self.max as usize + 1);
            for (k, &(id, _)) in self.defs.iter().enumerate() {
                dense[id as usize] = k as u32 + 1;
            }
            Defs {
                insts: self.defs.into_iter().map(|(_, i)| i).collect(),
                dense,
                sorted_ids: Vec::new(),
            }
        } else {
            sort_keeping_last(&mut self.defs);
            Defs {
                sorted_ids: self.defs.iter().map(|&(id, _)| id).collect(),
                insts: self.defs.into_iter().map(|(_, i)| i).collect(),
                dense: Vec::new(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names and decorations well formed name only word 1, as the grammar
    /// walk reports them; other instructions, a string with words after it
    /// or without its NUL, or a decoration too short, are not such.
    #[test]
    fn names_and_decorations_name_only_their_target() {
        let head = |op: spirv::Op, len: usize| crate::module::header_word(len, op as u16);
        let abc = u32::from_le_bytes(*b"abc\0");
        let ab = u32::from_le_bytes(*b"abcd");
        let cases: Vec<(Vec<u32>, bool)> = vec![
            (vec![head(spirv::Op::Name, 3), 1, abc], true),
            (vec![head(spirv::Op::Name, 4), 1, ab, 0], true),
            (vec![head(spirv::Op::Decorate, 3), 1, 1], true),
            (vec![head(spirv::Op::Decorate, 4), 1, 1, 5], true),
            (vec![head(spirv::Op::Decorate, 5), 1, 41, abc, 0], true),
            (vec![head(spirv::Op::Name, 4), 1, abc, 7], false),
            (vec![head(spirv::Op::Name, 3), 1, ab], false),
            (vec![head(spirv::Op::Decorate, 2), 1], false),
            (vec![head(spirv::Op::Constant, 4), 1, 2, 3], false),
        ];
        for (words, only) in &cases {
            assert_eq!(names_only_its_target(words), *only, "{words:?}");
            if *only {
                let mut walked = Vec::new();
                for_each_id(words, 0, &|_| 1, &mut |pos, role| walked.push((pos, role)))
                    .expect("the walk takes it");
                assert_eq!(walked, [(1, crate::operands::Role::Use)], "{words:?}");
            }
        }
    }

    /// The definitions read without the grammar walk report exactly the
    /// ids the walk reports, at every length they take; the lengths they
    /// leave to the walk are left to it.
    #[test]
    fn definitions_read_directly_match_the_walk() {
        use crate::operands::Role;
        use spirv::Op;
        let ops = [
            Op::TypeVoid,
            Op::TypeFloat,
            Op::TypeVector,
            Op::TypePointer,
            Op::TypeArray,
            Op::TypeFunction,
            Op::Constant,
            Op::ConstantNull,
            Op::ConstantComposite,
            Op::Variable,
        ];
        let mut taken = 0;
        for op in ops {
            for len in 1..=9 {
                let mut words = vec![crate::module::header_word(len, op as u16)];
                words.extend((1..len as u32).map(|k| 10 + k));
                let Some((typed, result, uses)) = definition_ids(&words) else {
                    continue;
                };
                taken += 1;
                let mut want = Vec::new();
                if typed {
                    want.push((1, Role::ResultType));
                }
                want.push((result, Role::Result));
                want.extend(uses.map(|k| (k, Role::Use)));
                let mut walked = Vec::new();
                for_each_id(&words, 0, &|_| 1, &mut |pos, role| walked.push((pos, role)))
                    .expect("the walk takes it");
                assert_eq!(walked, want, "{op:?} with {len} words");
            }
        }
        assert_eq!(taken, 28, "every layout and length above was compared");
    }

    /// The instructions `Globals::scan_common` reads directly at one length
    /// (capabilities, the memory model, boolean and integer types) hold no
    /// id at that length but their result, as the walk reports them.
    #[test]
    fn instructions_read_directly_match_the_walk() {
        use crate::operands::Role;
        let cases = [
            (CAPABILITY, 2, None),
            (MEMORY_MODEL, 3, None),
            (op::TypeBool, 2, Some(1)),
            (op::TypeInt, 4, Some(1)),
        ];
        for (opcode, len, result) in cases {
            let mut words = vec![crate::module::header_word(len, opcode)];
            words.extend((1..len as u32).map(|k| 10 + k));
            let mut walked = Vec::new();
            for_each_id(&words, 0, &|_| 1, &mut |pos, role| walked.push((pos, role)))
                .expect("the walk takes it");
            let want: Vec<_> = result.map(|r| (r, Role::Result)).into_iter().collect();
            assert_eq!(walked, want, "opcode {opcode} with {len} words");
        }
    }

    /// What the scan records as read by each module-level instruction is
    /// what the grammar walk reports (result types, operands and maybe-ids;
    /// for a name or decoration, not the id it names), on every module the
    /// tests ship (and every fuzz regression that is one): the fast paths
    /// record exactly what the walk would.
    #[test]
    fn reads_recorded_match_the_walk() {
        let mut modules = 0;
        let mut stack = vec![std::path::PathBuf::from("tests")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("a test directory") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "spv" && e != "bin") {
                    continue;
                }
                let bytes = std::fs::read(&path).expect("a module");
                let Ok((words, _)) = crate::module::words_from_bytes(&bytes) else {
                    continue;
                };
                let Ok(m) = Module::parse(&words) else {
                    continue;
                };
                let Ok((_, reads)) = Globals::scan_with_reads(&m) else {
                    continue;
                };
                assert_eq!(reads, ModuleReads::walked(&m), "{}", path.display());
                modules += 1;
            }
        }
        assert!(modules > 30, "only {modules} modules were compared");
    }

    /// A function without an `OpName` is named by its first linkage name
    /// in module order, found by id.
    #[test]
    fn functions_are_named_by_their_first_linkage_name() {
        let word = |s: &[u8; 4]| u32::from_le_bytes(*s);
        let words = [word(b"a\0\0\0"), word(b"b\0\0\0"), word(b"c\0\0\0")];
        let mut g = Globals::default();
        g.strings.words = &words;
        for (id, at) in [(9, 0), (5, 1), (9, 2), (2, 2)] {
            let (s, _) = StringAt::find(&words, at, at + 1).expect("a string");
            g.strings.linkage_names.push((id, s));
        }
        let (s, _) = StringAt::find(&words, 2, 3).expect("a string");
        g.strings.names.push((5, s));
        g.strings.finish();
        assert_eq!(g.function_name(9), "a");
        assert_eq!(g.function_name(5), "c", "the OpName comes first");
        assert_eq!(g.function_name(2), "c");
        assert_eq!(g.function_name(3), "%3");
        let named_c: Vec<_> = g.ids_named("c").collect();
        assert_eq!(
            named_c,
            [5, 9, 2],
            "the OpName, then the linkage names in order"
        );
    }

    /// Strings are decoded where they lie when asked for: one that fills
    /// its words has a word of NULs after it, bytes that are not UTF-8
    /// read as U+FFFD, and a search by name compares the bytes.
    #[test]
    fn strings_are_decoded_where_they_lie() {
        let word = |s: &[u8; 4]| u32::from_le_bytes(*s);
        let words = [word(b"abcd"), 0, word(b"a\xffz\0"), word(b"abc\0")];
        let mut g = Globals::default();
        g.strings.words = &words;
        for (id, at, end, n) in [(1, 0, 2, 2), (2, 2, 3, 1), (3, 3, 4, 1)] {
            let (s, taken) = StringAt::find(&words, at, end).expect("a string");
            assert_eq!(taken, n);
            g.strings.names.push((id, s));
        }
        g.strings.finish();
        assert_eq!(g.name(1).as_deref(), Some("abcd"));
        assert_eq!(g.name(2).as_deref(), Some("a\u{FFFD}z"));
        assert_eq!(g.name(3).as_deref(), Some("abc"));
        assert_eq!(g.name(4), None);
        assert_eq!(g.ids_named("abc").collect::<Vec<_>>(), [3]);
        assert_eq!(g.ids_named("abcd").collect::<Vec<_>>(), [1]);
        assert!(
            StringAt::find(&words, 0, 1).is_err(),
            "no NUL before the end"
        );
    }

    #[test]
    fn unnamed_functions_are_named_by_id() {
        let g = Globals::default();
        for id in [0, 7, 10, 99, 1000, 4_294_967_295] {
            assert_eq!(g.function_name(id), format!("%{id}"));
        }
    }

    /// The dense index and the sorted ids (a definition far beyond the
    /// others) find the same instructions, an id defined twice its last
    /// definition.
    #[test]
    fn dense_and_sparse_defs_agree() {
        let inst = |at: usize, opcode: u16, len: usize| Inst { at, opcode, len };
        let defs = [
            (7, inst(10, 1, 3)),
            (3, inst(13, 2, 4)),
            (7, inst(17, 3, 2)),
            (100, inst(19, 4, 65535)),
        ];
        let build = |far: Option<u32>| {
            let mut b = DefsBuilder::default();
            for &(id, i) in &defs {
                b.push(id, i);
            }
            if let Some(id) = far {
                b.push(id, inst(30, 5, 1));
            }
            b.finish()
        };
        let (dense, sparse) = (build(None), build(Some(u32::MAX - 1)));
        assert!(!dense.dense.is_empty() && sparse.dense.is_empty());
        for (id, want) in [
            (7, Some(defs[2].1)),
            (3, Some(defs[1].1)),
            (100, Some(defs[3].1)),
            (0, None),
            (8, None),
            (101, None),
            (u32::MAX, None),
        ] {
            assert_eq!(dense.get(id), want, "{id}");
            assert_eq!(sparse.get(id), want, "{id}");
            assert_eq!(dense.contains(id), want.is_some(), "{id}");
        }
        assert_eq!(sparse.get(u32::MAX - 1), Some(inst(30, 5, 1)));
        assert_eq!(dense.get(u32::MAX - 1), None);
    }
}
