//! Joints that let go (`detach`), end to end: the release located on the
//! dense output, the state mapped onto the variant module, and the motion
//! after it.
//!
//! `specs/sling_release.spec` is a hammer on a hinge that gives way when
//! the pull along the handle reaches its strength. Energy gives the release
//! angle in closed form, and after it the hammer flies ballistically and
//! spins at its release rate: both sides of the release are checked against
//! formulas written here from the spec's numbers. `specs/solar_array.spec`
//! lets panel 2 go at t = 1 s in orbit: afterwards panel 1 turns at a
//! constant rate and panel 2 drifts and spins uniformly. Across each
//! release every body's pose and velocity, and so its momentum, must be
//! continuous. `specs/payload_release.spec` welds a payload to an arm's
//! tip by a cut joint that lets go when its normal force changes sign: the
//! reactions of its joints (the grip's from the multipliers, the elbow's
//! carrying the grip's) match the payload's and the forearm's momentum
//! balance, the loop opens, the coordinates stay, and the payload flies off
//! ballistically. A tree joint
//! inside a loop that lets go leaves the loop closed from a free body
//! (checked on the four-bar's crank, through the pipeline).

use sharnir_generated::{payload_release, payload_release_without_grip};
use sharnir_generated::{sling_release, sling_release_without_hinge};
use sharnir_generated::{solar_array, solar_array_without_hinge2};
use sharnir_runtime::{
    detachments, model, release_events, release_state, Detachable, LoopClosure, MechanicalSystem,
    Method, Model, Passive, Release, ReleaseError, Simulation, Summary, Tolerances,
};

model!(Sling = sharnir_generated::sling_release);
detachments!(Sling = sharnir_generated::sling_release);
model!(Thrown = sharnir_generated::sling_release_without_hinge);
model!(Array = sharnir_generated::solar_array);
detachments!(Array = sharnir_generated::solar_array);
model!(Separated = sharnir_generated::solar_array_without_hinge2);
model!(Carrying = sharnir_generated::payload_release, loops);
detachments!(Carrying = sharnir_generated::payload_release, loops);
model!(Dropped = sharnir_generated::payload_release_without_grip);

const TIGHT: Tolerances = Tolerances {
    rtol: 1e-12,
    atol: 1e-12,
};

/// Runs `model` until a joint lets go (or `t_end`).
fn run_to_release<M, const NQ: usize, const NV: usize>(model: M, t_end: f64) -> Summary
where
    M: Detachable<NQ, NV, Real = f64> + Clone + Send + 'static,
{
    release_run(Simulation::new(model), t_end)
}

