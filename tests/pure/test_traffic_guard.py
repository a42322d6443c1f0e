"""The suite-wide guard (tests/conftest.py) refuses what would leave the machine, and lets the loopback through."""

from __future__ import annotations

import socket

import pytest


@pytest.mark.parametrize("host", ["example.com", "93.184.216.34", "10.0.0.5", "2001:db8::1"])
def test_a_name_or_address_beyond_the_loopback_is_refused_before_a_packet(host):
    with pytest.raises(OSError, match="test guard"):
        socket.getaddrinfo(host, 443) if not host[0].isdigit() else socket.create_connection((host, 443), timeout=1)


def test_the_loopback_still_resolves_and_connects():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        assert socket.getaddrinfo("localhost", server.getsockname()[1])
        socket.create_connection(server.getsockname(), timeout=2).close()
    finally:
        server.close()
