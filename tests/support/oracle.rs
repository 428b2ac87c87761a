//! The numeric oracle of generated code: a model built apart from the
//! one it checks, run through algorithms written apart from the ones it
//! checks.
//!
//! The model is [`SpecTree`]: the numeric tree made from the parsed spec
//! alone (its own spanning tree, body order, composite joints, fixed-joint
//! lumping, placements and expression evaluation; nothing of
//! `sharnir-mech` or `sharnir-cas`). The algorithms are `sharnir-numeric`'s
//! spatial-vector RNEA, CRBA and ABA. Follower (`mimic`) joints get their
//! own coordinate in the numeric tree and are tied to their leader by the
//! numeric crate's `CoupledTree`, which reduces the full tree's dynamics by
//! the principle of virtual power, independently of how the symbolic side
//! substitutes the coupling into its kinematics. What the two sides share
//! is the spec parser (`sharnir-spec`: the typed spec, the parameter values
//! and the cut joints validation marks, which [`SpecTree`] checks against
//! its own tree) and the coordinate order the format documents.

use crate::drives::Drives;
use crate::geometry::Frame;
pub use crate::spec_tree::Sampling;
use crate::spec_tree::{Slots, SpecTree};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sharnir_numeric::{CoupledTree, Coupling, Tree};
use std::path::PathBuf;

/// The `specs/` directory of the workspace.
pub fn specs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("specs")
}

