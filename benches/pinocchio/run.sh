#!/usr/bin/env bash
# sharnir's generated dynamics against Pinocchio 4.1.0 (RNEA, CRBA, ABA,
# computeRNEADerivatives, computeABADerivatives, computeMinverse,
# computeJointTorqueRegressor; and sharnir's forward differences of its own
# dynamics) on UR5, Panda, KUKA
# iiwa, Solo12, ANYmal and Talos, with the time of generating Talos and of
# compiling the modules, and the instructions per operation of the legged
# robots' functions (instructions.py). Opt-in, not part of CI; see
# README.md.
#
#   bash benches/pinocchio/run.sh            # native and portable builds
#   SHARNIR_PINOCCHIO_BUILDS=native bash benches/pinocchio/run.sh
#
# Environment:
#   SHARNIR_PINOCCHIO_VENV   virtual environment with pin==4.1.0,
#                            example-robot-data==6.0.0 and cmeel-eigen==3.4.1
#                            (Eigen's headers), created if missing
#                            (default $HOME/.cache/sharnir-pinocchio-venv)
#   SHARNIR_PINOCCHIO_BUILD  build directory (default <repo>/target/pinocchio)
#   SHARNIR_PINOCCHIO_BUILDS which builds to time: "native" (g++ -march=native,
#                            rustc -C target-cpu=native) and/or "portable"
#                            (neither); default "native portable"
#   SHARNIR_PINOCCHIO_BATCHES interleaved batches per case (default 201)
#   SHARNIR_PINOCCHIO_KANE   1 (default) also times SymPy's Kane method on UR5
#                            and the iiwa (kane.py, sympy==1.14.0 in the venv)
#                            against `xtask gen` of the same model (release);
#                            0 skips it
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
venv=${SHARNIR_PINOCCHIO_VENV:-$HOME/.cache/sharnir-pinocchio-venv}
build=${SHARNIR_PINOCCHIO_BUILD:-$repo/target/pinocchio}
builds=${SHARNIR_PINOCCHIO_BUILDS:-native portable}
batches=${SHARNIR_PINOCCHIO_BATCHES:-201}
kane=${SHARNIR_PINOCCHIO_KANE:-1}

# 1. Pinocchio from PyPI, in a virtual environment outside the repository.
installed() {
    "$venv/bin/python" -c 'import importlib.metadata as m, sys
sys.exit(not (m.version("pin") == "4.1.0" and m.version("example-robot-data") == "6.0.0"
             and m.version("cmeel-eigen") == "3.4.1"))' 2>/dev/null
}
if ! installed; then
    echo "installing Pinocchio 4.1.0 and its headers into $venv" >&2
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    # cmeel-eigen: Eigen's headers, which the wheels do not ship.
    "$venv/bin/pip" install --quiet pin==4.1.0 example-robot-data==6.0.0 cmeel-eigen==3.4.1
fi
version=$("$venv/bin/python" -c 'import pinocchio; print(pinocchio.__version__)')
if [ "$version" != 4.1.0 ]; then
    echo "$venv has Pinocchio $version, not 4.1.0" >&2
    exit 1
fi
# The wheels' C++ prefix (cmeel layout): include/ has Pinocchio, Eigen and
# Boost headers, lib/ the shared libraries.
prefix=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/cmeel.prefix
test -f "$prefix/include/pinocchio/algorithm/crba.hpp" || { echo "no Pinocchio headers under $prefix" >&2; exit 1; }

seconds() { "$venv/bin/python" -c "print(f'{$2 - $1:.2f}')"; }

# 2. The iiwa's, ANYmal's and Talos's modules (the other three are generated/src's,
# included by path), Talos's generation timed (xtask's release build, the
# whole process).
mkdir -p "$build" "$here/ffi/src/gen"
(cd "$repo" && cargo build --quiet --release -p xtask)
(cd "$repo" && target/release/xtask gen tests/fixtures/kuka_iiwa.urdf \
    --name iiwa --out "$here/ffi/src/gen") >&2
(cd "$repo" && target/release/xtask gen tests/fixtures/anymal.urdf \
    --floating --name anymal --out "$here/ffi/src/gen") >&2
start=$(date +%s.%N)
(cd "$repo" && target/release/xtask gen tests/fixtures/talos_reduced.urdf \
    --floating --name talos --out "$here/ffi/src/gen") >&2
end=$(date +%s.%N)
times="talos: \`xtask gen tests/fixtures/talos_reduced.urdf --floating --name talos\` (release build) in $(seconds "$start" "$end") s; $(wc -c < "$here/ffi/src/gen/talos.rs") bytes, $(wc -l < "$here/ffi/src/gen/talos.rs") lines"

