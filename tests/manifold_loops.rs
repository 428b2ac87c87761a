//! Closed loops whose spanning tree holds quaternions, at run time: the
//! 6-UPS Stewart platform (`specs/stewart.spec`, the platform on leg 1's
//! ball joint, five ball joints cut) and a free-floating bus carrying a
//! four-bar (`specs/floating_four_bar.spec`).
//!
//! - Assembly from the Stewart platform's start with leg 1 lengthened by
//!   1 cm closes every loop to 1e-12, leaves the six leg lengths (the
//!   independent coordinates) bit for bit, keeps the quaternion unit, and
//!   puts the platform where every leg is as long as its coordinate says
//!   (anchor distances from the generated body poses, 1e-12 m).
//! - 10 s of the Stewart platform on undamped spring legs with RK4 at
//!   h = 1e-3 and with DOP853 at the default tolerances: after every step
//!   `|Ψ| < 1e-10` and `|‖ρ‖ − 1| < 1e-12` (observed: 5e-16 and 1e-16);
//!   the energy `T + V + ½ k Σ (sᵢ − l0)²` drifts by less than 1e-4 of the
//!   energy that moves, and by no more than 1.5 times as much as the same
//!   run without projection, which integrates the equations as one ODE like
//!   a tree's (observed: 2.3e-5 against 2.2e-5 with RK4, whose error this
//!   is at legs ringing near 15 Hz; 1.3e-5 against 1.5e-5 with DOP853; the
//!   unprojected runs open the loops to 2e-6 and 8e-6).
//! - The floating four-bar without gravity keeps its linear and angular
//!   momentum to 1e-10 (relative) and its kinetic energy to 1e-10 over
//!   10 s (DOP853 at 1e-12, coordinate projection), its loop closed to
//!   1e-12.
//! - `constrained_inverse_dynamics` along a prescribed platform trajectory
//!   equals the leg forces of an independent computation: positions by the
//!   platform's inverse kinematics (written here from the geometry), rates
//!   and accelerations by finite differences of them, the numeric oracle's
//!   tree dynamics, the loop oracle's constraint Jacobian by finite
//!   differences on the manifold, and `τ_tree = S u + Jᵀ λ` solved for the
//!   leg forces `u` and the reactions `λ` (1e-6 relative, the accuracy of
//!   the differenced accelerations).

use sharnir_generated::{floating_four_bar as ffb, stewart as sw};
use sharnir_runtime::adaptive::Dop853;
use sharnir_runtime::{
    assemble, model, ConstrainedSystem, DriftControl, LoopClosure, Model, Rk4, Stepper, Tolerances,
    Trajectory,
};
use sharnir_tests::loop_oracle::LoopOracle;
use sharnir_tests::momentum::{self, norm, BodyState};
use sharnir_tests::oracle::{load_spec, Oracle};

model!(Stewart = sharnir_generated::stewart, loops);
model!(
    FloatingFourBar = sharnir_generated::floating_four_bar,
    loops
);

/// Angles of the base anchors and of the platform anchors, degrees (the
/// spec's header).
const BASE_DEGREES: [f64; 6] = [-15.0, 15.0, 105.0, 135.0, 225.0, 255.0];
const PLATFORM_DEGREES: [f64; 6] = [-45.0, 45.0, 75.0, 165.0, 195.0, 285.0];

type Mat3 = [[f64; 3]; 3];

fn position_index(names: &[&str], name: &str) -> usize {
    names
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("no coordinate {name}"))
}

/// The base anchors `Aᵢ` (ground) and platform anchors `Bᵢ` (platform).
fn anchors(p: &sw::Params) -> ([[f64; 3]; 6], [[f64; 3]; 6]) {
    let on_circle = |radius: f64, degrees: f64| {
        let angle = degrees.to_radians();
        [radius * angle.cos(), radius * angle.sin(), 0.0]
    };
    (
        BASE_DEGREES.map(|d| on_circle(p.rb, d)),
        PLATFORM_DEGREES.map(|d| on_circle(p.rp, d)),
    )
}

fn mat_vec(r: &Mat3, v: [f64; 3]) -> [f64; 3] {
    core::array::from_fn(|i| (0..3).map(|j| r[i][j] * v[j]).sum())
}

