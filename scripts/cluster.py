#!/usr/bin/env python3
"""`make cluster` and `make cluster-demo`: the distributed crawler on loopback. The work is
crawlertest.cluster's (tests/crawlertest/cluster.py, the same Cluster the tests use); see its
docstring for the commands:

    scripts/cluster.py up [--partitions N] [--dir DIR] [--build-dir build]
    scripts/cluster.py demo [--partitions 2] ...
"""

import os
import sys

# The test support package lives in tests/ (run from anywhere).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from crawlertest.cluster import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
