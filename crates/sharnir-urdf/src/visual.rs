//! `<visual>` (and `<collision>`) elements: the shapes an animation draws
//! for each link. They never enter the dynamics, so a visual that cannot be
//! read is skipped with a warning instead of failing the conversion.

use crate::geometry::Placement;
use sharnir_spec::Source;
use std::collections::HashMap;

/// One shape of a link, placed in the link frame.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkVisual {
    /// The URDF link.
    pub link: String,
    /// Whether it is a `<collision>` shape (drawn only where the link's
    /// visuals cannot be).
    pub collision: bool,
    /// The shape's frame in the link frame (rows):
    /// `p_link = translation + rotation · p_shape`.
    pub rotation: [[f64; 3]; 3],
    /// The shape frame's origin in the link frame, m.
    pub translation: [f64; 3],
    /// What is drawn.
    pub geometry: Geometry,
    /// Red, green, blue, alpha from 0 to 1, from the visual's `<material>`
    /// or the robot's material of that name.
    pub color: Option<[f64; 4]>,
}

/// A URDF geometry.
#[derive(Clone, Debug, PartialEq)]
pub enum Geometry {
    /// `<box size>`: edge lengths, centred.
    Box([f64; 3]),
    /// `<cylinder radius length>`: along z, centred.
    Cylinder {
        /// Radius, m.
        radius: f64,
        /// Length along z, m.
        length: f64,
    },
    /// `<sphere radius>`.
    Sphere(f64),
    /// `<mesh filename scale>`: the file as written (`package://…`,
    /// `file://…` or a path relative to the URDF).
    Mesh {
        /// The `filename` attribute.
        filename: String,
        /// The `scale` attribute (1 by default).
        scale: [f64; 3],
    },
}

/// Every link's visuals and collision shapes in document order, and a
/// warning (`file:line:col: …`) for each one skipped.
pub fn link_visuals(source: &Source) -> (Vec<LinkVisual>, Vec<String>) {
    let mut warnings = Vec::new();
    let Ok(document) = crate::input::parse(&source.text) else {
        return (Vec::new(), warnings);
    };
    let robot = document.root_element();
    let materials: HashMap<&str, [f64; 4]> = robot
        .children()
        .filter(|c| c.has_tag_name("material"))
        .filter_map(|m| Some((m.attribute("name")?, color(m)?)))
        .collect();
    let mut visuals = Vec::new();
    for link in robot.children().filter(|c| c.has_tag_name("link")) {
        let Some(name) = link.attribute("name") else {
            continue;
        };
        for element in link
            .children()
            .filter(|c| c.has_tag_name("visual") || c.has_tag_name("collision"))
        {
            match shape(element, name, &materials) {
                Ok(visual) => visuals.push(visual),
                Err(problem) => {
                    let (line, column) = source.line_column(element.range().start);
                    warnings.push(format!(
                        "{}:{line}:{column}: a <{}> of link `{name}` is not drawn: {problem}",
                        source.name,
                        element.tag_name().name()
                    ));
                }
            }
        }
    }
    (visuals, warnings)
}

