//! A URDF robot's `<visual>` shapes on the spec bodies its links became:
//! what `sim --html` draws for a URDF input.
//!
//! Each link's visuals are placed in the frame of the body the link was
//! lumped into (`sharnir_urdf::Conversion::frames`). A link whose visuals
//! cannot be drawn (a missing or unreadable mesh) is drawn with its
//! `<collision>` shapes instead, and a warning says so; a body with neither
//! gets the default shapes. Mesh paths are resolved as ROS tools do:
//! `package://NAME/rest` in a directory NAME found in a `--package-path`
//! directory or among the URDF's ancestors, `file://` as given, anything
//! else relative to the URDF.

use crate::frame::Frame;
use crate::mesh;
use serde_json::{json, Value};
use sharnir_urdf::{Geometry, LinkVisual};
use std::path::{Path, PathBuf};

/// What the page needs of a URDF beyond its spec.
pub(crate) struct UrdfScene {
    visuals: Vec<LinkVisual>,
    frames: Vec<sharnir_urdf::Frame>,
    directory: PathBuf,
    package_paths: Vec<PathBuf>,
}

impl UrdfScene {
    /// The shapes of `conversion`'s robot read from the URDF `source`
    /// (whose file is in `directory`), meshes looked up in `package_paths`
    /// first; the visuals that could not be read are warned about on stderr.
    pub(crate) fn new(
        source: &sharnir_spec::Source,
        conversion: &sharnir_urdf::Conversion,
        directory: &Path,
        package_paths: &[PathBuf],
    ) -> UrdfScene {
        let (visuals, warnings) = sharnir_urdf::link_visuals(source);
        for warning in warnings {
            eprintln!("warning: {warning}");
        }
        UrdfScene {
            visuals,
            frames: conversion.frames.clone(),
            directory: directory.to_owned(),
            package_paths: package_paths.to_owned(),
        }
    }

    /// The shapes of every link lumped into `body`, in its frame; empty when
    /// none can be drawn.
    pub(crate) fn body_visuals(&self, body: &str) -> Vec<Value> {
        let mut shapes = Vec::new();
        for frame in self.frames.iter().filter(|f| f.body == body) {
            let placed = Frame {
                rotation: frame.rotation,
                translation: frame.translation,
            };
            let of_link = |collision: bool| {
                self.visuals
                    .iter()
                    .filter(move |v| v.link == frame.link && v.collision == collision)
            };
            let mut drawn = Vec::new();
            let mut failed = false;
            for visual in of_link(false) {
                match self.shape(visual, &placed) {
                    Ok(shape) => drawn.push(shape),
                    Err(message) => {
                        eprintln!("warning: a visual of link `{}`: {message}", frame.link);
                        failed = true;
                    }
                }
            }
            if failed || drawn.is_empty() {
                let collisions: Vec<Value> = of_link(true)
                    .filter_map(|visual| self.shape(visual, &placed).ok())
                    .collect();
                if !collisions.is_empty() {
                    if failed {
                        eprintln!(
                            "warning: link `{}` is drawn with its collision shapes",
                            frame.link
                        );
                    }
                    drawn = collisions;
                }
            }
            shapes.extend(drawn);
        }
        shapes
    }

    /// One visual as the page draws it, placed by `link` (the link frame in
    /// the body's).
    fn shape(&self, visual: &LinkVisual, link: &Frame) -> Result<Value, String> {
        let mut shape = match &visual.geometry {
            Geometry::Box(size) => json!({ "shape": "box", "size": size }),
            Geometry::Cylinder { radius, length } => {
                json!({ "shape": "cylinder", "radius": radius, "length": length })
            }
            Geometry::Sphere(radius) => json!({ "shape": "sphere", "radius": radius }),
            Geometry::Mesh { filename, scale } => {
                let file = self.resolve(filename)?;
                mesh::shape(&file, *scale).map_err(|e| format!("{}: {e}", file.display()))?
            }
        };
        let placed = link.then(&Frame {
            rotation: visual.rotation,
            translation: visual.translation,
        });
        shape["matrix"] = json!(placed.matrix());
        if let Some([r, g, b, _]) = visual.color {
            shape["color"] = json!([r, g, b]);
        }
        Ok(shape)
    }

