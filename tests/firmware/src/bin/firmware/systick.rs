//! Timing with the core's SysTick timer (24 bits, counting down at the
//! processor clock). Under QEMU with `-icount shift=0` every instruction
//! advances the virtual clock by 1 ns, so ticks count instructions
//! (25 MHz on `mps2-an386`: one tick per 40 instructions), not cycles:
//! QEMU does not model the pipeline, and its DWT cycle counter reads zero
//! (see [`cycle_counter`]).

use core::ptr::{read_volatile, write_volatile};

const SYST_CSR: *mut u32 = 0xE000_E010 as *mut u32;
const SYST_RVR: *mut u32 = 0xE000_E014 as *mut u32;
const SYST_CVR: *mut u32 = 0xE000_E018 as *mut u32;
const DEMCR: *mut u32 = 0xE000_EDFC as *mut u32;
const DWT_CTRL: *mut u32 = 0xE000_1000 as *mut u32;
const DWT_CYCCNT: *const u32 = 0xE000_1004 as *const u32;

/// Starts SysTick free-running from its largest reload value, on the
/// processor clock, without its interrupt; enables the DWT cycle counter.
pub fn start() {
    // SAFETY: the System Control Space registers of every Armv7-M core.
    unsafe {
        write_volatile(SYST_RVR, 0x00FF_FFFF);
        write_volatile(SYST_CVR, 0);
        write_volatile(SYST_CSR, 0b101);
        write_volatile(DEMCR, read_volatile(DEMCR) | (1 << 24));
        write_volatile(DWT_CTRL, read_volatile(DWT_CTRL) | 1);
    }
}

/// SysTick ticks taken by `f` (correct while under 2²⁴).
pub fn measure(f: impl FnOnce()) -> u32 {
    // SAFETY: reading the current value register has no side effect.
    let before = unsafe { read_volatile(SYST_CVR) };
    f();
    // SAFETY: as above.
    let after = unsafe { read_volatile(SYST_CVR) };
    before.wrapping_sub(after) & 0x00FF_FFFF
}

/// The DWT cycle counter (zero where it is not implemented, as in QEMU).
pub fn cycle_counter() -> u32 {
    // SAFETY: reading CYCCNT has no side effect.
    unsafe { read_volatile(DWT_CYCCNT) }
}

/// Exactly `2 n` instructions (`subs`, `bne`), to calibrate [`measure`].
pub fn spin(n: u32) {
    if n == 0 {
        return;
    }
    // SAFETY: only r0 and the flags change.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs {0}, #1",
            "bne 2b",
            inout(reg) n => _,
            options(nomem, nostack)
        );
    }
}
