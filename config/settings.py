"""Arena's settings, all from the environment, assembled here from one module per concern (config/sections/).

``config/sections/mode.py`` decides the mode, first and alone (docs/security.md): without ``DEBUG=true`` Arena is
production and fails closed; with it and nothing else set, Arena runs embedded (SQLite, tasks in-process, a
local-memory cache); ``DATABASE_URL`` and ``REDIS_URL`` switch to the scaled-out shape. The code path is the same
in both. Every other section reads the mode from there and never decides it again.
"""

# Each section imports what it reads from the others (the mode first of all), so their order here is not a rule.
from config.sections.api import *  # noqa: F403
from config.sections.domain import *  # noqa: F403
from config.sections.mode import *  # noqa: F403
from config.sections.observability import *  # noqa: F403
from config.sections.project import *  # noqa: F403
from config.sections.security import *  # noqa: F403
from config.sections.workers import *  # noqa: F403
