//! The ISA dispatch of every kernel family, written once: [`isa_family!`] declares a
//! family's visitor trait and its `dispatch`, [`isa_entry!`] one `#[target_feature]` entry
//! of its x86 paths.
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
/// trait `$kernel`) and its `dispatch`, the one place the family chooses a path:
///
/// ```text
/// isa_family! {
///     /// doc of the visitor trait
///     pub trait WithLanes: LaneKernel;
///     scalar: Scalar, portable: Portable,
///     avx2: x86::avx2_entry, avx512: x86::avx512_entry,
/// }
/// ```
///
/// `dispatch` panics when this CPU lacks the path ([`crate::base::isa::force`] only ever
/// activates a supported one); off x86-64 the AVX paths run the portable kernel.
macro_rules! isa_family {
    (
        $(#[$doc:meta])*
        pub trait $with:ident: $kernel:ident;
        scalar: $scalar:ty, portable: $portable:ty,
        avx2: $avx2:path, avx512: $avx512:path $(,)?
    ) => {
        $(#[$doc])*
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
                Isa::Scalar => v.run::<$scalar>(),
                Isa::Portable => v.run::<$portable>(),
                // SAFETY: `isa.supported()` was asserted, so the CPU has the features the
                // path's entry is compiled with (its `# Safety` names them) ...
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => unsafe { $avx2(v) },
                // ... likewise for AVX-512.
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => unsafe { $avx512(v) },
                #[cfg(not(target_arch = "x86_64"))]
                Isa::Avx2 | Isa::Avx512 => v.run::<$portable>(),
            }
        }
    };
}

/// One `#[target_feature]` entry of a family's x86 path: `$name(v)` runs the visitor `v`
/// (of the family's trait `$with`) with the kernel `$kernel`, compiled with `$features`.
/// The invocation's doc must carry the `# Safety` section: the CPU must have `$features`.
macro_rules! isa_entry {
    (
        $(#[$doc:meta])*
        $name:ident: $with:ident => $kernel:ty, $features:literal
    ) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name<V: $with>(v: V) -> V::Out {
            v.run::<$kernel>()
        }
    };
}