/// Runs a configured simulation, open or closed, until a joint lets go.
fn release_run<M, S, const NQ: usize, const NV: usize>(
    simulation: Simulation<M, NQ, NV, Passive, S>,
    t_end: f64,
) -> Summary
where
    M: Detachable<NQ, NV, Real = f64> + Clone + Send + 'static,
    S: MechanicalSystem<M, NQ, NV>,
{
    let (events, function) = release_events(simulation.model());
    simulation
        .method(Method::Dop853)
        .tolerances(TIGHT)
        .events(events, function)
        .run(t_end, |_: &sharnir_runtime::Sample<'_>| {})
        .expect("the run reaches the release")
}

/// Runs `model` from `(q, v)` at `t0` to `t_end` and returns the final state.
fn run_from<M, const NQ: usize, const NV: usize>(
    model: M,
    t0: f64,
    q: [f64; NQ],
    v: [f64; NV],
    t_end: f64,
) -> ([f64; NQ], [f64; NV])
where
    M: Model<NQ, NV, Real = f64>,
{
    let summary = Simulation::new(model)
        .method(Method::Dop853)
        .tolerances(TIGHT)
        .start_time(t0)
        .initial_state(q, v)
        .run(t_end, |_: &sharnir_runtime::Sample<'_>| {})
        .expect("the variant runs");
    split(&summary.final_state)
}

fn split<const NQ: usize, const NV: usize>(state: &[f64]) -> ([f64; NQ], [f64; NV]) {
    sharnir_runtime::split_state(state).expect("a state of NQ + NV entries")
}

/// Every body's pose and twist (origin velocity, angular velocity, ground
/// axes), from a module's `body_poses` and `body_jacobians`.
type BodyMotion = ([[f64; 3]; 3], [f64; 3], [f64; 3], [f64; 3]);

fn motion<const NV: usize>(
    poses: &[([[f64; 3]; 3], [f64; 3])],
    jacobians: &[[[f64; NV]; 6]],
    v: &[f64; NV],
) -> Vec<BodyMotion> {
    poses
        .iter()
        .zip(jacobians)
        .map(|(&(rotation, position), jacobian)| {
            let row = |r: usize| jacobian[r].iter().zip(v).map(|(j, x)| j * x).sum::<f64>();
            (
                rotation,
                position,
                [row(0), row(1), row(2)],
                [row(3), row(4), row(5)],
            )
        })
        .collect()
}

fn assert_same_motion(before: &[BodyMotion], after: &[BodyMotion], tolerance: f64) {
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(after) {
        let flat = |m: &BodyMotion| -> Vec<f64> {
            m.0.concat()
                .into_iter()
                .chain(m.1)
                .chain(m.2)
                .chain(m.3)
                .collect()
        };
        for (x, y) in flat(b).iter().zip(flat(a)) {
            assert!((x - y).abs() <= tolerance, "{x} against {y}");
        }
    }
}

/// Linear momentum and angular momentum about the ground origin of a body
/// of `mass`, centre of mass `com` and central inertia `inertia` (body
/// axes) moving with `motion`.
fn momentum(
    motion: &BodyMotion,
    mass: f64,
    com: [f64; 3],
    inertia: [[f64; 3]; 3],
) -> ([f64; 3], [f64; 3]) {
    let (r, p, v, w) = motion;
    let rc: [f64; 3] = std::array::from_fn(|i| (0..3).map(|j| r[i][j] * com[j]).sum());
    let c: [f64; 3] = std::array::from_fn(|i| p[i] + rc[i]);
    let vc = add(*v, cross(*w, rc));
    let linear = vc.map(|x| mass * x);
    // R I Rᵀ ω
    let wb: [f64; 3] = std::array::from_fn(|i| (0..3).map(|j| r[j][i] * w[j]).sum());
    let iwb: [f64; 3] = std::array::from_fn(|i| (0..3).map(|j| inertia[i][j] * wb[j]).sum());
    let spin: [f64; 3] = std::array::from_fn(|i| (0..3).map(|j| r[i][j] * iwb[j]).sum());
    (linear, add(spin, cross(c, linear)))
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| a[i] + b[i])
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn sling_motion(q: &[f64; 1], v: &[f64; 1]) -> Vec<BodyMotion> {
    let p = sling_release::Params::default();
    let poses: Vec<_> = sling_release::body_poses(&p, q)
        .iter()
        .map(|pose| (pose.rotation, pose.position))
        .collect();
    motion(&poses, &sling_release::body_jacobians(&p, q), v)
}

fn thrown_motion(q: &[f64; 7], v: &[f64; 6]) -> Vec<BodyMotion> {
    let p = sling_release_without_hinge::Params::default();
    let poses: Vec<_> = sling_release_without_hinge::body_poses(&p, q)
        .iter()
        .map(|pose| (pose.rotation, pose.position))
        .collect();
    motion(
        &poses,
        &sling_release_without_hinge::body_jacobians(&p, q),
        v,
    )
}

/// The spec's numbers: m, l, ic, g.
const M: f64 = 2.0;
const L: f64 = 0.8;
const IC: f64 = 0.01;
const G: f64 = 9.81;
const STRENGTH: f64 = 40.0;

#[test]
fn the_sling_module_lists_its_release() {
    let sling = Sling::default();
    assert_eq!(<Sling as Detachable<1, 1>>::N_DETACHABLE, 1);
    let d = sling.detachment(0).expect("one detachable joint");
    assert_eq!(d.joint, "hinge");
    assert_eq!(d.variant, "sling_release_without_hinge");
    assert_eq!(d.release, Release::Below(0, -STRENGTH));
    assert!(Thrown::NAME.ends_with(d.variant));
    assert_eq!(sling.detachment(1), None);
}

#[test]
fn the_hinge_reaction_is_the_hammers_momentum_balance() {
    // fx along the handle, fy across it, mz about the hinge, from
    // m a_c = F + m g and the moment balance about the centre of mass.
    let p = sling_release::Params::default();
    for (theta, rate, accel) in [(0.3, -1.2, 0.7), (-1.1, 2.5, -3.0), (2.0, 0.0, 1.5)] {
        let r = sling_release::joint_reactions(&p, &[theta], &[rate], &[accel])[0];
        let (s, c) = f64::sin_cos(theta);
        let fx = M * (-rate * rate * L + G * s);
        let fy = M * (accel * L + G * c);
        let mz = IC * accel + L * fy;
        for (got, want) in [(r[0], fx), (r[1], fy), (r[5], mz)] {
            assert!(
                (got - want).abs() < 1e-12 * (1.0 + want.abs()),
                "{got} against {want}"
            );
        }
        assert_eq!([r[2], r[3], r[4]], [0.0; 3]);
        // The hinge's own moment is the joint torque.
        let tau = sling_release::inverse_dynamics(&p, &[theta], &[rate], &[accel])[0];
        assert!((r[5] - tau).abs() < 1e-12 * (1.0 + tau.abs()));
    }
}

#[test]
fn the_hammer_lets_go_at_the_closed_form_angle_and_flies_ballistically() {
    let sling = Sling::default();
    let summary = run_to_release(sling, 3.0);
    let event = &summary.events[summary.terminated_by.expect("the hinge gives way")];
    assert_eq!(event.name, "release hinge");
    let (q, v): ([f64; 1], [f64; 1]) = split(&summary.final_state);
    let ih = IC + M * L * L;
    let sin_release = -STRENGTH / (M * G * (2.0 * M * L * L / ih + 1.0));
    let rate_release = -(-2.0 * M * G * L * sin_release / ih).sqrt();
    assert!(
        (q[0].sin() - sin_release).abs() < 1e-9,
        "{} against {sin_release}",
        q[0].sin()
    );
    assert!(
        (v[0] - rate_release).abs() < 1e-8,
        "{} against {rate_release}",
        v[0]
    );
    assert!(
        q[0] > -std::f64::consts::FRAC_PI_2,
        "released before the bottom"
    );

    // Across the release: the same pose and velocity of the hammer.
    let (q2, v2): ([f64; 7], [f64; 6]) =
        release_state(&sling, 0, &q, &v).expect("the variant's sizes");
    assert_same_motion(&sling_motion(&q, &v), &thrown_motion(&q2, &v2), 1e-14);
    let inertia = [[IC, 0.0, 0.0], [0.0, IC, 0.0], [0.0, 0.0, IC]];
    let before = momentum(&sling_motion(&q, &v)[0], M, [L, 0.0, 0.0], inertia);
    let after = momentum(&thrown_motion(&q2, &v2)[0], M, [L, 0.0, 0.0], inertia);
    for (a, b) in before
        .0
        .iter()
        .chain(&before.1)
        .zip(after.0.iter().chain(&after.1))
    {
        assert!((a - b).abs() < 1e-13, "momentum {a} against {b}");
    }
    let energy = |e: (f64, f64)| e.0 + e.1;
    let e_before = energy(sling.energy(&q, &v));
    let e_after = energy(Thrown::default().energy(&q2, &v2));
    assert!(
        (e_before - e_after).abs() < 1e-12,
        "{e_before} against {e_after}"
    );

    // Ballistic flight: the centre of mass on its parabola, the spin kept.
    let (t0, flight) = (summary.t_end, 0.6);
    let (qe, ve) = run_from(Thrown::default(), t0, q2, v2, t0 + flight);
    let pose = &sling_release_without_hinge::body_poses(&Default::default(), &qe)[0];
    let (s, c) = q[0].sin_cos();
    let start = [L * c, L * s];
    let velocity = [-rate_release * L * s, rate_release * L * c];
    let expected = [
        start[0] + velocity[0] * flight,
        start[1] + velocity[1] * flight - 0.5 * G * flight * flight,
    ];
    let r = pose.rotation;
    let com = [
        pose.position[0] + r[0][0] * L,
        pose.position[1] + r[1][0] * L,
    ];
    for (got, want) in com.iter().zip(expected) {
        assert!((got - want).abs() < 1e-9, "{got} against {want}");
    }
    let angle = r[1][0].atan2(r[0][0]);
    let spun = q[0] + v[0] * flight;
    let wrapped = (angle - spun + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
        - std::f64::consts::PI;
    assert!(wrapped.abs() < 1e-9, "angle {angle} against {spun}");
    assert!(
        (ve[5] - rate_release).abs() < 1e-9,
        "spin {} against {rate_release}",
        ve[5]
    );
}

#[test]
fn the_solar_panel_separates_at_its_time_with_continuous_momenta() {
    let array = Array::default();
    let summary = run_to_release(array, 5.0);
    let event = &summary.events[summary.terminated_by.expect("hinge 2 lets go")];
    assert_eq!(event.name, "release hinge2");
    assert!(
        (summary.t_end - 1.0).abs() < 1e-10,
        "released at {}",
        summary.t_end
    );
    let (q, v): ([f64; 2], [f64; 2]) = split(&summary.final_state);
    let (q2, v2): ([f64; 8], [f64; 7]) =
        release_state(&array, 0, &q, &v).expect("the variant's sizes");

    let p = solar_array::Params::default();
    let p2 = solar_array_without_hinge2::Params::default();
    let before: Vec<_> = solar_array::body_poses(&p, &q)
        .iter()
        .map(|pose| (pose.rotation, pose.position))
        .collect();
    let before = motion(&before, &solar_array::body_jacobians(&p, &q), &v);
    let after: Vec<_> = solar_array_without_hinge2::body_poses(&p2, &q2)
        .iter()
        .map(|pose| (pose.rotation, pose.position))
        .collect();
    let after = motion(
        &after,
        &solar_array_without_hinge2::body_jacobians(&p2, &q2),
        &v2,
    );
    assert_same_motion(&before, &after, 1e-14);
    // Each panel's momenta, from the spec's mass properties.
    let plate = |m: f64| {
        let (length, width) = (1.2, 1.0);
        [
            [m * width * width / 12.0, 0.0, 0.0],
            [
                0.0,
                m * (length * length + width * width) / 12.0 - 0.01,
                0.0,
            ],
            [0.0, 0.0, m * length * length / 12.0],
        ]
    };
    let coms = [[0.1, -0.05, 0.0], [0.6, 0.05, 0.0]];
    for (k, com) in coms.iter().enumerate() {
        let (lb, ab) = momentum(&before[k], 20.0, *com, plate(20.0));
        let (la, aa) = momentum(&after[k], 20.0, *com, plate(20.0));
        for (x, y) in lb.iter().chain(&ab).zip(la.iter().chain(&aa)) {
            assert!((x - y).abs() < 1e-12, "panel {k}: {x} against {y}");
        }
    }

    // In orbit after the release: panel 1 turns at a constant rate, panel 2
    // drifts and spins uniformly.
    let t_end = 2.5;
    let (qe, ve) = run_from(Separated::default(), 1.0, q2, v2, t_end);
    assert!((ve[0] - v2[0]).abs() < 1e-10, "panel 1 keeps its rate");
    assert!((qe[0] - (q2[0] + v2[0] * (t_end - 1.0))).abs() < 1e-9);
    let end: Vec<_> = solar_array_without_hinge2::body_poses(&p2, &qe)
        .iter()
        .map(|pose| (pose.rotation, pose.position))
        .collect();
    let end = motion(
        &end,
        &solar_array_without_hinge2::body_jacobians(&p2, &qe),
        &ve,
    );
    let com_of = |m: &BodyMotion| {
        let (r, p, _, _) = m;
        let c = coms[1];
        [0, 1, 2].map(|i| p[i] + (0..3).map(|j| r[i][j] * c[j]).sum::<f64>())
    };
    let (drift, _) = momentum(&after[1], 20.0, coms[1], plate(20.0));
    let start = com_of(&after[1]);
    let reached = com_of(&end[1]);
    for i in 0..3 {
        let want = start[i] + drift[i] / 20.0 * (t_end - 1.0);
        assert!(
            (reached[i] - want).abs() < 1e-9,
            "{} against {want}",
            reached[i]
        );
    }
    for (w_end, w_start) in end[1].3.iter().zip(after[1].3) {
        assert!(
            (w_end - w_start).abs() < 1e-10,
            "spin {w_end} against {w_start}"
        );
    }
}

/// Asserts that a variant's initial state is its parent's mapped across
/// a release at the start (`release_state`), to 1e-12: the released body
/// starts where the parent puts it, moving as it moves there.
fn starts_where_released<
    P,
    V,
    const NQ: usize,
    const NV: usize,
    const NQ2: usize,
    const NV2: usize,
>(
    parent: &P,
    index: usize,
) where
    P: Detachable<NQ, NV, Real = f64>,
    V: Model<NQ2, NV2, Real = f64> + Default,
{
    let (q0, v0) = (parent.initial_positions(), parent.initial_velocities());
    let (q, v) =
        release_state::<P, NQ, NV, NQ2, NV2>(parent, index, &q0, &v0).expect("the variant's sizes");
    let variant = V::default();
    let (q2, v2) = (variant.initial_positions(), variant.initial_velocities());
    for (a, b) in q.iter().chain(&v).zip(q2.iter().chain(&v2)) {
        assert!(
            (a - b).abs() < 1e-12,
            "{}: {q:?} {v:?} against {q2:?} {v2:?}",
            V::NAME
        );
    }
}

model!(Pendulum = sharnir_generated::two_stage_release);
detachments!(Pendulum = sharnir_generated::two_stage_release);
model!(Pair = sharnir_generated::two_stage_release_without_shoulder);
detachments!(Pair = sharnir_generated::two_stage_release_without_shoulder);
model!(LowerFirst = sharnir_generated::two_stage_release_without_elbow);
detachments!(LowerFirst = sharnir_generated::two_stage_release_without_elbow);
model!(Apart = sharnir_generated::two_stage_release_without_elbow_and_shoulder);

#[test]
fn every_variant_starts_from_its_parents_initial_state_mapped_across_the_release() {
    starts_where_released::<_, Thrown, 1, 1, 7, 6>(&Sling::default(), 0);
    starts_where_released::<_, Separated, 2, 2, 8, 7>(&Array::default(), 0);
    // Both orders of a chain of two releases reach one last structure.
    starts_where_released::<_, Pair, 2, 2, 8, 7>(&Pendulum::default(), 0);
    starts_where_released::<_, LowerFirst, 2, 2, 8, 7>(&Pendulum::default(), 1);
    starts_where_released::<_, Apart, 8, 7, 14, 12>(&Pair::default(), 0);
    starts_where_released::<_, Apart, 8, 7, 14, 12>(&LowerFirst::default(), 0);
    // The pendulum starts at rest; the solar array's panel 2 starts moving
    // as hinge 1 turns it: v = ω × r at (s10 + s12, −h10 − h12).
    let v = Separated::default().initial_velocities();
    let expected = [0.4, 0.4 * 0.1, 0.4 * 0.7, 0.0, 0.0, 0.0, 1.2];
    for (a, b) in v.iter().zip(expected) {
        assert!((a - b).abs() < 1e-15, "{v:?}");
    }
}

#[test]
fn a_state_maps_only_onto_its_own_variant() {
    let sling = Sling::default();
    let wrong: Result<([f64; 2], [f64; 2]), _> = release_state(&sling, 0, &[0.1], &[0.2]);
    assert_eq!(
        wrong,
        Err(ReleaseError::WrongVariant {
            expected: "sling_release_without_hinge"
        })
    );
    let missing: Result<([f64; 7], [f64; 6]), _> = release_state(&sling, 1, &[0.1], &[0.2]);
    assert_eq!(missing, Err(ReleaseError::NoSuchJoint(1)));
}

/// The payload arm's numbers: l1, l2, m2, mp, the cube's side, g.
const ARM: (f64, f64, f64, f64, f64, f64) = (0.6, 0.5, 2.0, 1.5, 0.1, 9.81);

/// `(cos φ, sin φ)` and its normal `(−sin φ, cos φ)`.
fn along(phi: f64) -> ([f64; 2], [f64; 2]) {
    let (s, c) = phi.sin_cos();
    ([c, s], [-s, c])
}

/// The acceleration of the point at distance `r` along the forearm from
/// the elbow, from the arm's angles, rates and accelerations (closed form).
fn forearm_point_acceleration(q: &[f64], v: &[f64], a: &[f64], r: f64) -> [f64; 2] {
    let (l1, ..) = ARM;
    let phi = q[0] + q[1];
    let (rate, accel) = (v[0] + v[1], a[0] + a[1]);
    let (e1, n1) = along(q[0]);
    let (e2, n2) = along(phi);
    std::array::from_fn(|i| {
        l1 * (-v[0] * v[0] * e1[i] + a[0] * n1[i]) + r * (-rate * rate * e2[i] + accel * n2[i])
    })
}

/// The forearm's and the grip's reactions from the momentum balance of the
/// bodies beyond each joint (closed form): `(fx, fy, mz)` in the forearm's
/// axes, the elbow's moment about the elbow, the grip's about the payload's
/// centre.
fn closed_form_reactions(q: &[f64], v: &[f64], a: &[f64]) -> ([f64; 3], [f64; 3]) {
    let (_, l2, m2, mp, side, g) = ARM;
    let phi = q[0] + q[1];
    let accel = a[0] + a[1];
    let (e, n) = along(phi);
    let local = |w: [f64; 2]| [w[0] * e[0] + w[1] * e[1], w[0] * n[0] + w[1] * n[1]];
    let tip = forearm_point_acceleration(q, v, a, l2);
    let centre = forearm_point_acceleration(q, v, a, l2 / 2.0);
    let payload = [mp * tip[0], mp * (tip[1] + g)];
    let forearm = [m2 * centre[0], m2 * (centre[1] + g)];
    let (ip, i2) = (mp * side * side / 6.0, m2 * l2 * l2 / 12.0);
    let grip = local(payload);
    let elbow_force = local([payload[0] + forearm[0], payload[1] + forearm[1]]);
    // Moments about the elbow: the spins and the forces at their levers.
    let lever = |r: f64, f: [f64; 2]| r * (e[0] * f[1] - e[1] * f[0]);
    let elbow_moment = (ip + i2) * accel + lever(l2, payload) + lever(l2 / 2.0, forearm);
    (
        [elbow_force[0], elbow_force[1], elbow_moment],
        [grip[0], grip[1], ip * accel],
    )
}

/// States of the carried payload along a run, to check the reactions at.
fn carried_states() -> Vec<([f64; 9], [f64; 8])> {
    let mut states = Vec::new();
    Simulation::new(Carrying::default())
        .closed()
        .method(Method::Dop853)
        .tolerances(TIGHT)
        .output_interval(0.05)
        .run(0.3, |s: &sharnir_runtime::Sample<'_>| {
            states.push((
                std::array::from_fn(|i| s.q[i]),
                std::array::from_fn(|i| s.v[i]),
            ));
        })
        .expect("the carried run");
    states
}

#[test]
fn the_grip_and_elbow_reactions_are_the_momentum_balance_beyond_them() {
    // The elbow's reaction, from the pipeline with the elbow detachable as
    // well (not a bundled module): in a mechanism with loops a tree joint's
    // reaction carries the grip's on the forearm.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../specs/payload_release.spec"
    ))
    .expect("the payload spec");
    let text = text.replacen(
        "origin = { xyz = [\"l1\", 0, 0] }\n",
        "origin = { xyz = [\"l1\", 0, 0] }\ndetach = { reaction = \"mz\", above = 1e9 }\n",
        1,
    );
    let spec = sharnir_spec::parse(sharnir_spec::Source {
        name: "payload_release.spec".into(),
        text,
    })
    .expect("a valid spec");
    let mut mechanism =
        sharnir_mech::Mechanism::from_spec(&spec, sharnir_mech::ParameterMode::Folded)
            .expect("the mechanism");
    let roots: Vec<sharnir_cas::Id> =
        sharnir_mech::formalisms::reactions::detachable_reactions(&mut mechanism).concat();
    let p = payload_release::Params::default();
    for (q, v) in carried_states() {
        let (a, lambda) =
            payload_release::constrained_forward_dynamics(&p, &q, &v, &[0.0; 8]).expect("solves");
        let (elbow, grip) = closed_form_reactions(&q, &v, &a);
        let emitted = payload_release::joint_reactions(&p, &q, &v, &a, &lambda)[0];
        let env = |symbol: &sharnir_mech::Input| match symbol {
            sharnir_mech::Input::Position(i) => q.get(*i).copied(),
            sharnir_mech::Input::Velocity(i) => v.get(*i).copied(),
            sharnir_mech::Input::Acceleration(i) => a.get(*i).copied(),
            sharnir_mech::Input::Multiplier(i) => lambda.get(*i).copied(),
            _ => None,
        };
        let derived = mechanism.pool.eval(&roots, &env).expect("evaluates");
        let (elbow_derived, grip_derived) = derived.split_at(6);
        for (reaction, want) in [
            (&emitted[..], grip),
            (grip_derived, grip),
            (elbow_derived, elbow),
        ] {
            let got = [reaction[0], reaction[1], reaction[5]];
            for (x, y) in got.iter().zip(want) {
                assert!(
                    (x - y).abs() < 1e-9 * (1.0 + y.abs()),
                    "{got:?} against {want:?}"
                );
            }
            for out_of_plane in [reaction[2], reaction[3], reaction[4]] {
                assert!(out_of_plane.abs() < 1e-9, "{reaction:?}");
            }
        }
    }
}

