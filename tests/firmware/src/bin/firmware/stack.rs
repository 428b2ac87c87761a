//! Stack use by painting: the free stack below the current stack pointer is
//! filled with a pattern, the code runs, and the lowest word no longer
//! holding the pattern tells how deep the stack went.

use core::ptr::{read_volatile, write_volatile};

/// The words painted below the stack pointer (256 KiB): deeper use is
/// reported as this much.
const WORDS: usize = 64 * 1024;

/// The pattern.
const PAINT: u32 = 0xDEAD_BEEF;

/// The stack pointer now.
fn stack_pointer() -> usize {
    let sp: usize;
    // SAFETY: reads a register.
    unsafe { core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack)) };
    sp
}

/// Bytes of stack that `f` needs below the caller's frame.
#[inline(never)]
pub fn measure(f: impl FnOnce()) -> u32 {
    // Leave room for this function's own frame, which lies above `sp`.
    // (Wrapping arithmetic: the addresses are far from both ends, and
    // overflow checks would be panic paths.)
    let top = (stack_pointer() & !3).wrapping_sub(64);
    let bottom = top.wrapping_sub(4 * WORDS);
    let mut address = bottom;
    while address < top {
        // SAFETY: free stack below the stack pointer, in RAM (link.x puts
        // 4 MiB of RAM under the stack and nothing else there), with no
        // interrupt that could be using it.
        unsafe { write_volatile(address as *mut u32, PAINT) };
        address = address.wrapping_add(4);
    }
    f();
    let mut lowest = top;
    address = bottom;
    while address < top {
        // SAFETY: as above.
        if unsafe { read_volatile(address as *const u32) } != PAINT {
            lowest = address;
            break;
        }
        address = address.wrapping_add(4);
    }
    (top.wrapping_sub(lowest) as u32).wrapping_add(64)
}
