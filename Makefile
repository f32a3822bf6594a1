# Entry points for people and CI. Every target that builds first makes sure the Debian packages
# are present (scripts/install-deps.sh skips what is installed).
BUILD_DIR   ?= build
BUILD_TYPE  ?= RelWithDebInfo
JOBS        ?= $(shell nproc)
FUZZ_DIR    ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: deps configure build test crawl demo cluster cluster-demo images bench bench-recrawl bench-distributed bench-reshard bench-frontier bench-redis fuzz clean

deps:
	./scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# A standalone crawl of SEEDS (URLs or a file of URLs) into CRAWL_DIR; run again to resume.
SEEDS     ?=
CRAWL_DIR ?= crawl-data
CRAWL_ARGS ?=
crawl: build
	@if [ -z "$(SEEDS)" ]; then echo "usage: make crawl SEEDS='https://example.org/' [CRAWL_DIR=dir] [CRAWL_ARGS='--max-pages 100']"; exit 2; fi
	./$(BUILD_DIR)/tools/crawler/crawler crawl --seeds $(SEEDS) --data-dir $(CRAWL_DIR) \
	  --stats-json $(CRAWL_DIR)/stats.json $(CRAWL_ARGS)

# Starts websim on loopback and crawls it: a crawl without any network.
demo: build
	./scripts/demo.sh $(BUILD_DIR)

# The distributed crawl on this machine: N frontiers, N fetchers, dedup and the scheduler
# (crawlerd roles) on loopback ports, data and logs in CLUSTER_DIR; prints the crawlctl commands
# to use and runs until Ctrl-C (each process then drains).
PARTITIONS  ?= 2
CLUSTER_DIR ?= cluster-data
cluster: build
	python3 scripts/cluster.py up --partitions $(PARTITIONS) --dir $(CLUSTER_DIR) --build-dir $(BUILD_DIR)

# websim crawled by a cluster of 2 partitions through crawlctl; prints the collection's stats.
cluster-demo: build
	python3 scripts/cluster.py demo --partitions 2 --dir cluster-demo --build-dir $(BUILD_DIR)

# The container images (docker/build-images.sh: podman, a Debian base made locally, no registry).
images: build
	./docker/build-images.sh $(BUILD_DIR)

# bench/standalone: the crawler against wget2 (max mode) and the politeness bound (polite mode).
bench: deps
	./bench/standalone/run.sh

# bench/recrawl: re-visiting end to end, measured freshness against the simulator (~3 min).
bench-recrawl: deps
	./bench/recrawl/run.sh

# bench/distributed: CPU per page, hot-path RPCs per page and exchange overhead of the
# distributed crawl against the standalone crawl, on the same web, in the same run.
bench-distributed: build
	PYTHONPATH=tests python3 bench/distributed/run.py --build-dir $(BUILD_DIR)

# bench/distributed/reshard.py: a live reshard 2 -> 3 partitions with ~10^6 URLs queued: hosts
# and URLs moved per second, the crawl's pages/s during the move against before (~13 min).
bench-reshard: build
	PYTHONPATH=tests python3 bench/distributed/reshard.py --build-dir $(BUILD_DIR) \
	  --json $(BUILD_DIR)/bench-reshard.json

# bench/politeness-redis: memory per host and address in Redis, and the claims one Redis serves
# to 1, 4 and 16 fetchers (~40 s; docs/benchmarks.md).
bench-redis: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target redis_scale_bench
	./$(BUILD_DIR)/bench/politeness-redis/redis_scale_bench --json $(BUILD_DIR)/bench-redis.json

# bench/frontier-scale: one frontier partition at 10^6, 10^7 and 10^8 known URLs over 10^6 hosts,
# through its core and its gRPC server, then 10^4 .. 10^6 hosts ready at once (docs/benchmarks.md).
# Its --help says the disk (under BENCH_FRONTIER_DIR, removed as it goes) and time it takes. The
# figures also go to BENCH_FRONTIER_JSON, from which scripts/capacity.py computes docs/capacity.md.
BENCH_FRONTIER_DIR  ?= $(BUILD_DIR)
BENCH_FRONTIER_JSON ?= $(BUILD_DIR)/bench-frontier.json
BENCH_FRONTIER_ARGS ?=
bench-frontier: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target frontier_scale_bench crawlerd
	./$(BUILD_DIR)/bench/frontier-scale/frontier_scale_bench --data-dir $(BENCH_FRONTIER_DIR) \
	  --json $(BENCH_FRONTIER_JSON) $(BENCH_FRONTIER_ARGS)

# libFuzzer targets (clang), each run for FUZZ_SECONDS; corpora are kept in $(FUZZ_DIR)/corpus.
fuzz: deps
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCRAWLER_FUZZ=ON
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_targets
	./scripts/run-fuzzers.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR)
