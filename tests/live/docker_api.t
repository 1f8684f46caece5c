#!/usr/bin/env bash
# The docker lanes ask the engine's API on its unix socket for the
# container's init pid and for the teardown proof (GET /containers/ID/json),
# only when that socket is proven to be the engine the CLI talks to (its
# /info daemon ID is `docker info`'s), else `docker inspect` through the CLI.
# Both ways must see what is really left, judged against the engine itself
# (`docker ps -a` of this test's private dockerd):
#  - the API way (DOCKER_HOST=unix://...): the lane passes and says so;
#  - a CLI that reports another daemon ID: the lane says why it asks the CLI,
#    and still passes;
#  - on both ways, a docker whose `run` keeps the container (no --rm): the
#    proof finds it after the runtime ended and the lane removes it, proven
#    gone from the engine; whose `rm` also does nothing: the lane's teardown
#    FAILS naming the container the engine still lists;
#  - a DOCKER_HOST with no engine behind it is a skip naming it.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/engines.sh"
need_root
for t in jq docker dockerd runsc; do need "$t"; done
need_lane_doctor
tmp=$(sp_tmpdir)
sp_dockerd_start >"$tmp/dockerd.err" 2>&1 || skip_all "dockerd did not start: $(tail -1 "$tmp/dockerd.err")"
real=$(command -v docker)
mkdir -p "$tmp/bin"
cat >"$tmp/bin/docker" <<EOF
#!/bin/bash
# a docker CLI in front of the real one, bent by the test's variables
case \$1 in
run) if [ -n "\${SP_T_KEEP:-}" ]; then shift; a=(); for x in "\$@"; do [ "\$x" = --rm ] || a+=("\$x"); done; exec $real run "\${a[@]}"; fi ;;
rm) [ -n "\${SP_T_NORM:-}" ] && exit 0 ;;
info) if [ -n "\${SP_T_OTHER_ID:-}" ]; then $real "\$@" | sed 's/"ID":"[^"]*"/"ID":"not-this-engine"/'; exit \${PIPESTATUS[0]}; fi ;;
esac
exec $real "\$@"
EOF
chmod +x "$tmp/bin/docker"
lanerun() { # NAME ENV...: one docker lane through the wrapper, its report in $tmp/NAME.json
	local n=$1
	shift
	env PATH="$tmp/bin:$PATH" "$@" "$SP_BIN" live --runtime docker --doctor "$DOCTOR" --format json -o "$tmp/$n.json" 2>"$tmp/$n.err"
}
res() { jq -r --arg i "$2" '.lanes[0].results[] | select(.id == $i) | .status + " " + .observed' "$tmp/$1.json"; }
known() { docker ps -aq --no-trunc --filter "name=^$(jq -r '.lanes[0].name' "$tmp/$1.json")\$" | wc -l; }
cli_id=$(docker info --format '{{.ID}}')
like "$cli_id" '.' "ground truth: the private engine's daemon ID ($cli_id)"
before=$(docker ps -aq | wc -l)

# --- the API way and the CLI way: a strict lane passes ---------------------------
lanerun api
is "$(jq -r '.lanes[0].status' "$tmp/api.json")" pass "API way: the docker lane passes"
like "$(res api host.engine)" '^pass container [0-9a-f]{12}: init pid [0-9]+ \(the engine API on the CLI.s socket\), the sandbox.s init with the lane.s nonce' \
	"API way: the engine's init pid, from the API, is the sandbox's init"
like "$(res api host.teardown)" '^pass .*container [0-9a-f]{12} gone \(the engine API on the CLI.s socket\)' \
	"API way: the teardown proof asked the API"
unlike "$(jq -r '.lanes[0].notes' "$tmp/api.json")" 'asked with docker inspect' "API way: no note of a CLI fallback"
is "$(known api)" 0 "API way: the engine lists no such container (ground truth)"

lanerun cli SP_T_OTHER_ID=1
is "$(jq -r '.lanes[0].status' "$tmp/cli.json")" pass "CLI way (the socket names another daemon ID): the docker lane passes"
like "$(jq -r '.lanes[0].notes' "$tmp/cli.json")" "asked with docker inspect: ${DOCKER_HOST#unix://} is another engine than the CLI's" \
	"CLI way: the lane says why it asks the CLI"
like "$(res cli host.engine)" '^pass container [0-9a-f]{12}: init pid [0-9]+ \(docker inspect\)' "CLI way: the init pid from docker inspect"
like "$(res cli host.teardown)" '^pass .*container [0-9a-f]{12} gone \(docker inspect\)' "CLI way: the teardown proof asked docker inspect"
is "$(known cli)" 0 "CLI way: the engine lists no such container (ground truth)"

# --- a container kept after the runtime ended: found on both ways ------------------
for way in api cli; do
	extra=()
	[ $way = cli ] && extra=(SP_T_OTHER_ID=1)
	lanerun keep-$way SP_T_KEEP=1 "${extra[@]}"
	like "$(res keep-$way host.teardown)" '^pass .*docker left after the runtime ended \(docker still knows container [0-9a-f]{12}\): torn down; docker: nothing left' \
		"$way: a container the runtime kept is found after it ended, and removed"
	is "$(known keep-$way)" 0 "$way: and the engine no longer lists it (ground truth)"
	lanerun norm-$way SP_T_KEEP=1 SP_T_NORM=1 "${extra[@]}"
	like "$(res norm-$way host.teardown)" '^fail .*docker: docker still knows container [0-9a-f]{12}' \
		"$way: a docker that does not remove it: the teardown proof FAILS, naming the container"
	is "$(jq -r '.lanes[0].status' "$tmp/norm-$way.json")" fail "$way: and the lane fails"
	is "$(known norm-$way)" 1 "$way: the engine does list it (ground truth)"
	docker rm -f "$(jq -r '.lanes[0].name' "$tmp/norm-$way.json")" >/dev/null 2>&1
done
docker images --format '{{.Repository}}:{{.Tag}}' | grep '^sandprobe-live' | xargs -r docker rmi -f >/dev/null 2>&1
is "$(docker ps -aq | wc -l)" "$before" "the private engine holds the containers it held before"

# --- endpoints that are not a proven socket ----------------------------------------
DOCKER_HOST=tcp://127.0.0.1:9 "$SP_BIN" live --runtime docker --doctor "$DOCTOR" --format json -o "$tmp/tcp.json" 2>/dev/null
like "$(jq -r '.lanes[0].status + ": " + .lanes[0].reason' "$tmp/tcp.json")" '^skip: no docker engine answers at DOCKER_HOST=tcp://127.0.0.1:9' \
	"a DOCKER_HOST with no engine behind it: a skip naming it"
done_testing
