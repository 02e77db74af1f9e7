# The product's task runner. Two commands matter on a fresh machine:
#   make run    build everything in release mode and serve on http://127.0.0.1:8080 with demo data
#   make test   the whole test suite (Rust, web unit tests, browser end-to-end tests)
SHELL := /bin/bash
.DEFAULT_GOAL := help

# Build caches live outside the clone so that fresh clones (and CI) reuse them.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/capopt/target
NPM_CACHE ?= $(HOME)/.cache/capopt/npm
# Browser tests use Debian's Chromium (make chromium); npm never downloads a browser.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1
NPM := npm --cache $(NPM_CACHE) --prefer-offline --no-audit --no-fund
DEBUG_BIN := $(CARGO_TARGET_DIR)/debug/capopt
RELEASE_BIN := $(CARGO_TARGET_DIR)/release/capopt
PG_URL ?= postgres://postgres@127.0.0.1:5432/postgres
REDIS ?= redis://127.0.0.1:6379

.PHONY: help run build web-deps web-build test test-rust test-web test-e2e test-collab test-scale test-storage-s3 test-e2e-pg test-collab-pg check fmt types \
        chromium pdf-tools services bench-analysis bench-pdf bench-knowledge load-events load-collab load-collab-node load-qa load-runs load-runs-failover load-runs-live clean-test-dbs

help:
	@echo "make run         build (release) and serve on http://127.0.0.1:8080 with demo data"
	@echo "make test        Rust tests, web unit tests, browser end-to-end tests"
	@echo "make test-scale  the integration suite on PostgreSQL and Redis, two instances"
	@echo "make check       formatting and lints"

## --- web app ---------------------------------------------------------------
web/node_modules/.stamp: web/package.json web/package-lock.json
	cd web && $(NPM) ci
	touch $@

web-deps: web/node_modules/.stamp

web-build: web-deps
	cd web && $(NPM) run build

## --- run -------------------------------------------------------------------
build: web-build
	cargo build --release -p server

run: build
	SEED_DEMO=1 WEB_DIST=web/dist $(RELEASE_BIN) serve

## --- tests -----------------------------------------------------------------
test: test-rust test-web test-e2e test-collab

# Rust tests; regenerates the web app's wire types (ts-rs) and, in CI, fails if they were stale.
test-rust:
	cargo test --workspace
	@if [ -n "$$CI" ] && [ -n "$$(git status --porcelain web/src/api/types)" ]; then \
	  echo "web/src/api/types is stale: run 'make types' and commit it"; git status --porcelain web/src/api/types; exit 1; fi

types:
	cargo test -p server --lib export_bindings

test-web: web-deps
	cd web && $(NPM) test

chromium:
	@command -v chromium >/dev/null 2>&1 || { echo "installing Debian chromium"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	  (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null); }

# Browser tests run the debug binary of test-rust's build: `cargo test --no-run` builds it with the
# same features as the tests (a plain `cargo build` would compile the workspace crates again).
# The browser tests read downloaded PDFs back with poppler's pdftotext, pdfinfo and pdftoppm (a
# test oracle only; the product never calls them).
pdf-tools:
	@command -v pdftoppm >/dev/null 2>&1 || { echo "installing Debian poppler-utils"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null) || \
	  (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null); }

test-e2e: chromium pdf-tools web-build
	cargo test --workspace --no-run -q
	cd web && CAPOPT_BIN=$(DEBUG_BIN) WEB_DIST=$(CURDIR)/web/dist $(NPM) run e2e

# Collaborative documents: the stock y-websocket provider and yjs against the debug binary
# (convergence, SIGKILL and restart, read-only viewers, refused strangers).
test-collab: web-deps
	cargo test --workspace --no-run -q
	cd web && CAPOPT_BIN=$(DEBUG_BIN) $(NPM) run test:collab

# PostgreSQL and Redis must be up (see .ci/run for the commands that start them): the integration
# suite on PostgreSQL and two instances through Redis, then the browser and collaboration tests
# with every server on a fresh PostgreSQL database.
test-scale: clean-test-dbs
	TEST_DATABASE_URL=$(PG_URL) TEST_REDIS_URL=$(REDIS) cargo test -p server -- --include-ignored
	$(MAKE) test-storage-s3
	$(MAKE) test-e2e-pg test-collab-pg
	$(MAKE) clean-test-dbs

