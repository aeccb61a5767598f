#!/usr/bin/env bash
# Sets up voicehost to play on a fresh Debian/Ubuntu machine: the system packages it speaks and
# listens through, then a virtualenv in .venv with voicehost in it (.venv/bin/voicehost).
# scripts/test.sh sources this file for its helpers and adds what the tests need.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
# The voice (espeak-ng), the sound card (PortAudio through PulseAudio or ALSA) and sox.
PLAYER_PACKAGES=(python3-venv espeak-ng libespeak-ng1 libportaudio2 pulseaudio pulseaudio-utils
                 libasound2-plugins alsa-utils sox)

apt_install() {
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" \
      || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# voicehost into .venv, installed from this checkout (editable: a `git pull` is picked up).
venv_install() {
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e "$1"
  # the host's voice (piper joe), made 8-bit once now rather than before the first game
  .venv/bin/python -m voicehost.speech.piper_voice
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  apt_install "${PLAYER_PACKAGES[@]}"
  venv_install .
fi
