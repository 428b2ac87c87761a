//! The spec's own standard parameters `π₀`, numerically, at the
//! mechanism's bodies: what `--write-spec` starts from and what tells each
//! tree body's parameters apart from the spec body that holds them.
//!
//! A tree body's standard parameters are in its own frame (the joint frame
//! after the motion) and include the bodies welded to it by fixed joints.
//! Its spec body writes only its own mass properties, in the spec body's
//! frame, which a `child_origin` places elsewhere in the tree body. So each
//! tree body keeps `lumped = π₀ − π₀(own)`, the part that stays as the spec
//! says, and the frame of its spec body, to write the rest back there.

use super::standard::{BodyPrior, DrivePrior, Prior};
use crate::consistency::MassProperties;
use sharnir_mech::formalisms::regressor::PARAMETER_NAMES;
use sharnir_mech::model::drives::DriveKind;
use sharnir_mech::{Input, Mechanism};
use sharnir_spec::Spec;
use std::collections::HashMap;

/// The scale of a drive parameter whose spec value is zero, against its
/// body's (an armature) or one (damping, friction): small, so that an
/// undeclared drive absorbs little of what the data do not tell apart.
const ZERO_DRIVE_SCALE: f64 = 1e-2;

/// `π₀` with what the spec bodies hold of it.
pub(super) struct Model {
    /// `π₀`, its bodies and drives.
    pub(super) prior: Prior,
    /// Per body of the prior: the index of its spec body, and the spec
    /// body's frame in the tree body's (rotation, translation).
    pub(super) frames: Vec<SpecFrame>,
}

/// Where a tree body's parameters are written.
pub(super) struct SpecFrame {
    /// Index into [`Spec::bodies`].
    pub(super) body: usize,
    /// The spec body's orientation in the tree body.
    pub(super) rotation: [[f64; 3]; 3],
    /// The spec body's origin in the tree body.
    pub(super) translation: [f64; 3],
}

/// `π₀` of `mechanism` (derived from `spec`), in the order of `standard`,
/// the base parameters' standard parameter names; an error names what
/// cannot be evaluated or does not match.
pub(super) fn model(
    spec: &Spec,
    mechanism: &Mechanism,
    standard: &[String],
) -> Result<Model, String> {
    let parameters: HashMap<&str, f64> = mechanism
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.default))
        .collect();
    let env = |symbol: &Input| match symbol {
        Input::Parameter(name) => parameters.get(name.as_str()).copied(),
        _ => None,
    };
    let eval = |ids: &[sharnir_cas::Id], what: &str| {
        mechanism
            .pool
            .eval(ids, &env)
            .map_err(|e| format!("{what} cannot be evaluated: {e:?}"))
    };
    let mut values = Vec::new();
    let mut names = Vec::new();
    let mut bodies = Vec::new();
    let mut frames = Vec::new();
    let mut sizes: HashMap<&str, (f64, f64)> = HashMap::new();
    let mut fixed = Vec::new();
    for tree in mechanism.bodies.iter().filter(|b| !b.auxiliary) {
        let what = format!("the mass properties of `{}`", tree.name);
        let mut ids = vec![tree.mass];
        ids.extend(tree.com);
        ids.extend(tree.inertia.iter().flatten());
        let numbers = eval(&ids, &what)?;
        let combined = MassProperties {
            mass: numbers[0],
            com: [numbers[1], numbers[2], numbers[3]],
            inertia: std::array::from_fn(|i| std::array::from_fn(|k| numbers[4 + 3 * i + k])),
        };
        names.extend(PARAMETER_NAMES.iter().map(|p| format!("{}.{p}", tree.name)));
        if spec.moving_base.contains(&tree.name) {
            fixed.extend(values.len()..values.len() + 10);
            values.extend(combined.standard());
            continue;
        }
        let (rotation, translation) = match &tree.body_frame {
            Some(placement) => {
                let mut ids: Vec<sharnir_cas::Id> =
                    placement.rotation.iter().flatten().copied().collect();
                ids.extend(placement.translation);
                let n = eval(&ids, &format!("the frame of `{}`", tree.name))?;
                let rotation = std::array::from_fn(|i| std::array::from_fn(|k| n[3 * i + k]));
                (rotation, [n[9], n[10], n[11]])
            }
            None => (IDENTITY, [0.0; 3]),
        };
        let index = spec
            .bodies
            .iter()
            .position(|b| b.name == tree.name)
            .ok_or_else(|| format!("the tree body `{}` has no spec body", tree.name))?;
        let own = own_mass_properties(spec, index)?.placed(&rotation, translation);
        let prior = combined.standard();
        let own = own.standard();
        let (mass, length) = size(&combined);
        sizes.insert(tree.name.as_str(), (mass, length));
        bodies.push(BodyPrior {
            name: tree.name.clone(),
            offset: values.len(),
            lumped: std::array::from_fn(|i| prior[i] - own[i]),
            scale: crate::consistency::PseudoInertia { mass, length },
        });
        frames.push(SpecFrame {
            body: index,
            rotation,
            translation,
        });
        values.extend(prior);
    }
    let mut drives = Vec::new();
    for drive in &mechanism.drives {
        let value = eval(&[drive.value], &drive.name)?[0];
        let scale = if value != 0.0 && value.is_finite() {
            value.abs()
        } else {
            ZERO_DRIVE_SCALE * reference(spec, &drive.name, drive.kind, &sizes)
        };
        drives.push(DrivePrior {
            name: drive.name.clone(),
            index: values.len(),
            scale,
        });
        values.push(value);
        names.push(drive.name.clone());
    }
    if names != standard {
        return Err(format!(
            "the standard parameters {} do not match the regrouping's {}",
            names.join(", "),
            standard.join(", ")
        ));
    }
    Ok(Model {
        prior: Prior {
            values,
            bodies,
            drives,
            fixed,
        },
        frames,
    })
}

