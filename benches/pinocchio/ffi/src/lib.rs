//! sharnir's generated dynamics behind a C ABI, for the comparison with
//! Pinocchio in `benches/pinocchio/` (see its README).
//!
//! For every robot `<r>` (`ur5`, `panda`, `iiwa`, `solo12`, `anymal`, `talos`) this static
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
//!   `*_with` functions, with the module's `Derived` computed once;
//! - `sharnir_<r>_inverse_dynamics_derivatives(q, qd, qdd) -> [dtau_dq, dtau_dqd]`,
//!   `sharnir_<r>_forward_dynamics_derivatives(q, qd, tau) -> [dqdd_dq, dqdd_dqd, minv]`
//!   and `sharnir_<r>_mass_matrix_inverse(q) -> minv`: the emitted
//!   derivatives, each matrix row-major `nv × nv` (row: output, column:
//!   velocity coordinate), the matrices one after the other;
//! - `sharnir_<r>_inverse_dynamics_differences(q, qd, qdd) -> [dtau_dq, dtau_dqd]`
//!   and `sharnir_<r>_forward_dynamics_differences(q, qd, tau) -> [dqdd_dq, dqdd_dqd]`:
//!   the same derivatives by forward differences of the module's own
//!   `inverse_dynamics_with` / `forward_dynamics_with` (`2 nv + 1` calls; see
//!   [`differences`]), what a user without the emitted derivatives would
//!   write.
//! - the standard and minimal regressors, the base parameters and the body
//!   names ([`regressor`]), timed against Pinocchio's
//!   `computeJointTorqueRegressor`.
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
//! from `tests/fixtures/kuka_iiwa.urdf`, ANYmal into `src/gen/anymal.rs`
//! from `tests/fixtures/anymal.urdf --floating` and Talos into
//! `src/gen/talos.rs` from `tests/fixtures/talos_reduced.urdf --floating`.

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

#[path = "gen/anymal.rs"]
#[allow(missing_docs, dead_code)]
mod anymal;

#[path = "gen/talos.rs"]
#[allow(missing_docs, dead_code)]
mod talos;

pub mod regressor;

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

/// `K` row-major `N × N` matrices of doubles, one after the other, as a C
/// struct returned by value like [`Doubles`]: a generated function's tuple
/// of `JointMatrix`es (the same layout, checked where it is transmuted), or
/// [`differences::differences`]'s pair.
#[repr(C)]
pub struct Matrices<const N: usize, const K: usize>([[[f64; N]; N]; K]);

/// Forward differences of a generated function on the manifold of `q`:
/// what the emitted `*_derivatives` functions are timed against.
pub mod differences {
    /// The step: `√ε` of `f64` (`2⁻²⁶`, so that dividing by it is exact).
    pub const H: f64 = 1.0 / (1u64 << 26) as f64;

    /// How velocity coordinate `j` moves `q` (`q ⊕ H e_j`).
    #[derive(Clone, Copy, Debug)]
    pub enum Step {
        /// A revolute or prismatic coordinate: `q[i] += H`.
        Scalar(usize),
        /// A free joint's linear coordinate `axis`: its position (from
        /// `q[position]`) moves by `H` along the body's axis, `p + R(Q) H e_axis`,
        /// with `Q` the quaternion at `q[quaternion]` (`x, y, z, w`).
        Linear {
            /// Index of the joint's `x` in `q`.
            position: usize,
            /// Index of the joint's `qx` in `q`.
            quaternion: usize,
            /// 0, 1, 2 for `vx`, `vy`, `vz`.
            axis: usize,
        },
        /// A free joint's angular coordinate `axis`: the quaternion turns
        /// on the right, `Q ⊗ exp(H e_axis / 2)`.
        Angular {
            /// Index of the joint's `qx` in `q`.
            quaternion: usize,
            /// 0, 1, 2 for `wx`, `wy`, `wz`.
            axis: usize,
        },
    }

