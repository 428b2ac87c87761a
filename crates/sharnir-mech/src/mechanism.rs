//! Assembly of a validated spec into a kinematic tree of symbolic bodies.
//!
//! This is where the spec's names become structure: bodies are numbered
//! regularly along a spanning tree of the mechanism graph, each joint's
//! placement becomes a symbolic rotation and translation, and every number
//! becomes either a runtime parameter symbol or (with `--fold`) an exact
//! constant. Graph errors (loops, disconnected bodies, joints pointing the
//! wrong way) are reported here against the spec's source spans.

use crate::graph::{self, GraphError};
use crate::inputs::Input;
use crate::vec3::{Mat3, Vec3, Vec3Ops};
use sharnir_cas::{Coeff, Id, Pool};
use sharnir_spec::{
    ElementaryRotation, Expr, ExprKind, Function, JointKind as SpecJointKind, ParameterValue, Span,
    Spec, SpecError,
};
use std::collections::HashMap;

/// How spec parameters appear in derived expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParameterMode {
    /// Numeric parameters stay symbols, read from `Params` at run time.
    Runtime,
    /// Parameter values are folded into the expressions as constants.
    Folded,
}

/// The motion a joint allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Rotation about the joint axis.
    Revolute,
    /// Translation along the joint axis.
    Prismatic,
}

/// A parameter that the generated module reads from `Params` at run time.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeParameter {
    /// Field name (the spec's parameter name).
    pub name: String,
    /// The spec's value, used by `Params::default()`.
    pub default: f64,
}

/// One moving body of the spanning tree with its inboard joint.
#[derive(Clone, Debug)]
pub struct TreeBody {
    /// The body's name in the spec.
    pub name: String,
    /// The name of its inboard joint.
    pub joint: String,
    /// Index of the parent in [`Mechanism::bodies`]; `None` for ground.
    pub parent: Option<usize>,
    /// Index of the inboard joint's coordinate in [`Mechanism::coordinates`].
    pub coordinate: usize,
    /// Joint type.
    pub kind: JointKind,
    /// Unit joint axis in the joint frame.
    pub axis: Vec3,
    /// Joint-frame orientation in the parent frame (`p_parent = translation + rotation · p_joint`).
    pub rotation: Mat3,
    /// Joint-frame origin in the parent frame.
    pub translation: Vec3,
    /// Mass.
    pub mass: Id,
    /// Centre of mass in the body frame.
    pub com: Vec3,
    /// Inertia tensor about the centre of mass, body axes.
    pub inertia: Mat3,
}

/// A mechanism ready for derivations: a regularly numbered tree of symbolic
/// bodies sharing one expression pool.
#[derive(Debug)]
pub struct Mechanism {
    /// Module name.
    pub name: String,
    /// Free-text description from the spec.
    pub description: Option<String>,
    /// The spec file the mechanism came from, as the user named it.
    pub source_name: String,
    /// How parameters were treated.
    pub mode: ParameterMode,
    /// The pool owning every expression below.
    pub pool: Pool,
    /// Parameters read at run time, in spec order (empty when folded).
    pub parameters: Vec<RuntimeParameter>,
    /// Coordinate names in the order of the spec's joints.
    pub coordinates: Vec<String>,
    /// Bodies in regular numbering: parents come before children.
    pub bodies: Vec<TreeBody>,
    /// Gravitational acceleration in the ground frame.
    pub gravity: Vec3,
}

