"""Helpers shared by every test folder (real servers on loopback, a virtual clock, SSE parsing).

Import them as ``from tests.support.servers import serve``; see each module's docstring.
"""
