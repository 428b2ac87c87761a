//! The firmware binary: on a Cortex-M4F (`thumbv7em-none-eabihf`), evaluates
//! what [`sharnir_firmware_check::workload`] lists (a generated module's
//! inverse dynamics, mass matrix and forward dynamics in `f64` and `f32`, an
//! RK4 step of the runtime, a closed linkage's constrained dynamics), prints
//! every result's bits over semihosting and times each function with
//! SysTick.
//!
//! Linking it is the proof that no panic path is reachable from those
//! functions (see `rt.rs`). Under QEMU (`docs/embedded.md`), its output is
//! what `tests/qemu.rs` compares with the host's results.

#![no_std]
#![no_main]

mod output;
mod rt;
mod semihosting;
mod stack;
mod systick;

use output::Line;
use sharnir_firmware_check::workload::{self, Probe, STATES};

/// Calls of each function per timing.
const REPEAT: u32 = 100;

/// Prints every row and timing.
struct Console {
    line: Line,
}

impl Console {
    fn start(&mut self, label: &str, k: usize) {
        self.line.text(label);
        self.line.push(b' ');
        self.line.decimal(k as u32);
    }
}

impl Probe for Console {
    fn f64_row(&mut self, label: &str, k: usize, values: &[f64]) {
        self.start(label, k);
        for v in values {
            self.line.push(b' ');
            self.line.hex(v.to_bits(), 16);
        }
        self.line.flush();
    }

    fn f32_row(&mut self, label: &str, k: usize, values: &[f32]) {
        self.start(label, k);
        for v in values {
            self.line.push(b' ');
            self.line.hex(u64::from(v.to_bits()), 8);
        }
        self.line.flush();
    }

    fn time(&mut self, label: &str, f: &mut dyn FnMut()) {
        let ticks = systick::measure(|| {
            for _ in 0..REPEAT {
                f();
            }
        });
        self.line.text("ticks ");
        self.line.text(label);
        self.line.push(b' ');
        self.line.decimal(REPEAT);
        self.line.push(b' ');
        self.line.decimal(ticks);
        self.line.flush();
    }
}

/// One part of the workload.
type Part = fn(usize, &mut dyn Probe);

/// Takes the rows and runs the timed functions once, printing nothing.
struct Quiet;

impl Probe for Quiet {
    fn f64_row(&mut self, _: &str, _: usize, _: &[f64]) {}
    fn f32_row(&mut self, _: &str, _: usize, _: &[f32]) {}
    fn time(&mut self, _: &str, f: &mut dyn FnMut()) {
        f();
    }
}

/// Entered from `Reset` with the floating-point unit on.
#[no_mangle]
extern "C" fn firmware_main() -> ! {
    let mut console = Console { line: Line::new() };
    systick::start();
    console
        .line
        .text("sharnir firmware on thumbv7em-none-eabihf");
    console.line.flush();
    #[cfg(feature = "panic-canary")]
    if core::hint::black_box(false) {
        panic!("the canary: this binary must not link");
    }
    for k in 0..STATES {
        workload::telegin6_rows(k, &mut console);
        workload::telegin6_f32_rows(k, &mut console);
        workload::rk4_rows(k, &mut console);
        workload::four_bar_rows(k, &mut console);
    }
    // Stack use of each part alone, with a probe that prints nothing (the
    // console's line buffer is in this frame, so not counted).
    let mut quiet = Quiet;
    let parts: [(&str, Part); 4] = [
        ("telegin6", workload::telegin6_rows),
        ("telegin6_f32", workload::telegin6_f32_rows),
        ("rk4_step", workload::rk4_rows),
        ("four_bar", workload::four_bar_rows),
    ];
    for (label, part) in parts {
        let bytes = stack::measure(|| part(1, &mut quiet));
        console.line.text("stack ");
        console.line.text(label);
        console.line.push(b' ');
        console.line.decimal(bytes);
        console.line.flush();
    }
    let bytes = stack::measure(sharnir_firmware_check::coverage::every_function);
    console
        .line
        .text("every function of the coverage modules ran; stack ");
    console.line.decimal(bytes);
    console.line.flush();
    let calibration = systick::measure(|| systick::spin(100_000));
    console.line.text("ticks calibration 200000 ");
    console.line.decimal(calibration);
    console.line.flush();
    console.line.text("dwt.cyccnt ");
    console.line.decimal(systick::cycle_counter());
    console.line.flush();
    console.line.text("done");
    console.line.flush();
    semihosting::exit(true)
}
