//! Independent numeric oracles for generated code.
//!
//! A bundled spec is assembled by `sharnir-mech` (so both paths read the same
//! geometry), then every placement, axis and inertia is evaluated to numbers
//! and handed to `sharnir-runtime`, whose spatial-vector algorithms share no
//! code with the symbolic derivation.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sharnir_mech::{JointKind, Mechanism, ParameterMode};
use sharnir_runtime::{Body, JointKind as NumericJoint, Tree};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The `specs/` directory of the workspace.
pub fn specs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("specs")
}

/// Loads and validates a bundled spec by file stem (`"telegin6"`).
pub fn load_spec(stem: &str) -> sharnir_spec::Spec {
    let path = specs_dir().join(format!("{stem}.spec"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let source = sharnir_spec::Source {
        name: format!("specs/{stem}.spec"),
        text,
    };
    sharnir_spec::parse(source).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A bundled mechanism and the numeric tree equivalent to it at the spec's
/// parameter values, with the map from tree bodies to coordinates.
pub struct Oracle {
    /// The numeric tree (bodies in regular order).
    pub tree: Tree,
    /// `coordinate_of[k]` is the coordinate of tree body `k`.
    pub coordinate_of: Vec<usize>,
    /// Which coordinates are prismatic (sampled on a shorter range).
    pub prismatic: Vec<bool>,
}

impl Oracle {
    /// Builds the oracle for a bundled spec.
    pub fn for_spec(stem: &str) -> Oracle {
        let spec = load_spec(stem);
        let values: BTreeMap<String, f64> = spec.parameter_values();
        let mechanism =
            Mechanism::from_spec(&spec, ParameterMode::Runtime).unwrap_or_else(|e| panic!("{e:?}"));
        let env = |symbol: &str| match sharnir_mech::Input::parse(symbol) {
            Some(sharnir_mech::Input::Parameter(name)) => values.get(&name).copied(),
            _ => None,
        };
        let pool = &mechanism.pool;
        let eval = |id| pool.eval(&[id], &env).unwrap_or_else(|e| panic!("{e}"))[0];
        let vec3 = |v: [sharnir_cas::Id; 3]| v.map(eval);
        let mat3 = |m: [[sharnir_cas::Id; 3]; 3]| m.map(vec3);
        let bodies = mechanism
            .bodies
            .iter()
            .map(|b| Body {
                parent: b.parent,
                joint: match b.kind {
                    JointKind::Revolute => NumericJoint::Revolute,
                    JointKind::Prismatic => NumericJoint::Prismatic,
                },
                axis: vec3(b.axis),
                rotation: mat3(b.rotation),
                translation: vec3(b.translation),
                mass: eval(b.mass),
                com: vec3(b.com),
                inertia: mat3(b.inertia),
            })
            .collect();
        let mut prismatic = vec![false; mechanism.dof()];
        for b in &mechanism.bodies {
            prismatic[b.coordinate] = b.kind == JointKind::Prismatic;
        }
        Oracle {
            tree: Tree {
                bodies,
                gravity: vec3(mechanism.gravity),
            },
            coordinate_of: mechanism.bodies.iter().map(|b| b.coordinate).collect(),
            prismatic,
        }
    }

    /// Inverse dynamics in coordinate order.
    pub fn inverse_dynamics(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> Vec<f64> {
        let tau =
            self.tree
                .inverse_dynamics(&self.to_tree(q), &self.to_tree(qd), &self.to_tree(qdd));
        self.to_coordinates(&tau.unwrap_or_else(|e| panic!("{e}")))
    }

    /// Bias forces C(q, q̇) q̇ + g(q) in coordinate order.
    pub fn bias(&self, q: &[f64], qd: &[f64]) -> Vec<f64> {
        let bias = self.tree.bias(&self.to_tree(q), &self.to_tree(qd));
        self.to_coordinates(&bias.unwrap_or_else(|e| panic!("{e}")))
    }

    /// Accelerations q̈(q, q̇, τ) in coordinate order, by the articulated-body algorithm.
    pub fn forward_dynamics(&self, q: &[f64], qd: &[f64], tau: &[f64]) -> Vec<f64> {
        let qdd =
            self.tree
                .forward_dynamics(&self.to_tree(q), &self.to_tree(qd), &self.to_tree(tau));
        self.to_coordinates(&qdd.unwrap_or_else(|e| panic!("{e}")))
    }

    /// The mass matrix in coordinate order, by the composite-rigid-body algorithm.
    pub fn mass_matrix(&self, q: &[f64]) -> Vec<Vec<f64>> {
        let m = self
            .tree
            .mass_matrix(&self.to_tree(q))
            .unwrap_or_else(|e| panic!("{e}"));
        let n = self.coordinate_of.len();
        let mut out = vec![vec![0.0; n]; n];
        for (i, &ci) in self.coordinate_of.iter().enumerate() {
            for (j, &cj) in self.coordinate_of.iter().enumerate() {
                out[ci][cj] = m[i][j];
            }
        }
        out
    }

    /// Kinetic and potential energy.
    pub fn energy(&self, q: &[f64], qd: &[f64]) -> (f64, f64) {
        let energy = self.tree.energy(&self.to_tree(q), &self.to_tree(qd));
        energy.unwrap_or_else(|e| panic!("{e}"))
    }

    /// Every body's pose (rotation body → ground, origin in ground), in the
    /// mechanism's body order, which is the tree's.
    pub fn body_poses(&self, q: &[f64]) -> Vec<sharnir_runtime::Pose> {
        self.tree
            .body_poses(&self.to_tree(q))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// A coordinate-ordered vector permuted into tree order.
    fn to_tree(&self, x: &[f64]) -> Vec<f64> {
        self.coordinate_of.iter().map(|&c| x[c]).collect()
    }

    /// A tree-ordered vector permuted into coordinate order.
    fn to_coordinates(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for (k, &c) in self.coordinate_of.iter().enumerate() {
            out[c] = x[k];
        }
        out
    }
}

/// Reproducible random joint states.
pub struct States {
    rng: SmallRng,
}

impl States {
    /// A state stream from a fixed seed.
    pub fn seeded(seed: u64) -> States {
        States {
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// Positions (angles in ±π, slides in ±0.5 m), velocities in ±2 and
    /// accelerations in ±5.
    pub fn next<const N: usize>(&mut self, prismatic: &[bool]) -> ([f64; N], [f64; N], [f64; N]) {
        let mut q = [0.0; N];
        for (i, x) in q.iter_mut().enumerate() {
            let range = if prismatic.get(i).copied().unwrap_or(false) {
                0.5
            } else {
                std::f64::consts::PI
            };
            *x = self.rng.gen_range(-range..range);
        }
        let qd = [(); N].map(|_| self.rng.gen_range(-2.0..2.0));
        let qdd = [(); N].map(|_| self.rng.gen_range(-5.0..5.0));
        (q, qd, qdd)
    }
}

/// Largest entry-wise difference, relative to `max(1, ‖expected‖∞)`.
pub fn relative_error(got: &[f64], expected: &[f64]) -> f64 {
    let scale = expected.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    got.iter()
        .zip(expected)
        .map(|(g, e)| (g - e).abs())
        .fold(0.0, f64::max)
        / scale
}
