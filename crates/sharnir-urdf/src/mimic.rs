//! `<mimic>` tags → coupled coordinates: every kept follower joint is tied
//! to a kept leader joint that has a coordinate of its own.
//!
//! URDF lets a follower mimic another follower; the spec format does not
//! (one coupling per follower keeps the generated equations flat), so chains
//! are composed here: `q_b = m_b q_a + o_b` and `q_a = m_a q_c + o_a` give
//! `q_b = m_b m_a q_c + (m_b o_a + o_b)`.

use crate::error::Problem;
use crate::model::{Inboard, Model};
use crate::read::Robot;

/// A follower's coupling, chains composed: `q = multiplier · q_leader + offset`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Coupling {
    /// Index of the leader in `Robot::joints`: a kept revolute, continuous
    /// or prismatic joint without a `<mimic>`.
    pub leader: usize,
    pub multiplier: f64,
    pub offset: f64,
}

/// For every joint of `robot`, its coupling when it is a kept follower.
/// Followers dropped with a massless leaf link need none.
pub(crate) fn resolve(robot: &Robot, model: &Model) -> Result<Vec<Option<Coupling>>, Problem> {
    let kept: Vec<bool> = (0..robot.joints.len())
        .map(|j| model.bodies.iter().any(|b| b.inboard == Inboard::Joint(j)))
        .collect();
    let mut couplings = vec![None; robot.joints.len()];
    for (j, joint) in robot.joints.iter().enumerate() {
        if joint.mimic.is_none() || !kept[j] {
            continue;
        }
        couplings[j] = Some(follow(robot, &kept, j)?);
    }
    Ok(couplings)
}

/// Walks from follower `start` to the first joint without a `<mimic>`,
/// composing the affine maps on the way.
fn follow(robot: &Robot, kept: &[bool], start: usize) -> Result<Coupling, Problem> {
    let mut coupling = Coupling {
        leader: start,
        multiplier: 1.0,
        offset: 0.0,
    };
    let mut visited = vec![start];
    while let Some(mimic) = &robot.joints[coupling.leader].mimic {
        let follower = &robot.joints[coupling.leader];
        if !follower.kind.single_coordinate() {
            return Err(Problem::new(
                mimic.span,
                format!(
                    "joint `{}` is {} and cannot mimic another joint",
                    follower.name,
                    follower.kind.urdf_name()
                ),
                "a follower needs a single coordinate",
                "only revolute, continuous and prismatic joints can mimic; remove the <mimic>",
            ));
        }
        let Some(leader) = robot.joints.iter().position(|j| j.name == mimic.joint) else {
            return Err(Problem::new(
                mimic.joint_span,
                format!(
                    "joint `{}` mimics an unknown joint `{}`",
                    follower.name, mimic.joint
                ),
                "no <joint> has this name",
                "name the joint whose value drives this one in <mimic joint=\"...\">",
            ));
        };
        if visited.contains(&leader) {
            return Err(Problem::new(
                mimic.joint_span,
                format!(
                    "the <mimic> tags of joint `{}` form a cycle",
                    robot.joints[start].name
                ),
                "leads back to a follower already visited",
                "one joint of the cycle must be a leader without <mimic>",
            ));
        }
        visited.push(leader);
        coupling = Coupling {
            leader,
            multiplier: coupling.multiplier * mimic.multiplier,
            offset: coupling.multiplier * mimic.offset + coupling.offset,
        };
        let target = &robot.joints[leader];
        if !target.kind.single_coordinate() {
            return Err(Problem::new(
                mimic.joint_span,
                format!(
                    "joint `{}` mimics `{}`, a {} joint",
                    follower.name,
                    target.name,
                    target.kind.urdf_name()
                ),
                "the leader needs a single coordinate",
                "a leader is a revolute, continuous or prismatic joint",
            ));
        }
        if target.mimic.is_none() && !kept[leader] {
            return Err(Problem::new(
                mimic.joint_span,
                format!(
                    "joint `{}` mimics `{}`, which moves a massless leaf link and is dropped",
                    follower.name, target.name
                ),
                "the leader has no coordinate",
                "give the leader's child link an <inertial>, or mimic a joint that moves mass",
            ));
        }
    }
    Ok(coupling)
}
