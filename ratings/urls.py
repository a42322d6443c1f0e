"""Public reads under /api/v1/: player pages, rating history, leaderboards."""
from leaderboards.api import urlpatterns as leaderboard_urls
from ratings.api.players import urlpatterns as player_urls

urlpatterns = [*player_urls, *leaderboard_urls]
