#!/usr/bin/env bash
# dev.sh builds edgelimit and runs `edgelimit dev` on BACKEND, saying so before the
# first build (which downloads modules and compiles for a minute or two):
#
#   scripts/dev.sh memory|upstash|dynamodb|redis [FLAGS...]
#
# `make dev` runs it for the memory backend. `make dev-upstash`, `make dev-dynamodb` and
# `make dev-redis` run it inside scripts/services.sh, which starts redis-server with the
# local Upstash REST server, DynamoDB Local, or redis-server alone, and exports their
# addresses (EDGELIMIT_TEST_*): this
# script hands them to edgelimit under the names it reads (the README's Configuration),
# with table names of its own for DynamoDB, which `edgelimit dev` creates when missing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${EDGELIMIT_TOOLS:-$ROOT/.tools}

say() { printf 'dev: %s\n' "$*" >&2; }

if [[ $# -lt 1 ]]; then
	echo "usage: scripts/dev.sh memory|upstash|dynamodb|redis [edgelimit dev flags...]" >&2
	exit 2
fi
backend=$1
shift
extra=() # flags of the backend, before the caller's
case $backend in
memory) ;;
upstash)
	: "${EDGELIMIT_TEST_UPSTASH_URL:?is not set: run this inside scripts/services.sh (make dev-upstash)}"
	export UPSTASH_REDIS_REST_URL=$EDGELIMIT_TEST_UPSTASH_URL
	export UPSTASH_REDIS_REST_TOKEN=$EDGELIMIT_TEST_UPSTASH_TOKEN
	;;
dynamodb)
	: "${EDGELIMIT_TEST_DYNAMODB_URL:?is not set: run this inside scripts/services.sh (make dev-dynamodb)}"
	export AWS_ENDPOINT_URL_DYNAMODB=$EDGELIMIT_TEST_DYNAMODB_URL
	export EDGELIMIT_TENANTS_TABLE=${EDGELIMIT_TENANTS_TABLE:-edgelimit-dev-tenants}
	export EDGELIMIT_COUNTERS_TABLE=${EDGELIMIT_COUNTERS_TABLE:-edgelimit-dev-counters}
	;;
redis)
	: "${EDGELIMIT_TEST_REDIS_ADDR:?is not set: run this inside scripts/services.sh (make dev-redis)}"
	extra=(--redis "$EDGELIMIT_TEST_REDIS_ADDR")
	;;
*)
	echo "dev.sh: unknown backend \"$backend\": want memory, upstash, dynamodb or redis" >&2
	exit 2
	;;
esac

mkdir -p "$TOOLS/bin"
bin=$TOOLS/bin/edgelimit-dev
say "building edgelimit (go build ./cmd/edgelimit; the first build downloads modules and takes a minute or two)"
(cd "$ROOT" && go build -o "$bin.$$" ./cmd/edgelimit) || {
	rm -f "$bin.$$"
	exit 1
}
mv -f "$bin.$$" "$bin"
say "starting edgelimit dev --backend $backend (Ctrl-C stops it)"
exec "$bin" dev --backend "$backend" "${extra[@]}" "$@"
