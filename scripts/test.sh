#!/usr/bin/env bash
# Sets up everything the tests need (what a player needs, and the test tools), then runs the
# linter and the whole suite.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
# The printed cards read back (poppler), and the hearing corpus's other synthesizers, crowd
# talkers and real recordings.
TEST_PACKAGES=(poppler-utils flite festival festvox-kallpc16k festvox-us-slt-hts festvox-kdlpc16k
               pocketsphinx-testdata)
apt_install "${PLAYER_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
venv_install ".[test]"
# The real wyoming-satellite the satellite tests connect to, in a venv of its own (it pins an
# older wyoming than voicehost's).
[ -x .venv-satellite/bin/python ] || python3 -m venv .venv-satellite
.venv-satellite/bin/pip install -q --require-hashes -r tests/satellite/requirements.txt
.venv/bin/ruff check voicehost tests scripts
# Several workers on few cores: OpenBLAS's threads spin against each other's, which made the
# Whisper corpus four times slower under load (one thread each: 1.3x slower alone).
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
.venv/bin/python -m pytest -q -n "${VOICEHOST_TEST_WORKERS:-3}" --dist worksteal "$@"
