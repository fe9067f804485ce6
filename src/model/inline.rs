//! [`InlineVec`]: the storage of the model's short vectors (dimensions,
//! dynamic flags, minor_to_major, tiles and a tile's bounds).
//!
//! Up to `N` values are kept in place and only longer vectors allocate, so
//! that decoding or parsing a typical shape (rank 6 or less, two tiles or
//! fewer) allocates nothing for its array. This is a small type of the
//! crate's own rather than `smallvec::SmallVec` because the model lends
//! some of these vectors as `&mut Vec<T>` (`Layout::minor_to_major_mut`,
//! `Layout::tiles_mut`), which a `SmallVec` cannot do: here the values then
//! move to the heap once ([`InlineVec::as_mut_vec`]) and stay there.
//!
//! Everything else sees a slice: `==`, `Hash` and `Debug` are those of
//! `[T]` (as `Vec<T>`'s are), so replacing a `Vec` by an `InlineVec` changes
//! no comparison, hash or printed form.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

/// Dimension sizes and minor_to_major: in place up to rank 6.
pub(crate) type Dims = InlineVec<i64, 6>;

/// Dynamic-dimension flags: in place up to 15, the most that fit in the
/// 24 bytes a `Vec` takes, so they cost no more than one.
pub(crate) type DynamicFlags = InlineVec<bool, 15>;

/// A tile's bounds: in place up to four.
pub(crate) type TileBounds = InlineVec<i64, 4>;

/// A vector of `T` that keeps up to `N` (at most 255) values in place.
#[derive(Clone)]
pub(crate) enum InlineVec<T, const N: usize> {
    /// `len` values at the start of `items`; the rest are `T::default()`,
    /// or for `Copy` values (which own nothing) left over from before a
    /// [`clear_copies`](InlineVec::clear_copies).
    Inline { len: u8, items: [T; N] },
    /// More than `N` values, or lent as a `Vec`.
    Heap(Vec<T>),
}

impl<T: Default, const N: usize> Default for InlineVec<T, N> {
    #[inline(always)]
    fn default() -> Self {
        const { assert!(N <= u8::MAX as usize) };
        InlineVec::Inline {
            len: 0,
            items: std::array::from_fn(|_| T::default()),
        }
    }
}

impl<T: Copy, const N: usize> InlineVec<T, N> {
    /// An empty vector whose slots hold `fill`, usable in constants: the
    /// empty layouts and shapes the parsers and decoders fill in place are
    /// constants built from it (`Layout::EMPTY`, `Shape::slot`), written
    /// with a few stores, where `default` builds the slots one by one and
    /// the compiler moved them through the stack (the HLO parse spent half
    /// its time there; BENCHMARKS.md).
    pub(crate) const fn empty(fill: T) -> Self {
        const { assert!(N <= u8::MAX as usize) };
        InlineVec::Inline {
            len: 0,
            items: [fill; N],
        }
    }
}

impl<T, const N: usize> InlineVec<T, N> {
    /// The values.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[T] {
        match self {
            InlineVec::Inline { len, items } => &items[..*len as usize],
            InlineVec::Heap(v) => v,
        }
    }

    /// The values, mutable.
    #[inline]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        match self {
            InlineVec::Inline { len, items } => &mut items[..*len as usize],
            InlineVec::Heap(v) => v,
        }
    }
}

impl<T: Default, const N: usize> InlineVec<T, N> {
    /// An empty vector.
    #[inline]
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The values as a `Vec`, moving them to the heap if they are in place
    /// (they stay there afterwards).
    pub(crate) fn as_mut_vec(&mut self) -> &mut Vec<T> {
        if let InlineVec::Inline { len, items } = self {
            let mut v = Vec::with_capacity(N.max(1) * 2);
            v.extend(items[..*len as usize].iter_mut().map(std::mem::take));
            *self = InlineVec::Heap(v);
        }
        match self {
            InlineVec::Heap(v) => v,
            InlineVec::Inline { .. } => unreachable!("moved to the heap above"),
        }
    }

