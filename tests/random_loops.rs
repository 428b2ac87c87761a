//! 100 seeded random mechanisms with closed loops
//! (`support/random_loop_spec.rs`: random trees of 2 to 6 bodies plus one
//! or two closing joints of every type but free, each placed so that its
//! loop closes at a random configuration `q*`, which the spec's `[initial]`
//! names, and every one free to move there) through the symbolic
//! loop-closure derivation: spec text → parser (which finds or reads the
//! cut joints) → `Mechanism::from_spec` (which derives the loop equations
//! and their mobility, `Mechanism::loops`) → straight-line programs
//! (`sharnir_cas::Program`, the emitter's input) → numbers.
//!
//! For every mechanism:
//!
//! - `Mechanism::from_spec` accepts it: any refusal (a loop that cannot
//!   close, loops that lock the mechanism, anything else) fails;
//! - the parsed initial positions are `q*` exactly, and the cut joints are
//!   the generator's closing joints;
//! - the degrees of freedom of `Mechanism::loops` (tree coordinates less the
//!   rank of `J` at the initial configuration) are those the generator finds
//!   numerically from the tree's poses alone;
//! - the symbolic rows are, in order, rows of the numeric loop oracle
//!   (`support/loop_oracle.rs`) by name;
//! - `Ψ(q*)` is below 1e-10 in every symbolic row and in every oracle row
//!   (the generator's closure and the oracle agree);
//! - at `q*` and 5 random states (not assembled; `Ψ`, `J` and `J̇ v` are
//!   exact functions everywhere): `Ψ` against the oracle to 1e-10 relative to
//!   `max(1, ‖Ψ‖∞)`; the oracle's rows that the derivation dropped (as
//!   identically zero, or as constants of rounding size) are below 1e-10; the
//!   oracle's two placements of the spec bodies (numeric tree plus child
//!   origins, and its own forward kinematics from the spec) agree to 1e-10;
//! - `J` column by column against fourth-order central differences of `Ψ`
//!   along each velocity coordinate, moving on the configuration manifold
//!   (`Tree::integrate`: quaternions turn by the exact exponential), and
//!   `J̇ v` against fourth-order central differences of `J(q(s)) v` along
//!   `q(s) = q ⊕ s v`, both to 1e-6 relative.
//!
//! - the planned `constrained_residual_derivatives` (the closed
//!   mechanism's derivatives are solved from them) against central
//!   differences of the residuals built from the plan's own programs, at
//!   one random state with random `q̈` and `λ`, to 1e-6.
//!
//! `spherical_cut_joints_parse` checks that the parser takes the spherical
//! cut joints of these specs as written.
//!
//! A failure prints the spec text and the state, so it can be reproduced
//! with `cargo xtask gen` on the printed spec.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sharnir_cas::{Id, Program};
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_spec::{JointKind, Spec};
use sharnir_tests::derivatives::{by_position, by_vector};
use sharnir_tests::geometry::Frame;
use sharnir_tests::loop_oracle::LoopOracle;
use sharnir_tests::oracle::{relative_error, Sampling};
use sharnir_tests::random_loop_spec::{random_loop_spec, RandomLoop, MAX_BODIES};
use std::collections::BTreeMap;

/// How many random mechanisms are checked: 100, the slice CI runs, or
/// `$SHARNIR_RANDOM_LOOPS` (the long run of docs/derivatives.md).
fn mechanisms() -> u64 {
    std::env::var("SHARNIR_RANDOM_LOOPS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100)
}
/// The mechanisms are split into this many tests, so both cores work.
const SHARDS: u64 = 4;
/// Random states per mechanism, besides `q*`.
const STATES: usize = 5;
/// `Ψ(q*)`, absolute.
const CLOSURE_TOLERANCE: f64 = 1e-10;
/// `Ψ` against the oracle, relative to `max(1, ‖Ψ‖∞)`.
const ORACLE_TOLERANCE: f64 = 1e-10;
/// `J` and `J̇ v` against finite differences, relative.
const DIFFERENCE_TOLERANCE: f64 = 1e-6;
/// Step of the finite differences.
const STEP: f64 = 1e-3;

/// The loop-closure outputs of one mechanism, lowered.
struct Pipeline {
    rows: Vec<String>,
    nv: usize,
    /// Of `Mechanism::loops`, at the spec's initial configuration.
    degrees_of_freedom: usize,
    /// `Ψ`, over `q`.
    constraints: Program,
    /// `J` row by row, over `q`.
    jacobian: Program,
    /// `J̇ v`, over `q` and `v`.
    bias: Program,
    /// The same by one derivative walk (`LoopClosure::bias_by_one_walk`).
    bias_by_one_walk: Program,
}

/// Symbol values: parameters by name, `q` and `v` by index; anything else
/// (accelerations, forces) is unbound, so reading it fails the evaluation.
fn environment<'a>(
    values: &'a BTreeMap<String, f64>,
    q: &'a [f64],
    v: &'a [f64],
) -> impl Fn(&Input) -> Option<f64> + 'a {
    move |symbol| match symbol {
        Input::Parameter(name) => values.get(name).copied(),
        Input::Position(i) => q.get(*i).copied(),
        Input::Velocity(i) => v.get(*i).copied(),
        _ => None,
    }
}

