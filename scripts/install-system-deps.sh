#!/usr/bin/env bash
# System libraries Qt needs on a bare Debian/Ubuntu machine (offscreen tests and a real window).
# Safe to run again; does nothing when everything is present.
set -euo pipefail
pkgs=(libgl1 libegl1 libfontconfig1 libglib2.0-0 libxkbcommon0 libdbus-1-3
      libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0
      libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 xvfb xauth)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
