"""The ASGI app (FastAPI): two pages for people (:mod:`sdk.server.pages`: ``GET /``,
the matches, and ``GET /leaderboard``), ``GET /v1/`` listing the endpoints below
(:data:`ENDPOINTS`), protocol v1's REST resources under ``/v1`` and the
WebSocket endpoint ``/v1/ws``. Bodies are the pydantic models of
:mod:`protocol.wire.rest`; every error answers an ``ErrorBody``.

================================================  =========================================================
method and path                                   answer
================================================  =========================================================
``GET /v1/health``                                ``Health``
``POST /v1/tables``                               ``TableCreated`` (201)
``GET /v1/tables``                                ``TableList``
``GET /v1/tables/{table_id}``                     ``TableStatus``
``GET /v1/matches/{match_id}/log``                ``MatchLog`` (after the match)
``GET /v1/matches/{match_id}/log.jsonl``          the game record (``docs/RECORDS.md``, after the match)
``GET /v1/matches/{match_id}/view``               the replay viewer page (live, public only, while it runs)
``GET /v1/matches/{match_id}/view/hands/{hand}``  one hand of the viewer page, JSON (hand from 0)
``GET /v1/matches/{match_id}/view/stream``        a running match's new steps, server-sent events
``GET /v1/leaderboard``                           ``Leaderboard``
``WS /v1/ws``                                     protocol v1
================================================  =========================================================
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from protocol.wire.common import ErrorCode
from protocol.wire.rest import ErrorBody, Health, TableCreate, TableList
from sdk.records import encode_record
from sdk.replay.serve import ViewCache, view_hand, view_page, view_stream
from sdk.server.config import SERVER_VERSION
from sdk.server.core import (
    LIST_LIMIT,
    LIST_MAX,
    RequestError,
    TournamentServer,
    match_log_body,
)
from sdk.server.pages import front_page, leaderboard_page
from sdk.server.records import Clock
from sdk.server.respcache import ResponseCache
from sdk.server.restlimits import RestLimits
from sdk.server.wsconn import serve_ws

__all__ = ["ENDPOINTS", "LIST_TTL", "create_app"]

LIST_TTL = 1.0
"""Seconds an encoded table list or leaderboard is reused (a finished match's log and
record are kept until evicted: they never change)."""


ENDPOINTS = (
    ("GET", "/v1/health", "Health"),
    ("POST", "/v1/tables", "TableCreated (201); needs the admin token if one is set"),
    ("GET", "/v1/tables?limit=N&before=S", "TableList: one page, newest first"),
    ("GET", "/v1/tables/{table_id}", "TableStatus"),
    ("GET", "/v1/matches/{match_id}/log", "MatchLog (after the match)"),
    ("GET", "/v1/matches/{match_id}/log.jsonl", "the game record (after the match)"),
    ("GET", "/v1/matches/{match_id}/view", "the viewer page (public only while it runs)"),
    ("GET", "/v1/matches/{match_id}/view/hands/{hand}", "one hand of the viewer page (from 0)"),
    ("GET", "/v1/matches/{match_id}/view/stream", "a running match's new steps (SSE)"),
    ("GET", "/v1/leaderboard", "Leaderboard"),
    ("WS", "/v1/ws", "protocol v1"),
    ("GET", "/", "the front page (HTML): matches playing and played"),
    ("GET", "/leaderboard", "the leaderboard page (HTML)"),
)
"""What ``GET /v1/`` lists: method, path and answer (docs/SERVER.md has the details)."""


def _json(model: BaseModel, status: int = 200) -> JSONResponse:
    return JSONResponse(model.model_dump(mode="json", exclude_none=True), status_code=status)


def _encoded(model: BaseModel) -> bytes:
    return model.model_dump_json(exclude_none=True).encode()


def _error(status: int, code: ErrorCode, message: str) -> JSONResponse:
    return _json(ErrorBody(code=code, message=message), status)


def create_app(server: TournamentServer) -> FastAPI:
    """The ASGI app serving ``server``; its lifespan starts and stops the server."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await server.start()
        try:
            yield
        finally:
            await server.stop()

    docs = server.config.api_docs
    app = FastAPI(
        title="taimahjong tournament server",
        version=SERVER_VERSION,
        lifespan=lifespan,
        docs_url="/docs" if docs else None,
        redoc_url="/redoc" if docs else None,
        openapi_url="/openapi.json" if docs else None,
    )

    @app.exception_handler(RequestError)
    async def _refused(_: Request, exc: RequestError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(422, ErrorCode.MALFORMED, _summary(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = ErrorCode.NOT_FOUND if exc.status_code == 404 else ErrorCode.MALFORMED
        return _error(exc.status_code, code, str(exc.detail))

    @app.get("/v1/health")
    async def health() -> JSONResponse:
        failing = server.store.failing
        if failing is None:
            return _json(Health(server_version=SERVER_VERSION))
        return _json(
            Health(status="degraded", server_version=SERVER_VERSION, storage_error=failing)
        )

    index = {
        "server_version": SERVER_VERSION,
        "endpoints": [{"method": m, "path": p, "answer": a} for m, p, a in ENDPOINTS],
    }

    @app.get("/v1")
    @app.get("/v1/")
    async def api_index() -> JSONResponse:
        return JSONResponse(index)

    @app.post("/v1/tables")
    async def create_table(request: Request) -> JSONResponse:
        if not server.may_create(request.headers.get("authorization")):
            return _error(401, ErrorCode.BAD_TOKEN, "POST /v1/tables needs the admin token")
        body = await request.body()  # at most max_body_bytes: RestLimits read it
        try:
            create = TableCreate.model_validate_json(body)
        except ValidationError as exc:
            return _error(422, ErrorCode.MALFORMED, _summary(exc.errors()))
        return _json(server.create_table(create), 201)

    cache = ResponseCache()

    @app.get("/v1/tables")
    async def list_tables(limit: int = LIST_LIMIT, before: int | None = None) -> Response:
        if not 1 <= limit <= LIST_MAX or (before is not None and not 0 <= before <= 1 << 62):
            return _error(422, ErrorCode.MALFORMED, f"limit: 1..{LIST_MAX}; before: a serial")

        async def page() -> bytes:
            tables, next_before = await server.list_tables(limit, before)
            return _encoded(TableList(tables=tables, next_before=next_before))

        body = await cache.get(("tables", limit, before), page, ttl=LIST_TTL, now=Clock.now())
        return Response(body, media_type="application/json")

    @app.get("/v1/tables/{table_id}")
    async def table(table_id: str) -> JSONResponse:
        status = server.table_status(table_id) or await server.stored_table(table_id)
        if status is None:
            return _error(404, ErrorCode.NOT_FOUND, f"no table {table_id!r}")
        return _json(status)

    @app.get("/v1/matches/{match_id}/log")
    async def match_log(match_id: str) -> Response:
        async def body() -> bytes:  # a finished match's log never changes: kept
            stored = await server.load_log(match_id)
            return await server.off_loop(lambda: _encoded(match_log_body(stored)))

        text = await cache.get(("log", match_id), body, ttl=None, now=Clock.now())
        return Response(text, media_type="application/json")

    @app.get("/v1/matches/{match_id}/log.jsonl")
    async def match_log_jsonl(match_id: str) -> Response:
        async def body() -> bytes:  # nor does its record
            record = await server.load_record(match_id)
            return await server.off_loop(lambda: encode_record(record).encode())

        text = await cache.get(("jsonl", match_id), body, ttl=None, now=Clock.now())
        headers = {"content-disposition": f'attachment; filename="{match_id}.jsonl"'}
        return Response(text, media_type="application/x-ndjson", headers=headers)

    views = ViewCache()

    @app.get("/v1/matches/{match_id}/view")
    async def match_view(match_id: str, seat: int | None = None) -> HTMLResponse:
        return HTMLResponse(await view_page(server, views, match_id, seat))

    @app.get("/v1/matches/{match_id}/view/hands/{hand}")
    async def match_view_hand(match_id: str, hand: int, seat: int | None = None) -> Response:
        body = await view_hand(server, views, match_id, hand, seat)
        return Response(body, media_type="application/json")

    @app.get("/v1/matches/{match_id}/view/stream")
    async def match_view_stream(match_id: str) -> StreamingResponse:
        headers = {"cache-control": "no-store", "x-accel-buffering": "no"}
        stream = view_stream(server, match_id)
        return StreamingResponse(stream, media_type="text/event-stream", headers=headers)

    @app.get("/v1/leaderboard")
    async def leaderboard() -> Response:
        async def board() -> bytes:
            return _encoded(await server.leaderboard())

        body = await cache.get(("leaderboard",), board, ttl=LIST_TTL, now=Clock.now())
        return Response(body, media_type="application/json")

    @app.get("/")
    async def front(before: int | None = None) -> Response:
        if before is not None and not 0 <= before <= 1 << 62:
            return _error(422, ErrorCode.MALFORMED, "before: a serial")

        async def page() -> bytes:
            return (await front_page(server, before)).encode()

        body = await cache.get(("front", before), page, ttl=LIST_TTL, now=Clock.now())
        return HTMLResponse(body)

    @app.get("/leaderboard")
    async def leaderboard_html() -> Response:
        async def page() -> bytes:
            return (await leaderboard_page(server)).encode()

        body = await cache.get(("leaderboard.html",), page, ttl=LIST_TTL, now=Clock.now())
        return HTMLResponse(body)

    config = server.config
    app.add_middleware(
        RestLimits,
        rate=config.rest_rate,
        burst=config.rest_burst,
        max_body=config.max_body_bytes,
        concurrency=config.rest_concurrency,
        body_timeout=config.rest_body_timeout,
        shared=server.guard.shared,
    )

    @app.websocket("/v1/ws")
    async def ws(websocket: WebSocket) -> None:
        await serve_ws(server, websocket)

    return app


_WHERE = frozenset({"query", "path", "header", "cookie"})
"""Where a request parameter came from: left out of messages (the name says enough)."""


def _summary(errors: Iterable[Mapping[str, Any]]) -> str:
    """One line for the first three validation errors, each cut to 100 characters:
    the parameter or field, and what is wrong with it (never its value)."""
    parts = []
    for error in list(errors)[:3]:
        loc = [str(p) for p in error.get("loc", ())]
        if len(loc) > 1 and loc[0] in _WHERE:
            loc = loc[1:]
        part = f"{'.'.join(loc) or 'body'}: {error.get('msg', 'invalid')}"
        parts.append(part if len(part) <= 100 else part[:97] + "...")
    return "; ".join(parts) or "invalid request"
