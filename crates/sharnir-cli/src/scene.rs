//! What an animation draws of a spec, at its parameters' values: each
//! body's shapes in its own frame (the spec's `visual`, or the default
//! shapes), the joint frames on both sides, and which joints are cut. The
//! simulation binary embeds it, as JSON, in the page it writes with the
//! body poses of the run (`sharnir sim --html`).
//!
//! The default shapes show the structure when a body has no `visual`: a
//! rod from the body's inboard joint frame to each of its other joint
//! frames, and at the centre of mass the box of uniform density with the
//! body's mass and principal moments of inertia (Gazebo's and Drake's
//! inertia visualisation). A body welded by fixed joints is drawn with the
//! moving body it is lumped into.

use crate::frame::Frame;
use crate::mesh;
use crate::urdf_scene::UrdfScene;
use serde_json::{json, Value};
use sharnir_spec::{Body, ElementaryRotation, Expr, Joint, JointKind, Origin, Shape, Spec};
use std::path::Path;

/// The scene of the spec or URDF at `path` (converted into `spec`), with
/// a URDF's own visuals, its meshes looked up in `package_paths`: what
/// `sim --html` and `view` draw.
pub(crate) fn of_input(
    root: &Path,
    path: &Path,
    spec: &Spec,
    urdf_options: &sharnir_urdf::Options,
    package_paths: &[std::path::PathBuf],
) -> miette::Result<Value> {
    let directory = path.parent().unwrap_or(Path::new("."));
    let urdf = if crate::is_urdf(path) {
        let source = crate::read_source(root, path)?;
        let conversion = sharnir_urdf::convert(&source, urdf_options)?;
        Some(UrdfScene::new(
            &source,
            &conversion,
            directory,
            package_paths,
        ))
    } else {
        None
    };
    scene(spec, directory, urdf.as_ref()).map_err(|message| {
        miette::miette!(
            help = "a mesh is read relative to the spec's directory; STL, OBJ and COLLADA are read",
            "{message}"
        )
    })
}

/// The scene of `spec` as JSON, or the message naming the body and the
/// file of a mesh that cannot be read.
fn scene(spec: &Spec, spec_dir: &Path, urdf: Option<&UrdfScene>) -> Result<Value, String> {
    let values = Values(spec);
    // Where each body is drawn: itself, or the moving body (or the ground)
    // it is welded to, with its frame in that body's.
    let host = |name: &str| -> Result<(String, Frame), String> {
        let mut placed = Frame::IDENTITY;
        let mut body = name.to_owned();
        while let Some(joint) = spec
            .joints
            .iter()
            .find(|j| j.child == body && j.kind == JointKind::Fixed && !j.cut)
        {
            placed = joint_placement(joint, &values)?.then(&placed);
            body = joint.parent.clone();
        }
        Ok((body, placed))
    };
    let mut bodies = Vec::new();
    for body in &spec.bodies {
        let (drawn_on, placement) = host(&body.name)?;
        let from_urdf = urdf.map(|u| u.body_visuals(&body.name)).unwrap_or_default();
        let visuals = if !from_urdf.is_empty() {
            from_urdf
        } else if body.visuals.is_empty() {
            default_shapes(spec, body, &values)?
        } else {
            let mut shapes = Vec::new();
            for visual in &body.visuals {
                let mut shape = match &visual.shape {
                    Shape::Box(sizes) => json!({
                        "shape": "box",
                        "size": [values.of(&sizes[0])?, values.of(&sizes[1])?, values.of(&sizes[2])?],
                    }),
                    Shape::Cylinder { radius, length } => json!({
                        "shape": "cylinder", "radius": values.of(radius)?, "length": values.of(length)?,
                    }),
                    Shape::Capsule { radius, length } => json!({
                        "shape": "capsule", "radius": values.of(radius)?, "length": values.of(length)?,
                    }),
                    Shape::Sphere(radius) => {
                        json!({ "shape": "sphere", "radius": values.of(radius)? })
                    }
                    Shape::Mesh { path } => {
                        let file = spec_dir.join(path);
                        let scale = match &visual.scale {
                            Some(s) => [values.of(&s[0])?, values.of(&s[1])?, values.of(&s[2])?],
                            None => [1.0; 3],
                        };
                        mesh::shape(&file, scale).map_err(|e| {
                            format!("the mesh of body `{}`: {}: {e}", body.name, file.display())
                        })?
                    }
                };
                shape["matrix"] = json!(values.frame(&visual.origin)?.matrix());
                if let Some(color) = visual.color {
                    shape["color"] = json!(color);
                }
                shapes.push(shape);
            }
            shapes
        };
        bodies.push(json!({
            "name": body.name,
            "host": drawn_on,
            "placement": placement.matrix(),
            "visuals": visuals,
            "default": body.visuals.is_empty() && urdf.is_none(),
        }));
    }
    let mut joints = Vec::new();
    for joint in &spec.joints {
        let (parent, in_parent) = host(&joint.parent)?;
        let (child, in_child) = host(&joint.child)?;
        let child_side = match &joint.child_origin {
            Some(origin) => values.frame(origin)?,
            None => Frame::IDENTITY,
        };
        joints.push(json!({
            "name": joint.name,
            "cut": joint.cut,
            "kind": joint_kind(joint.kind),
            "parent": parent,
            "child": child,
            "parent_frame": in_parent.then(&values.frame(&joint.origin)?).matrix(),
            "child_frame": in_child.then(&child_side).matrix(),
            "axis": joint.axis,
        }));
    }
    Ok(json!({
        "name": spec.name,
        "gravity": [values.of(&spec.gravity[0])?, values.of(&spec.gravity[1])?, values.of(&spec.gravity[2])?],
        "bodies": bodies,
        "joints": joints,
    }))
}

