//! The ISA dispatch of every kernel family, written once: [`isa_family!`] declares a
//! family's visitor trait, its `dispatch` and the `#[target_feature]` entries of its x86
//! paths, each an [`isa_entry!`].
//!
//! Algorithm: a family's caller writes its loop once, generic over the family's kernel
//! trait, as a visitor (`run::<K>()`); `dispatch(isa, visitor)` matches the path once and
//! runs the visitor with that path's kernel type. On the x86 paths the match calls an
//! entry compiled with the path's target features, into which the visitor's
//! `#[inline(always)]` `run` (the whole loop) is inlined, so the loop is monomorphised per
//! path and compiled with that path's instructions.
//!
//! Cost: one `match` per `dispatch` call, outside the caller's loop; nothing inside it (the
//! kernel is a type, not a pointer).
//!
//! Invariant: an x86 entry runs only after `Isa::supported` said the CPU has the path, and
//! each entry enables no feature beyond what that path's detection checks
//! ([`crate::base::isa`]).

/// Declares a kernel family's visitor trait `$with` (code generic over the family's kernel
/// trait `$kernel`), its `dispatch`, the one place the family chooses a path, and the
/// `#[target_feature]` entries of its two x86 paths. The path types are the family's
/// `Scalar` and `Portable` and its `x86::Avx2` and `x86::Avx512`; what differs between
/// families is only the features each x86 entry is compiled with:
///
/// ```text
/// isa_family!(WithLanes: LaneKernel, "avx2,bmi1", "avx512f,avx512bw,avx2,bmi1");
/// ```
///
/// A family whose AVX-512 path is chosen among several entries names its entries instead
/// (`isa_family!(WithSumset: SumsetKernel, avx2: x86::avx2_entry, avx512: x86::best);`,
/// each an [`isa_entry!`]).
///
/// `dispatch` panics when this CPU lacks the path ([`crate::base::isa::force`] only ever
/// activates a supported one); off x86-64 the AVX paths run the portable kernel.
macro_rules! isa_family {
    ($with:ident: $kernel:ident, $avx2:literal, $avx512:literal $(,)?) => {
        isa_family!($with: $kernel, avx2: avx2_entry, avx512: avx512_entry);
        isa_entry! {
            #[doc = concat!("Runs `v` with the AVX2 kernels, compiled for ", $avx2, ".")]
            #[cfg(target_arch = "x86_64")]
            avx2_entry: $with => x86::Avx2, $avx2
        }
        isa_entry! {
            #[doc = concat!("Runs `v` with the AVX-512 kernels, compiled for ", $avx512, ".")]
            #[cfg(target_arch = "x86_64")]
            avx512_entry: $with => x86::Avx512, $avx512
        }
    };
    ($with:ident: $kernel:ident, avx2: $avx2:path, avx512: $avx512:path $(,)?) => {
        #[doc = concat!(
            "Code generic over the path's [`", stringify!($kernel), "`], which [`dispatch`] runs ",
            "with the kernels of one path (a visitor: the path becomes a type parameter once, ",
            "outside the hot loops)."
        )]
        pub trait $with {
            /// What the code returns.
            type Out;
            /// Runs the code with the kernel `K`. Mark it `#[inline(always)]`: it is then
            /// compiled inside the path's `#[target_feature]` entry, with the path's
            /// instructions.
            fn run<K: $kernel>(self) -> Self::Out;
        }

        /// Runs `v` with this family's kernel for the path `isa`: the family's one ISA
        /// dispatch, taken once around a caller's whole loop. Panics when this CPU lacks
        /// `isa` ([`crate::base::isa::force`] only ever activates a supported one). Off
        /// x86-64 the AVX paths run the portable kernel.
        #[inline]
        pub fn dispatch<V: $with>(isa: $crate::base::isa::Isa, v: V) -> V::Out {
            use $crate::base::isa::Isa;
            assert!(isa.supported(), "{isa} is not supported here");
            match isa {
                Isa::Scalar => v.run::<Scalar>(),
                Isa::Portable => v.run::<Portable>(),
                // SAFETY: `isa.supported()` was asserted, so the CPU has the features the
                // path's entry is compiled with (its `# Safety` names them) ...
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => unsafe { $avx2(v) },
                // ... likewise for AVX-512.
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => unsafe { $avx512(v) },
                #[cfg(not(target_arch = "x86_64"))]
                Isa::Avx2 | Isa::Avx512 => v.run::<Portable>(),
            }
        }
    };
}

/// One `#[target_feature]` entry of a family's x86 path: `$name(v)` runs the visitor `v`
/// (of the family's trait `$with`) with the kernel `$kernel`, compiled with `$features`
/// (the visitor's `run` is `#[inline(always)]`, so the caller's loop is monomorphised and
/// inlined here).
macro_rules! isa_entry {
    (
        $(#[$doc:meta])*
        $name:ident: $with:ident => $kernel:ty, $features:literal
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        #[doc = concat!("The CPU must have the features ", $features, ".")]
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name<V: $with>(v: V) -> V::Out {
            v.run::<$kernel>()
        }
    };
}
