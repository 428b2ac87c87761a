//! Choosing the formalism of each dynamics output: derive every candidate,
//! cost each by the one cost model ([`super::cost`]), keep the cheapest,
//! and record what was compared.

use super::cost::{Cost, Costs};
use super::outputs::{Function, Outputs, AUTOMATIC_LIMIT};
use super::provenance::{Formalism, Provenance};
use crate::error::EmitError;
use crate::method::{Method, Output};
use sharnir_cas::{Id, Pool};
use sharnir_mech::formalisms::crba::FirstStep;
use sharnir_mech::formalisms::joint_space::JointSpace;
use sharnir_mech::formalisms::{crba, joint_space, lagrange, rnea, telegin, vereshchagin};
use sharnir_mech::Mechanism;

/// The outputs whose formalism is chosen, with their docs and provenance.
pub(crate) struct Dynamics {
    pub(crate) inverse: Vec<Id>,
    pub(crate) inverse_doc: &'static str,
    pub(crate) terms: JointSpace,
    pub(crate) forward: Vec<Id>,
    pub(crate) forward_doc: &'static str,
    /// How `inverse`, the three joint-space terms and `forward` were chosen.
    pub(crate) provenance: DynamicsProvenance,
}

/// The provenance of every chosen output.
#[derive(Clone, Debug)]
pub(crate) struct DynamicsProvenance {
    pub(crate) inverse_dynamics: Provenance,
    pub(crate) mass_matrix: Provenance,
    /// The mass matrix inside `joint_space`, which computes the bias and
    /// gravity too: offered the CRBA's apart from `mass_matrix`, so the
    /// mass matrix's costs do not compare with its and it starts with none.
    pub(crate) joint_space: Provenance,
    pub(crate) bias: Provenance,
    pub(crate) gravity: Provenance,
    pub(crate) forward_dynamics: Provenance,
}

impl DynamicsProvenance {
    /// The provenance of the generated function `name`: `Fixed` for every
    /// function no formalism is chosen for.
    pub(crate) fn of(&self, name: &str) -> Provenance {
        match name {
            "inverse_dynamics" => self.inverse_dynamics.clone(),
            "mass_matrix" => self.mass_matrix.clone(),
            "joint_space" => self.joint_space.clone(),
            "bias" => self.bias.clone(),
            "gravity" => self.gravity.clone(),
            "forward_dynamics" => self.forward_dynamics.clone(),
            _ => Provenance::Fixed,
        }
    }
}

