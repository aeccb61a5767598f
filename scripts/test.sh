#!/usr/bin/env bash
# Sets up everything the tests need, then runs the linter and the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check voicehost tests scripts
.venv/bin/python -m pytest -q -n "${VOICEHOST_TEST_WORKERS:-3}" --dist worksteal "$@"
