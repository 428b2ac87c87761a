//! The PNG plot of a simulation: the chosen curves (`--plot-select`, by
//! default the position coordinates) against time, and
//! below them the error of the energy balance `T + V − W − E(0)` (`W` the
//! work of the mechanism's own forces, zero for a conservative run), with a
//! vertical line at every event (a stop struck, a joint let go).
//!
//! Drawn with `plotters` into a buffer, with a font embedded in the binary,
//! so no system library (fontconfig, freetype) is needed, and written by
//! `png` (plotters' own encoder would bring in the whole `image` crate, a
//! third of a minute of compilation for one format).

use crate::curves::Curves;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use sharnir_runtime::{EventRecord, Sample};
use std::path::Path;
use std::sync::Once;

/// The samples kept for the plot.
pub struct Trace {
    curves: Curves,
    t: Vec<f64>,
    q: Vec<Vec<f64>>,
    energy: Vec<f64>,
    /// The times of the events, marked on both panels.
    events: Vec<f64>,
}

impl Trace {
    /// An empty trace of `curves`.
    pub(crate) fn new(curves: Curves) -> Trace {
        Trace {
            q: vec![Vec::new(); curves.names().len()],
            curves,
            t: Vec::new(),
            energy: Vec::new(),
            events: Vec::new(),
        }
    }

    /// Keeps one sample.
    pub fn push(&mut self, sample: &Sample<'_>) {
        self.t.push(sample.t);
        let values = self.curves.values(sample);
        for (series, value) in self.q.iter_mut().zip(values) {
            series.push(value);
        }
        self.energy
            .push(sample.kinetic + sample.potential - sample.work);
    }

    /// Keeps one event's time.
    pub fn event(&mut self, record: &EventRecord) {
        self.events.push(record.t);
    }
}

/// A thin grey line at every event time across a panel's value range.
fn event_lines(
    events: &[f64],
    (low, high): (f64, f64),
) -> impl Iterator<Item = PathElement<(f64, f64)>> + '_ {
    events.iter().map(move |&t| {
        PathElement::new(
            [(t, low), (t, high)],
            RGBColor(230, 120, 0).mix(0.7).stroke_width(1),
        )
    })
}

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

/// Draws the trace into a PNG file at `path`.
pub fn draw(path: &Path, title: &str, trace: &Trace, conservative: bool) -> Result<(), String> {
    REGISTER.call_once(|| {
        // The font is embedded and valid; a failure would only leave the
        // labels out, which `draw_panels` reports as an error.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
    draw_panels(path, title, trace, conservative)
        .map_err(|e| format!("cannot draw {}: {e}", path.display()))
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// The plot's size in pixels.
const SIZE: (u32, u32) = (1200, 900);

fn draw_panels(path: &Path, title: &str, trace: &Trace, conservative: bool) -> DrawResult {
    let mut pixels = vec![0u8; 3 * SIZE.0 as usize * SIZE.1 as usize];
    panels(&mut pixels, title, trace, conservative)?;
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, SIZE.0, SIZE.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&pixels)?;
    writer.finish()?;
    Ok(())
}

/// Draws both panels into `pixels`, RGB rows of [`SIZE`].
fn panels(pixels: &mut [u8], title: &str, trace: &Trace, conservative: bool) -> DrawResult {
    let root = BitMapBackend::with_buffer(pixels, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(560);
    let (t0, t1) = bounds(&trace.t);
    let t1 = if t1 > t0 { t1 } else { t0 + 1.0 };

    let all_q = trace.q.iter().flatten().copied();
    let (q_low, q_high) = padded(all_q);
    let mut chart = ChartBuilder::on(&top)
        .caption(format!("{title}: coordinates"), ("sans-serif", 24))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(100)
        .build_cartesian_2d(t0..t1, q_low..q_high)?;
    chart
        .configure_mesh()
        .x_desc("t, s")
        .y_desc("value")
        .label_style(("sans-serif", 15))
        .draw()?;
    chart.draw_series(event_lines(&trace.events, (q_low, q_high)))?;
    for (i, (series, name)) in trace.q.iter().zip(trace.curves.names()).enumerate() {
        let color = Palette99::pick(i).to_rgba();
        // A wrapped angle's jump across ±π is not a line.
        let wrapped = trace.curves.is_wrapped(i);
        let mut pieces: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for (k, (&t, &value)) in trace.t.iter().zip(series).enumerate() {
            let jump = k > 0 && wrapped && (value - series[k - 1]).abs() > std::f64::consts::PI;
            if jump {
                pieces.push(Vec::new());
            }
            if let Some(piece) = pieces.last_mut() {
                piece.push((t, value));
            }
        }
        for (k, piece) in pieces.into_iter().enumerate() {
            let drawn = chart.draw_series(LineSeries::new(piece, color.stroke_width(2)))?;
            if k == 0 {
                drawn.label(name.as_str()).legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                });
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;

    let e0 = trace.energy.first().copied().unwrap_or_default();
    let (label, values): (&str, Vec<f64>) = if conservative {
        ("E(t) − E(0)", trace.energy.iter().map(|e| e - e0).collect())
    } else {
        (
            "E(t) − W(t) − E(0)",
            trace.energy.iter().map(|e| e - e0).collect(),
        )
    };
    let (e_low, e_high) = padded(values.iter().copied());
    let resolution = (e_high - e_low) * 1e-6;
    let tick = move |y: &f64| {
        if y.abs() < resolution {
            "0".to_owned()
        } else {
            format!("{y:.2e}")
        }
    };
    let mut chart = ChartBuilder::on(&bottom)
        .caption(
            if conservative {
                "energy error"
            } else {
                "energy balance error (W: work of the forces, stops, damping, friction, drives)"
            },
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(100)
        .build_cartesian_2d(t0..t1, e_low..e_high)?;
    chart
        .configure_mesh()
        .x_desc("t, s")
        .y_desc(label)
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 15))
        .draw()?;
    chart.draw_series(event_lines(&trace.events, (e_low, e_high)))?;
    chart.draw_series(LineSeries::new(
        trace.t.iter().copied().zip(values.iter().copied()),
        BLUE.stroke_width(2),
    ))?;
    root.present()?;
    Ok(())
}

/// The smallest and largest finite value (0, 0 when there is none).
fn bounds(values: &[f64]) -> (f64, f64) {
    let finite = values.iter().copied().filter(|v| v.is_finite());
    finite
        .fold(None, |range: Option<(f64, f64)>, v| match range {
            None => Some((v, v)),
            Some((low, high)) => Some((low.min(v), high.max(v))),
        })
        .unwrap_or((0.0, 0.0))
}

/// A value range with 5 % margins, never empty (a constant series gets a
/// band around its value).
fn padded(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let values: Vec<f64> = values.collect();
    let (low, high) = bounds(&values);
    let span = high - low;
    if span > 1e-300 {
        (low - 0.05 * span, high + 0.05 * span)
    } else {
        let band = low.abs().max(1e-12) * 0.1;
        (low - band, high + band)
    }
}