impl Mechanism {
    /// Builds the tree for `spec`, or reports why the graph is not a tree
    /// rooted at ground.
    pub fn from_spec(spec: &Spec, mode: ParameterMode) -> Result<Mechanism, SpecError> {
        let mut lowering = ExprLowering::new(spec, mode);
        let tree = spanning_tree(spec)?;
        let gravity = lowering.vec3(spec, &spec.gravity)?;
        let mut bodies = Vec::with_capacity(tree.bodies());
        for k in 1..=tree.bodies() {
            let joint = &spec.joints[tree.inboard_arc(k)];
            let body = &spec.bodies[tree.body_of_number(k) - 1];
            let parent = match tree.parent_number(k) {
                0 => None,
                n => Some(n - 1),
            };
            let kind = match joint.kind {
                SpecJointKind::Revolute => JointKind::Revolute,
                SpecJointKind::Prismatic => JointKind::Prismatic,
                other => {
                    return Err(spec.error_at(
                        joint.span,
                        format!("{} joints are not derived yet", other.name()),
                        "this joint",
                        "use revolute and prismatic joints for now",
                    ))
                }
            };
            let axis = joint
                .axis
                .map(|a| lowering.pool.num(Coeff::from_decimal_f64(a)));
            let translation = lowering.vec3(spec, &joint.origin.translation)?;
            let rotation = lowering.rotation(spec, &joint.origin.rotation)?;
            let mass = lowering.expr(spec, &body.mass)?;
            let com = lowering.vec3(spec, &body.com)?;
            let i = &body.inertia;
            let (xx, yy, zz) = (
                lowering.expr(spec, &i.xx)?,
                lowering.expr(spec, &i.yy)?,
                lowering.expr(spec, &i.zz)?,
            );
            let (xy, xz, yz) = (
                lowering.expr(spec, &i.xy)?,
                lowering.expr(spec, &i.xz)?,
                lowering.expr(spec, &i.yz)?,
            );
            bodies.push(TreeBody {
                name: body.name.clone(),
                joint: joint.name.clone(),
                parent,
                coordinate: tree.inboard_arc(k),
                kind,
                axis,
                rotation,
                translation,
                mass,
                com,
                inertia: [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]],
            });
        }
        let parameters = match mode {
            ParameterMode::Folded => Vec::new(),
            ParameterMode::Runtime => spec
                .parameters
                .iter()
                .filter_map(|p| match p.value {
                    ParameterValue::Number(default) => Some(RuntimeParameter {
                        name: p.name.clone(),
                        default,
                    }),
                    ParameterValue::Derived(_) => None,
                })
                .collect(),
        };
        Ok(Mechanism {
            name: spec.name.clone(),
            description: spec.description.clone(),
            source_name: spec.source.name.clone(),
            mode,
            pool: lowering.pool,
            parameters,
            coordinates: spec.joints.iter().map(|j| j.coordinate.clone()).collect(),
            bodies,
            gravity,
        })
    }

    /// Number of coordinates (equal to the number of velocities for the
    /// one-degree-of-freedom joints of this version).
    pub fn dof(&self) -> usize {
        self.coordinates.len()
    }
}

/// Checks the graph and numbers it, translating graph errors to spec errors.
fn spanning_tree(spec: &Spec) -> Result<graph::SpanningTree, SpecError> {
    let index: HashMap<&str, usize> = spec
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i + 1))
        .collect();
    let mut arcs = Vec::with_capacity(spec.joints.len());
    for joint in &spec.joints {
        let end = |name: &str, span| {
            if name == "ground" {
                Ok(0)
            } else {
                index.get(name).copied().ok_or_else(|| {
                    spec.error_at(
                        span,
                        format!("unknown body `{name}`"),
                        "not a body",
                        "declare it with [[body]]",
                    )
                })
            }
        };
        arcs.push(graph::Arc {
            from: end(&joint.parent, joint.parent_span)?,
            to: end(&joint.child, joint.child_span)?,
        });
    }
    let tree =
        graph::spanning_tree(spec.bodies.len() + 1, &arcs).map_err(|e| graph_error(spec, e))?;
    if let Some(&cut) = tree.cut_arcs().first() {
        return Err(loop_error(spec, tree.fundamental_loop(cut).unwrap_or(&[])));
    }
    for k in 1..=tree.bodies() {
        if tree.arc_reversed(k) {
            let joint = &spec.joints[tree.inboard_arc(k)];
            return Err(spec.error_at(
                joint.parent_span,
                format!(
                    "joint `{}` points towards ground: `{}` is nearer to ground than `{}`",
                    joint.name, joint.child, joint.parent
                ),
                "this parent is the outboard body",
                "swap `parent` and `child` so that every joint points away from ground",
            ));
        }
    }
    Ok(tree)
}

