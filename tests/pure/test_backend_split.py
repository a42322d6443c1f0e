"""The rules that send a database test to both passes or to the embedded one only (tests/backends.py,
docs/testing.md "The suite's passes"), each on a hand-made case."""

from __future__ import annotations

import pytest

from tests.backends import TESTS, differs, in_split

PLAIN = "def test_reads_a_board(api):\n    assert api.get('/api/v1/leaderboards/chess/').status_code == 200\n"


def facts(**changes):
    base = {"module_name": "test_leaderboard_api.py", "fixtures": ("db", "api"), "markers": [], "source": PLAIN}
    return {**base, **changes}


def test_a_plain_api_test_runs_once():
    assert not differs(**facts())


@pytest.mark.parametrize(
    "name",
    [
        "test_recording_store.py",
        "test_query_counts.py",
        "test_batch.py",
        "test_rebuild.py",
        "test_properties.py",
        "test_preferences_and_passes.py",
        "test_detection.py",
        "test_history.py",
    ],
)
def test_a_module_about_a_switched_subject_runs_twice(name):
    assert differs(**facts(module_name=name))


@pytest.mark.parametrize("fixture", ["transactional_db", "live_server", "django_assert_num_queries"])
def test_a_fixture_of_the_backend_runs_twice(fixture):
    assert differs(**facts(fixtures=("db", fixture)))


@pytest.mark.parametrize(
    "line",
    [
        "if connection.vendor == 'postgresql':",
        "settings.REDIS_URL = ''",
        "with CaptureQueriesContext(connection) as seen:",
        "threading.Thread(target=f)",
        "Player.objects.select_for_update()",
        "if settings.IS_POSTGRES:",
    ],
)
def test_source_naming_the_backend_or_the_mode_runs_twice(line):
    assert differs(**facts(source=PLAIN + f"    {line}\n"))


def test_a_conditional_skip_or_xfail_runs_twice_and_a_plain_skip_does_not():
    assert differs(**facts(markers=[pytest.mark.skipif(True, reason="PostgreSQL only").mark]))
    assert differs(**facts(markers=[pytest.mark.xfail(condition=False, reason="r").mark]))
    assert not differs(**facts(markers=[pytest.mark.xfail(reason="known").mark]))
    assert not differs(**facts(markers=[pytest.mark.skip(reason="not yet").mark]))


def test_the_explicit_mark_runs_twice():
    assert differs(**facts(markers=[pytest.mark.both_backends.mark]))


def test_only_database_tests_are_split():
    assert in_split(TESTS / "db" / "ratings" / "test_store.py")
    assert not in_split(TESTS / "security" / "test_http_door.py")
    assert not in_split(TESTS / "services" / "test_rating_worker.py")
    assert not in_split(TESTS / "pure" / "test_docs_cited.py")
    assert not in_split(TESTS.parent / "bench" / "rating_bench.py")