impl Dynamics {
    /// Derives what `method` produces and takes the rest from the usual
    /// producers; `newton_euler` and its `terms` are already derived because
    /// the Coriolis matrix reads them whatever the method. Fails only for a
    /// method that cannot handle this mechanism (Telegin's formalism needs a
    /// serial chain of one-degree-of-freedom joints).
    pub(crate) fn derive(
        mechanism: &mut Mechanism,
        costs: &mut Costs,
        method: Method,
        newton_euler: Vec<Id>,
        terms: JointSpace,
        outputs: Outputs,
    ) -> Result<Dynamics, EmitError> {
        let telegin = match method {
            Method::Telegin => Some(telegin::inverse_dynamics(mechanism)?),
            _ => None,
        };
        let terms = match (method.producer(Output::JointSpace), &telegin) {
            (Method::Lagrange, _) => lagrange::joint_space(mechanism),
            (Method::Telegin, Some(tau)) => joint_space::joint_space(&mut mechanism.pool, tau),
            _ => terms,
        };
        let (inverse, inverse_doc) = match (method.producer(Output::InverseDynamics), telegin) {
            (Method::Lagrange, _) => (
                lagrange::inverse_dynamics(&mut mechanism.pool, &terms),
                "Joint forces τ(q, q̇, q̈) = M(q) q̈ + bias(q, q̇) by the joint-coordinate\n\
                 (Lagrange) formalism: torques for revolute joints, forces for prismatic ones,\n\
                 in coordinate order.",
            ),
            (Method::Telegin, Some(tau)) => (
                tau,
                "Joint forces τ(q, q̇, q̈) by Telegin's direction-cosine formalism (subsystem\n\
                 static moments, Statements 1–2): torques for revolute joints, forces for\n\
                 prismatic ones, in coordinate order.",
            ),
            _ => (
                newton_euler,
                "Joint forces τ(q, q̇, q̈) by the recursive Newton–Euler method: torques for\n\
                 revolute joints, forces for prismatic ones, in coordinate order.",
            ),
        };
        // Coupled joints are outside the separate-bodies method; unless it
        // was asked for by name, their forward dynamics solve M q̈ = τ − bias.
        let forward_producer = match method.producer(Output::ForwardDynamics) {
            Method::Vereshchagin if mechanism.has_couplings() && method != Method::Vereshchagin => {
                Method::Lagrange
            }
            producer => producer,
        };
        let (forward, forward_doc) = match forward_producer {
            Method::Lagrange => (
                lagrange::forward_dynamics(&mut mechanism.pool, &terms),
                "Joint accelerations q̈(q, q̇, τ) by an L D Lᵀ factorisation of M(q) in\n\
                 `M(q) q̈ = τ − bias(q, q̇)` (joint-coordinate formalism), in O(n³).",
            ),
            // Not derived at all when the module has no forward dynamics.
            _ if !outputs.contains(Function::ForwardDynamics) => (Vec::new(), ""),
            _ => (
                separate_bodies(mechanism, costs)?,
                "Joint accelerations q̈(q, q̇, τ) by Vereshchagin's separate-bodies\n\
                 (articulated-body) method, in O(n) and without forming M(q); they satisfy\n\
                 `M(q) q̈ + bias(q, q̇) = τ`.",
            ),
        };
        let of = |output| Provenance::of_method(method, output, method.producer(output));
        Ok(Dynamics {
            provenance: DynamicsProvenance {
                inverse_dynamics: of(Output::InverseDynamics),
                mass_matrix: of(Output::JointSpace),
                joint_space: of(Output::JointSpace),
                bias: of(Output::JointSpace),
                gravity: of(Output::JointSpace),
                forward_dynamics: Provenance::of_method(
                    method,
                    Output::ForwardDynamics,
                    forward_producer,
                ),
            },
            inverse,
            inverse_doc,
            terms,
            forward,
            forward_doc,
        })
    }

