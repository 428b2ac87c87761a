//! The CSV files of a simulation: the samples, and next to them the events
//! (`<name>.events.csv`); one header row, one complete row per sample or
//! event, every number at full `f64` precision.

use sharnir_runtime::{Direction, EventRecord, Sample};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// A CSV file being written: its header, then one complete record per row.
struct CsvFile {
    path: PathBuf,
    writer: csv::Writer<BufWriter<File>>,
    row: Vec<String>,
}

impl CsvFile {
    /// Creates the file and writes `header`.
    fn create(path: &Path, header: Vec<String>) -> Result<Self, String> {
        let file =
            File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let mut writer = csv::Writer::from_writer(BufWriter::new(file));
        writer
            .write_record(&header)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(CsvFile {
            path: path.to_path_buf(),
            writer,
            row: Vec::with_capacity(header.len()),
        })
    }

    /// Writes one record of `fields`, reusing the row's buffer.
    fn write(&mut self, fields: impl Iterator<Item = String>) -> Result<(), csv::Error> {
        self.row.clear();
        self.row.extend(fields);
        self.writer.write_record(&self.row)
    }

    /// Pushes every buffered row to the file; the csv writer buffers whole
    /// records, so the file ends with a complete row.
    fn flush(&mut self) -> Result<(), String> {
        self.writer
            .flush()
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// The header columns of a state: `q.<name>` for every position
/// coordinate, `v.<name>` for every velocity coordinate.
fn state_columns<'a>(
    positions: &'a [&str],
    velocities: &'a [&str],
) -> impl Iterator<Item = String> + 'a {
    positions
        .iter()
        .map(|n| format!("q.{n}"))
        .chain(velocities.iter().map(|n| format!("v.{n}")))
}

/// The samples CSV of a simulation.
pub struct CsvOutput(CsvFile);

impl CsvOutput {
    /// Creates the file and writes the header: `t`, `q.<name>` for every
    /// position coordinate, `v.<name>` for every velocity coordinate,
    /// `a.<name>` for every velocity coordinate (its acceleration: what
    /// `sharnir identify` reads instead of differentiating `v.*`),
    /// `drive.<name>` for every prescribed coordinate (the force its drive
    /// supplies), `energy.kinetic`, `energy.potential`, `energy.work` (the
    /// work of the mechanism's own forces and the drives since the start:
    /// `T + V − W` is conserved).
    pub fn create(
        path: &Path,
        positions: &[&str],
        velocities: &[&str],
        drives: &[&str],
    ) -> Result<Self, String> {
        let header = std::iter::once("t".to_owned())
            .chain(state_columns(positions, velocities))
            .chain(velocities.iter().map(|n| format!("a.{n}")))
            .chain(drives.iter().map(|n| format!("drive.{n}")))
            .chain(["energy.kinetic", "energy.potential", "energy.work"].map(str::to_owned))
            .collect();
        CsvFile::create(path, header).map(CsvOutput)
    }

    /// Writes one sample. Rust prints the shortest decimal that reads back
    /// as the same `f64`, so nothing is lost.
    pub fn write(&mut self, sample: &Sample<'_>) -> Result<(), csv::Error> {
        let values = std::iter::once(sample.t)
            .chain(sample.q.iter().copied())
            .chain(sample.v.iter().copied())
            .chain(sample.a.iter().copied())
            .chain(sample.drives.iter().copied())
            .chain([sample.kinetic, sample.potential, sample.work]);
        self.0.write(values.map(|x| x.to_string()))
    }

    /// Pushes every buffered row to the file.
    pub fn flush(&mut self) -> Result<(), String> {
        self.0.flush()
    }
}

/// The events file next to a samples CSV: `out.csv` → `out.events.csv`.
pub fn events_path(csv: &Path) -> PathBuf {
    csv.with_extension("events.csv")
}

/// The CSV file of the events of a run, written as they are located.
pub struct EventsCsv(CsvFile);

impl EventsCsv {
    /// Creates the file and writes the header: `t`, `event` (its name),
    /// `direction` (`rising` or `falling`), then the state as in the
    /// samples file (`q.<name>`, `v.<name>`), so that a row can seed a
    /// restart.
    pub fn create(path: &Path, positions: &[&str], velocities: &[&str]) -> Result<Self, String> {
        let header = ["t", "event", "direction"]
            .into_iter()
            .map(str::to_owned)
            .chain(state_columns(positions, velocities))
            .collect();
        CsvFile::create(path, header).map(EventsCsv)
    }

    /// Writes one event.
    pub fn write(&mut self, record: &EventRecord) -> Result<(), csv::Error> {
        let fields = [
            record.t.to_string(),
            record.name.clone(),
            direction_name(record.direction).to_owned(),
        ];
        self.0.write(
            fields
                .into_iter()
                .chain(record.y.iter().map(|x| x.to_string())),
        )
    }

    /// Pushes every buffered row to the file.
    pub fn flush(&mut self) -> Result<(), String> {
        self.0.flush()
    }
}

/// How a crossing is written in the events file and the summary.
pub fn direction_name(direction: Direction) -> &'static str {
    match direction {
        Direction::Rising => "rising",
        Direction::Falling => "falling",
        Direction::Either => "either",
    }
}
