"""Instructions per operation and the share of them that touch the stack,
per generated function, read from a compiled binary's disassembly.

A generated function is straight-line code: every instruction of its
body runs once per call, so the static count is the dynamic one (but for
the calls of the sine and cosine routines, not counted here). Its
operation count is the module's `OPS_*` constant (multiplications,
additions, divisions and square roots). An instruction touches the stack
when one of its operands is an address relative to `%rsp` or `%rbp`: a
spilled value stored or reloaded.

    python3 instructions.py BINARY MODULE.rs PATH FUNCTION...

BINARY is an object, archive or executable with symbols (run.sh passes the
FFI crate's static library); MODULE.rs the generated module; PATH the
module's path in the symbols (`sharnir_pinocchio_ffi::talos`). Each
function is reported twice: the function (`f_with` and its parts
`f_partK`) and its AVX copy (`f_with_avx`, `f_partK_avx`), where it has
one (a portable build's functions that pay for it; a native build has
none). Prints one Markdown table.
"""

import re
import subprocess
import sys


def operations(module, function):
    """The multiplications, additions, divisions and square roots of
    `OPS_{FUNCTION}` in the module's text."""
    text = open(module, encoding="utf-8").read()
    match = re.search(r"pub const OPS_%s: OpCount = OpCount \{([^}]*)\}" % function.upper(), text)
    if not match:
        sys.exit(f"{module} has no OPS_{function.upper()}")
    fields = dict(re.findall(r"(\w+): (\d+)", match.group(1)))
    return sum(int(fields.get(k, 0)) for k in ("mul", "add", "div", "sqrt"))


def symbols(binary):
    """Each function symbol's instruction lines, by demangled name."""
    output = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", "-C", binary],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = {}
    current = None
    for line in output.splitlines():
        header = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if header:
            current = found.setdefault(header.group(1), [])
        elif current is not None and re.match(r"^\s+[0-9a-f]+:\t", line):
            current.append(line)
    return found


def count(lines):
    """Instructions, and those with a stack operand."""
    stack = sum(1 for line in lines if "(%rsp" in line or "(%rbp" in line)
    return len(lines), stack


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    binary, module, path, functions = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    found = symbols(binary)
    print("| function | operations | copy | instructions | per operation | stack share |")
    print("|---|---:|---|---:|---:|---:|")
    for function in functions:
        ops = operations(module, function)
        for copy, suffix in (("function", ""), ("AVX copy", "_avx")):
            name = re.compile(
                r"^%s::%s(_with|_part\d+)%s$" % (re.escape(path), re.escape(function), suffix)
            )
            lines = [line for symbol, body in found.items() if name.match(symbol) for line in body]
            if not lines:
                continue
            instructions, stack = count(lines)
            print(
                f"| `{function}` | {ops} | {copy} | {instructions} | "
                f"{instructions / ops:.2f} | {100 * stack / instructions:.0f} % |"
            )


if __name__ == "__main__":
    main()
