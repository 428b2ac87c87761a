//! `--html`: the run drawn by the animation page (`page.rs`). The binary
//! records every body's pose (from the module's `body_poses`) at every
//! output sample.

use crate::curves::Curves;
use crate::page::{write_page, Frames};
use serde_json::Value;
use sharnir_runtime::{BodyPose, BodyPoses, EventRecord, Sample};
use std::path::Path;

/// Writes every body's pose at `q` into the slice.
type PoseFunction = Box<dyn Fn(&[f64], &mut [BodyPose<f64>])>;

/// How a run finds its bodies: their names and their poses at `q`.
pub(crate) struct Drawing {
    names: &'static [&'static str],
    poses: PoseFunction,
}

impl Drawing {
    /// The bodies of `model`.
    pub(crate) fn of<M, const NQ: usize, const NV: usize>(model: &M) -> Drawing
    where
        M: BodyPoses<NQ, NV, Real = f64> + Clone + 'static,
    {
        let model = model.clone();
        Drawing {
            names: M::BODY_NAMES,
            poses: Box::new(move |q, poses| {
                if let Ok(q) = <[f64; NQ]>::try_from(q) {
                    model.body_poses(&q, poses);
                }
            }),
        }
    }
}

/// The samples of one model's part of a run (the whole run, or the part
/// before or after a release), as they are recorded.
pub(crate) struct Film {
    drawing: Drawing,
    curves: Curves,
    frames: Frames,
    scratch: Vec<BodyPose<f64>>,
}

impl Film {
    /// An empty film of the bodies of `drawing` and of `curves`.
    pub(crate) fn new(drawing: Drawing, curves: Curves) -> Film {
        let bodies = drawing.names.len();
        Film {
            frames: Frames::new(
                drawing.names.iter().map(|n| (*n).to_owned()).collect(),
                curves.names().to_vec(),
            ),
            drawing,
            curves,
            scratch: vec![BodyPose::default(); bodies],
        }
    }

    /// Adds one sample: every body's pose, the coordinates and the energy.
    pub(crate) fn record(&mut self, sample: &Sample<'_>) {
        (self.drawing.poses)(sample.q, &mut self.scratch);
        self.frames.push(
            sample.t,
            &self.scratch,
            &self.curves.values(sample),
            (sample.kinetic + sample.potential, sample.work),
        );
    }
}

/// Writes the page of a run made of `films`, with the scene `sharnir sim`
/// wrote (`None`: each body's frame is drawn) and the located `events`.
pub(crate) fn write_run(
    path: &Path,
    title: &str,
    scene: Option<&Path>,
    films: &[&Film],
    events: &[EventRecord],
) -> Result<(), String> {
    let scene: Value = match scene {
        Some(file) => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("cannot read the scene {}: {e}", file.display()))?;
            serde_json::from_str(&text)
                .map_err(|e| format!("the scene {} is not valid: {e}", file.display()))?
        }
        None => Value::Null,
    };
    let frames: Vec<&Frames> = films.iter().map(|f| &f.frames).collect();
    let events: Vec<(String, f64)> = events.iter().map(|e| (e.name.clone(), e.t)).collect();
    write_page(path, title, &scene, &frames, &events, false)
}
