#!/usr/bin/env bash
# sandprobe live from the doctor image (Containerfile: FROM scratch, the static
# doctor alone, no shell): the podman, docker and docker-runsc lanes with
# --doctor-image (each engine builds it for the run from --doctor, no
# registry) and with --image REF (an image this test built from the
# Containerfile), against podman (runtime runc) and a private dockerd.
#
#  - the doctor holds the sandbox open itself (sandprobe-doctor --live-lane):
#    its markers, its exit status and its hold, tested directly;
#  - every lane gives the verdict its rootfs lane gives in the same test (the
#    same doctor): strict passes, each negative control fails exactly the
#    checks that cover what it removed, gVisor's lanes fail as theirs do; the
#    one variant that cannot run from the image (podman writable-root: the
#    root of a podman container of a FROM scratch image is mode 0555, measured
#    here from the host) is a launch limitation that says so;
#  - the engines' own event logs prove the lanes ran from the doctor image;
#  - nothing is left: the lanes' containers, processes, mounts and dirs, the
#    built images (by name, id and build label), the catalogue check's
#    container and the build context; a user's --image stays;
#  - a stale image (a doctor whose catalogue differs) and an absent one are
#    lane errors naming the image; bad flags are usage errors (exit 2).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/engines.sh"
need_root
for t in jq podman runc docker dockerd runsc perl; do need "$t"; done
need_lane_doctor
tmp=$(sp_tmpdir)
sp_dockerd_start >"$tmp/dockerd.err" 2>&1 || skip_all "dockerd did not start: $(tail -1 "$tmp/dockerd.err")"
P=(--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
# podman's event log of this test's own (the shared one rotates at 1 MiB on a busy machine)
printf '[engine]\nevents_logger = "file"\nevents_logfile_path = "%s/podman-events.log"\n' "$tmp" >"$tmp/containers.conf"
export CONTAINERS_CONF=$tmp/containers.conf
RT=podman,docker,docker-runsc

# --- the doctor as its own holder: --live-lane ---------------------------------
# (this build's doctor: under SP_SAN=1 the sanitized one, run on the host)
LD=$SP_DOCTOR
out=$(printf '\n' | "$LD" --live-lane sp-t-$$ --version)
rc=$?
is "$rc" 0 "--live-lane: exit status of the doctor (0)"
is "$(printf '%s\n' "$out" | grep -v '^$' | tr '\n' '|')" "@@sp-t-$$-begin@@|sandprobe-doctor $("$LD" --version | cut -d' ' -f2)|@@sp-t-$$:0@@|" \
	"--live-lane: begin marker, the doctor's output, its exit status between markers"
out=$(printf '\n' | "$LD" --live-lane sp-t-$$ --format bogus 2>/dev/null)
is "$?" 2 "--live-lane passes the doctor's exit status on (2: usage)"
like "$out" "@@sp-t-$$:2@@" "and prints it in the marker"
"$LD" --live-lane 'bad nonce!' --version >/dev/null 2>&1
is "$?" 2 "--live-lane with a malformed nonce: exit 2"
mkfifo "$tmp/hold"
"$LD" --live-lane sp-h-$$ --version <"$tmp/hold" >"$tmp/hold.out" &
hp=$!
exec 7>"$tmp/hold"
for _ in $(seq 1 100); do grep -q "@@sp-h-$$:0@@" "$tmp/hold.out" && break; sleep 0.05; done
sleep 0.2
TAP_NAME="--live-lane holds the sandbox open after the report, until standard input gives a line" ok kill -0 "$hp"
is "$(tr '\0' ' ' <"/proc/$hp/cmdline")" "$LD --live-lane sp-h-$$ --version " "the holder's argv carries the nonce (the host finds it by it)"
echo >&7
exec 7>&-
wait "$hp"
is "$?" 0 "and exits with the doctor's status once released"

# --- an image of the Containerfile, built by this test (--image REF) ------------
ctx=$tmp/ctx
mkdir -p "$ctx/build" && cp "$DOCTOR" "$ctx/build/sandprobe-doctor" && cp "$SP_ROOT/Containerfile" "$ctx/"
ref=localhost/sp-image-t-$$:dev
at_exit "podman rmi -f '$ref' >/dev/null 2>&1"
podman build -q -f "$ctx/Containerfile" -t "$ref" "$ctx" >"$tmp/pb.log" 2>&1
is "$?" 0 "podman build -f Containerfile (the test's --image)"
DOCKER_BUILDKIT=0 docker build -q -f "$ctx/Containerfile" -t "$ref" "$ctx" >"$tmp/db.log" 2>&1
is "$?" 0 "docker build -f Containerfile (private dockerd)"
podman save --format docker-archive -o "$tmp/ref.tar" "$ref" >/dev/null 2>&1
mkdir -p "$tmp/arch" && tar -xf "$tmp/ref.tar" -C "$tmp/arch"
is "$(for l in $(jq -r '.[0].Layers[]' "$tmp/arch/manifest.json"); do tar -tf "$tmp/arch/$l"; done | tr '\n' ' ')" "sandprobe-doctor " \
	"the image holds the doctor and nothing else: no shell"

# the root directory a podman container of this image gets, measured from the host
rm -f "$tmp/hold" && mkfifo "$tmp/hold"
podman run -i --rm --name "sp-image-root-$$" "${P[@]}" --network none --cap-drop ALL --entrypoint /sandprobe-doctor "$ref" \
	--live-lane sp-r-$$ --version <"$tmp/hold" >"$tmp/root.out" 2>&1 &
rp=$!
exec 7>"$tmp/hold"
for _ in $(seq 1 100); do grep -q "@@sp-r-$$:" "$tmp/root.out" && break; sleep 0.05; done
cpid=$(podman inspect --format '{{.State.Pid}}' "sp-image-root-$$" 2>/dev/null)
root_mode=$(stat -c %a "/proc/$cpid/root/" 2>/dev/null)
exec 7>&-
wait "$rp"
like "$root_mode" '^[0-7]{3,4}$' "podman: the root of a container of the image measured from the host (mode $root_mode)"

# --- the same lanes from a rootfs and from the doctor image ---------------------
left_of() { # REPORT: what of its lanes and its run is left, from the host
	local j=$1 n img pat=$tmp/left.pat
	jq -r '.lanes[] | select(.name) | .name, .nonce, .dir' "$j" >"$pat"
	jq -r '.teardown[].observed' "$j" | grep -oE 'sandprobe-check-[0-9]+-[0-9a-f]+' | sort -u >>"$pat"
	echo "procs: $(grep -laF -f "$pat" /proc/[0-9]*/cmdline 2>/dev/null | grep -v "/proc/$$/" | wc -l)"
	echo "mounts: $(grep -cF -f "$pat" /proc/self/mountinfo)"
	for d in $(jq -r '.lanes[] | select(.dir) | .dir' "$j"); do [ -e "$d" ] && echo "dir left: $d"; done
	for d in $(jq -r '.teardown[].observed' "$j" | grep -oE '/[^ ]*/sandprobe-image\.[A-Za-z0-9]+' | sort -u); do
		[ -e "$d" ] && echo "build context left: $d"
	done
	for n in $(cat "$pat"); do
		podman ps -a --format '{{.Names}}' 2>/dev/null | grep -qx "$n" && echo "podman container left: $n"
		docker ps -a --format '{{.Names}}' 2>/dev/null | grep -qx "$n" && echo "docker container left: $n"
	done
	for img in $( (jq -r '.lanes[].launch' "$j"; jq -r '.teardown[].observed' "$j") |
		grep -oE 'localhost/sandprobe-(live|doctor)-[0-9]+-[0-9a-f]+' | sort -u); do
		podman images --format '{{.Repository}}' 2>/dev/null | grep -qx "$img" && echo "podman image left: $img"
		docker images --format '{{.Repository}}' 2>/dev/null | grep -qx "$img" && echo "docker image left: $img"
	done
	for l in $(jq -r '.teardown[].observed' "$j" | grep -oE 'sandprobe-live-[0-9]+-[0-9a-f]+' | sort -u); do
		[ -n "$(podman images -a -q --filter "label=org.sandprobe.live.run=$l" 2>/dev/null)" ] && echo "podman build images left: $l"
		[ -n "$(docker images -a -q --filter "label=org.sandprobe.live.run=$l" 2>/dev/null)" ] && echo "docker build images left: $l"
	done
}
# the private dockerd is this test's: all of it counts
engine() { echo "docker: $(docker ps -aq | wc -l) containers, $(docker images -aq | wc -l) images"; }
verdicts() { # REPORT: one line per lane, what its verdict rests on (also_failed: finer probes, host-dependent, not judged)
	jq -r '.lanes[] | [.runtime, .variant, .status, .verdict, (.launch_limitation | tostring),
		((.must_fail // []) | join(",")), ((.did_not_fail // []) | join(",")), ((.collateral // []) | join(",")),
		(if .negative_control then "" else ([.results[] | select(.status == "fail" or .status == "error") | .id] | join(",")) end)] |
		join("|")' "$1"
}
lane() { jq -r --arg r "$2" --arg v "$3" ".lanes[] | select(.runtime == \$r and .variant == \$v) | $4" "$1"; }

b0=$(engine)
"$SP_BIN" live --matrix --runtimes "$RT" --doctor "$DOCTOR" --format json -o "$tmp/rootfs.json" 2>/dev/null
rc_root=$?
t0=$(date +%s)
"$SP_BIN" live --matrix --runtimes "$RT" --doctor "$DOCTOR" --doctor-image --format json -o "$tmp/img.json" 2>"$tmp/img.err"
rc_img=$?
t1=$(($(date +%s) + 1))
J=$tmp/img.json
is "$(jq -r .schema "$J")" sandprobe.live.v1 "--doctor-image: a live report"
is "$rc_img" "$rc_root" "--doctor-image exits as the rootfs lanes do ($rc_root)"
is "$(lane "$J" podman strict .status)" pass "podman strict from the doctor image passes"
is "$(lane "$J" docker strict .status)" pass "docker strict from the doctor image passes"
# (the strict lane of an engine whose runsc lacks --oci-seccomp, as this
# test's dockerd registers it, is a launch limitation that runs nothing: the
# kernel is judged on the docker-runsc lanes that ran)
is "$(jq -r '[.lanes[] | select(.runtime == "docker-runsc") | .results[]? | select(.id == "host.kernel.boundary")
	| .status] | if length == 0 then "none ran" else unique | join(",") end' "$J")" pass \
	"docker-runsc from the doctor image: every report came from gVisor's kernel"
like "$(lane "$J" docker-runsc strict '.status + " " + (.notes // "")')" '^(pass|skip .*without --oci-seccomp|fail .*without --oci-seccomp)' \
	"docker-runsc strict from the doctor image: passes, or names the engine's missing --oci-seccomp"
is "$(lane "$J" docker strict '.results[] | select(.id == "host.engine") | .status')" pass \
	"docker: the engine's init pid is the doctor holding the sandbox open"
like "$(lane "$J" podman strict .command)" '--entrypoint /sandprobe-doctor localhost/sandprobe-doctor-[0-9]+-[0-9a-f]+:live --live-lane' \
	"the lane runs the image's doctor as its entrypoint (no shell)"
like "$(lane "$J" docker strict .notes)" 'built for this run from .*FROM scratch, the doctor alone.*catalogue is --doctor' \
	"the lane says how it ran"
# every negative control that ran fails exactly what it removed (gVisor: as its rootfs lane does, below)
while IFS='|' read -r rt v missed collateral; do
	is "$missed|$collateral" "|" "$rt/$v from the doctor image: every covering check failed, nothing else"
done < <(jq -r '.lanes[] | select(.negative_control and .status != "skip" and .runtime != "docker-runsc") |
	[.runtime, .variant, (.did_not_fail | join(" ")), (.collateral | join(" "))] | join("|")' "$J")
# the same verdicts as the rootfs lanes, but the one variant that cannot run from the image
ran() { jq '[.lanes[] | select(.runtime != "docker-runsc" and .negative_control and .status != "skip")] | length' "$1"; }
if [ $((0$root_mode & 0200)) -eq 0 ]; then
	is "$(ran "$J")" "$(($(ran "$tmp/rootfs.json") - 1))" "podman and docker: every negative control of the rootfs lanes ran, but podman writable-root"
	is "$(lane "$J" podman writable-root '.launch_limitation')" true "podman writable-root from the image: a launch limitation"
	like "$(lane "$J" podman writable-root .reason)" "root directory of mode 0$root_mode owned by uid 0.*writable-root control cannot run from the image" \
		"and its reason names the mode measured here (0$root_mode)"
	skip_lane="podman|writable-root|"
else
	is "$(ran "$J")" "$(ran "$tmp/rootfs.json")" "podman and docker: every negative control of the rootfs lanes ran"
	skip_lane="-"
fi
# (compared below, after the engines' event logs: docker keeps only its last 256 events)
is "$(jq -r '.defects | join("; ")' "$J")" "$(jq -r '.defects | join("; ")' "$tmp/rootfs.json")" "the same defects as the rootfs lanes"

# the engines' own record: each lane's container (and the catalogue check's) started from the image the run built
# (podman: the test's own event log; docker: the private dockerd's)
pevents() { podman events --stream=false --filter event=start --format '{{.Name}} {{.Image}}' 2>/dev/null; }
devents() { docker events --since "$1" --until "$2" --filter event=start --format '{{.Actor.Attributes.name}} {{.Actor.Attributes.image}}' 2>/dev/null; }
check_of() { jq -r --arg r "$2" '.teardown[] | select(.runtime == $r) | .observed' "$1" | grep -oE 'sandprobe-check-[0-9]+-[0-9a-f]+' | head -1; }
built=$(jq -r '.teardown[].observed' "$J" | grep -oE 'localhost/sandprobe-doctor-[0-9]+-[0-9a-f]+:live' | sort -u | tr '\n' ' ')
for rt in podman docker; do
	if [ $rt = podman ]; then ev=$(pevents); else ev=$(devents "$t0" "$t1"); fi
	img=$(jq -r --arg r $rt '.teardown[] | select(.runtime == $r) | .observed' "$J" | grep -oE 'localhost/sandprobe-doctor-[0-9]+-[0-9a-f]+:live' | head -1)
	want="" got=""
	for n in $(jq -r --arg r $rt '.lanes[] | select((.runtime | startswith($r)) and .status != "skip") | .name' "$J") $(check_of "$J" $rt); do
		want="$want $n:$img"
		got="$got $n:$(awk -v n="$n" '$1 == n { print $2 }' <<<"$ev" | sort -u | tr '\n' ' ' | sed 's/ $//')"
	done
	like "$img" '^localhost/sandprobe-doctor-' "$rt: the run built its doctor image ($img)"
	is "$got" "$want" "$rt's events: every lane's container and the catalogue check started from that image, once"
done
is "$(echo $built | wc -w)" 2 "each engine built its own image"

# the end of the run: what the lanes shared, removed and proven gone
is "$(jq -r '[.teardown[] | .runtime + ":" + .status] | join(" ")' "$J")" "podman:pass docker:pass" \
	"the run's teardown: one proof per engine, both pass"
like "$(jq -r '.teardown[] | select(.runtime == "docker") | .observed' "$J")" \
	"container sandprobe-check-[0-9]+-[0-9a-f]+ gone; image localhost/sandprobe-doctor-.* built by this run removed: docker lists no image of that name or id nor of the build's label; build context .* removed" \
	"docker: the check container, the image (name, id, build label) and the build context"
is "$(jq '[.lanes[] | .results[] | select(.id == "host.teardown" and .status != "pass")] | length' "$J")" 0 \
	"every lane proved its teardown"
is "$(left_of "$J")" "procs: 0
mounts: 0" "nothing of the run is left (processes, mounts, dirs, containers, built images by name and label, build context)"
is "$(engine)" "$b0" "the private dockerd holds what it held before (no container, no image)"
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	out=$(/usr/bin/python3 "$SP_ROOT/tests/formats/validate_json.py" "$SP_ROOT/docs/schema/live.schema.json" "$J" 2>&1)
	_tap_result $? "the report with its teardown validates against live.schema.json" "$out"
	jq '.teardown[0].status = "maybe"' "$J" >"$tmp/broken.json"
	/usr/bin/python3 "$SP_ROOT/tests/formats/validate_json.py" "$SP_ROOT/docs/schema/live.schema.json" "$tmp/broken.json" >/dev/null 2>&1
	is "$?" 1 "and the schema rejects a teardown status it does not know"
else
	skip "python3-jsonschema not installed"; skip "same"
fi

# the verdicts of the two runs, side by side
vi=$(verdicts "$J" | grep -v "^$skip_lane") vr=$(verdicts "$tmp/rootfs.json" | grep -v "^$skip_lane")
if [ "$vi" != "$vr" ]; then
	# a verdict that differs once is shown (with each lane's reason), then the pair runs again: a doctor or
	# host check whose verdict is not repeatable fails here, a difference of the image lanes fails twice
	echo "# the first pair of runs differed (rootfs < > image):"
	diff <(echo "$vr") <(echo "$vi") | sed 's/^/#   /'
	for f in "$tmp/rootfs.json" "$J"; do
		jq -r '.lanes[] | "#   \(input_filename | split("/") | last) \(.runtime)/\(.variant) \(.status): \(.reason // "" | .[0:300])",
			(select(.negative_control | not) | .results[] | select(.status == "fail" or .status == "error") |
			"#     \(.id) \(.status): \(.observed // "" | tostring | .[0:200])")' "$f"
	done
	"$SP_BIN" live --matrix --runtimes "$RT" --doctor "$DOCTOR" --format json -o "$tmp/rootfs2.json" 2>/dev/null
	"$SP_BIN" live --matrix --runtimes "$RT" --doctor "$DOCTOR" --doctor-image --format json -o "$tmp/img2.json" 2>/dev/null
	vi=$(verdicts "$tmp/img2.json" | grep -v "^$skip_lane") vr=$(verdicts "$tmp/rootfs2.json" | grep -v "^$skip_lane")
	is "$(left_of "$tmp/img2.json"; left_of "$tmp/rootfs2.json")" "procs: 0
mounts: 0
procs: 0
mounts: 0" "the second pair of runs leaves nothing either"
fi
is "$vi" "$vr" "every lane gives the verdict of its rootfs lane (status, covering checks, misses, collateral; strict: every failure)"

# the proof is real: a docker that does not remove images leaves the built one, and the run says so and fails
mkdir -p "$tmp/bin"
cat >"$tmp/bin/docker" <<EOF
#!/bin/sh
[ "\$1" = rmi ] && exit 0
exec $(command -v docker) "\$@"
EOF
chmod +x "$tmp/bin/docker"
PATH=$tmp/bin:$PATH "$SP_BIN" live --runtime docker --doctor "$DOCTOR" --doctor-image --format json -o "$tmp/kept.json" 2>/dev/null
is "$?" 1 "an engine that keeps the built image: the run fails"
kept=$(jq -r '.teardown[0].observed' "$tmp/kept.json" | grep -oE 'localhost/sandprobe-doctor-[0-9]+-[0-9a-f]+:live' | head -1)
is "$(jq -r '.lanes[0].verdict + " " + .teardown[0].status' "$tmp/kept.json")" "PASS fail" "the lane passed, the run's teardown proof fails"
like "$(jq -r '.teardown[0].observed' "$tmp/kept.json")" "the engine still lists image localhost/sandprobe-doctor-" "naming the image left"
is "$(docker images -q "$kept" | wc -l)" 1 "and the engine does list it ($kept)"
docker rmi -f "$kept" >/dev/null 2>&1
is "$(engine)" "$b0" "removed by the test, the private dockerd is as before"

# --- --image REF: the user's own image; it stays ---------------------------------
t0=$(date +%s)
"$SP_BIN" live --matrix --runtimes podman,docker --variants strict,no-seccomp --doctor "$DOCTOR" --image "$ref" \
	--format json -o "$tmp/ref.json" 2>/dev/null
is "$?" 0 "--image $ref: exit 0"
t1=$(($(date +%s) + 1))
is "$(jq -r '[.lanes[] | .runtime + "/" + .variant + ":" + .verdict] | join(" ")' "$tmp/ref.json")" \
	"podman/strict:PASS podman/no-seccomp:FAILED AS EXPECTED docker/strict:PASS docker/no-seccomp:FAILED AS EXPECTED" \
	"--image: strict passes, no-seccomp fails as it must, on both engines"
is "$(lane "$tmp/ref.json" docker no-seccomp '[.results[] | select(.status == "fail") | .id] | map(select(. == "seccomp.mode" or . == "host.seccomp")) | join(",")')" \
	"seccomp.mode,host.seccomp" "--image docker no-seccomp: the doctor and the host both see no filter"
like "$(lane "$tmp/ref.json" podman strict .notes)" "from the doctor image $ref \(id [0-9a-f]{12}, --image\)" "the lane names the image"
for rt in podman docker; do
	if [ $rt = podman ]; then ev=$(pevents); else ev=$(devents "$t0" "$t1"); fi
	want="" got=""
	for n in $(jq -r --arg r $rt '.lanes[] | select(.runtime == $r) | .name' "$tmp/ref.json") $(check_of "$tmp/ref.json" $rt); do
		want="$want $n:$ref"
		got="$got $n:$(awk -v n="$n" '$1 == n { print $2 }' <<<"$ev" | sort -u | tr '\n' ' ' | sed 's/ $//')"
	done
	is "$got" "$want" "$rt's events: the lanes and the catalogue check started from $ref"
done
is "$(podman images -q "$ref" | wc -l)$(docker images -q "$ref" | wc -l)" 11 "the user's image is not removed"
is "$(jq -r '[.teardown[] | .runtime + ":" + .status + ":" + (.observed | test("^the catalogue check.s container sandprobe-check-[0-9]+-[0-9a-f]+ gone$") | tostring)] | join(" ")' "$tmp/ref.json")" \
	"podman:pass:true docker:pass:true" "the run removes only what it made: its check containers, proven gone"
is "$(left_of "$tmp/ref.json")" "procs: 0
mounts: 0" "nothing of the --image run is left"

# --- images that cannot serve ---------------------------------------------------
# a stale doctor: another build (one check's title differs), so another catalogue
mkdir -p "$tmp/stale/build" && cp "$ctx/Containerfile" "$tmp/stale/"
perl -pe 's/root filesystem read-only/root filesystem read-0nly/' "$DOCTOR" >"$tmp/stale/build/sandprobe-doctor"
chmod 755 "$tmp/stale/build/sandprobe-doctor"
stale=localhost/sp-image-stale-$$:dev
at_exit "podman rmi -f '$stale' >/dev/null 2>&1"
podman build -q -f "$tmp/stale/Containerfile" -t "$stale" "$tmp/stale" >/dev/null 2>&1
"$SP_BIN" live --runtime podman --doctor "$DOCTOR" --image "$stale" --format json -o "$tmp/stale.json"
is "$?" 1 "a stale image: the run fails"
is "$(jq -r '.lanes[0] | .verdict + " " + (.results[] | select(.id == "host.launch") | .status)' "$tmp/stale.json")" "FAIL error" \
	"the lane fails with a launch error, not a skip or a pass"
like "$(jq -r '.lanes[0].reason' "$tmp/stale.json")" "the doctor in image $stale is not the one of --doctor .*catalogue differs" \
	"naming the image and why"
is "$(left_of "$tmp/stale.json")" "procs: 0
mounts: 0" "and leaves nothing"
"$SP_BIN" live --runtime docker --doctor "$DOCTOR" --image "localhost/sp-image-absent-$$:x" --format json -o "$tmp/absent.json"
is "$?" 1 "an absent image: the run fails"
like "$(jq -r '.lanes[0].verdict + ": " + .lanes[0].reason' "$tmp/absent.json")" \
	"^FAIL: --image localhost/sp-image-absent-$$:x: not in the engine's local store \(\`docker image inspect" "an error naming the image and the command"
is "$(engine)" "$b0" "the private dockerd holds what it held before"

# --- bad input: exit 2, nothing runs -------------------------------------------
bad() { # WANT-MESSAGE ARGS...
	local want=$1
	shift
	"$SP_BIN" live --doctor "$DOCTOR" "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
	is "$?|$(head -1 "$tmp/bad.err")" "2|sandprobe: live: $want" "live $*: exit 2, one line naming the flag"
}
bad "--image and --doctor-image exclude each other" --runtime docker --image "$ref" --doctor-image
bad "--image 'a b': expected a local image reference (NAME[:TAG], NAME@DIGEST or an id)" --runtime docker --image 'a b'
bad "--image '-x': expected a local image reference (NAME[:TAG], NAME@DIGEST or an id)" --runtime docker --image=-x
bad "--doctor-image goes with the docker, docker-runsc and podman lanes (none is selected)" --runtime bwrap --doctor-image
done_testing
