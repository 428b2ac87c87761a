//! From links and joints to the bodies of a spec: every link attached by a
//! fixed joint is merged into its parent (its mass lumped in, its children's
//! placements composed through), the root becomes the ground (or, floating,
//! a body on a free joint), planar joints get their frames turned so that the
//! plane is x–y, masses are lumped and checked (`lumping`), and massless
//! leaf links are dropped.

use crate::error::Problem;
use crate::geometry::Placement;
use crate::inertia::MassProperties;
use crate::lumping::lump_masses;
use crate::model::{Body, Inboard, Model, Owner, FLOATING_BASE_JOINT};
use crate::read::{JointType, Robot};
use crate::tree::Tree;

/// Builds the bodies. With `floating`, the root link is a body on a free
/// joint instead of the ground; with `fix_inertia`, unphysical inertias are
/// projected instead of rejected.
pub(crate) fn merge(
    robot: &Robot,
    tree: &Tree,
    floating: bool,
    fix_inertia: bool,
) -> Result<Model, Problem> {
    let mut owners: Vec<Option<Owner>> = vec![None; robot.links.len()];
    let mut bodies: Vec<Body> = Vec::new();
    let root = if floating {
        if let Some(clash) = robot.joints.iter().find(|j| j.name == FLOATING_BASE_JOINT) {
            return Err(Problem::new(
                clash.span,
                format!("joint name `{FLOATING_BASE_JOINT}` is reserved with --floating"),
                "clashes with the floating base's joint",
                format!(
                    "--floating attaches the root link by a free joint called \
                     `{FLOATING_BASE_JOINT}` (Pinocchio's name); rename this joint"
                ),
            ));
        }
        moving_link_name(robot, tree.root)?;
        bodies.push(Body {
            link: tree.root,
            inboard: Inboard::FloatingBase,
            parent: None,
            origin: Placement::identity(),
            mass: MassProperties::zero(),
            merged: Vec::new(),
        });
        Some(0)
    } else {
        None
    };
    if let Some(slot) = owners.get_mut(tree.root) {
        *slot = Some(Owner {
            body: root,
            placement: Placement::identity(),
        });
    }
    let mut ground_merged = Vec::new();
    for &j in &tree.order {
        let joint = &robot.joints[j];
        let (parent, child) = tree.ends[j];
        // Depth-first order visits a joint's parent link before the joint.
        let Some(Some(outer)) = owners.get(parent).cloned() else {
            continue;
        };
        let placement = outer.placement.then(&joint.origin);
        if joint.kind == JointType::Fixed {
            match outer.body.and_then(|b| bodies.get_mut(b)) {
                Some(body) => body.merged.push(j),
                None => ground_merged.push(j),
            }
            owners[child] = Some(Owner {
                body: outer.body,
                placement,
            });
        } else {
            moving_link_name(robot, child)?;
            // The spec's planar joint moves in its frame's x–y plane: turn
            // the joint frame so that the URDF axis (the plane's normal) is
            // its z, and turn the link frame back inside the body.
            let turn = if joint.kind == JointType::Planar {
                Placement::z_onto(joint.axis)
            } else {
                Placement::identity()
            };
            owners[child] = Some(Owner {
                body: Some(bodies.len()),
                placement: turn.inverse(),
            });
            bodies.push(Body {
                link: child,
                inboard: Inboard::Joint(j),
                parent: outer.body,
                origin: placement.then(&turn),
                mass: MassProperties::zero(),
                merged: Vec::new(),
            });
        }
    }
    let fixes = lump_masses(robot, tree, &owners, &mut bodies, fix_inertia)?;
    let dropped = drop_massless(robot, &mut owners, &mut bodies)?;
    Ok(Model {
        bodies,
        ground_merged,
        owners,
        dropped,
        fixes,
    })
}

/// A link that becomes a moving body must not be called `ground`, the
/// spec's name for the fixed base.
fn moving_link_name(robot: &Robot, link: usize) -> Result<(), Problem> {
    match robot.links.get(link) {
        Some(l) if l.name == "ground" => Err(Problem::new(
            l.span,
            "link name `ground` is reserved",
            "a moving link called `ground`",
            "the spec format calls the fixed base `ground`; rename this link",
        )),
        _ => Ok(()),
    }
}

