"""A client for the server's REST resources (protocol v1, ``/v1/...``), on httpx.

Every method returns the pydantic model of ``protocol/wire/rest.py``; an error answer
(4xx/5xx) raises :class:`RestError` carrying the server's :class:`ErrorBody` (its stable
``code``). Timeouts are explicit (:data:`DEFAULT_TIMEOUT`), and any httpx transport can
be passed in (``httpx.MockTransport`` in tests).

>>> import httpx
>>> def handler(request: httpx.Request) -> httpx.Response:
...     return httpx.Response(200, json={"status": "ok", "protocol_version": 1})
>>> with SyncRestClient("http://server", transport=httpx.MockTransport(handler)) as rest:
...     rest.health().status
'ok'

Async use::

    async with RestClient("http://127.0.0.1:8765") as rest:
        created = await rest.create_table(TableCreate(seed=7, seats=[...]))
        token = created.tokens["0"]
"""

from __future__ import annotations

from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from protocol.errors import MahjongError
from protocol.wire.rest import (
    ErrorBody,
    Health,
    Leaderboard,
    MatchLog,
    TableCreate,
    TableCreated,
    TableList,
    TableStatus,
)

__all__ = ["DEFAULT_TIMEOUT", "RestClient", "RestError", "SyncRestClient"]

DEFAULT_TIMEOUT = httpx.Timeout(10.0, connect=3.0)
"""Ten seconds for a whole request, three to connect."""

M = TypeVar("M", bound=BaseModel)


class RestError(MahjongError):
    """The server answered with an error status, or with a body that does not fit.
    ``status`` is the HTTP status; ``error`` the server's :class:`ErrorBody` if it sent
    one."""

    def __init__(self, status: int, message: str, error: ErrorBody | None = None) -> None:
        self.status, self.error = status, error
        self.code = None if error is None else error.code.value
        super().__init__(f"HTTP {status}: {message}")


def _path(*parts: str) -> str:
    return "/v1/" + "/".join(quote(p, safe="") for p in parts)


def _page(limit: int | None, before: int | None) -> dict[str, int] | None:
    """Query parameters of a page of ``GET /v1/tables``."""
    params = {k: v for k, v in (("limit", limit), ("before", before)) if v is not None}
    return params or None


def _parse(response: httpx.Response, model: type[M]) -> M:
    """The body of a success as ``model``; :class:`RestError` otherwise."""
    if response.is_error:
        try:
            error = ErrorBody.model_validate_json(response.content)
        except ValidationError:
            raise RestError(response.status_code, response.text[:200] or "no body") from None
        raise RestError(response.status_code, f"{error.code.value}: {error.message}", error)
    try:
        return model.model_validate_json(response.content)
    except ValidationError as exc:
        raise RestError(
            response.status_code, f"the answer is not a valid {model.__name__}: {exc}"
        ) from None


class RestClient:
    """Async REST client: ``base_url`` is the server's root, e.g.
    ``http://127.0.0.1:8765`` (the paths start with ``/v1``)."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.http = httpx.AsyncClient(
            base_url=base_url, timeout=timeout, transport=transport, headers=headers
        )

    async def __aenter__(self) -> RestClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def _call(
        self,
        method: str,
        path: str,
        model: type[M],
        body: Any = None,
        params: dict[str, int] | None = None,
    ) -> M:
        content = None if body is None else body.model_dump_json(exclude_none=True)
        headers = None if body is None else {"content-type": "application/json"}
        response = await self.http.request(
            method, path, content=content, headers=headers, params=params
        )
        return _parse(response, model)

    async def health(self) -> Health:
        """``GET /v1/health``."""
        return await self._call("GET", _path("health"), Health)

    async def create_table(self, table: TableCreate) -> TableCreated:
        """``POST /v1/tables``: the ids and a token per ``ws`` seat."""
        return await self._call("POST", _path("tables"), TableCreated, table)

    async def tables(self, limit: int | None = None, before: int | None = None) -> TableList:
        """``GET /v1/tables``: one page, newest first (``next_before`` continues it)."""
        return await self._call("GET", _path("tables"), TableList, params=_page(limit, before))

    async def table(self, table_id: str) -> TableStatus:
        """``GET /v1/tables/{table_id}``."""
        return await self._call("GET", _path("tables", table_id), TableStatus)

    async def match_log(self, match_id: str) -> MatchLog:
        """``GET /v1/matches/{match_id}/log`` (after the match)."""
        return await self._call("GET", _path("matches", match_id, "log"), MatchLog)

    async def leaderboard(self) -> Leaderboard:
        """``GET /v1/leaderboard``."""
        return await self._call("GET", _path("leaderboard"), Leaderboard)


class SyncRestClient:
    """The same methods, blocking (scripts, notebooks)."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.http = httpx.Client(
            base_url=base_url, timeout=timeout, transport=transport, headers=headers
        )

    def __enter__(self) -> SyncRestClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def _call(
        self,
        method: str,
        path: str,
        model: type[M],
        body: Any = None,
        params: dict[str, int] | None = None,
    ) -> M:
        content = None if body is None else body.model_dump_json(exclude_none=True)
        headers = None if body is None else {"content-type": "application/json"}
        response = self.http.request(method, path, content=content, headers=headers, params=params)
        return _parse(response, model)

    def health(self) -> Health:
        return self._call("GET", _path("health"), Health)

    def create_table(self, table: TableCreate) -> TableCreated:
        return self._call("POST", _path("tables"), TableCreated, table)

    def tables(self, limit: int | None = None, before: int | None = None) -> TableList:
        return self._call("GET", _path("tables"), TableList, params=_page(limit, before))

    def table(self, table_id: str) -> TableStatus:
        return self._call("GET", _path("tables", table_id), TableStatus)

    def match_log(self, match_id: str) -> MatchLog:
        return self._call("GET", _path("matches", match_id, "log"), MatchLog)

    def leaderboard(self) -> Leaderboard:
        return self._call("GET", _path("leaderboard"), Leaderboard)
