"""What reaches the routes, as plain ASGI middleware: only this server's own pages
(`SameOrigin`), only with the token (`BearerAuth`), only bounded bodies (`BodyLimit`)."""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
import socket
from email.message import Message as _HeaderValue

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Reachable without a token: the health probe, the API description, the GraphiQL page (its
# queries still need the token) with its script files, and the Browser style file (the Neo4j Browser fetches it).
OPEN_PATHS = ("/healthz", "/docs", "/openapi.json", "/browser/graphsvc.grass")
# The GraphiQL page is `GET /graphql` with no query string at all. Anything after the `?` may
# be a query however it is spelled (`%71uery=`, `q%75ery=`, repeated keys...): the decision
# is made on the route, never on a parse of our own that could differ from the framework's.
GRAPHIQL_PAGE = "/graphql"


# Any site may fetch the Browser style file (the Neo4j Browser runs on another origin).
CROSS_ORIGIN_PATHS = ("/browser/graphsvc.grass",)
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_HOSTS = ("", "0.0.0.0", "::")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
JSON_TYPE = "application/json"
ONLY_OWN_PAGES = "only this server's own pages may call it"
# Deep enough for any real variables or payload; deeper nesting only exhausts recursion later.
MAX_JSON_DEPTH = 64
_SURROGATE = re.compile("[\ud800-\udfff]")


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


def _bare(host: str) -> str:
    return host.strip().strip("[]").lower()


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def allowed_hosts(bind_host: str, configured: list[str]) -> frozenset[str] | None:
    """Host names a request may name in `Host`; None means any (`configured` holds "*").

    Default: the address the server is bound to, plus the loopback names when that is a
    loopback address. Bound to every interface (0.0.0.0, ::): the loopback names and the
    machine's own names; IP literals are accepted there too (DNS rebinding needs a name)."""
    if "*" in configured:
        return None
    if configured:
        return frozenset(_bare(h) for h in configured)
    host = _bare(bind_host)
    if host in WILDCARD_HOSTS:
        return frozenset((*LOOPBACK_NAMES, socket.gethostname().lower(), socket.getfqdn().lower()))
    return frozenset((host, *LOOPBACK_NAMES)) if is_loopback(host) else frozenset((host,))


def media_type(content_type: str) -> str:
    header = _HeaderValue()
    header["content-type"] = content_type
    return header.get_content_type() if content_type else ""


class _HttpMiddleware:
    """Middleware that looks at HTTP requests (`http`); anything else passes through."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


class SameOrigin(_HttpMiddleware):
    """Refuses what a page on another site can make a browser send.

    - `Host` must name this server (421 otherwise): a page on a rebound DNS name reaches a
      loopback server with its own name in `Host`.
    - An `Origin` (or `Sec-Fetch-Site`) from another site is refused with 403, except on
      `CROSS_ORIGIN_PATHS`.
    - A request that may change state (any method but GET, HEAD, OPTIONS) must declare a JSON
      body (415 otherwise): that is not a "simple" content type, so a browser asks first
      (preflight), and the answer to that grants nothing. A form or `text/plain` post does not ask.
    """

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None, accept_ip_literals: bool = False):
        super().__init__(app)
        self.hosts = hosts
        self.accept_ip_literals = accept_ip_literals

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self._refusal(scope)
        if refusal is not None:
            status, message, code = refusal
            await _reply(send, status, {"error": message, "code": code})
            return
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host_header = headers.get("host", "")
        if not self._host_allowed(host_header):
            return 421, (
                f"Host {host_header[:100]!r} is not a name this server answers to; "
                "add it to server.allowed_hosts (GRAPHSVC_SERVER__ALLOWED_HOSTS) if it should be"
            ), "MISDIRECTED"
        path, method = scope["path"], scope["method"]
        if path not in CROSS_ORIGIN_PATHS:
            own = (f"http://{host_header}".lower(), f"https://{host_header}".lower())
            origin = headers.get("origin")
            if origin is not None and origin.lower() not in own:
                return 403, f"requests from the page {origin[:100]!r} are refused: {ONLY_OWN_PAGES}", "FOREIGN_ORIGIN"
            if headers.get("sec-fetch-site") in ("cross-site", "same-site"):
                return 403, f"requests from another site's page are refused: {ONLY_OWN_PAGES}", "FOREIGN_ORIGIN"
        if method not in SAFE_METHODS and media_type(headers.get("content-type", "")) != JSON_TYPE:
            return 415, (
                f"{method} {path} needs 'Content-Type: {JSON_TYPE}' (send {{}} when there is nothing "
                "else to send); other types are refused so that no web page can send this request"
            ), "UNSUPPORTED_MEDIA_TYPE"
        return None

    def _host_allowed(self, host_header: str) -> bool:
        if self.hosts is None:
            return True
        name = host_header.lower()
        if name.startswith("["):
            name = name[1:].split("]", 1)[0]
        elif name.count(":") == 1:
            name = name.split(":", 1)[0]
        return name in self.hosts or (self.accept_ip_literals and _is_ip(name))


class BadJson(ValueError):
    """A JSON text the routes cannot use; the message says where."""


def _lone_surrogate(text: str) -> re.Match | None:
    return _SURROGATE.search(text)


def _where(path: tuple) -> str:
    parts = []
    while path:
        path, key = path
        parts.append(f"[{key}]" if isinstance(key, int) else f".{key[:60]}")
    text = "".join(reversed(parts)).lstrip(".")
    return text if len(text) <= 120 else text[:120] + "…"


def read_json(data: str | bytes, where: str = "body") -> object:
    """JSON the routes can use: UTF-8, no NaN/Infinity, nested at most `MAX_JSON_DEPTH`, and
    no lone surrogate (`"\\ud800"`) in any string or key: those cannot be stored or encoded
    anywhere later. Raises `BadJson` naming the byte position or the field."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadJson(f"{where} is not UTF-8: byte {exc.start} is {data[exc.start:exc.start + 1]!r}") from None
    try:
        value = json.loads(data, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise BadJson(f"{where} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise BadJson(f"{where} is nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # NaN/Infinity, an integer of thousands of digits
        raise BadJson(f"{where} is not usable JSON: {str(exc)[:200]}") from None
    stack: list[tuple[object, tuple, int]] = [(value, ((), where), 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise BadJson(f"{_where(path)} is nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(item, str):
            if found := _lone_surrogate(item):
                raise BadJson(
                    f"{_where(path)} holds a lone surrogate (\\u{ord(found.group()):04x}) at character "
                    f"{found.start()}: not Unicode text (send bytes as base64)"
                )
        elif isinstance(item, dict):
            for key, child in item.items():
                if found := _lone_surrogate(key):
                    raise BadJson(f"a key in {_where(path)} holds a lone surrogate (\\u{ord(found.group()):04x})")
                stack.append((child, (path, key), depth + 1))
        elif isinstance(item, list):
            stack.extend((child, (path, i), depth + 1) for i, child in enumerate(item))
    return value


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


class BodyLimit(_HttpMiddleware):
    """Reads each request body whole before the route does: 413 over `max_bytes` (declared or
    streamed), 400 for a JSON body `read_json` refuses. Bodies are small (the limit is a few
    MB), and a route that fails half-way through a stream of bad input helps nobody."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        super().__init__(app)
        self.max_bytes = max_bytes

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        too_big = {"error": f"request body over the {self.max_bytes} byte limit", "code": "PAYLOAD_TOO_LARGE"}
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await _reply(send, 413, too_big)
            return
        chunks, seen = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            if seen > self.max_bytes:
                await _reply(send, 413, too_big)
                return
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and media_type(headers.get(b"content-type", b"").decode("latin-1")) == JSON_TYPE:
            try:
                read_json(body)
            except BadJson as exc:
                await _reply(send, 400, {"error": str(exc), "code": "BAD_INPUT"})
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
