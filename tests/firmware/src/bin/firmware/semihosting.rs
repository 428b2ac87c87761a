//! Arm semihosting (`bkpt 0xAB`): how the firmware prints its results and
//! ends under QEMU (`-semihosting-config enable=on,target=native`). On a
//! board without a debugger attached, `bkpt` would stop the core instead.

/// `SYS_WRITE0`: writes a NUL-terminated string to the host's console.
/// A string without a NUL is not written.
pub fn write(text: &[u8]) {
    if text.last() != Some(&0) {
        return;
    }
    // SAFETY: the semihosting call only reads the string, which ends in a
    // NUL inside `text`.
    unsafe {
        core::arch::asm!(
            "bkpt 0xAB",
            inout("r0") 0x04_u32 => _,
            in("r1") text.as_ptr(),
            options(nostack, readonly)
        );
    }
}

/// `SYS_EXIT`: ends the emulation, QEMU exiting with status 0 on success
/// (`ADP_Stopped_ApplicationExit`) and 1 otherwise.
pub fn exit(success: bool) -> ! {
    let reason: u32 = if success { 0x2_0026 } else { 0x2_0023 };
    loop {
        // SAFETY: the call takes the reason in r1 and does not return
        // under QEMU; on a debugger that resumes, it is made again.
        unsafe {
            core::arch::asm!(
                "bkpt 0xAB",
                inout("r0") 0x18_u32 => _,
                in("r1") reason,
                options(nostack)
            );
        }
    }
}
