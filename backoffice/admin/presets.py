"""Message presets (issue 27 §4; docs/moderation.md, "Message presets"): the sentences a moderator writes twenty
times a shift, offered beside the note of a warning and of a report's closing. A preset is the start of the note;
whatever the moderator types is added after it, so the text stays theirs to adjust.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms

from backoffice.admin.confirm import NoteForm

WARNING_PRESETS = (
    "Please finish or resign a lost game rather than stalling it.",
    "Please keep the chat civil: insults lead to a ban.",
    "Please play your games out: repeated quitting leads to a cool-down, then a ban.",
    "Please play from one account only: a second account of yours will be banned.",
)
REPORT_CLOSING_PRESETS = (
    "Thank you for the report: we looked into it and acted.",
    "Thank you for the report: we found nothing against the rules.",
    "Playing from the same address is allowed: there is nothing to act on.",
)


class PresetNoteForm(NoteForm):
    """A note with presets: the chosen preset, then the moderator's own words. ``required`` refuses an empty
    result (neither a preset nor a word)."""

    presets: ClassVar[tuple[str, ...]] = ()
    required = False
    preset = forms.TypedChoiceField(label="Preset", required=False, coerce=int, empty_value=None)
    field_order = ("preset", "note")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["preset"].choices = [("", "None: write my own"), *enumerate(self.presets)]
        self.fields["note"].help_text = "Added after the preset, if one is chosen. Kept in the audit log."

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        chosen = data.get("preset")
        parts = [self.presets[chosen] if chosen is not None else "", (data.get("note") or "").strip()]
        data["note"] = " ".join(p for p in parts if p)
        if self.required and not data["note"]:
            self.add_error("note", "Choose a preset or write a note.")
        return data


class WarningForm(PresetNoteForm):
    """What the player was warned about: the text the player is shown (``player.warned``)."""

    presets = WARNING_PRESETS
    required = True


class ReportClosingForm(PresetNoteForm):
    """A report's closing note, optional to uphold."""

    presets = REPORT_CLOSING_PRESETS


class ReportDismissForm(ReportClosingForm):
    """Dismissing says why (required)."""

    required = True
