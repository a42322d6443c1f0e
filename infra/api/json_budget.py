"""What a JSON body may expand to, measured on its bytes before a single Python object is built (issue 25 §1.3).

A byte cap alone does not bound a worker's memory: 16 MiB of ``[],[],...`` is 5.6 million lists, about 400 MiB
of Python objects, and took 8 s to build. So the API's parser (infra/api/parsers.py) asks three things of the
raw bytes first, at C speed but for one step per bracket (byte counts, one regular-expression pass, a translate):

- **how many values** it holds, at most: once the strings are blanked out (a comma inside a string is text),
  every value but the root is either the first in its container or follows a comma, so
  values <= 1 + commas + containers (equal when no container is empty; each empty one adds one to the bound);
- **how deep** it nests: the highest running count of opening minus closing brackets, over the brackets alone
  (``bytes.translate`` deletes the rest; only a body with more containers than the limit is looked at);
- **no key twice** in one object (``unique_pairs``, the parser's ``object_pairs_hook``): Python keeps the last,
  other parsers (a gateway's, a proxy's) the first, so the two would disagree about what was sent.

Worked example (docs/security.md, "Limits at the API door"): ``{"a": [1, 2, {"b": "x,y"}]}`` blanks to
``{"": [1, 2, {"": ""}]}``: 2 commas, 3 containers, so 1 + 2 + 3 = 6, and the values are indeed six (the outer
object, the list, 1, 2, the inner object, "x,y"). ``[[],[],[]]`` has 4 values; its bound is 1 + 2 + 4 = 7.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

import orjson

# A JSON string: a quote, then runs of anything but a quote or backslash, or a backslash and any one character,
# then the closing quote if there is one. Possessive, and the closing quote optional, so the pass stays linear:
# an unterminated string (a malformed body, refused by the parser next) is taken to the end once, never tried
# again from each quote inside it ('"' followed by a million '\"' would otherwise cost a million scans).
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"?', re.DOTALL)
# Every byte but the four brackets, deleted by ``bytes.translate`` to leave the bracket sequence.
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


class DuplicateKey(ValueError):
    """A key sent twice in one object; ``key`` names it."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def blank_strings(raw: bytes) -> bytes:
    """``raw`` with every string's contents removed (``"a,b"`` becomes ``""``): what is left is structure."""
    return _STRING.sub(b'""', raw)


def value_count(structure: bytes) -> int:
    """1 + commas + containers of a body whose strings are blanked: never below its number of values, and equal
    to it when no container is empty (the module's docstring works both cases)."""
    if not structure.strip():
        return 0
    return structure.count(b",") + structure.count(b"[") + structure.count(b"{") + 1


def depth(structure: bytes) -> int:
    """How deep the blanked body nests containers: the highest running count of openings minus closings."""
    brackets = structure.translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def over_budget(raw: bytes, *, max_values: int, max_depth: int) -> str | None:
    """Why ``raw`` would expand past the budget, or None. The cheap counts come first: a body whose raw commas
    and brackets (strings included) are under both limits is not blanked at all, which is every ordinary body."""
    containers = raw.count(b"[") + raw.count(b"{")
    if 1 + raw.count(b",") + containers <= max_values and containers <= max_depth:
        return None
    structure = blank_strings(raw)
    if value_count(structure) > max_values:
        return f"more than {max_values} JSON values"
    if structure.count(b"[") + structure.count(b"{") > max_depth and depth(structure) > max_depth:
        return f"nested more than {max_depth} levels deep"
    return None


def unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: the object, or ``DuplicateKey`` naming the first key sent twice."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


def game_values(body: Any, limit: int) -> int:
    """How many JSON values ``body`` (one game of a batch, already parsed) holds, counting stops past ``limit``:
    a batch's games are each held to a single game's budget before any game object is built from them.

    The count is exact only past ``limit``: first orjson writes the game back (at C speed; a batch asks 500 times)
    and the module's bound, 1 + commas + containers, is taken on that text unblanked (a comma or a bracket inside a
    string only raises it); when that bound is within ``limit``, it is returned, and the walk is skipped."""
    try:
        written = orjson.dumps(body)
    except TypeError:  # orjson.JSONEncodeError: anything JSON cannot hold goes to the walk
        pass
    else:
        bound = value_count(written)
        if bound <= limit:
            return bound
    count, stack = 0, [body]
    while stack:
        value = stack.pop()
        count += 1
        if count > limit:
            return count
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return count
