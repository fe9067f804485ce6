//! [`ShapeIndex`]: a path to a subshape.

/// A path of tuple-element indices from the root of a shape (XLA's
/// `ShapeIndex`); the empty index is the whole shape.
///
/// ```
/// use xla_shape::ShapeIndex;
/// let i = ShapeIndex::from([1, 2, 42]);
/// assert_eq!(i.to_string(), "{1,2,42}");
/// assert_eq!(ShapeIndex::new().to_string(), "{}");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShapeIndex(Vec<i64>);

impl ShapeIndex {
    /// The empty index `{}`.
    pub fn new() -> Self {
        ShapeIndex(Vec::new())
    }

    /// The indices, root first.
    pub fn as_slice(&self) -> &[i64] {
        &self.0
    }

    /// Number of steps.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether this is the root index `{}`.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Appends a step.
    pub fn push(&mut self, i: i64) {
        self.0.push(i);
    }

    /// Removes the last step.
    pub fn pop(&mut self) -> Option<i64> {
        self.0.pop()
    }

    /// XLA's `push_front`.
    pub fn push_front(&mut self, i: i64) {
        self.0.insert(0, i);
    }

    /// XLA's `pop_front`.
    pub fn pop_front(&mut self) -> Option<i64> {
        if self.0.is_empty() {
            None
        } else {
            Some(self.0.remove(0))
        }
    }
}

impl std::ops::Deref for ShapeIndex {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        &self.0
    }
}

impl<const N: usize> From<[i64; N]> for ShapeIndex {
    fn from(a: [i64; N]) -> Self {
        ShapeIndex(a.to_vec())
    }
}

impl From<Vec<i64>> for ShapeIndex {
    fn from(v: Vec<i64>) -> Self {
        ShapeIndex(v)
    }
}

impl From<&[i64]> for ShapeIndex {
    fn from(v: &[i64]) -> Self {
        ShapeIndex(v.to_vec())
    }
}

impl From<ShapeIndex> for Vec<i64> {
    fn from(i: ShapeIndex) -> Vec<i64> {
        i.0
    }
}

impl FromIterator<i64> for ShapeIndex {
    fn from_iter<I: IntoIterator<Item = i64>>(iter: I) -> Self {
        ShapeIndex(iter.into_iter().collect())
    }
}
