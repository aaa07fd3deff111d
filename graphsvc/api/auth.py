"""Bearer-token check and request-body limit, as plain ASGI middleware."""

from __future__ import annotations

import hmac
import ipaddress
import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Reachable without a token: the health probe, the API description, the GraphiQL page (its
# queries still need the token) with its script files, and the Browser style file (the Neo4j Browser fetches it).
OPEN_PATHS = ("/healthz", "/docs", "/openapi.json", "/browser/graphsvc.grass")
# The GraphiQL page is `GET /graphql` with no query string at all. Anything after the `?` may
# be a query however it is spelled (`%71uery=`, `q%75ery=`, repeated keys...): the decision
# is made on the route, never on a parse of our own that could differ from the framework's.
GRAPHIQL_PAGE = "/graphql"


def is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def _reply(send: Send, status: int, body: dict, headers: list[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": data})


class BearerAuth:
    """Requires `Authorization: Bearer <token>` (compared in constant time) when a token is set."""

    def __init__(self, app: ASGIApp, token: str | None):
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            # No route needs one, and a websocket would carry GraphQL past the token and past
            # the browser's same-origin rules (websockets have no CORS).
            await send({"type": "websocket.close", "code": 1008, "reason": "websockets are not served"})
            return
        if scope["type"] != "http" or self.expected is None or self._open(scope):
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"authorization", b"")
        if not hmac.compare_digest(given, self.expected):
            await _reply(
                send,
                401,
                {"error": "missing or wrong bearer token: send 'Authorization: Bearer <token>'", "code": "UNAUTHENTICATED"},
                [(b"www-authenticate", b"Bearer")],
            )
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _open(scope: Scope) -> bool:
        path = scope["path"]
        if path in OPEN_PATHS or path.startswith("/graphiql/"):
            return True
        return path == GRAPHIQL_PAGE and scope["method"] == "GET" and not scope.get("query_string")


class BodyLimit:
    """Answers 413 to bodies over `max_bytes`, declared or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        too_big = {"error": f"request body over the {self.max_bytes} byte limit", "code": "PAYLOAD_TOO_LARGE"}
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await _reply(send, 413, too_big)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, tracking_send)
        except _TooLarge:
            if not started:
                await _reply(send, 413, too_big)


class _TooLarge(Exception):
    pass
