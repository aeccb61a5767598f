"""How the process's heap is kept: freed big blocks go back to the system.

A decision's decode makes blocks of many megabytes (a row of Whisper's logits per branch of the
phrase trie, a piece of the host's speech). glibc returns a freed block of that size to the
system only while its threshold for such blocks stays put, but the first free raises the
threshold and later blocks then stay in the heap; and each thread that allocates gets an arena
of its own. Fixing the threshold and sharing two arenas took the bench's peak from 488 to 453 MB
(docs/speed.md).
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameters (malloc.h)
M_ARENA_MAX = -8
BIG_BLOCK = 256 * 1024


def give_back_big_blocks() -> None:
    """Keep the heap small from here on (glibc only; elsewhere nothing changes)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_MMAP_THRESHOLD, BIG_BLOCK)
    mallopt(M_ARENA_MAX, 2)
