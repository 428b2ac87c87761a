//! The progress bars on a terminal (hidden when stderr is not one, so logs
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
    /// A bar from 0 to `t_end` seconds of simulated time, never drawn
    /// unless `shown`.
    pub fn new(t_end: f64, shown: bool) -> Self {
        let target = if shown {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(STEPS), target);
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

/// A sweep's progress in cases, with the count of failed ones.
pub struct CaseProgress {
    bar: ProgressBar,
    failed: std::sync::atomic::AtomicUsize,
}

impl CaseProgress {
    /// A bar over `cases` cases.
    pub fn new(cases: usize) -> Self {
        let bar = ProgressBar::with_draw_target(
            Some(u64::try_from(cases).unwrap_or(u64::MAX)),
            ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = ProgressStyle::with_template(
            "{bar:40} {pos}/{len} cases, {msg}{elapsed_precise} elapsed, {eta} left",
        ) {
            bar.set_style(style);
        }
        CaseProgress {
            bar,
            failed: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Counts one case as ended, failed unless `ok`.
    pub fn finished(&self, ok: bool) {
        if !ok {
            let failed = self
                .failed
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                + 1;
            self.bar.set_message(format!("{failed} failed, "));
        }
        self.bar.inc(1);
    }

    /// Removes the bar before the sweep's closing lines.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
