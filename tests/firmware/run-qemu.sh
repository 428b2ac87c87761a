#!/usr/bin/env bash
# Builds the firmware binary for a Cortex-M4F, checks that a panic path makes
# its link fail, runs it on QEMU's mps2-an386 board when qemu-system-arm is
# there, compares its results with the host's (tests/qemu.rs) and prints the
# code size of every function it calls. See docs/embedded.md.
#
# Usage: tests/firmware/run-qemu.sh   (from anywhere; needs the
# thumbv7em-none-eabihf target; QEMU and llvm-nm are optional)
set -euo pipefail
cd "$(dirname "$0")/../.."

target=thumbv7em-none-eabihf
elf=target/$target/firmware/firmware
build=(cargo build -p sharnir-firmware-check --target "$target" --profile firmware --bin firmware --locked)

echo "-- lints of the firmware binary (the workspace's clippy skips it: it needs --features firmware)"
cargo clippy -p sharnir-firmware-check --target "$target" --features firmware --bins --locked -- -D warnings

echo "-- link check: no panic path reachable from the functions the firmware calls"
"${build[@]}" --features firmware

echo "-- link check is alive: one panic path added must fail the link"
if out=$("${build[@]}" --features panic-canary 2>&1); then
    echo "the firmware linked with a panic path in it: the link check is broken" >&2
    exit 1
elif ! grep -q sharnir_firmware_panic_path_is_reachable <<<"$out"; then
    echo "$out" >&2
    echo "the canary build failed for another reason than the panic path" >&2
    exit 1
fi
# Rebuild the binary without the canary (nothing is recompiled but the bin).
"${build[@]}" --features firmware

nm=$(command -v llvm-nm || command -v arm-none-eabi-nm || true)
if [ -n "$nm" ]; then
    echo "-- code size (bytes) of the functions the firmware calls"
    "$nm" -C --print-size --size-sort --radix=d "$elf" |
        sed 's/::h[0-9a-f]\{16\}$//' |
        grep -E '(check::telegin6(_f32)?::|check::(step|linkage_)|fixed_step::evaluate|libm::math::(sincosf?|rem_pio2))' |
        awk '{ $1 = ""; sub(/^ 0*/, ""); print }'
fi

if ! command -v qemu-system-arm >/dev/null 2>&1; then
    echo "qemu-system-arm is not installed: the emulated run is skipped"
    exit 0
fi
if ! qemu-system-arm -machine help 2>/dev/null | grep -q '^mps2-an386 '; then
    echo "this qemu-system-arm has no mps2-an386 machine (QEMU 6.0 or later has): the emulated run is skipped"
    exit 0
fi
echo "-- the firmware on an emulated Cortex-M4F (mps2-an386, semihosting)"
log=target/$target/firmware/qemu.log
timeout 120 qemu-system-arm -machine mps2-an386 -nographic -monitor none \
    -semihosting-config enable=on,target=native -icount shift=0 \
    -kernel "$elf" >"$log" 2>&1
grep -E '^(ticks|dwt)' "$log"
echo "-- its results against the host's"
SHARNIR_FIRMWARE_LOG="$PWD/$log" cargo test -p sharnir-firmware-check --test qemu --locked -- --nocapture
