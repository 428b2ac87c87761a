//! 200 seeded random mechanisms (`support/random_spec.rs`, some with coupled
//! `mimic` joints, whose forward dynamics are then the `L D Lᵀ` solve) through the whole
//! symbolic pipeline as `cargo xtask gen` runs it: spec text → parser →
//! `Mechanism` → the module's plan (every formalism that applies, Telegin's
//! included, the cheapest chosen per output, angle sums contracted,
//! parameter groups hoisted, programs lowered) → the planned programs of
//! inverse dynamics, joint-space terms, forward dynamics, energy, coordinate
//! rates, Coriolis matrix and body poses, evaluated as the emitted functions
//! compute them → numbers, and the module printed. The alternatives the plan chose between (base
//! inertias, the acceleration field, the separate-bodies method from either
//! inertias) are checked too.
//!
//! At 3 random states per mechanism every output (and the inverse and
//! forward dynamics from the regrouped base inertias) is compared with the
//! numeric spatial-vector oracle of `sharnir-numeric` to 1e-10 relative
//! (`relative_error`, relative to `max(1, ‖expected‖∞)`), and the outputs
//! are checked against each other: `M q̈ + bias = τ` and
//! `forward(inverse(q̈)) = q̈` to 1e-9, `M` symmetric to 1e-12 and positive
//! definite (its Cholesky factorisation succeeds), `bias(q, 0) = gravity`
//! (against the oracle) and `C q̇ + g = bias`; along the motion, by
//! fourth-order central differences, `Ṁ − 2C` skew-symmetric and the power
//! balance `d/dt (T + V) = q̇ᵀτ`, both to 1e-6. The derivative functions
//! (`∂τ/∂q`, `∂τ/∂q̇`, `∂g/∂q`, `∂q̈/∂q`, `∂q̈/∂q̇`, `∂q̈/∂τ`) agree with the
//! oracle's central differences along the configuration manifold to 1e-6
//! of each matrix's largest entry, and `M⁻¹ M = I` to 1e-9; the standard
//! regressor times the oracle's body parameters is its inverse dynamics to
//! 1e-10. Every second
//! mechanism is also planned with folded parameters.
//!
//! A failure prints the spec text and the state, so it can be reproduced
//! with `cargo xtask gen` on the printed spec.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sharnir_cas::{Id, Program};
use sharnir_codegen::{plan, Plan, PlanOptions, Variant};
use sharnir_mech::formalisms::rnea::PointAcceleration;
use sharnir_mech::formalisms::{joint_space, lagrange, rnea, vereshchagin};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_spec::{JointKind, ParameterValue, Spec};
use sharnir_tests::base_parameters;
use sharnir_tests::derivatives::Derivatives;
use sharnir_tests::inputs::environment;
use sharnir_tests::oracle::{relative_error, Oracle, Sampling};
use sharnir_tests::random_spec::{random_spec, MAX_BODIES};
use std::collections::BTreeMap;

