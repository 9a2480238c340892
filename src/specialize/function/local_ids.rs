//! Maps keyed by a function's own result ids, without hashing.
//!
//! A producer numbers a function's results in one run, so the ids a
//! function defines fill a narrow window `[lo, lo + len)` of the id space.
//! [`LocalMap`] (the full rewrite's) keeps one slot per id of that window
//! (found by a pre-pass over the function's result words) and sends any
//! key outside it to a hash map, so a hostile numbering costs speed, never
//! correctness or memory beyond a small multiple of the function's size.
//! [`StampedMap`] (the quick read's) keeps only the window, which it
//! need not know exactly ([`Window::around`] a function's first result
//! serves most functions without a pre-pass), and is emptied from one
//! function to the next without a write to its slots.

use crate::fastmap::Map as HashMap;

/// The ids a function's instructions may define, as a window of the id
/// space; empty when the ids are too spread out for one slot per id.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Window {
    lo: u32,
    len: usize,
}

impl Window {
    /// The window spanning `lo..=hi`, or an empty one when that is more
    /// than a few slots per instruction (`insts`).
    pub(super) fn new(lo: u32, hi: u32, insts: usize) -> Window {
        if lo > hi {
            return Window::default();
        }
        let len = (hi - lo) as usize + 1;
        if len > insts.saturating_mul(8).saturating_add(1024) {
            return Window::default();
        }
        Window { lo, len }
    }

    /// The window of `words` words' ids on either side of `id`: room for
    /// every id a function of `words` words defines when its producer
    /// numbered them in one run that takes in `id`, whatever their order.
    pub(super) fn around(id: u32, words: usize) -> Window {
        let words = u32::try_from(words).unwrap_or(u32::MAX);
        let lo = id.saturating_sub(words);
        let hi = id.saturating_add(words);
        Window {
            lo,
            len: (hi - lo) as usize + 1,
        }
    }

    /// The slot of `id`, when it is in the window.
    #[inline]
    pub(super) fn slot(&self, id: u32) -> Option<usize> {
        let k = id.wrapping_sub(self.lo) as usize;
        (k < self.len).then_some(k)
    }
}

/// A map from ids to indices (`usize`), dense over a [`Window`].
#[derive(Default)]
pub(super) struct LocalMap {
    window: Window,
    /// `usize::MAX` marks an empty slot.
    slots: Vec<usize>,
    outside: HashMap<u32, usize>,
}

impl LocalMap {
    /// Empties the map and gives it one slot per id of `window`, reusing
    /// its storage.
    pub(super) fn reset(&mut self, window: Window) {
        self.window = window;
        self.slots.clear();
        self.slots.resize(window.len, usize::MAX);
        self.outside.clear();
    }

    /// The slot of `id`, when it is in the window: one comparison, as
    /// the slots are exactly the window's.
    #[inline(always)]
    fn slot(&self, id: u32) -> Option<&usize> {
        self.slots.get(id.wrapping_sub(self.window.lo) as usize)
    }

    /// [`LocalMap::slot`], to change.
    #[inline(always)]
    fn slot_mut(&mut self, id: u32) -> Option<&mut usize> {
        self.slots.get_mut(id.wrapping_sub(self.window.lo) as usize)
    }

    /// Sets `id`'s value; returns the value it had.
    pub(super) fn insert(&mut self, id: u32, value: usize) -> Option<usize> {
        match self.slot_mut(id) {
            Some(v) => {
                let old = std::mem::replace(v, value);
                (old != usize::MAX).then_some(old)
            }
            None => self.outside.insert(id, value),
        }
    }

    /// Sets `id`'s value to `value` if it has none and returns true;
    /// false, changing nothing, when it has one.
    #[inline(always)]
    pub(super) fn insert_new(&mut self, id: u32, value: usize) -> bool {
        match self.slot_mut(id) {
            Some(v) if *v == usize::MAX => {
                *v = value;
                true
            }
            Some(_) => false,
            None => self.insert_new_outside(id, value),
        }
    }

    /// [`LocalMap::insert_new`] of an id outside the window.
    #[inline(never)]
    fn insert_new_outside(&mut self, id: u32, value: usize) -> bool {
        match self.outside.entry(id) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(value);
                true
            }
            std::collections::hash_map::Entry::Occupied(_) => false,
        }
    }

    /// The slot of `id` when it is in the window and has no value.
    #[inline]
    pub(super) fn free_slot(&self, id: u32) -> Option<usize> {
        let k = self.window.slot(id)?;
        (self.slots[k] == usize::MAX).then_some(k)
    }

    /// True when slot `k` (of a map reset with the same window as the
    /// one [`LocalMap::free_slot`] gave it) has no value.
    #[inline]
    pub(super) fn is_free(&self, k: usize) -> bool {
        self.slots.get(k) == Some(&usize::MAX)
    }

    /// Sets slot `k` (see [`LocalMap::is_free`]) to `value`.
    #[inline]
    pub(super) fn set_slot(&mut self, k: usize, value: usize) {
        self.slots[k] = value;
    }

    /// The value of `id`.
    #[inline]
    pub(super) fn get(&self, id: &u32) -> Option<&usize> {
        match self.slot(*id) {
            Some(v) => Some(v).filter(|v| **v != usize::MAX),
            // Most keys looked up outside the window are module-level ids,
            // and the map outside it is mostly empty: no hashing then.
            None if self.outside.is_empty() => None,
            None => self.outside.get(id),
        }
    }

    /// True when `id` has a value.
    pub(super) fn contains_key(&self, id: &u32) -> bool {
        self.get(id).is_some()
    }
}

