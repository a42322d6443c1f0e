"""Player pages and rating history."""
urlpatterns: list = []
