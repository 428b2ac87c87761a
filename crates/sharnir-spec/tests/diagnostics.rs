//! Every validation rule: the position (line:col of `common::BASE` after the
//! edit), the message, and the presence of a label and a hint.

mod common;

use common::{edited, error, rejects, BASE};

#[test]
fn base_spec_is_valid() {
    common::spec(BASE);
}

#[test]
fn report_has_location_and_help() {
    let e = error(&edited("mass = \"m\"", "mass = \"m + mx\""));
    let report = format!("{:?}", miette::Report::from(e));
    assert!(report.contains("arm.spec:14:13"), "{report}");
    assert!(report.contains("help"), "{report}");
    assert!(report.contains("mass = \"m + mx\""), "{report}");
}

// Structure.

#[test]
fn toml_syntax_error() {
    rejects(
        &edited("mass = \"m\"", "mass = \"m"),
        14,
        10,
        "TOML syntax error",
    );
}

#[test]
fn wrong_value_type() {
    rejects(
        &edited("mass = \"m\"", "mass = true"),
        14,
        8,
        "`mass` must be a number or an expression string, found a boolean",
    );
    rejects(
        &edited("name = \"link1\"", "name = 1"),
        13,
        8,
        "`name` must be a string, found an integer",
    );
    rejects(
        &edited("I = \"m * L^2 / 12\"", "I = [1]"),
        10,
        5,
        "parameter `I` must be a number or an expression string",
    );
    rejects(
        &edited("[0.01, \"I\", \"I\"]", "\"I\""),
        16,
        11,
        "`inertia` must be an array of 3 or 6 or a table",
    );
    rejects(
        &edited("gravity = [0, 0, \"-g\"]", "gravity = [0, 0, \"-g\", 1]"),
        4,
        11,
        "`gravity` must have 3 elements, found 4",
    );
    rejects(
        &edited("[0.01, \"I\", \"I\"]", "[1, 2, 3, 4]"),
        16,
        11,
        "`inertia` must have 3 or 6 elements, found 4",
    );
}

#[test]
fn unknown_key_lists_the_allowed_ones() {
    let e = rejects(
        &edited("mass = \"m\"", "mas = \"m\""),
        14,
        1,
        "unknown key `mas` in [[body]] (did you mean `mass`?)",
    );
    assert!(
        e.hint().contains("name, mass, com, inertia"),
        "{}",
        e.hint()
    );
    rejects(
        &format!("{BASE}[[bodies]]\nname = \"x\"\n"),
        37,
        3,
        "unknown key `bodies` in the file (did you mean `body`?)",
    );
    rejects(
        &edited("xx = 0.01,", "xx = 0.01, xz0 = 1,"),
        21,
        24,
        "unknown key `xz0` in `inertia`",
    );
}

#[test]
fn missing_required_key_is_reported_at_its_table() {
    rejects(
        &edited("mass = \"m\"\n", ""),
        12,
        1,
        "missing key `mass` in [[body]]",
    );
    rejects(
        &edited(
            "{ xx = 0.01, yy = 0.1, zz = 0.1 }",
            "{ xx = 0.01, yy = 0.1 }",
        ),
        21,
        11,
        "missing key `zz` in `inertia`",
    );
    rejects(
        &edited("[mechanism]\n", "[machine]\n"),
        1,
        2,
        "unknown key `machine`",
    );
    rejects(
        &BASE.replacen(
            "[mechanism]\nname = \"arm\"\ndescription = \"test arm\"\ngravity = [0, 0, \"-g\"]\n",
            "",
            1,
        ),
        1,
        1,
        "missing table [mechanism]",
    );
}

#[test]
fn a_spec_without_bodies_is_rejected() {
    let text = "[mechanism]\nname = \"empty\"\ngravity = [0, 0, 0]\n";
    rejects(text, 1, 1, "the mechanism has no bodies");
}

#[test]
fn dotted_keys_are_not_part_of_the_format() {
    let e = rejects(
        &edited("origin = { xyz", "origin.xyz = [0, 0, 0]\norigin2 = { xyz"),
        36,
        8,
        "dotted keys",
    );
    assert!(e.hint().contains("inline tables"), "{}", e.hint());
}