impl Pipeline {
    /// The pipeline of `spec`, or why `Mechanism::from_spec` refuses it.
    fn derive(spec: &Spec) -> Result<Pipeline, String> {
        let mechanism = Mechanism::from_spec(spec, ParameterMode::Runtime)
            .map_err(|e| format!("Mechanism::from_spec refuses it: {e:?}"))?;
        let loops = mechanism
            .loops
            .as_ref()
            .ok_or("Mechanism::from_spec derived no loop equations")?;
        let closure = &loops.closure;
        let lower = |roots: &[Id]| Program::lower(&mechanism.pool, roots);
        Ok(Pipeline {
            rows: closure.rows.iter().map(|r| r.name.clone()).collect(),
            nv: mechanism.dof(),
            degrees_of_freedom: loops.mobility.degrees_of_freedom(),
            constraints: lower(&closure.constraints),
            jacobian: lower(&closure.jacobian.concat()),
            bias: lower(&closure.bias),
            bias_by_one_walk: lower(&closure.bias_by_one_walk),
        })
    }

    fn run(
        program: &Program,
        values: &BTreeMap<String, f64>,
        q: &[f64],
        v: &[f64],
    ) -> Result<Vec<f64>, String> {
        program
            .eval(&environment(values, q, v))
            .ok_or_else(|| "the lowered program reads an unbound input".to_owned())
    }

    fn constraints(&self, values: &BTreeMap<String, f64>, q: &[f64]) -> Result<Vec<f64>, String> {
        Pipeline::run(&self.constraints, values, q, &[])
    }

    /// `J`, row-major.
    fn jacobian(&self, values: &BTreeMap<String, f64>, q: &[f64]) -> Result<Vec<f64>, String> {
        Pipeline::run(&self.jacobian, values, q, &[])
    }

    fn bias(
        &self,
        values: &BTreeMap<String, f64>,
        q: &[f64],
        v: &[f64],
    ) -> Result<Vec<f64>, String> {
        Pipeline::run(&self.bias, values, q, v)
    }

    /// `J̇ v` by one derivative walk, the form the plan may take instead.
    fn bias_by_one_walk(
        &self,
        values: &BTreeMap<String, f64>,
        q: &[f64],
        v: &[f64],
    ) -> Result<Vec<f64>, String> {
        Pipeline::run(&self.bias_by_one_walk, values, q, v)
    }
}

/// `got ≈ want` to `tolerance` relative to `max(1, ‖want‖∞)`, every entry
/// finite.
fn expect(what: &str, got: &[f64], want: &[f64], tolerance: f64) -> Result<(), String> {
    let err = relative_error(got, want);
    let finite = got.iter().chain(want).all(|x| x.is_finite());
    if finite && got.len() == want.len() && err <= tolerance {
        Ok(())
    } else {
        Err(format!(
            "{what}: off by {err:e} (tolerance {tolerance:e})\n  got  {got:?}\n  want {want:?}"
        ))
    }
}

/// `|x| ≤ tolerance`, false for NaN.
fn within(x: f64, tolerance: f64) -> bool {
    x.abs() <= tolerance
}

/// Central difference of `f` at `s = 0`, fourth order.
fn derivative(f: impl Fn(f64) -> Result<Vec<f64>, String>, h: f64) -> Result<Vec<f64>, String> {
    let (p1, m1, p2, m2) = (f(h)?, f(-h)?, f(2.0 * h)?, f(-2.0 * h)?);
    Ok((0..p1.len())
        .map(|i| (8.0 * (p1[i] - m1[i]) - (p2[i] - m2[i])) / (12.0 * h))
        .collect())
}

