"""The conformance kit of the tournament line protocol (the I/O side).

* :mod:`sdk.conformance.program`: scripted referee transcripts played against any
  line-protocol program, every reply checked (form, ids held, legality, time);
* :mod:`sdk.conformance.match`: full seeded matches of a program against house bots on
  the local server;
* :mod:`sdk.conformance.referee`: one of our bots against a referee, every line it sends
  checked against the rules model;
* :mod:`sdk.conformance.cli`: ``taimahjong-conformance`` / ``python -m sdk.conformance``.

The checks themselves are sans-I/O, in :mod:`protocol.line.conformance`, with the
shipped transcripts.
"""