fn graph_error(spec: &Spec, error: GraphError) -> SpecError {
    match error {
        GraphError::Disconnected { bodies } => {
            let body = |b: usize| b.checked_sub(1).and_then(|i| spec.bodies.get(i));
            let names: Vec<&str> = bodies
                .iter()
                .filter_map(|&b| body(b))
                .map(|b| b.name.as_str())
                .collect();
            let span = bodies
                .first()
                .and_then(|&b| body(b))
                .map(|b| b.span)
                .unwrap_or_default();
            spec.error_at(
                span,
                format!("not connected to ground: {}", names.join(", ")),
                "this body has no path of joints to ground",
                "add a joint that connects it to ground or to a connected body",
            )
        }
        GraphError::SelfLoop { arc } => {
            let joint = spec.joints.get(arc);
            spec.error_at(
                joint.map(|j| j.span).unwrap_or_default(),
                format!(
                    "joint `{}` connects a body to itself",
                    joint.map_or("?", |j| j.name.as_str())
                ),
                "parent and child are the same body",
                "a joint must connect two different bodies",
            )
        }
        other @ (GraphError::NoGround | GraphError::UnknownBody { .. }) => spec.error_at(
            Span::default(),
            other.to_string(),
            "",
            "this is a bug in sharnir: the spec was validated; please report it",
        ),
    }
}

/// The error for a closed kinematic loop, naming its joints in order around
/// the loop; the first one is the joint that would be cut.
fn loop_error(spec: &Spec, arcs: &[usize]) -> SpecError {
    let names: Vec<&str> = arcs
        .iter()
        .filter_map(|&a| spec.joints.get(a))
        .map(|j| j.name.as_str())
        .collect();
    let span = arcs
        .first()
        .and_then(|&a| spec.joints.get(a))
        .map(|j| j.span)
        .unwrap_or_default();
    spec.error_at(
        span,
        format!("kinematic loop through joints {}", names.join(" → ")),
        "this joint closes the loop",
        "closed loops (cut joints) are not supported yet: remove one joint of the loop",
    )
}

/// Turns spec expressions into pool expressions under one parameter mode.
struct ExprLowering {
    pool: Pool,
    parameters: HashMap<String, Id>,
}

impl ExprLowering {
    fn new(spec: &Spec, mode: ParameterMode) -> ExprLowering {
        let mut pool = Pool::new();
        let mut parameters = HashMap::new();
        for p in &spec.parameters {
            if let ParameterValue::Number(value) = p.value {
                let id = match mode {
                    ParameterMode::Runtime => {
                        pool.symbol(&Input::Parameter(p.name.clone()).symbol_name())
                    }
                    ParameterMode::Folded => pool.num(Coeff::from_decimal_f64(value)),
                };
                parameters.insert(p.name.clone(), id);
            }
        }
        ExprLowering { pool, parameters }
    }

    fn expr(&mut self, spec: &Spec, e: &Expr) -> Result<Id, SpecError> {
        self.expr_guarded(spec, e, &mut Vec::new())
    }

    fn expr_guarded(
        &mut self,
        spec: &Spec,
        e: &Expr,
        visiting: &mut Vec<String>,
    ) -> Result<Id, SpecError> {
        Ok(match &e.kind {
            ExprKind::Number(x) => self.pool.num(Coeff::from_decimal_f64(*x)),
            ExprKind::Pi => self.pool.pi(),
            ExprKind::Parameter(name) => return self.parameter(spec, name, e, visiting),
            ExprKind::Neg(a) => {
                let a = self.expr_guarded(spec, a, visiting)?;
                self.pool.neg(a)
            }
            ExprKind::Add(a, b)
            | ExprKind::Sub(a, b)
            | ExprKind::Mul(a, b)
            | ExprKind::Div(a, b) => {
                let (x, y) = (
                    self.expr_guarded(spec, a, visiting)?,
                    self.expr_guarded(spec, b, visiting)?,
                );
                match &e.kind {
                    ExprKind::Add(..) => self.pool.add(x, y),
                    ExprKind::Sub(..) => self.pool.sub(x, y),
                    ExprKind::Mul(..) => self.pool.mul(x, y),
                    _ => self.pool.div(x, y),
                }
            }
            ExprKind::Pow(a, n) => {
                let a = self.expr_guarded(spec, a, visiting)?;
                self.pool.powi(a, *n)
            }
            ExprKind::Call(f, a) => {
                let a = self.expr_guarded(spec, a, visiting)?;
                match f {
                    Function::Sin => self.pool.sin(a),
                    Function::Cos => self.pool.cos(a),
                    Function::Sqrt => self.pool.sqrt(a),
                }
            }
        })
    }

