"""Arena: the rating and matchmaking backend of an online board-game site.

Importing the Celery app here makes ``@shared_task`` bind to it in every process that loads Django.
"""
from arena.celery import app as celery_app

__all__ = ("celery_app",)