/// A random state: positions as `sampling` says (angles in ±π, slides in
/// ±0.5 m, quaternions normalised from the cube [−1, 1]⁴), velocities in ±2.
fn sample(rng: &mut SmallRng, sampling: &[Sampling], nv: usize) -> (Vec<f64>, Vec<f64>) {
    let mut q = Vec::with_capacity(sampling.len());
    while q.len() < sampling.len() {
        match sampling.get(q.len()) {
            Some(Sampling::Quaternion) => {
                let quaternion = loop {
                    let x = [0; 4].map(|_| rng.gen_range(-1.0_f64..1.0));
                    let norm = x.iter().map(|c| c * c).sum::<f64>().sqrt();
                    if norm > 1e-3 {
                        break x.map(|c| c / norm);
                    }
                };
                q.extend(quaternion);
            }
            Some(Sampling::Slide) => q.push(rng.gen_range(-0.5..0.5)),
            _ => q.push(rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI)),
        }
    }
    let v = (0..nv).map(|_| rng.gen_range(-2.0..2.0)).collect();
    (q, v)
}

fn flat(frames: &[Frame]) -> Vec<f64> {
    frames
        .iter()
        .flat_map(|f| f.rotation.concat().into_iter().chain(f.translation))
        .collect()
}

/// Every check at one state.
fn check_state(
    pipeline: &Pipeline,
    oracle: &LoopOracle,
    values: &BTreeMap<String, f64>,
    q: &[f64],
    v: &[f64],
) -> Result<(), String> {
    let names: Vec<&str> = pipeline.rows.iter().map(String::as_str).collect();
    let psi = pipeline.constraints(values, q)?;
    expect(
        "Ψ vs loop oracle",
        &psi,
        &oracle.constraints(q, &names),
        ORACLE_TOLERANCE,
    )?;
    for row in oracle.dropped_rows(q, &names) {
        if !within(row.value, ORACLE_TOLERANCE) {
            return Err(format!(
                "row {} was dropped as identically zero, but the oracle has {:e}",
                row.name, row.value
            ));
        }
    }
    expect(
        "spec body poses: numeric tree + child origins vs the oracle's own kinematics",
        &flat(&oracle.body_poses(q)),
        &flat(&oracle.independent_body_poses(q)),
        ORACLE_TOLERANCE,
    )?;
    let tree = oracle.oracle();
    let jacobian = pipeline.jacobian(values, q)?;
    let nv = pipeline.nv;
    for k in 0..nv {
        let mut unit = vec![0.0; nv];
        unit[k] = 1.0;
        let want = derivative(
            |s| pipeline.constraints(values, &tree.integrate(q, &unit, s)),
            STEP,
        )?;
        let got: Vec<f64> = jacobian.iter().skip(k).step_by(nv).copied().collect();
        expect(
            &format!("column {k} of J vs central differences of Ψ"),
            &got,
            &want,
            DIFFERENCE_TOLERANCE,
        )?;
    }
    let j_v = |s: f64| -> Result<Vec<f64>, String> {
        let j = pipeline.jacobian(values, &tree.integrate(q, v, s))?;
        Ok(j.chunks(nv.max(1))
            .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum())
            .take(pipeline.rows.len())
            .collect())
    };
    let along = derivative(j_v, STEP)?;
    expect(
        "J̇ v vs central differences of J v along the motion",
        &pipeline.bias(values, q, v)?,
        &along,
        DIFFERENCE_TOLERANCE,
    )?;
    expect(
        "J̇ v by one derivative walk vs central differences of J v",
        &pipeline.bias_by_one_walk(values, q, v)?,
        &along,
        DIFFERENCE_TOLERANCE,
    )?;
    Ok(())
}

/// Whether `rows` appear in `all`, in this order.
fn is_subsequence(rows: &[String], all: &[String]) -> bool {
    let mut all = all.iter();
    rows.iter().all(|r| all.any(|a| a == r))
}

fn parse(seed: u64, text: &str) -> Spec {
    let source = sharnir_spec::Source {
        name: format!("random_loop_{seed}.spec"),
        text: text.to_owned(),
    };
    sharnir_spec::parse(source).unwrap_or_else(|e| {
        panic!("random loop spec {seed} is rejected: {e:?}\n--- spec ---\n{text}")
    })
}