# The object-storage suite against a real S3-compatible server: moto's server from PyPI, in a
# virtual environment outside the clone, on a free port of 127.0.0.1, stopped afterwards.
MOTO_VENV ?= $(HOME)/.cache/capopt/moto-venv
test-storage-s3:
	@test -x $(MOTO_VENV)/bin/moto_server || { python3 -m venv $(MOTO_VENV) && $(MOTO_VENV)/bin/pip install -q 'moto[server]==5.2.5'; }
	@port=$$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'); \
	  $(MOTO_VENV)/bin/moto_server -H 127.0.0.1 -p $$port > $(CARGO_TARGET_DIR)/moto.log 2>&1 & pid=$$!; \
	  trap "kill $$pid" EXIT; \
	  for i in $$(seq 100); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $$port), 1)" 2>/dev/null && break; sleep 0.2; done; \
	  S3_TEST_ENDPOINT=http://127.0.0.1:$$port cargo test -p server --test api storage -- --include-ignored

test-e2e-pg: chromium pdf-tools web-build
	cargo test --workspace --no-run -q
	cd web && E2E_DATABASE_URL=$(PG_URL) CAPOPT_BIN=$(DEBUG_BIN) WEB_DIST=$(CURDIR)/web/dist $(NPM) run e2e

test-collab-pg: web-deps
	cargo test --workspace --no-run -q
	cd web && E2E_DATABASE_URL=$(PG_URL) CAPOPT_BIN=$(DEBUG_BIN) $(NPM) run test:collab

# Drops the per-test databases left by earlier runs (bounded: a database still in use is skipped).
clean-test-dbs:
	@psql "$(PG_URL)" -Atc "SELECT datname FROM pg_database WHERE datname LIKE 'capopt_test_%' OR datname LIKE 'capopt_e2e_%'" 2>/dev/null | \
	  while read db; do PGOPTIONS='-c lock_timeout=3s -c statement_timeout=10s' timeout 15 \
	    psql "$(PG_URL)" -qc "DROP DATABASE IF EXISTS $$db" >/dev/null 2>&1; done; true

## --- benchmarks ------------------------------------------------------------
# Analysis pipeline: 1M-row PSE CSV and 200k-row XLSX, rows/s and peak memory per stage, side by
# side with pandas and polars when Python has them (analysis/README.md).
bench-analysis:
	cargo build --release -p server
	CAPOPT_BIN=$(RELEASE_BIN) cargo bench -p analysis --bench pipeline

# PDF export target: a 30-page report with 10 charts, 10 tables and 5 images laid out by typst,
# time per export (target under 1 s) and peak memory (load-tests/README.md).
bench-pdf:
	cargo bench -p server --bench pdf_export
	cargo bench -p server --bench pdf_import

# Knowledge base targets: a 300-page PDF extracted and indexed (under 20 s), search over 10,000
# chunks (p95 under 20 ms); SQLite, or PostgreSQL with BENCH_DATABASE_URL.
bench-knowledge:
	cargo bench -p server --bench knowledge

## --- hygiene ---------------------------------------------------------------
check: web-deps
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cd web && $(NPM) run typecheck && $(NPM) run lint

fmt:
	cargo fmt --all

## --- load tests --------------------------------------------------------------
LOAD_RESULTS ?= $(CARGO_TARGET_DIR)/load-results
.PHONY: load-events-ci load-files load-dashboard

# File Management at scale (figures in load-tests/README.md): 100,000 files over 200 clients,
# every combination of the list's filters on page 1, a middle and the last page under each sort,
# p95 target 50 ms; on SQLite, then on PostgreSQL ($(PG_URL), a fresh database dropped after).
load-files:
	cargo build --release -p server -p load-tests
	mkdir -p $(LOAD_RESULTS)
	$(CARGO_TARGET_DIR)/release/load-tests file-management --server-bin $(RELEASE_BIN) \
	  --out $(LOAD_RESULTS)/file-management-sqlite.json
	$(CARGO_TARGET_DIR)/release/load-tests file-management --server-bin $(RELEASE_BIN) \
	  --database-url $(PG_URL) --out $(LOAD_RESULTS)/file-management-postgres.json

# The dashboards at scale (figures in load-tests/README.md): 1,000 clients with 36 months of savings
# history and 200,000 files; p95 of the admin dashboard's requests (target 100 ms) and of the client
# dashboard's (50 ms); on SQLite, then on PostgreSQL ($(PG_URL), a fresh database dropped after).
load-dashboard:
	cargo build --release -p server -p load-tests
	mkdir -p $(LOAD_RESULTS)
	$(CARGO_TARGET_DIR)/release/load-tests dashboard --server-bin $(RELEASE_BIN) \
	  --out $(LOAD_RESULTS)/dashboard-sqlite.json
	$(CARGO_TARGET_DIR)/release/load-tests dashboard --server-bin $(RELEASE_BIN) \
	  --database-url $(PG_URL) --out $(LOAD_RESULTS)/dashboard-postgres.json

