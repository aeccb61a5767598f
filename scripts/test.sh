#!/usr/bin/env bash
# Sets up everything the tests need, then runs the linter and the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The real wyoming-satellite the satellite tests connect to, in a venv of its own (it pins an
# older wyoming than voicehost's).
[ -x .venv-satellite/bin/python ] || python3 -m venv .venv-satellite
.venv-satellite/bin/pip install -q --require-hashes -r tests/satellite/requirements.txt
.venv/bin/ruff check voicehost tests scripts
.venv/bin/python -m pytest -q -n "${VOICEHOST_TEST_WORKERS:-3}" --dist worksteal "$@"
