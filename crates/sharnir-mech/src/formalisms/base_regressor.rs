//! The base parameters `β` and the minimal regressor `Y_b`, `τ = Y_b β`:
//! the combinations of inertial parameters that the joint forces determine,
//! which is what identification from measured torques can find.
//!
//! Two steps. First the symbolic regrouping of
//! [`crate::formalisms::base_parameters`], applied to the ten standard
//! parameters of every body as symbols: every regrouped parameter that is
//! not structurally zero is a candidate, a linear combination of the
//! standard parameters whose coefficients are geometry (exact for every
//! value of the geometric parameters), and its column is the derivative of
//! Newton–Euler's joint forces in that parameter of that body (the massless
//! auxiliary bodies of composite joints included, since regrouping moves
//! inertia into them). Then a numeric completion
//! ([`crate::formalisms::column_selection`]): the candidate columns sampled
//! at random states with the spec's parameter values, and those that are
//! zero or depend on earlier ones dropped. A dependent column is folded
//! into the parameters it depends on (`β_i += k_i β_dropped`, columns
//! unchanged) when its coefficients are small rationals, or when they hold
//! unchanged at perturbed values of the runtime parameters (a fixed
//! rotation's cosines); one whose coefficients change with the geometry is
//! kept as a parameter of its own and reported in
//! [`BaseParameters::inexact`]. Last, a base parameter that is a
//! combination of others as a function of the standard parameters is
//! merged into them (`dependent_base_parameters.rs`).
//! The completion holds at the spec's geometry: a geometric parameter
//! changed at run time to a value that makes a dropped column nonzero
//! again leaves `Y_b` short of it.
//!
//! The drive parameters the spec declares ([`crate::model::drives`]:
//! armature, damping, friction) are candidates too, after the bodies', each
//! its own symbol with its own column, so that `τ = Y_b β` is the force the
//! drives supply, `inverse_dynamics − friction_forces`. An armature whose
//! column is a body's (the first joint's, its axis fixed in the ground) is
//! folded into it: `link1.zz_r = link1.zz + … + j1.armature`.
//!
//! Names: a base parameter is named after the body it is regrouped on and
//! the standard parameter it started from (Pinocchio's `m`, `mx`, `my`,
//! `mz`, `xx`, `xy`, `yy`, `xz`, `yz`, `zz`, body axes, about the body
//! origin), `link2.mx`; with `_r` (Khalil's "R") when it is not that
//! parameter alone, `link2.xx_r = link2.xx − link2.yy`. An auxiliary body is
//! named after the body it leads to and its place in the chain (`link.1`).
//! A drive parameter keeps its name (`j2.armature`, `j2.damping`), with
//! `_r` when others are folded into it.

use crate::formalisms::base_parameters::{base_inertias, regroup, RigidInertia};
use crate::formalisms::column_selection::{classify, reproduces, Column, ZERO_TOLERANCE};
use crate::formalisms::dependent_base_parameters;
use crate::formalisms::notation::Signed;
use crate::formalisms::regressor::PARAMETER_NAMES;
use crate::formalisms::regressor_sampling::{
    perturbed_values, sample, spec_values, PERTURBED_GEOMETRIES,
};
use crate::formalisms::rnea::{inverse_dynamics_of_inertias, PointAcceleration};
use crate::model::inputs::Input;
use crate::Mechanism;
use sharnir_cas::{Coeff, Id, Pool, UnboundSymbol};

/// One base parameter.
#[derive(Clone, Debug)]
pub struct BaseParameter {
    /// `link2.xx_r`: see the module documentation.
    pub name: String,
    /// Its regrouping formula: `(k, c)` for `β = Σ c πₖ`, `k` a column of
    /// the standard regressor ([`BaseParameters::standard`]), `c` geometry
    /// (numbers, or expressions in the runtime parameters), in column order.
    pub formula: Vec<(usize, Id)>,
    /// Its value from the bodies' own inertias (what `base_parameters`
    /// returns), by regrouping their values rather than through
    /// [`BaseParameter::formula`]: the two are checked against each other.
    pub value: Id,
    /// Its column of `Y_b`, one entry per velocity coordinate.
    pub column: Vec<Id>,
    /// The parameters of the mechanism it stands in for, with their
    /// weights: its column is the weighted sum of theirs, and
    /// [`crate::formalisms::customised_newton_euler`] adds it, weighted, to
    /// each. The first is its own, weight one; others are those of base
    /// parameters merged into it (`dependent_base_parameters.rs`).
    pub carriers: Vec<(Carrier, Coeff)>,
}

