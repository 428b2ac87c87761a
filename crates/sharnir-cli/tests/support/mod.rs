//! What the identification tests share: seeded Gaussian noise, the same
//! numbers on every machine, and the estimates of a `--json` report.

/// Standard normal numbers by Box–Muller on SplitMix64.
pub struct Normal(pub u64);

impl Normal {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// The next number.
    pub fn next(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// The estimates and deviations of `identify --json`'s report, by name.
pub fn estimates(report: &serde_json::Value) -> Vec<(String, f64, f64)> {
    report["base_parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .map(|p| {
            let number = |key: &str| p[key].as_f64().expect("a number");
            let name = p["name"].as_str().expect("a name").to_owned();
            (name, number("estimate"), number("deviation"))
        })
        .collect()
}
