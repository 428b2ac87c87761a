//! Rotation of a revolute joint about its axis.
//!
//! Kept apart from placement parsing because the joint rotation is the one
//! rotation that depends on a coordinate; later formalisms (direction
//! cosines, quaternions for spherical joints) add their own here.

use crate::mechanism::rodrigues;
use crate::vec3::{Mat3, Vec3};
use sharnir_cas::{Id, Pool};

/// Rotation by the joint angle `q` about the unit `axis` (joint to body
/// frame orientation, expressed in the joint frame).
pub fn joint_rotation(pool: &mut Pool, axis: Vec3, q: Id) -> Mat3 {
    rodrigues(pool, axis, q)
}
