//! A simulation from Rust: the textbook's triple pendulum for 5 s with
//! DOP853, every 10 ms a row `t, q…, q̇…, T, V` in a CSV file, and the
//! summary's energy drift, what `sharnir sim --csv` does without the
//! command line.

use sharnir_runtime::{model, Method, Sample, Simulation, Tolerances};
use std::error::Error;
use std::path::Path;

model!(Pendulum = sharnir_generated::triple_pendulum);

/// Simulates into `path` and returns the number of rows and the energy
/// drift relative to the energy that moved.
fn run(path: &Path) -> Result<(usize, f64), Box<dyn Error>> {
    let mut writer = csv::Writer::from_path(path)?;
    writer.write_record([
        "t",
        "theta1",
        "theta2",
        "theta3",
        "w1",
        "w2",
        "w3",
        "kinetic",
        "potential",
    ])?;
    let mut rows = 0;
    let mut failure = None;
    let summary = Simulation::new(Pendulum::default())
        .method(Method::Dop853)
        .tolerances(Tolerances {
            rtol: 1e-10,
            atol: 1e-10,
        })
        .output_interval(0.01)
        .run(5.0, |s: &Sample<'_>| {
            let values = std::iter::once(s.t)
                .chain(s.q.iter().copied())
                .chain(s.v.iter().copied())
                .chain([s.kinetic, s.potential]);
            match writer.write_record(values.map(|x| x.to_string())) {
                Ok(()) => rows += 1,
                Err(e) => failure = Some(e),
            }
        })?;
    if let Some(e) = failure {
        return Err(e.into());
    }
    writer.flush()?;
    Ok((rows, summary.relative_energy_drift()))
}

fn main() -> Result<(), Box<dyn Error>> {
    let path = Path::new("triple_pendulum.csv");
    let (rows, drift) = run(path)?;
    println!(
        "{rows} samples in {}, energy drift {drift:.1e} of the energy that moved",
        path.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_csv_has_every_sample_and_the_energy_holds() {
        let dir = std::env::temp_dir().join(format!("sharnir-example-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("triple_pendulum.csv");
        let (rows, drift) = super::run(&path).expect("runs");
        assert_eq!(rows, 501);
        assert!(drift < 1e-8, "drift {drift}");
        let text = std::fs::read_to_string(&path).expect("csv");
        assert_eq!(text.lines().count(), 502);
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
