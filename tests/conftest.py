"""Shared fixtures: the virtual sound room (tests/room.py).

Under pytest-xdist every worker plays in a room of its own (sink "room-gw0", "room-gw1", ...)
so two room games side by side never hear each other. tests/room.py reads VOICEHOST_ROOM when
it is imported, which is why it is set here before the import.
"""

from __future__ import annotations

import os

import pytest

_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker and "VOICEHOST_ROOM" not in os.environ:
    os.environ["VOICEHOST_ROOM"] = f"room-{_worker}"

from room import room  # noqa: E402, F401  (registers the session fixture)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in the room is marked `room` (so `-m room` / `-m "not room"` select by
    fixture, not by remembering a marker)."""
    for item in items:
        if "room" in getattr(item, "fixturenames", ()) and item.get_closest_marker("room") is None:
            item.add_marker(pytest.mark.room)