/// How many random mechanisms are checked: 200, the slice CI runs, or
/// `$SHARNIR_RANDOM_MECHANISMS` (the long run of docs/derivatives.md).
fn mechanisms() -> u64 {
    std::env::var("SHARNIR_RANDOM_MECHANISMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200)
}
/// The mechanisms are split into this many tests, so both cores work.
const SHARDS: u64 = 4;
/// Random states per mechanism.
const STATES: usize = 3;
/// Every `FOLDED_EVERY`-th mechanism is also checked with folded parameters.
const FOLDED_EVERY: u64 = 2;
/// Outputs against the numeric oracle.
const ORACLE_TOLERANCE: f64 = 1e-10;
/// Outputs against each other (one solve or product away from exact).
const IDENTITY_TOLERANCE: f64 = 1e-9;
/// `M` against its transpose.
const SYMMETRY_TOLERANCE: f64 = 1e-12;

/// The plan of one mechanism's module (the programs that ship) and the
/// alternative derivations the plan chose between, and how to evaluate
/// them.
struct Pipeline {
    /// The module's plan: every checked output is one of its programs,
    /// evaluated as the emitted function computes it.
    plan: Plan,
    dof: usize,
    /// `τ` from the base inertias, `τ` with the acceleration field from
    /// the bodies' own and from the base inertias: over `q`, `q̇`, `q̈`.
    inverse: Vec<Id>,
    /// `q̈` from the bodies' own inertias then from the base inertias (the
    /// `L D Lᵀ` solve twice when coupled): over `q`, `q̇`, `τ`.
    forward: Vec<Id>,
    /// The two alternative root lists lowered (runtime mode); `None`
    /// evaluates the pool directly (folded mode).
    programs: Option<(Program, Program)>,
    mechanism: Mechanism,
}

/// The values of the checked outputs at one state.
struct Dynamics {
    tau: Vec<f64>,
    mass: Vec<Vec<f64>>,
    bias: Vec<f64>,
    energy: [f64; 2],
    rates: Vec<f64>,
    gravity: Vec<f64>,
    coriolis: Vec<Vec<f64>>,
    /// `τ` from the base inertias (`rnea::inverse_dynamics_regrouped`).
    tau_base: Vec<f64>,
    /// `τ` with Khalil's acceleration field, from the bodies' own inertias
    /// and from the base inertias (`PointAcceleration::AccelerationField`).
    tau_field: [Vec<f64>; 2],
    poses: Vec<f64>,
}

/// One random state; `tau` is an independent joint-force vector.
#[derive(Debug)]
struct State {
    q: Vec<f64>,
    qd: Vec<f64>,
    qdd: Vec<f64>,
    tau: Vec<f64>,
}

impl Pipeline {
    /// Plans the module of the mechanism in `mode` as `cargo xtask gen`
    /// does, then derives the alternatives in the same pool.
    fn derive(spec: &Spec, mode: ParameterMode) -> Result<Pipeline, String> {
        let mut mechanism = Mechanism::from_spec(spec, mode).map_err(|e| format!("{e:?}"))?;
        let plan = plan(&mut mechanism, &PlanOptions::default()).map_err(|e| e.to_string())?;
        // The printer too: every planned program prints as valid Rust.
        plan.render(Variant::PLAIN).map_err(|e| e.to_string())?;
        let tau_base =
            rnea::inverse_dynamics_regrouped(&mut mechanism, PointAcceleration::CrossProducts);
        let tau_field =
            rnea::inverse_dynamics(&mut mechanism, PointAcceleration::AccelerationField);
        let tau_base_field =
            rnea::inverse_dynamics_regrouped(&mut mechanism, PointAcceleration::AccelerationField);
        let forward = if mechanism.has_couplings() {
            let tau = rnea::inverse_dynamics(&mut mechanism, PointAcceleration::CrossProducts);
            let terms = joint_space::joint_space(&mut mechanism.pool, &tau);
            lagrange::forward_dynamics(&mut mechanism.pool, &terms).repeat(2)
        } else {
            let own = vereshchagin::forward_dynamics(&mut mechanism).map_err(|e| e.to_string())?;
            let base = vereshchagin::forward_dynamics_regrouped(&mut mechanism)
                .map_err(|e| e.to_string())?;
            [own, base].concat()
        };
        let inverse = [tau_base, tau_field, tau_base_field].concat();
        let programs = (mode == ParameterMode::Runtime).then(|| {
            (
                Program::lower(&mechanism.pool, &inverse),
                Program::lower(&mechanism.pool, &forward),
            )
        });
        Ok(Pipeline {
            plan,
            dof: mechanism.dof(),
            inverse,
            forward,
            programs,
            mechanism,
        })
    }

    /// Evaluates `roots` through `lowered`, or through the pool when there
    /// is no lowered program.
    fn evaluate(
        &self,
        lowered: Option<&Program>,
        roots: &[Id],
        env: &dyn Fn(&Input) -> Option<f64>,
    ) -> Result<Vec<f64>, String> {
        match lowered {
            Some(program) => program
                .eval(env)
                .ok_or_else(|| "the lowered program reads an unbound input".to_owned()),
            None => self
                .mechanism
                .pool
                .eval(roots, env)
                .map_err(|e| e.to_string()),
        }
    }

    /// The planned program of `function`, evaluated.
    fn shipped(
        &self,
        function: &str,
        env: &dyn Fn(&Input) -> Option<f64>,
    ) -> Result<Vec<f64>, String> {
        self.plan
            .evaluate(function, env)
            .ok_or_else(|| format!("`{function}` reads an unbound input"))
    }

    /// The outputs over `q`, `q̇`, `q̈` at `state`.
    fn dynamics(&self, values: &BTreeMap<String, f64>, state: &State) -> Result<Dynamics, String> {
        let env = environment(values, &state.q, &state.qd, &state.qdd, &[]);
        let nv = self.dof;
        let rows = |entries: Vec<f64>| entries.chunks(nv.max(1)).map(<[f64]>::to_vec).collect();
        let energy = self.shipped("energy", &env)?;
        let program = self.programs.as_ref().map(|(p, _)| p);
        let alternatives = self.evaluate(program, &self.inverse, &env)?;
        let mut alternatives = alternatives.chunks(nv.max(1)).map(<[f64]>::to_vec);
        let mut next = || alternatives.next().unwrap_or_default();
        Ok(Dynamics {
            tau: self.shipped("inverse_dynamics", &env)?,
            mass: rows(self.shipped("mass_matrix", &env)?),
            bias: self.shipped("bias", &env)?,
            energy: [
                energy.first().copied().unwrap_or(f64::NAN),
                energy.get(1).copied().unwrap_or(f64::NAN),
            ],
            rates: self.shipped("coordinate_rates", &env)?,
            gravity: self.shipped("gravity", &env)?,
            coriolis: rows(self.shipped("coriolis_matrix", &env)?),
            tau_base: next(),
            tau_field: [next(), next()],
            poses: self.shipped("body_poses", &env)?,
        })
    }

    /// Forward dynamics at the state's `q`, `q̇` for the joint forces `tau`:
    /// the planned program's, then the alternatives from the bodies' own
    /// and from the base inertias.
    fn forward(
        &self,
        values: &BTreeMap<String, f64>,
        state: &State,
        tau: &[f64],
    ) -> Result<[Vec<f64>; 3], String> {
        let env = environment(values, &state.q, &state.qd, &[], tau);
        let program = self.programs.as_ref().map(|(_, p)| p);
        let both = self.evaluate(program, &self.forward, &env)?;
        let (own, base) = both.split_at(both.len() / 2);
        Ok([
            self.shipped("forward_dynamics", &env)?,
            own.to_vec(),
            base.to_vec(),
        ])
    }
}

/// A random state with positions drawn as `sampling` says (angles in ±π,
/// slides in ±0.5 m, quaternions a normalised random point of the cube
/// [−1, 1]⁴, every orientation possible though not uniform), velocities in
/// ±2, accelerations and forces in ±5: the ranges of `oracle::States`, for
/// sizes known only at run time.
fn sample(rng: &mut SmallRng, sampling: &[Sampling], nv: usize) -> State {
    let mut q = Vec::with_capacity(sampling.len());
    while q.len() < sampling.len() {
        match sampling.get(q.len()) {
            Some(Sampling::Quaternion) => {
                let quaternion = loop {
                    let x = [0; 4].map(|_| rng.gen_range(-1.0_f64..1.0));
                    let norm = x.iter().map(|c| c * c).sum::<f64>().sqrt();
                    if norm > 1e-3 {
                        break x.map(|c| c / norm);
                    }
                };
                q.extend(quaternion);
            }
            Some(Sampling::Slide) => q.push(rng.gen_range(-0.5..0.5)),
            _ => q.push(rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI)),
        }
    }
    let mut draw = |range: f64| (0..nv).map(|_| rng.gen_range(-range..range)).collect();
    State {
        q,
        qd: draw(2.0),
        qdd: draw(5.0),
        tau: draw(5.0),
    }
}