    /// Derives every output by every formalism that can produce it for this
    /// mechanism and keeps, output by output, the cheapest emitted code
    /// (ties go to the earlier formalism of [`Method::ALL`]). The
    /// joint-coordinate and Telegin's formalisms, whose every candidate is
    /// superlinear (the first builds `M`; the second's joint moments sum
    /// over every outboard body, `Σ_{k>j}`, unless consecutive axes are
    /// parallel), are derived only when `outputs` has the mass matrix, and
    /// only up to [`AUTOMATIC_LIMIT`] coordinates (see
    /// [`compares_every_formalism`]).
    pub(crate) fn cheapest(
        mechanism: &mut Mechanism,
        costs: &mut Costs,
        newton_euler: Vec<Id>,
        terms: JointSpace,
        outputs: Outputs,
    ) -> Result<Dynamics, EmitError> {
        let mut candidates: Vec<Dynamics> = Vec::new();
        let methods: &[Method] =
            if outputs.needs_mass_matrix() && compares_every_formalism(mechanism) {
                &[Method::NewtonEuler, Method::Lagrange, Method::Telegin]
            } else {
                &[Method::NewtonEuler]
            };
        for &method in methods {
            // Telegin's formalism is for serial chains only: skipped where
            // it does not apply, and any other failure is an error.
            if method == Method::Telegin && telegin::applies(mechanism).is_err() {
                continue;
            }
            let dynamics = Dynamics::derive(
                mechanism,
                costs,
                method,
                newton_euler.clone(),
                terms.clone(),
                outputs,
            )?;
            candidates.push(dynamics);
        }
        let pool = &mut mechanism.pool;
        // The index of the cheapest candidate for one output, and its
        // provenance: every candidate with its cost (a hopeless one is not
        // lowered, see `cost::HOPELESS`).
        let mut best = |output: &dyn Fn(&Dynamics) -> Vec<Id>,
                        formalism: &dyn Fn(&Dynamics) -> Option<Formalism>|
         -> (usize, Provenance) {
            let mut chosen: Option<(usize, u64)> = None;
            let mut listed = Vec::with_capacity(candidates.len());
            let outputs: Vec<Vec<Id>> = candidates.iter().map(output).collect();
            let slices: Vec<&[Id]> = outputs.iter().map(Vec::as_slice).collect();
            let costed = costs.in_turn(pool, &slices);
            for ((i, candidate), cost) in candidates.iter().enumerate().zip(costed) {
                if let Cost::Lowered(weight) = cost {
                    if chosen.is_none_or(|(_, best)| weight < best) {
                        chosen = Some((i, weight));
                    }
                }
                listed.extend(formalism(candidate).map(|f| (f, cost)));
            }
            let chosen = chosen.map_or(0, |(i, _)| i);
            if let Some(kept) = slices.get(chosen) {
                costs.forget_all_but(kept, &slices);
            }
            let provenance = Provenance::Cheapest {
                chosen: candidates
                    .get(chosen)
                    .and_then(formalism)
                    .unwrap_or(Formalism::Method(Method::NewtonEuler)),
                candidates: listed,
            };
            (chosen, provenance)
        };
        let (inverse, inverse_provenance) = best(&|d| d.inverse.clone(), &|d| {
            d.provenance.inverse_dynamics.formalism()
        });
        let (mass, mass_provenance) = best(&|d| d.terms.mass_matrix.concat(), &|d| {
            d.provenance.mass_matrix.formalism()
        });
        let (bias, bias_provenance) = best(&|d| d.terms.bias.clone(), &|d| {
            d.provenance.bias.formalism()
        });
        let (gravity, gravity_provenance) = best(&|d| d.terms.gravity.clone(), &|d| {
            d.provenance.gravity.formalism()
        });
        let (forward, forward_provenance) = best(&|d| d.forward.clone(), &|d| {
            d.provenance.forward_dynamics.formalism()
        });
        let pick = |i: usize| &candidates[i];
        Ok(Dynamics {
            provenance: DynamicsProvenance {
                inverse_dynamics: inverse_provenance,
                joint_space: match &mass_provenance {
                    Provenance::Cheapest { chosen, .. } => Provenance::Cheapest {
                        chosen: *chosen,
                        candidates: Vec::new(),
                    },
                    other => other.clone(),
                },
                mass_matrix: mass_provenance,
                bias: bias_provenance,
                gravity: gravity_provenance,
                forward_dynamics: forward_provenance,
            },
            inverse: pick(inverse).inverse.clone(),
            inverse_doc: pick(inverse).inverse_doc,
            terms: JointSpace {
                mass_matrix: pick(mass).terms.mass_matrix.clone(),
                bias: pick(bias).terms.bias.clone(),
                gravity: pick(gravity).terms.gravity.clone(),
            },
            forward: pick(forward).forward.clone(),
            forward_doc: pick(forward).forward_doc,
        })
    }
}

/// Whether the mass matrix is compared across every formalism that builds
/// it — read off Newton–Euler (`n` walks of the joint forces), the
/// joint-coordinate formalism, Telegin's, the CRBA — or taken from the
/// CRBA alone: up to [`AUTOMATIC_LIMIT`] velocity coordinates, which
/// covers a humanoid and every bundled spec. Above, the others cost more
/// to derive and cost than the whole rest of generation and do not win:
/// on the 80-link spatial chain (`docs/performance.md`, "Generation
/// scaling") Newton–Euler's `M` weighs 2.6 times the CRBA's once lowered,
/// Telegin's and the joint-coordinate one more than three times as
/// written, and deriving and costing them took 11 of the 13 s the mass
/// matrix alone took to generate. `--method` still derives any of them.
pub(crate) fn compares_every_formalism(mechanism: &Mechanism) -> bool {
    mechanism.dof() <= AUTOMATIC_LIMIT
}

