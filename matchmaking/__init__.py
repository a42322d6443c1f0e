"""Matchmaking: forming tables of players of similar strength (matchmaking.md)."""
