//! Detachable joints as the generated module describes them: which variant
//! module the mechanism continues in, on what condition, and how the state
//! maps onto it.
//!
//! The variant is the spec's [`Spec::release`]: a tree joint is replaced in
//! place by a free joint carrying its child, so the state maps by keeping
//! every other coordinate and writing the child's pose and body-frame
//! velocity into the free joint's; a cut joint is dropped and the state
//! maps unchanged. The reaction a condition watches is Newton–Euler's
//! (see [`crate::formalisms::rnea::joint_reactions`]).

use sharnir_spec::{Release, Spec, SpecError};

/// When a detachable joint lets go, with the thresholds evaluated at the
/// parameters' spec values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ReleaseCondition {
    /// At this time (s).
    At(f64),
    /// When reaction component `component` (fx fy fz mx my mz) rises
    /// through `threshold`.
    Above {
        /// 0–2 the force, 3–5 the moment.
        component: usize,
        /// N or N·m.
        threshold: f64,
    },
    /// When reaction component `component` falls through `threshold`.
    Below {
        /// 0–2 the force, 3–5 the moment.
        component: usize,
        /// N or N·m.
        threshold: f64,
    },
}

/// One detachable joint of a mechanism.
#[derive(Clone, Debug, PartialEq)]
pub struct Detachment {
    /// The joint's name.
    pub joint: String,
    /// The module the mechanism continues in once the joint lets go.
    pub variant: String,
    /// When it lets go.
    pub condition: ReleaseCondition,
    /// For a tree joint, the index of its child among the module's bodies
    /// (`BODY_NAMES`), which moves on a free joint in the variant; `None`
    /// for a cut joint.
    pub body: Option<usize>,
    /// The joint's coordinates in `q`: first index and count (the free
    /// joint's seven take their place in the variant).
    pub positions: (usize, usize),
    /// The joint's coordinates in `q̇`: first index and count (the free
    /// joint's six take their place).
    pub velocities: (usize, usize),
}

/// The detachable joints of `spec`, in spec order; `bodies` are the
/// module's body names in their order.
pub(crate) fn detachments(spec: &Spec, bodies: &[String]) -> Result<Vec<Detachment>, SpecError> {
    let first = spec.first_coordinates();
    let mut detachments = Vec::new();
    for (index, joint) in spec.joints.iter().enumerate() {
        let Some(detach) = &joint.detach else {
            continue;
        };
        let condition = match &detach.release {
            Release::At(time) => ReleaseCondition::At(spec.evaluate(time)?),
            Release::Reaction {
                component,
                threshold,
                rising,
            } => {
                let (component, threshold) = (*component, spec.evaluate(threshold)?);
                if *rising {
                    ReleaseCondition::Above {
                        component,
                        threshold,
                    }
                } else {
                    ReleaseCondition::Below {
                        component,
                        threshold,
                    }
                }
            }
        };
        let (position, velocity) = first.get(index).copied().unwrap_or_default();
        detachments.push(Detachment {
            joint: joint.name.clone(),
            variant: spec.variant_name(&joint.name),
            condition,
            body: (!joint.cut)
                .then(|| bodies.iter().position(|b| *b == joint.child))
                .flatten(),
            positions: (position, joint.nq()),
            velocities: (velocity, joint.nv()),
        });
    }
    Ok(detachments)
}
