"""One ellipsis, never two (backoffice/admin/ellipsis.py; issue 27 §4): worked by hand."""

from __future__ import annotations

from backoffice.admin.ellipsis import clip, with_ellipsis


def test_a_button_label_ends_in_exactly_one_ellipsis():
    assert with_ellipsis("Ban") == "Ban…"
    assert with_ellipsis("Duplicate of…") == "Duplicate of…"  # was "Duplicate of……" on every case page
    assert with_ellipsis("Void this ring's rated games...") == "Void this ring's rated games…"


def test_a_long_text_is_cut_to_its_length_with_one_mark():
    assert clip("abcdefghij", 10) == "abcdefghij"  # fits: as written, its own dots kept
    assert clip("Wait...", 7) == "Wait..."
    assert clip("abcdefghijk", 10) == "abcdefghi…"  # 9 characters and the mark: 10
    # The cut lands just after the writer's own "...": Django's truncatechars gives "Wait...…".
    assert clip("Wait... then he resigned", 8) == "Wait…"
    assert clip("Game T-12 … move 40", 12) == "Game T-12…"  # a cut after "… " drops both
    assert clip("", 5) == ""
