"""The crawler's Python test support, one package for every test and tool that drives the built
binaries (tests/e2e, tests/k8s, tests/python, bench/): import it as `crawlertest` with tests/ on
the path (CTest sets PYTHONPATH for every Python test; the Makefile's targets do too).

- crawlertest.e2e: websim, `crawler crawl` and redis-server on loopback, and the parsers of what
  they leave (ground truth, request log, crawl log, stats JSON, WARC files);
- crawlertest.cluster: the services (crawlerd roles) on loopback, and `make cluster`;
- crawlertest.ports: the one way to pick a free loopback port;
- crawlertest.archive: archive delivery's checks (CDXJ against warcio.js's, WACZ, replay);
- crawlertest.npm: the npm packages the tests run (warcio.js, ReplayWeb.page), in a checked
  cache;
- crawlertest.replay: a WACZ replayed in ReplayWeb.page in headless Chromium.
- crawlertest.grpc_stubs: the crawler's gRPC API from Python, its stubs generated from proto/ at
  test time.

Python 3 standard library only, but for the stubs grpc_stubs generates, which need Debian's
python3-grpcio and python3-protobuf.
"""
