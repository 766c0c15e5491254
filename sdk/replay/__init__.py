"""Replays of game records: the browser viewer (:mod:`sdk.replay.html`)."""