#[test]
fn malformed_expression_points_at_the_character() {
    rejects(
        &edited("\"L / 2\"", "\"L / / 2\""),
        15,
        13,
        "expected a number, a parameter or `(`, found `/`",
    );
    rejects(
        &edited("\"L / 2\"", "\"L # 2\""),
        15,
        11,
        "unexpected character `#` in expression",
    );
    rejects(&edited("\"L / 2\"", "\"(L / 2\""), 15, 9, "unclosed `(`");
    rejects(
        &edited("\"L / 2\"", "\"L^0.5\""),
        15,
        11,
        "exponent must be an integer",
    );
    rejects(
        &edited("\"L / 2\"", "\"tan(L)\""),
        15,
        9,
        "unknown function `tan`",
    );
    rejects(
        &edited("\"L / 2\"", "\"2 L\""),
        15,
        11,
        "expected an operator, found `L`",
    );
    rejects(&edited("\"L / 2\"", "\"\""), 15, 9, "empty expression");
}

#[test]
fn expression_positions_survive_multi_line_and_literal_strings() {
    rejects(
        &edited("mass = \"m\"", "mass = 'm + mx'"),
        14,
        13,
        "unknown parameter `mx`",
    );
    rejects(
        &edited("mass = \"m\"", "mass = \"\"\"\nm + mx\"\"\""),
        15,
        5,
        "unknown parameter `mx`",
    );
    // With an escape the characters no longer map one-to-one: the whole string is pointed at.
    rejects(
        &edited("mass = \"m\"", "mass = \"m +\\tmx\""),
        14,
        8,
        "unknown parameter `mx`",
    );
}

// Names.

#[test]
fn unknown_parameter_is_reported_inside_the_expression() {
    rejects(
        &edited("mass = \"m\"", "mass = \"m + mx\""),
        14,
        13,
        "unknown parameter `mx`",
    );
    rejects(
        &edited("I = \"m * L^2 / 12\"", "I = \"m * Lx^2 / 12\""),
        10,
        10,
        "unknown parameter `Lx` (did you mean `L`?)",
    );
    rejects(
        &edited("\"pi/2\"", "\"Pi/2\""),
        36,
        45,
        "unknown parameter `Pi`",
    ); // Every parameter is one letter away from `M`: the one it is in other
       // case is the one meant.
    rejects(
        &edited("mass = \"m\"", "mass = \"M\""),
        14,
        9,
        "unknown parameter `M` (did you mean `m`?)",
    );
}

#[test]
fn derived_parameter_cycles_are_named() {
    rejects(
        &edited("I = \"m * L^2 / 12\"", "I = \"I + 1\""),
        10,
        6,
        "parameter `I` is defined in terms of itself: I → I",
    );
    let text = edited(
        "I = \"m * L^2 / 12\"",
        "I = \"J / 12\"\nJ = \"K * m\"\nK = \"2 * I\"",
    );
    rejects(
        &text,
        12,
        10,
        "parameter `I` is defined in terms of itself: I → J → K → I",
    );
}

#[test]
fn derived_parameters_may_use_later_ones() {
    let spec = common::spec(&edited(
        "I = \"m * L^2 / 12\"",
        "I = \"J / 12\"\nJ = \"m * L^2\"",
    ));
    let values = spec.parameter_values();
    assert!(
        (values["I"] - 2.0 * 0.25 / 12.0).abs() < 1e-15,
        "{values:?}"
    );
}

#[test]
fn duplicate_parameter_is_a_toml_error_at_the_second_one() {
    rejects(
        &edited("m = 2.0\n", "m = 2.0\nm = 3.0\n"),
        9,
        1,
        "duplicate key `m`",
    );
}

#[test]
fn duplicate_body_names_the_first_line() {
    let e = rejects(
        &edited("name = \"link2\"", "name = \"link1\""),
        19,
        8,
        "duplicate body name `link1`",
    );
    assert!(e.label().contains("line 13"), "{}", e.label());
}

#[test]
fn a_body_cannot_be_called_ground() {
    rejects(
        &edited("name = \"link2\"", "name = \"ground\""),
        19,
        8,
        "duplicate body name `ground`",
    );
}

#[test]
fn duplicate_joint_and_coordinate() {
    let e = rejects(
        &edited("name = \"q2\"", "name = \"q1\""),
        31,
        8,
        "duplicate joint name `q1`",
    );
    assert!(e.label().contains("line 24"), "{}", e.label());
    let e = rejects(
        &edited("name = \"q2\"", "name = \"q2\"\ncoordinate = \"q1\""),
        32,
        14,
        "duplicate coordinate `q1`",
    );
    assert!(e.label().contains("line 24"), "{}", e.label());
}

#[test]
fn mechanism_name_must_be_a_module_name() {
    let e = rejects(
        &edited("name = \"arm\"", "name = \"TwoLink arm\""),
        2,
        8,
        "not a lower snake case Rust identifier",
    );
    assert!(e.hint().contains("`two_link_arm`"), "{}", e.hint());
    let e = rejects(
        &edited("name = \"arm\"", "name = \"mod\""),
        2,
        8,
        "mechanism name `mod` is a Rust keyword",
    );
    assert!(e.hint().contains("`mod_`"), "{}", e.hint());
    rejects(
        &edited("name = \"arm\"", "name = \"lib\""),
        2,
        8,
        "mechanism name `lib` is reserved",
    );
}

