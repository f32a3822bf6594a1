"""Loopback ports for the processes a test starts: one rule for every test and tool."""

import random
import socket


class PortError(Exception):
    """No free port could be found."""


def ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(x) for x in f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32768, 60999


def free_port():
    """A port free now on 127.0.0.1, outside the kernel's ephemeral range: the crawl's own
    outgoing connections (and other tests' port-0 listeners) take ports from that range, and
    could take this one between now and the process's bind."""
    low, high = ephemeral_range()
    candidates = list(range(10000, low)) + list(range(high + 1, 65536))
    for _ in range(200):
        port = random.choice(candidates)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise PortError("no free port outside the ephemeral range")
