"""The test bench: synthetic players, noise conditions, the hearing corpus, the virtual room.

What the tests (tests/) and the measuring scripts (scripts/) both play and hear with. Nothing
here is part of hosting a game, and nothing here needs pytest.
"""
