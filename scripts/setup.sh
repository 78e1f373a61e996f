#!/usr/bin/env bash
# Installs what posebatch needs on Debian 12 (as root), only what is missing.
# Usage: scripts/setup.sh [--ci]   (--ci adds cross / qemu / clang for CI stages)
set -euo pipefail
pkgs=(meson ninja-build pkg-config gcc g++ libc6-dev libsimde-dev libcriterion-dev libbenchmark-dev python3)
if [ "${1:-}" = "--ci" ]; then
  # cmake: the installed-package stage's find_package(posebatch) consumer
  pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user clang libclang-rt-14-dev cmake)
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
