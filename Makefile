# Countersign's entry points. `make run` and `make test` work on a fresh Debian machine.
SHELL := /bin/bash
.DEFAULT_GOAL := help
CARGO ?= cargo
TS_TYPES := ui/src/api/types

.PHONY: help deps run build test check fmt lint unit types-fresh

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

deps: ## install missing Debian packages and cargo components
	@scripts/deps.sh

build: deps ## build the countersign binary
	$(CARGO) build --bin countersign

run: build ## start the console on the default data directory (Ctrl-C stops it)
	./target/debug/countersign serve

test: deps check unit types-fresh ## everything: format, lints, every test, fresh TS types

check: fmt lint

fmt: ## check formatting
	$(CARGO) fmt --all -- --check

lint: ## clippy with warnings denied
	$(CARGO) clippy --all-targets -- -D warnings

unit: ## the test suite, on a private session bus with a real keyring
	rm -rf $(TS_TYPES)  # regenerated from scratch, so a type removed in Rust shows up too
	scripts/with-keyring.sh $(CARGO) test --all-targets

types-fresh: ## the committed TypeScript types match the Rust types
	@if [ -n "$$(git status --porcelain -- $(TS_TYPES))" ]; then \
	  echo "TypeScript types in $(TS_TYPES) are stale: commit what cargo test generated:"; \
	  git status --porcelain -- $(TS_TYPES); exit 1; \
	fi
