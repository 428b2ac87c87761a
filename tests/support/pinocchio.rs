//! Pinocchio as an external oracle: reference results computed by Pinocchio
//! from the URDFs in `tests/fixtures/`, the same robots as sharnir sees them
//! after URDF import, and comparisons that map coordinates by joint name.
//!
//! The JSON reference files are parsed by the test itself (`serde_json` is
//! a dev-dependency); this module holds the parsed form and everything that
//! does not depend on the file format.

use crate::oracle::{load_spec, Oracle};
use sharnir_spec::Source;
use sharnir_urdf::{Conversion, Frame, Options};
use std::path::PathBuf;

/// A world placement as Pinocchio reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// Origin in the world frame, m.
    pub translation: [f64; 3],
    /// Axes in the world frame, by rows.
    pub rotation: [[f64; 3]; 3],
}

/// One random state and everything Pinocchio computed at it, in Pinocchio's
/// joint order.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Joint positions (angles for continuous joints).
    pub q: Vec<f64>,
    /// Joint velocities.
    pub v: Vec<f64>,
    /// Joint accelerations, the input of `rnea`.
    pub a: Vec<f64>,
    /// Joint forces, the input of `aba`.
    pub tau: Vec<f64>,
    /// Inverse dynamics at (q, v, a).
    pub rnea: Vec<f64>,
    /// The mass matrix, by rows.
    pub crba: Vec<Vec<f64>>,
    /// Bias forces C(q, v) v + g(q).
    pub nle: Vec<f64>,
    /// Generalised gravity g(q).
    pub gravity: Vec<f64>,
    /// Forward dynamics at (q, v, tau).
    pub aba: Vec<f64>,
    /// ½ vᵀ M v, J.
    pub kinetic_energy: f64,
    /// −Σ mᵢ g·cᵢ, J.
    pub potential_energy: f64,
    /// World placement of the end-effector frame.
    pub ee_placement: Placement,
}

/// Mass properties of one Pinocchio body (after merging fixed joints).
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceBody {
    /// The joint that moves the body.
    pub joint: String,
    /// kg.
    pub mass: f64,
    /// Centre of mass in the joint frame, m.
    pub com: [f64; 3],
    /// Inertia about the centre of mass, kg·m².
    pub inertia: [[f64; 3]; 3],
}

/// A Pinocchio reference file, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Joint names in Pinocchio's order (the order of every sample vector).
    pub joint_names: Vec<String>,
    /// The URDF link whose placement `ee_placement` is.
    pub ee_frame: String,
    /// Pinocchio's bodies.
    pub bodies: Vec<ReferenceBody>,
    /// The random states.
    pub samples: Vec<Sample>,
}

