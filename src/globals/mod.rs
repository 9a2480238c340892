//! What the module-level instructions say, gathered in one pass: definitions
//! by id, names, `SpecId` and linkage decorations, entry points, and the
//! boolean and integer types the rewrite needs.

use std::borrow::Cow;
use std::ops::Range;

use crate::fastmap::{Map as HashMap, Set as HashSet};

use crate::error::Result;
use crate::module::{
    Inst, Module, check_inst_id, literal_string, literal_string_words, must_be_id, shrink_spare,
};
use crate::operands::{Role, for_each_id, is_annotation, op, result_pos};

mod defs;
mod reads;
mod strings;

pub(crate) use defs::Defs;
use defs::DefsBuilder;
pub(crate) use reads::ModuleReads;
use strings::{StringAt, Strings};

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
        let mut reads = ModuleReads::with_room(m.globals().len());
        // (Room for the names and definitions of a small module, in one
        // allocation each; every module-level instruction defines one id
        // at most.)
        g.strings.names.reserve(32);
        let mut defs = DefsBuilder::with_room(m.globals().len());
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
}
