"""The REST doors of Arena: parse, call a service, render. No rules live here."""