    /// A parameter's expression: its symbol (or folded value), or the lowered
    /// definition of a derived parameter.
    fn parameter(
        &mut self,
        spec: &Spec,
        name: &str,
        at: &Expr,
        visiting: &mut Vec<String>,
    ) -> Result<Id, SpecError> {
        if let Some(&id) = self.parameters.get(name) {
            return Ok(id);
        }
        let definition = spec.parameters.iter().find(|p| p.name == name);
        let Some(sharnir_spec::Parameter {
            value: ParameterValue::Derived(expr),
            ..
        }) = definition
        else {
            return Err(spec.error_at(
                at.span,
                format!("unknown parameter `{name}`"),
                "not a parameter",
                "declare it in [parameters]",
            ));
        };
        if visiting.iter().any(|v| v == name) {
            return Err(spec.error_at(
                at.span,
                format!("parameter `{name}` is defined in terms of itself"),
                "cycle",
                "break the cycle of derived parameters",
            ));
        }
        visiting.push(name.to_owned());
        let id = self.expr_guarded(spec, expr, visiting)?;
        visiting.pop();
        self.parameters.insert(name.to_owned(), id);
        Ok(id)
    }

    fn vec3(&mut self, spec: &Spec, v: &[Expr; 3]) -> Result<Vec3, SpecError> {
        Ok([
            self.expr(spec, &v[0])?,
            self.expr(spec, &v[1])?,
            self.expr(spec, &v[2])?,
        ])
    }

    /// The product of the elementary rotations, in order.
    fn rotation(
        &mut self,
        spec: &Spec,
        rotations: &[ElementaryRotation],
    ) -> Result<Mat3, SpecError> {
        let mut r = self.pool.identity3();
        for rotation in rotations {
            let m = match rotation {
                ElementaryRotation::X(angle) => self.elementary(spec, 0, angle)?,
                ElementaryRotation::Y(angle) => self.elementary(spec, 1, angle)?,
                ElementaryRotation::Z(angle) => self.elementary(spec, 2, angle)?,
                ElementaryRotation::AxisAngle { axis, angle } => {
                    let axis = axis.map(|a| self.pool.num(Coeff::from_decimal_f64(a)));
                    let angle = self.expr(spec, angle)?;
                    rodrigues(&mut self.pool, axis, angle)
                }
                ElementaryRotation::Matrix(rows) => {
                    let mut m = self.pool.identity3();
                    for (i, row) in rows.iter().enumerate() {
                        for (j, entry) in row.iter().enumerate() {
                            m[i][j] = self.expr(spec, entry)?;
                        }
                    }
                    m
                }
            };
            r = self.pool.mat_mul(&r, &m);
        }
        Ok(r)
    }

    fn elementary(&mut self, spec: &Spec, axis: usize, angle: &Expr) -> Result<Mat3, SpecError> {
        let angle = self.expr(spec, angle)?;
        let (z, o) = (self.pool.zero(), self.pool.one());
        let mut unit = [z; 3];
        unit[axis] = o;
        Ok(rodrigues(&mut self.pool, unit, angle))
    }
}

/// Rotation by `angle` about the unit vector `axis`:
/// `R = I + sin θ [a]× + (1 − cos θ) [a]×²`.
pub fn rodrigues(pool: &mut Pool, axis: Vec3, angle: Id) -> Mat3 {
    let (s, c) = (pool.sin(angle), pool.cos(angle));
    let one = pool.one();
    let versine = pool.sub(one, c);
    let mut r = pool.identity3();
    for (i, row) in r.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            // [a]×² = a aᵀ − I
            let aa = pool.mul(axis[i], axis[j]);
            let delta = if i == j { pool.one() } else { pool.zero() };
            let square = pool.sub(aa, delta);
            let cross = match (i, j) {
                (0, 1) => pool.neg(axis[2]),
                (0, 2) => axis[1],
                (1, 0) => axis[2],
                (1, 2) => pool.neg(axis[0]),
                (2, 0) => pool.neg(axis[1]),
                (2, 1) => axis[0],
                _ => pool.zero(),
            };
            let a = pool.mul(s, cross);
            let b = pool.mul(versine, square);
            let with_identity = pool.add(*entry, a);
            *entry = pool.add(with_identity, b);
        }
    }
    r
}