/// Where a base parameter sits in the mechanism: its column is the
/// derivative of the joint forces in that one parameter, so a mechanism
/// whose carriers hold the base parameters (and whose other inertial and
/// drive parameters are zero) has the joint forces `Y_b β`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carrier {
    /// Entry `entry` (Pinocchio's order: `m`, `mx`, `my`, `mz`, `xx`, `xy`,
    /// `yy`, `xz`, `yz`, `zz`, about the body origin) of the inertia of
    /// tree body `body` ([`Mechanism::bodies`], auxiliary bodies included).
    Inertia {
        /// The tree body.
        body: usize,
        /// The entry of its inertia.
        entry: usize,
    },
    /// Drive parameter `k` of [`Mechanism::drives`].
    Drive(usize),
}

/// The base parameters of a mechanism, in the order of `Y_b`'s columns:
/// bodies in [`Mechanism::bodies`] order, each body's in Pinocchio's order.
#[derive(Clone, Debug)]
pub struct BaseParameters {
    /// The standard parameters the formulas read, in the order of the
    /// standard regressor's columns: `<body>.<m, mx, …>`, ten per spec body,
    /// then the drive parameters.
    pub standard: Vec<String>,
    /// The base parameters.
    pub parameters: Vec<BaseParameter>,
    /// The base parameters whose columns depend on others with
    /// coefficients that change with the runtime parameters: kept, so that
    /// `τ = Y_b β` stays exact whatever their values, but not identifiable
    /// apart from the others at the spec's.
    pub inexact: Vec<String>,
    /// The rank of the sampled regressor in the standard parameters,
    /// `Y_b ∂β/∂π`: the number of identifiable combinations, below the
    /// number of base parameters only where some are kept inexactly.
    pub rank: usize,
}

/// A formula's numeric coefficient at most this fraction of its largest is
/// rounding's (a few units of the last place), and left out of the formula.
const NEGLIGIBLE: f64 = 1e-13;

