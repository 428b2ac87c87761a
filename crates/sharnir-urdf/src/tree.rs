//! The link tree of a URDF: which joint connects each link to its parent,
//! the root, and the depth-first joint order Pinocchio uses.
//!
//! Pinocchio reads URDFs through urdfdom, which keeps joints in a map sorted
//! by name and gives every link its child joints in that order; Pinocchio
//! then numbers joints depth first from the root. So the order here is
//! depth first with each link's children sorted by joint name (byte-wise),
//! which makes the coordinates line up with Pinocchio's joint order.

use crate::error::Problem;
use crate::read::Robot;
use std::collections::HashMap;

/// The tree structure of a robot's links.
#[derive(Clone, Debug)]
pub(crate) struct Tree {
    /// The link that is no joint's child.
    pub root: usize,
    /// Every joint (by index into `Robot::joints`), depth first from the
    /// root, children in joint-name order.
    pub order: Vec<usize>,
    /// For every joint, the indices of its parent and child links.
    pub ends: Vec<(usize, usize)>,
}

/// Checks that the links form one tree (every joint names known links,
/// every link has at most one parent joint, one root, no cycle) and orders
/// the joints.
pub(crate) fn build(robot: &Robot) -> Result<Tree, Problem> {
    if robot.links.is_empty() {
        return Err(Problem::new(
            robot.name_span,
            format!("robot `{}` has no links", robot.name),
            "no <link> in this robot",
            "describe the robot's rigid bodies as <link>s connected by <joint>s",
        ));
    }
    let index: HashMap<&str, usize> = robot
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.as_str(), i))
        .collect();
    let mut ends = Vec::with_capacity(robot.joints.len());
    let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
    for (j, joint) in robot.joints.iter().enumerate() {
        let find = |name: &str, span, role: &str| {
            index.get(name).copied().ok_or_else(|| {
                Problem::new(
                    span,
                    format!("unknown link `{name}` as {role} of joint `{}`", joint.name),
                    "no <link> has this name",
                    format!("declare <link name=\"{name}\"/> or correct the name"),
                )
            })
        };
        let parent = find(&joint.parent, joint.parent_span, "parent")?;
        let child = find(&joint.child, joint.child_span, "child")?;
        if let Some(Some(other)) = parent_joint.get(child) {
            let other = robot.joints.get(*other).map_or("", |o| o.name.as_str());
            return Err(Problem::new(
                joint.child_span,
                format!(
                    "link `{}` is the child of two joints, `{other}` and `{}`",
                    joint.child, joint.name
                ),
                "already a child of another joint",
                "a URDF is a tree: every link has at most one parent joint (closed loops are not \
                 supported); fix the <child> of one of the joints",
            ));
        }
        if let Some(slot) = parent_joint.get_mut(child) {
            *slot = Some(j);
        }
        ends.push((parent, child));
    }
    let roots: Vec<usize> = (0..robot.links.len())
        .filter(|&l| parent_joint.get(l).is_some_and(Option::is_none))
        .collect();
    if let [first_root, second, ..] = roots.as_slice() {
        let (first_root, second) = (&robot.links[*first_root], &robot.links[*second]);
        return Err(Problem::new(
            second.span,
            format!(
                "more than one root link: `{}` and `{}` are no joint's child",
                first_root.name, second.name
            ),
            "a second root",
            format!(
                "connect `{}` to the rest of the robot with a joint (a `fixed` one if it does not \
                 move), or remove it",
                second.name
            ),
        ));
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); robot.links.len()];
    for (j, &(parent, _)) in ends.iter().enumerate() {
        if let Some(list) = children.get_mut(parent) {
            list.push(j);
        }
    }
    for list in &mut children {
        list.sort_by(|&a, &b| robot.joints[a].name.cmp(&robot.joints[b].name));
    }
    // Without a root every link is in or below a loop.
    let Some(&root) = roots.first() else {
        return Err(cycle(robot, &parent_joint, &ends, 0));
    };
    let mut order = Vec::with_capacity(robot.joints.len());
    let mut reached = vec![false; robot.links.len()];
    let mut stack = vec![root];
    while let Some(link) = stack.pop() {
        reached[link] = true;
        // Pushed in reverse so that the first child is visited first.
        for &j in children[link].iter().rev() {
            stack.push(ends[j].1);
        }
        if let Some(Some(j)) = parent_joint.get(link) {
            order.push(*j);
        }
    }
    if let Some(stray) = reached.iter().position(|r| !r) {
        return Err(cycle(robot, &parent_joint, &ends, stray));
    }
    Ok(Tree { root, order, ends })
}

