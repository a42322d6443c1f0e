"""Every change to a table that rating or detection reads goes into the audit log, with before and after.

A superuser's edit of the Hanabot table changes game ratings from then on; a callback's address or secret decides
where tables go; a game server's name, scopes or revocation decides who may record games. None of it is a
moderator action, yet each changes the rules, so each is audited (issue 20 §6).

Generic on purpose: ``RulesAudit`` is a ModelAdmin mixin that snapshots the row before and after ``save_model``,
``delete_model`` and every admin action (``response_action``), and writes one ``admin_edit`` entry per row that
changed, naming each changed field. A field added to one of these models later (game servers' scopes) is covered
with no change here. Values of secret-looking fields (a key's hash, a callback secret) are never written: the
entry says "changed" instead.

``audit_admins`` wraps the admins other apps registered (their own classes stay theirs: the wrapper is a subclass
made here), so those apps import nothing of moderation and the layers stay one way.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.contrib import admin
from django.contrib.admin import helpers
from django.db import models, transaction
from django.http import HttpRequest, HttpResponse

from moderation.models import AuditEntry
from moderation.services.action_steps import moderator_name

# Fields whose values never reach the log (only that they changed). A key's prefix and a callback's URL too (issue
# 25 §1.8): a rotation showed 8 characters of the new key, and the URL is where a server's tables are pushed.
SECRET = re.compile(r"secret|hash|password|token|(^|_)key$|(^|_)key_prefix$|(^|_)url$", re.IGNORECASE)
HIDDEN = "(changed; value not recorded)"


def _value(value: Any) -> Any:
    """A field's value as JSON can keep it."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, list | dict | str | int | float | bool) or value is None:
        return value
    return str(value)


def snapshot(obj: models.Model) -> dict[str, Any]:
    """Every concrete field of the row (foreign keys as ids)."""
    return {field.attname: _value(getattr(obj, field.attname)) for field in obj._meta.concrete_fields}


def changes(before: dict[str, Any] | None, after: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Field -> {"before", "after"} for every field that differs (secrets as ``HIDDEN``)."""
    names = sorted((before or {}).keys() | (after or {}).keys())
    out = {}
    for name in names:
        old, new = (before or {}).get(name), (after or {}).get(name)
        if old == new:
            continue
        out[name] = {"before": HIDDEN, "after": HIDDEN} if SECRET.search(name) else {"before": old, "after": new}
    return out


def record(
    *,
    request: HttpRequest,
    obj: models.Model,
    operation: str,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
) -> AuditEntry | None:
    """One ``admin_edit`` entry for one row, or None when nothing changed."""
    diff = changes(before, after)
    if not diff and operation == "change":
        return None
    details = {
        "model": obj._meta.label_lower,
        "object": _value(obj.pk),
        "object_repr": str(obj)[:200],
        "operation": operation,
        "changes": diff,
    }
    user = request.user
    return AuditEntry.objects.create(
        moderator=user if user.is_authenticated else None,
        moderator_name=moderator_name(user),
        action=AuditEntry.Action.ADMIN_EDIT,
        details=details,
    )


class RulesAudit:
    """ModelAdmin mixin: add, change, delete and admin actions each leave an ``admin_edit`` entry per row."""

    def save_model(self, request: HttpRequest, obj: models.Model, form: Any, change: bool) -> None:
        model = type(obj)
        fresh = model._default_manager.filter(pk=obj.pk).first() if change and obj.pk is not None else None
        before = snapshot(fresh) if fresh is not None else None
        super().save_model(request, obj, form, change)  # type: ignore[misc]
        saved = model._default_manager.filter(pk=obj.pk).first() if obj.pk is not None else None
        record(
            request=request,
            obj=saved or obj,
            operation="change" if change else "add",
            before=before,
            after=snapshot(saved) if saved is not None else None,
        )

    def delete_model(self, request: HttpRequest, obj: models.Model) -> None:
        before = snapshot(obj)
        super().delete_model(request, obj)  # type: ignore[misc]
        record(request=request, obj=obj, operation="delete", before=before, after=None)

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        rows = list(queryset)
        super().delete_queryset(request, queryset)  # type: ignore[misc]
        for obj in rows:
            record(request=request, obj=obj, operation="delete", before=snapshot(obj), after=None)

    def response_action(self, request: HttpRequest, queryset: Any) -> HttpResponse | None:
        """An admin action (revoke keys, rotate keys...): each selected row before and after, in one transaction."""
        picked = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        model = queryset.model
        with transaction.atomic():
            try:
                rows = list(model._default_manager.filter(pk__in=picked)) if picked else []
            except (ValueError, TypeError):
                rows = []
            before = {obj.pk: (obj, snapshot(obj)) for obj in rows}
            response = super().response_action(request, queryset)  # type: ignore[misc]
            after = {obj.pk: obj for obj in model._default_manager.filter(pk__in=list(before))}
            for pk, (old_obj, old) in before.items():
                obj = after.get(pk)
                record(
                    request=request,
                    obj=obj or old_obj,
                    operation="change" if obj is not None else "delete",
                    before=old,
                    after=snapshot(obj) if obj is not None else None,
                )
        return response


def audited(model_admin: type[admin.ModelAdmin]) -> type[admin.ModelAdmin]:
    """The admin class with ``RulesAudit`` in front (a subclass, so its own code stays as its app wrote it)."""
    if issubclass(model_admin, RulesAudit):
        return model_admin
    return type(f"Audited{model_admin.__name__}", (RulesAudit, model_admin), {"__module__": __name__})


def audit_admins(site: admin.AdminSite, models_: list[type[models.Model]]) -> None:
    """Re-register each model's admin on ``site`` wrapped by ``audited``."""
    for model in models_:
        current = site._registry.get(model)
        if current is None:
            continue
        site.unregister(model)
        site.register(model, audited(type(current)))