/// Newton–Euler's joint forces and the joint-space terms read off them,
/// each from the bodies' own inertias or from the base inertias
/// ([`sharnir_mech::formalisms::base_parameters`]), whichever gives cheaper code. Both
/// give the same numbers; regrouping usually removes a third of the
/// operations, but not where it turns unit masses into other numbers. The
/// velocity-dependent outputs (joint forces and bias) also try Khalil's
/// acceleration field `U = ω̇̃ + ω̃ω̃` ([`rnea::PointAcceleration`]); the
/// mass matrix and gravity, where ω is zero, keep the cross products.
///
/// Without the mass matrix among `outputs`, or where the CRBA's is taken
/// without comparison ([`compares_every_formalism`]), it is not derived
/// (its `n` columns are `n` walks of the joint forces), and
/// `JointSpace::mass_matrix` is empty; nor are the bias and gravity where nothing reads them (see
/// [`Outputs::needs_bias_or_gravity`]), which saves costing six candidates.
pub(crate) fn newton_euler(
    mechanism: &mut Mechanism,
    costs: &mut Costs,
    outputs: Outputs,
) -> (Vec<Id>, JointSpace) {
    use rnea::PointAcceleration::{AccelerationField, CrossProducts};
    let split = if outputs.needs_mass_matrix() && compares_every_formalism(mechanism) {
        joint_space::joint_space
    } else if outputs.needs_bias_or_gravity() {
        joint_space::bias_and_gravity
    } else {
        |_: &mut Pool, _: &[Id]| JointSpace {
            mass_matrix: Vec::new(),
            bias: Vec::new(),
            gravity: Vec::new(),
        }
    };
    let own = rnea::inverse_dynamics(mechanism, CrossProducts);
    let own_terms = split(&mut mechanism.pool, &own);
    let base = rnea::inverse_dynamics_regrouped(mechanism, CrossProducts);
    let base_terms = split(&mut mechanism.pool, &base);
    let own_field = rnea::inverse_dynamics(mechanism, AccelerationField);
    let own_field_bias = split(&mut mechanism.pool, &own_field).bias;
    let base_field = rnea::inverse_dynamics_regrouped(mechanism, AccelerationField);
    let base_field_bias = split(&mut mechanism.pool, &base_field).bias;
    let pool = &mut mechanism.pool;
    let n = own.len();
    let mass_matrix = cheapest(
        pool,
        costs,
        [
            own_terms.mass_matrix.concat(),
            base_terms.mass_matrix.concat(),
        ],
    );
    let inverse_dynamics = cheapest(pool, costs, [own, base, own_field, base_field]);
    let bias = cheapest(
        pool,
        costs,
        [
            own_terms.bias,
            base_terms.bias,
            own_field_bias,
            base_field_bias,
        ],
    );
    (
        inverse_dynamics,
        JointSpace {
            mass_matrix: mass_matrix.chunks(n.max(1)).map(<[Id]>::to_vec).collect(),
            bias,
            gravity: cheapest(pool, costs, [own_terms.gravity, base_terms.gravity]),
        },
    )
}

/// The composite-rigid-body algorithm's mass matrix
/// ([`sharnir_mech::formalisms::crba`]), from the bodies' own or the base
/// inertias, each column's first step carried or taken in the parent,
/// whichever of the four is cheapest.
pub(crate) fn composite_rigid_body(mechanism: &mut Mechanism, costs: &mut Costs) -> Vec<Id> {
    let own = crba::mass_matrix(mechanism, FirstStep::Carried).concat();
    let base = crba::mass_matrix_regrouped(mechanism, FirstStep::Carried).concat();
    let own_in_parent = crba::mass_matrix(mechanism, FirstStep::InParent).concat();
    let base_in_parent = crba::mass_matrix_regrouped(mechanism, FirstStep::InParent).concat();
    cheapest(
        &mut mechanism.pool,
        costs,
        [own, base, own_in_parent, base_in_parent],
    )
}

