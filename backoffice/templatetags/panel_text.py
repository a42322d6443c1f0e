"""The panel's text filters: ``clip`` cuts a long text with one ellipsis (``backoffice.admin.ellipsis``), where
Django's ``truncatechars`` adds its "…" after whatever dots the cut lands on."""

from __future__ import annotations

from django import template

from backoffice.admin.ellipsis import clip as _clip

register = template.Library()


@register.filter
def clip(text: object, length: int) -> str:
    return _clip(str(text or ""), int(length))
