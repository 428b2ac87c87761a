//! The progress bar on a terminal (hidden when stderr is not one, so logs
//! and CI output stay clean).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Progress in simulated time, drawn at most a few times a second.
pub struct Progress {
    bar: ProgressBar,
    t_end: f64,
}

/// Resolution of the bar: positions are thousandths of the run.
const STEPS: u64 = 1000;

impl Progress {
    /// A bar from 0 to `t_end` seconds of simulated time.
    pub fn new(t_end: f64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "{bar:40} {msg} simulated, {elapsed_precise} elapsed, {eta} left",
        ) {
            bar.set_style(style);
        }
        Progress { bar, t_end }
    }

    /// Moves the bar to simulated time `t`.
    pub fn set(&self, t: f64) {
        let fraction = (t / self.t_end).clamp(0.0, 1.0);
        let position = (fraction * STEPS as f64) as u64;
        if position != self.bar.position() {
            self.bar.set_position(position);
            self.bar.set_message(format!("{t:.3} s"));
        }
    }

    /// Removes the bar before the summary is printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