#[test]
fn the_payload_moves_with_the_tip_until_the_grip_opens_then_flies() {
    let arm = Carrying::default();
    let summary = release_run(Simulation::new(arm).closed(), 3.0);
    let event = &summary.events[summary.terminated_by.expect("the grip opens")];
    assert_eq!(event.name, "release grip");
    assert!(
        summary.relative_energy_drift() < 1e-8,
        "energy kept while carried"
    );
    let (q, v): ([f64; 9], [f64; 8]) = split(&summary.final_state);
    // The grip lets go where its normal force changes sign.
    let p = payload_release::Params::default();
    let (a, _) =
        payload_release::constrained_forward_dynamics(&p, &q, &v, &[0.0; 8]).expect("solves");
    let (_, grip) = closed_form_reactions(&q, &v, &a);
    assert!(
        grip[1].abs() < 1e-8,
        "normal force {} at the release",
        grip[1]
    );
    assert!(
        summary.t_end > 0.05 && summary.t_end < 3.0,
        "released at {}",
        summary.t_end
    );
    // Carried: the payload sits at the tip with the forearm's orientation.
    let residual = arm.constraints(&q);
    assert!(residual.iter().all(|r| r.abs() < 1e-10), "{residual:?}");
    let poses = payload_release::body_poses(&p, &q);
    let (forearm, payload) = (&poses[1], &poses[2]);
    for i in 0..3 {
        let tip = forearm.position[i] + forearm.rotation[i][0] * ARM.1;
        assert!((payload.position[i] - tip).abs() < 1e-10);
    }
    // A cut joint's release keeps the coordinates (the payload's quaternion
    // normalised: the event's state is a tolerance off the manifold), and
    // every body's motion.
    let (q2, v2): ([f64; 9], [f64; 8]) =
        release_state(&arm, 0, &q, &v).expect("the variant's sizes");
    assert_eq!(v, v2);
    for (a, b) in q.iter().zip(&q2) {
        assert!((a - b).abs() < 1e-12, "{q:?} against {q2:?}");
    }
    let norm: f64 = q2[5..9].iter().map(|c| c * c).sum();
    assert!((norm - 1.0).abs() < 1e-15, "|ρ|² = {norm}");
    let energy = |e: (f64, f64)| e.0 + e.1;
    let (before, after) = (arm.energy(&q, &v), Dropped::default().energy(&q2, &v2));
    assert!((energy(before) - energy(after)).abs() < 1e-12);
    // Released: the payload's centre (its frame's origin) on a parabola,
    // its spin constant (a cube's inertia is isotropic).
    let (t0, flight) = (summary.t_end, 0.5);
    let (qe, ve) = run_from(Dropped::default(), t0, q2, v2, t0 + flight);
    let pd = payload_release_without_grip::Params::default();
    let start = payload_release_without_grip::body_poses(&pd, &q2)[2];
    let start_velocity = {
        let jacobian = payload_release_without_grip::body_jacobians(&pd, &q2)[2];
        let row = |r: usize| jacobian[r].iter().zip(&v2).map(|(j, x)| j * x).sum::<f64>();
        [row(0), row(1), row(2), row(3), row(4), row(5)]
    };
    let end = payload_release_without_grip::body_poses(&pd, &qe)[2];
    let gravity = [0.0, -ARM.5, 0.0];
    for i in 0..3 {
        let want =
            start.position[i] + start_velocity[i] * flight + 0.5 * gravity[i] * flight * flight;
        assert!(
            (end.position[i] - want).abs() < 1e-9,
            "{} against {want}",
            end.position[i]
        );
    }
    let spin_end = {
        let jacobian = payload_release_without_grip::body_jacobians(&pd, &qe)[2];
        let row = |r: usize| jacobian[r].iter().zip(&ve).map(|(j, x)| j * x).sum::<f64>();
        [row(3), row(4), row(5)]
    };
    for (w_end, w_start) in spin_end.iter().zip(&start_velocity[3..]) {
        assert!(
            (w_end - w_start).abs() < 1e-9,
            "spin {w_end} against {w_start}"
        );
    }
}

