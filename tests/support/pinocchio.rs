//! Pinocchio as an external oracle: reference results computed by Pinocchio
//! from the URDFs in `tests/fixtures/`, the same robots as sharnir sees them
//! after URDF import, and comparisons that map coordinates by name (a free
//! flyer's entries named like sharnir's free-joint coordinates).
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
    /// Joint positions (angles for continuous joints; a free flyer's
    /// position and quaternion, scalar last, as Pinocchio stores them).
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

/// One Pinocchio joint: how many entries it has in `q` and in `v`, so that
/// its coordinates can be named.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceJoint {
    /// The joint's name (`root_joint` for a floating base).
    pub name: String,
    /// Pinocchio's joint model, e.g. `JointModelRZ`, `JointModelFreeFlyer`.
    pub model: String,
    /// Entries in `q`.
    pub nq: usize,
    /// Entries in `v`.
    pub nv: usize,
}

impl ReferenceJoint {
    /// The names of the joint's entries in Pinocchio's `q` and `v`, in
    /// Pinocchio's layout, spelled like sharnir's coordinates so that the two
    /// can be matched by name: a one-coordinate joint is its name; a free
    /// flyer is `q = [x y z qx qy qz qw]` (scalar last), `v = [linear,
    /// angular]`, suffixed `_x … _qw` and `_vx … _wz`.
    pub fn coordinate_names(&self) -> (Vec<String>, Vec<String>) {
        let suffixed = |suffixes: &[&str]| -> Vec<String> {
            suffixes
                .iter()
                .map(|s| format!("{}{s}", self.name))
                .collect()
        };
        match (self.model.as_str(), self.nq, self.nv) {
            (_, 1, 1) => (vec![self.name.clone()], vec![self.name.clone()]),
            ("JointModelFreeFlyer", 7, 6) => (
                suffixed(&["_x", "_y", "_z", "_qx", "_qy", "_qz", "_qw"]),
                suffixed(&["_vx", "_vy", "_vz", "_wx", "_wy", "_wz"]),
            ),
            (model, nq, nv) => panic!(
                "no coordinate names for Pinocchio's {model} `{}` (nq = {nq}, nv = {nv})",
                self.name
            ),
        }
    }
}

/// A Pinocchio reference file, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Whether Pinocchio's model has a free-flyer root joint: the robot is
    /// then converted with `--floating`.
    pub floating_base: bool,
    /// Pinocchio's joints in its order (the order of every sample vector).
    pub joints: Vec<ReferenceJoint>,
    /// The URDF link whose placement `ee_placement` is.
    pub ee_frame: String,
    /// Pinocchio's bodies.
    pub bodies: Vec<ReferenceBody>,
    /// The random states.
    pub samples: Vec<Sample>,
}

impl Reference {
    /// The names of the entries of Pinocchio's `q` and `v`, in order.
    pub fn coordinate_names(&self) -> (Vec<String>, Vec<String>) {
        let mut positions = Vec::new();
        let mut velocities = Vec::new();
        for joint in &self.joints {
            let (q, v) = joint.coordinate_names();
            positions.extend(q);
            velocities.extend(v);
        }
        (positions, velocities)
    }
}

