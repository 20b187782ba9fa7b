"""Imported first by every subpackage only this SDK has: stops with ``SharedFilesError`` (a
clear ``ImportError`` naming the repair command) when the files shared with ``ag-ui-protocol``
are not this SDK's. See ``ag_ui._integrity``."""

from ag_ui._integrity import require_sdk_files

require_sdk_files()
