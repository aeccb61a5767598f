"""scripts/fuzz.py stays runnable: a short run of careless speech, and its figures line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "fuzz.py"


def test_careless_speech_leaves_no_traceback_and_loses_no_move() -> None:
    run = subprocess.run([sys.executable, str(SCRIPT), "utterances", "--count", "4000",
                          "--seed", "3"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 tracebacks or replay mismatches" in run.stdout
