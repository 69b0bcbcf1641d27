"""Public service routes: health, liveness, the API description and version."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from ... import __version__
from ..openapi import document as openapi_document
from .base import ApiBase, JsonBody, iso


class ServiceRoutes(ApiBase):
    """Health, liveness and the API description (no token needed); version information."""

    async def health(self, request: Request) -> Response:
        head = self.ledger.head
        uptime = int(time.time() - self.started)
        return JsonBody(
            {
                "name": "stratoscope-sandbox",
                "version": __version__,
                "timestamp": iso(time.time()),
                "uptime": uptime,
                "lastBlock": {
                    "number": head.number,
                    "hash": head.hash,
                    "timestamp": iso(head.timestamp) if head.number >= 0 else None,
                },
                "healthInfo": {
                    "uptime": uptime,
                    "isHealthy": True,
                    "isNotStalled": True,
                    "isValidBlocksInc": True,
                    "isLastPending": self.ledger.has_pending(),
                },
                "gas": self.ledger.config.gas,
            }
        )

    async def ping(self, request: Request) -> Response:
        return PlainTextResponse("pong")

    async def openapi(self, request: Request) -> Response:
        if self.spec is None:  # the routes are fixed once the app is built
            self.spec = openapi_document(request.app.routes, __version__)
        return JsonBody(self.spec)

    async def version(self, request: Request) -> Response:
        return JsonBody(
            {
                "name": "stratoscope-sandbox",
                "version": __version__,
                "monostrato": {"name": "stratoscope", "branch": "sandbox", "sha": "", "url": ""},
            }
        )