fn check_mechanism(seed: u64) {
    let RandomLoop {
        text,
        closed,
        closing,
        degrees_of_freedom,
        ..
    } = random_loop_spec(seed);
    let report = |state: &str, problem: String| -> ! {
        panic!(
            "random loop mechanism {seed}: {problem}\n--- state ---\n{state}\n--- spec ---\n{text}"
        )
    };
    let spec = parse(seed, &text);
    if spec.initial_positions != closed {
        report(
            "none",
            format!(
                "initial positions {:?}, not q* = {closed:?}",
                spec.initial_positions
            ),
        );
    }
    // Before the oracle, which builds the mechanism too and would panic
    // without the spec.
    let pipeline = Pipeline::derive(&spec).unwrap_or_else(|problem| report("none", problem));
    if pipeline.degrees_of_freedom != degrees_of_freedom {
        report(
            "none",
            format!(
                "{} degree(s) of freedom, but the generator finds {degrees_of_freedom} at q*",
                pipeline.degrees_of_freedom
            ),
        );
    }
    let oracle = LoopOracle::new(&spec);
    if oracle.cut_joints() != closing {
        report(
            "none",
            format!(
                "cut joints {:?}, closing joints {closing:?}",
                oracle.cut_joints()
            ),
        );
    }
    let values = spec.parameter_values();
    let mut rng = SmallRng::seed_from_u64(0x100F_0000 ^ seed);
    let sampling = &oracle.oracle().sampling;
    let all: Vec<String> = oracle.rows(&closed).into_iter().map(|r| r.name).collect();
    if !is_subsequence(&pipeline.rows, &all) {
        report(
            "none",
            format!(
                "symbolic rows {:?} are not among the oracle's {all:?}",
                pipeline.rows
            ),
        );
    }
    let at_closure = format!("q* = {closed:?}");
    let psi = pipeline
        .constraints(&values, &closed)
        .unwrap_or_else(|problem| report(&at_closure, problem));
    if let Err(problem) = expect("Ψ(q*)", &psi, &vec![0.0; psi.len()], CLOSURE_TOLERANCE) {
        report(&at_closure, problem);
    }
    let rows = oracle.rows(&closed);
    if rows.iter().any(|r| !within(r.value, CLOSURE_TOLERANCE)) {
        report(&at_closure, format!("the oracle's rows at q*: {rows:?}"));
    }
    let (_, v) = sample(&mut rng, sampling, pipeline.nv);
    let mut states = vec![(closed.clone(), v)];
    states.extend((0..STATES).map(|_| sample(&mut rng, sampling, pipeline.nv)));
    for (q, v) in &states {
        if let Err(problem) = check_state(&pipeline, &oracle, &values, q, v) {
            report(&format!("q = {q:?}\nv = {v:?}"), problem);
        }
    }
    if let Some((q, v)) = states.get(1) {
        if let Err(problem) = check_residual_derivatives(&spec, &oracle, &values, q, v, &mut rng) {
            report(&format!("q = {q:?}\nv = {v:?}"), problem);
        }
    }
}

