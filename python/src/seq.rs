//! What Python code hands over that could ask for unbounded memory:
//! sequences, whose `__len__` is the object's own word, and shapes cloned
//! into a new one, whose size is the product of the references given.
//!
//! An allocation Rust cannot make aborts the interpreter (`memory
//! allocation of N bytes failed`, exit 134), and a capacity past
//! `isize::MAX` panics. PyO3's own `Vec<T>` argument reserves what
//! `__len__` says before it iterates: a list subclass saying 10^10
//! aborted the interpreter, 2^62 raised `PanicException`. Here the
//! reservation is fallible and capped, so that Python code gets
//! `MemoryError` and the sequence's true length.

use std::ops::Deref;

use pyo3::exceptions::{PyMemoryError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PySequence, PyString};
use xla_shape::Shape;

/// Elements reserved at most on the word of `__len__`: past it, the vector
/// grows as the elements come.
const RESERVE_AT_MOST: usize = 1 << 16;

/// A Python sequence's elements, read by iterating it: as PyO3's `Vec<T>`
/// argument (a `str` is refused, any other sequence taken), but never
/// reserving more than `RESERVE_AT_MOST` on the word of `__len__`, and
/// raising `MemoryError` where memory runs out.
pub struct Seq<T>(pub Vec<T>);

impl<T> Deref for Seq<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<'py, T: FromPyObject<'py>> FromPyObject<'py> for Seq<T> {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if ob.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err("Can't extract `str` to `Vec`"));
        }
        let seq = ob.downcast::<PySequence>()?;
        let mut v = Vec::new();
        reserve(&mut v, seq.len().unwrap_or(0).min(RESERVE_AT_MOST))?;
        for item in seq.try_iter()? {
            if v.len() == v.capacity() {
                let more = v.len().max(8);
                reserve(&mut v, more)?;
            }
            v.push(item?.extract()?);
        }
        Ok(Seq(v))
    }
}

/// Room for `additional` more elements in `v`, or `MemoryError`.
fn reserve<T>(v: &mut Vec<T>, additional: usize) -> PyResult<()> {
    v.try_reserve(additional).map_err(|_| out_of_memory())
}

fn out_of_memory() -> PyErr {
    PyMemoryError::new_err("not enough memory for the shapes given")
}

/// The shapes of `refs`, cloned, or `MemoryError` when their clones would
/// not fit in memory: a tuple of the same tuple twice, nested 23 times, is
/// 2^23 leaves, and the clone that runs out of memory aborts. The memory
/// the clones take is estimated first (every node's `Shape` and its
/// dimensions, twice over) and asked for at once, fallibly.
pub fn cloned_shapes<R>(refs: &[R]) -> PyResult<Vec<Shape>>
where
    R: Deref<Target: AsRef<Shape>>,
{
    let mut bytes = refs.len().saturating_mul(size_of::<Shape>());
    // A shape given many times is measured once.
    let mut last: Option<(*const Shape, usize)> = None;
    for r in refs {
        let shape: &Shape = (**r).as_ref();
        let at: *const Shape = shape;
        let size = match last {
            Some((p, size)) if p == at => size,
            _ => footprint(shape),
        };
        last = Some((at, size));
        bytes = bytes.saturating_add(size);
    }
    let mut room: Vec<u8> = Vec::new();
    room.try_reserve_exact(bytes.saturating_mul(2))
        .map_err(|_| out_of_memory())?;
    drop(room);
    let mut shapes = Vec::new();
    reserve(&mut shapes, refs.len())?;
    shapes.extend(refs.iter().map(|r| (**r).as_ref().clone()));
    Ok(shapes)
}

/// About the heap memory a clone of `shape` takes: its elements' `Shape`s
/// and every array's dimensions, flags and layout.
fn footprint(shape: &Shape) -> usize {
    match shape.tuple_shapes() {
        Some(elements) => elements.iter().fold(0usize, |sum, e| {
            sum.saturating_add(size_of::<Shape>())
                .saturating_add(footprint(e))
        }),
        None => shape.rank().unwrap_or(0).saturating_mul(24),
    }
}