fn mat_mul(a: &Mat3, b: &Mat3) -> Mat3 {
    core::array::from_fn(|i| core::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

fn transpose(a: &Mat3) -> Mat3 {
    core::array::from_fn(|i| core::array::from_fn(|j| a[j][i]))
}

fn rot_x(a: f64) -> Mat3 {
    let (s, c) = a.sin_cos();
    [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]]
}

fn rot_y(a: f64) -> Mat3 {
    let (s, c) = a.sin_cos();
    [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]
}

fn rot_z(a: f64) -> Mat3 {
    let (s, c) = a.sin_cos();
    [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
}

/// `Rz(yaw) Ry(pitch) Rx(roll)`.
fn rpy(roll: f64, pitch: f64, yaw: f64) -> Mat3 {
    mat_mul(&rot_z(yaw), &mat_mul(&rot_y(pitch), &rot_x(roll)))
}

/// The unit quaternion `(x, y, z, w)` of a rotation near the identity
/// (positive trace, `w > 0`).
fn quaternion(r: &Mat3) -> [f64; 4] {
    let trace = r[0][0] + r[1][1] + r[2][2];
    assert!(trace > 0.0, "a rotation too far from the identity");
    let s = 2.0 * (trace + 1.0).sqrt();
    [
        (r[2][1] - r[1][2]) / s,
        (r[0][2] - r[2][0]) / s,
        (r[1][0] - r[0][1]) / s,
        0.25 * s,
    ]
}

/// The Stewart platform's coordinates for the platform at `position` with
/// orientation `rotation`: for each leg `d = p + R Bᵢ − Aᵢ`, `sᵢ = |d|`,
/// and with `u = d/|d|` the universal joint's angles `uᵢ_2 = asin(u_x)`,
/// `uᵢ_1 = atan2(−u_y, u_z)` (`Rx(uᵢ_1) Ry(uᵢ_2) z = u`); ball 1's
/// quaternion is that of `R_leg1ᵀ R`.
fn inverse_kinematics(p: &sw::Params, position: [f64; 3], rotation: &Mat3) -> [f64; sw::NQ] {
    let (base, platform) = anchors(p);
    let mut q = [0.0; sw::NQ];
    let mut set = |name: String, value: f64| q[position_index(&sw::POSITION_NAMES, &name)] = value;
    for leg in 0..6 {
        let top = mat_vec(rotation, platform[leg]);
        let d: [f64; 3] = core::array::from_fn(|k| position[k] + top[k] - base[leg][k]);
        let length = norm(&d);
        let u = d.map(|x| x / length);
        let (first, second) = ((-u[1]).atan2(u[2]), u[0].asin());
        let n = leg + 1;
        set(format!("u{n}_1"), first);
        set(format!("u{n}_2"), second);
        set(format!("s{n}"), length);
        if leg == 0 {
            let leg_rotation = mat_mul(&rot_x(first), &rot_y(second));
            let relative = mat_mul(&transpose(&leg_rotation), rotation);
            for (c, value) in ["x", "y", "z", "w"].iter().zip(quaternion(&relative)) {
                set(format!("ball1_q{c}"), value);
            }
        }
    }
    q
}

fn largest(values: &[f64]) -> f64 {
    values.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
}

fn quaternion_error(q: &[f64], starts: &[usize]) -> f64 {
    starts
        .iter()
        .map(|&s| (norm(&q[s..s + 4]) - 1.0).abs())
        .fold(0.0, f64::max)
}

#[test]
fn the_stewart_platform_assembles_from_a_lengthened_leg() {
    let p = sw::Params::default();
    let model = Stewart::default();
    let leg = position_index(&sw::POSITION_NAMES, "s1");
    let mut q = sw::INITIAL_POSITIONS;
    q[leg] += 0.01;
    let assembled = assemble(&model, q, &sw::INDEPENDENT, 1e-13).expect("assembles");
    let psi = sw::constraints(&p, &assembled);
    assert!(largest(&psi) < 1e-12, "Ψ = {psi:?}");
    for &v in &sw::INDEPENDENT {
        let i = position_index(&sw::POSITION_NAMES, sw::COORDINATE_NAMES[v]);
        assert_eq!(assembled[i], q[i], "{} moved", sw::COORDINATE_NAMES[v]);
    }
    assert!(quaternion_error(&assembled, &sw::QUATERNIONS) < 1e-14);
    let poses = sw::body_poses(&p, &assembled);
    let platform = &poses[position_index(&sw::BODY_NAMES, "platform")];
    let start =
        &sw::body_poses(&p, &sw::INITIAL_POSITIONS)[position_index(&sw::BODY_NAMES, "platform")];
    let shift: [f64; 3] = core::array::from_fn(|k| platform.position[k] - start.position[k]);
    assert!(norm(&shift) > 1e-3, "the platform did not move: {shift:?}");
    let (base, anchors_on_platform) = anchors(&p);
    for k in 0..6 {
        let top = mat_vec(&platform.rotation, anchors_on_platform[k]);
        let d: [f64; 3] = core::array::from_fn(|i| platform.position[i] + top[i] - base[k][i]);
        let length = assembled[position_index(&sw::POSITION_NAMES, &format!("s{}", k + 1))];
        assert!(
            (norm(&d) - length).abs() < 1e-12,
            "leg {}: anchors {} apart, coordinate {length}",
            k + 1,
            norm(&d)
        );
    }
}

/// Energy of the Stewart platform with its spring legs.
fn stewart_energy(model: &Stewart, y: &[f64]) -> (f64, f64) {
    let q: [f64; sw::NQ] = core::array::from_fn(|k| y[k]);
    let v: [f64; sw::NV] = core::array::from_fn(|k| y[sw::NQ + k]);
    let (kinetic, potential) = model.energy(&q, &v);
    let p = model.params();
    let springs: f64 = (1..=6)
        .map(|n| {
            let stretch = q[position_index(&sw::POSITION_NAMES, &format!("s{n}"))] - p.l0;
            0.5 * p.k * stretch * stretch
        })
        .sum();
    (kinetic, potential + springs)
}

/// What one 10 s run of the undamped Stewart platform reached: the largest
/// `|Ψ|` and quaternion error after any step, and the energy drift over the
/// energy that moved.
struct Run {
    closure: f64,
    quaternion: f64,
    relative_drift: f64,
}

fn undamped_run(drift_control: DriftControl, dop853: bool) -> Run {
    const T_END: f64 = 10.0;
    let model = Stewart::new(sw::Params {
        c: 0.0,
        ..sw::Params::default()
    });
    let mut system = ConstrainedSystem::new(model);
    system.drift_control = drift_control;
    let mut y0 = vec![0.0; sw::NQ + sw::NV];
    y0[..sw::NQ].copy_from_slice(&sw::INITIAL_POSITIONS);
    let (t0, v0) = stewart_energy(&model, &y0);
    let mut stepper: Box<
        dyn Stepper<ConstrainedSystem<Stewart, { sw::NQ }, { sw::NV }, { sw::NC }>>,
    > = if dop853 {
        Box::new(Dop853::new(&mut system, 0.0, &y0, Tolerances::default()).expect("start"))
    } else {
        Box::new(Rk4::new(&mut system, 0.0, y0.clone(), 1e-3).expect("start"))
    };
    let (mut closure, mut quaternion, mut drift, mut moved) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    while stepper.t() < T_END {
        stepper.step(&mut system, T_END).expect("step");
        let y = stepper.y();
        let q: [f64; sw::NQ] = core::array::from_fn(|k| y[k]);
        closure = closure.max(largest(&model.constraints(&q)));
        quaternion = quaternion.max(quaternion_error(&q, &sw::QUATERNIONS));
        let (t, v) = stewart_energy(&model, y);
        drift = drift.max((t + v - t0 - v0).abs());
        moved = moved.max(t.abs() + (v - v0).abs());
    }
    assert!(moved > 1e-2, "nothing moved: {moved}");
    Run {
        closure,
        quaternion,
        relative_drift: drift / moved,
    }
}

#[test]
fn the_stewart_platform_stays_closed_and_keeps_its_energy() {
    for (dop853, energy_tolerance) in [(false, 1e-4), (true, 1e-4)] {
        let method = if dop853 { "DOP853" } else { "RK4" };
        let projected = undamped_run(DriftControl::Projection, dop853);
        assert!(
            projected.closure < 1e-10,
            "{method}: Ψ reached {:e}",
            projected.closure
        );
        assert!(
            projected.quaternion < 1e-12,
            "{method}: ‖ρ‖ − 1 reached {:e}",
            projected.quaternion
        );
        assert!(
            projected.relative_drift < energy_tolerance,
            "{method}: energy drift {:e}",
            projected.relative_drift
        );
        let free = undamped_run(
            DriftControl::Baumgarte {
                alpha: 0.0,
                beta: 0.0,
            },
            dop853,
        );
        assert!(
            projected.relative_drift <= 1.5 * free.relative_drift,
            "{method}: energy drift {:e} projected against {:e} without projection",
            projected.relative_drift,
            free.relative_drift
        );
    }
}

#[test]
fn the_floating_four_bar_keeps_its_momentum() {
    const T_END: f64 = 10.0;
    let p = ffb::Params::default();
    assert_eq!(p.g, 0.0, "the bus floats without gravity");
    let oracle = Oracle::for_spec("floating_four_bar");
    let momentum_of = |y: &[f64]| {
        let q: [f64; ffb::NQ] = core::array::from_fn(|k| y[k]);
        let v: [f64; ffb::NV] = core::array::from_fn(|k| y[ffb::NQ + k]);
        let poses = ffb::body_poses(&p, &q);
        let jacobians = ffb::body_jacobians(&p, &q);
        let bodies: Vec<BodyState<'_, { ffb::NV }>> = ffb::BODY_NAMES
            .iter()
            .zip(poses.iter().zip(jacobians))
            .map(|(&name, (pose, jacobian))| (name, pose.rotation, pose.position, jacobian))
            .collect();
        (
            momentum::momentum(&oracle, &bodies, &v),
            ffb::energy(&p, &q, &v).0,
        )
    };
    let jacobian = ffb::constraint_jacobian(&p, &ffb::INITIAL_POSITIONS);
    for row in &jacobian {
        let rate: f64 = row
            .iter()
            .zip(&ffb::INITIAL_VELOCITIES)
            .map(|(a, b)| a * b)
            .sum();
        assert!(
            rate.abs() < 1e-12,
            "[initial] velocities open the loop: {rate:e}"
        );
    }
    let mut system = ConstrainedSystem::new(FloatingFourBar::default());
    let mut y0 = vec![0.0; ffb::NQ + ffb::NV];
    y0[..ffb::NQ].copy_from_slice(&ffb::INITIAL_POSITIONS);
    y0[ffb::NQ..].copy_from_slice(&ffb::INITIAL_VELOCITIES);
    let (start, kinetic) = momentum_of(&y0);
    assert!(
        norm(&start[..3]) > 1.0 && norm(&start[3..]) > 1.0,
        "{start:?}"
    );
    let tolerances = Tolerances {
        rtol: 1e-12,
        atol: 1e-12,
    };
    let mut stepper = Dop853::new(&mut system, 0.0, &y0, tolerances).expect("start");
    let (mut linear, mut angular, mut energy, mut closure) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    while stepper.t() < T_END {
        stepper.step(&mut system, T_END).expect("step");
        let y = stepper.y();
        let (now, t) = momentum_of(y);
        let difference: [f64; 6] = core::array::from_fn(|k| now[k] - start[k]);
        linear = linear.max(norm(&difference[..3]) / norm(&start[..3]));
        angular = angular.max(norm(&difference[3..]) / norm(&start[3..]));
        energy = energy.max((t - kinetic).abs() / kinetic);
        let q: [f64; ffb::NQ] = core::array::from_fn(|k| y[k]);
        closure = closure.max(largest(&ffb::constraints(&p, &q)));
    }
    let turned = stepper.y()[position_index(&ffb::POSITION_NAMES, "crank")];
    assert!(turned.abs() > 1.0, "the crank hardly turned: {turned}");
    assert!(linear < 1e-10, "linear momentum drifted by {linear:e}");
    assert!(angular < 1e-10, "angular momentum drifted by {angular:e}");
    assert!(energy < 1e-10, "kinetic energy drifted by {energy:e}");
    assert!(closure < 1e-12, "Ψ reached {closure:e}");
}

/// The platform's pose along the prescribed trajectory.
fn platform_pose(t: f64) -> ([f64; 3], Mat3) {
    let tau = std::f64::consts::TAU;
    let position = [
        0.03 * (tau * 0.7 * t).sin(),
        0.02 * (tau * 0.5 * t).cos(),
        0.6 + 0.04 * (tau * 0.9 * t).sin(),
    ];
    let rotation = rpy(
        0.06 * (3.0 * t).sin(),
        0.05 * (2.3 * t + 0.4).sin(),
        0.1 * (1.7 * t).sin(),
    );
    (position, rotation)
}

/// Fourth-order central difference of `f` at `t`.
fn differentiate<const N: usize>(f: impl Fn(f64) -> [f64; N], t: f64, h: f64) -> [f64; N] {
    let (a, b, c, d) = (f(t - 2.0 * h), f(t - h), f(t + h), f(t + 2.0 * h));
    core::array::from_fn(|k| (a[k] - 8.0 * b[k] + 8.0 * c[k] - d[k]) / (12.0 * h))
}

/// Velocity coordinates along the trajectory: the rates of the scalar
/// coordinates, and ball 1's body-axis angular velocity `2 vec(ρ* ⊗ ρ̇)`.
fn trajectory_velocities(p: &sw::Params, t: f64) -> [f64; sw::NV] {
    let positions = |t: f64| {
        let (position, rotation) = platform_pose(t);
        inverse_kinematics(p, position, &rotation)
    };
    let q = positions(t);
    let rates = differentiate(positions, t, 1e-3);
    core::array::from_fn(|v| {
        let name = sw::COORDINATE_NAMES[v];
        match name.strip_prefix("ball1_w") {
            None => rates[position_index(&sw::POSITION_NAMES, name)],
            Some(axis) => {
                let s = position_index(&sw::POSITION_NAMES, "ball1_qx");
                let (rho, dot) = (&q[s..s + 4], &rates[s..s + 4]);
                let (x, y, z, w) = (rho[0], rho[1], rho[2], rho[3]);
                let cross = [
                    y * dot[2] - z * dot[1],
                    z * dot[0] - x * dot[2],
                    x * dot[1] - y * dot[0],
                ];
                let i = ["x", "y", "z"]
                    .iter()
                    .position(|a| *a == axis)
                    .expect("x, y or z");
                2.0 * (w * dot[i] - dot[3] * rho[i] - cross[i])
            }
        }
    })
}

/// `x` of `A x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .expect("rows");
        a.swap(col, pivot);
        b.swap(col, pivot);
        assert!(a[col][col].abs() > 1e-12, "singular system");
        for row in col + 1..n {
            let factor = a[row][col] / a[col][col];
            let (upper, lower) = a.split_at_mut(row);
            for (x, p) in lower[0][col..].iter_mut().zip(&upper[col][col..]) {
                *x -= factor * p;
            }
            b[row] -= factor * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let rest: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    x
}

#[test]
fn stewart_leg_forces_along_a_platform_trajectory() {
    let p = sw::Params::default();
    let spec = load_spec("stewart");
    let oracle = Oracle::for_spec("stewart");
    let loops = LoopOracle::new(&spec);
    for step in 0..8 {
        let t = 0.37 * step as f64;
        let (position, rotation) = platform_pose(t);
        let q = inverse_kinematics(&p, position, &rotation);
        let psi = sw::constraints(&p, &q);
        assert!(
            largest(&psi) < 1e-12,
            "the inverse kinematics opens a loop: {psi:?}"
        );
        let v = trajectory_velocities(&p, t);
        let a = differentiate(|t| trajectory_velocities(&p, t), t, 1e-3);
        // J by central differences of the loop oracle's rows on the manifold.
        let h = 1e-6;
        let jacobian: Vec<Vec<f64>> = {
            let columns: Vec<Vec<f64>> = (0..sw::NV)
                .map(|j| {
                    let mut e = vec![0.0; sw::NV];
                    e[j] = 1.0;
                    let plus =
                        loops.constraints(&oracle.integrate(&q, &e, h), &sw::CONSTRAINT_NAMES);
                    let minus =
                        loops.constraints(&oracle.integrate(&q, &e, -h), &sw::CONSTRAINT_NAMES);
                    plus.iter()
                        .zip(&minus)
                        .map(|(a, b)| (a - b) / (2.0 * h))
                        .collect()
                })
                .collect();
            (0..sw::NC)
                .map(|r| columns.iter().map(|c| c[r]).collect())
                .collect()
        };
        for (r, row) in jacobian.iter().enumerate() {
            let rate: f64 = row.iter().zip(&v).map(|(x, y)| x * y).sum();
            assert!(rate.abs() < 1e-8, "J q̇ = {rate:e} in row {r}");
        }
        // τ_tree = S u + Jᵀ λ: unknowns the six leg forces, then the fifteen λ.
        let tree = oracle.inverse_dynamics(&q, &v, &a);
        let system: Vec<Vec<f64>> = (0..sw::NV)
            .map(|k| {
                let selected = sw::INDEPENDENT
                    .iter()
                    .map(|&i| if i == k { 1.0 } else { 0.0 });
                selected.chain(jacobian.iter().map(|row| row[k])).collect()
            })
            .collect();
        let solution = solve(system, tree.clone());
        let expected = &solution[..sw::N_INDEPENDENT];
        let got = sw::constrained_inverse_dynamics(&p, &q, &v, &a).expect("regular");
        let scale = largest(expected).max(1.0);
        for (k, (g, e)) in got.iter().zip(expected).enumerate() {
            assert!(
                (g - e).abs() < 1e-6 * scale,
                "t = {t}: leg force {}: {g} against {e}",
                k + 1
            );
        }
        assert!(
            largest(expected) > 10.0,
            "legs carry the platform's weight: {expected:?}"
        );
    }
}