/// Drops massless bodies that carry nothing (leaves, after their own
/// massless leaves are gone) and rejects massless bodies that carry others,
/// that declare a zero mass or that are the floating base. Returns the
/// dropped joints.
fn drop_massless(
    robot: &Robot,
    owners: &mut [Option<Owner>],
    bodies: &mut Vec<Body>,
) -> Result<Vec<usize>, Problem> {
    let mut keep = vec![true; bodies.len()];
    let mut dropped_joints = vec![None; bodies.len()];
    // Bodies are in depth-first order: walking backwards sees children first.
    for b in (0..bodies.len()).rev() {
        let body = &bodies[b];
        if body.mass.mass > 0.0 {
            continue;
        }
        let link = &robot.links[body.link];
        let joint = match body.inboard {
            Inboard::Joint(j) => j,
            Inboard::FloatingBase => return Err(massless_base(&link.name, link.span)),
        };
        if let Some(inertial) = &link.inertial {
            return Err(Problem::new(
                inertial.mass_span,
                format!("mass of moving link `{}` is zero", link.name),
                "zero mass",
                "every moving body needs a mass > 0: give the link its mass, or delete its \
                 <inertial> if it is a massless frame (a massless leaf link is dropped)",
            ));
        }
        let carried = (b + 1..bodies.len()).find(|&c| keep[c] && bodies[c].parent == Some(b));
        if let Some(c) = carried {
            let through = match bodies[c].inboard {
                Inboard::Joint(j) => robot.joints[j].name.as_str(),
                Inboard::FloatingBase => FLOATING_BASE_JOINT,
            };
            return Err(Problem::new(
                link.span,
                format!(
                    "link `{}` has no mass but carries `{}` through the moving joint `{through}`",
                    link.name, robot.links[bodies[c].link].name
                ),
                "massless link",
                "every moving body needs a mass > 0: give this link an <inertial> with its mass, \
                 or attach it to a massive link with a fixed joint",
            ));
        }
        keep[b] = false;
        dropped_joints[b] = Some(joint);
    }
    let mut renumbered = vec![None; bodies.len()];
    let mut kept = Vec::with_capacity(bodies.len());
    let mut dropped = Vec::new();
    for (b, body) in std::mem::take(bodies).into_iter().enumerate() {
        if keep[b] {
            renumbered[b] = Some(kept.len());
            kept.push(body);
        } else {
            dropped.extend(dropped_joints[b]);
        }
    }
    for body in &mut kept {
        body.parent = body.parent.and_then(|p| renumbered[p]);
    }
    for owner in owners.iter_mut() {
        if let Some(Owner { body: Some(b), .. }) = owner {
            match renumbered[*b] {
                Some(new) => *b = new,
                None => *owner = None,
            }
        }
    }
    *bodies = kept;
    Ok(dropped)
}

