//! What the CPU offers the direct transposes: the instruction sets their
//! blocks may use ([`Kernel`], the best one chosen once per copy) and the
//! size of its last-level cache ([`in_last_level_cache`]), which chooses
//! how some large transposes read their source.

use std::sync::OnceLock;

/// The instructions the blocks are copied with. Only made for a CPU
/// that has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kernel(pub(super) Isa);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Isa {
    /// SSE2, part of the x86_64 baseline: squares of 16-byte rows.
    Sse,
    /// AVX: 8 x 8 transposes of 4-byte elements (SSE2 for the others).
    Avx,
    /// AVX2: as AVX, and the squares of other sizes two at a time
    /// (`avx::Pairs`).
    Avx2,
    /// AVX-512 F and BW (with AVX2): as AVX2, and streamed blocks with
    /// their squares four at a time, each register a whole destination
    /// line (`avx512::Quads`).
    Avx512,
}

impl Kernel {
    /// SSE.
    pub(crate) fn sse() -> Kernel {
        Kernel(Isa::Sse)
    }

    /// AVX, if the CPU has it. Under Miri, only when the crate is built
    /// with the feature enabled (`-C target-feature=+avx`):
    /// `is_x86_feature_detected!` then answers from the build.
    pub(crate) fn avx() -> Option<Kernel> {
        std::arch::is_x86_feature_detected!("avx").then_some(Kernel(Isa::Avx))
    }

    /// AVX2 (which includes AVX), if the CPU has it; under Miri as
    /// [`avx`](Self::avx).
    pub(crate) fn avx2() -> Option<Kernel> {
        let has = std::arch::is_x86_feature_detected!("avx")
            && std::arch::is_x86_feature_detected!("avx2");
        has.then_some(Kernel(Isa::Avx2))
    }

    /// AVX-512 F and BW with AVX2, if the CPU has them; under Miri as
    /// [`avx`](Self::avx) (Miri does not run these intrinsics).
    pub(crate) fn avx512() -> Option<Kernel> {
        let has = Kernel::avx2().is_some()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw");
        has.then_some(Kernel(Isa::Avx512))
    }

    /// AVX-512 where the CPU has it, else AVX2, else AVX, else SSE.
    pub(crate) fn best() -> Kernel {
        Kernel::avx512()
            .or_else(Kernel::avx2)
            .or_else(Kernel::avx)
            .unwrap_or_else(Kernel::sse)
    }
}

/// Whether a source of `bytes` bytes is likely held in the last-level
/// cache (at most three quarters of it): the CPU's caches as CPUID
/// describes them (its deterministic cache parameters), read once;
/// never where CPUID does not describe them. Under Miri, which has no
/// CPUID, always: its tests' buffers are a few KiB.
pub(super) fn in_last_level_cache(bytes: usize) -> bool {
    if cfg!(miri) {
        return true;
    }
    static LAST_LEVEL: OnceLock<usize> = OnceLock::new();
    let last = *LAST_LEVEL.get_or_init(|| {
        let caches = raw_cpuid::CpuId::new().get_cache_parameters();
        let sizes = caches.into_iter().flatten().map(|c| {
            let size = c.sets() * c.associativity() * c.physical_line_partitions();
            (c.level(), size.saturating_mul(c.coherency_line_size()))
        });
        sizes.max().map_or(0, |(_, size)| size)
    });
    bytes <= last / 4 * 3
}