/// The base parameters of `mechanism` and their columns; an error only if a
/// column reads an input that has no value (a bug).
pub fn base_parameters(mechanism: &mut Mechanism) -> Result<BaseParameters, UnboundSymbol> {
    let (symbols, standard_symbols, standard) = symbols(mechanism);
    let symbolic: Vec<RigidInertia> = {
        let pool = &mut mechanism.pool;
        mechanism
            .bodies
            .iter()
            .zip(&symbols)
            .map(|(body, own)| {
                if body.auxiliary {
                    RigidInertia::zero(pool)
                } else {
                    inertia_of(own)
                }
            })
            .collect()
    };
    let regrouped = regroup(mechanism, symbolic);
    let body_candidates: Vec<(usize, usize, Id)> = regrouped
        .iter()
        .enumerate()
        .flat_map(|(b, inertia)| (0..10).map(move |k| (b, k, entry(inertia, k))))
        .filter(|&(_, _, e)| !mechanism.pool.is_zero(e))
        .collect();
    // The bodies' candidates, then every drive parameter's (its own symbol).
    let drive_symbols = &standard_symbols[standard_symbols.len() - mechanism.drives.len()..];
    let expressions: Vec<Id> = body_candidates
        .iter()
        .map(|c| c.2)
        .chain(drive_symbols.iter().copied())
        .collect();
    // Each candidate's coefficients over the standard parameters.
    let by_standard: Vec<Vec<Id>> = standard_symbols
        .iter()
        .map(|&s| mechanism.pool.diff_all(&expressions, s))
        .collect();
    // Each body candidate's column: Newton–Euler with every tree body's
    // inertia symbolic, differentiated in the candidate's symbol; each
    // drive's its own.
    let all: Vec<RigidInertia> = symbols.iter().map(inertia_of).collect();
    let tau = inverse_dynamics_of_inertias(mechanism, &all, PointAcceleration::CrossProducts);
    let mut columns: Vec<Vec<Id>> = body_candidates
        .iter()
        .map(|&(b, k, _)| mechanism.pool.diff_all(&tau, symbols[b][k]))
        .collect();
    let nv = tau.len();
    let Mechanism { pool, drives, .. } = &mut *mechanism;
    columns.extend(drives.iter().map(|d| d.column(pool, nv)));
    let sampled = sample(mechanism, &columns, &spec_values(mechanism))?;
    let classes = fold_constant_dependencies(mechanism, &columns, &sampled, classify(&sampled))?;
    let actual = base_inertias(mechanism);
    // Per candidate: its name before the suffix, the standard parameter it
    // is alone (`None` for an auxiliary body's) and its value.
    let mut named: Vec<(String, Option<Id>)> = body_candidates
        .iter()
        .map(|&(b, k, _)| {
            let body = &mechanism.bodies[b];
            let name = format!("{}.{}", body.name, PARAMETER_NAMES[k]);
            (name, (!body.auxiliary).then_some(symbols[b][k]))
        })
        .collect();
    named.extend(
        mechanism
            .drives
            .iter()
            .zip(drive_symbols)
            .map(|(d, &s)| (d.name.clone(), Some(s))),
    );
    let mut values: Vec<Id> = body_candidates
        .iter()
        .map(|&(b, k, _)| entry(&actual[b], k))
        .chain(mechanism.drives.iter().map(|d| d.value))
        .collect();
    let pool = &mut mechanism.pool;
    // Formulas (coefficient per standard parameter) and values, folded.
    let mut formulas: Vec<Vec<Id>> = (0..expressions.len())
        .map(|j| by_standard.iter().map(|c| c[j]).collect())
        .collect();
    for (d, class) in classes.iter().enumerate() {
        let Column::Combination(terms) = class else {
            continue;
        };
        for &(j, c) in terms {
            let folded = pool.scale(c, values[d]);
            values[j] = pool.add(values[j], folded);
            let source = formulas[d].clone();
            for (entry, &term) in formulas[j].iter_mut().zip(&source) {
                let folded = pool.scale(c, term);
                *entry = pool.add(*entry, folded);
            }
        }
    }
    let mut parameters = Vec::new();
    let mut inexact = Vec::new();
    for (j, class) in classes.iter().enumerate() {
        if !matches!(class, Column::Independent | Column::Inexact(_)) {
            continue;
        }
        // A numeric coefficient below `NEGLIGIBLE` of the formula's largest
        // is what rounding leaves of a zero (`cos²(π/4) − sin²(π/4)` of a
        // rotated frame), not a term.
        let largest = formulas[j]
            .iter()
            .filter_map(|&c| pool.as_num(c))
            .fold(0.0_f64, |m, c| m.max(c.to_f64().abs()));
        let formula: Vec<(usize, Id)> = formulas[j]
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, c)| {
                !pool.is_zero(c)
                    && pool
                        .as_num(c)
                        .is_none_or(|n| n.to_f64().abs() > NEGLIGIBLE * largest)
            })
            .collect();
        let (stem, own) = &named[j];
        let alone = match formula.as_slice() {
            [(i, c)] => {
                pool.as_num(*c).is_some_and(Coeff::is_one) && *own == Some(standard_symbols[*i])
            }
            _ => false,
        };
        let suffix = if alone { "" } else { "_r" };
        let name = format!("{stem}{suffix}");
        if matches!(class, Column::Inexact(_)) {
            inexact.push(name.clone());
        }
        let carrier = match body_candidates.get(j) {
            Some(&(body, entry, _)) => Carrier::Inertia { body, entry },
            None => Carrier::Drive(j - body_candidates.len()),
        };
        parameters.push(BaseParameter {
            name,
            formula,
            value: values[j],
            column: columns[j].clone(),
            carriers: vec![(carrier, Coeff::ONE)],
        });
    }
    let kept_formulas: Vec<Vec<(usize, Id)>> =
        parameters.iter().map(|p| p.formula.clone()).collect();
    let mut kept_columns: Vec<Vec<Id>> = parameters.iter().map(|p| p.column.clone()).collect();
    let mut carriers: Vec<Vec<(Carrier, Coeff)>> =
        parameters.iter().map(|p| p.carriers.clone()).collect();
    let merged = dependent_base_parameters::merge(
        mechanism,
        &kept_formulas,
        standard.len(),
        &mut kept_columns,
        &mut carriers,
    )?;
    let parameters: Vec<BaseParameter> = parameters
        .into_iter()
        .zip(kept_columns.into_iter().zip(carriers))
        .zip(merged)
        .filter(|(_, merged)| !merged)
        .map(|((parameter, (column, carriers)), _)| BaseParameter {
            column,
            carriers,
            ..parameter
        })
        .collect();
    inexact.retain(|name| parameters.iter().any(|p| &p.name == name));
    let rank = rank_of_formulas(mechanism, &classes, &formulas, &sampled)?;
    Ok(BaseParameters {
        standard,
        parameters,
        inexact,
        rank,
    })
}

