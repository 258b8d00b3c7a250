#!/usr/bin/env bash
# Set up RealityBench on a fresh Debian 12 machine.
#
#   bash scripts/setup.sh           the embedded Blender (bpy 4.5 wheel) in .venv: enough for the CLI
#   bash scripts/setup.sh --tests   also the test tools, Debian's Blender 3.4.1 (apt) for the
#                                   real-binary smoke suite, and the Blender 5.x lines (bpy 5.2 LTS
#                                   and 5.3 wheels, Python 3.13) in .venv-bpy5.2 and .venv-bpy5.3
#
# Idempotent: a second run installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
for arg in "$@"; do
  case "$arg" in
    --tests) with_tests=1 ;;
    *) echo "usage: bash scripts/setup.sh [--tests]" >&2; exit 2 ;;
  esac
done

# The bpy 4.5 wheel exists for CPython 3.11 only.
python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
      python=$candidate
      break
    fi
  done
fi
if [ -z "$python" ]; then
  echo "error: RealityBench needs Python 3.11 (the bpy 4.5 wheel is built for it); set PYTHON=/path/to/python3.11" >&2
  exit 2
fi

if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip

if [ "$with_tests" = 1 ]; then
  .venv/bin/python -m pip install --quiet -e ".[bpy,test,ray]"
  # Its own folder: on the venv's path it would hijack every pytest run (see pyproject.toml).
  if [ ! -d .venv/pytest-blender/pytest_blender ]; then
    .venv/bin/python -m pip install --quiet --no-deps --target .venv/pytest-blender pytest-blender==3.0.8
  fi
  # Debian's Blender runs on the system Python, so its modules come from Debian too.
  # tesseract-ocr and libzbar0: the OCR engine and barcode reader that check our lettering and Code 128.
  # chromium and chromium-driver: the real browser the rating page is tested in (through Selenium).
  apt_packages="blender xvfb xdotool python3-numpy python3-pil python3-pytest tesseract-ocr libzbar0 chromium chromium-driver"
  missing=$(dpkg-query -W -f='${Package} ${Status}\n' $apt_packages 2>/dev/null | grep -vc "install ok installed" || true)
  if ! dpkg-query -W $apt_packages >/dev/null 2>&1 || [ "$missing" != 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q $apt_packages
  fi
  # The Blender line users run today: its wheels exist for CPython 3.13 only.
  python313=${PYTHON313:-}
  if [ -z "$python313" ]; then
    pyenv_root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
    for candidate in python3.13 "$pyenv_root"/versions/3.13*/bin/python3.13; do
      # pyenv's shim for a version not selected exists but fails: ask the interpreter itself.
      if command -v "$candidate" >/dev/null 2>&1 \
         && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' >/dev/null 2>&1; then
        python313=$candidate
        break
      fi
    done
  fi
  if [ -z "$python313" ]; then
    echo "note: no Python 3.13, so the Blender 5.x suites will be skipped; install one (pyenv install 3.13)" \
         "and rerun, or set PYTHON313=/path/to/python3.13" >&2
  else
    for line in 5.2 5.3; do
      if [ ! -x ".venv-bpy$line/bin/python" ]; then
        "$python313" -m venv ".venv-bpy$line"
      fi
      # numpy comes with the wheel (numpy 2 for 5.x); pytest < 10 as above.
      ".venv-bpy$line/bin/python" -m pip install --quiet "bpy==$line.*" pillow "pytest>=8,<10"
    done
  fi
else
  .venv/bin/python -m pip install --quiet -e ".[bpy]"
fi
.venv/bin/python -m realitybench_addon version >/dev/null
echo "RealityBench is set up in .venv ($(.venv/bin/python -m realitybench_addon version | tr -d '\n ' ))"
