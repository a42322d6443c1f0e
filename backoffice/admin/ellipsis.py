"""One ellipsis, never two (issue 27 §4, "no doubled ellipsis"; docs/moderation.md, "Pages that fit").

An ellipsis says "there is more": a button that opens a confirmation page ("Duplicate of…"), a note cut short on the
dashboard. Two marks in a row ("Duplicate of……", "Wait...…") happened where a label that already ended with one got
another from the template, or a cut landed just after the writer's own "...". Framework-free: the panel's buttons
and its ``clip`` template filter (``backoffice/templatetags/panel_text.py``) both go through here.
"""

from __future__ import annotations

ELLIPSIS = "…"
# What already reads as an ellipsis at the end of a text, and the space before it.
_TRAILING = " .…\u00a0\t\n"


def with_ellipsis(label: str) -> str:
    """``label`` ending in exactly one "…", whatever it ended with ("Ban" → "Ban…", "Duplicate of…" unchanged)."""
    return label.rstrip(_TRAILING) + ELLIPSIS


def clip(text: str, length: int) -> str:
    """``text`` cut to at most ``length`` characters, "…" included, when it is longer; the cut drops the dots and
    spaces it lands after, so the one "…" is the only mark. A text that fits is returned as written."""
    text = text or ""
    if length < 1 or len(text) <= length:
        return text
    return with_ellipsis(text[: length - 1])