/// `got ≈ want` to `tolerance` relative to `max(1, ‖want‖∞)`, with every
/// entry finite (a NaN would otherwise compare as no error at all).
fn expect(what: &str, got: &[f64], want: &[f64], tolerance: f64) -> Result<(), String> {
    let err = relative_error(got, want);
    let finite = got.iter().chain(want).all(|x| x.is_finite());
    if finite && got.len() == want.len() && err <= tolerance {
        Ok(())
    } else {
        Err(format!(
            "{what}: off by {err:e} (tolerance {tolerance:e})\n  got  {got:?}\n  want {want:?}"
        ))
    }
}

/// Whether the Cholesky factorisation of the symmetric `m` succeeds, that
/// is whether `m` is positive definite.
fn cholesky_succeeds(m: &[Vec<f64>]) -> bool {
    let n = m.len();
    let mut l = vec![vec![0.0; n]; n];
    for j in 0..n {
        let pivot = m[j][j] - (0..j).map(|k| l[j][k] * l[j][k]).sum::<f64>();
        if !pivot.is_finite() || pivot <= 0.0 {
            return false;
        }
        l[j][j] = pivot.sqrt();
        for i in j + 1..n {
            let dot: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            l[i][j] = (m[i][j] - dot) / l[j][j];
        }
    }
    true
}

