"""The event stream (--events): one JSON object per line for displays, tests and benchmarks."""

from __future__ import annotations

import json
import time
from typing import Any, TextIO


class EventStream:
    def __init__(self, out: TextIO | None) -> None:
        self.out = out

    def emit(self, kind: str, **facts: Any) -> None:
        if self.out is None:
            return
        record = {"event": kind, "time": round(time.time(), 3), **facts}
        self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.out.flush()

    def close(self) -> None:
        if self.out is not None and not self.out.isatty():
            self.out.close()
