#!/usr/bin/env bash
# Builds the vendored three.js bundle that sharnir's animation pages embed:
# the names three-entry.js exports, as one minified script defining the global
# THREE, with three.js's licence beside it. The versions are pinned in
# package.json and package-lock.json; the output is committed, so building
# sharnir needs neither Node.js nor the network.
#
#   cd web && npm ci && bash bundle.sh
set -euo pipefail
cd "$(dirname "$0")"
out=../crates/sharnir-sim/vendor/three
mkdir -p "$out"
npx esbuild three-entry.js --bundle --minify --format=iife --global-name=THREE \
    --legal-comments=none --target=es2020 --outfile="$out/three.min.js"
version=$(node -p "JSON.parse(require('fs').readFileSync('node_modules/three/package.json', 'utf8')).version")
{
    echo "three.js $version (https://threejs.org), bundled by web/bundle.sh from the"
    echo "npm package three@$version; its licence follows."
    echo
    cat node_modules/three/LICENSE
} > "$out/LICENSE"
ls -l "$out"