    /// Every velocity coordinate's [`Step`], matched by name: a coordinate
    /// named as a position coordinate is [`Step::Scalar`]; `<joint>_v{x,y,z}`
    /// and `<joint>_w{x,y,z}` of a joint with positions `<joint>_x` and
    /// `<joint>_qx` are a free joint's (the generated modules' names).
    ///
    /// # Panics
    ///
    /// If a coordinate matches neither (a spherical joint, say).
    pub fn steps<const NV: usize>(coordinates: &[&str; NV], positions: &[&str]) -> [Step; NV] {
        let find = |n: &str| positions.iter().position(|p| *p == n);
        core::array::from_fn(|j| {
            let name = coordinates[j];
            if let Some(i) = find(name) {
                return Step::Scalar(i);
            }
            if let Some((joint, suffix)) = name.rsplit_once('_') {
                let axis = match suffix.get(1..) {
                    Some("x") => Some(0),
                    Some("y") => Some(1),
                    Some("z") => Some(2),
                    _ => None,
                };
                let position = find(&format!("{joint}_x"));
                let quaternion = find(&format!("{joint}_qx"));
                if let (Some(axis), Some(position), Some(quaternion)) = (axis, position, quaternion)
                {
                    match &suffix[..1] {
                        "v" => {
                            return Step::Linear {
                                position,
                                quaternion,
                                axis,
                            }
                        }
                        "w" => return Step::Angular { quaternion, axis },
                        _ => {}
                    }
                }
            }
            panic!("no step for velocity coordinate `{name}`")
        })
    }

    /// `q ⊕ H e_j`, `step` being coordinate `j`'s: exact up to rounding
    /// (`cos(H/2)` rounds to 1 and `sin(H/2)` to `H/2`).
    #[inline]
    pub fn moved<const NQ: usize>(q: &[f64; NQ], step: Step) -> [f64; NQ] {
        let mut q = *q;
        match step {
            Step::Scalar(i) => q[i] += H,
            Step::Linear {
                position: p,
                quaternion: o,
                axis,
            } => {
                let (x, y, z, w) = (q[o], q[o + 1], q[o + 2], q[o + 3]);
                // Column `axis` of R(Q).
                let c = match axis {
                    0 => [
                        1.0 - 2.0 * (y * y + z * z),
                        2.0 * (x * y + z * w),
                        2.0 * (x * z - y * w),
                    ],
                    1 => [
                        2.0 * (x * y - z * w),
                        1.0 - 2.0 * (x * x + z * z),
                        2.0 * (y * z + x * w),
                    ],
                    _ => [
                        2.0 * (x * z + y * w),
                        2.0 * (y * z - x * w),
                        1.0 - 2.0 * (x * x + y * y),
                    ],
                };
                for i in 0..3 {
                    q[p + i] += H * c[i];
                }
            }
            Step::Angular {
                quaternion: o,
                axis,
            } => {
                // (v, w) ⊗ (r, 1) = (w r + v + v × r, w − v·r), r = (H/2) e_axis.
                let v = [q[o], q[o + 1], q[o + 2]];
                let w = q[o + 3];
                let mut r = [0.0; 3];
                r[axis] = 0.5 * H;
                let cross = [
                    v[1] * r[2] - v[2] * r[1],
                    v[2] * r[0] - v[0] * r[2],
                    v[0] * r[1] - v[1] * r[0],
                ];
                for i in 0..3 {
                    q[o + i] = w * r[i] + v[i] + cross[i];
                }
                q[o + 3] = w - (v[0] * r[0] + v[1] * r[1] + v[2] * r[2]);
            }
        }
        q
    }

    /// `[∂f/∂q, ∂f/∂q̇]` at `(q, q̇)` by forward differences, row-major
    /// (row: output, column: velocity coordinate): `2 NV + 1` calls of `f`,
    /// `q` moved by [`moved`], `q̇` by `H` along each coordinate.
    #[inline]
    pub fn differences<const NQ: usize, const NV: usize>(
        steps: &[Step; NV],
        q: &[f64; NQ],
        qd: &[f64; NV],
        f: impl Fn(&[f64; NQ], &[f64; NV]) -> [f64; NV],
    ) -> [[[f64; NV]; NV]; 2] {
        let f0 = f(q, qd);
        let mut d = [[[0.0; NV]; NV]; 2];
        for j in 0..NV {
            let fq = f(&moved(q, steps[j]), qd);
            let mut v = *qd;
            v[j] += H;
            let fv = f(q, &v);
            for i in 0..NV {
                d[0][i][j] = (fq[i] - f0[i]) / H;
                d[1][i][j] = (fv[i] - f0[i]) / H;
            }
        }
        d
    }
}

