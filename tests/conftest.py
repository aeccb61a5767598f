"""Shared fixtures: the virtual sound room (tests/room.py)."""

from room import room  # noqa: F401  (registers the session fixture)
