"""Cursor pagination over a time and a primary key (docs/api.md): the one helper every cursor-paged list uses.

A cursor is opaque to the client: the last row's time and key, base64url without padding. Rows are ordered by
(time, key), so a row written meanwhile with an earlier time never shifts a page, and a time shared by several
rows is broken by the key. A cursor this list did not give is 400 ``invalid_input`` on the ``cursor`` field.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from django.db.models import Model, Q, QuerySet
from django.utils.dateparse import parse_datetime

from infra.errors import InvalidInput

M = TypeVar("M", bound=Model)


def cursor_make(moment: datetime, key: object) -> str:
    """The opaque cursor after a row with this time and key (the time exact, to the microsecond, with its zone)."""
    return base64.urlsafe_b64encode(f"{moment.isoformat()}|{key}".encode()).decode().rstrip("=")


def cursor_invalid() -> InvalidInput:
    """The refusal of a cursor this list did not give (a list paged by key alone raises it too)."""
    return InvalidInput(
        "invalid_input",
        "The cursor is not one this list gave.",
        {"cursor": "Pass the previous page's `next` as it was."},
    )


def cursor_read(cursor: str, key: Callable[[str], Any]) -> tuple[datetime, Any]:
    """(time, key) from a cursor; ``key`` turns the text back into a key and raises ValueError on a bad one."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        moment_text, _, key_text = text.partition("|")
        moment = parse_datetime(moment_text)
        if moment is None:
            raise ValueError(text)
        return moment, key(key_text)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise cursor_invalid() from None


def integer_key(text: str) -> int:
    """A primary key written in ASCII digits (``int`` alone would take " 7", "+7" and other scripts' digits)."""
    if not (text.isascii() and text.isdigit()):
        raise ValueError(text)
    return int(text)


def keyset_page(
    rows: QuerySet[M], *, time_field: str, cursor: str | None, limit: int, newest_first: bool, key: Callable[[str], Any]
) -> tuple[list[M], str | None]:
    """One page of ``rows`` by (``time_field``, pk), oldest or newest first, after ``cursor``; and the next
    cursor (None at the end). One query: a row more than the page says whether another page follows."""
    after = "lt" if newest_first else "gt"
    if cursor:
        moment, last = cursor_read(cursor, key)
        rows = rows.filter(Q(**{f"{time_field}__{after}": moment}) | Q(**{time_field: moment, f"pk__{after}": last}))
    sign = "-" if newest_first else ""
    page = list(rows.order_by(f"{sign}{time_field}", f"{sign}pk")[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    return page, (cursor_make(getattr(page[-1], time_field), page[-1].pk) if more else None)