/// The file stems of every bundled spec, sorted: the end-to-end tests
/// iterate over them, so a new spec is covered without editing a list.
pub fn bundled_specs() -> Vec<String> {
    let mut stems: Vec<String> = std::fs::read_dir(specs_dir())
        .unwrap_or_else(|e| panic!("specs/: {e}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "spec"))
        .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
        .collect();
    stems.sort();
    stems
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
/// parameter values, with the map between tree bodies and coordinates.
pub struct Oracle {
    /// The numeric tree (bodies in regular order, auxiliary bodies included).
    pub tree: Tree,
    /// How to draw each position coordinate.
    pub sampling: Vec<Sampling>,
    /// The follower joints of the tree (empty for most mechanisms).
    pub couplings: Vec<Coupling>,
    slots: Vec<Slots>,
    /// The name of every tree body, in tree order: the spec body's name, or
    /// `<body>.<k>` for an auxiliary body.
    names: Vec<String>,
    /// Per tree body, the spec body's own frame in it (`child_origin⁻¹`).
    frames: Vec<Frame>,
    /// The drive parameters and joint friction of the spec.
    pub drives: Drives,
}

impl Oracle {
    /// Builds the oracle for a bundled spec.
    pub fn for_spec(stem: &str) -> Oracle {
        Oracle::for_parsed_spec(&load_spec(stem))
    }

    /// Builds the oracle for any valid spec, from the spec alone
    /// ([`SpecTree`]).
    pub fn for_parsed_spec(spec: &sharnir_spec::Spec) -> Oracle {
        let built = SpecTree::new(spec);
        Oracle {
            tree: built.tree,
            sampling: built.sampling,
            couplings: built.couplings,
            slots: built.slots,
            names: built.names,
            frames: built.frames,
            drives: Drives::of(spec),
        }
    }

    /// The degrees of freedom: the tree's, less one per follower joint.
    pub fn dof(&self) -> usize {
        self.independent().map(|s| s.nv).sum()
    }

    /// The runtime's coupled model when some joint follows another.
    fn coupled(&self) -> Option<CoupledTree> {
        if self.couplings.is_empty() {
            return None;
        }
        let model = CoupledTree::new(self.tree.clone(), self.couplings.clone());
        Some(model.unwrap_or_else(|e| panic!("{e}")))
    }

    /// The slots with coordinates of their own, in tree order: the order of
    /// the independent coordinates of the runtime's trees.
    fn independent(&self) -> impl Iterator<Item = &Slots> {
        self.slots.iter().filter(|s| !s.follower)
    }

    /// A random state `(q, qd, qdd)` of this mechanism: see [`States::next`].
    pub fn sample<const NQ: usize, const NV: usize>(
        &self,
        states: &mut States,
    ) -> ([f64; NQ], [f64; NV], [f64; NV]) {
        states.next::<NQ, NV>(&self.sampling)
    }

    /// Inverse dynamics in coordinate order.
    pub fn inverse_dynamics(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> Vec<f64> {
        let (q, qd, qdd) = (self.q_reduced(q), self.v_reduced(qd), self.v_reduced(qdd));
        let tau = match self.coupled() {
            Some(model) => model.inverse_dynamics(&q, &qd, &qdd),
            None => self.tree.inverse_dynamics(&q, &qd, &qdd),
        };
        self.v_to_coordinates(&tau.unwrap_or_else(|e| panic!("{e}")))
    }

    /// Bias forces C(q, q̇) q̇ + g(q) in coordinate order.
    pub fn bias(&self, q: &[f64], qd: &[f64]) -> Vec<f64> {
        let (q, qd) = (self.q_reduced(q), self.v_reduced(qd));
        let bias = match self.coupled() {
            Some(model) => model.bias(&q, &qd),
            None => self.tree.bias(&q, &qd),
        };
        self.v_to_coordinates(&bias.unwrap_or_else(|e| panic!("{e}")))
    }

    /// Forward dynamics by the articulated-body algorithm (a Cholesky solve
    /// of the reduced `M q̈ = τ − bias` when joints are coupled), in
    /// coordinate order.
    pub fn forward_dynamics(&self, q: &[f64], qd: &[f64], tau: &[f64]) -> Vec<f64> {
        let (q, qd, tau) = (self.q_reduced(q), self.v_reduced(qd), self.v_reduced(tau));
        let qdd = match self.coupled() {
            Some(model) => model.forward_dynamics(&q, &qd, &tau),
            None => self.tree.forward_dynamics(&q, &qd, &tau),
        };
        self.v_to_coordinates(&qdd.unwrap_or_else(|e| panic!("{e}")))
    }

    /// The mass matrix in coordinate order, by the composite-rigid-body algorithm.
    pub fn mass_matrix(&self, q: &[f64]) -> Vec<Vec<f64>> {
        let q = self.q_reduced(q);
        let m = match self.coupled() {
            Some(model) => model.mass_matrix(&q),
            None => self.tree.mass_matrix(&q),
        };
        let m = m.unwrap_or_else(|e| panic!("{e}"));
        let coordinate = self.velocity_permutation();
        let n = coordinate.len();
        let mut out = vec![vec![0.0; n]; n];
        for (i, &ci) in coordinate.iter().enumerate() {
            for (j, &cj) in coordinate.iter().enumerate() {
                out[ci][cj] = m[i][j];
            }
        }
        out
    }

    /// Kinetic and potential energy.
    pub fn energy(&self, q: &[f64], qd: &[f64]) -> (f64, f64) {
        let energy = self.tree.energy(&self.q_to_tree(q), &self.v_to_tree(qd));
        energy.unwrap_or_else(|e| panic!("{e}"))
    }

    /// The pose (rotation body → ground, origin in ground) of every spec
    /// body's own frame (after its joint's `child_origin⁻¹`), in the order
    /// of [`Oracle::body_names`]. The oracle's tree order is its own, so
    /// compare with a generated module through [`Oracle::body_poses_named`].
    pub fn body_poses(&self, q: &[f64]) -> Vec<sharnir_numeric::Pose> {
        let poses = self
            .tree
            .body_poses(&self.q_to_tree(q))
            .unwrap_or_else(|e| panic!("{e}"));
        poses
            .into_iter()
            .zip(self.slots.iter().zip(&self.frames))
            .filter(|(_, (s, _))| !s.auxiliary)
            .map(|((rotation, translation), (_, frame))| {
                let pose = Frame {
                    rotation,
                    translation,
                }
                .then(frame);
                (pose.rotation, pose.translation)
            })
            .collect()
    }

    /// The poses of [`Oracle::body_poses`] in the order of `names` (a
    /// generated module's `BODY_NAMES`), matched by name.
    ///
    /// # Panics
    /// When a name is not a spec body with a tree joint of its own.
    pub fn body_poses_named(&self, q: &[f64], names: &[&str]) -> Vec<sharnir_numeric::Pose> {
        let poses = self.body_poses(q);
        let ours = self.body_names();
        names
            .iter()
            .map(|name| {
                let k = ours.iter().position(|n| n == name);
                poses[k.unwrap_or_else(|| panic!("no tree body `{name}` in the oracle"))]
            })
            .collect()
    }

    /// The spec body names in the order of [`Oracle::body_poses`] (the
    /// oracle's tree order; bodies welded by fixed joints have no tree body
    /// and are not listed).
    pub fn body_names(&self) -> Vec<&str> {
        self.names
            .iter()
            .zip(&self.slots)
            .filter(|(_, s)| !s.auxiliary)
            .map(|(n, _)| n.as_str())
            .collect()
    }

    /// The numeric tree body carrying the spec body `name`, with the mass
    /// of the bodies welded to it; its frame is the spec body's unless the
    /// body's joint has a `child_origin`.
    ///
    /// # Panics
    /// When `name` has no tree body.
    pub fn tree_body(&self, name: &str) -> &sharnir_numeric::Body {
        let k = self
            .names
            .iter()
            .zip(&self.slots)
            .position(|(n, s)| n == name && !s.auxiliary);
        &self.tree.bodies[k.unwrap_or_else(|| panic!("no tree body `{name}` in the oracle"))]
    }

    /// Pinocchio's ten dynamic parameters of each body of `names` in turn
    /// (the standard regressor's `π`): mass, first moment `m c` and inertia
    /// about the body origin (xx, xy, yy, xz, yz, zz), body axes.
    pub fn standard_parameters(&self, names: &[&str]) -> Vec<f64> {
        names
            .iter()
            .flat_map(|name| {
                let body = self.tree_body(name);
                let (m, c, j) = (body.mass, body.com, body.inertia);
                let square: f64 = c.iter().map(|x| x * x).sum();
                let about_origin = |i: usize, k: usize| {
                    j[i][k] + m * (if i == k { square } else { 0.0 } - c[i] * c[k])
                };
                [
                    m,
                    m * c[0],
                    m * c[1],
                    m * c[2],
                    about_origin(0, 0),
                    about_origin(0, 1),
                    about_origin(1, 1),
                    about_origin(0, 2),
                    about_origin(1, 2),
                    about_origin(2, 2),
                ]
            })
            .collect()
    }

    /// The pose of every tree body (auxiliary ones included), in tree order.
    pub fn tree_poses(&self, q: &[f64]) -> Vec<sharnir_numeric::Pose> {
        self.tree
            .body_poses(&self.q_to_tree(q))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The tree body whose joint owns velocity coordinate `coordinate`.
    pub fn body_of_velocity(&self, coordinate: usize) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| !s.follower && (s.velocity..s.velocity + s.nv).contains(&coordinate))
    }

    /// `q̇` for velocities `qd`, in position-coordinate order.
    pub fn coordinate_rates(&self, q: &[f64], qd: &[f64]) -> Vec<f64> {
        let rates = self
            .tree
            .coordinate_rates(&self.q_to_tree(q), &self.v_to_tree(qd));
        self.q_from_tree(&rates.unwrap_or_else(|e| panic!("{e}")))
    }

    /// `q ⊕ qd·dt`: a step along the configuration manifold, in
    /// position-coordinate order.
    pub fn integrate(&self, q: &[f64], qd: &[f64], dt: f64) -> Vec<f64> {
        let next = self
            .tree
            .integrate(&self.q_to_tree(q), &self.v_to_tree(qd), dt);
        self.q_from_tree(&next.unwrap_or_else(|e| panic!("{e}")))
    }

    /// For each independent tree velocity coordinate, its coordinate index.
    fn velocity_permutation(&self) -> Vec<usize> {
        self.independent()
            .flat_map(|s| s.velocity..s.velocity + s.nv)
            .collect()
    }

    /// `q` in the order of the tree's independent coordinates.
    fn q_reduced(&self, q: &[f64]) -> Vec<f64> {
        self.independent()
            .flat_map(|s| q[s.position..s.position + s.nq].iter().copied())
            .collect()
    }

    /// A velocity-ordered vector in the order of the tree's independent
    /// coordinates.
    fn v_reduced(&self, v: &[f64]) -> Vec<f64> {
        self.velocity_permutation().iter().map(|&c| v[c]).collect()
    }

    /// `q` in the numeric tree's order (each body's joint slice in turn,
    /// followers placed by their couplings).
    pub fn q_to_tree(&self, q: &[f64]) -> Vec<f64> {
        let q = self.q_reduced(q);
        match self.coupled() {
            Some(model) => model.expand_positions(&q).unwrap_or_else(|e| panic!("{e}")),
            None => q,
        }
    }

    /// A velocity-ordered vector (`qd`, `qdd`) in the tree's order, followers
    /// moving with their leaders.
    pub fn v_to_tree(&self, v: &[f64]) -> Vec<f64> {
        let v = self.v_reduced(v);
        match self.coupled() {
            Some(model) => model
                .expand_velocities(&v)
                .unwrap_or_else(|e| panic!("{e}")),
            None => v,
        }
    }

    /// A position-like vector in the tree's order (rates, positions) in
    /// position-coordinate order, followers dropped.
    fn q_from_tree(&self, x: &[f64]) -> Vec<f64> {
        let nq = self.independent().map(|s| s.nq).sum();
        let mut out = vec![0.0; nq];
        let mut k = 0;
        for slot in &self.slots {
            if !slot.follower {
                out[slot.position..slot.position + slot.nq].copy_from_slice(&x[k..k + slot.nq]);
            }
            k += slot.nq;
        }
        out
    }

    /// A vector in the order of the tree's independent velocity coordinates
    /// in coordinate order.
    fn v_to_coordinates(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for (k, c) in self.velocity_permutation().into_iter().enumerate() {
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

    /// Positions drawn as `sampling` says (angles in ±π, slides in ±0.5 m,
    /// quaternions a random point of the cube [−1, 1]⁴ normalised: every
    /// orientation can come out, though not uniformly), velocities in ±2
    /// and accelerations in ±5.
    pub fn next<const NQ: usize, const NV: usize>(
        &mut self,
        sampling: &[Sampling],
    ) -> ([f64; NQ], [f64; NV], [f64; NV]) {
        let mut q = [0.0; NQ];
        let mut i = 0;
        while i < NQ {
            match sampling.get(i).copied().unwrap_or(Sampling::Angle) {
                Sampling::Angle => {
                    q[i] = self
                        .rng
                        .gen_range(-std::f64::consts::PI..std::f64::consts::PI)
                }
                Sampling::Slide => q[i] = self.rng.gen_range(-0.5..0.5),
                Sampling::Quaternion => {
                    let end = (i + 4).min(NQ);
                    let mut norm = 0.0;
                    while norm < 1e-3 {
                        for x in &mut q[i..end] {
                            *x = self.rng.gen_range(-1.0..1.0);
                        }
                        norm = q[i..end].iter().map(|x| x * x).sum::<f64>().sqrt();
                    }
                    for x in &mut q[i..end] {
                        *x /= norm;
                    }
                    i = end;
                    continue;
                }
            }
            i += 1;
        }
        let qd = [(); NV].map(|_| self.rng.gen_range(-2.0..2.0));
        let qdd = [(); NV].map(|_| self.rng.gen_range(-5.0..5.0));
        (q, qd, qdd)
    }
}

/// Largest entry-wise difference, relative to `max(1, ‖expected‖∞)`;
/// infinite when a value is NaN or the lengths differ, so that a broken
/// output can never pass a tolerance.
pub fn relative_error(got: &[f64], expected: &[f64]) -> f64 {
    if got.len() != expected.len() || got.iter().chain(expected).any(|x| x.is_nan()) {
        return f64::INFINITY;
    }
    let scale = expected.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    got.iter()
        .zip(expected)
        .map(|(g, e)| (g - e).abs())
        .fold(0.0, f64::max)
        / scale
}