/// The spec's expressions at its parameters' values.
struct Values<'a>(&'a Spec);

impl Values<'_> {
    fn of(&self, expr: &Expr) -> Result<f64, String> {
        self.0.evaluate(expr).map_err(|e| e.to_string())
    }

    /// The frame a placement (`origin`) puts in its host's.
    fn frame(&self, origin: &Origin) -> Result<Frame, String> {
        let mut rotation = Frame::IDENTITY;
        for factor in &origin.rotation {
            rotation = rotation.then(&Frame {
                rotation: elementary(self, factor)?,
                translation: [0.0; 3],
            });
        }
        Ok(Frame {
            rotation: rotation.rotation,
            translation: [
                self.of(&origin.translation[0])?,
                self.of(&origin.translation[1])?,
                self.of(&origin.translation[2])?,
            ],
        })
    }
}

/// Where a joint puts its child's frame in its parent's when its own
/// motion is zero: `origin · child_origin⁻¹`.
fn joint_placement(joint: &Joint, values: &Values) -> Result<Frame, String> {
    let outer = values.frame(&joint.origin)?;
    Ok(match &joint.child_origin {
        Some(origin) => outer.then(&values.frame(origin)?.inverse()),
        None => outer,
    })
}

/// The spec's name of a joint type.
fn joint_kind(kind: JointKind) -> &'static str {
    JointKind::ALL
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("joint", |(_, name)| name)
}

/// The rotation of one factor of a placement.
fn elementary(values: &Values, factor: &ElementaryRotation) -> Result<[[f64; 3]; 3], String> {
    let about = |axis: [f64; 3], angle: f64| {
        let (s, c) = angle.sin_cos();
        let [x, y, z] = axis;
        let t = 1.0 - c;
        [
            [c + x * x * t, x * y * t - z * s, x * z * t + y * s],
            [y * x * t + z * s, c + y * y * t, y * z * t - x * s],
            [z * x * t - y * s, z * y * t + x * s, c + z * z * t],
        ]
    };
    Ok(match factor {
        ElementaryRotation::X(angle) => about([1.0, 0.0, 0.0], values.of(angle)?),
        ElementaryRotation::Y(angle) => about([0.0, 1.0, 0.0], values.of(angle)?),
        ElementaryRotation::Z(angle) => about([0.0, 0.0, 1.0], values.of(angle)?),
        ElementaryRotation::AxisAngle { axis, angle } => about(*axis, values.of(angle)?),
        ElementaryRotation::Matrix(rows) => {
            let mut r = [[0.0; 3]; 3];
            for (row, exprs) in r.iter_mut().zip(rows) {
                for (entry, expr) in row.iter_mut().zip(exprs) {
                    *entry = values.of(expr)?;
                }
            }
            r
        }
    })
}