    /// Appends `value`.
    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        match self {
            InlineVec::Inline { len, items } if (*len as usize) < N => {
                items[*len as usize] = value;
                *len += 1;
            }
            _ => self.as_mut_vec().push(value),
        }
    }

    /// Room for `additional` more values: nothing while they fit in place.
    #[inline]
    pub(crate) fn reserve(&mut self, additional: usize) {
        match self {
            InlineVec::Heap(v) => v.reserve(additional),
            InlineVec::Inline { len, .. } if *len as usize + additional <= N => {}
            _ => self.as_mut_vec().reserve(additional),
        }
    }

    /// Keeps the first `n` values (all of them if there are fewer).
    pub(crate) fn truncate(&mut self, n: usize) {
        match self {
            InlineVec::Inline { len, items } => {
                for item in items.iter_mut().take(*len as usize).skip(n) {
                    *item = T::default();
                }
                *len = (*len).min(n.min(N) as u8);
            }
            InlineVec::Heap(v) => v.truncate(n),
        }
    }

    /// Removes every value, keeping the storage: for `Copy` values, which
    /// own nothing, the slots in place are left as they are rather than
    /// written back to their default (the decoders reuse vectors this way).
    #[inline(always)]
    pub(crate) fn clear_copies(&mut self)
    where
        T: Copy,
    {
        match self {
            InlineVec::Inline { len, .. } => *len = 0,
            InlineVec::Heap(v) => v.clear(),
        }
    }

    /// Removes every value.
    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }

    /// Keeps the values for which `keep` is true, in order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        match self {
            InlineVec::Inline { len, items } => {
                let mut kept = 0;
                for i in 0..*len as usize {
                    if keep(&items[i]) {
                        items.swap(kept, i);
                        kept += 1;
                    }
                }
                for item in &mut items[kept..*len as usize] {
                    *item = T::default();
                }
                *len = kept as u8;
            }
            InlineVec::Heap(v) => v.retain(keep),
        }
    }

    /// Inserts `value` at `index`, shifting the values after it.
    ///
    /// # Panics
    ///
    /// If `index > len` (as `Vec::insert`).
    pub(crate) fn insert(&mut self, index: usize, value: T) {
        match self {
            InlineVec::Inline { len, items } if (*len as usize) < N => {
                let n = *len as usize;
                assert!(index <= n, "insertion index {index} is past the length {n}");
                items[n] = value;
                items[index..=n].rotate_right(1);
                *len += 1;
            }
            _ => self.as_mut_vec().insert(index, value),
        }
    }
}

impl<T: Clone + Default, const N: usize> InlineVec<T, N> {
    /// A vector holding a copy of `values`.
    pub(crate) fn from_slice(values: &[T]) -> Self {
        if values.len() <= N {
            let mut items: [T; N] = std::array::from_fn(|_| T::default());
            items[..values.len()].clone_from_slice(values);
            InlineVec::Inline {
                len: values.len() as u8,
                items,
            }
        } else {
            InlineVec::Heap(values.to_vec())
        }
    }
}

impl<T, const N: usize> Deref for InlineVec<T, N> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T, const N: usize> DerefMut for InlineVec<T, N> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T, const N: usize> AsRef<[T]> for InlineVec<T, N> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T, const N: usize> std::borrow::Borrow<[T]> for InlineVec<T, N> {
    fn borrow(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Default, const N: usize> From<Vec<T>> for InlineVec<T, N> {
    /// Short vectors move in place (freeing their buffer), long ones are
    /// kept as they are.
    fn from(v: Vec<T>) -> Self {
        if v.len() <= N {
            let mut out = Self::default();
            if let InlineVec::Inline { len, items } = &mut out {
                *len = v.len() as u8;
                for (slot, value) in items.iter_mut().zip(v) {
                    *slot = value;
                }
            }
            out
        } else {
            InlineVec::Heap(v)
        }
    }
}

impl<T: Default, const N: usize> FromIterator<T> for InlineVec<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut out = Self::default();
        out.extend(iter);
        out
    }
}