#[test]
fn parameter_names_must_be_field_names() {
    rejects(
        &edited("g = 9.81", "\"g-0\" = 9.81"),
        7,
        1,
        "parameter name `g-0` is not a Rust identifier",
    );
    rejects(
        &edited("g = 9.81", "g = 9.81\ntype = 1"),
        8,
        1,
        "parameter name `type` is a Rust keyword",
    );
    rejects(
        &edited("g = 9.81", "g = 9.81\npi = 3.14"),
        8,
        1,
        "parameter name `pi` is reserved",
    );
    rejects(
        &edited("g = 9.81", "g = 9.81\nsqrt = 2"),
        8,
        1,
        "parameter name `sqrt` is reserved",
    );
}

// Joints.

#[test]
fn unknown_parent_or_child_body() {
    rejects(
        &edited("parent = \"link1\"", "parent = \"link9\""),
        33,
        10,
        "unknown body `link9` as parent of joint `q2`",
    );
    let e = rejects(
        &edited("child = \"link2\"", "child = \"lnk2\""),
        34,
        9,
        "unknown body `lnk2` as child of joint `q2` (did you mean `link2`?)",
    );
    assert!(e.hint().contains("ground, link1, link2"), "{}", e.hint());
}

#[test]
fn parent_equal_to_child() {
    rejects(
        &edited("child = \"link2\"", "child = \"link1\""),
        34,
        9,
        "joint `q2` connects `link1` to itself",
    );
}

#[test]
fn joint_types_and_their_axes() {
    rejects(
        &edited("type = \"revolute\"", "type = \"revolut\""),
        25,
        8,
        "unknown joint type `revolut` (did you mean `revolute`?)",
    );
    for kind in ["spherical", "planar", "free", "fixed"] {
        rejects(
            &edited("type = \"revolute\"", &format!("type = \"{kind}\"")),
            28,
            8,
            &format!("a {kind} joint has no `axis`"),
        );
    }
    let universal = edited("type = \"revolute\"", "type = \"universal\"");
    rejects(&universal, 23, 1, "missing key `axis2`");
    rejects(
        &universal.replace("axis = [0, 0, 1]", "axis = [0, 0, 1]\naxis2 = [0, 0, -2]"),
        29,
        9,
        "the universal joint's axes are parallel",
    );
    rejects(
        &edited("axis = [0, 0, 1]", "axis = [0, 0, 1]\naxis2 = [1, 0, 0]"),
        29,
        9,
        "a revolute joint has no `axis2`",
    );
}

#[test]
fn coordinates_of_multi_dof_joints_are_suffixed_and_unique() {
    let text = edited("type = \"revolute\"", "type = \"planar\"")
        .replace("axis = [0, 0, 1]\n", "")
        .replace("name = \"q2\"", "name = \"q2\"\ncoordinate = \"q1_x\"");
    rejects(&text, 31, 14, "duplicate coordinate `q1_x`");
}

#[test]
fn zero_or_non_finite_axis() {
    rejects(
        &edited("axis = [0, 0, 1]", "axis = [0, 0, 0]"),
        28,
        8,
        "joint axis is zero",
    );
    rejects(
        &edited("axis = [0, 0, 1]", "axis = [0, 0, inf]"),
        28,
        8,
        "joint axis is not finite",
    );
    rejects(
        &edited("axis = [0, 0, 1]", "axis = [0, 0, nan]"),
        28,
        8,
        "joint axis is not finite",
    );
    rejects(
        &edited("axis = [0, 0, 1]", "axis = [0, \"L\", 1]"),
        28,
        12,
        "joint axis components must be numbers, found a string",
    );
}

#[test]
fn at_most_one_rotation_in_origin() {
    let text = edited(
        "rpy = [0, 0, \"pi/2\"]",
        "rpy = [0, 0, 1], rotations = [[\"x\", 1]]",
    );
    rejects(
        &text,
        36,
        48,
        "`origin` has more than one rotation: `rpy` and `rotations`",
    );
}

