#!/usr/bin/env bash
# Regenerates every picture README.md and docs/*.md show, from the current build:
#
#     scripts/readme-pictures.sh [OUT_DIR [PICTURE...]]     (default: docs/images, every picture)
#
# Naming pictures (e.g. `hero.jpg`) regenerates only those.
# One row per picture. Columns, separated by `|`:
#   file     the picture's name in OUT_DIR (what the README links to)
#   shows    what the picture must show: the caption's promise, checked by eye after a run
#   level    the level file played, `bench` for the benchmark's own plot (`throng bench`),
#            `validate` for a plot `throng validate` writes (the file names which), or `web`
#            for the web build in headless Chromium (args for scripts/web_check.py), or `test`
#            for frames a render test keeps under shots/ with THRONG_SHOTS=1, put side by side
#            (args: the test's name, then the frames, left to right; needs Python's Pillow)
#   edits    `-`, or changes to a copy of the level, separated by ` ; `: `camera: (...)` replaces
#            the level's camera line, `s/OLD/NEW/` is a sed substitution. Each edit must change
#            the level, so a picture fails loudly instead of drifting when the level changes.
#   args     arguments for `throng` (or `throng bench`, `throng validate`). Screenshots run with
#            `--no-adaptive-quality`: a software renderer cannot hold the 33 ms budget, and the
#            pictures show the game at full quality, not its cheapest rung; plaza_settled.jpg is
#            the one taken at the rung adaptive quality settles at, and says so.
# Adding a picture is one row here plus its link in the README; tests/docs_pictures.rs checks
# that the two lists match.
PICTURES='
plaza.jpg    | the default plaza at full quality, 2,000 people (mid meshes and impostors), HUD | levels/plaza.ron  | - | --no-adaptive-quality --frames 40
plaza_settled.jpg | the default plaza at the rung adaptive quality settles at on a software renderer, HUD naming it | levels/plaza.ron  | - | --frames 40
crowd.jpg    | close up: outfits, skin tones, hats, bags, balloons, several clips | levels/plaza.ron  | camera: (mode: Orbit, target: (6.0, 1.0, 12.0), distance: 11.0, yaw_deg: 30.0, pitch_deg: 14.0, fov_deg: 50.0) | --no-adaptive-quality --frames 40
hero.jpg     | the hero (Godette) waving among the crowd, follow camera          | levels/plaza.ron  | - | --no-adaptive-quality --follow --hero-autopilot wave --frames 40
hero_closeup.jpg | the hero close up: colours as painted (PBR Neutral), thin 0.x outlines, sharp texture details, antialiased edges | levels/plaza.ron | camera: (mode: Follow, target: (0.0, 1.0, 0.0), distance: 2.4, yaw_deg: 0.0, pitch_deg: 4.0, fov_deg: 40.0) | --no-adaptive-quality --crowd 50 --paused --frames 30
hero_closeup_aces.jpg | the same close-up with the former ACES-fit curve and no antialiasing: greyer whites, paler skin, jagged edges | levels/plaza.ron | camera: (mode: Follow, target: (0.0, 1.0, 0.0), distance: 2.4, yaw_deg: 0.0, pitch_deg: 4.0, fov_deg: 40.0) ; s/shadows: true,/shadows: true, tone_mapping: Aces,/ | --no-adaptive-quality --no-aa --crowd 50 --paused --frames 30
look_at.jpg  | the hero idle with the camera 35 degrees to her side: head and eyes turned to the camera (look-at, auto) | levels/plaza.ron | camera: (mode: Follow, target: (0.0, 1.0, 0.0), distance: 2.4, yaw_deg: 35.0, pitch_deg: 4.0, fov_deg: 40.0) | --no-adaptive-quality --crowd 50 --frames 40
hero_swing.jpg | the hero running on her circle: bangs, buns and ribbon swung by the spring bones | levels/plaza.ron | camera: (mode: Follow, target: (0.0, 1.0, 0.0), distance: 3.0, yaw_deg: 90.0, pitch_deg: 6.0, fov_deg: 40.0) | --no-adaptive-quality --crowd 50 --hero-autopilot run --frames 66
lookback.jpg | a plaza person drawn by the instanced crowd path: the hero far away (left), the hero near at their side (right): head turned to her | test | - | render_head_turn head_turn_near_no_hero.png head_turn_near_hero_near.png
overlay.jpg  | behaviour labels (F3) over the people round the fountain          | levels/plaza.ron  | camera: (mode: Orbit, target: (0.0, 1.0, 4.0), distance: 20.0, yaw_deg: 30.0, pitch_deg: 45.0, fov_deg: 50.0) | --no-adaptive-quality --agent-overlay --frames 60
groups.jpg   | walking groups (F3): pairs and threes side by side, pink links to each leader | levels/plaza.ron  | camera: (mode: Orbit, target: (18.0, 1.0, 24.0), distance: 16.0, yaw_deg: 20.0, pitch_deg: 42.0, fov_deg: 50.0) | --no-adaptive-quality --agent-overlay --frames 150
perf.jpg     | the performance lab panel (Tab) over the plaza                    | levels/plaza.ron  | - | --no-adaptive-quality --perf-panel --frames 40
panels.jpg   | every panel at 1280x720: Tab, F3 labels, F4 editor, F5/F6 hero; none cut off or overlapping | levels/plaza.ron  | camera: (mode: Orbit, target: (0.0, 1.0, 4.0), distance: 20.0, yaw_deg: 30.0, pitch_deg: 45.0, fov_deg: 50.0) | --no-adaptive-quality --perf-panel --agent-overlay --curve-editor --hero-panels --frames 40
lod.jpg      | LOD colours from a low camera, close to far: red near, green mid, blue far, yellow impostors, dithered bands between them | levels/plaza.ron  | camera: (mode: Orbit, target: (0.0, 1.5, 30.0), distance: 20.0, yaw_deg: 0.0, pitch_deg: 8.0, fov_deg: 60.0) ; s/lod: \(near: 25.0, mid: 90.0, far: 220.0, impostor: 60.0,/lod: (near: 12.0, mid: 24.0, far: 220.0, impostor: 40.0,/ | --no-adaptive-quality --lod-colors --frames 30
tiers.jpg    | the same view in its own colours: near, mid and far meshes and impostors, no seams between tiers | levels/plaza.ron  | camera: (mode: Orbit, target: (0.0, 1.5, 30.0), distance: 20.0, yaw_deg: 0.0, pitch_deg: 8.0, fov_deg: 60.0) ; s/lod: \(near: 25.0, mid: 90.0, far: 220.0, impostor: 60.0,/lod: (near: 12.0, mid: 24.0, far: 220.0, impostor: 40.0,/ | --no-adaptive-quality --frames 30
cullview.jpg | culling view (F7): yellow frustum, culled people in red           | levels/plaza.ron  | - | --no-adaptive-quality --cull-view --frames 30
levelmap.jpg | level overlay (F8): outlines, POI labels with occupancy, path arrows, spawn zones, a tooltip | levels/plaza.ron  | camera: (mode: Orbit, target: (4.0, 1.0, -6.0), distance: 60.0, yaw_deg: 20.0, pitch_deg: 50.0, fov_deg: 50.0) | --no-adaptive-quality --level-overlay --crowd 800 --frames 40
heatmap.jpg  | heat map (F2) of density: dense cells at the fountain and benches, legend | levels/plaza.ron  | camera: (mode: Orbit, target: (0.0, 1.0, 0.0), distance: 70.0, yaw_deg: 30.0, pitch_deg: 55.0, fov_deg: 50.0) | --no-adaptive-quality --heat-map density --frames 60
evacuation.jpg | an alarm a second in, 3,000 people and one narrow way out (the north exit 3 m wide, the others closed), a minute later: the HUD alarm box (clock, people still inside, out), the north exit label (people through, flow), closed exits labelled at the screen edge with arrows, the pressure layer (F2) blue where the street packed, its legend | levels/plaza.ron | camera: (mode: Orbit, target: (0.0, 1.0, -76.0), distance: 40.0, yaw_deg: 0.0, pitch_deg: 55.0, fov_deg: 50.0) ; s/Line\(\(-7.0, -100.0\), \(7.0, -100.0\)\)\)/Line((-1.5, -100.0), (1.5, -100.0)))/ ; s/(Line\(\(-7.0, 100.0\), \(7.0, 100.0\)\))\)/\1, closed: true)/ ; s/(Line\(\(-100.0, -7.0\), \(-100.0, 7.0\)\))\)/\1, closed: true)/ ; s/(Line\(\(100.0, -7.0\), \(100.0, 7.0\)\))\)/\1, closed: true)/ ; s/    spawn_zones: \[/    alarms: [(at: 1.0, position: (0.0, -40.0))],\n    spawn_zones: [/ | --no-adaptive-quality --crowd 3000 --heat-map pressure --sim-ahead 60 --frames 8
measure.jpg  | measuring the south street: the level overlay (F8) with the measurement area in gold, labelled with its live density (classic and Voronoi) and mean speed, the measurements panel (M) with both readings and their sparklines, the record buttons | levels/plaza.ron | camera: (mode: Orbit, target: (0.0, 1.0, 70.0), distance: 34.0, yaw_deg: 20.0, pitch_deg: 40.0, fov_deg: 50.0) | --no-adaptive-quality --measurements --level-overlay --sim-ahead 60 --frames 30
market.jpg   | the market street level                                            | levels/market.ron | - | --no-adaptive-quality --frames 40
knights.jpg  | market visitors close up: knights with shields and swords, robots | levels/market.ron | s/weight: 0.4,/weight: 40.0,/ ; camera: (mode: Orbit, target: (0.0, 1.0, -120.0), distance: 9.0, yaw_deg: 160.0, pitch_deg: 12.0, fov_deg: 55.0) | --no-adaptive-quality --crowd 600 --frames 50
sandbox_ring.jpg | a ring of watchers round a street performer (placed at (0, 28)), facing her over her mat, her back and the walkway outside the rings left clear | levels/plaza.ron | camera: (mode: Orbit, target: (0.0, 1.0, 27.0), distance: 19.0, yaw_deg: 180.0, pitch_deg: 52.0, fov_deg: 50.0) ; s/    spawn_zones: \[/    placed: [(name: "busker", kind: Performer, at: (0.0, 28.0), heading_deg: 180.0)],\n    spawn_zones: [/ | --no-adaptive-quality --sim-ahead 90 --frames 8
sandbox_queue.jpg | a queue at a placed food stand, bending round a planter beside it, its places dotted and its count labelled by the level overlay (F8) (service made slower and the crowd smaller for the picture) | levels/plaza.ron | camera: (mode: Orbit, target: (-18.5, 1.0, 18.0), distance: 13.0, yaw_deg: 200.0, pitch_deg: 48.0, fov_deg: 50.0) ; s/queue_service_seconds: \(min: 3.0, max: 6.0\)/queue_service_seconds: (min: 14.0, max: 20.0)/ ; s/    spawn_zones: \[/    placed: [(name: "crepes", kind: FoodStand, at: (-22.0, 18.0), heading_deg: 90.0), (name: "planter_by_crepes", kind: Planter, at: (-16.5, 17.0))],\n    spawn_zones: [/ | --no-adaptive-quality --crowd 700 --level-overlay --sim-ahead 90 --frames 8
sandbox_card.jpg | a person clicked: the rings at their feet and their card (name, age band, what and why, next two plans, speed), followed and taken over | test | - | render_sandbox sandbox_card.png
bench.png    | median frame time per mode with its p5-p95 band and the 60/30 fps budgets (log-log) | bench | - | --sizes 30,100,300 --modes pipeline,vat,instanced,naive --frames 30 --warmup 2
fundamental_diagram.png | speed against density in a one-way corridor over the Weidmann curve | validate | - | --only fundamental_diagram
bottleneck_flow.png     | flow through doors 0.8-2.4 m wide over the range of the experiments | validate | - | --only bottleneck
lane_order.png          | lane order rising from 0.5 to above 0.8 in counterflow             | validate | - | --only counterflow
web.jpg      | the plaza in headless Chromium (WebGL2, SwiftShader), 300 people, HUD | web | - | --crowd 300 --args=--no-adaptive-quality --seconds 20
'

set -euo pipefail

out_dir="${1:-}"
only=("${@:2}")
if [ -n "$out_dir" ]; then
    if [ ! -d "$out_dir" ]; then
        echo "readme-pictures: the folder $out_dir does not exist" >&2
        exit 1
    fi
    out_dir="$(cd "$out_dir" && pwd)"
fi
cd "$(dirname "$0")/.."
out_dir="${out_dir:-docs/images}"
work="target/readme-pictures"
for name in "${only[@]}"; do
    if ! grep -q "^$name " <<<"$PICTURES"; then
        echo "readme-pictures: no picture named $name in the table" >&2
        exit 1
    fi
done


# One X server for every run: each throng run opens a real GL window.
if [ -z "${DISPLAY:-}" ] && [ -z "${READMEPICTURES_UNDER_XVFB:-}" ]; then
    if ! command -v xvfb-run >/dev/null; then
        echo "readme-pictures: no DISPLAY and no xvfb-run (apt-get install xvfb xauth)" >&2
        exit 1
    fi
    READMEPICTURES_UNDER_XVFB=1 exec xvfb-run -a -s "-screen 0 1280x720x24" "$0" "$@"
fi

nice -n 10 cargo build --release
throng="$PWD/target/release/throng"
rm -rf "$work"
mkdir -p "$work"

trim() {
    local s="$1"
    s="${s#"${s%%[![:space:]]*}"}"
    printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# Writes the level with its edits applied to $2; fails naming any edit that changed nothing.
edit_level() {
    local level="$1" edited="$2" edits="$3" edit before
    cp "$level" "$edited"
    [ "$edits" = "-" ] && return 0
    local IFS=';'
    for edit in $edits; do
        edit="$(trim "$edit")"
        before="$(cat "$edited")"
        case "$edit" in
            camera:*)
                awk -v line="    $edit," '/^[[:space:]]*camera:/ { print line; next } { print }' \
                    "$edited" >"$edited.new"
                mv "$edited.new" "$edited"
                ;;
            s/*) sed -E -i "$edit" "$edited" ;;
            *)
                echo "readme-pictures: $level: unknown edit \`$edit\` (allowed: camera: (...) or s/OLD/NEW/)" >&2
                return 1
                ;;
        esac
        if [ "$before" = "$(cat "$edited")" ]; then
            echo "readme-pictures: $level: the edit \`$edit\` changed nothing; update the table" >&2
            return 1
        fi
    done
}

started=$SECONDS
while IFS='|' read -r file shows level edits args; do
    file="$(trim "$file")"
    [ -z "$file" ] && continue
    if [ ${#only[@]} -gt 0 ] && [[ " ${only[*]} " != *" $file "* ]]; then
        continue
    fi
    shows="$(trim "$shows")"
    level="$(trim "$level")"
    edits="$(trim "$edits")"
    args="$(trim "$args")"
    target="$out_dir/$file"
    echo "== $target: $shows"
    t0=$SECONDS
    if [ "$level" = "bench" ]; then
        # shellcheck disable=SC2086 # args is a list of words
        nice -n 10 timeout 900 "$throng" bench $args --out "$work/bench" | tee "$work/bench.txt"
        cp "$work/bench/bench.png" "$target"
    elif [ "$level" = "web" ]; then
        # The web build in headless Chromium (docs/WEB.md); the canvas is saved as JPEG.
        scripts/web-build.sh "$work/web"
        # shellcheck disable=SC2086 # args is a list of words
        python3 scripts/web_check.py "$work/web" --shot "$target" $args
    elif [ "$level" = "test" ]; then
        read -r test_name frames <<<"$args"
        rm -rf shots
        THRONG_SHOTS=1 nice -n 10 cargo test --test "$test_name" </dev/null
        # shellcheck disable=SC2086 # frames is a list of words
        set -- $frames
        if [ $# -eq 1 ]; then
            # One frame needs no pasting: ImageMagick converts it.
            convert "shots/$1" -quality 90 "$target"
        else
        python3 - "$target" $frames <<'PY'
import sys
from PIL import Image
frames = [Image.open("shots/" + name).convert("RGB") for name in sys.argv[2:]]
out = Image.new("RGB", (sum(f.width for f in frames), max(f.height for f in frames)), "white")
x = 0
for f in frames:
    out.paste(f, (x, 0))
    x += f.width
out.save(sys.argv[1], quality=90)
PY
        fi
    elif [ "$level" = "validate" ]; then
        # shellcheck disable=SC2086 # args is a list of words
        nice -n 10 timeout 900 "$throng" validate $args --out "$work/validate"
        cp "$work/validate/$file" "$target"
    else
        played="$work/${file%.*}.ron"
        edit_level "$level" "$played" "$edits"
        # shellcheck disable=SC2086 # args is a list of words
        nice -n 10 timeout 300 "$throng" "$played" $args --screenshot "$target" \
            --stats-out "$work/${file%.*}.json"
    fi
    if [ ! -s "$target" ]; then
        echo "readme-pictures: $target was not written" >&2
        exit 1
    fi
    echo "   $(wc -c <"$target") bytes in $((SECONDS - t0)) s"
done <<<"$PICTURES"
echo "readme-pictures: every picture written to $out_dir in $((SECONDS - started)) s"
