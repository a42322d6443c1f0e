"""No module below the doors imports a Celery task module, not even inside a function (which hides a cycle).

A service that must have a worker do something hands it off (``infra.handoffs.hand_off``) to a ``HandOff`` it
declares, which its app's task module binds (``done_by``): the void's rebuild, a table's push, a lost board's copy,
a tournament's next round. So the import runs one way, tasks to services. The doors (API, admin, urls, app
configs, listeners, commands, the task modules themselves) may call tasks. grimp, the library under import-linter,
counts imports inside functions too.
"""

from __future__ import annotations

import grimp

from tests.pure.house import APPS

DOOR_PARTS = {"api", "admin", "urls", "apps", "listeners", "management", "tasks", "celery"}


def test_only_doors_import_task_modules():
    graph = grimp.build_graph(*APPS, cache_dir=None)
    tasks = {module for module in graph.modules if module.split(".")[-1] == "tasks"}
    assert {"matchmaking.tasks", "moderation.tasks", "ratings.tasks", "leaderboards.tasks"} <= tasks
    offenders = sorted(
        (importer, task)
        for task in tasks
        for importer in graph.find_modules_that_directly_import(task)
        if not DOOR_PARTS & set(importer.split(".")[1:])
    )
    assert offenders == []


def test_every_hand_off_is_bound_by_its_apps_task_module():
    """Django is set up (the apps' ``ready`` ran): each hand-off a service declares has its worker, which lives in
    the declaring app's own task module, so no work is handed across apps."""
    from infra import handoffs

    bound = {work.name: (work.worker.__module__ if work.worker else None) for work in handoffs.hand_offs()}
    assert bound == {
        "matchmaking: push the tables": "matchmaking.tasks",
        "leaderboards: rebuild a lost board": "leaderboards.tasks",
        "moderation: rebuild the voided titles": "moderation.tasks",
        "moderation: lift a timed ban when its term ends": "moderation.tasks",
        "tournaments: pair the round after a closed one": "tournaments.tasks",
        "seasons: rebuild a season's standings copy": "seasons.tasks",
    }