    /// The file a URDF mesh `filename` names.
    fn resolve(&self, filename: &str) -> Result<PathBuf, String> {
        if let Some(path) = filename.strip_prefix("file://") {
            return Ok(PathBuf::from(path));
        }
        let Some(rest) = filename.strip_prefix("package://") else {
            return Ok(self.directory.join(filename));
        };
        let (package, inside) = rest.split_once('/').unwrap_or((rest, ""));
        let given = self.package_paths.iter().map(|dir| dir.join(package));
        let ancestors = self
            .directory
            .ancestors()
            .filter(|dir| dir.file_name().is_some_and(|n| n == package))
            .map(Path::to_path_buf);
        given
            .chain(ancestors)
            .map(|root| root.join(inside))
            .find(|file| file.exists())
            .ok_or_else(|| {
                format!(
                    "`{filename}`: package `{package}` not found (give the directory that \
                     holds it with --package-path)"
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::UrdfScene;
    use std::path::PathBuf;

    /// A two-link arm whose links are drawn by a packaged STL, a box, and a
    /// collision cylinder standing in for a missing mesh.
    #[test]
    fn link_visuals_land_on_their_bodies_with_packages_resolved() {
        let dir = tempfile::tempdir().expect("temp dir");
        let package = dir.path().join("share").join("arm_description");
        std::fs::create_dir_all(package.join("meshes")).expect("dirs");
        let mut stl = vec![0_u8; 80];
        stl.extend(1_u32.to_le_bytes());
        stl.extend([0_u8; 12]);
        for c in [0.0_f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
            stl.extend(c.to_le_bytes());
        }
        stl.extend([0_u8; 2]);
        std::fs::write(package.join("meshes").join("upper.stl"), stl).expect("stl");
        let urdf = r#"<robot name="arm">
  <link name="base"/>
  <link name="upper">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <visual><origin xyz="0 0 0.5"/><geometry><mesh filename="package://arm_description/meshes/upper.stl"/></geometry></visual>
    <visual><geometry><box size="0.1 0.1 0.1"/></geometry><material name="c"><color rgba="1 0.5 0 1"/></material></visual>
  </link>
  <link name="lower">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <visual><geometry><mesh filename="package://arm_description/meshes/missing.stl"/></geometry></visual>
    <collision><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
  </link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 1"/><axis xyz="0 1 0"/></joint>
</robot>"#;
        let source = sharnir_spec::Source {
            name: "arm.urdf".to_owned(),
            text: urdf.to_owned(),
        };
        let conversion =
            sharnir_urdf::convert(&source, &sharnir_urdf::Options::default()).expect("converts");
        let directory = dir.path().join("urdf");
        let scene = UrdfScene::new(
            &source,
            &conversion,
            &directory,
            &[dir.path().join("share")],
        );
        let upper = scene.body_visuals("upper");
        assert_eq!(upper.len(), 2, "{upper:?}");
        assert_eq!(upper[0]["shape"], "mesh");
        assert_eq!(upper[0]["matrix"][14], 0.5, "the mesh's origin");
        assert_eq!(upper[1]["shape"], "box");
        assert_eq!(upper[1]["color"], serde_json::json!([1.0, 0.5, 0.0]));
        let lower = scene.body_visuals("lower");
        assert_eq!(lower.len(), 1);
        assert_eq!(
            lower[0]["shape"], "cylinder",
            "the collision shape stands in"
        );
        // Without the package path, the ancestors are searched, and a
        // package found nowhere is an error naming it.
        let inside = package.join("urdf");
        let scene = UrdfScene::new(&source, &conversion, &inside, &[]);
        assert_eq!(scene.body_visuals("upper")[0]["shape"], "mesh");
        let lost = UrdfScene::new(&source, &conversion, &PathBuf::from("/nowhere"), &[]);
        let error = lost
            .resolve("package://arm_description/meshes/upper.stl")
            .unwrap_err();
        assert!(error.contains("--package-path"), "{error}");
    }
}