#[test]
fn a_tree_joint_in_a_loop_lets_go_and_the_loop_closes_from_a_free_body() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../specs/four_bar.spec"
    ))
    .expect("the four-bar spec");
    let text = text.replacen(
        "child = \"crank\"\naxis = [0, 0, 1]\n",
        "child = \"crank\"\naxis = [0, 0, 1]\ndetach = { time = 1 }\n",
        1,
    );
    assert!(text.contains("detach"), "the crank's joint is in the spec");
    let spec = sharnir_spec::parse(sharnir_spec::Source {
        name: "four_bar.spec".into(),
        text,
    })
    .expect("a valid spec");
    let released = spec
        .release("crank", &sharnir_spec::ReleasedStart::AT_GROUND)
        .expect("the crank's hinge lets go");
    let mechanism =
        sharnir_mech::Mechanism::from_spec(&released, sharnir_mech::ParameterMode::Folded)
            .expect("the variant builds");
    // The crank on a free joint (6) with the coupler and the rocker (1 + 1);
    // the pin, now between a free body and the coupler, holds all five of
    // a revolute joint's constraints: 3 degrees of freedom (the rocker, the
    // coupler on it, the crank about the pin).
    assert_eq!(mechanism.dof(), 8);
    let loops = mechanism.loops.as_ref().expect("the loop stays closed");
    assert_eq!(loops.mobility.degrees_of_freedom(), 3);
    assert_eq!(mechanism.cut_joints.len(), 1);
}
