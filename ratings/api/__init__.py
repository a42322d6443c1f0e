"""Public reads of ratings: player pages and rating history."""