/// The rank of `Σ_j Y_j ∂β_j/∂π` over the kept candidates, sampled: the
/// formulas' coefficients at the spec's parameter values times the sampled
/// columns.
fn rank_of_formulas(
    mechanism: &Mechanism,
    classes: &[Column],
    formulas: &[Vec<Id>],
    sampled: &[Vec<f64>],
) -> Result<usize, UnboundSymbol> {
    let values = spec_values(mechanism);
    let env = |symbol: &Input| match symbol {
        Input::Parameter(name) => values.get(name.as_str()).copied(),
        _ => None,
    };
    let rows = sampled.first().map_or(0, Vec::len);
    let width = formulas.first().map_or(0, Vec::len);
    let mut combined = vec![vec![0.0; rows]; width];
    for (j, class) in classes.iter().enumerate() {
        if !matches!(class, Column::Independent | Column::Inexact(_)) {
            continue;
        }
        let coefficients = mechanism.pool.eval(&formulas[j], &env)?;
        for (column, c) in combined.iter_mut().zip(coefficients) {
            if c != 0.0 {
                for (x, y) in column.iter_mut().zip(&sampled[j]) {
                    *x += c * y;
                }
            }
        }
    }
    Ok(classify(&combined)
        .iter()
        .filter(|c| **c == Column::Independent)
        .count())
}

/// Every tree body's ten parameter symbols (`<body>.<m, mx, …>`), and the
/// standard parameters' symbols and names in the standard regressor's
/// column order: the spec bodies' ten each, then the drive parameters.
fn symbols(mechanism: &mut Mechanism) -> (Vec<[Id; 10]>, Vec<Id>, Vec<String>) {
    let Mechanism {
        pool,
        bodies,
        drives,
        ..
    } = mechanism;
    let mut standard = Vec::new();
    let mut names = Vec::new();
    let symbols = bodies
        .iter()
        .map(|body| {
            let own: [Id; 10] = std::array::from_fn(|k| {
                pool.input(Input::Named(format!(
                    "{}.{}",
                    body.name, PARAMETER_NAMES[k]
                )))
            });
            if !body.auxiliary {
                standard.extend(own);
                names.extend(PARAMETER_NAMES.iter().map(|p| format!("{}.{p}", body.name)));
            }
            own
        })
        .collect();
    for drive in drives.iter() {
        standard.push(pool.input(Input::Named(drive.name.clone())));
        names.push(drive.name.clone());
    }
    (symbols, standard, names)
}

/// The inertia whose ten parameters are `own`, in Pinocchio's order.
pub(crate) fn inertia_of(own: &[Id; 10]) -> RigidInertia {
    let [m, mx, my, mz, xx, xy, yy, xz, yz, zz] = *own;
    RigidInertia {
        mass: m,
        first_moment: [mx, my, mz],
        rotational: [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]],
    }
}

/// Parameter `k` of an inertia, in Pinocchio's order.
fn entry(inertia: &RigidInertia, k: usize) -> Id {
    let (h, i) = (inertia.first_moment, inertia.rotational);
    match k {
        0 => inertia.mass,
        1..=3 => h[k - 1],
        4 => i[0][0],
        5 => i[0][1],
        6 => i[1][1],
        7 => i[0][2],
        8 => i[1][2],
        _ => i[2][2],
    }
}

