//! Drive parameters declared on every joint: what identifying a robot's
//! drives from measured torques asks for when the spec declares none.

use crate::expr::Expr;
use crate::model::{JointKind, Spec};

impl Spec {
    /// The same spec with `armature`, `damping` and `friction` declared
    /// on every revolute and prismatic joint of the spanning tree
    /// (followers included), as zero where the spec gives none: the
    /// dynamics are unchanged, but the standard and base regressors get a
    /// drive column for each (`docs/identification.md`). The other joint
    /// types (a floating base, a ball joint) are rarely driven, and cut
    /// joints have no coordinate: they are left as they are.
    pub fn with_every_drive(&self) -> Spec {
        let mut spec = self.clone();
        for joint in &mut spec.joints {
            let driven = matches!(joint.kind, JointKind::Revolute | JointKind::Prismatic);
            if joint.cut || !driven {
                continue;
            }
            let zero = Expr::number(0.0, joint.span);
            if joint.armature.is_empty() {
                joint.armature = vec![zero.clone()];
            }
            joint.damping.get_or_insert_with(|| zero.clone());
            joint.friction.get_or_insert(zero);
        }
        spec
    }
}