# Processing runs against the command line (figures in load-tests/README.md): a 1M-row CSV through
# the API and `capopt analyze` on it, then 20 clients x 10k rows at once.
load-runs:
	cargo build --release -p server -p load-tests
	mkdir -p $(LOAD_RESULTS)
	$(CARGO_TARGET_DIR)/release/load-tests runs --server-bin $(RELEASE_BIN) --out $(LOAD_RESULTS)/runs.json

# The Q&A agent's target: built-in answers on a 1M-row file's run, p95 under 200 ms (a 10k-row
# file's run as the baseline of the same run; load-tests/README.md).
load-qa:
	cargo build --release -p server -p load-tests
	mkdir -p $(LOAD_RESULTS)
	$(CARGO_TARGET_DIR)/release/load-tests qa --server-bin $(RELEASE_BIN) --out $(LOAD_RESULTS)/qa.json

load-runs-failover:
	cargo build --release -p server -p load-tests
	mkdir -p $(LOAD_RESULTS)
	$(CARGO_TARGET_DIR)/release/load-tests runs-failover --server-bin $(RELEASE_BIN) --database-url $(PG_URL) \
	  --redis-url $(REDIS) --out $(LOAD_RESULTS)/runs-failover.json

# 50 processing runs in progress at once, followed live by 20 administrators on the runs view and
# File Management (figures in load-tests/README.md): updates per run per second reaching each
# (at most 10), admin:runs delivery p99 (under 50 ms), every run's final state. SQLite; about
# 2 GB of uploads and 5 GB of outputs in a temporary directory, removed at the end. The load
# generator stands in for 20 administrators' browsers, which run on other machines: it runs at
# nice -10 so that it does not wait for a core behind the server's 50 engine threads (the server
# it starts runs at the normal priority). GENERATOR_NICE=0 measures with both sharing the cores.
GENERATOR_NICE ?= -10
load-runs-live:
	cargo build --release -p server -p load-tests
	mkdir -p $(LOAD_RESULTS)
	nice -n $(GENERATOR_NICE) $(CARGO_TARGET_DIR)/release/load-tests runs-live --server-bin $(RELEASE_BIN) --check \
	  --out $(LOAD_RESULTS)/runs-live.json

# Event fan-out (figures in load-tests/README.md): 10,000 authenticated sockets on one instance
# (SQLite), then two instances on PostgreSQL relaying through Redis. Needs PostgreSQL and Redis up.
load-events:
	cargo build --release -p server -p load-tests
	ulimit -n 20000 && $(CARGO_TARGET_DIR)/release/load-tests events --server-bin $(RELEASE_BIN) \
	  --out $(LOAD_RESULTS)/events-one-instance.json
	ulimit -n 20000 && $(CARGO_TARGET_DIR)/release/load-tests events --server-bin $(RELEASE_BIN) \
	  --instances 2 --database-url $(PG_URL) --redis-url $(REDIS) --connections 4000 \
	  --out $(LOAD_RESULTS)/events-two-instances.json

# A small run of the same scenario for CI (debug build): fails on a refused connection or a lost
# delivery; the speed figures are printed, not enforced.
load-events-ci:
	cargo build -p server -p load-tests
	$(CARGO_TARGET_DIR)/debug/load-tests events --server-bin $(DEBUG_BIN) --connections 300 --clients 5 \
	  --hot 100 --moves 40 --rate 20 --small 20 --small-moves 40 --small-rate 20 --check \
	  --out $(LOAD_RESULTS)/events-ci.json

# Collaborative editing (figures in load-tests/README.md): 200 editors typing 5 updates/s each on
# one document, a 260,000-edit history (bytes per edit, cold load), SIGKILL rounds while editors
# type, and the same typing load against Hocuspocus and the y-websocket reference server.
load-collab:
	cargo build --release -p server -p load-tests
	cd load-tests/node && $(NPM) ci
	ulimit -n 20000 && $(CARGO_TARGET_DIR)/release/load-tests collab --server-bin $(RELEASE_BIN) --compare \
	  --node-dir load-tests/node --out $(LOAD_RESULTS)/collab.json

load-collab-node:
	cargo build --release -p server -p load-tests
	cd load-tests/node && $(NPM) ci
	mkdir -p $(LOAD_RESULTS)
	ulimit -n 20000 && $(CARGO_TARGET_DIR)/release/load-tests collab-node --server-bin $(RELEASE_BIN) \
	  --editors 50,100,150,300 --slow 1 --node-dir load-tests/node --out $(LOAD_RESULTS)/collab-node.json