#[test]
fn matrix_must_be_a_rotation() {
    let reflection = edited(
        "rpy = [0, 0, \"pi/2\"]",
        "matrix = [[1, 0, 0], [0, 1, 0], [0, 0, -1]]",
    );
    rejects(
        &reflection,
        36,
        42,
        "is not a rotation: its determinant is -1",
    );
    let skewed = edited(
        "rpy = [0, 0, \"pi/2\"]",
        "matrix = [[1, 0, 0], [0, 1, 0.001], [0, 0, 1]]",
    );
    rejects(
        &skewed,
        36,
        42,
        "is not a rotation: rows are not orthonormal",
    );
    let rounded = edited(
        "rpy = [0, 0, \"pi/2\"]",
        "matrix = [[0.7071, -0.7071, 0], [0.7071, 0.7071, 0], [0, 0, 1]]",
    );
    rejects(&rounded, 36, 42, "is not a rotation");
}

#[test]
fn rotation_axes_are_x_y_z() {
    let text = edited(
        "rpy = [0, 0, \"pi/2\"]",
        "rotations = [[\"z\", 1], [\"w\", 2]]",
    );
    rejects(&text, 36, 55, "unknown rotation axis `w`");
    let text = edited("rpy = [0, 0, \"pi/2\"]", "rotations = [[\"z\", 1, 2]]");
    rejects(&text, 36, 44, "each rotation must have 2 elements, found 3");
}

#[test]
fn axis_angle_axis_must_be_non_zero() {
    let text = edited(
        "rpy = [0, 0, \"pi/2\"]",
        "axis_angle = { axis = [0, 0, 0], angle = 1 }",
    );
    rejects(&text, 36, 53, "rotation axis is zero");
}

// Values.

#[test]
fn mass_must_be_positive() {
    rejects(
        &edited("m = 2.0", "m = -2.0"),
        14,
        9,
        "mass of body `link1` must be positive, found -2",
    );
    rejects(
        &edited("mass = 1.0", "mass = 0"),
        20,
        8,
        "mass of body `link2` must be positive, found 0",
    );
}

#[test]
fn inertia_must_be_positive_definite() {
    rejects(
        &edited("[0.01, \"I\", \"I\"]", "[0.01, \"-I\", \"I\"]"),
        16,
        11,
        "inertia of body `link1` is not positive definite",
    );
    // Large products of inertia make a tensor with positive diagonal indefinite.
    let text = edited("[0.01, \"I\", \"I\"]", "[0.1, 0.1, 0.1, 0.2, 0, 0]");
    rejects(
        &text,
        16,
        11,
        "is not positive definite: principal moments -0.1, 0.1, 0.3",
    );
}

#[test]
fn inertia_must_satisfy_the_triangle_inequality() {
    let e = rejects(
        &edited("[0.01, \"I\", \"I\"]", "[0.01, \"I\", \"4 * I\"]"),
        16,
        11,
        "triangle inequality",
    );
    assert!(
        e.message().contains("inertia of body `link1`"),
        "{}",
        e.message()
    );
    rejects(
        &edited("yy = 0.1, zz = 0.1", "yy = 0.1, zz = 0.2"),
        21,
        11,
        "triangle inequality",
    );
}

#[test]
fn flat_bodies_meet_the_triangle_inequality_within_tolerance() {
    // A thin disc: I₁ + I₂ = I₃ up to rounding (0.1 + 0.2 ≠ 0.3 in binary).
    common::spec(&edited("yy = 0.1, zz = 0.1", "yy = 0.2, zz = 0.21"));
    common::spec(&edited(
        "xx = 0.01, yy = 0.1, zz = 0.1",
        "xx = 0.1, yy = 0.2, zz = 0.3",
    ));
}

#[test]
fn values_must_be_finite() {
    rejects(
        &edited("I = \"m * L^2 / 12\"", "I = \"m / (L - 0.5)\""),
        10,
        6,
        "value is not finite: division by zero",
    );
    let e = rejects(
        &edited("\"L / 2\"", "\"sqrt(L - 1)\""),
        15,
        9,
        "square root of a negative number",
    );
    assert!(e.hint().contains("L = 0.5"), "{}", e.hint());
    rejects(
        &edited("g = 9.81", "g = inf"),
        7,
        5,
        "parameter `g` must be a finite number",
    );
    rejects(
        &edited("mass = 1.0", "mass = nan"),
        20,
        8,
        "value is not finite",
    );
    rejects(
        &edited("\"-g\"", "\"1e300 * 1e300\""),
        4,
        19,
        "value is not finite",
    );
    rejects(
        &edited("\"pi/2\"", "\"0^-1\""),
        36,
        45,
        "zero to a negative power",
    );
}

#[test]
fn single_precision_must_be_a_boolean() {
    rejects(
        &edited(
            "name = \"arm\"",
            "name = \"arm\"\nsingle_precision = \"yes\"",
        ),
        3,
        20,
        "`single_precision` must be a boolean",
    );
}
