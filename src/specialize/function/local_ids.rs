//! Maps keyed by a function's own result ids, without hashing.
//!
//! A producer numbers a function's results in one run, so the ids a
//! function defines fill a narrow window `[lo, lo + len)` of the id space.
//! [`LocalMap`] keeps one slot per id of that window (found by a pre-pass
//! over the function's result words) and sends any key outside it to a
//! hash map, so a hostile numbering costs speed, never correctness or
//! memory beyond a small multiple of the function's size.

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

    /// Sets `id`'s value to `new` if it is `expected`; true when it was.
    pub(super) fn replace_if(&mut self, id: u32, expected: usize, new: usize) -> bool {
        let slot = match self.slot_mut(id) {
            Some(v) => v,
            None => match self.outside.get_mut(&id) {
                Some(v) => v,
                None => return false,
            },
        };
        let hit = *slot == expected;
        if hit {
            *slot = new;
        }
        hit
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

    /// The map to read in a loop: its parts copied out, so that they
    /// stay in registers.
    #[inline(always)]
    pub(super) fn view(&self) -> LocalView<'_> {
        LocalView {
            lo: self.window.lo,
            slots: &self.slots,
            outside: (!self.outside.is_empty()).then_some(&self.outside),
        }
    }

    /// True when `id` has a value.
    pub(super) fn contains_key(&self, id: &u32) -> bool {
        self.get(id).is_some()
    }
}

/// A [`LocalMap`] to read ([`LocalMap::view`]).
#[derive(Clone, Copy)]
pub(super) struct LocalView<'a> {
    lo: u32,
    slots: &'a [usize],
    /// The map outside the window, when it holds anything.
    outside: Option<&'a HashMap<u32, usize>>,
}

impl LocalView<'_> {
    /// The value of `id`, as [`LocalMap::get`] gives it.
    #[inline(always)]
    pub(super) fn get(&self, id: u32) -> Option<usize> {
        match self.slots.get(id.wrapping_sub(self.lo) as usize) {
            Some(&v) => (v != usize::MAX).then_some(v),
            None => self.outside.and_then(|m| m.get(&id).copied()),
        }
    }
}

impl std::ops::Index<&u32> for LocalMap {
    type Output = usize;

    fn index(&self, id: &u32) -> &usize {
        self.get(id).expect("id has no entry in the local map")
    }
}

#[cfg(test)]
mod tests {
    use super::{LocalMap, Window};

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
