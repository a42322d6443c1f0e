"""Arena's core domain: players, game servers, finished games and the games' rules (configuration is in config/)."""
