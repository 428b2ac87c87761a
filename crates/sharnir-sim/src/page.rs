//! The animation page: one self-contained HTML file that draws recorded
//! body poses in 3-D (three.js, vendored and embedded) beside the
//! coordinates' curves. `sim --html` fills it with a run (`animation.rs`),
//! `sharnir view` with one configuration.
//!
//! The page receives the bulk numbers as base64 little-endian `f32`
//! (per sample, per body: position, then the unit quaternion
//! `x, y, z, w`), with the scene `sharnir` derives from the spec (the
//! bodies' shapes, the joint frames), and draws them with `web/viewer.js`.

use base64::Engine as _;
use serde_json::{json, Value};
use sharnir_runtime::BodyPose;
use std::path::Path;

/// three.js, bundled by `web/bundle.sh` (its licence: `vendor/three/LICENSE`).
const THREE: &str = include_str!("../vendor/three/three.min.js");
/// The page's own script.
const VIEWER: &str = include_str!("../web/viewer.js");
/// The page around them.
const PAGE: &str = include_str!("../web/page.html");

/// The samples of one model's part of a run (or of one configuration):
/// times, every body's pose, the position coordinates and the energy.
#[derive(Clone, Debug, Default)]
pub struct Frames {
    bodies: Vec<String>,
    coordinates: Vec<String>,
    times: Vec<f32>,
    poses: Vec<f32>,
    positions: Vec<f32>,
    energy: Vec<f32>,
    work: Vec<f32>,
}

impl Frames {
    /// No sample yet of the bodies `bodies` and of the curves named
    /// `coordinates` (the position coordinates, or the chosen curves).
    pub fn new(bodies: Vec<String>, coordinates: Vec<String>) -> Frames {
        Frames {
            bodies,
            coordinates,
            ..Frames::default()
        }
    }

    /// Adds the sample at `t`: each body's pose (rotation to ground axes,
    /// row-major, and origin), the curves' values `q`, the energy `T + V`
    /// and the work `W` done on the mechanism since the start.
    pub fn push(&mut self, t: f64, poses: &[BodyPose<f64>], q: &[f64], (energy, work): (f64, f64)) {
        self.times.push(t as f32);
        for pose in poses {
            self.poses.extend(pose.position.map(|x| x as f32));
            self.poses
                .extend(sharnir_runtime::rotation_quaternion(&pose.rotation).map(|x| x as f32));
        }
        self.positions.extend(q.iter().map(|&x| x as f32));
        self.energy.push(energy as f32);
        self.work.push(work as f32);
    }

    fn to_json(&self) -> Value {
        json!({
            "bodies": self.bodies,
            "coordinates": self.coordinates,
            "times": encode(&self.times),
            "poses": encode(&self.poses),
            "positions": encode(&self.positions),
            "energy": encode(&self.energy),
            "work": encode(&self.work),
        })
    }
}

/// Writes the page of `frames` (one per model, in time order) with `scene`
/// (`Value::Null` for none: each body's frame is drawn) and `events` (name
/// and time). `still` shows one configuration: joint frames and names on,
/// no curves. The file is written whole or not at all.
pub fn write_page(
    path: &Path,
    title: &str,
    scene: &Value,
    frames: &[&Frames],
    events: &[(String, f64)],
    still: bool,
) -> Result<(), String> {
    let run = json!({
        "title": title,
        "still": still,
        "scene": scene,
        "films": frames.iter().map(|f| f.to_json()).collect::<Vec<_>>(),
        "events": events
            .iter()
            .map(|(name, t)| json!({ "name": name, "t": t }))
            .collect::<Vec<_>>(),
    });
    // `</` cannot end the script the data sits in.
    let data = run.to_string().replace("</", "<\\/");
    let page = fill(&escape(title), &data)
        .ok_or("the page template lost a {{…}} marker: web/page.html is broken")?;
    let partial = path.with_extension("html.partial");
    std::fs::write(&partial, page)
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The page with its title, data, three.js and viewer, each put where its
/// marker is (the markers are found in the template before anything is
/// inserted, so inserted text is never searched).
fn fill(title: &str, data: &str) -> Option<String> {
    let (head, rest) = PAGE.split_once("{{data}}")?;
    let (middle, rest) = rest.split_once("{{three}}")?;
    let (between, tail) = rest.split_once("{{viewer}}")?;
    Some(
        [
            &head.replace("{{title}}", title),
            data,
            middle,
            THREE,
            between,
            VIEWER,
            tail,
        ]
        .concat(),
    )
}

/// Base64 of little-endian `f32`s.
fn encode(values: &[f32]) -> String {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// HTML text with `<`, `>` and `&` escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