/// One `<visual>` or `<collision>`.
fn shape(
    element: roxmltree::Node,
    link: &str,
    materials: &HashMap<&str, [f64; 4]>,
) -> Result<LinkVisual, String> {
    let numbers = |text: &str, count: usize| -> Result<Vec<f64>, String> {
        let values: Vec<f64> = text
            .split_whitespace()
            .map(|w| {
                w.parse::<f64>()
                    .map_err(|_| format!("`{w}` is not a number"))
            })
            .collect::<Result<_, _>>()?;
        if values.len() != count || values.iter().any(|v| !v.is_finite()) {
            return Err(format!("`{text}` is not {count} finite numbers"));
        }
        Ok(values)
    };
    let placement = match element.children().find(|c| c.has_tag_name("origin")) {
        Some(origin) => {
            let read = |key: &str| -> Result<[f64; 3], String> {
                match origin.attribute(key) {
                    Some(text) => {
                        let v = numbers(text, 3)?;
                        Ok([v[0], v[1], v[2]])
                    }
                    None => Ok([0.0; 3]),
                }
            };
            Placement::from_xyz_rpy(read("xyz")?, read("rpy")?)
        }
        None => Placement::identity(),
    };
    let geometry = element
        .children()
        .find(|c| c.has_tag_name("geometry"))
        .and_then(|g| g.children().find(|c| c.is_element()))
        .ok_or("it has no <geometry>")?;
    let attribute = |key: &str| {
        geometry
            .attribute(key)
            .ok_or_else(|| format!("<{}> has no `{key}`", geometry.tag_name().name()))
    };
    let positive = |key: &str| -> Result<f64, String> {
        let value = numbers(attribute(key)?, 1)?[0];
        if value > 0.0 {
            Ok(value)
        } else {
            Err(format!("its {key} is not positive"))
        }
    };
    let geometry = match geometry.tag_name().name() {
        "box" => {
            let size = numbers(attribute("size")?, 3)?;
            if size.iter().any(|s| *s <= 0.0) {
                return Err("a box edge is not positive".to_owned());
            }
            Geometry::Box([size[0], size[1], size[2]])
        }
        "cylinder" => Geometry::Cylinder {
            radius: positive("radius")?,
            length: positive("length")?,
        },
        "sphere" => Geometry::Sphere(positive("radius")?),
        "mesh" => Geometry::Mesh {
            filename: attribute("filename")?.to_owned(),
            scale: match geometry.attribute("scale") {
                Some(text) => {
                    let s = numbers(text, 3)?;
                    [s[0], s[1], s[2]]
                }
                None => [1.0; 3],
            },
        },
        other => return Err(format!("<{other}> is not a URDF geometry")),
    };
    let color = element
        .children()
        .find(|c| c.has_tag_name("material"))
        .and_then(|m| {
            color(m).or_else(|| m.attribute("name").and_then(|n| materials.get(n).copied()))
        });
    Ok(LinkVisual {
        link: link.to_owned(),
        collision: element.has_tag_name("collision"),
        rotation: placement.matrix,
        translation: placement.translation,
        geometry,
        color,
    })
}

/// A `<material>`'s `<color rgba>`.
fn color(material: roxmltree::Node) -> Option<[f64; 4]> {
    let rgba: Vec<f64> = material
        .children()
        .find(|c| c.has_tag_name("color"))?
        .attribute("rgba")?
        .split_whitespace()
        .map(|w| w.parse().ok())
        .collect::<Option<_>>()?;
    match rgba.as_slice() {
        [r, g, b, a] => Some([*r, *g, *b, *a].map(|c: f64| c.clamp(0.0, 1.0))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{link_visuals, Geometry};
    use sharnir_spec::Source;

    #[test]
    fn visuals_collisions_and_materials_are_read_and_bad_ones_skipped() {
        let text = r#"<robot name="r">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="a">
    <visual><origin xyz="0 0 0.1" rpy="0 0 1.5707963267948966"/>
      <geometry><box size="0.1 0.2 0.3"/></geometry><material name="blue"/></visual>
    <collision><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
    <visual><geometry><mesh filename="package://p/m.stl" scale="0.001 0.001 0.001"/></geometry>
      <material name="red"><color rgba="1 0 0 1"/></material></visual>
    <visual><geometry><sphere radius="-1"/></geometry></visual>
  </link>
</robot>"#;
        let source = Source {
            name: "r.urdf".to_owned(),
            text: text.to_owned(),
        };
        let (visuals, warnings) = link_visuals(&source);
        assert_eq!(visuals.len(), 3);
        assert_eq!(visuals[0].geometry, Geometry::Box([0.1, 0.2, 0.3]));
        assert_eq!(visuals[0].color, Some([0.0, 0.0, 1.0, 1.0]));
        assert!((visuals[0].rotation[1][0] - 1.0).abs() < 1e-15);
        assert_eq!(visuals[0].translation, [0.0, 0.0, 0.1]);
        assert!(visuals[1].collision);
        assert_eq!(
            visuals[2].geometry,
            Geometry::Mesh {
                filename: "package://p/m.stl".to_owned(),
                scale: [0.001; 3]
            }
        );
        assert_eq!(visuals[2].color, Some([1.0, 0.0, 0.0, 1.0]));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("r.urdf:9:5:"), "{}", warnings[0]);
    }
}