/// The `tests/fixtures/` directory.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A fixture URDF converted exactly as its bundled spec was
/// (`cargo xtask urdf2spec tests/fixtures/<urdf> --name <name>`, with
/// `--floating` if `floating` and `--folded-twin` where the bundled spec
/// `specs/<name>.spec` has one).
pub fn convert_fixture(urdf: &str, name: &str, floating: bool) -> Conversion {
    let path = fixtures_dir().join(urdf);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let source = Source {
        name: format!("tests/fixtures/{urdf}"),
        text,
    };
    // A bundled spec's choice of a folded twin, which the converter writes
    // when asked.
    let bundled = crate::oracle::specs_dir().join(format!("{name}.spec"));
    let folded_twin = bundled.exists() && load_spec(name).folded_twin;
    let options = Options {
        name: Some(name.to_owned()),
        floating,
        folded_twin,
        ..Options::default()
    };
    sharnir_urdf::convert(&source, &options).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A robot as sharnir sees it after URDF import, next to its Pinocchio
/// reference: the conversion, the numeric oracle of its bundled spec, and
/// the maps between the two coordinate orders, made by name.
pub struct Robot {
    /// The URDF conversion (frames, spec text).
    pub conversion: Conversion,
    /// `sharnir-numeric` on the bundled spec.
    pub oracle: Oracle,
    /// Position coordinate names in sharnir's order (`q`).
    pub position_names: Vec<String>,
    /// Velocity coordinate names in sharnir's order (`qd`, `qdd`, `tau`).
    pub velocity_names: Vec<String>,
    /// `q_index[i]`: where sharnir's position coordinate `i` is in
    /// Pinocchio's `q`.
    q_index: Vec<usize>,
    /// `v_index[i]`: where sharnir's velocity coordinate `i` is in
    /// Pinocchio's `v` (and `a`, `tau`, every result).
    v_index: Vec<usize>,
    /// The Pinocchio results.
    pub reference: Reference,
}

impl Robot {
    /// Loads the bundled spec `specs/<stem>.spec`, checking that it is what
    /// the converter makes of `tests/fixtures/<urdf>` today (with
    /// `--floating` when Pinocchio's model floats), and lines its
    /// coordinates up with Pinocchio's by name.
    pub fn load(stem: &str, urdf: &str, reference: Reference) -> Robot {
        let floating = reference.floating_base;
        let conversion = convert_fixture(urdf, stem, floating);
        let bundled = load_spec(stem);
        let flag = match (floating, bundled.folded_twin) {
            (true, true) => " --floating --folded-twin",
            (true, false) => " --floating",
            (false, true) => " --folded-twin",
            (false, false) => "",
        };
        assert!(
            bundled.source.text == conversion.text,
            "specs/{stem}.spec is stale: run `cargo xtask urdf2spec tests/fixtures/{urdf} \
             --name {stem}{flag} > specs/{stem}.spec`"
        );
        Robot::new(conversion, Oracle::for_spec(stem), reference)
    }

    /// A robot without a bundled spec: `tests/fixtures/<urdf>` converted in
    /// memory (with `--floating` when Pinocchio's model floats), the numeric
    /// oracle built on the converted spec.
    pub fn convert(stem: &str, urdf: &str, reference: Reference) -> Robot {
        let conversion = convert_fixture(urdf, stem, reference.floating_base);
        let oracle = Oracle::for_parsed_spec(&conversion.spec);
        Robot::new(conversion, oracle, reference)
    }

    /// Lines the conversion's coordinates up with Pinocchio's by name.
    fn new(conversion: Conversion, oracle: Oracle, reference: Reference) -> Robot {
        let spec = &conversion.spec;
        let position_names: Vec<String> = spec
            .joints
            .iter()
            .flat_map(|j| j.position_names())
            .collect();
        let velocity_names: Vec<String> = spec
            .joints
            .iter()
            .flat_map(|j| j.velocity_names())
            .collect();
        let (pinocchio_q, pinocchio_v) = reference.coordinate_names();
        Robot {
            q_index: index_by_name(&position_names, &pinocchio_q),
            v_index: index_by_name(&velocity_names, &pinocchio_v),
            conversion,
            oracle,
            position_names,
            velocity_names,
            reference,
        }
    }

    /// Pinocchio's `q` in sharnir's position order.
    pub fn q_to_sharnir(&self, q: &[f64]) -> Vec<f64> {
        self.q_index.iter().map(|&p| q[p]).collect()
    }

    /// A Pinocchio velocity-ordered vector (`v`, `a`, `tau`) in sharnir's
    /// velocity order.
    pub fn v_to_sharnir(&self, v: &[f64]) -> Vec<f64> {
        self.v_index.iter().map(|&p| v[p]).collect()
    }

    /// [`Robot::q_to_sharnir`] as a fixed-size array, for generated code.
    pub fn q_array<const NQ: usize>(&self, q: &[f64]) -> [f64; NQ] {
        array(&self.q_to_sharnir(q))
    }

    /// [`Robot::v_to_sharnir`] as a fixed-size array, for generated code.
    pub fn v_array<const NV: usize>(&self, v: &[f64]) -> [f64; NV] {
        array(&self.v_to_sharnir(v))
    }

    /// A sharnir velocity-ordered vector in Pinocchio's order.
    pub fn v_to_pinocchio(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for (i, &p) in self.v_index.iter().enumerate() {
            out[p] = x[i];
        }
        out
    }

    /// A sharnir-ordered velocity-space matrix (rows of any slice type) in
    /// Pinocchio's order.
    pub fn matrix_to_pinocchio<R: AsRef<[f64]>>(&self, m: &[R]) -> Vec<Vec<f64>> {
        let n = self.v_index.len();
        let mut out = vec![vec![0.0; n]; n];
        for (i, &pi) in self.v_index.iter().enumerate() {
            for (j, &pj) in self.v_index.iter().enumerate() {
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
    /// joint named `joint`: the body its last velocity coordinate moves (a
    /// joint built as a chain of auxiliary bodies ends at its child).
    pub fn tree_body_of_joint(&self, joint: &str) -> usize {
        let last = self
            .conversion
            .spec
            .joints
            .iter()
            .find(|j| j.name == joint)
            .and_then(|j| j.velocity_names().pop())
            .unwrap_or_else(|| panic!("no moving joint `{joint}`"));
        let coordinate = self
            .velocity_names
            .iter()
            .position(|n| *n == last)
            .unwrap_or_else(|| panic!("no coordinate `{last}`"));
        self.oracle
            .body_of_velocity(coordinate)
            .unwrap_or_else(|| panic!("no body for coordinate {coordinate}"))
    }

    /// The world placement of a URDF link at sharnir-ordered `q`, from the
    /// numeric tree's body poses and the link's fixed placement in its body.
    pub fn link_placement(&self, link: &str, q: &[f64]) -> Placement {
        let frame = self.frame(link);
        let pose = if frame.body == "ground" {
            (identity(), [0.0; 3])
        } else {
            let joint = self
                .joint_of_body(&frame.body)
                .unwrap_or_else(|| panic!("no joint moves body `{}`", frame.body));
            self.oracle.tree_poses(q)[self.tree_body_of_joint(joint)]
        };
        place(pose, frame)
    }

    /// The name of the joint whose child is the spec body `body`.
    fn joint_of_body(&self, body: &str) -> Option<&str> {
        self.conversion
            .spec
            .joints
            .iter()
            .find(|j| j.child == body)
            .map(|j| j.name.as_str())
    }
}

/// The world placement of a link frame on a body at pose
/// `(rotation, origin)`: `p_world = origin + R (t + F p_link)`.
pub fn place((rotation, origin): ([[f64; 3]; 3], [f64; 3]), frame: &Frame) -> Placement {
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

/// For each of `ours`, its position in `theirs`; every name must be there
/// exactly once, and the lengths must agree.
fn index_by_name(ours: &[String], theirs: &[String]) -> Vec<usize> {
    assert_eq!(
        ours.len(),
        theirs.len(),
        "sharnir has {ours:?}, Pinocchio {theirs:?}"
    );
    ours.iter()
        .map(|name| {
            let mut found = theirs.iter().enumerate().filter(|(_, n)| *n == name);
            match (found.next(), found.next()) {
                (Some((i, _)), None) => i,
                _ => panic!("`{name}` is not exactly once among Pinocchio's {theirs:?}"),
            }
        })
        .collect()
}

fn array<const N: usize>(v: &[f64]) -> [f64; N] {
    assert_eq!(v.len(), N, "expected {N} entries, got {v:?}");
    std::array::from_fn(|i| v[i])
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
                "{what}, sample {sample}: entry {i} is {g:e}, expected {w:e} \
                 (difference {:e}, tolerance {self:?})\n got {got:?}\nwant {want:?}",
                (g - w).abs()
            );
        }
    }
}