# 3. Pinocchio's models, built by its URDF parser from tests/fixtures.
mkdir -p "$build/models"
"$venv/bin/python" "$here/export_models.py" "$repo/tests/fixtures" "$build/models"

# 4. Per build: the static library, the harness, a run.
echo "Pinocchio $version from $prefix" >&2
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1); $(rustc --version); $(g++ --version | head -1)"
for variant in $builds; do
    case $variant in
        native) cxxflags="-O3 -march=native -DNDEBUG"; rustflags="-C target-cpu=native" ;;
        portable) cxxflags="-O3 -DNDEBUG"; rustflags="" ;;
        *) echo "unknown build $variant" >&2; exit 1 ;;
    esac
    target="$build/$variant"
    echo "building $variant: g++ $cxxflags, RUSTFLAGS='$rustflags'" >&2
    # The crate rebuilt from scratch (its dependency libm kept), timed: it
    # compiles the six generated modules.
    RUSTFLAGS="$rustflags" CARGO_TARGET_DIR="$target/cargo" \
        cargo build --quiet --release --manifest-path "$here/ffi/Cargo.toml" -p libm
    RUSTFLAGS="$rustflags" CARGO_TARGET_DIR="$target/cargo" \
        cargo clean --quiet --release --manifest-path "$here/ffi/Cargo.toml" -p sharnir-pinocchio-ffi
    start=$(date +%s.%N)
    RUSTFLAGS="$rustflags" CARGO_TARGET_DIR="$target/cargo" \
        cargo build --quiet --release --manifest-path "$here/ffi/Cargo.toml"
    end=$(date +%s.%N)
    times="$times
ffi, $variant: \`cargo build --release\` of the crate (the six modules; libm built) in $(seconds "$start" "$end") s"
    start=$(date +%s.%N)
    # Pinocchio's algorithms are templates: without
    # PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION they are compiled here, with
    # the harness's flags; nothing is linked from the wheel (the models come
    # as text from export_models.py, see there why).
    # -w: Pinocchio 4.1.0's headers warn under g++ 12 (-Wstringop-overread).
    g++ -std=c++17 $cxxflags -w \
        -DBOOST_MPL_LIMIT_LIST_SIZE=30 -DBOOST_MPL_LIMIT_VECTOR_SIZE=30 \
        -DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS -DBOOST_FUSION_INVOKE_MAX_ARITY=12 \
        -isystem "$prefix/include" -isystem "$prefix/include/eigen3" -o "$target/harness" "$here/harness.cpp" \
        "$target/cargo/release/libsharnir_pinocchio_ffi.a" \
        -lpthread -ldl -lm
    end=$(date +%s.%N)
    times="$times
harness, $variant: g++ (Pinocchio's templates) in $(seconds "$start" "$end") s"
    echo
    echo "### $variant: g++ $cxxflags; rustc ${rustflags:-(default)}"
    echo
    "$target/harness" "$build/models" "$batches"
    echo
    echo "### $variant: instructions per operation, share touching the stack"
    echo
    for robot in solo12 anymal talos; do
        case $robot in
            solo12) module="$repo/generated/src/solo12.rs" ;;
            *) module="$here/ffi/src/gen/$robot.rs" ;;
        esac
        echo "$robot:"
        echo
        "$venv/bin/python" "$here/instructions.py" "$target/cargo/release/libsharnir_pinocchio_ffi.a" \
            "$module" "sharnir_pinocchio_ffi::$robot" inverse_dynamics mass_matrix forward_dynamics
        echo
    done
done
echo
echo "### generation and build times"
echo
echo "$times"

# 5. Generation time: SymPy's Kane method against sharnir on UR5 and the
# iiwa, each followed by `xtask gen` of the same model (the whole process).
if [ "$kane" = 1 ]; then
    "$venv/bin/python" -c 'import sympy' 2>/dev/null || "$venv/bin/pip" install --quiet sympy==1.14.0
    echo
    echo "### generation, UR5 and iiwa"
    echo
    for robot in ur5 iiwa; do
        case $robot in
            ur5) model=(specs/ur5.spec) ;;
            iiwa) model=(tests/fixtures/kuka_iiwa.urdf --name iiwa) ;;
        esac
        "$venv/bin/python" "$here/kane.py" $robot
        mkdir -p "$build/$robot-gen"
        start=$(date +%s.%N)
        (cd "$repo" && target/release/xtask gen "${model[@]}" --out "$build/$robot-gen" > /dev/null)
        end=$(date +%s.%N)
        echo "$robot: sharnir: \`xtask gen ${model[*]}\` (release build, every output of the" \
            "module) in $("$venv/bin/python" -c "print(f'{$end - $start:.2f}')") s"
    done
fi
