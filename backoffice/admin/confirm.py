"""Moderator actions as confirmation pages: GET shows what will happen, POST (with Django's CSRF token) does it.

An action is never a GET link: the button on an object's page leads here, the page says what the service will
do (and warns where the evidence is weak), and only the form's POST calls the service. Each action needs its own
permission (``moderation.moderators.ACTIONS``), checked on GET and POST alike, so typing the URL does not help.
Domain refusals (``ArenaError``) come back as an error message on the same page, never a 500.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Model
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from arena.models import Player
from backoffice.admin.ellipsis import with_ellipsis
from infra.errors import ArenaError
from moderation.models import Flag, Report
from moderation.moderators import perm
from moderation.services import case_claim_on_open, claim_holder, covered_open_cases

NOTE_MAX = 2000


class NoteForm(forms.Form):
    note = forms.CharField(
        label="Note",
        required=False,
        max_length=NOTE_MAX,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 70}),
        help_text="Kept in the audit log with the action.",
    )


class RequiredNoteForm(NoteForm):
    """Dismissing or unbanning says why: the next moderator reads the note before the evidence."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["note"].required = True


class PrimaryForm(NoteForm):
    """Confirming multiple accounts: which account is the person's primary (kept, reset); the others are banned."""

    primary = forms.TypedChoiceField(
        label="Primary account",
        coerce=int,
        widget=forms.RadioSelect,
        error_messages={"required": "Choose the account that is kept (the primary)."},
    )
    field_order = ("primary", "note")

    def __init__(
        self, *args: Any, candidates: Sequence[Player], case: Flag | Report | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.candidates = {p.pk: p for p in candidates}
        # Nothing preselected (issue 27 §1): the alphabetically first account was kept as the primary and the main
        # banned on a shift; the moderator picks, with each account's ratings previewed beside the choice.
        self.fields["primary"].choices = [(p.pk, p.handle) for p in candidates]
        related_field_add(self, covered_open_cases(accounts=self.candidates, exclude=case))

    def primary_player(self) -> Player:
        return self.candidates[self.cleaned_data["primary"]]


def case_label(case: Flag | Report) -> str:
    """A flag or report as one line: its number and what it is about (the duplicate and related-case choices)."""
    if isinstance(case, Flag):
        return f"#{case.pk}: {case.beneficiary.handle} in {case.title}, score {case.score:.1f} ({case.status})"
    accused = ", ".join(sorted(p.handle for p in case.accused.all()))
    return f"#{case.pk}: {case.reason} against {accused} ({case.status})"


def related_field_add(form: forms.Form, cases: Sequence[Flag | Report]) -> None:
    """Offer, on a ring's confirmation or a ban, the other open cases it settles, every box ticked (issue 27 §2;
    docs/moderation.md, "One step closes a case"): the ticked ones are closed by the same action."""
    form.related = {f"{c._meta.model_name}:{c.pk}": c for c in cases}  # type: ignore[attr-defined]
    if not cases:
        return
    form.fields["close_cases"] = forms.MultipleChoiceField(
        label="Also close",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[(key, f"{c._meta.model_name.capitalize()} {case_label(c)}") for key, c in form.related.items()],
        initial=list(form.related),
        help_text="Open cases about these accounts only: each is closed as resolved by this action.",
    )


def related_picked(form: forms.Form) -> list[Flag | Report]:
    """The related cases the moderator left ticked."""
    related = getattr(form, "related", {})
    return [related[key] for key in form.cleaned_data.get("close_cases", []) if key in related]


POLICY = (
    "Playing from the same IP is allowed. If there is any possible doubt, a player should be considered not guilty."
)


def with_policy(warnings: list[str]) -> list[str]:
    """Any warning ends with the policy's reminder (seed 004): doubt means not guilty."""
    return [*warnings, POLICY] if warnings else []


@dataclass(frozen=True)
class Ring:
    """An object whose confirm page lets the moderator choose a primary account, with the accounts offered.

    Read once per request (``Action.prepare``): the consequences, the warnings and the form all name the same
    accounts, and reading them once each would cost three times the queries for the same list.
    """

    obj: Any
    candidates: list[Player]


@dataclass
class Action:
    """One confirmation page: its wording, its form, and the call into the service.

    ``prepare`` turns the object into what ``form``, ``consequences``, ``warnings`` and ``perform`` are given
    (by default the object itself), once per request, so what several of them need (a ``Ring``'s candidates)
    is read once. ``available`` is asked of the object itself, for the page's buttons too.
    """

    codename: str  # the permission (moderation.moderators.ACTIONS)
    title: str
    button: str
    consequences: Callable[[Any], list[str]]
    perform: Callable[[HttpRequest, Any, forms.Form], str]  # returns the success message
    form: Callable[[Any, dict | None], forms.Form] = lambda obj, data: NoteForm(data)
    warnings: Callable[[Any], list[str]] = lambda obj: []
    available: Callable[[Any], str | None] = lambda obj: None  # a reason the action does not apply, or None
    prepare: Callable[[Any], Any] = lambda obj: obj
    # Each title's rating before and after, shown before the button is pressed: [{"title", "before", "after",
    # "delta", "games"}], or per account [{"account", "rows": [...]}] when the form picks who is reset.
    preview: Callable[[Any], list[dict[str, Any]]] = lambda obj: []
    danger: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


def action_view(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str, action: Action) -> HttpResponse:
    """The one door of every action: permission, object, then the confirm page (GET) or the service (POST)."""
    if not request.user.has_perm(perm(action.codename)):
        return refused(model_admin, request, action)
    obj = model_admin.get_object(request, object_id)
    if obj is None:
        raise Http404("No such object.")
    if not model_admin.has_view_permission(request, obj):  # acting on what one may not even see: no
        return refused(model_admin, request, action)
    change_url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    unavailable = action.available(obj)
    if unavailable:
        messages.error(request, unavailable)
        return HttpResponseRedirect(change_url)
    if request.method == "GET" and action.codename != "claim":
        claim_on_act(obj, request.user)
    subject = action.prepare(obj)
    form = action.form(subject, request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            done = action.perform(request, subject, form)
        except ArenaError as refusal:
            # The page again with the reason, answered with the refusal's own 4xx (a busy database's 409
            # ``database_busy`` too), so a refused action never reads as done nor as a 500.
            messages.error(request, refusal.message)
            status = refusal.status
        else:
            messages.success(request, done)
            return HttpResponseRedirect(change_url)
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": obj._meta,
        "object": obj,
        "object_label": model_admin.panel_subtitle(obj) or str(obj),
        "title": action.title,
        "action": action,
        "form": form,
        "consequences": action.consequences(subject),
        "warnings": [*held_by_another(obj, request.user), *action.warnings(subject)],
        "preview": action.preview(subject),
        "change_url": change_url,
        **action.extra,
    }
    return TemplateResponse(request, "admin/backoffice/confirm.html", context, status=status)


def claim_on_act(obj: Model, user: Any) -> None:
    """Opening an action's page on an open flag or report nobody holds claims it (issue 27 §2, as Discourse
    claims a reviewable on the first action): the next moderator is warned that someone is working it."""
    if isinstance(obj, Flag | Report) and obj.status == "open" and claim_holder(obj) is None:
        case_claim_on_open(moderator=user, obj=obj)


def held_by_another(obj: Model, user: Any) -> list[str]:
    """On a flag's or report's action page, who else holds the case (issue 27 §2; docs/moderation.md, "Working
    the queue"): a claim is a notice, never a lock, so the second moderator is told before acting, not stopped."""
    if not isinstance(obj, Flag | Report):
        return []
    holder = claim_holder(obj)
    if holder is None or holder.pk == user.pk:
        return []
    return [
        f"{holder.get_username()} holds this {obj._meta.model_name} until {obj.claimed_until:%H:%M} UTC: "
        "they may be acting on it now."
    ]


def refused(model_admin: admin.ModelAdmin, request: HttpRequest, action: Action) -> TemplateResponse:
    """A refusal in the admin's own layout, with the way back, not a bare "403 Forbidden" (still a 403)."""
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Not allowed",
        "action": action,
        "back_url": reverse(
            f"admin:{model_admin.model._meta.app_label}_{model_admin.model._meta.model_name}_changelist"
        ),
    }
    return TemplateResponse(request, "admin/backoffice/refused.html", context, status=403)


def action_buttons(request: HttpRequest, obj: Model, actions: dict[str, Action]) -> list[dict[str, str]]:
    """The buttons an object page shows: only the actions this user may take and that apply to this object."""
    out = []
    for slug, action in actions.items():
        if request.user.has_perm(perm(action.codename)) and action.available(obj) is None:
            url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_{slug}", args=[obj.pk])
            out.append({"url": url, "label": with_ellipsis(action.title), "slug": slug})
    return out
