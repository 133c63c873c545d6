# The developer entry points (`make test` starts the test services and runs every check)
# and, below, the AWS SAM build targets (`build-<LogicalId>`, run by `sam build`).

# Where scripts/services.sh installs and reuses the test services.
EDGELIMIT_TOOLS ?= $(CURDIR)/.tools
export EDGELIMIT_TOOLS

.PHONY: test test-unit test-fresh services vet bench screenshot dev dev-upstash dev-dynamodb dev-redis

# go vet, gofmt, and every test with the test services running (installed if missing).
test:
	bash scripts/services.sh run -- bash scripts/test.sh

# The tests alone, without services: integration tests skip (and fail when CI is set).
test-unit:
	go test ./...

# Delete the tools folder, then make test: the services start from nothing.
test-fresh:
	rm -rf -- "$(EDGELIMIT_TOOLS)"
	$(MAKE) test

# Start the test services and open a shell with their EDGELIMIT_TEST_* variables set.
services:
	bash scripts/services.sh run -- $${SHELL:-bash}

vet:
	go vet ./...

# Every benchmark with its peer in the same run, with the test services running:
# writes docs/benchmarks.md, its SVG charts and README.md's figures block
# (internal/benchreport).
bench:
	bash scripts/services.sh run -- go run ./internal/benchreport

# Redraw docs/console.png: cmd/edgelimit's TestConsoleInBrowser (headless Chromium, the
# chromium on PATH or EDGELIMIT_TEST_CHROMIUM) writes its screenshot there. No test
# writes a tracked file otherwise (the screenshot goes to the test's temporary folder).
screenshot:
	CI=true go test -count=1 -run '^TestConsoleInBrowser$$' ./cmd/edgelimit -args -screenshot="$(CURDIR)/docs/console.png"

# `edgelimit dev` (the authorizer and the admin API on 127.0.0.1:3000), built first with
# a line saying so; DEV_FLAGS passes flags (DEV_FLAGS="--listen 127.0.0.1:3001").
# dev: the memory backend. dev-upstash: the Upstash REST protocol, served by
# `edgelimit upstash-local` over a redis-server that scripts/services.sh starts.
# dev-dynamodb: DynamoDB Local, started the same way; dev creates its tables.
# dev-redis: a redis-server, over RESP (the redis backend). The services stop with dev
# (Ctrl-C) and keep nothing.
dev:
	bash scripts/dev.sh memory $(DEV_FLAGS)

dev-upstash:
	EDGELIMIT_SERVICES=upstash bash scripts/services.sh run -- bash scripts/dev.sh upstash $(DEV_FLAGS)

dev-dynamodb:
	EDGELIMIT_SERVICES=dynamodb bash scripts/services.sh run -- bash scripts/dev.sh dynamodb $(DEV_FLAGS)

dev-redis:
	EDGELIMIT_SERVICES=redis bash scripts/services.sh run -- bash scripts/dev.sh redis $(DEV_FLAGS)

# ---- SAM build targets (build-AuthorizerFunction, ...) ----
#
# `sam build` runs `make build-<LogicalId>` with ARTIFACTS_DIR set, for each function of
# template.yaml whose Metadata says `BuildMethod: makefile`, in this folder
# (samconfig.toml sets build_in_source); the function's code is
# $(ARTIFACTS_DIR)/bootstrap. `make build` does the same into bin/lambda/<LogicalId>/
# without SAM.
#
# The template deploys linux/arm64 (Graviton), so the targets build for it whatever
# this machine is and whatever GOOS and GOARCH the environment exports (an exported
# GOARCH=amd64 would make a bootstrap that cannot start). `make build-X
# LAMBDA_GOARCH=amd64` builds for amd64, to run under an x86_64 emulator.

LAMBDA_GOARCH := arm64
LAMBDA_FUNCTIONS := AuthorizerFunction AuthorizerUpstashFunction AuthorizerRedisFunction AdminFunction

comma := ,

# $(call lambda-bootstrap,package[,tags]): a static, stripped linux/$(LAMBDA_GOARCH)
# bootstrap, without the RPC mode that only the go1.x runtime used. The tags
# edgelimit.dynamodb, edgelimit.upstash and edgelimit.redis build it with that backend
# (and the memory one) alone; without them it has every backend (internal/config).
define lambda-bootstrap
	@test -n "$(ARTIFACTS_DIR)" || { echo "ARTIFACTS_DIR is not set (sam build sets it)" >&2; exit 2; }
	CGO_ENABLED=0 GOOS=linux GOARCH=$(LAMBDA_GOARCH) go build -tags lambda.norpc$(if $(2),$(comma)$(2)) -ldflags "-s -w" -trimpath -o "$(ARTIFACTS_DIR)/bootstrap" $(1)
endef

.PHONY: build $(addprefix build-,$(LAMBDA_FUNCTIONS))

# The authorizer of each Backend (template.yaml creates the one of its Backend).
build-AuthorizerFunction:
	$(call lambda-bootstrap,./functions/authorizer,edgelimit.dynamodb)

build-AuthorizerUpstashFunction:
	$(call lambda-bootstrap,./functions/authorizer,edgelimit.upstash)

build-AuthorizerRedisFunction:
	$(call lambda-bootstrap,./functions/authorizer,edgelimit.redis)

build-AdminFunction:
	$(call lambda-bootstrap,./functions/admin)

build:
	@for fn in $(LAMBDA_FUNCTIONS); do \
		$(MAKE) --no-print-directory build-$$fn ARTIFACTS_DIR="$(CURDIR)/bin/lambda/$$fn" || exit; \
	done
