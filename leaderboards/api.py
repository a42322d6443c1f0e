"""Public leaderboard reads."""
urlpatterns: list = []
