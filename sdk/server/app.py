"""The ASGI app (FastAPI): protocol v1's REST resources under ``/v1`` and the
WebSocket endpoint ``/v1/ws``. Bodies are the pydantic models of
:mod:`protocol.wire.rest`; every error answers an ``ErrorBody``.

| method and path | answer |
|---|---|
| ``GET /v1/health`` | ``Health`` |
| ``POST /v1/tables`` | ``TableCreated`` (201) |
| ``GET /v1/tables`` | ``TableList`` |
| ``GET /v1/tables/{table_id}`` | ``TableStatus`` |
| ``GET /v1/matches/{match_id}/log`` | ``MatchLog`` (after the match) |
| ``GET /v1/matches/{match_id}/log.jsonl`` | the game record (``docs/RECORDS.md``, after the match) |
| ``GET /v1/matches/{match_id}/view`` | the replay viewer page (live, public only, while it runs) |
| ``GET /v1/leaderboard`` | ``Leaderboard`` |
| ``WS /v1/ws`` | protocol v1 |
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from protocol.wire.common import ErrorCode
from protocol.wire.rest import ErrorBody, Health, TableCreate, TableList
from sdk.records import encode_record
from sdk.replay.serve import view_page
from sdk.server.config import SERVER_VERSION
from sdk.server.core import RequestError, TournamentServer, match_log_body
from sdk.server.security import same_token
from sdk.server.wsconn import serve_ws

__all__ = ["MAX_BODY_BYTES", "create_app"]

MAX_BODY_BYTES = 65536
"""Largest REST request body."""


def _json(model: BaseModel, status: int = 200) -> JSONResponse:
    return JSONResponse(model.model_dump(mode="json", exclude_none=True), status_code=status)


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

    app = FastAPI(title="taimahjong tournament server", version=SERVER_VERSION, lifespan=lifespan)

    @app.exception_handler(RequestError)
    async def _refused(_: Request, exc: RequestError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, ErrorCode.MALFORMED, str(exc.detail))

    @app.get("/v1/health")
    async def health() -> JSONResponse:
        return _json(Health(server_version=SERVER_VERSION))

    @app.post("/v1/tables")
    async def create_table(request: Request) -> JSONResponse:
        admin = server.config.admin_token
        if admin is not None:
            given = request.headers.get("authorization", "").removeprefix("Bearer ")
            if not same_token(given, admin):
                return _error(401, ErrorCode.BAD_TOKEN, "POST /v1/tables needs the admin token")
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return _error(413, ErrorCode.MALFORMED, f"a body has at most {MAX_BODY_BYTES} bytes")
        try:
            create = TableCreate.model_validate_json(body)
        except ValidationError as exc:
            return _error(422, ErrorCode.MALFORMED, _summary(exc))
        return _json(server.create_table(create), 201)

    @app.get("/v1/tables")
    async def list_tables() -> JSONResponse:
        return _json(TableList(tables=await server.list_tables()))

    @app.get("/v1/tables/{table_id}")
    async def table(table_id: str) -> JSONResponse:
        status = server.table_status(table_id) or await server.stored_table(table_id)
        if status is None:
            return _error(404, ErrorCode.NOT_FOUND, f"no table {table_id!r}")
        return _json(status)

    @app.get("/v1/matches/{match_id}/log")
    async def match_log(match_id: str) -> JSONResponse:
        return _json(match_log_body(await server.load_log(match_id)))

    @app.get("/v1/matches/{match_id}/log.jsonl")
    async def match_log_jsonl(match_id: str) -> Response:
        text = encode_record(await server.load_record(match_id))
        headers = {"content-disposition": f'attachment; filename="{match_id}.jsonl"'}
        return Response(text, media_type="application/x-ndjson", headers=headers)

    @app.get("/v1/matches/{match_id}/view")
    async def match_view(match_id: str, seat: int | None = None) -> HTMLResponse:
        return HTMLResponse(await view_page(server, match_id, seat))

    @app.get("/v1/leaderboard")
    async def leaderboard() -> JSONResponse:
        return _json(await server.leaderboard())

    @app.websocket("/v1/ws")
    async def ws(websocket: WebSocket) -> None:
        await serve_ws(server, websocket)

    return app


def _summary(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error["loc"]) or "body"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)