/// A floating base without mass: it cannot be dropped like a massless leaf,
/// and the spec requires every moving body to have a mass.
fn massless_base(link: &str, span: sharnir_spec::Span) -> Problem {
    Problem::new(
        span,
        format!("the floating base `{link}` has no mass"),
        "massless root link",
        "with --floating the root link is a moving body and needs a mass > 0: give it an \
         <inertial>, or attach a massive link to it by a fixed joint",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::read;
    use crate::tree::build;

    fn model(text: &str) -> (Robot, Model) {
        let robot = read(text).unwrap_or_else(|p| panic!("{p:?}"));
        let tree = build(&robot).unwrap_or_else(|p| panic!("{p:?}"));
        let model = merge(&robot, &tree, false, false).unwrap_or_else(|p| panic!("{p:?}"));
        (robot, model)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * (1.0 + b.abs())
    }

    /// An arm whose tool is bolted on by a fixed joint that is itself
    /// rotated, checked against the lumped values worked out by hand.
    #[test]
    fn fixed_joint_lumping_by_hand() {
        // `arm`: 2 kg at (0.5, 0, 0), I = diag(0.01, 0.1, 0.1).
        // `tool`: 1 kg, fixed at (1, 0, 0) turned +90° about z, its centre at
        // (0, 0.2, 0) in its own frame, I = diag(0.02, 0.03, 0.04) in its own
        // axes. In the arm frame the tool's centre is (1 − 0.2, 0, 0) = (0.8, 0, 0)
        // and its tensor is diag(0.03, 0.02, 0.04) (x and y swap).
        // Lumped: m = 3, c = (2·0.5 + 1·0.8)/3 = 0.6 along x; offsets −0.1 and
        // +0.2 along x give yy and zz the extra 2·0.01 + 1·0.04 = 0.06:
        // I = diag(0.04, 0.18, 0.20).
        let text = r#"<robot name="r">
  <link name="base"/>
  <link name="arm">
    <inertial><origin xyz="0.5 0 0"/><mass value="2"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
  <link name="tool">
    <inertial><origin xyz="0 0.2 0"/><mass value="1"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/></inertial>
  </link>
  <link name="tip"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="bolt" type="fixed"><parent link="arm"/><child link="tool"/>
    <origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/></joint>
  <joint name="tcp" type="fixed"><parent link="tool"/><child link="tip"/>
    <origin xyz="0 0.3 0"/></joint>
</robot>"#;
        let (robot, model) = model(text);
        assert_eq!(model.bodies.len(), 1);
        let body = &model.bodies[0];
        assert_eq!(robot.links[body.link].name, "arm");
        assert_eq!(body.merged.len(), 2);
        assert!(close(body.mass.mass, 3.0));
        for (got, want) in body.mass.com.iter().zip([0.6, 0.0, 0.0]) {
            assert!(close(*got, want), "{:?}", body.mass.com);
        }
        let want = [[0.04, 0.0, 0.0], [0.0, 0.18, 0.0], [0.0, 0.0, 0.20]];
        for (got, want) in body
            .mass
            .inertia
            .iter()
            .flatten()
            .zip(want.iter().flatten())
        {
            assert!(close(*got, *want), "{:?}", body.mass.inertia);
        }
        // The tip frame sits 0.3 along the tool's y, which is the arm's −x.
        let tip = robot.links.iter().position(|l| l.name == "tip");
        let owner = tip.and_then(|t| model.owners[t].clone()).expect("tip kept");
        assert_eq!(owner.body, Some(0));
        for (got, want) in owner.placement.translation.iter().zip([0.7, 0.0, 0.0]) {
            assert!(close(*got, want), "{:?}", owner.placement.translation);
        }
    }

    #[test]
    fn placements_compose_through_fixed_joints() {
        let text = r#"<robot name="r">
  <link name="world"/>
  <link name="base"/>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <joint name="mount" type="fixed"><parent link="world"/><child link="base"/>
    <origin xyz="0 0 1" rpy="0 0 0.5"/></joint>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="1 0 0" rpy="0.25 0 0"/></joint>
</robot>"#;
        let (_, model) = model(text);
        assert_eq!(model.ground_merged.len(), 1);
        let origin = &model.bodies[0].origin;
        assert_eq!(model.bodies[0].parent, None);
        let (s, c) = 0.5_f64.sin_cos();
        for (got, want) in origin.translation.iter().zip([c, s, 1.0]) {
            assert!(close(*got, want), "{:?}", origin.translation);
        }
        assert_eq!(origin.rotations.len(), 2, "{:?}", origin.rotations);
    }

    #[test]
    fn massless_leaves_are_dropped_and_massless_carriers_rejected() {
        let leaf = r#"<robot name="r">
  <link name="base"/>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="sensor"/>
  <link name="probe"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/></joint>
  <joint name="j2" type="revolute"><parent link="arm"/><child link="sensor"/></joint>
  <joint name="j3" type="prismatic"><parent link="sensor"/><child link="probe"/></joint>
</robot>"#;
        let (robot, model) = model(leaf);
        assert_eq!(model.bodies.len(), 1);
        let dropped: Vec<&str> = model
            .dropped
            .iter()
            .map(|&j| robot.joints[j].name.as_str())
            .collect();
        assert_eq!(dropped, ["j2", "j3"]);
        assert!(model.owners[2].is_none() && model.owners[3].is_none());

        let carrier = leaf.replace(
            "<link name=\"probe\"/>",
            "<link name=\"probe\"><inertial><mass value=\"1\"/>\
             <inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>",
        );
        let robot = read(&carrier).unwrap_or_else(|p| panic!("{p:?}"));
        let tree = build(&robot).unwrap_or_else(|p| panic!("{p:?}"));
        let problem = merge(&robot, &tree, false, false).expect_err("rejected");
        assert_eq!(
            problem.message,
            "link `sensor` has no mass but carries `probe` through the moving joint `j3`"
        );
    }

    /// A base on a revolute joint with a rank-1 dummy link and a point mass
    /// bolted on; `base_inertia` is the base link's own tensor.
    fn bolted_on(base_inertia: &str) -> String {
        format!(
            r#"<robot name="r">
  <link name="world"/>
  <link name="base"><inertial><mass value="2"/>
    <inertia {base_inertia}/></inertial></link>
  <link name="dummy"><inertial><mass value="1e-6"/>
    <inertia ixx="1e-9" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>
  <link name="point"><inertial><origin xyz="0 0 0.1"/><mass value="0.5"/>
    <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="world"/><child link="base"/></joint>
  <joint name="f1" type="fixed"><parent link="base"/><child link="dummy"/></joint>
  <joint name="f2" type="fixed"><parent link="base"/><child link="point"/></joint>
</robot>"#
        )
    }

    fn merged(text: &str, fix: bool) -> Result<Model, Problem> {
        let robot = read(text).unwrap_or_else(|p| panic!("{p:?}"));
        let tree = build(&robot).unwrap_or_else(|p| panic!("{p:?}"));
        merge(&robot, &tree, false, fix)
    }

    #[test]
    fn singular_links_lumped_into_a_physical_body_are_kept_exactly() {
        let text = bolted_on(r#"ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1""#);
        let model = merged(&text, false).unwrap_or_else(|p| panic!("{p:?}"));
        assert!(model.fixes.is_empty());
        let body = &model.bodies[0];
        // 2 kg at 0, 1e-6 kg at 0, 0.5 kg at z = 0.1: centre at z = 0.05 / 2.500001.
        let m = 2.500001;
        let c = 0.05 / m;
        assert_eq!(body.mass.mass, m);
        assert!((body.mass.com[2] - c).abs() < 1e-17);
        // xx: 0.1 + 1e-9 + 2 c² + 1e-6 c² + 0.5 (0.1 − c)².
        let xx = 0.1 + 1e-9 + 2.0 * c * c + 1e-6 * c * c + 0.5 * (0.1 - c) * (0.1 - c);
        assert!(
            (body.mass.inertia[0][0] - xx).abs() < 1e-16,
            "{:?}",
            body.mass
        );
        assert_eq!(body.mass.inertia[2][2], 0.1);
    }

    #[test]
    fn a_singular_moving_body_is_located_at_the_bad_link() {
        // The base alone is a rod along z: no moment about z, and the point
        // mass on the z axis adds none.
        let text = bolted_on(r#"ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0""#);
        let problem = merged(&text, false).expect_err("rejected");
        assert!(
            problem.message.starts_with(
                "inertia of the moving body of link `base` with `dummy`, `point` lumped in by \
                 fixed joints is not positive definite: principal moments (0,"
            ),
            "{}",
            problem.message
        );
        assert_eq!(problem.span.offset, text.find("<inertia ").unwrap_or(0));
        assert!(problem.help.contains("--fix-inertia"), "{}", problem.help);
        // --fix-inertia replaces the lumped tensor, reported at the same link.
        let model = merged(&text, true).unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(model.fixes.len(), 1);
        assert_eq!(model.fixes[0].before[0], 0.0);
        assert!(model.fixes[0].after[0] > 0.0);
    }
}
