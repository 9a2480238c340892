//! The ids each module-level instruction reads, recorded by the same
//! walk that gathers [`Globals`](super::Globals).

use crate::module::Module;
use crate::operands::{for_each_id, is_annotation};

use super::{is_read, names_only_its_target, reader};

/// The ids each module-level instruction reads, in module order, made by the
/// same walk as the rest of [`Globals`](super::Globals) so that no later pass
/// decodes the module-level instructions again to learn them: per instruction
/// that reads any, its result type and operand ids (and the words that may be
/// ids) as [`for_each_id`] reports them, with the instruction's "reader": its
/// result, or for a name or decoration the id it names (a decoration's other
/// ids are read on that id's behalf). Names and decorations whose only id is
/// the one they name read nothing.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct ModuleReads {
    /// `(its index in Module::globals, its reader or 0 for an instruction
    /// without one, where its ids end in ids)` of each instruction that
    /// reads an id.
    readers: Vec<(u32, u32, u32)>,
    /// The ids read, one instruction after another.
    pub(super) ids: Vec<u32>,
    /// The index in `Module::globals` of the instruction being recorded.
    global: u32,
}

impl ModuleReads {
    /// Room for what `globals` module-level instructions of a small module
    /// read (a larger module's lists grow as they go).
    pub(super) fn with_room(globals: usize) -> ModuleReads {
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
    pub(super) fn begin(&mut self, k: usize) {
        self.global = k as u32;
    }

    /// Records that an instruction whose reader is `reader` (0: none)
    /// reads `first` (its result type, or an entry point's function), if
    /// any, then `rest`.
    #[inline]
    pub(super) fn record(&mut self, reader: u32, first: Option<u32>, rest: &[u32]) {
        let start = self.ids.len();
        self.ids.extend(first);
        self.ids.extend_from_slice(rest);
        self.close(reader, start);
    }

    /// Ends the instruction whose ids were pushed from `start` on (nothing
    /// is recorded when it read none).
    #[inline]
    pub(super) fn close(&mut self, reader: u32, start: usize) {
        if self.ids.len() > start {
            self.readers
                .push((self.global, reader, self.ids.len() as u32));
        }
    }

    /// What the grammar walk says each module-level instruction of `m`
    /// reads (the scan's fast paths must agree: fuzz builds and a unit
    /// test compare them). `m`'s instructions are the scan's, which the
    /// walk has taken without error.
    pub(super) fn walked(m: &Module<'_>) -> ModuleReads {
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
