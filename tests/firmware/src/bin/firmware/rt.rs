//! The start of the firmware without `cortex-m-rt`: the vector table, the
//! reset handler (floating-point unit on, `.data` copied, `.bss` zeroed,
//! then `firmware_main`), the fault handler, and the panic handler that
//! proves the absence of panics at link time.

// The vector table (initial stack pointer, reset, then the 14 system
// exceptions, every one of which ends the program with an error) and the
// reset handler, in assembly: the floating-point unit must be enabled
// (CPACR, coprocessors 10 and 11) before any code that may use it runs.
core::arch::global_asm!(
    r#"
    .section .vector_table, "a"
    .global __vectors
    .p2align 2
__vectors:
    .word _stack_top
    .word Reset
    .rept 14
    .word Fault
    .endr

    .section .text.Reset, "ax"
    .global Reset
    .type Reset, %function
    .thumb_func
Reset:
    ldr r0, =0xE000ED88
    ldr r1, [r0]
    orr r1, r1, #(0xF << 20)
    str r1, [r0]
    dsb
    isb
    ldr r0, =__sdata
    ldr r1, =__edata
    ldr r2, =__sidata
1:
    cmp r0, r1
    bhs 2f
    ldr r3, [r2], #4
    str r3, [r0], #4
    b 1b
2:
    ldr r0, =__sbss
    ldr r1, =__ebss
    movs r2, #0
3:
    cmp r0, r1
    bhs 4f
    str r2, [r0], #4
    b 3b
4:
    bl firmware_main
    b 4b
    "#
);

/// Every exception but reset: a fault means the firmware is wrong, so the
/// run ends with a failure (under QEMU, a non-zero exit status).
#[no_mangle]
extern "C" fn Fault() -> ! {
    crate::semihosting::write(b"fault\n\0");
    crate::semihosting::exit(false)
}

extern "C" {
    /// Defined nowhere, on purpose: the panic handler calls it, so the
    /// final link fails with an undefined reference to it as soon as any
    /// panic path (a bounds check, an `unwrap`, an overflow check, a
    /// division by zero of integers) is reachable from `firmware_main`.
    /// With none reachable, the handler itself is removed and the binary
    /// links.
    fn sharnir_firmware_panic_path_is_reachable() -> !;
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: never executed in a binary that links (see above).
    unsafe { sharnir_firmware_panic_path_is_reachable() }
}
