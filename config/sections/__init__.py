"""Arena's settings by concern, assembled by config/settings.py."""
