"""Protocol v1: JSON text frames over WebSocket and the REST bodies, sans-I/O.

See ``protocol/PROTOCOL.md`` for the specification.
"""

PROTOCOL_VERSION = 1
"""The version of protocol v1 this code speaks; sent in ``hello`` and ``welcome``."""
