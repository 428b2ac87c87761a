//! Mass properties of the moving bodies: every link's `<inertial>` lumped
//! into the body it ended up in, then each body's lumped inertia checked
//! (or, with `--fix-inertia`, projected onto the nearest physical one).
//!
//! The check is on the lumped bodies, not on the links: a link merged by a
//! fixed joint is only part of a rigid body, and the part alone need not be
//! a rigid body's inertia (a 1e-6 kg dummy link with a rank-1 tensor, a
//! point mass bolted on). What moves, and what the dynamics divides by, is
//! the body; Pinocchio accepts such URDFs for the same reason.

use crate::error::Problem;
use crate::inertia::{defect, project, rotate, Defect, MassProperties};
use crate::model::{Body, InertiaFix, Owner};
use crate::read::Robot;
use crate::tree::Tree;

/// Adds every link's inertial to its body, in the link order of the
/// depth-first walk from the root (so rounding is reproducible), then checks
/// every body with a mass: its lumped inertia about its centre of mass must
/// be positive definite and meet the triangle inequality, or with
/// `fix_inertia` it is projected (the replacements are returned). A link's
/// own tensor is not checked: only its mass, which must not be negative.
/// Links merged into the ground are not checked at all: their mass never
/// matters for a fixed base. Massless bodies are left to `drop_massless`.
pub(crate) fn lump_masses(
    robot: &Robot,
    tree: &Tree,
    owners: &[Option<Owner>],
    bodies: &mut [Body],
    fix_inertia: bool,
) -> Result<Vec<InertiaFix>, Problem> {
    let links = std::iter::once(tree.root).chain(tree.order.iter().map(|&j| tree.ends[j].1));
    for link in links {
        let Some(Some(owner)) = owners.get(link) else {
            continue;
        };
        let Some(body) = owner.body.and_then(|b| bodies.get_mut(b)) else {
            continue;
        };
        let Some(inertial) = &robot.links[link].inertial else {
            continue;
        };
        if inertial.mass < 0.0 {
            return Err(Problem::new(
                inertial.mass_span,
                format!(
                    "mass of link `{}` is negative: {}",
                    robot.links[link].name, inertial.mass
                ),
                "negative mass",
                "masses are in kg and not negative; check the sign",
            ));
        }
        let in_link = MassProperties {
            mass: inertial.mass,
            com: inertial.origin.translation,
            inertia: rotate(&inertial.origin.matrix, &inertial.inertia),
        };
        let placement = &owner.placement;
        body.mass = body
            .mass
            .lump(&in_link.placed(&placement.matrix, placement.translation));
    }
    let mut fixes = Vec::new();
    for body in bodies.iter_mut() {
        if body.mass.mass <= 0.0 {
            continue;
        }
        let Some(found) = defect(&body.mass.inertia) else {
            continue;
        };
        let link = culprit(robot, tree, body);
        if !fix_inertia {
            return Err(inertia_problem(robot, tree, body, link, &found));
        }
        let (fixed, after) = project(&body.mass.inertia);
        let before = match found {
            Defect::NotPositiveDefinite(m) | Defect::Triangle(m) => m,
        };
        fixes.push(InertiaFix {
            link,
            body_link: body.link,
            before,
            after,
        });
        body.mass.inertia = fixed;
    }
    Ok(fixes)
}

/// The links lumped into a body: its own link, then the links its fixed
/// joints merged in, in depth-first order.
fn lumped_links<'a>(tree: &'a Tree, body: &'a Body) -> impl Iterator<Item = usize> + 'a {
    std::iter::once(body.link).chain(body.merged.iter().map(|&j| tree.ends[j].1))
}

/// The link at which a body's bad inertia is reported: the first of its
/// lumped links with a mass whose own tensor is not physical (the values to
/// look at), or else the body's own link.
fn culprit(robot: &Robot, tree: &Tree, body: &Body) -> usize {
    lumped_links(tree, body)
        .find(|&l| {
            robot.links[l]
                .inertial
                .as_ref()
                .is_some_and(|i| i.mass > 0.0 && defect(&i.inertia).is_some())
        })
        .unwrap_or(body.link)
}

/// Where to point for a link's inertia: its `<inertia>` tag, or the `<link>`
/// tag if it has no `<inertial>`.
pub(crate) fn inertia_span(robot: &Robot, link: usize) -> sharnir_spec::Span {
    let link = &robot.links[link];
    link.inertial.as_ref().map_or(link.span, |i| i.inertia_span)
}

/// "link `arm`", or "link `arm` with `tool`, `flange` lumped in".
pub(crate) fn body_description(robot: &Robot, tree: &Tree, body: &Body) -> String {
    let mut links = lumped_links(tree, body).map(|l| format!("`{}`", robot.links[l].name));
    let own = links.next().unwrap_or_default();
    let merged: Vec<String> = links.collect();
    match merged.len() {
        0 => format!("link {own}"),
        1..=4 => format!(
            "link {own} with {} lumped in by fixed joints",
            merged.join(", ")
        ),
        n => format!(
            "link {own} with {}, … ({n} links) lumped in by fixed joints",
            merged[..3].join(", ")
        ),
    }
}

fn inertia_problem(
    robot: &Robot,
    tree: &Tree,
    body: &Body,
    link: usize,
    found: &Defect,
) -> Problem {
    let list = crate::emit::moments;
    let what = format!("the moving body of {}", body_description(robot, tree, body));
    let (message, label) = match found {
        Defect::NotPositiveDefinite(m) => (
            format!(
                "inertia of {what} is not positive definite: principal moments {}",
                list(m)
            ),
            "not positive definite once lumped",
        ),
        Defect::Triangle(m) => (
            format!(
                "inertia of {what} violates the triangle inequality: principal moments {} \
                 (I₁ + I₂ < I₃)",
                list(m)
            ),
            "no rigid body has these moments once lumped",
        ),
    };
    let lumped = if body.merged.is_empty() {
        ""
    } else {
        ", together with those of the links fixed to it,"
    };
    Problem::new(
        inertia_span(robot, link),
        message,
        label,
        format!(
            "a moving body's inertia (this link's{lumped} about the centres of mass, in the \
             <inertial> frames' axes, kg·m²) must be positive definite with I₁ + I₂ ≥ I₃; fix \
             the values, or convert with --fix-inertia to use the nearest physical tensor for \
             this body (it changes the body's principal moments, reported on stderr)"
        ),
    )
}
