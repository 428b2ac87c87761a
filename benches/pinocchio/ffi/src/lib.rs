//! sharnir's generated dynamics behind a C ABI, for the comparison with
//! Pinocchio in `benches/pinocchio/` (see its README).
//!
//! For every robot `<r>` (`ur5`, `panda`, `iiwa`, `solo12`, `talos`) this static
//! library exports:
//!
//! - `sharnir_<r>_nq()`, `sharnir_<r>_nv()`: the sizes of `q` and of
//!   `qd`, `qdd`, `tau`;
//! - `sharnir_<r>_position_name(i, &len)`, `sharnir_<r>_coordinate_name(i, &len)`:
//!   the names of the entries of `q` and `qd` (UTF-8, not NUL-terminated), so
//!   that the harness maps them to Pinocchio's by name;
//! - `sharnir_<r>_inverse_dynamics(q, qd, qdd) -> tau`,
//!   `sharnir_<r>_mass_matrix(q) -> m` (row-major `nv × nv`) and
//!   `sharnir_<r>_forward_dynamics(q, qd, tau) -> qdd`: the generated
//!   `*_with` functions, with the module's `Derived` computed once.
//!
//! The results are returned by value, as C structs of doubles
//! ([`Doubles`], [`Matrix`]): the C ABI then passes the caller's buffer as
//! the hidden result pointer, and the generated function, which returns
//! its array the same way, writes straight into it. The obvious
//! out-parameter form, `*(m as *mut [[f64; NV]; NV]) = mass_matrix_with(..)`
//! (or `ptr::write`, or `MaybeUninit::write`), compiles to a temporary on
//! the stack and a `memcpy` of the whole result (11.6 kB for Talos's mass
//! matrix): LLVM may redirect a call's result into memory only it knows
//! writable and unobserved on unwinding, which the return slot is and a
//! pointer argument is not. The harness initialises its buffers from these
//! values with C++17's guaranteed copy elision (`new (m) T(f(q))`).
//!
//! The bundled robots' modules are `generated/src/{ur5,panda,solo12}.rs`,
//! included by path; `run.sh` generates the KUKA iiwa into `src/gen/iiwa.rs`
//! from `tests/fixtures/kuka_iiwa.urdf` and Talos into `src/gen/talos.rs`
//! from `tests/fixtures/talos_reduced.urdf --floating`.

#![warn(missing_docs)]

#[path = "../../../../generated/src/ur5.rs"]
#[allow(missing_docs, dead_code)]
mod ur5;

#[path = "../../../../generated/src/panda.rs"]
#[allow(missing_docs, dead_code)]
mod panda;

#[path = "../../../../generated/src/solo12.rs"]
#[allow(missing_docs, dead_code)]
mod solo12;

#[path = "gen/iiwa.rs"]
#[allow(missing_docs, dead_code)]
mod iiwa;

#[path = "gen/talos.rs"]
#[allow(missing_docs, dead_code)]
mod talos;

