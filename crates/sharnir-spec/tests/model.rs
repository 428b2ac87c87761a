//! What a valid spec parses into: names, order, defaults, spans, rotations
//! and parameter values.

mod common;

use common::{edited, spec, BASE};
use sharnir_spec::{ElementaryRotation, Expr, ExprKind, Function, JointKind, ParameterValue, Span};

/// The source text an expression's span covers.
fn text_of(text: &str, expr: &Expr) -> String {
    text.get(expr.span.offset..expr.span.offset + expr.span.len)
        .unwrap_or("<out of range>")
        .to_owned()
}

fn number(expr: &Expr) -> f64 {
    match expr.kind {
        ExprKind::Number(x) => x,
        _ => panic!("not a number: {expr:?}"),
    }
}

#[test]
fn base_spec_contents() {
    let s = spec(BASE);
    assert_eq!(s.name, "arm");
    assert_eq!(s.description.as_deref(), Some("test arm"));
    assert_eq!(s.source.name, "arm.spec");
    let names: Vec<&str> = s.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["g", "m", "L", "I"]);
    assert!(matches!(s.parameters[1].value, ParameterValue::Number(x) if x == 2.0));
    assert!(
        matches!(&s.parameters[3].value, ParameterValue::Derived(e) if text_of(BASE, e) == "m * L^2 / 12")
    );
    assert_eq!(
        s.bodies.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(),
        ["link1", "link2"]
    );
    assert_eq!(
        s.joints
            .iter()
            .map(|j| j.coordinate.as_str())
            .collect::<Vec<_>>(),
        ["q1", "q2"]
    );
    assert_eq!(s.joints[1].kind, JointKind::Prismatic);
    assert_eq!(
        (s.joints[1].parent.as_str(), s.joints[1].child.as_str()),
        ("link1", "link2")
    );
    assert_eq!(text_of(BASE, &s.gravity[2]), "-g");
}