/// Every check of one pipeline at one state.
fn check_state(
    pipeline: &Pipeline,
    oracle: &Oracle,
    values: &BTreeMap<String, f64>,
    state: &State,
) -> Result<(), String> {
    let State { q, qd, qdd, tau } = state;
    let got = pipeline.dynamics(values, state)?;
    let oracle_tau = oracle.inverse_dynamics(q, qd, qdd);
    expect(
        "inverse dynamics vs oracle RNEA",
        &got.tau,
        &oracle_tau,
        ORACLE_TOLERANCE,
    )?;
    expect(
        "inverse dynamics from base inertias vs oracle RNEA",
        &got.tau_base,
        &oracle_tau,
        ORACLE_TOLERANCE,
    )?;
    expect(
        "inverse dynamics with the acceleration field vs oracle RNEA",
        &got.tau_field[0],
        &oracle_tau,
        ORACLE_TOLERANCE,
    )?;
    expect(
        "inverse dynamics with the acceleration field from base inertias vs oracle RNEA",
        &got.tau_field[1],
        &oracle_tau,
        ORACLE_TOLERANCE,
    )?;
    expect(
        "mass matrix vs oracle CRBA",
        &got.mass.concat(),
        &oracle.mass_matrix(q).concat(),
        ORACLE_TOLERANCE,
    )?;
    expect(
        "bias vs oracle",
        &got.bias,
        &oracle.bias(q, qd),
        ORACLE_TOLERANCE,
    )?;
    let (kinetic, potential) = oracle.energy(q, qd);
    expect(
        "energy (T, V) vs oracle",
        &got.energy,
        &[kinetic, potential],
        ORACLE_TOLERANCE,
    )?;
    expect(
        "coordinate rates vs oracle",
        &got.rates,
        &oracle.coordinate_rates(q, qd),
        ORACLE_TOLERANCE,
    )?;
    let [shipped, own, base] = pipeline.forward(values, state, tau)?;
    let oracle_qdd = oracle.forward_dynamics(q, qd, tau);
    expect(
        "forward dynamics vs oracle ABA",
        &shipped,
        &oracle_qdd,
        ORACLE_TOLERANCE,
    )?;
    expect(
        "forward dynamics from own inertias vs oracle ABA",
        &own,
        &oracle_qdd,
        ORACLE_TOLERANCE,
    )?;
    expect(
        "forward dynamics from base inertias vs oracle ABA",
        &base,
        &oracle_qdd,
        ORACLE_TOLERANCE,
    )?;
    let m_qdd_bias: Vec<f64> = got
        .mass
        .iter()
        .zip(&got.bias)
        .map(|(row, b)| row.iter().zip(qdd).map(|(m, a)| m * a).sum::<f64>() + b)
        .collect();
    expect("M q̈ + bias vs τ", &m_qdd_bias, &got.tau, IDENTITY_TOLERANCE)?;
    let [round_trip, ..] = pipeline.forward(values, state, &got.tau)?;
    expect(
        "forward(inverse(q̈)) vs q̈",
        &round_trip,
        qdd,
        IDENTITY_TOLERANCE,
    )?;
    let transpose: Vec<f64> = (0..got.mass.len())
        .flat_map(|j| got.mass.iter().map(move |row| row[j]))
        .collect();
    expect(
        "M vs Mᵀ",
        &got.mass.concat(),
        &transpose,
        SYMMETRY_TOLERANCE,
    )?;
    if !cholesky_succeeds(&got.mass) {
        return Err(format!("M is not positive definite: {:?}", got.mass));
    }
    expect(
        "gravity vs oracle bias at rest",
        &got.gravity,
        &oracle.bias(q, &vec![0.0; qd.len()]),
        ORACLE_TOLERANCE,
    )?;
    let c_qd_g: Vec<f64> = got
        .coriolis
        .iter()
        .zip(&got.gravity)
        .map(|(row, g)| row.iter().zip(qd).map(|(c, v)| c * v).sum::<f64>() + g)
        .collect();
    expect("C q̇ + g vs bias", &c_qd_g, &got.bias, IDENTITY_TOLERANCE)?;
    // The oracle numbers its tree its own way: match the bodies by name.
    let names: Vec<&str> = pipeline
        .mechanism
        .spec_bodies()
        .map(|(_, b)| b.name.as_str())
        .collect();
    let poses: Vec<f64> = oracle
        .body_poses_named(q, &names)
        .iter()
        .flat_map(|(rotation, origin)| rotation.concat().into_iter().chain(*origin))
        .collect();
    expect("body poses vs oracle", &got.poses, &poses, ORACLE_TOLERANCE)?;
    // Along the motion q(s) = q + s q̇(q, v), v(s) = v + s q̈ (a quaternion
    // leaves the unit sphere only at second order, which central differences
    // cancel): Ṁ − 2C is skew, and d/dt (T + V) = vᵀτ.
    let along = |s: f64| -> Result<Dynamics, String> {
        let moved = State {
            q: q.iter().zip(&got.rates).map(|(x, r)| x + s * r).collect(),
            qd: qd.iter().zip(qdd).map(|(v, a)| v + s * a).collect(),
            qdd: qdd.clone(),
            tau: tau.clone(),
        };
        pipeline.dynamics(values, &moved)
    };
    check_derivatives(pipeline, oracle, values, state, &got.mass)?;
    let h = 1e-4;
    let (p1, m1, p2, m2) = (along(h)?, along(-h)?, along(2.0 * h)?, along(-2.0 * h)?);
    let difference = |f: &dyn Fn(&Dynamics) -> Vec<f64>| -> Vec<f64> {
        let (a, b, c, d) = (f(&p1), f(&m1), f(&p2), f(&m2));
        (0..a.len())
            .map(|i| (8.0 * (a[i] - b[i]) - (c[i] - d[i])) / (12.0 * h))
            .collect()
    };
    let n = got.mass.len();
    // Ṁ at fixed v: only q moves in M, so the difference along s is Ṁ.
    let m_dot = difference(&|d| d.mass.concat());
    let symmetric_part: Vec<f64> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            (m_dot[i * n + j] - 2.0 * got.coriolis[i][j])
                + (m_dot[j * n + i] - 2.0 * got.coriolis[j][i])
        })
        .collect();
    expect(
        "Ṁ − 2C skew (symmetric part)",
        &symmetric_part,
        &vec![0.0; n * n],
        1e-6,
    )?;
    let power: f64 = qd.iter().zip(&got.tau).map(|(v, t)| v * t).sum();
    expect(
        "d/dt (T + V) vs q̇ᵀτ",
        &difference(&|d| vec![d.energy[0] + d.energy[1]]),
        &[power],
        1e-6,
    )?;
    Ok(())
}

