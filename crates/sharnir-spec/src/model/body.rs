//! A body of the spec: its mass properties and the shapes drawn for it.

use crate::expr::Expr;
use crate::source::Span;

use super::placement::Origin;

/// A moving rigid body with its mass properties.
#[derive(Clone, Debug)]
pub struct Body {
    /// Its name, referenced by joints.
    pub name: String,
    /// The span of the name value.
    pub span: Span,
    /// Mass, kg.
    pub mass: Expr,
    /// Centre of mass in the body frame, m.
    pub com: [Expr; 3],
    /// Inertia tensor about the centre of mass in body axes, kg·m².
    pub inertia: Inertia,
    /// The shapes an animation draws for the body (`visual`); none draws
    /// the default shapes (`docs/animation.md`). They do not enter the
    /// dynamics.
    pub visuals: Vec<Visual>,
}

/// One shape drawn for a body, placed in the body frame.
#[derive(Clone, Debug)]
pub struct Visual {
    /// What is drawn.
    pub shape: Shape,
    /// A mesh's scale along its own x, y, z (`None`: 1).
    pub scale: Option<[Expr; 3]>,
    /// Where the shape's own frame is in the body frame (`origin`, the keys
    /// of a joint's).
    pub origin: Origin,
    /// Red, green, blue from 0 to 1 (`None`: the page's default for the
    /// body).
    pub color: Option<[f64; 3]>,
    /// The span of the shape's key, where problems with it are reported.
    pub span: Span,
}

/// A visual's geometry, in its own frame: boxes, spheres and ellipsoids
/// centred on the origin, cylinders and capsules along z.
#[derive(Clone, Debug)]
pub enum Shape {
    /// Edge lengths along x, y, z, m.
    Box([Expr; 3]),
    /// A cylinder along z, centred on the origin, m.
    Cylinder {
        /// Radius.
        radius: Expr,
        /// Length along z.
        length: Expr,
    },
    /// A sphere of this radius, m.
    Sphere(Expr),
    /// A cylinder along z with hemispherical ends, m.
    Capsule {
        /// Radius of the cylinder and of the ends.
        radius: Expr,
        /// Length of the cylindrical part.
        length: Expr,
    },
    /// A triangle mesh (binary or ASCII STL), the path relative to the
    /// spec's directory.
    Mesh {
        /// The file, as written.
        path: String,
    },
}

/// The six independent entries of a symmetric inertia tensor; the products
/// are the off-diagonal tensor entries themselves (URDF convention).
#[derive(Clone, Debug)]
pub struct Inertia {
    /// Moment about x.
    pub xx: Expr,
    /// Moment about y.
    pub yy: Expr,
    /// Moment about z.
    pub zz: Expr,
    /// Tensor entry (x, y).
    pub xy: Expr,
    /// Tensor entry (x, z).
    pub xz: Expr,
    /// Tensor entry (y, z).
    pub yz: Expr,
    /// The span of the whole inertia value, where tensor-level problems are
    /// reported.
    pub span: Span,
}