#[test]
fn spans_point_at_the_written_characters() {
    let s = spec(BASE);
    let body = &s.bodies[0];
    assert_eq!(
        BASE.get(body.span.offset..body.span.offset + body.span.len),
        Some("\"link1\"")
    );
    assert_eq!(text_of(BASE, &body.mass), "m");
    assert_eq!(text_of(BASE, &body.com[0]), "L / 2");
    assert_eq!(text_of(BASE, &body.com[1]), "0");
    assert_eq!(
        BASE.get(body.inertia.span.offset..body.inertia.span.end()),
        Some("[0.01, \"I\", \"I\"]")
    );
    let joint = &s.joints[1];
    let at = |span: Span| {
        BASE.get(span.offset..span.end())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(at(joint.parent_span), "\"link1\"");
    assert_eq!(at(joint.child_span), "\"link2\"");
    assert_eq!(at(joint.axis_span), "[1, 0, 0]");
    assert_eq!(at(joint.coordinate_span), "\"q2\"");
    let source = &s.source;
    assert_eq!(source.line_column(body.mass.span.offset), (14, 9));
}

#[test]
fn defaults_are_zero_and_identity() {
    let s = spec(BASE);
    let link2 = &s.bodies[1];
    assert_eq!(
        link2.com.iter().map(number).collect::<Vec<_>>(),
        [0.0, 0.0, 0.0]
    );
    let i = &link2.inertia;
    assert_eq!(
        [&i.xx, &i.yy, &i.zz, &i.xy, &i.xz, &i.yz].map(number),
        [0.01, 0.1, 0.1, 0.0, 0.0, 0.0]
    );
    let q1 = &s.joints[0];
    assert!(q1.origin.rotation.is_empty());
    assert_eq!(
        q1.origin.translation.iter().map(number).collect::<Vec<_>>(),
        [0.0, 0.0, 0.0]
    );
}

#[test]
fn six_element_inertia_keeps_its_order() {
    let s = spec(&edited(
        "[0.01, \"I\", \"I\"]",
        "[0.05, 0.06, 0.07, 0.001, 0.002, 0.003]",
    ));
    let i = &s.bodies[0].inertia;
    assert_eq!(
        [&i.xx, &i.yy, &i.zz, &i.xy, &i.xz, &i.yz].map(number),
        [0.05, 0.06, 0.07, 0.001, 0.002, 0.003]
    );
}

#[test]
fn axes_are_normalised() {
    let s = spec(&edited("axis = [1, 0, 0]", "axis = [0, 3.0, -4]"));
    let axis = s.joints[1].axis;
    for (got, want) in axis.iter().zip([0.0, 0.6, -0.8]) {
        assert!((got - want).abs() < 1e-15, "{axis:?}");
    }
    let s = spec(&edited("axis = [1, 0, 0]", "axis = [1e300, 1e300, 0]"));
    let half = std::f64::consts::FRAC_1_SQRT_2;
    assert!(
        (s.joints[1].axis[0] - half).abs() < 1e-15 && (s.joints[1].axis[1] - half).abs() < 1e-15
    );
}

#[test]
fn rpy_becomes_z_y_x() {
    let s = spec(&edited(
        "rpy = [0, 0, \"pi/2\"]",
        "rpy = [\"0.1\", \"0.2\", \"0.3\"]",
    ));
    let angles: Vec<(char, String)> = s.joints[1]
        .origin
        .rotation
        .iter()
        .map(|r| match r {
            ElementaryRotation::X(a) => ('x', text_of(&s.source.text, a)),
            ElementaryRotation::Y(a) => ('y', text_of(&s.source.text, a)),
            ElementaryRotation::Z(a) => ('z', text_of(&s.source.text, a)),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        angles,
        [
            ('z', "0.3".into()),
            ('y', "0.2".into()),
            ('x', "0.1".into())
        ]
    );
}

#[test]
fn rotations_axis_angle_and_matrix() {
    let s = spec(&edited(
        "rpy = [0, 0, \"pi/2\"]",
        "rotations = [[\"x\", 1], [\"z\", \"L\"], [\"y\", 2]]",
    ));
    let letters: Vec<char> = s.joints[1]
        .origin
        .rotation
        .iter()
        .map(|r| match r {
            ElementaryRotation::X(_) => 'x',
            ElementaryRotation::Y(_) => 'y',
            ElementaryRotation::Z(_) => 'z',
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(letters, ['x', 'z', 'y']);

    let s = spec(&edited(
        "rpy = [0, 0, \"pi/2\"]",
        "axis_angle = { axis = [0, 0, 2], angle = \"pi/3\" }",
    ));
    let [ElementaryRotation::AxisAngle { axis, angle }] = s.joints[1].origin.rotation.as_slice()
    else {
        panic!("{:?}", s.joints[1].origin.rotation);
    };
    assert_eq!(*axis, [0.0, 0.0, 1.0]);
    assert_eq!(text_of(&s.source.text, angle), "pi/3");

    let matrix = "matrix = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]";
    let s = spec(&edited("rpy = [0, 0, \"pi/2\"]", matrix));
    let [ElementaryRotation::Matrix(rows)] = s.joints[1].origin.rotation.as_slice() else {
        panic!("{:?}", s.joints[1].origin.rotation);
    };
    assert_eq!(
        rows.each_ref().map(|r| r.each_ref().map(number)),
        [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    );

    let exact = "matrix = [[\"sqrt(2)/2\", \"-sqrt(2)/2\", 0], [\"sqrt(2)/2\", \"sqrt(2)/2\", 0], [0, 0, 1]]";
    spec(&edited("rpy = [0, 0, \"pi/2\"]", exact));
}

#[test]
fn origin_may_be_a_sub_table() {
    let text = edited(
        "origin = { xyz = [\"L\", 0, 0], rpy = [0, 0, \"pi/2\"] }",
        "[joint.origin]\nxyz = [\"L\", 0, 0]\nrpy = [0, 0, 1]",
    );
    let s = spec(&text);
    assert_eq!(text_of(&text, &s.joints[1].origin.translation[0]), "L");
    assert_eq!(s.joints[1].origin.rotation.len(), 3);
}

#[test]
fn expressions_keep_their_structure() {
    let s = spec(&edited("\"L / 2\"", "\"-sin(pi * L)^2 + cos(L)\""));
    let ExprKind::Add(left, right) = &s.bodies[0].com[0].kind else {
        panic!("{:?}", s.bodies[0].com[0])
    };
    let ExprKind::Neg(power) = &left.kind else {
        panic!("{left:?}")
    };
    let ExprKind::Pow(call, 2) = &power.kind else {
        panic!("{power:?}")
    };
    assert!(matches!(call.kind, ExprKind::Call(Function::Sin, _)));
    assert!(matches!(right.kind, ExprKind::Call(Function::Cos, _)));
    assert_eq!(text_of(&s.source.text, call), "sin(pi * L)");
}

#[test]
fn parameter_values_include_derived_ones() {
    let s = spec(&edited(
        "I = \"m * L^2 / 12\"",
        "I = \"m * L^2 / 12\"\nw = \"sqrt(g / L) * cos(pi)\"",
    ));
    let values = s.parameter_values();
    assert_eq!(values.len(), 5);
    assert_eq!(values["g"], 9.81);
    assert!(
        (values["I"] - 2.0 * 0.25 / 12.0).abs() < 1e-15,
        "{values:?}"
    );
    assert!(
        (values["w"] + (9.81f64 / 0.5).sqrt()).abs() < 1e-12,
        "{values:?}"
    );
}

#[test]
fn the_documented_example_is_valid() {
    let doc = include_str!("../../../docs/spec-format.md");
    let example = doc
        .split("```toml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_default();
    let s = spec(example);
    assert_eq!(s.name, "planar_arm");
    assert_eq!(
        s.joints
            .iter()
            .map(|j| j.coordinate.as_str())
            .collect::<Vec<_>>(),
        ["q1", "d2"]
    );
    assert_eq!(
        s.joints.iter().map(|j| j.kind).collect::<Vec<_>>(),
        [JointKind::Revolute, JointKind::Prismatic]
    );
    let values = s.parameter_values();
    assert!(
        (values["It1"] - 2.0 * (3.0 * 0.03f64.powi(2) + 0.25) / 12.0).abs() < 1e-15,
        "{values:?}"
    );
}

#[test]
fn single_precision_is_off_unless_asked_for() {
    assert!(!spec(BASE).single_precision);
    let asked = edited("name = \"arm\"", "name = \"arm\"\nsingle_precision = true");
    assert!(spec(&asked).single_precision);
}
