"""Swiss tournaments for multi-seat tables (issue 29, docs/tournaments.md): pure pairing and standings rules."""
