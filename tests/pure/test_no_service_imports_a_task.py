"""No module below the doors imports a Celery task module, not even inside a function (which hides a cycle).

A service that must have a worker do something announces the fact (``arena/announcements.py``) and its app's
task module subscribes in ``AppConfig.ready``: the void's rebuild (``GamesVoided``), a table's push
(``PushesDue``). The doors (API, admin, urls, app configs, commands, the task modules themselves) may call tasks.
grimp, the library under import-linter, counts imports inside functions too.
"""
from __future__ import annotations

import grimp

APPS = ("arena", "ratings", "leaderboards", "matchmaking", "moderation")
DOOR_PARTS = {"api", "admin", "urls", "apps", "management", "tasks", "celery"}


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
