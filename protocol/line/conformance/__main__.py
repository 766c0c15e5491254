"""``python -m protocol.line.conformance``: the conformance kit's command line.

Running programs, servers and bots is I/O, which ``protocol`` never does: the command
lives in :mod:`sdk.conformance.cli` (also ``python -m sdk.conformance`` and the console
script ``taimahjong-conformance``); this entry point only starts it, so the rules
package imports nothing from the SDK.
"""

import importlib
import sys

sys.exit(importlib.import_module("sdk.conformance.cli").main())
