#!/usr/bin/env bash
# Installs what posebatch needs on Debian 12 (as root), only what is missing.
# Usage: scripts/setup.sh [--ci | --python-bench | --plots]   (--ci adds cross / qemu / clang
# for CI stages; --python-bench adds scipy for bench/python_resample.py; --plots adds
# matplotlib for scripts/plots.py)
set -euo pipefail
pkgs=(meson ninja-build pkg-config gcc g++ libc6-dev libsimde-dev libcriterion-dev libbenchmark-dev python3)
# NumPy archives (src/io/npz_read.c): deflated .npz entries (numpy.savez_compressed,
# AMASS) through zlib
pkgs+=(zlib1g-dev)
# glTF (src/io/gltf/): JSON by jansson, which reports line and column
pkgs+=(libjansson-dev)
# the Python package (src/python/, pip install . into a --system-site-packages venv):
# headers, venv, numpy, meson-python (+ patchelf, which it runs on the wheel),
# pytest, Dask distributed
pkgs+=(python3-dev python3-venv python3-numpy python3-mesonpy patchelf python3-pytest python3-distributed)
if [ "${1:-}" = "--ci" ]; then
  # cmake: the installed-package stage's find_package(posebatch) consumer
  pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user clang libclang-rt-14-dev cmake
        clang-format)
  # node + npm: the glTF-Validator stage (npm gltf-validator); a node that
  # already brings npm (e.g. NodeSource's) is kept
  command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)
fi
# bench/python_*.py only (not CI): scipy, the competitor measured there
if [ "${1:-}" = "--python-bench" ]; then
  pkgs+=(python3-scipy)
fi
# scripts/plots.py only (the figures in docs/, not CI): matplotlib
if [ "${1:-}" = "--plots" ]; then
  pkgs+=(python3-matplotlib)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages and not root: run as root or install: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
