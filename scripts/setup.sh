#!/usr/bin/env bash
# Sets up voicehost on a fresh Debian/Ubuntu machine: system packages, then a virtualenv in .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
PACKAGES=(python3-venv espeak-ng libespeak-ng1 libportaudio2 pulseaudio pulseaudio-utils
          libasound2-plugins alsa-utils sox poppler-utils)
# The hearing corpus's other synthesizers, crowd talkers and real recordings (tests only).
PACKAGES+=(flite festival festvox-kallpc16k festvox-us-slt-hts festvox-kdlpc16k
           pocketsphinx-testdata)
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e ".[test]"