const IDENTITY: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// Spec body `index`'s own mass properties, in its own frame.
pub(super) fn own_mass_properties(spec: &Spec, index: usize) -> Result<MassProperties, String> {
    let body = &spec.bodies[index];
    let value = |expr: &sharnir_spec::Expr| {
        spec.evaluate(expr)
            .map_err(|e| format!("body `{}`: {e}", body.name))
    };
    let i = &body.inertia;
    let mut entries = [0.0; 6];
    for (entry, expr) in entries
        .iter_mut()
        .zip([&i.xx, &i.yy, &i.zz, &i.xy, &i.xz, &i.yz])
    {
        *entry = value(expr)?;
    }
    Ok(MassProperties {
        mass: value(&body.mass)?,
        com: [
            value(&body.com[0])?,
            value(&body.com[1])?,
            value(&body.com[2])?,
        ],
        inertia: crate::consistency::symmetric(entries),
    })
}

/// A body's mass `m₀` and size `ℓ = √(|c|² + tr(I_c) / (2 m₀))` (its
/// centre's distance and its radius of gyration), each 1 where it is not
/// positive.
fn size(body: &MassProperties) -> (f64, f64) {
    let positive = |x: f64| if x > 0.0 && x.is_finite() { x } else { 1.0 };
    let mass = positive(body.mass);
    let trace = body.inertia[0][0] + body.inertia[1][1] + body.inertia[2][2];
    let squared = body.com.iter().map(|x| x * x).sum::<f64>() + trace / (2.0 * mass);
    (mass, positive(squared.sqrt()))
}

/// The scale of a drive parameter of the joint `name` (`<joint>.<what>`)
/// declared zero: its child body's `m₀ ℓ²` for an armature of a rotation,
/// its `m₀` for an armature of a slide, one for damping and friction.
fn reference(spec: &Spec, name: &str, kind: DriveKind, sizes: &HashMap<&str, (f64, f64)>) -> f64 {
    if kind != DriveKind::Armature {
        return 1.0;
    }
    let joint_name = name.split('.').next().unwrap_or(name);
    let Some(joint) = spec.joints.iter().find(|j| j.name == joint_name) else {
        return 1.0;
    };
    let Some(&(mass, length)) = sizes.get(joint.child.as_str()) else {
        return 1.0;
    };
    if matches!(joint.kind, sharnir_spec::JointKind::Prismatic) {
        mass
    } else {
        mass * length * length
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharnir_codegen::plan::outputs::{Function, Outputs};
    use sharnir_codegen::PlanOptions;
    use sharnir_mech::ParameterMode;

    /// `K π₀` is the spec's `β` on bundled specs with fixed joints lumped
    /// into their parents, composite joints, a floating base
    /// and drives on every joint: `π₀` is read in `K`'s order and frames.
    #[test]
    fn the_prior_gives_the_specs_base_parameters() {
        for (file, every_drive) in [
            ("joint_zoo", false),
            ("telegin3_cylindrical", false),
            ("floating_chain", false),
            ("puma560", true),
        ] {
            let path = format!("{}/../../specs/{file}.spec", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).expect("a bundled spec");
            let source = sharnir_spec::Source {
                name: file.to_owned(),
                text,
            };
            let mut spec = sharnir_spec::parse(source).expect("valid");
            if every_drive {
                spec = spec.with_every_drive();
            }
            let mut mechanism =
                Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("a mechanism");
            let options = PlanOptions {
                outputs: Some(
                    Outputs::NONE
                        .with(Function::Regressor)
                        .with(Function::BaseParameters),
                ),
                ..PlanOptions::default()
            };
            let plan = sharnir_codegen::plan(&mut mechanism, &options).expect("plans");
            let facts = plan.base_parameters().expect("facts");
            let model = model(&spec, &mechanism, &facts.standard).expect("a prior");
            let defaults: HashMap<String, f64> = mechanism
                .parameters
                .iter()
                .map(|p| (p.name.clone(), p.default))
                .collect();
            let beta = plan
                .evaluate("base_parameters", &|input: &Input| match input {
                    Input::Parameter(name) => defaults.get(name).copied(),
                    _ => None,
                })
                .expect("β");
            let largest = beta.iter().fold(1.0_f64, |m, b| m.max(b.abs()));
            for ((name, terms), expected) in facts.names.iter().zip(&facts.coefficients).zip(&beta)
            {
                let got: f64 = terms.iter().map(|&(k, c)| c * model.prior.values[k]).sum();
                assert!(
                    (got - expected).abs() < 1e-10 * largest,
                    "{file}: {name} = {got}, expected {expected}"
                );
            }
            for body in &model.prior.bodies {
                let own: [f64; 10] =
                    std::array::from_fn(|i| model.prior.values[body.offset + i] - body.lumped[i]);
                let consistent =
                    crate::consistency::violations(&MassProperties::from_standard(&own));
                assert!(
                    consistent.is_empty(),
                    "{file}: {}: {consistent:?}",
                    body.name
                );
            }
        }
    }
}