/// `current` (by `provenance`) or `candidate` (the CRBA's mass matrix, in
/// `joint_space` with the bias and gravity), whichever is strictly cheaper
/// by [`cost`] once angle sums are contracted where they pay; the
/// provenance records the comparison. A matrix read off Newton–Euler
/// shares with the bias what the CRBA's does not, so `mass_matrix` and
/// `joint_space` may choose differently.
pub(crate) fn offer_composite_rigid_body(
    pool: &mut Pool,
    costs: &mut Costs,
    current: &mut Vec<Id>,
    provenance: &mut Provenance,
    candidate: &[Id],
) {
    let contracted = with_angle_sums(pool, costs, candidate);
    let (theirs, ours) = (costs.of(pool, &contracted), costs.of(pool, current));
    let Provenance::Cheapest { chosen, candidates } = provenance else {
        return;
    };
    // The formalism chosen so far is costed again as it stands now, with
    // its angle sums, which is what the CRBA's is compared with.
    match candidates.iter_mut().find(|(f, _)| f == chosen) {
        Some(entry) => entry.1 = Cost::Lowered(ours),
        None => candidates.push((*chosen, Cost::Lowered(ours))),
    }
    candidates.push((Formalism::CompositeRigidBody, Cost::Lowered(theirs)));
    if theirs < ours {
        costs.forget_all_but(&contracted, &[current.as_slice()]);
        *current = contracted;
        *chosen = Formalism::CompositeRigidBody;
    } else {
        costs.forget_all_but(current, &[contracted.as_slice()]);
    }
}

/// The CRBA's mass matrix `candidate` (with its angle sums where they pay)
/// as the function's outputs, where nothing was compared with it
/// ([`compares_every_formalism`]): `current` holds only what follows the
/// matrix (`joint_space`'s bias and gravity), and the provenance records
/// the one candidate.
pub(crate) fn take_composite_rigid_body(
    pool: &mut Pool,
    costs: &mut Costs,
    current: &mut Vec<Id>,
    provenance: &mut Provenance,
    candidate: &[Id],
) {
    let contracted = with_angle_sums(pool, costs, candidate);
    let cost = Cost::Lowered(costs.of(pool, &contracted));
    *current = contracted;
    *provenance = Provenance::Cheapest {
        chosen: Formalism::CompositeRigidBody,
        candidates: vec![(Formalism::CompositeRigidBody, cost)],
    };
}

/// Vereshchagin's forward dynamics from the bodies' own inertias or from
/// the base inertias, whichever gives cheaper code (see [`newton_euler`]).
fn separate_bodies(mechanism: &mut Mechanism, costs: &mut Costs) -> Result<Vec<Id>, EmitError> {
    let own = vereshchagin::forward_dynamics(mechanism)?;
    let base = vereshchagin::forward_dynamics_regrouped(mechanism)?;
    Ok(cheapest(&mut mechanism.pool, costs, [own, base]))
}

/// `outputs` with products of sines and cosines contracted into sines and
/// cosines of angle sums (`c₁c₂ − s₁s₂ → cos(q₁ + q₂)`, see
/// [`sharnir_cas::trig`]) when that makes the function cheaper, as it does
/// wherever parallel joint axes make a chain's rotations compose into
/// angle sums; otherwise `outputs` unchanged.
pub(crate) fn with_angle_sums(pool: &mut Pool, costs: &mut Costs, outputs: &[Id]) -> Vec<Id> {
    let contracted = sharnir_cas::contract_angle_sums(pool, outputs);
    cheapest(pool, costs, [outputs.to_vec(), contracted])
}

/// The candidate whose code is cheapest by the cost model, the first on a
/// tie (so the usual form goes first and an alternative must be cheaper).
/// A candidate equal to an earlier one is not costed again, a single
/// distinct candidate not at all, and a hopeless one not lowered: costing
/// lowers the whole program, the most expensive step of generation.
pub(crate) fn cheapest<const N: usize>(
    pool: &mut Pool,
    costs: &mut Costs,
    candidates: [Vec<Id>; N],
) -> Vec<Id> {
    let mut distinct: Vec<Vec<Id>> = Vec::with_capacity(N);
    for candidate in candidates {
        if !distinct.contains(&candidate) {
            distinct.push(candidate);
        }
    }
    if distinct.len() == 1 {
        return distinct.pop().unwrap_or_default();
    }
    let slices: Vec<&[Id]> = distinct.iter().map(Vec::as_slice).collect();
    let costed = costs.in_turn(pool, &slices);
    let mut best: Option<(u64, &[Id])> = None;
    for (candidate, cost) in slices.iter().zip(costed) {
        if let Cost::Lowered(c) = cost {
            if best.is_none_or(|(b, _)| c < b) {
                best = Some((c, candidate));
            }
        }
    }
    let chosen = best.map(|(_, b)| b.to_vec()).unwrap_or_default();
    costs.forget_all_but(&chosen, &slices);
    chosen
}
