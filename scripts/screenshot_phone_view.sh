#!/usr/bin/env bash
# Regenerate docs/img/phone_view.png: a rendered tape_gap frame (640x480, 8 samples, its target mask from
# --extras) in the phone view, in an Image Editor opened through F3, in Debian's Blender 3.4.1 under Xvfb
# (tests/gui/phone_view_window.py; tests/test_gui_phone_view.py runs it on a drawn frame).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-docs/img/phone_view.png}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# an empty file to open: Blender skips its splash screen when started with a file
blender -b --factory-startup --python-expr "import bpy; bpy.ops.wm.save_as_mainfile(filepath='$tmp/empty.blend')" >/dev/null
"${PYTHON:-.venv/bin/python}" -m realitybench_addon frame --id "${FRAME_ID:-tape_gap-random-s0-000005}" \
  --out "$tmp/frame" --resolution 640x480 --samples 8 --extras >/dev/null
xvfb-run -a -s "-screen 0 1600x1000x24" blender --factory-startup --window-geometry 0 0 1600 1000 \
  "$tmp/empty.blend" --python tests/gui/phone_view_window.py -- "$tmp" --frame "$tmp/frame" | grep "^RB-PV-"
cp "$tmp/phone_view.png" "$out"
echo "wrote $out"
