#!/usr/bin/env bash
# test.sh runs every check: go vet, gofmt, the race detector on the concurrent packages,
# then the other packages' tests. `make test` runs it inside scripts/services.sh, which
# provides the services the integration tests need. Every step runs; the script fails at
# the end, naming the steps that failed.
set -uo pipefail # no -e: a failing step must not hide the others

# The packages with concurrency, tested with -race; every other package runs without it.
RACE_PACKAGES=(./pkg/... ./internal/...)
# Tests whose latency assertions are skipped under -race (it slows everything down):
# run again without it, so that the latency budget is checked.
TIMED_TESTS=(-run 'TestFaultsOnSharedStores' ./internal/authorizer)
# The reserve/settle runs on every store (50 to 96 concurrent callers within the
# budget): skipped under -race, run without.
SETTLE_TESTS=(-run 'TestLiteLLMCase|TestConcurrencyNeverOverTheLimit' ./pkg/gate)
# A flood of 200,000 unknown keys through the Upstash stores: skipped under -race (too
# slow there), run again without.
FLOOD_TESTS=(-run 'TestUnknownKeysRunNoScript' ./pkg/store/upstash)
# The hot counters' 60 s simulation (which checks the table in docs/backends.md) and
# real-time load on DynamoDB Local: shortened or skipped under -race, run again without.
HOT_TESTS=(-run 'TestSimulation|TestHotTenantOnDynamoDBLocal' ./pkg/hotcounter)
# The production-like runs (3 processes on DynamoDB Local behind the throttling proxy,
# 100 ms budget, skewed clocks, idle gaps, a flood of random keys): skipped under
# -race, run again without; under CI they fail, not skip, without the services.
PROD_TESTS=(-run 'TestHotTenantThroughThreeKeys|TestProductionLike' ./internal/prodtest)
# internal/config once more with each backend's build tag alone, as the template's authorizers
# are built: the backends a tagged binary lacks are refused, and their tests skip.
BACKEND_TAGS=(edgelimit.dynamodb edgelimit.upstash edgelimit.redis)

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit
failed=()

step() {
	local name=$1
	shift
	echo "== $name"
	"$@" || failed+=("$name")
}

# check_gofmt lists the Go files of every package (testdata and dot folders excluded,
# as go list excludes them) that gofmt would change.
check_gofmt() {
	local dir files=() unformatted
	while read -r dir; do
		files+=("$dir"/*.go)
	done < <(go list -e -f '{{.Dir}}' ./...)
	unformatted=$(gofmt -l "${files[@]}") || return 1
	if [[ -n $unformatted ]]; then
		echo "gofmt: these files are not formatted (run gofmt -w on them):"
		echo "${unformatted//"$PWD/"/}"
		return 1
	fi
}

# the packages not in RACE_PACKAGES
other_packages() {
	comm -23 <(go list -e ./... | sort) <(go list -e "${RACE_PACKAGES[@]}" 2>/dev/null | sort)
}

step "go vet" go vet ./...
step gofmt check_gofmt
step "go test -race ${RACE_PACKAGES[*]}" go test -race -count=1 "${RACE_PACKAGES[@]}"
step "go test (latency, without -race)" go test -count=1 "${TIMED_TESTS[@]}"
step "go test (reserve and settle, without -race)" go test -count=1 "${SETTLE_TESTS[@]}"
step "go test (hot counters, without -race)" go test -count=1 "${HOT_TESTS[@]}"
step "go test (unknown keys, without -race)" go test -count=1 "${FLOOD_TESTS[@]}"
step "go test (production-like, without -race)" go test -count=1 "${PROD_TESTS[@]}"
for tag in "${BACKEND_TAGS[@]}"; do
	step "go test -tags $tag ./internal/config" go test -count=1 -tags "$tag" ./internal/config
done
mapfile -t others < <(other_packages)
if ((${#others[@]} > 0)); then
	step "go test (other packages)" go test -count=1 "${others[@]}"
fi

if ((${#failed[@]} > 0)); then
	printf 'FAILED:'
	printf ' [%s]' "${failed[@]}"
	echo
	exit 1
fi
echo "PASSED: go vet, gofmt, go test"
