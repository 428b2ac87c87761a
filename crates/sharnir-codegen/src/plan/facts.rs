//! What a plan keeps of its mechanism for rendering: the module's
//! [`Facts`] and the header's [`HeaderFacts`], read once at plan time so
//! that rendering never sees the mechanism.

use super::contacts;
use crate::vocabulary::{Facts, HeaderFacts, LoopFacts, Rotation};
use sharnir_mech::{JointKind, Mechanism};

impl Facts {
    /// What rendering reads of `mechanism`, with the `loops` planning
    /// found: the plan keeps these rather than the mechanism.
    pub(crate) fn of(mechanism: &Mechanism, loops: Option<LoopFacts>) -> Facts {
        Facts {
            loops,
            contacts: contacts::facts(mechanism),
            detachments: mechanism.detachments.clone(),
            rotations: mechanism
                .bodies
                .iter()
                .filter(|b| b.coupling.is_none())
                .filter_map(|b| match b.kind {
                    JointKind::Spherical => Some(Rotation::Spherical {
                        velocity: b.velocity,
                    }),
                    JointKind::Free => Some(Rotation::Free {
                        velocity: b.velocity,
                    }),
                    JointKind::Revolute | JointKind::Prismatic => None,
                })
                .collect(),
            joint_forces: !mechanism.contacts.is_empty() || mechanism.friction_forces.is_some(),
            applied_forces: mechanism.applied_forces.is_some(),
            prescribed: mechanism
                .motion
                .iter()
                .map(|m| (m.velocity, m.position))
                .collect(),
            base_parameters: None,
            branch_renamings: super::branches::branch_renamings(mechanism),
            dof: mechanism.dof(),
            nq: mechanism.nq(),
            coordinates: mechanism.coordinates.clone(),
            positions: mechanism.positions.clone(),
            quaternions: mechanism.quaternions.clone(),
            initial_positions: mechanism.initial_positions.clone(),
            initial_velocities: mechanism.initial_velocities.clone(),
            drive_parameters: Vec::new(),
            body_names: mechanism
                .spec_bodies()
                .map(|(_, b)| b.name.clone())
                .collect(),
            parameters: mechanism
                .parameters
                .iter()
                .map(|p| (p.name.clone(), p.default))
                .collect(),
        }
    }
}

impl HeaderFacts {
    /// The header facts of `mechanism`.
    pub(crate) fn of(mechanism: &Mechanism) -> HeaderFacts {
        HeaderFacts {
            source_name: mechanism.source_name.clone(),
            source_digest: mechanism.source_digest,
            description: mechanism.description.clone(),
            followers: mechanism
                .bodies
                .iter()
                .filter_map(|b| {
                    let coupling = b.coupling.as_ref()?;
                    Some((b.joint.clone(), coupling.leader.clone()))
                })
                .collect(),
            independent_chosen: mechanism.independent_chosen,
        }
    }
}
