//! The mass matrix's conditioning, checked where a run starts and where it
//! fails: a mechanism whose mass matrix is near-singular (a body with
//! almost no inertia about the axis it turns on, a massless base carrying a
//! feather) divides its forward dynamics by nearly zero, and its step size
//! collapses without a word of why. The check costs an eigen-decomposition
//! of the mass matrix, more than a step, so it is not made at every step;
//! a loop's singular configurations are watched at every step instead
//! (`run::closed_events`).

use sharnir_runtime::{mass_matrix_conditioning, Model};

/// `λ_min / λ_max` of the mass matrix below which it is reported as
/// near-singular: the forward dynamics lose ten of their sixteen digits
/// along the weak direction.
pub(crate) const NEAR_SINGULAR_MASS: f64 = 1e-10;

/// The line that says the mass matrix of `model` at `q` is near-singular
/// (`when` says where: "at the start", "at t = …"), naming its
/// conditioning and the coordinate its weakest direction leads with, or
/// `None` when it is not.
pub(crate) fn near_singular_mass<M, const NQ: usize, const NV: usize>(
    model: &M,
    q: &[f64],
    when: &str,
) -> Option<String>
where
    M: Model<NQ, NV, Real = f64>,
{
    let q: &[f64; NQ] = q.get(..NQ)?.try_into().ok()?;
    let (ratio, leading) = mass_matrix_conditioning(model, q);
    (ratio < NEAR_SINGULAR_MASS).then(|| {
        format!(
            "the mass matrix {when} is near-singular: its smallest eigenvalue is {ratio:.3e} of \
             its largest, mostly along v.{}; accelerations along it are ill-determined (a body \
             with almost no inertia about the axis it moves on?)\n",
            M::VELOCITY_NAMES.get(leading).copied().unwrap_or("?")
        )
    })
}
