# Countersign's entry points. `make run` and `make test` work on a fresh Debian machine.
SHELL := /bin/bash
.DEFAULT_GOAL := help
CARGO ?= cargo
TS_TYPES := ui/src/api/types

.PHONY: help deps ui run build test check fmt lint unit e2e types-fresh serve bench soak fuzz \
	package deb install-test install-test-as-root check-windows
FUZZ_SECONDS ?= 60
FUZZ_SOAK_SECONDS ?= 300
FUZZ_TARGETS := deep_link tool_address call_view_json hidden_characters command_splitter rule_words

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

deps: ## install missing Debian packages, cargo components and tauri-driver
	@scripts/deps.sh

ui: ## install the UI's packages, typecheck and build it (the window embeds ui/dist)
	cd ui && npm ci --no-audit --no-fund && npm run build

build: deps ui ## build the CLI and the desktop app
	$(CARGO) build -p countersign -p countersign-desktop --bins

run: build ## open the window on the default data directory (registers countersign:// links)
	./target/debug/countersign-desktop --register-scheme

serve: deps ui ## run the headless console (no window) on the default data directory
	$(CARGO) run --bin countersign -- serve

test: deps ui check unit e2e types-fresh install-test-as-root ## everything: format, lints, unit and end-to-end tests, the install test

check: fmt lint

fmt: ## check formatting
	$(CARGO) fmt --all -- --check

lint: ## clippy on every crate with warnings denied; the fuzz targets still build
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) check --manifest-path fuzz/Cargo.toml --bins

CORE_CRATES := -p countersign-domain -p countersign-store -p countersign-port \
	-p countersign-integrations -p countersign-engine -p countersign-phone -p countersign

unit: ## every crate's tests, desktop and UI tests; the core's on a private session bus with a real keyring, the store's schema and scenarios on a private PostgreSQL
	scripts/with-keyring.sh $(CARGO) test $(CORE_CRATES) --all-targets
	scripts/with-postgres.sh $(CARGO) test -p countersign-store --test postgres -- --ignored
	scripts/with-postgres.sh $(CARGO) test -p countersign --test core -- --ignored ::postgres
	$(CARGO) test -p countersign-desktop --lib
	cd ui && npm test

e2e: ## the real app under Xvfb, driven over WebDriver; a team console's people in Chromium, on a private PostgreSQL
	$(CARGO) build -p countersign -p countersign-desktop --bins
	scripts/with-postgres.sh scripts/e2e.sh

bench: deps ui ## measure the goals against their baselines (PostgreSQL's beside SQLite's, on a private cluster); writes target/bench/results.{json,md}
	$(CARGO) build --release -p countersign -p countersign-desktop -p hello-tauri --bins
	rm -f target/bench/desktop.json
	scripts/headless.sh $(CARGO) bench -p countersign-desktop --bench desktop
	scripts/with-postgres.sh $(CARGO) bench -p countersign --bench countersign

soak: deps ## the long reliability runs: 1,000 SIGKILL cycles, then each fuzz target for FUZZ_SOAK_SECONDS; prints the figures
	FUZZ_SECONDS=$(FUZZ_SOAK_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" scripts/soak.sh

fuzz: deps ## run each cargo-fuzz target for FUZZ_SECONDS (libFuzzer; nightly flags via RUSTC_BOOTSTRAP)
	command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
	for t in $(FUZZ_TARGETS); do \
	  dict=$(CURDIR)/fuzz/dicts/$$t.dict; [ -f $$dict ] && dict=-dict=$$dict || dict=; \
	  RUSTC_BOOTSTRAP=1 cargo fuzz run $$t -- -max_total_time=$(FUZZ_SECONDS) -timeout=10 $$dict || exit 1; \
	done

TAURI := tools/node_modules/.bin/tauri

package: deps ui ## the Linux packages in target/release/bundle/: a .deb and an AppImage (AppImage needs the network)
	$(CARGO) build --release -p countersign --bin countersign
	$(TAURI) build --bundles deb,appimage

deb: deps ui ## the .deb alone, in target/release/bundle/deb/ (no network needed)
	$(CARGO) build --release -p countersign --bin countersign
	$(TAURI) build --bundles deb

check-windows: deps ## cargo check for Windows (x86_64-pc-windows-gnu, with mingw-w64): the core with its tests, the window
	command -v x86_64-w64-mingw32-gcc >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-mingw-w64-x86-64
	rustup target add x86_64-pc-windows-gnu
	$(CARGO) check --target x86_64-pc-windows-gnu $(CORE_CRATES) --all-targets
	$(CARGO) check --target x86_64-pc-windows-gnu -p countersign-desktop --lib --bins

install-test-as-root:
	@if [[ $$(id -u) -eq 0 ]]; then scripts/room.sh 6 && $(MAKE) --no-print-directory install-test; \
	else echo "install test skipped: it installs the .deb with dpkg, so it runs as root (make install-test)"; fi

install-test: deb ## as root: install the .deb, open a countersign:// link through xdg-open, remove it
	scripts/install-test.sh

types-fresh: ## the committed TypeScript types match the Rust types
	rm -rf $(TS_TYPES)  # regenerated from scratch, so a type removed in Rust shows up too
	$(CARGO) test -q $(CORE_CRATES) --lib export_ >/dev/null
	$(CARGO) test -q -p countersign-desktop --lib export_ >/dev/null
	@if [ -n "$$(git status --porcelain -- $(TS_TYPES))" ]; then \
	  echo "TypeScript types in $(TS_TYPES) are stale: commit what cargo test generated:"; \
	  git status --porcelain -- $(TS_TYPES); exit 1; \
	fi
