//! `q ⊕ δ` ([`integrate`]) on the generated floating chain
//! (`specs/floating_chain.spec`: a free base, a revolute, a spherical and a
//! revolute joint), which has both kinds of quaternion:
//!
//! - to first order it is the coordinate rates: `(q ⊕ hδ − q)/h` against
//!   `coordinate_rates(q, δ)` (1e-6 at h = 1e-7);
//! - its quaternion part is the exponential map, a one-parameter group:
//!   turning twice by `δ` equals turning once by `2δ` (1e-14), which a
//!   first-order update with normalisation does not satisfy;
//! - quaternions stay unit after a large step (1e-15), and coordinates with
//!   a zero step do not move at all.

use sharnir_generated::floating_chain as m;
use sharnir_runtime::{integrate, model, Model};

model!(FloatingChain = sharnir_generated::floating_chain);

fn start() -> [f64; m::NQ] {
    let mut q = m::INITIAL_POSITIONS;
    for (k, x) in q.iter_mut().enumerate() {
        *x += 0.1 * (k as f64 + 1.0).sin();
    }
    for &s in &m::QUATERNIONS {
        let norm = q[s..s + 4].iter().map(|c| c * c).sum::<f64>().sqrt();
        for c in &mut q[s..s + 4] {
            *c /= norm;
        }
    }
    q
}

fn step() -> [f64; m::NV] {
    core::array::from_fn(|k| 0.7 * (1.3 * k as f64 + 0.4).cos())
}

#[test]
fn a_small_step_moves_by_the_coordinate_rates() {
    let model = FloatingChain::default();
    let (q, delta) = (start(), step());
    let h = 1e-7;
    let moved = integrate(&model, &q, &delta.map(|d| h * d));
    let rates = model.coordinate_rates(&q, &delta);
    for k in 0..m::NQ {
        let slope = (moved[k] - q[k]) / h;
        assert!(
            (slope - rates[k]).abs() < 1e-6,
            "{}: {slope} against {}",
            m::POSITION_NAMES[k],
            rates[k]
        );
    }
}

#[test]
fn quaternions_turn_by_the_exponential_map() {
    let model = FloatingChain::default();
    let q = start();
    // Rotations only: the base's and the spherical joint's angular steps.
    let rotation: [f64; m::NV] = core::array::from_fn(|k| {
        let name = m::COORDINATE_NAMES[k];
        if name.contains("_w") {
            0.9 * (k as f64 + 0.5).sin()
        } else {
            0.0
        }
    });
    let twice = integrate(&model, &integrate(&model, &q, &rotation), &rotation);
    let once = integrate(&model, &q, &rotation.map(|w| 2.0 * w));
    for &s in &m::QUATERNIONS {
        for k in s..s + 4 {
            assert!(
                (twice[k] - once[k]).abs() < 1e-14,
                "{}: {} against {}",
                m::POSITION_NAMES[k],
                twice[k],
                once[k]
            );
        }
        let norm = once[s..s + 4].iter().map(|c| c * c).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-15, "‖ρ‖ = {norm}");
    }
    for k in 0..m::NQ {
        if !m::QUATERNIONS.iter().any(|&s| (s..s + 4).contains(&k)) {
            assert_eq!(once[k], q[k], "{} moved", m::POSITION_NAMES[k]);
        }
    }
}

/// `rotation_quaternion` inverts the rotation of a unit quaternion on each
/// of Shepperd's four branches (w, x, y or z the largest), to 1e-14, with
/// `w ≥ 0`.
#[test]
fn rotation_quaternion_inverts_every_branch() {
    let rotation = |[x, y, z, w]: [f64; 4]| {
        [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - z * w),
                2.0 * (x * z + y * w),
            ],
            [
                2.0 * (x * y + z * w),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - x * w),
            ],
            [
                2.0 * (x * z - y * w),
                2.0 * (y * z + x * w),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ]
    };
    for q in [
        [0.1, 0.2, 0.3, 0.9],
        [0.9, 0.1, -0.2, 0.37],
        [0.1, -0.95, 0.2, 0.21],
        [0.05, 0.1, -0.99, 0.08],
        [0.3, -0.2, 0.1, -0.9],
    ] {
        let norm = q.iter().map(|c: &f64| c * c).sum::<f64>().sqrt();
        let q = q.map(|c| c / norm);
        let back = sharnir_runtime::rotation_quaternion(&rotation(q));
        let sign = if q[3] < 0.0 { -1.0 } else { 1.0 };
        for k in 0..4 {
            assert!((back[k] - sign * q[k]).abs() < 1e-14, "{q:?} → {back:?}");
        }
    }
}
