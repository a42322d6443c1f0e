"""Pure rules of abuse detection (docs/moderation.md); no framework."""
