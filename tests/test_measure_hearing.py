"""scripts/measure_hearing.py's pipeline of the default engine: its floor can be set (to
gather evidence at 0) and Whisper's evidence reaches the results through the split between
engines."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from voicehost.lab.speakers import VOICES, speak

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))  # the script imports build_corpus from beside it
spec = importlib.util.spec_from_file_location("measure_hearing", SCRIPTS / "measure_hearing.py")
assert spec is not None and spec.loader is not None
measure = importlib.util.module_from_spec(spec)
sys.modules["measure_hearing"] = measure
spec.loader.exec_module(measure)


def test_the_default_engine_takes_a_floor_and_keeps_whisper_evidence() -> None:
    pipeline = measure.Pipeline("auto", {"floor": 0.0})
    assert pipeline.recognizer.short.floor == 0.0
    result = pipeline.hear({"grammar": "phrases:yes|no"}, speak("yes", VOICES[0]))
    assert result.evidence is not None and result.evidence["score"] < 0.0
    assert result.best == "yes"