/// The planned derivative functions at `state` against the oracle's
/// central differences ([`Derivatives`]), each matrix to 1e-6 of its
/// largest entry, and `M⁻¹ M = I` to 1e-9.
fn check_derivatives(
    pipeline: &Pipeline,
    oracle: &Oracle,
    values: &BTreeMap<String, f64>,
    state: &State,
    mass: &[Vec<f64>],
) -> Result<(), String> {
    let State { q, qd, qdd, tau } = state;
    let nv = pipeline.dof;
    let differences = Derivatives::at(oracle, q, qd, qdd, tau);
    let env = environment(values, q, qd, qdd, tau);
    let inverse = pipeline.shipped("inverse_dynamics_derivatives", &env)?;
    let forward = pipeline.shipped("forward_dynamics_derivatives", &env)?;
    let gravity = pipeline.shipped("gravity_derivatives", &env)?;
    let block = |values: &[f64], k: usize| values[k * nv * nv..(k + 1) * nv * nv].to_vec();
    for (what, got, want) in [
        (
            "∂τ/∂q",
            block(&inverse, 0),
            &differences.inverse_by_position,
        ),
        (
            "∂τ/∂q̇",
            block(&inverse, 1),
            &differences.inverse_by_velocity,
        ),
        ("∂g/∂q", gravity, &differences.gravity_by_position),
        (
            "∂q̈/∂q",
            block(&forward, 0),
            &differences.forward_by_position,
        ),
        (
            "∂q̈/∂q̇",
            block(&forward, 1),
            &differences.forward_by_velocity,
        ),
        ("∂q̈/∂τ", block(&forward, 2), &differences.forward_by_force),
    ] {
        let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        expect(
            &format!("{what} vs central differences of the oracle (scale {scale:e})"),
            &got,
            want,
            1e-6,
        )?;
    }
    let inverse_mass = pipeline.shipped("mass_matrix_inverse", &env)?;
    let product: Vec<f64> = (0..nv * nv)
        .map(|k| {
            (0..nv)
                .map(|l| inverse_mass[k / nv * nv + l] * mass[l][k % nv])
                .sum()
        })
        .collect();
    let identity: Vec<f64> = (0..nv * nv)
        .map(|k| if k / nv == k % nv { 1.0 } else { 0.0 })
        .collect();
    expect("M⁻¹ M = I", &product, &identity, IDENTITY_TOLERANCE)?;
    let regressor = pipeline.shipped("standard_regressor", &env)?;
    let names: Vec<&str> = pipeline
        .plan
        .body_names()
        .iter()
        .map(String::as_str)
        .collect();
    let mut parameters = oracle.standard_parameters(&names);
    parameters.extend(oracle.drives.parameters(pipeline.plan.drive_parameters()));
    let tau: Vec<f64> = regressor
        .chunks(parameters.len().max(1))
        .map(|row| row.iter().zip(&parameters).map(|(y, p)| y * p).sum())
        .collect();
    let friction = oracle.drives.friction_forces(qd);
    let motor: Vec<f64> = oracle
        .inverse_dynamics(q, qd, qdd)
        .iter()
        .zip(&friction)
        .map(|(t, f)| t - f)
        .collect();
    expect(
        "Y π vs the oracle's inverse dynamics less the spec's friction",
        &tau,
        &motor,
        ORACLE_TOLERANCE,
    )?;
    base_parameters::check(&pipeline.plan, &env, &parameters, nv as u64)
        .map_err(|problem| format!("base parameters: {problem}"))
}