/// A name as a pointer and a length, or null for an index out of range.
///
/// # Safety
///
/// `len` must be null or valid for a write.
unsafe fn name(names: &[&'static str], i: usize, len: *mut usize) -> *const u8 {
    match names.get(i) {
        Some(n) => {
            if !len.is_null() {
                *len = n.len();
            }
            n.as_ptr()
        }
        None => core::ptr::null(),
    }
}

/// `N` doubles as a C struct, so that a C function can return them by
/// value (into the caller's memory, see the crate's documentation).
#[repr(C)]
pub struct Doubles<const N: usize>([f64; N]);

/// An `N × N` row-major matrix of doubles as a C struct, returned by value
/// like [`Doubles`].
#[repr(C)]
pub struct Matrix<const N: usize>([[f64; N]; N]);

/// Exports one generated module `$m` under the C names given.
macro_rules! export {
    (
        $m:ident,
        $nq:ident, $nv:ident, $pname:ident, $cname:ident,
        $id:ident, $mm:ident, $fd:ident
    ) => {
        /// Size of `q` (positions; a free flyer's quaternion is four entries).
        #[no_mangle]
        pub extern "C" fn $nq() -> usize {
            $m::NQ
        }

        /// Size of `qd`, `qdd`, `tau` (velocity coordinates).
        #[no_mangle]
        pub extern "C" fn $nv() -> usize {
            $m::NV
        }

        /// Name of position coordinate `i` (UTF-8, `*len` bytes, not
        /// NUL-terminated); null if `i >= nq`.
        ///
        /// # Safety
        ///
        /// `len` must be null or valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $pname(i: usize, len: *mut usize) -> *const u8 {
            name(&$m::POSITION_NAMES, i, len)
        }

        /// Name of velocity coordinate `i` (UTF-8, `*len` bytes, not
        /// NUL-terminated); null if `i >= nv`.
        ///
        /// # Safety
        ///
        /// `len` must be null or valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $cname(i: usize, len: *mut usize) -> *const u8 {
            name(&$m::COORDINATE_NAMES, i, len)
        }

        /// Inverse dynamics: `tau = M(q) qdd + bias(q, qd)`, in sharnir's
        /// coordinate order, with the spec's parameters.
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles, `qd` and `qdd` to `nv`.
        #[no_mangle]
        pub unsafe extern "C" fn $id(
            q: *const f64,
            qd: *const f64,
            qdd: *const f64,
        ) -> Doubles<{ $m::NV }> {
            static D: std::sync::LazyLock<$m::Derived> =
                std::sync::LazyLock::new(|| $m::Params::default().derived());
            Doubles($m::inverse_dynamics_with(
                &D,
                &*(q as *const [f64; $m::NQ]),
                &*(qd as *const [f64; $m::NV]),
                &*(qdd as *const [f64; $m::NV]),
            ))
        }

        /// The mass matrix `M(q)`, row-major `nv × nv` (both triangles).
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles.
        #[no_mangle]
        pub unsafe extern "C" fn $mm(q: *const f64) -> Matrix<{ $m::NV }> {
            static D: std::sync::LazyLock<$m::Derived> =
                std::sync::LazyLock::new(|| $m::Params::default().derived());
            Matrix($m::mass_matrix_with(&D, &*(q as *const [f64; $m::NQ])))
        }

        /// Forward dynamics: `qdd = M(q)⁻¹ (tau − bias(q, qd))`.
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles, `qd` and `tau` to `nv`.
        #[no_mangle]
        pub unsafe extern "C" fn $fd(
            q: *const f64,
            qd: *const f64,
            tau: *const f64,
        ) -> Doubles<{ $m::NV }> {
            static D: std::sync::LazyLock<$m::Derived> =
                std::sync::LazyLock::new(|| $m::Params::default().derived());
            Doubles($m::forward_dynamics_with(
                &D,
                &*(q as *const [f64; $m::NQ]),
                &*(qd as *const [f64; $m::NV]),
                &*(tau as *const [f64; $m::NV]),
            ))
        }
    };
}

export!(
    ur5,
    sharnir_ur5_nq,
    sharnir_ur5_nv,
    sharnir_ur5_position_name,
    sharnir_ur5_coordinate_name,
    sharnir_ur5_inverse_dynamics,
    sharnir_ur5_mass_matrix,
    sharnir_ur5_forward_dynamics
);
export!(
    panda,
    sharnir_panda_nq,
    sharnir_panda_nv,
    sharnir_panda_position_name,
    sharnir_panda_coordinate_name,
    sharnir_panda_inverse_dynamics,
    sharnir_panda_mass_matrix,
    sharnir_panda_forward_dynamics
);
export!(
    iiwa,
    sharnir_iiwa_nq,
    sharnir_iiwa_nv,
    sharnir_iiwa_position_name,
    sharnir_iiwa_coordinate_name,
    sharnir_iiwa_inverse_dynamics,
    sharnir_iiwa_mass_matrix,
    sharnir_iiwa_forward_dynamics
);
export!(
    solo12,
    sharnir_solo12_nq,
    sharnir_solo12_nv,
    sharnir_solo12_position_name,
    sharnir_solo12_coordinate_name,
    sharnir_solo12_inverse_dynamics,
    sharnir_solo12_mass_matrix,
    sharnir_solo12_forward_dynamics
);
export!(
    talos,
    sharnir_talos_nq,
    sharnir_talos_nv,
    sharnir_talos_position_name,
    sharnir_talos_coordinate_name,
    sharnir_talos_inverse_dynamics,
    sharnir_talos_mass_matrix,
    sharnir_talos_forward_dynamics
);