/// The cycle above a link that the root does not reach: following parent
/// joints from it must come back to a link already seen.
fn cycle(
    robot: &Robot,
    parent_joint: &[Option<usize>],
    ends: &[(usize, usize)],
    start: usize,
) -> Problem {
    let mut path: Vec<usize> = Vec::new();
    let mut link = start;
    while let Some(Some(j)) = parent_joint.get(link) {
        if let Some(at) = path.iter().position(|&p| p == *j) {
            path.drain(..at);
            break;
        }
        path.push(*j);
        link = ends[*j].0;
    }
    let names: Vec<String> = path
        .iter()
        .rev()
        .map(|&j| format!("`{}`", robot.joints[j].name))
        .collect();
    let span = path
        .last()
        .map_or(robot.name_span, |&j| robot.joints[j].span);
    Problem::new(
        span,
        format!("the joints {} form a closed loop", names.join(", ")),
        "part of a loop",
        "a URDF is a tree: closed kinematic loops are not supported; remove one joint of the loop",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::read;

    fn joint(name: &str, parent: &str, child: &str) -> String {
        format!(
            "<joint name=\"{name}\" type=\"revolute\"><parent link=\"{parent}\"/>\
             <child link=\"{child}\"/></joint>\n"
        )
    }

    fn robot(links: &[&str], joints: &[String]) -> Robot {
        let mut text = String::from("<robot name=\"r\">\n");
        for l in links {
            text.push_str(&format!("<link name=\"{l}\"/>\n"));
        }
        for j in joints {
            text.push_str(j);
        }
        text.push_str("</robot>\n");
        read(&text).unwrap_or_else(|p| panic!("{p:?}"))
    }

    fn order(robot: &Robot) -> Vec<&str> {
        let tree = build(robot).unwrap_or_else(|p| panic!("{p:?}"));
        tree.order
            .iter()
            .map(|&j| robot.joints[j].name.as_str())
            .collect()
    }

    #[test]
    fn depth_first_with_children_in_joint_name_order() {
        // base has two legs listed as B then A; each leg has two joints, and
        // the joints are listed out of order in the file.
        let r = robot(
            &["base", "b1", "b2", "a1", "a2"],
            &[
                joint("B_knee", "b1", "b2"),
                joint("B_hip", "base", "b1"),
                joint("A_knee", "a1", "a2"),
                joint("A_hip", "base", "a1"),
            ],
        );
        assert_eq!(order(&r), ["A_hip", "A_knee", "B_hip", "B_knee"]);
        assert_eq!(build(&r).map(|t| t.root).ok(), Some(0));
    }

    #[test]
    fn root_need_not_come_first() {
        let r = robot(
            &["tip", "mid", "root"],
            &[joint("j2", "mid", "tip"), joint("j1", "root", "mid")],
        );
        assert_eq!(order(&r), ["j1", "j2"]);
        assert_eq!(build(&r).map(|t| t.root).ok(), Some(2));
    }

    #[test]
    fn structural_errors() {
        let message = |r: &Robot| build(r).err().map(|p| p.message).unwrap_or_default();
        let two_roots = robot(&["a", "b", "c"], &[joint("j", "a", "c")]);
        assert!(message(&two_roots).contains("more than one root link: `a` and `b`"));
        let unknown = robot(&["a"], &[joint("j", "a", "x")]);
        assert!(message(&unknown).contains("unknown link `x` as child of joint `j`"));
        let two_parents = robot(
            &["a", "b", "c"],
            &[joint("j1", "a", "c"), joint("j2", "b", "c")],
        );
        assert!(message(&two_parents).contains("link `c` is the child of two joints"));
        let looped = robot(
            &["root", "a", "b"],
            &[joint("j1", "a", "b"), joint("j2", "b", "a")],
        );
        let text = message(&looped);
        assert!(text.contains("form a closed loop"), "{text}");
        assert!(text.contains("`j1`") && text.contains("`j2`"), "{text}");
        let self_loop = robot(&["root", "a"], &[joint("j", "a", "a")]);
        assert!(message(&self_loop).contains("the joints `j` form a closed loop"));
    }
}