/// Exports one generated module `$m` under the C names given.
macro_rules! export {
    (
        $m:ident,
        $nq:ident, $nv:ident, $pname:ident, $cname:ident,
        $id:ident, $mm:ident, $fd:ident,
        $idd:ident, $fdd:ident, $minv:ident, $iddiff:ident, $fddiff:ident
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

        /// `[∂tau/∂q, ∂tau/∂qd]` of the inverse dynamics (the emitted
        /// `inverse_dynamics_derivatives_with`), each row-major `nv × nv`.
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles, `qd` and `qdd` to `nv`.
        #[no_mangle]
        pub unsafe extern "C" fn $idd(
            q: *const f64,
            qd: *const f64,
            qdd: *const f64,
        ) -> Matrices<{ $m::NV }, 2> {
            static D: std::sync::LazyLock<$m::Derived> =
                std::sync::LazyLock::new(|| $m::Params::default().derived());
            type Pair = ($m::JointMatrix, $m::JointMatrix);
            const _: () =
                assert!(core::mem::offset_of!(Pair, 1) == core::mem::size_of::<$m::JointMatrix>());
            // The tuple's layout is the struct's (size checked by transmute,
            // order above): returned straight into the caller's memory.
            core::mem::transmute::<Pair, Matrices<{ $m::NV }, 2>>(
                $m::inverse_dynamics_derivatives_with(
                    &D,
                    &*(q as *const [f64; $m::NQ]),
                    &*(qd as *const [f64; $m::NV]),
                    &*(qdd as *const [f64; $m::NV]),
                ),
            )
        }

        /// `[∂qdd/∂q, ∂qdd/∂qd, M⁻¹]` of the forward dynamics (the emitted
        /// `forward_dynamics_derivatives_with`), each row-major `nv × nv`.
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles, `qd` and `tau` to `nv`.
        #[no_mangle]
        pub unsafe extern "C" fn $fdd(
            q: *const f64,
            qd: *const f64,
            tau: *const f64,
        ) -> Matrices<{ $m::NV }, 3> {
            static D: std::sync::LazyLock<$m::Derived> =
                std::sync::LazyLock::new(|| $m::Params::default().derived());
            type Triple = ($m::JointMatrix, $m::JointMatrix, $m::JointMatrix);
            const _: () = assert!(
                core::mem::offset_of!(Triple, 1) == core::mem::size_of::<$m::JointMatrix>()
                    && core::mem::offset_of!(Triple, 2)
                        == 2 * core::mem::size_of::<$m::JointMatrix>()
            );
            core::mem::transmute::<Triple, Matrices<{ $m::NV }, 3>>(
                $m::forward_dynamics_derivatives_with(
                    &D,
                    &*(q as *const [f64; $m::NQ]),
                    &*(qd as *const [f64; $m::NV]),
                    &*(tau as *const [f64; $m::NV]),
                ),
            )
        }

        /// `M(q)⁻¹` (the emitted `mass_matrix_inverse_with`), row-major
        /// `nv × nv` (both triangles).
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles.
        #[no_mangle]
        pub unsafe extern "C" fn $minv(q: *const f64) -> Matrix<{ $m::NV }> {
            static D: std::sync::LazyLock<$m::Derived> =
                std::sync::LazyLock::new(|| $m::Params::default().derived());
            Matrix($m::mass_matrix_inverse_with(
                &D,
                &*(q as *const [f64; $m::NQ]),
            ))
        }

        /// `[∂tau/∂q, ∂tau/∂qd]` by forward differences of
        /// `inverse_dynamics_with` (`2 nv + 1` calls, see [`differences`]).
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles, `qd` and `qdd` to `nv`.
        #[no_mangle]
        pub unsafe extern "C" fn $iddiff(
            q: *const f64,
            qd: *const f64,
            qdd: *const f64,
        ) -> Matrices<{ $m::NV }, 2> {
            static D: std::sync::LazyLock<$m::Derived> =
                std::sync::LazyLock::new(|| $m::Params::default().derived());
            static STEPS: std::sync::LazyLock<[differences::Step; $m::NV]> =
                std::sync::LazyLock::new(|| {
                    differences::steps(&$m::COORDINATE_NAMES, &$m::POSITION_NAMES)
                });
            let qdd = &*(qdd as *const [f64; $m::NV]);
            Matrices(differences::differences(
                &STEPS,
                &*(q as *const [f64; $m::NQ]),
                &*(qd as *const [f64; $m::NV]),
                |q, qd| $m::inverse_dynamics_with(&D, q, qd, qdd),
            ))
        }

        /// `[∂qdd/∂q, ∂qdd/∂qd]` by forward differences of
        /// `forward_dynamics_with` (`2 nv + 1` calls, see [`differences`];
        /// no `M⁻¹`).
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles, `qd` and `tau` to `nv`.
        #[no_mangle]
        pub unsafe extern "C" fn $fddiff(
            q: *const f64,
            qd: *const f64,
            tau: *const f64,
        ) -> Matrices<{ $m::NV }, 2> {
            static D: std::sync::LazyLock<$m::Derived> =
                std::sync::LazyLock::new(|| $m::Params::default().derived());
            static STEPS: std::sync::LazyLock<[differences::Step; $m::NV]> =
                std::sync::LazyLock::new(|| {
                    differences::steps(&$m::COORDINATE_NAMES, &$m::POSITION_NAMES)
                });
            let tau = &*(tau as *const [f64; $m::NV]);
            Matrices(differences::differences(
                &STEPS,
                &*(q as *const [f64; $m::NQ]),
                &*(qd as *const [f64; $m::NV]),
                |q, qd| $m::forward_dynamics_with(&D, q, qd, tau),
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
    sharnir_ur5_forward_dynamics,
    sharnir_ur5_inverse_dynamics_derivatives,
    sharnir_ur5_forward_dynamics_derivatives,
    sharnir_ur5_mass_matrix_inverse,
    sharnir_ur5_inverse_dynamics_differences,
    sharnir_ur5_forward_dynamics_differences
);
export!(
    panda,
    sharnir_panda_nq,
    sharnir_panda_nv,
    sharnir_panda_position_name,
    sharnir_panda_coordinate_name,
    sharnir_panda_inverse_dynamics,
    sharnir_panda_mass_matrix,
    sharnir_panda_forward_dynamics,
    sharnir_panda_inverse_dynamics_derivatives,
    sharnir_panda_forward_dynamics_derivatives,
    sharnir_panda_mass_matrix_inverse,
    sharnir_panda_inverse_dynamics_differences,
    sharnir_panda_forward_dynamics_differences
);
export!(
    iiwa,
    sharnir_iiwa_nq,
    sharnir_iiwa_nv,
    sharnir_iiwa_position_name,
    sharnir_iiwa_coordinate_name,
    sharnir_iiwa_inverse_dynamics,
    sharnir_iiwa_mass_matrix,
    sharnir_iiwa_forward_dynamics,
    sharnir_iiwa_inverse_dynamics_derivatives,
    sharnir_iiwa_forward_dynamics_derivatives,
    sharnir_iiwa_mass_matrix_inverse,
    sharnir_iiwa_inverse_dynamics_differences,
    sharnir_iiwa_forward_dynamics_differences
);
export!(
    solo12,
    sharnir_solo12_nq,
    sharnir_solo12_nv,
    sharnir_solo12_position_name,
    sharnir_solo12_coordinate_name,
    sharnir_solo12_inverse_dynamics,
    sharnir_solo12_mass_matrix,
    sharnir_solo12_forward_dynamics,
    sharnir_solo12_inverse_dynamics_derivatives,
    sharnir_solo12_forward_dynamics_derivatives,
    sharnir_solo12_mass_matrix_inverse,
    sharnir_solo12_inverse_dynamics_differences,
    sharnir_solo12_forward_dynamics_differences
);
export!(
    anymal,
    sharnir_anymal_nq,
    sharnir_anymal_nv,
    sharnir_anymal_position_name,
    sharnir_anymal_coordinate_name,
    sharnir_anymal_inverse_dynamics,
    sharnir_anymal_mass_matrix,
    sharnir_anymal_forward_dynamics,
    sharnir_anymal_inverse_dynamics_derivatives,
    sharnir_anymal_forward_dynamics_derivatives,
    sharnir_anymal_mass_matrix_inverse,
    sharnir_anymal_inverse_dynamics_differences,
    sharnir_anymal_forward_dynamics_differences
);
export!(
    talos,
    sharnir_talos_nq,
    sharnir_talos_nv,
    sharnir_talos_position_name,
    sharnir_talos_coordinate_name,
    sharnir_talos_inverse_dynamics,
    sharnir_talos_mass_matrix,
    sharnir_talos_forward_dynamics,
    sharnir_talos_inverse_dynamics_derivatives,
    sharnir_talos_forward_dynamics_derivatives,
    sharnir_talos_mass_matrix_inverse,
    sharnir_talos_inverse_dynamics_differences,
    sharnir_talos_forward_dynamics_differences
);
