#!/usr/bin/env bash
# Set up RealityBench on a fresh Debian 12 machine.
#
#   bash scripts/setup.sh           the embedded Blender in .venv: the bpy 5.2 LTS wheel on Python 3.13
#                                   (found on the PATH or under pyenv), or, without a Python 3.13, the
#                                   bpy 4.5 LTS wheel on Python 3.11; enough for the CLI
#   bash scripts/setup.sh --tests   also the test tools, Debian's Blender 3.4.1 (apt) for the
#                                   real-binary smoke suite, and the other Blender lines tested
#                                   (bpy 4.5 LTS on Python 3.11, 5.3 on Python 3.13) in .venv-bpy<line>
#
# PYTHON=/path/to/python picks the interpreter of .venv (3.13: Blender 5.2; 3.11: Blender 4.5).
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

# The Python X.Y interpreter: on the PATH, or under pyenv. pyenv's shim for a version that is not
# selected exists but fails, so each candidate is asked for its version.
find_python() {
  local want=$1 pyenv_root candidate
  pyenv_root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
  for candidate in "python$want" "$pyenv_root"/versions/"$want"*/bin/"python$want"; do
    if command -v "$candidate" >/dev/null 2>&1 \
       && "$candidate" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$want'.split('.'))))" \
          >/dev/null 2>&1; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

python_version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }

# The Blender line each Python's bpy wheel is (bpy wheels exist for one Python each).
declare -A line_of=([3.13]=5.2 [3.11]=4.5)

python311=${PYTHON311:-$(find_python 3.11 || true)}
python313=${PYTHON313:-$(find_python 3.13 || true)}
python=${PYTHON:-}
if [ -z "$python" ]; then
  if [ -n "$python313" ]; then
    python=$python313
  elif [ -n "$python311" ]; then
    python=$python311
    echo "note: no Python 3.13, so the embedded Blender is 4.5 LTS (Python 3.11), not the default 5.2 LTS;" \
         "install one (pyenv install 3.13) and rerun, or set PYTHON313=/path/to/python3.13" >&2
  else
    echo "error: RealityBench needs Python 3.13 (the bpy 5.2 wheel) or 3.11 (the bpy 4.5 wheel);" \
         "set PYTHON=/path/to/python3.13" >&2
    exit 2
  fi
fi
version=$(python_version "$python")
default_line=${line_of[$version]:-}
if [ -z "$default_line" ]; then
  echo "error: $python is Python $version; the bpy wheels exist for Python 3.13 (Blender 5.2) and 3.11 (4.5)" >&2
  exit 2
fi

# A .venv made earlier for another line is made anew: one venv holds one bpy wheel.
if [ -x .venv/bin/python ] && [ "$(python_version .venv/bin/python)" != "$version" ]; then
  echo "note: .venv was Python $(python_version .venv/bin/python); making it anew with Python $version" \
       "(Blender $default_line)" >&2
  rm -rf .venv
fi
# A venv whose making was cut short (a killed setup) has a python but no pip: it is made anew too.
usable_venv() { [ -x "$1/bin/python" ] && "$1/bin/python" -m pip --version >/dev/null 2>&1; }
if ! usable_venv .venv; then
  rm -rf .venv
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
  # The other lines tested, each in its own venv: line, its Python, the numpy its wheel was built against.
  for spec in "4.5 3.11 numpy>=1.26,<2" "5.2 3.13 numpy>=2" "5.3 3.13 numpy>=2"; do
    read -r line py numpy_pin <<<"$spec"
    [ "$line" = "$default_line" ] && continue
    if [ "$py" = 3.13 ]; then interpreter=$python313; else interpreter=$python311; fi
    if [ -z "$interpreter" ]; then
      echo "note: no Python $py, so the Blender $line suites will be skipped; install one (pyenv install $py)" \
           "and rerun, or set PYTHON${py/./}=/path/to/python$py" >&2
      continue
    fi
    if ! usable_venv ".venv-bpy$line"; then
      rm -rf ".venv-bpy$line"
      "$interpreter" -m venv ".venv-bpy$line"
    fi
    # pytest < 10 as in pyproject.toml's test extra.
    ".venv-bpy$line/bin/python" -m pip install --quiet "bpy==$line.*" "$numpy_pin" pillow "pytest>=8,<10" pytest-timeout
  done
else
  .venv/bin/python -m pip install --quiet -e ".[bpy]"
fi
.venv/bin/python -m realitybench_addon version >/dev/null
# MakeHuman's MPFB2 body (CC0) for the technician, into ~/.cache/realitybench (every Blender line reads it there).
.venv/bin/python -m realitybench_addon fetch-body >/dev/null
echo "RealityBench is set up in .venv ($(.venv/bin/python -m realitybench_addon version | tr -d '\n ' ))"
