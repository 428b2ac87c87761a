//! The firmware's results on an emulated Cortex-M4F against the host's.
//!
//! `tests/firmware/run-qemu.sh` builds the `firmware` binary, runs it under
//! `qemu-system-arm -machine mps2-an386` and calls this test with the
//! output's path in `SHARNIR_FIRMWARE_LOG`; without it (no QEMU), the test
//! only says so. Every row the target printed is recomputed on the host by
//! the same code (`sharnir_firmware_check::workload`) and compared:
//!
//! - the same function in the same precision: to 4 ulps of the row's
//!   largest entry (the target and the host run the same IEEE operations in
//!   the same order and `libm` in software on both, so they agree to the bit
//!   in practice, but nothing in Rust promises it for `sincos`);
//! - each `_f32` function on the target against the `f64` function on the
//!   host: to the single-precision tolerances of `tests/single_precision.rs`
//!   (32 ε₃₂ for inverse dynamics, 16 ε₃₂ for the mass matrix, 256 ε₃₂ for
//!   forward dynamics: 8 times the largest error measured there over 10 000
//!   states, rounded up to a power of two), the `f64` module evaluated at
//!   the state rounded to `f32`.

use std::collections::BTreeMap;

use sharnir_firmware_check::workload::{self, Probe, STATES};

/// Rows by `(label, k)`, each value widened to `f64`.
#[derive(Default)]
struct Rows(BTreeMap<(String, usize), Vec<f64>>);

impl Probe for Rows {
    fn f64_row(&mut self, label: &str, k: usize, values: &[f64]) {
        self.0.insert((label.to_owned(), k), values.to_vec());
    }

    fn f32_row(&mut self, label: &str, k: usize, values: &[f32]) {
        let values = values.iter().map(|&v| f64::from(v)).collect();
        self.0.insert((label.to_owned(), k), values);
    }

    fn time(&mut self, _: &str, f: &mut dyn FnMut()) {
        f();
    }
}

/// The rows the host computes: every state through every workload.
fn host_rows() -> Rows {
    let mut rows = Rows::default();
    for k in 0..STATES {
        workload::telegin6_rows(k, &mut rows);
        workload::telegin6_f32_rows(k, &mut rows);
        workload::rk4_rows(k, &mut rows);
        workload::four_bar_rows(k, &mut rows);
    }
    rows
}

/// The rows of the target's log (`label k hex…`; other lines skipped).
fn parse(log: &str) -> Result<Rows, String> {
    let mut rows = Rows::default();
    for line in log.lines() {
        let mut words = line.split_whitespace();
        let (Some(label), Some(k)) = (words.next(), words.next()) else {
            continue;
        };
        let single = label.starts_with("f32.");
        if !single && !label.starts_with("f64.") {
            continue;
        }
        let k: usize = k.parse().map_err(|e| format!("{line}: {e}"))?;
        let values = words
            .map(|w| {
                let bits = u64::from_str_radix(w, 16).map_err(|e| format!("{line}: {e}"))?;
                Ok(if single {
                    f64::from(f32::from_bits(bits as u32))
                } else {
                    f64::from_bits(bits)
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        rows.0.insert((label.to_owned(), k), values);
    }
    Ok(rows)
}

/// `‖a − b‖∞ / ‖b‖∞` (∞ when the lengths differ or anything is NaN).
fn relative(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() || a.iter().chain(b).any(|x| x.is_nan()) {
        return f64::INFINITY;
    }
    let scale = b.iter().fold(f64::MIN_POSITIVE, |m, x| m.max(x.abs()));
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
        / scale
}

#[test]
fn the_target_computes_what_the_host_computes() {
    let Ok(path) = std::env::var("SHARNIR_FIRMWARE_LOG") else {
        println!("SHARNIR_FIRMWARE_LOG is not set: no QEMU log to compare (run tests/firmware/run-qemu.sh)");
        return;
    };
    let log = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(
        log.lines().any(|l| l == "done"),
        "the firmware did not finish:\n{log}"
    );
    assert!(
        log.lines().any(|l| l.starts_with("every function")),
        "the firmware skipped the coverage modules:\n{log}"
    );
    let target = parse(&log).unwrap_or_else(|e| panic!("{path}: {e}"));
    let host = host_rows();
    assert_eq!(
        target.0.keys().collect::<Vec<_>>(),
        host.0.keys().collect::<Vec<_>>(),
        "the target printed other rows than the host computes"
    );
    let mut worst: BTreeMap<&str, f64> = BTreeMap::new();
    for ((label, k), expected) in &host.0 {
        let got = &target.0[&(label.clone(), *k)];
        assert!(!expected.is_empty(), "{label} {k}: the host's call failed");
        let ulp = if label.starts_with("f32.") {
            f64::from(f32::EPSILON)
        } else {
            f64::EPSILON
        };
        let error = relative(got, expected);
        assert!(
            error <= 4.0 * ulp,
            "{label} {k}: target {got:?}, host {expected:?}"
        );
        let entry = worst.entry(label).or_default();
        *entry = entry.max(error);
    }
    for (label, error) in &worst {
        println!("target against host, {label}: {error:.1e}");
    }
    // Single precision on the target against double precision on the host.
    for (function, tolerance) in [
        ("inverse_dynamics", 32.0),
        ("mass_matrix", 16.0),
        ("forward_dynamics", 256.0),
    ] {
        let mut largest = 0.0_f64;
        for k in 0..STATES {
            let single = &target.0[&(format!("f32.{function}"), k)];
            let (q, qd, qdd) = workload::state_f32(k);
            let widen = |x: [f32; workload::N]| x.map(f64::from);
            let double = reference(function, &widen(q), &widen(qd), &widen(qdd));
            largest = largest.max(relative(single, &double));
        }
        println!("f32 on the target against f64 on the host, {function}: {largest:.1e}");
        assert!(
            largest < tolerance * f64::from(f32::EPSILON),
            "{function}: {largest:e}"
        );
    }
}

/// The `f64` module's `function` at a state; forward dynamics takes the
/// torques the target computed in `f32` (the row before it), so it is fed
/// the same input.
fn reference(function: &str, q: &[f64; 6], qd: &[f64; 6], qdd: &[f64; 6]) -> Vec<f64> {
    use sharnir_generated::telegin6 as double;
    let d = double::Params::default().derived();
    match function {
        "inverse_dynamics" => double::inverse_dynamics_with(&d, q, qd, qdd).to_vec(),
        "mass_matrix" => double::mass_matrix_with(&d, q).concat(),
        _ => {
            // The target's forward dynamics took its own f32 torques.
            let tau32 = single_torques(q, qd, qdd);
            double::forward_dynamics_with(&d, q, qd, &tau32).to_vec()
        }
    }
}

/// The `f32` module's torques at the (already `f32`-representable) state,
/// widened: the input the target's forward dynamics had.
fn single_torques(q: &[f64; 6], qd: &[f64; 6], qdd: &[f64; 6]) -> [f64; 6] {
    use sharnir_generated::telegin6_f32 as single;
    let narrow = |x: &[f64; 6]| x.map(|v| v as f32);
    let d = single::Params::default().derived();
    single::inverse_dynamics_with(&d, &narrow(q), &narrow(qd), &narrow(qdd)).map(f64::from)
}
