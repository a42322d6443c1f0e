"""The HTTP toolkit shared by every app's API door: body parsing, caching, throttles, the metrics endpoint."""