/// The planned `constrained_residual_derivatives` at `(q, v)` with random
/// `q̈` and `λ`, against central differences (`q` moved along the
/// manifold) of the residuals `τ(q, v, q̈) − Jᵀλ` and `J q̈ + J̇ v` built
/// from the plan's own `inverse_dynamics`, `constraint_jacobian` and
/// `constraint_bias` (each checked against the oracles elsewhere): every
/// one of the four matrices to 1e-6 of its largest entry.
fn check_residual_derivatives(
    spec: &Spec,
    oracle: &LoopOracle,
    values: &BTreeMap<String, f64>,
    q: &[f64],
    v: &[f64],
    rng: &mut SmallRng,
) -> Result<(), String> {
    use sharnir_codegen::plan::outputs::{Function, Outputs};
    use sharnir_codegen::{plan, PlanOptions};
    let mut mechanism =
        Mechanism::from_spec(spec, ParameterMode::Runtime).map_err(|e| format!("{e:?}"))?;
    let options = PlanOptions {
        outputs: Some(Outputs::NONE.with(Function::ForwardDynamicsDerivatives)),
        ..PlanOptions::default()
    };
    let plan = plan(&mut mechanism, &options).map_err(|e| e.to_string())?;
    let nv = v.len();
    let nc = plan.loops().map_or(0, |l| l.constraint_names.len());
    let qdd: Vec<f64> = (0..nv).map(|_| rng.gen_range(-5.0..5.0)).collect();
    let lambda: Vec<f64> = (0..nc).map(|_| rng.gen_range(-5.0..5.0)).collect();
    let evaluate = |function: &str, q: &[f64], v: &[f64]| -> Vec<f64> {
        let env = |symbol: &Input| match symbol {
            Input::Parameter(name) => values.get(name).copied(),
            Input::Position(i) => q.get(*i).copied(),
            Input::Velocity(i) => v.get(*i).copied(),
            Input::Acceleration(i) => qdd.get(*i).copied(),
            Input::Multiplier(k) => lambda.get(*k).copied(),
            _ => None,
        };
        plan.evaluate(function, &env).unwrap_or_default()
    };
    let residual = |q: &[f64], v: &[f64]| -> Vec<f64> {
        let tau = evaluate("inverse_dynamics", q, v);
        let jacobian = evaluate("constraint_jacobian", q, v);
        let bias = evaluate("constraint_bias", q, v);
        let forces = (0..nv).map(|i| {
            tau[i]
                - (0..nc)
                    .map(|k| jacobian[k * nv + i] * lambda[k])
                    .sum::<f64>()
        });
        let constraints =
            (0..nc).map(|k| bias[k] + (0..nv).map(|i| jacobian[k * nv + i] * qdd[i]).sum::<f64>());
        forces.chain(constraints).collect()
    };
    let by_q = by_position(oracle.oracle(), q, |q| residual(q, v));
    let by_v = by_vector(v, |v| residual(q, v));
    let got = evaluate("constrained_residual_derivatives", q, v);
    if got.len() != 2 * nv * nv + 2 * nc * nv {
        return Err(format!(
            "constrained_residual_derivatives has {} entries",
            got.len()
        ));
    }
    let (forces_q, rest) = got.split_at(nv * nv);
    let (forces_v, rest) = rest.split_at(nv * nv);
    let (constraints_q, constraints_v) = rest.split_at(nc * nv);
    for (what, got, want) in [
        ("∂r₁/∂q", forces_q, &by_q[..nv * nv]),
        ("∂r₁/∂q̇", forces_v, &by_v[..nv * nv]),
        ("∂r₂/∂q", constraints_q, &by_q[nv * nv..]),
        ("∂r₂/∂q̇", constraints_v, &by_v[nv * nv..]),
    ] {
        expect(what, got, want, 1e-6)?;
    }
    Ok(())
}

/// Checks the mechanisms whose seed is `shard` modulo `SHARDS`.
fn check_shard(shard: u64) {
    for seed in (shard..mechanisms()).step_by(SHARDS as usize) {
        check_mechanism(seed);
    }
}

#[test]
fn random_loops_shard_0() {
    check_shard(0);
}

#[test]
fn random_loops_shard_1() {
    check_shard(1);
}

#[test]
fn random_loops_shard_2() {
    check_shard(2);
}

#[test]
fn random_loops_shard_3() {
    check_shard(3);
}

