//! Every expression of a body and a joint, in document order: what the
//! magnitude checks of validation and the unused-parameter warning walk, so
//! that a key added to a joint is walked by both.

use crate::expr::Expr;
use crate::model::{Body, ContactLaw, ElementaryRotation, Joint, Origin, Shape};

impl Body {
    /// The mass, the centre of mass, the six inertia entries, then every
    /// visual's sizes, scale and placement.
    pub fn expressions(&self) -> Vec<&Expr> {
        let i = &self.inertia;
        let mut all = vec![&self.mass];
        all.extend(&self.com);
        all.extend([&i.xx, &i.yy, &i.zz, &i.xy, &i.xz, &i.yz]);
        for visual in &self.visuals {
            match &visual.shape {
                Shape::Box(sizes) => all.extend(sizes),
                Shape::Cylinder { radius, length } | Shape::Capsule { radius, length } => {
                    all.extend([radius, length])
                }
                Shape::Sphere(radius) => all.push(radius),
                Shape::Mesh { .. } => {}
            }
            all.extend(visual.scale.iter().flatten());
            origin_expressions(&visual.origin, &mut all);
        }
        all
    }
}

impl Joint {
    /// The placements (`origin`, `child_origin`), the limits and stops,
    /// damping, friction and armature, clearance, gear, coupling and release, in that
    /// order.
    pub fn expressions(&self) -> Vec<&Expr> {
        let mut all = Vec::new();
        for origin in std::iter::once(&self.origin).chain(&self.child_origin) {
            origin_expressions(origin, &mut all);
        }
        if let Some(limits) = &self.limits {
            let bounds = [
                &limits.lower,
                &limits.upper,
                &limits.effort,
                &limits.velocity,
            ];
            all.extend(bounds.into_iter().flatten());
            all.extend(limits.stops.iter().flat_map(law));
        }
        all.extend(self.damping.iter().chain(&self.friction));
        all.extend(&self.friction_speed);
        all.extend(&self.armature);
        if let Some(clearance) = &self.clearance {
            all.push(&clearance.radius);
            all.extend(law(&clearance.law));
        }
        if let Some(gear) = &self.gear {
            all.extend([&gear.ratio, &gear.offset, &gear.backlash]);
            all.extend(law(&gear.law));
        }
        if let Some(mimic) = &self.mimic {
            all.extend([&mimic.multiplier, &mimic.offset]);
        }
        if let Some(detach) = &self.detach {
            all.push(detach.release.value());
        }
        all
    }
}

fn origin_expressions<'a>(origin: &'a Origin, all: &mut Vec<&'a Expr>) {
    all.extend(&origin.translation);
    for rotation in &origin.rotation {
        match rotation {
            ElementaryRotation::X(angle)
            | ElementaryRotation::Y(angle)
            | ElementaryRotation::Z(angle)
            | ElementaryRotation::AxisAngle { angle, .. } => all.push(angle),
            ElementaryRotation::Matrix(rows) => all.extend(rows.iter().flatten()),
        }
    }
}

/// The three coefficients of a contact law.
fn law(law: &ContactLaw) -> [&Expr; 3] {
    [&law.stiffness, &law.dissipation, &law.decay]
}
