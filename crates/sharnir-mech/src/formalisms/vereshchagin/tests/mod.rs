use super::*;
use crate::model::ParameterMode;
use std::collections::BTreeMap;

/// `q̈` of a one-joint spec at `(q, q̇, τ)`, evaluated at the spec's
/// parameter values.
fn single_joint_acceleration(spec_text: &str, q: f64, qd: f64, tau: f64) -> f64 {
    let source = sharnir_spec::Source {
        name: "test.spec".to_owned(),
        text: spec_text.to_owned(),
    };
    let spec = sharnir_spec::parse(source).expect("test spec is valid");
    let values: BTreeMap<String, f64> = spec.parameter_values();
    let mut mechanism =
        Mechanism::from_spec(&spec, ParameterMode::Runtime).expect("test spec is a tree");
    let qdd = forward_dynamics(&mut mechanism).expect("independent joints");
    let env = |symbol: &Input| match symbol {
        Input::Parameter(name) => values.get(name).copied(),
        Input::Position(0) => Some(q),
        Input::Velocity(0) => Some(qd),
        Input::Force(0) => Some(tau),
        _ => None,
    };
    mechanism.pool.eval(&qdd, &env).expect("every symbol bound")[0]
}

/// A physical pendulum about the vertical-plane normal z, with its centre
/// of mass off the pivot both along the rod (`c`) and along the axis
/// (`h`, which must not matter), and a full central inertia.
const PENDULUM: &str = r#"
    [mechanism]
    name = "pendulum"
    gravity = [0, "-g", 0]

    [parameters]
    m = 1.3
    c = 0.4
    h = 0.25
    jz = 0.05
    g = 9.81

    [[body]]
    name = "rod"
    mass = "m"
    com = ["c", 0, "h"]
    inertia = [0.02, 0.03, "jz"]

    [[joint]]
    name = "pivot"
    type = "revolute"
    parent = "ground"
    child = "rod"
    axis = [0, 0, 1]
    coordinate = "theta"
"#;

#[test]
fn pendulum_matches_its_closed_form() {
    // About the pivot: (jz + m c²) θ̈ = τ − m g c cos θ; neither h nor θ̇
    // produces a moment about the axis.
    let (m, c, jz, g) = (1.3, 0.4, 0.05, 9.81);
    for (theta, theta_dot, tau) in [(0.0, 0.0, 0.0), (0.7, -1.9, 0.3), (-2.4, 3.1, -1.7)] {
        let want = (tau - m * g * c * f64::cos(theta)) / (jz + m * c * c);
        let got = single_joint_acceleration(PENDULUM, theta, theta_dot, tau);
        assert!(
            (got - want).abs() < 1e-12,
            "θ̈ = {got}, closed form {want} at θ = {theta}"
        );
    }
}

/// A block sliding along a rail inclined by 30° in the vertical plane.
const INCLINE: &str = r#"
    [mechanism]
    name = "incline"
    gravity = [0, "-g", 0]

    [parameters]
    m = 2.5
    g = 9.81

    [[body]]
    name = "block"
    mass = "m"
    com = [0.1, 0.2, 0.3]
    inertia = [0.01, 0.02, 0.03]

    [[joint]]
    name = "rail"
    type = "prismatic"
    parent = "ground"
    child = "block"
    axis = [1, 0, 0]
    coordinate = "x"
    origin = { rotations = [["z", "pi/6"]] }
"#;

#[test]
fn slider_on_an_incline_matches_its_closed_form() {
    // m ẍ = τ − m g sin 30°, whatever the position and speed.
    let (m, g) = (2.5, 9.81);
    for (x, x_dot, tau) in [(0.0, 0.0, 0.0), (0.3, 1.2, 4.0), (-0.8, -2.0, -1.5)] {
        let want = tau / m - g * 0.5;
        let got = single_joint_acceleration(INCLINE, x, x_dot, tau);
        assert!(
            (got - want).abs() < 1e-12,
            "ẍ = {got}, closed form {want} at x = {x}"
        );
    }
}
