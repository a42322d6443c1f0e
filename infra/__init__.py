"""The platform layer: the plumbing every app stands on, below the domain.

The mode decision and hand-offs, announcements, database and Redis helpers, metrics, the task log and the HTTP
toolkit live here so that each domain app imports them downwards; this package imports no domain app (the import
contract in pyproject.toml).
"""
