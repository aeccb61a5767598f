"""Shared fixtures: the virtual sound room (the `room` fixture of tests/room.py).

Under pytest-xdist every worker plays in a room of its own (sink "room-gw0", "room-gw1", ...)
so two room games side by side never hear each other; VOICEHOST_ROOM=name gives a session
rooms of its own ("name-gw0", ...). voicehost/lab/room.py reads VOICEHOST_ROOM when it is
imported, which is why it is set here before the import.

The room games wait on real time (minutes each), so scripts/test.sh runs three workers with
xdist's work-stealing scheduler, and the tests marked `takes_seconds` are dealt out so that
each worker starts on its own share of them (`deal_long_tests`).
"""

from __future__ import annotations

import os

import pytest

_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    os.environ["VOICEHOST_ROOM"] = f"{os.environ.get('VOICEHOST_ROOM', 'room')}-{_worker}"

from room import room  # noqa: E402, F401  (registers the session fixture)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in the room is marked `room` (so `-m room` / `-m "not room"` select by
    fixture, not by remembering a marker), and every test has a time limit: three times what
    it takes alone, and at least fifteen minutes (a session fixture that hears a corpus is
    timed with the first test that asks for it)."""
    for item in items:
        if "room" in getattr(item, "fixturenames", ()) and item.get_closest_marker("room") is None:
            item.add_marker(pytest.mark.room)
        if item.get_closest_marker("timeout") is None:  # a hung test fails, not the whole run
            item.add_marker(pytest.mark.timeout(max(900.0, 3 * seconds(item))))


class Dealer:
    """Under xdist, deals the long tests out once `-m` has deselected (the shares are of what
    runs)."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
        if workers > 1:
            items[:] = deal_long_tests(items, workers)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(Dealer(), "voicehost-dealer")


def seconds(item: pytest.Item) -> float:
    """How long the test takes, as its `takes_seconds` marker says (0: not long)."""
    mark = item.get_closest_marker("takes_seconds")
    return float(mark.args[0]) if mark else 0.0


def deal_long_tests(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """The tests in an order that starts every worker on its own long tests.

    xdist's work-stealing scheduler gives each worker an equal run of the list, in order, and
    lets an idle worker take the tail of a busy one's run. The long tests (longest first, each
    to the run with the least time so far) go at the heads of the runs; the others fill them
    in their collected order."""
    sizes, left = [], len(items)
    for remaining in range(workers, 0, -1):
        sizes.append(left // remaining)
        left -= sizes[-1]
    runs: list[list[pytest.Item]] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for item in sorted((i for i in items if seconds(i)), key=seconds, reverse=True):
        k = min(range(workers), key=lambda w: (len(runs[w]) >= sizes[w], load[w]))
        runs[k].append(item)
        load[k] += seconds(item)
    rest = iter([i for i in items if not seconds(i)])
    for k, run in enumerate(runs):
        run.extend(next(rest) for _ in range(sizes[k] - len(run)))
    return [item for run in runs for item in run]
