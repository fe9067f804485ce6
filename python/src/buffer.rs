//! Python's buffer protocol under the stable ABI.
//!
//! `PyObject_GetBuffer`, `PyBuffer_Release` and the `Py_buffer` struct
//! joined the limited API in Python 3.11 (CPython's "What's New in Python
//! 3.11", C API section), so PyO3 offers them to `abi3` builds only from
//! 3.11 on. The functions are exported, and the struct has this layout, by
//! every CPython 3.x (`Include/pybuffer.h`, `Include/cpython/object.h` in
//! 3.9 and 3.10); this module declares them for the 3.9 wheel.

use std::ffi::{c_char, c_int, c_void};
use std::marker::PhantomData;

use pyo3::ffi::{Py_ssize_t, PyObject};
use pyo3::prelude::*;

use crate::errors::invalid_argument;

/// `Py_buffer` (`Include/pybuffer.h`, CPython 3.11; the same fields in
/// `Include/cpython/object.h` of 3.9 and 3.10).
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut PyObject,
    len: Py_ssize_t,
    itemsize: Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut Py_ssize_t,
    strides: *mut Py_ssize_t,
    suboffsets: *mut Py_ssize_t,
    internal: *mut c_void,
}

/// `PyBUF_ANY_CONTIGUOUS` (`Include/pybuffer.h`: `0x0080 | PyBUF_STRIDES`,
/// `PyBUF_STRIDES` = `0x0010 | PyBUF_ND`, `PyBUF_ND` = `0x0008`): one
/// contiguous block of memory, in C or Fortran order (a NumPy array in
/// either order, `bytes`, ...).
const PYBUF_ANY_CONTIGUOUS: c_int = 0x0080 | 0x0010 | 0x0008;
/// `PyBUF_WRITABLE` (`Include/pybuffer.h`).
const PYBUF_WRITABLE: c_int = 0x0001;

unsafe extern "C" {
    fn PyObject_GetBuffer(obj: *mut PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// A contiguous byte buffer exported by a Python object, released on drop.
///
/// The exporter keeps the memory alive and in place (a `bytearray` cannot
/// be resized while exported), so the bytes may be read, or written when
/// the buffer is writable, without the GIL.
pub struct Buffer<'py> {
    raw: Box<RawBuffer>,
    _py: PhantomData<Python<'py>>,
}

impl<'py> Buffer<'py> {
    /// The bytes of `obj` (`bytes`, `bytearray`, `memoryview`, a NumPy
    /// array contiguous in C or Fortran order, ...) as they lie in memory,
    /// writable ones when `writable`. An object whose memory is not one
    /// contiguous block (a strided view) is an `InvalidArgumentError`.
    pub fn get(obj: &Bound<'py, PyAny>, writable: bool) -> PyResult<Self> {
        let mut raw = Box::new(RawBuffer {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        });
        let flags = if writable {
            PYBUF_ANY_CONTIGUOUS | PYBUF_WRITABLE
        } else {
            PYBUF_ANY_CONTIGUOUS
        };
        // SAFETY: `raw` is a valid, writable Py_buffer; the GIL is held.
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *raw, flags) };
        if rc != 0 {
            let py = obj.py();
            let err = PyErr::fetch(py);
            // An object that refuses a writable buffer but gives a
            // read-only one (`bytes`, a NumPy array whose `writeable` flag
            // is off: NumPy says so with a ValueError) is read-only.
            if writable && Self::get(obj, false).is_ok() {
                return Err(read_only());
            }
            // NumPy refuses a strided view with a ValueError.
            if err.is_instance_of::<pyo3::exceptions::PyValueError>(py) {
                return Err(invalid_argument(format!(
                    "the buffer is not contiguous in C or Fortran order ({}); \
                     copy it first (numpy.ascontiguousarray)",
                    err.value(py)
                )));
            }
            return Err(err);
        }
        let buffer = Buffer {
            raw,
            _py: PhantomData,
        };
        if buffer.raw.len < 0 || (buffer.raw.buf.is_null() && buffer.raw.len != 0) {
            return Err(pyo3::exceptions::PyBufferError::new_err(
                "the object exported an invalid buffer",
            ));
        }
        if writable && buffer.raw.readonly != 0 {
            return Err(read_only());
        }
        Ok(buffer)
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        // Checked non-negative in `get`.
        self.raw.len as usize
    }

    /// Whether the two buffers share any byte.
    pub fn overlaps(&self, other: &Buffer<'_>) -> bool {
        let (a, b) = (self.raw.buf as usize, other.raw.buf as usize);
        self.len() != 0 && other.len() != 0 && a < b + other.len() && b < a + self.len()
    }

    /// The first two of `buffers` (by position) that share a byte, if any
    /// do: after sorting by address only neighbours need comparing.
    pub fn overlapping_pair(buffers: &[Buffer<'_>]) -> Option<(usize, usize)> {
        let mut order: Vec<usize> = (0..buffers.len()).collect();
        order.sort_by_key(|&k| buffers[k].raw.buf as usize);
        order
            .windows(2)
            .filter(|w| buffers[w[0]].overlaps(&buffers[w[1]]))
            .map(|w| (w[0].min(w[1]), w[0].max(w[1])))
            .min()
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        if self.len() == 0 {
            return &[];
        }
        // SAFETY: the exporter guarantees `len` readable bytes at `buf`
        // until the buffer is released.
        unsafe { std::slice::from_raw_parts(self.raw.buf as *const u8, self.len()) }
    }

    /// The bytes, for writing; only for a buffer got with `writable`.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        if self.len() == 0 {
            return &mut [];
        }
        // SAFETY: as `as_slice`; the buffer was requested writable and the
        // exporter did not mark it read-only.
        unsafe { std::slice::from_raw_parts_mut(self.raw.buf as *mut u8, self.len()) }
    }
}

/// The `BufferError` of a read-only object given for writing.
fn read_only() -> PyErr {
    pyo3::exceptions::PyBufferError::new_err("the output buffer is read-only")
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        // SAFETY: the view was filled by a successful PyObject_GetBuffer
        // and is released once; the `'py` lifetime means the GIL is held.
        unsafe { PyBuffer_Release(&mut *self.raw) }
    }
}