/// The generator is deterministic and covers what loop closure must see:
/// every closing type many times, loops to the ground, two loops in one
/// mechanism, cut joints found by validation and marked by hand, tree
/// joints with a `child_origin`, closing joints on bodies welded by fixed
/// joints, every tree size, rows dropped (identically vanishing, or
/// constants of rounding size), and loops that leave a single degree of
/// freedom.
#[test]
fn random_loop_specs_cover_the_format() {
    let mut closing_kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut tree_kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut sizes = vec![0_usize; MAX_BODIES + 1];
    let (mut to_ground, mut two_loops, mut found, mut marked) = (0, 0, 0, 0);
    let (mut child_origins, mut on_welded, mut with_parameters, mut dropping) = (0, 0, 0, 0);
    let (mut planar, mut one_dof) = (0, 0);
    for seed in 0..mechanisms() {
        let generated = random_loop_spec(seed);
        assert_eq!(
            generated.text,
            random_loop_spec(seed).text,
            "spec {seed} is not deterministic"
        );
        let spec = parse(seed, &generated.text);
        sizes[spec.bodies.len()] += 1;
        two_loops += usize::from(generated.closing.len() == 2);
        with_parameters += usize::from(!spec.parameters.is_empty());
        let welded: Vec<&str> = spec
            .joints
            .iter()
            .filter(|j| !j.cut && j.kind == JointKind::Fixed)
            .map(|j| j.child.as_str())
            .collect();
        for joint in &spec.joints {
            if joint.cut {
                *closing_kinds.entry(joint.kind.name()).or_default() += 1;
                to_ground += usize::from(joint.parent == "ground");
                if joint.cut_mark.is_some() {
                    marked += 1;
                } else {
                    found += 1;
                }
                on_welded += usize::from(
                    welded.contains(&joint.parent.as_str())
                        || welded.contains(&joint.child.as_str()),
                );
            } else {
                *tree_kinds.entry(joint.kind.name()).or_default() += 1;
                child_origins += usize::from(joint.child_origin.is_some());
            }
        }
        planar += usize::from(generated.planar);
        one_dof += usize::from(generated.degrees_of_freedom == 1);
        let pipeline = Pipeline::derive(&spec).unwrap_or_else(|problem| {
            panic!(
                "random loop spec {seed}: {problem}\n--- spec ---\n{}",
                generated.text
            )
        });
        let oracle = LoopOracle::new(&spec);
        dropping += usize::from(pipeline.rows.len() < oracle.rows(&generated.closed).len());
    }
    for (kind, _) in JointKind::ALL {
        if kind == JointKind::Free {
            continue;
        }
        let count = closing_kinds.get(kind.name()).copied().unwrap_or(0);
        assert!(
            count >= 8,
            "closing joint type {} appears {count} times",
            kind.name()
        );
        let count = tree_kinds.get(kind.name()).copied().unwrap_or(0);
        assert!(
            count >= 8,
            "tree joint type {} appears {count} times",
            kind.name()
        );
    }
    assert!(
        sizes[2..].iter().all(|&n| n >= 10),
        "tree sizes 2..={MAX_BODIES}: {sizes:?}"
    );
    assert!(to_ground >= 15, "{to_ground} loops closed to the ground");
    assert!(two_loops >= 20, "{two_loops} mechanisms with two loops");
    assert!(
        found >= 40 && marked >= 30,
        "{found} cut joints found by validation, {marked} marked"
    );
    assert!(
        child_origins >= 50,
        "{child_origins} tree joints with child_origin"
    );
    assert!(
        on_welded >= 5,
        "{on_welded} closing joints on welded bodies"
    );
    assert!(
        with_parameters >= 30,
        "{with_parameters} mechanisms with parameters"
    );
    assert!(planar >= 10, "{planar} planar mechanisms");
    assert!(
        dropping >= 8,
        "{dropping} mechanisms with identically vanishing rows"
    );
    assert!(
        one_dof >= 10,
        "{one_dof} mechanisms the loops leave one degree of freedom"
    );
    println!(
        "closing {closing_kinds:?}\ntree {tree_kinds:?}\nsizes {sizes:?}\nto ground {to_ground}, \
         two loops {two_loops}, found {found}, marked {marked}, child origins {child_origins}, \
         on welded {on_welded}, parameters {with_parameters}, planar {planar}, \
         dropping rows {dropping}, one degree of freedom {one_dof}"
    );
}

/// The parser takes a spherical cut joint as it is written, with the
/// spec's `[initial]` and without it (every quaternion at the identity): it
/// is a cut joint of its type, with no coordinates, so the positions are
/// those of the tree alone.
#[test]
fn spherical_cut_joints_parse() {
    let mut checked = 0;
    for seed in 0..mechanisms() {
        let generated = random_loop_spec(seed);
        let spec = parse(seed, &generated.text);
        let spherical: Vec<&str> = spec
            .joints
            .iter()
            .filter(|j| j.kind == JointKind::Spherical && generated.closing.contains(&j.name))
            .map(|j| j.name.as_str())
            .collect();
        if spherical.is_empty() {
            continue;
        }
        for joint in spec
            .joints
            .iter()
            .filter(|j| spherical.contains(&j.name.as_str()))
        {
            assert!(
                joint.cut && joint.nq() == 0 && joint.position_names().is_empty(),
                "random loop spec {seed}: {joint:?}"
            );
        }
        assert_eq!(
            spec.initial_positions, generated.closed,
            "random loop spec {seed}"
        );
        let (tree_and_loops, _) = generated
            .text
            .split_once("\n[initial]\n")
            .unwrap_or_else(|| panic!("random loop spec {seed} has no [initial]"));
        let at_zero = parse(seed, tree_and_loops);
        assert_eq!(
            at_zero.initial_positions.len(),
            generated.closed.len(),
            "random loop spec {seed} without [initial]"
        );
        checked += 1;
    }
    assert!(checked >= 5, "{checked} specs with spherical cut joints");
}