/// `classes` with every [`Column::Inexact`] dependency that holds with the
/// same coefficients at [`PERTURBED_GEOMETRIES`] other geometries turned
/// into a [`Column::Combination`] with those (inexact) coefficients: a
/// fixed rotation's cosines do not change with the runtime parameters, a
/// ratio of lengths does, and stays a parameter of its own. A folded
/// module has no runtime parameters, so every dependency there is
/// constant.
fn fold_constant_dependencies(
    mechanism: &Mechanism,
    columns: &[Vec<Id>],
    sampled: &[Vec<f64>],
    mut classes: Vec<Column>,
) -> Result<Vec<Column>, UnboundSymbol> {
    if !classes.iter().any(|c| matches!(c, Column::Inexact(_))) {
        return Ok(classes);
    }
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut elsewhere = Vec::new();
    for draw in 1..=PERTURBED_GEOMETRIES {
        elsewhere.push(sample(
            mechanism,
            columns,
            &perturbed_values(mechanism, draw),
        )?);
    }
    for (d, class) in classes.iter_mut().enumerate() {
        let Column::Inexact(terms) = class else {
            continue;
        };
        let constant = reproduces(&sampled[d], sampled, terms)
            && elsewhere.iter().all(|s| reproduces(&s[d], s, terms));
        if constant {
            // A coefficient that moves the column by less than rounding
            // would is zero.
            let size = norm(&sampled[d]);
            let exact = terms
                .iter()
                .filter(|&&(k, c)| c.abs() * norm(&sampled[k]) > ZERO_TOLERANCE * size)
                .map(|&(k, c)| (k, Coeff::inexact(c)))
                .collect();
            *class = Column::Combination(exact);
        }
    }
    Ok(classes)
}

/// `Σ c πₖ` of a formula, each coefficient printed by `coefficient`, as
/// `link1.zz + link2.yy + 0.25·link3.m`: the text of the module header and
/// of `sharnir base-parameters`.
pub fn formula_text(
    pool: &Pool,
    parameter: &BaseParameter,
    standard: &[String],
    coefficient: &dyn Fn(&Pool, Id) -> Signed,
) -> String {
    let mut text = String::new();
    for &(k, c) in &parameter.formula {
        let name = standard.get(k).map_or("?", String::as_str);
        let signed = coefficient(pool, c);
        let sign = match (text.is_empty(), signed.negative) {
            (true, false) => "",
            (true, true) => "−",
            (false, false) => " + ",
            (false, true) => " − ",
        };
        text.push_str(sign);
        match signed.magnitude {
            None => text.push_str(name),
            Some(m) => {
                text.push_str(&m);
                text.push('·');
                text.push_str(name);
            }
        }
    }
    if text.is_empty() {
        text.push('0');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formalisms::notation::coefficient;
    use crate::model::ParameterMode;

    /// A planar double pendulum about z with gravity along −y, the elbow's
    /// offset a runtime parameter.
    const DOUBLE_PENDULUM: &str = r#"
        [mechanism]
        name = "double_pendulum"
        gravity = [0, -9.81, 0]

        [parameters]
        l1 = 0.5

        [[body]]
        name = "upper"
        mass = 1.5
        com = [0.2, 0, 0.1]
        inertia = [0.01, 0.02, 0.03]

        [[body]]
        name = "lower"
        mass = 0.7
        com = [0.3, 0, 0]
        inertia = [0.004, 0.005, 0.006]

        [[joint]]
        name = "shoulder"
        type = "revolute"
        parent = "ground"
        child = "upper"
        axis = [0, 0, 1]

        [[joint]]
        name = "elbow"
        type = "revolute"
        parent = "upper"
        child = "lower"
        origin = { xyz = ["l1", 0, 0] }
        axis = [0, 0, 1]
    "#;

    #[test]
    fn double_pendulum_has_khalils_six_base_parameters() {
        let source = sharnir_spec::Source {
            name: "test.spec".to_owned(),
            text: DOUBLE_PENDULUM.to_owned(),
        };
        let spec = sharnir_spec::parse(source).expect("test spec is valid");
        let mut mechanism =
            Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("test spec is a tree");
        let base = base_parameters(&mut mechanism).expect("columns evaluate");
        let text: Vec<String> = base
            .parameters
            .iter()
            .map(|p| {
                let formula = formula_text(&mechanism.pool, p, &base.standard, &coefficient);
                format!("{} = {formula}", p.name)
            })
            .collect();
        assert_eq!(
            text,
            [
                "upper.mx_r = upper.mx + l1·lower.m",
                "upper.my = upper.my",
                // The lower rod's YY goes to the upper's XX and YY (Khalil's
                // rules at α = 0), which its joint on the ground cannot feel.
                "upper.zz_r = upper.zz + l1²·lower.m",
                "lower.mx = lower.mx",
                "lower.my = lower.my",
                "lower.zz = lower.zz",
            ]
        );
        assert!(base.inexact.is_empty());
    }
}
