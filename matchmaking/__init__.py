"""Matchmaking: forming tables of players of similar strength (docs/matchmaking.md)."""
