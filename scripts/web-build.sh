#!/usr/bin/env bash
# Builds the web version into a folder ready to serve (default target/web):
#   scripts/web-build.sh [OUT_DIR]
#   python3 -m http.server 8000 -d target/web    # then open http://localhost:8000/
# Needs the wasm target once: rustup target add wasm32-unknown-unknown.
# THRONG_WEB_PROFILE=release builds with the release profile (slower to build, faster to run).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/web}"
profile="${THRONG_WEB_PROFILE:-dev}"

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    echo "web-build: the wasm32-unknown-unknown target is missing; run: rustup target add wasm32-unknown-unknown" >&2
    exit 1
fi
cargo build --target wasm32-unknown-unknown --bin throng --profile "$profile"
case "$profile" in dev) dir=debug ;; *) dir="$profile" ;; esac
wasm="target/wasm32-unknown-unknown/$dir/throng.wasm"

rm -rf "$out"
mkdir -p "$out"
# Debug information is most of a dev build's size and the browser has no use for it.
python3 scripts/wasm_strip.py "$wasm" "$out/throng.wasm"
cp web/index.html web/throng.js web/gl.js "$out/"

# The plaza and the models it names, fetched by the page before the game starts
# (files.txt lists them, one path a line, relative to the page).
mkdir -p "$out/levels"
cp levels/plaza.ron "$out/levels/"
# The models are the asset paths the level names (the plaza's are self-contained .gltf/.vrm
# files: buffers and images inside).
{
    echo "# Files the page fetches before the game starts (scripts/web-build.sh)."
    echo "levels/plaza.ron"
    # The plaza's models, and the hero's default motion sources (HeroMotion's defaults in
    # src/level/schema.rs), which the plaza does not name.
    grep -ohE '"assets/[^"]+"' levels/plaza.ron src/level/schema.rs | tr -d '"' | LC_ALL=C sort -u
} > "$out/files.txt"
grep -v '^#' "$out/files.txt" | grep '^assets/' | while read -r f; do
    mkdir -p "$out/$(dirname "$f")"
    cp "$f" "$out/$f"
done
cp assets/LICENSES.md "$out/assets/"
echo "web-build: $out ready ($(du -sh "$out" | cut -f1)); serve it with: python3 -m http.server 8000 -d $out"
