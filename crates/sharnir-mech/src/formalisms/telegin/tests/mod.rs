use super::motion::static_moment_acceleration_ways;
use super::*;
use crate::model::inputs::Input;
use crate::model::ParameterMode;

/// A deterministic stream of numbers in ±1.5 (xorshift), so the test
/// needs no random-number crate.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 3_000_001) as f64 / 1_000_000.0 - 1.5
    }
}

/// (7)–(8) as a chain rule, on `f = q0² sin q1 + cos(q0 + q1) + √(1 + q0²)` whose
/// derivatives are written out by hand, to 1e-13 at a few states.
#[test]
fn time_derivative_is_the_chain_rule() {
    let mut pool = Pool::new();
    let symbol = |pool: &mut Pool, input: Input| pool.input(input);
    let (q0, q1) = (
        symbol(&mut pool, Input::Position(0)),
        symbol(&mut pool, Input::Position(1)),
    );
    let square = pool.powi(q0, 2);
    let sine = pool.sin(q1);
    let product = pool.mul(square, sine);
    let sum = pool.add(q0, q1);
    let cosine = pool.cos(sum);
    let one = pool.one();
    let radicand = pool.add(one, square);
    let root = pool.sqrt(radicand);
    let f = pool.sum(&[product, cosine, root]);
    let revolute = |pool: &mut Pool, body: usize| TreeBody {
        name: format!("b{body}"),
        joint: format!("j{body}"),
        parent: body.checked_sub(1),
        position: body,
        velocity: body,
        coupling: None,
        kind: JointKind::Revolute,
        axis: [pool.zero(), pool.zero(), pool.one()],
        rotation: pool.identity3(),
        translation: pool.zero3(),
        mass: pool.one(),
        com: pool.zero3(),
        inertia: pool.identity3(),
        auxiliary: false,
        body_frame: None,
        armature: Vec::new(),
    };
    let bodies = [revolute(&mut pool, 0), revolute(&mut pool, 1)];
    let mut derivative = TimeDerivative::new(&mut pool, &bodies);
    let rate = derivative.of(&mut pool, f);
    let acceleration = derivative.of(&mut pool, rate);
    let mut stream = Stream(17);
    for _ in 0..5 {
        let [x, y, xd, yd, xdd, ydd] = [(); 6].map(|_| stream.next());
        let env = |name: &Input| match name {
            Input::Position(0) => Some(x),
            Input::Position(1) => Some(y),
            Input::Velocity(0) => Some(xd),
            Input::Velocity(1) => Some(yd),
            Input::Acceleration(0) => Some(xdd),
            Input::Acceleration(1) => Some(ydd),
            _ => None,
        };
        let got = pool.eval(&[rate, acceleration], &env).expect("bound");
        let (s, c) = y.sin_cos();
        let (s_sum, c_sum) = (x + y).sin_cos();
        let (w, wd) = (xd + yd, xdd + ydd);
        let r = (1.0 + x * x).sqrt();
        let want_rate = 2.0 * x * xd * s + x * x * c * yd - s_sum * w + x * xd / r;
        let want_acceleration =
            2.0 * (xd * xd + x * xdd) * s + 4.0 * x * xd * c * yd + x * x * (c * ydd - s * yd * yd)
                - c_sum * w * w
                - s_sum * wd
                + (xd * xd + x * xdd) / r
                - x * x * xd * xd / (r * r * r);
        assert!((got[0] - want_rate).abs() < 1e-13, "{got:?} vs {want_rate}");
        assert!(
            (got[1] - want_acceleration).abs() < 1e-13,
            "{got:?} vs {want_acceleration}"
        );
    }
}

fn folded(name: &str, text: &str) -> Mechanism {
    let source = sharnir_spec::Source {
        name: name.to_owned(),
        text: text.to_owned(),
    };
    let spec = sharnir_spec::parse(source).expect("bundled spec is valid");
    Mechanism::from_spec(&spec, ParameterMode::Folded).expect("bundled spec is valid")
}

/// The two ways to `m̈⃗_k` must agree for every subsystem, not only for
/// the ones the cost comparison happens to pick: differentiating the
/// direction cosines with (7)–(8) and the transport terms on one side, the
/// recursion over body accelerations on the other. Checked on chains with
/// prismatic joints (telegin6), placement rotations and offsets
/// (puma560) and ten parallel axes (chain10), to 1e-12 relative, at 20
/// states each.
#[test]
fn both_ways_to_the_static_moment_accelerations_agree() {
    let specs = [
        (
            "telegin6",
            include_str!("../../../../../../specs/telegin6.spec"),
        ),
        (
            "puma560",
            include_str!("../../../../../../specs/puma560.spec"),
        ),
        (
            "chain10",
            include_str!("../../../../../../specs/chain10.spec"),
        ),
    ];
    let mut stream = Stream(0x7E1E_61A5);
    for (name, text) in specs {
        let mut mechanism = folded(name, text);
        let Mechanism {
            pool,
            bodies,
            gravity,
            ..
        } = &mut mechanism;
        let links: Vec<Link> = bodies
            .iter()
            .map(|b| Link::describe(pool, b))
            .collect::<Result<_, _>>()
            .expect("a chain of 1-DOF joints");
        let motion = Motion::absolute(pool, &links, *gravity);
        let subsystems = Subsystems::static_moments(pool, &links);
        let mut derivative = TimeDerivative::new(pool, bodies);
        let mut outboard = pool.zero3();
        let mut pairs = Vec::new();
        for k in (0..links.len()).rev() {
            let [explicit, recursive] = static_moment_acceleration_ways(
                pool,
                &mut derivative,
                &links,
                &motion,
                &subsystems,
                k,
                outboard,
            );
            pairs.push((k, explicit, recursive));
            outboard = recursive;
        }
        let n = links.len();
        for _ in 0..20 {
            let state: Vec<f64> = (0..3 * n).map(|_| stream.next()).collect();
            let env = |symbol: &Input| match symbol {
                Input::Position(i) => state.get(*i).copied(),
                Input::Velocity(i) => state.get(n + *i).copied(),
                Input::Acceleration(i) => state.get(2 * n + *i).copied(),
                _ => None,
            };
            for &(k, explicit, recursive) in &pairs {
                let a = pool.eval(&explicit, &env).expect("only q, q̇, q̈");
                let b = pool.eval(&recursive, &env).expect("only q, q̇, q̈");
                let scale = b.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
                for (x, y) in a.iter().zip(&b) {
                    assert!(
                        (x - y).abs() < 1e-12 * scale,
                        "{name}, subsystem {k}: {a:?} vs {b:?} at {state:?}"
                    );
                }
            }
        }
    }
}