impl<T: Default, const N: usize> Extend<T> for InlineVec<T, N> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for value in iter {
            self.push(value);
        }
    }
}

impl<'a, T, const N: usize> IntoIterator for &'a InlineVec<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a, T, const N: usize> IntoIterator for &'a mut InlineVec<T, N> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_mut_slice().iter_mut()
    }
}

impl<T: PartialEq, const N: usize> PartialEq for InlineVec<T, N> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq, const N: usize> Eq for InlineVec<T, N> {}

impl<T: PartialEq, const N: usize> PartialEq<[T]> for InlineVec<T, N> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: PartialEq, const N: usize> PartialEq<Vec<T>> for InlineVec<T, N> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Hash, const N: usize> Hash for InlineVec<T, N> {
    /// The slice's hash, as `Vec<T>`'s is.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl<T: fmt::Debug, const N: usize> fmt::Debug for InlineVec<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type V = InlineVec<i64, 3>;

    fn is_inline(v: &V) -> bool {
        matches!(v, InlineVec::Inline { .. })
    }

    #[test]
    fn pushes_stay_in_place_up_to_n_then_move_to_the_heap() {
        let mut v = V::new();
        let mut reference = Vec::new();
        for x in 0..7 {
            v.push(x);
            reference.push(x);
            assert_eq!(v.as_slice(), reference.as_slice());
            assert_eq!(is_inline(&v), reference.len() <= 3);
        }
    }

    #[test]
    fn every_edit_matches_vec_in_place_and_on_the_heap() {
        for n in 0..6i64 {
            let start: Vec<i64> = (10..10 + n).collect();
            for index in 0..=n as usize {
                let mut v = V::from(start.clone());
                let mut r = start.clone();
                v.insert(index, -1);
                r.insert(index, -1);
                assert_eq!(v, r, "insert {index} into {start:?}");
                v.truncate(index);
                r.truncate(index);
                assert_eq!(v, r, "truncate {start:?} to {index}");
            }
            for keep_odd in [false, true] {
                let mut v = V::from_slice(&start);
                let mut r = start.clone();
                v.retain(|x| (x % 2 == 1) == keep_odd);
                r.retain(|x| (x % 2 == 1) == keep_odd);
                assert_eq!(v, r);
                // Slots past the length are back to their default.
                if let InlineVec::Inline { len, items } = &v {
                    assert!(items[*len as usize..].iter().all(|&x| x == 0));
                }
            }
            let v: V = start.iter().copied().collect();
            assert_eq!(is_inline(&v), n <= 3);
            assert_eq!(v.as_slice(), start.as_slice());
        }
    }

    #[test]
    fn lending_a_vec_moves_the_values_once() {
        let mut v = V::from_slice(&[3, 1, 2]);
        v.as_mut_vec().push(0);
        assert!(!is_inline(&v));
        assert_eq!(v, vec![3, 1, 2, 0]);
        v.clear();
        assert!(is_inline(&v) && v.is_empty());
    }

    #[test]
    fn equality_and_hash_are_the_slices() {
        use std::hash::BuildHasher;
        let s = std::collections::hash_map::RandomState::new();
        let mut heap = V::from_slice(&[1, 2]);
        heap.as_mut_vec();
        let inline = V::from_slice(&[1, 2]);
        assert_eq!(heap, inline);
        assert_eq!(s.hash_one(&heap), s.hash_one(&inline));
        assert_eq!(s.hash_one(&inline), s.hash_one(vec![1i64, 2]));
        assert_eq!(format!("{inline:?}"), "[1, 2]");
    }
}
