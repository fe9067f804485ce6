//! The binary's allocator: the system's, except that an allocation the
//! system refuses ends the run with exit status 1 and a message, as any
//! other input the tool cannot handle does.
//!
//! Rust's own answer to a refused allocation is `handle_alloc_error`,
//! which prints `memory allocation of N bytes failed` and aborts (SIGABRT,
//! exit 134): a signal, where docs/cli.md promises exit 1 under a memory
//! limit (`ulimit -v`, a container's). Every command holds at most a
//! stated multiple of its input (docs/robustness.md); an input too large
//! for the memory the run is given fails here, with a message that says
//! so. Neither the tool nor the library asks for memory it can do
//! without (`try_reserve`): a refusal always ends the run.
//!
//! Only the binary installs it (`#[global_allocator]` in `main.rs`): the
//! library, the fuzz targets and the tests keep the default.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// The system allocator, ending the run with exit 1 when it refuses.
pub struct ExitWhenRefused;

// SAFETY: every method forwards to `System` with the caller's arguments,
// unchanged, and returns what `System` returned; `refused` never returns.
unsafe impl GlobalAlloc for ExitWhenRefused {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract of `GlobalAlloc::alloc`, passed on.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (every
        // allocation of this allocator is `System`'s).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`, with the caller's `new_size`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            refused(new_size);
        }
        p
    }
}

/// Says that `size` bytes were refused and ends the run with exit 1. The
/// message is written without allocating; a second refusal while ending
/// (another thread's) aborts.
#[cold]
fn refused(size: usize) -> ! {
    static ENDING: AtomicBool = AtomicBool::new(false);
    if ENDING.swap(true, Ordering::SeqCst) {
        std::process::abort();
    }
    let mut digits = itoa::Buffer::new();
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(b"xla-shape: out of memory: the system refused ");
    let _ = err.write_all(digits.format(size).as_bytes());
    let _ = err.write_all(
        b" bytes; the input needs more memory than this run may use \
          (see the memory per input byte of each command in docs/robustness.md)\n",
    );
    let _ = err.flush();
    std::process::exit(1)
}