/// The default shapes of a body without `visual`: rods between its joint
/// frames and the inertia-equivalent box at its centre of mass; none for
/// the massless bodies of a moving base's chain.
fn default_shapes(spec: &Spec, body: &Body, values: &Values) -> Result<Vec<Value>, String> {
    if spec.moving_base.contains(&body.name) {
        return Ok(Vec::new());
    }
    let mut inboard = [0.0; 3];
    let mut others = Vec::new();
    for joint in &spec.joints {
        if joint.child == body.name {
            let at = match &joint.child_origin {
                Some(origin) => values.frame(origin)?.translation,
                None => [0.0; 3],
            };
            if joint.cut {
                others.push(at);
            } else {
                inboard = at;
            }
        }
        if joint.parent == body.name {
            others.push(values.frame(&joint.origin)?.translation);
        }
    }
    let mass = values.of(&body.mass)?;
    let com = [
        values.of(&body.com[0])?,
        values.of(&body.com[1])?,
        values.of(&body.com[2])?,
    ];
    let i = &body.inertia;
    let tensor = {
        let [xx, yy, zz, xy, xz, yz] =
            [&i.xx, &i.yy, &i.zz, &i.xy, &i.xz, &i.yz].map(|e| values.of(e));
        let (xx, yy, zz, xy, xz, yz) = (xx?, yy?, zz?, xy?, xz?, yz?);
        [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]
    };
    let (moments, axes) = principal(tensor);
    // A uniform box with the principal moments: a² = 6 (I₂ + I₃ − I₁) / m.
    let side = |a: usize| {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        (6.0 * (moments[b] + moments[c] - moments[a]) / mass)
            .max(0.0)
            .sqrt()
    };
    let sizes = [side(0), side(1), side(2)];
    let reach = others
        .iter()
        .map(|p| distance(p, &inboard))
        .chain(sizes)
        .fold(0.0_f64, f64::max);
    let radius = (0.02 * reach).max(1e-3);
    let mut shapes = Vec::new();
    for end in &others {
        let length = distance(end, &inboard);
        if length <= 1e-9 {
            continue;
        }
        let middle: [f64; 3] = std::array::from_fn(|k| 0.5 * (end[k] + inboard[k]));
        let along: [f64; 3] = std::array::from_fn(|k| (end[k] - inboard[k]) / length);
        shapes.push(json!({
            "shape": "cylinder",
            "role": "rod",
            "radius": radius,
            "length": length,
            "matrix": Frame { rotation: z_onto(along), translation: middle }.matrix(),
        }));
    }
    let columns: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| axes[i][j]));
    let thin = sizes.map(|s| s.max(radius));
    shapes.push(json!({
        "shape": "box",
        "role": "inertia",
        "size": thin,
        "matrix": Frame { rotation: columns, translation: com }.matrix(),
    }));
    Ok(shapes)
}

fn distance(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
}

/// A rotation taking z onto the unit vector `d`.
fn z_onto(d: [f64; 3]) -> [[f64; 3]; 3] {
    // Columns: x and y across d, then d.
    let helper = if d[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let dot: f64 = (0..3).map(|k| helper[k] * d[k]).sum();
    let raw: [f64; 3] = std::array::from_fn(|k| helper[k] - dot * d[k]);
    let norm = raw.iter().map(|x| x * x).sum::<f64>().sqrt();
    let x = raw.map(|v| v / norm);
    let y = [
        d[1] * x[2] - d[2] * x[1],
        d[2] * x[0] - d[0] * x[2],
        d[0] * x[1] - d[1] * x[0],
    ];
    std::array::from_fn(|i| [x[i], y[i], d[i]])
}

/// Eigenvalues and eigenvectors (as the columns of a rotation) of a
/// symmetric 3 × 3 matrix, by Jacobi rotations.
fn principal(a: [[f64; 3]; 3]) -> ([f64; 3], [[f64; 3]; 3]) {
    let (moments, mut v) = crate::eigen::symmetric_eigen::<3>(a, 3);
    let determinant = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1])
        - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0])
        + v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
    if determinant < 0.0 {
        for row in v.iter_mut() {
            row[2] = -row[2];
        }
    }
    (moments, v)
}

#[cfg(test)]
mod tests {
    use super::{principal, z_onto};

    #[test]
    fn principal_axes_diagonalise_the_inertia() {
        let a = [[2.0, 0.3, -0.1], [0.3, 1.5, 0.2], [-0.1, 0.2, 1.0]];
        let (moments, v) = principal(a);
        for k in 0..3 {
            let column = [v[0][k], v[1][k], v[2][k]];
            let image: Vec<f64> = (0..3)
                .map(|i| (0..3).map(|j| a[i][j] * column[j]).sum())
                .collect();
            for i in 0..3 {
                assert!(
                    (image[i] - moments[k] * column[i]).abs() < 1e-12,
                    "{moments:?}"
                );
            }
        }
        let trace: f64 = moments.iter().sum();
        assert!((trace - 4.5).abs() < 1e-12);
    }

    #[test]
    fn a_rod_turns_z_onto_its_direction() {
        let d = [0.6, 0.0, -0.8];
        let r = z_onto(d);
        for i in 0..3 {
            assert!((r[i][2] - d[i]).abs() < 1e-15);
        }
    }
}
