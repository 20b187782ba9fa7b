"""Serves a framework app with uvicorn on a listening socket inherited from the test process.

``python <app>.py --fd N``: the parent bound 127.0.0.1:0 and passed the socket, so there is no
window in which another process could take the port. Runs inside the framework's venv, so it
imports nothing from the test suite.
"""

from __future__ import annotations

import argparse
from typing import Any

import uvicorn
from starlette.requests import Request
from starlette.responses import PlainTextResponse


async def health(_request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


def serve(app: Any) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fd", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(app, fd=args.fd, log_level="warning", lifespan="off")