/// Parses random spec `seed`, panicking with its text if it is rejected.
fn parse(seed: u64, text: String) -> Spec {
    let source = sharnir_spec::Source {
        name: format!("random_{seed}.spec"),
        text: text.clone(),
    };
    sharnir_spec::parse(source)
        .unwrap_or_else(|e| panic!("random spec {seed} is rejected: {e:?}\n--- spec ---\n{text}"))
}

/// Runs mechanism `seed` through the pipeline in runtime mode (and folded
/// mode for every `FOLDED_EVERY`-th), panicking with the spec and the state
/// on the first mismatch.
fn check_mechanism(seed: u64) {
    let text = random_spec(seed);
    let spec = parse(seed, text.clone());
    let report = |mode: &str, state: &str, problem: String| -> ! {
        panic!("random mechanism {seed} ({mode}): {problem}\n--- state ---\n{state}\n--- spec ---\n{text}")
    };
    let oracle = Oracle::for_parsed_spec(&spec);
    let values = spec.parameter_values();
    let mut modes = vec![("runtime", ParameterMode::Runtime)];
    if seed.is_multiple_of(FOLDED_EVERY) {
        modes.push(("folded", ParameterMode::Folded));
    }
    for (name, mode) in modes {
        let pipeline =
            Pipeline::derive(&spec, mode).unwrap_or_else(|problem| report(name, "none", problem));
        let mut rng = SmallRng::seed_from_u64(0x5EED_0000 ^ seed);
        for _ in 0..STATES {
            let state = sample(&mut rng, &oracle.sampling, pipeline.dof);
            if let Err(problem) = check_state(&pipeline, &oracle, &values, &state) {
                report(name, &format!("{state:#?}"), problem);
            }
        }
    }
}