/// The `tests/fixtures/` directory.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A fixture URDF converted exactly as its bundled spec was
/// (`cargo xtask urdf2spec tests/fixtures/<urdf> --name <name>`).
pub fn convert_fixture(urdf: &str, name: &str) -> Conversion {
    let path = fixtures_dir().join(urdf);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let source = Source {
        name: format!("tests/fixtures/{urdf}"),
        text,
    };
    let options = Options {
        name: Some(name.to_owned()),
        ..Options::default()
    };
    sharnir_urdf::convert(&source, &options).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A robot as sharnir sees it after URDF import, next to its Pinocchio
/// reference: the conversion, the numeric oracle of its bundled spec, and
/// the map between the two coordinate orders.
pub struct Robot {
    /// The URDF conversion (frames, spec text).
    pub conversion: Conversion,
    /// `sharnir-runtime` on the bundled spec.
    pub oracle: Oracle,
    /// Coordinate names in sharnir's order.
    pub names: Vec<String>,
    /// `pinocchio_index[i]`: where sharnir's coordinate `i` is in
    /// Pinocchio's vectors.
    pub pinocchio_index: Vec<usize>,
    /// The Pinocchio results.
    pub reference: Reference,
}

impl Robot {
    /// Loads the bundled spec `specs/<stem>.spec`, checking that it is what
    /// the converter makes of `tests/fixtures/<urdf>` today, and lines its
    /// coordinates up with Pinocchio's by joint name.
    pub fn load(stem: &str, urdf: &str, reference: Reference) -> Robot {
        let conversion = convert_fixture(urdf, stem);
        let bundled = load_spec(stem);
        assert!(
            bundled.source.text == conversion.text,
            "specs/{stem}.spec is stale: run `cargo xtask urdf2spec tests/fixtures/{urdf} \
             --name {stem} > specs/{stem}.spec`"
        );
        let names: Vec<String> = bundled
            .joints
            .iter()
            .map(|j| j.coordinate.clone())
            .collect();
        let pinocchio_index = names
            .iter()
            .map(|name| {
                reference
                    .joint_names
                    .iter()
                    .position(|n| n == name)
                    .unwrap_or_else(|| panic!("no Pinocchio joint `{name}`"))
            })
            .collect();
        Robot {
            conversion,
            oracle: Oracle::for_spec(stem),
            names,
            pinocchio_index,
            reference,
        }
    }

    /// A Pinocchio-ordered vector in sharnir's coordinate order.
    pub fn to_sharnir(&self, x: &[f64]) -> Vec<f64> {
        self.pinocchio_index.iter().map(|&p| x[p]).collect()
    }

    /// [`Robot::to_sharnir`] as a fixed-size array, for generated code.
    pub fn to_sharnir_array<const N: usize>(&self, x: &[f64]) -> [f64; N] {
        let v = self.to_sharnir(x);
        std::array::from_fn(|i| v[i])
    }

    /// A sharnir-ordered vector in Pinocchio's order.
    pub fn to_pinocchio(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for (i, &p) in self.pinocchio_index.iter().enumerate() {
            out[p] = x[i];
        }
        out
    }

    /// A sharnir-ordered matrix (rows of any slice type) in Pinocchio's order.
    pub fn matrix_to_pinocchio<R: AsRef<[f64]>>(&self, m: &[R]) -> Vec<Vec<f64>> {
        let n = self.pinocchio_index.len();
        let mut out = vec![vec![0.0; n]; n];
        for (i, &pi) in self.pinocchio_index.iter().enumerate() {
            for (j, &pj) in self.pinocchio_index.iter().enumerate() {
                out[pi][pj] = m[i].as_ref()[j];
            }
        }
        out
    }

    /// Where the URDF link `frame` sits on sharnir's bodies.
    pub fn frame(&self, link: &str) -> &Frame {
        self.conversion
            .frame(link)
            .unwrap_or_else(|| panic!("link `{link}` was not kept"))
    }

    /// The tree index (in `oracle.tree.bodies`) of the body moved by the
    /// joint named `joint`.
    pub fn tree_body_of_joint(&self, joint: &str) -> usize {
        let coordinate = self
            .names
            .iter()
            .position(|n| n == joint)
            .unwrap_or_else(|| panic!("no coordinate `{joint}`"));
        self.oracle
            .body_of_velocity(coordinate)
            .unwrap_or_else(|| panic!("no body for coordinate {coordinate}"))
    }

    /// The world placement of a URDF link at sharnir-ordered `q`, from the
    /// numeric tree's body poses and the link's fixed placement in its body.
    pub fn link_placement(&self, link: &str, q: &[f64]) -> Placement {
        let frame = self.frame(link);
        let (rotation, origin) = if frame.body == "ground" {
            (identity(), [0.0; 3])
        } else {
            let poses = self.oracle.tree_poses(q);
            let joint = self
                .oracle_joint_of_body(&frame.body)
                .unwrap_or_else(|| panic!("no joint moves body `{}`", frame.body));
            poses[self.tree_body_of_joint(&joint)]
        };
        Placement {
            translation: std::array::from_fn(|i| {
                origin[i]
                    + (0..3)
                        .map(|j| rotation[i][j] * frame.translation[j])
                        .sum::<f64>()
            }),
            rotation: std::array::from_fn(|i| {
                std::array::from_fn(|k| (0..3).map(|j| rotation[i][j] * frame.rotation[j][k]).sum())
            }),
        }
    }

    /// The name of the joint whose child is the spec body `body`.
    fn oracle_joint_of_body(&self, body: &str) -> Option<String> {
        self.conversion
            .spec
            .joints
            .iter()
            .find(|j| j.child == body)
            .map(|j| j.coordinate.clone())
    }
}

fn identity() -> [[f64; 3]; 3] {
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
}

/// How closely sharnir must agree with Pinocchio: entry by entry,
/// `|got − want| ≤ max(relative · |want|, absolute)`.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    /// Relative to the entry's magnitude.
    pub relative: f64,
    /// Floor for entries near zero, in the entry's unit.
    pub absolute: f64,
}

impl Tolerance {
    /// Whether `got` is within tolerance of `want`.
    pub fn accepts(&self, got: f64, want: f64) -> bool {
        (got - want).abs() <= (self.relative * want.abs()).max(self.absolute)
    }

    /// Panics naming the quantity, the sample and the worst entry unless
    /// every entry of `got` is within tolerance of `want`.
    pub fn check(&self, what: &str, sample: usize, got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len(), "{what}: length");
        if let Some((i, (g, w))) = got
            .iter()
            .zip(want)
            .enumerate()
            .find(|(_, (g, w))| !self.accepts(**g, **w))
        {
            panic!(
                "{what}, sample {sample}: entry {i} is {g:e}, Pinocchio says {w:e} \
                 (difference {:e}, tolerance {self:?})\n got {got:?}\nwant {want:?}",
                (g - w).abs()
            );
        }
    }
}