impl std::ops::Index<&u32> for LocalMap {
    type Output = usize;

    fn index(&self, id: &u32) -> &usize {
        self.get(id).expect("id has no entry in the local map")
    }
}

/// What [`StampedSlots::define`] did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Define {
    /// The id had no value and has the one given.
    New,
    /// The id has a value already.
    Taken,
    /// The id is outside the window.
    Outside,
    /// The id had no value and has the one given, but was read before
    /// ([`StampedSlots::mark_read`]).
    AfterRead,
}

/// A map from ids to values below 2²⁴, dense over a window and nothing
/// else, emptied without touching its slots: each slot holds the
/// generation that wrote it above its value, and a slot of another
/// generation has no value. A slot with no value may be marked as read
/// (the generation with [`READ`] set, no value), which the id's later
/// definition reports. The slots only grow, to the largest window asked
/// for, and are cleared once every 127 generations, so a run of functions
/// fills them about once (four bytes a slot).
#[derive(Default)]
pub(super) struct StampedMap {
    lo: u32,
    /// Each slot: its generation in the top byte, its value below.
    slots: Vec<u32>,
    /// The current generation, 1 to 127 (0 marks a slot never written).
    generation: u32,
}

/// The bits of a [`StampedMap`] slot that hold its value.
const VALUE_BITS: u32 = 24;

/// The bit of a slot's stamp (its generation) that marks an id read before
/// it has a value: the slot reads as empty all the same.
const READ: u32 = 0x80;

impl StampedMap {
    /// Empties the map and gives it a slot for every id of `window` at
    /// least (its slots past the window serve the ids after it).
    pub(super) fn reset(&mut self, window: Window) {
        self.generation += 1;
        if self.generation >= READ {
            // (Generations start again: no slot may hold a current one.)
            self.slots.fill(0);
            self.generation = 1;
        }
        if self.slots.len() < window.len {
            self.slots.resize(window.len, 0);
        }
        self.lo = window.lo;
    }

    /// The value of `id`.
    #[inline(always)]
    pub(super) fn get(&self, id: u32) -> Option<usize> {
        self.view().get(id)
    }

    /// The map to fill in a loop: its parts copied out, so that they stay
    /// in registers while other lists are written.
    #[inline(always)]
    pub(super) fn slots_mut(&mut self) -> StampedSlots<'_> {
        StampedSlots {
            lo: self.lo,
            slots: &mut self.slots,
            generation: self.generation,
        }
    }

    /// The map to read in a loop: its parts copied out, so that they
    /// stay in registers.
    #[inline(always)]
    pub(super) fn view(&self) -> StampedView<'_> {
        StampedView {
            lo: self.lo,
            slots: &self.slots,
            generation: self.generation,
        }
    }
}

/// A [`StampedMap`] to fill ([`StampedMap::slots_mut`]).
pub(super) struct StampedSlots<'a> {
    lo: u32,
    slots: &'a mut [u32],
    generation: u32,
}

impl StampedSlots<'_> {
    /// Gives `id` the value `value` when it is in the window, has none,
    /// and `value` is below 2²⁴; else changes nothing and says why.
    #[inline(always)]
    pub(super) fn define(&mut self, id: u32, value: usize) -> Define {
        let generation = self.generation;
        match self.slots.get_mut(id.wrapping_sub(self.lo) as usize) {
            Some(slot) if *slot >> VALUE_BITS == generation => Define::Taken,
            // (Values are indices of a function's instructions.)
            Some(slot) if value < 1 << VALUE_BITS => {
                let read = *slot == (generation | READ) << VALUE_BITS;
                *slot = generation << VALUE_BITS | value as u32;
                if read { Define::AfterRead } else { Define::New }
            }
            _ => Define::Outside,
        }
    }

    /// Marks `id`, in the window with no value ([`Slot::Empty`]), as
    /// read: its definition, if one comes, says so ([`Define::AfterRead`]).
    #[inline(always)]
    pub(super) fn mark_read(&mut self, id: u32) {
        if let Some(slot) = self.slots.get_mut(id.wrapping_sub(self.lo) as usize) {
            *slot = (self.generation | READ) << VALUE_BITS;
        }
    }

    /// The map to read.
    #[inline(always)]
    pub(super) fn view(&self) -> StampedView<'_> {
        StampedView {
            lo: self.lo,
            slots: self.slots,
            generation: self.generation,
        }
    }
}

/// A [`StampedMap`] to read ([`StampedMap::view`]).
#[derive(Clone, Copy)]
pub(super) struct StampedView<'a> {
    lo: u32,
    slots: &'a [u32],
    generation: u32,
}