/// Checks the mechanisms whose seed is `shard` modulo `SHARDS`.
fn check_shard(shard: u64) {
    for seed in (shard..mechanisms()).step_by(SHARDS as usize) {
        check_mechanism(seed);
    }
}

#[test]
fn random_mechanisms_shard_0() {
    check_shard(0);
}

#[test]
fn random_mechanisms_shard_1() {
    check_shard(1);
}

#[test]
fn random_mechanisms_shard_2() {
    check_shard(2);
}

#[test]
fn random_mechanisms_shard_3() {
    check_shard(3);
}

/// The generator is deterministic and covers what the pipeline must see:
/// every joint type many times, floating bases, fixed chains of two, runtime
/// and derived parameters, and every tree size from 1 to `MAX_BODIES`.
#[test]
fn random_specs_cover_the_format() {
    let mut joints: BTreeMap<&str, usize> = BTreeMap::new();
    let mut sizes = vec![0_usize; MAX_BODIES + 1];
    let (mut floating, mut fixed_chains, mut runtime, mut derived) = (0, 0, 0, 0);
    let (mut coupled, mut followers) = (0, 0);
    for seed in 0..mechanisms() {
        let text = random_spec(seed);
        assert_eq!(text, random_spec(seed), "spec {seed} is not deterministic");
        let spec = parse(seed, text);
        for joint in &spec.joints {
            *joints.entry(joint.kind.name()).or_default() += 1;
        }
        let mimics = spec.joints.iter().filter(|j| j.mimic.is_some()).count();
        followers += mimics;
        coupled += usize::from(mimics > 0);
        if let Some(count) = sizes.get_mut(spec.bodies.len()) {
            *count += 1;
        }
        let fixed_children: Vec<&str> = spec
            .joints
            .iter()
            .filter(|j| j.kind == JointKind::Fixed)
            .map(|j| j.child.as_str())
            .collect();
        let chained = spec
            .joints
            .iter()
            .any(|j| j.kind == JointKind::Fixed && fixed_children.contains(&j.parent.as_str()));
        fixed_chains += usize::from(chained);
        floating += usize::from(
            spec.joints
                .iter()
                .any(|j| j.kind == JointKind::Free && j.parent == "ground"),
        );
        let is_derived =
            |p: &&sharnir_spec::Parameter| matches!(p.value, ParameterValue::Derived(_));
        derived += usize::from(spec.parameters.iter().any(|p| is_derived(&p)));
        runtime += usize::from(spec.parameters.iter().any(|p| !is_derived(&p)));
    }
    for (kind, _) in JointKind::ALL {
        let count = joints.get(kind.name()).copied().unwrap_or(0);
        assert!(
            count >= 25,
            "joint type {} appears {count} times",
            kind.name()
        );
    }
    for kind in ["revolute", "prismatic"] {
        let count = joints.get(kind).copied().unwrap_or(0);
        assert!(count >= 100, "{kind} appears only {count} times");
    }
    assert!(
        sizes.iter().skip(1).all(|&n| n >= 10),
        "tree sizes 1..={MAX_BODIES}: {sizes:?}"
    );
    assert!(floating >= 30, "{floating} floating bases");
    assert!(fixed_chains >= 5, "{fixed_chains} fixed chains of two");
    assert!(
        runtime >= 150,
        "{runtime} mechanisms with runtime parameters"
    );
    assert!(
        derived >= 50,
        "{derived} mechanisms with derived parameters"
    );
    assert!(
        coupled >= 40 && followers >= 60,
        "{coupled} mechanisms with {followers} coupled joints"
    );
}