/// What [`StampedView::slot`] finds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Slot {
    /// The id is in the window and has this value.
    Value(usize),
    /// The id is in the window and has no value.
    Empty,
    /// The id is outside the window.
    Outside,
}

impl StampedView<'_> {
    /// What the slot of `id` holds.
    #[inline(always)]
    pub(super) fn slot(&self, id: u32) -> Slot {
        // (A slot of this generation holds its value with the stamp on
        // top: taking the stamp off leaves the value, below 2²⁴; any
        // other stamp leaves more.)
        match self.slots.get(id.wrapping_sub(self.lo) as usize) {
            Some(&s) => match s ^ self.generation << VALUE_BITS {
                v if v < 1 << VALUE_BITS => Slot::Value(v as usize),
                _ => Slot::Empty,
            },
            None => Slot::Outside,
        }
    }

    /// The value of `id`.
    #[inline(always)]
    pub(super) fn get(&self, id: u32) -> Option<usize> {
        match self.slot(id) {
            Slot::Value(v) => Some(v),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Define, LocalMap, READ, Slot, StampedMap, Window};

    #[test]
    fn a_stamped_map_empties_in_one_step_and_keeps_to_its_window() {
        let mut m = StampedMap::default();
        m.reset(Window::new(10, 20, 4));
        assert_eq!(m.slots_mut().define(10, 1), Define::New);
        assert_eq!(m.slots_mut().define(20, 2), Define::New);
        assert_eq!(m.slots_mut().define(10, 3), Define::Taken);
        assert_eq!(m.slots_mut().define(9, 3), Define::Outside);
        assert_eq!(m.slots_mut().define(21, 3), Define::Outside);
        assert_eq!(m.slots_mut().define(11, 1 << 24), Define::Outside);
        assert_eq!((m.get(10), m.get(20), m.get(11)), (Some(1), Some(2), None));
        assert_eq!(m.view().slot(15), Slot::Empty);
        assert_eq!(m.view().slot(5), Slot::Outside);
        // A window starting higher: the old values are gone, the slots
        // reach past it.
        m.reset(Window::new(15, 16, 1));
        assert_eq!((m.get(15), m.get(20)), (None, None));
        assert_eq!(m.slots_mut().define(25, 4), Define::New);
        assert_eq!(m.get(25), Some(4));
        // Generations start again without a stale slot coming back.
        m.generation = READ - 1;
        m.reset(Window::new(15, 16, 1));
        assert_eq!(m.get(25), None);
        assert_eq!(m.slots_mut().define(25, 5), Define::New);
        assert_eq!(m.get(25), Some(5));
    }

    #[test]
    fn an_id_marked_read_reads_as_empty_and_its_definition_says_so() {
        let mut m = StampedMap::default();
        m.reset(Window::new(10, 20, 4));
        m.slots_mut().mark_read(12);
        // (Outside the window: nothing to mark.)
        m.slots_mut().mark_read(30);
        assert_eq!(m.view().slot(12), Slot::Empty);
        assert_eq!(m.get(12), None);
        assert_eq!(m.slots_mut().define(12, 1), Define::AfterRead);
        assert_eq!(m.get(12), Some(1));
        assert_eq!(m.slots_mut().define(12, 2), Define::Taken);
        assert_eq!(m.slots_mut().define(13, 3), Define::New);
        // The next function's map: the mark is gone with its generation,
        // also when the generations start again.
        m.slots_mut().mark_read(14);
        m.reset(Window::new(10, 20, 4));
        assert_eq!(m.slots_mut().define(14, 4), Define::New);
        m.slots_mut().mark_read(15);
        m.generation = READ - 1;
        m.slots_mut().mark_read(16);
        m.reset(Window::new(10, 20, 4));
        assert_eq!(m.generation, 1);
        assert_eq!(m.slots_mut().define(15, 5), Define::New);
        assert_eq!(m.slots_mut().define(16, 6), Define::New);
    }

    #[test]
    fn inside_and_outside_the_window_agree() {
        let mut m = LocalMap::default();
        m.reset(Window::new(10, 20, 4));
        assert_eq!(m.insert(10, 1), None);
        assert_eq!(m.insert(20, 2), None);
        assert_eq!(m.insert(5, 3), None);
        assert_eq!(m.insert(u32::MAX, 4), None);
        assert_eq!(m.insert(10, 5), Some(1));
        assert_eq!(m.get(&10), Some(&5));
        assert_eq!(m.get(&20), Some(&2));
        assert_eq!(m.get(&5), Some(&3));
        assert_eq!(m[&u32::MAX], 4);
        assert!(!m.contains_key(&11) && !m.contains_key(&21) && !m.contains_key(&0));
        m.reset(Window::new(30, 31, 1));
        assert!(!m.contains_key(&5) && !m.contains_key(&30));
    }

    #[test]
    fn spread_ids_use_no_window() {
        assert_eq!(Window::new(1, 1 << 30, 10).slot(1), None);
        assert_eq!(Window::new(5, 4, 10).slot(5), None);
        assert_eq!(Window::new(7, 7, 0).slot(7), Some(0));
    }
}
