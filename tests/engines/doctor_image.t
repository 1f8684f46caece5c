#!/usr/bin/env bash
# The doctor's container image (Containerfile: FROM scratch, the static doctor
# alone) built from the local build with podman and with a private dockerd
# (tests/lib/engines.sh), inspected (one layer holding one file; entrypoint
# the doctor) and run: under a read-only root the doctor's write probe passes,
# and the same image without --read-only fails it; the runtime's own view of
# the container (inspect) agrees. Also under gVisor (docker --runtime runsc).
. "$SP_ROOT/tests/lib/tap.sh"
. "$SP_ROOT/tests/lib/engines.sh"
[ "${SP_SAN:-0}" = 1 ] && skip_na "the image carries the static doctor of the normal build"
need_root
need jq
D=$SP_ROOT/build/sandprobe-doctor
[ -x "$D" ] || skip_all "build/sandprobe-doctor missing (make)"
T=$(sp_tmpdir)
at_exit "rm -rf '$T'"
tag=localhost/sp-doctor-test-$$:dev

layer_files() { # ARCHIVE (docker-archive): the files of every layer; the doctor's copy into $T/from-image
	rm -rf "$T/arch" "$T/from-image" && mkdir -p "$T/arch" && tar -xf "$1" -C "$T/arch" || return 1
	for l in $(jq -r '.[0].Layers[]' "$T/arch/manifest.json"); do
		tar -tf "$T/arch/$l"
		tar -xOf "$T/arch/$l" sandprobe-doctor >"$T/from-image" 2>/dev/null
	done | sort
}
check_runs() { # ENGINE NAME RUN-ARGS...: the doctor's verdicts with and without --read-only
	local eng=$1 name=$2
	shift 2
	local out rc
	out=$("$eng" run --rm "$@" --network none --read-only --cap-drop ALL --security-opt no-new-privileges \
		"$tag" --format json 2>"$T/err")
	rc=$?
	printf '%s' "$out" >"$T/$name.json"
	like "$(jq -r .schema "$T/$name.json" 2>/dev/null)" '^sandprobe.doctor.v1$' "$name: the image runs the doctor (exit $rc), JSON report"
	[ -s "$T/$name.json" ] || sed 's/^/# /' "$T/err" | head -5
	is "$(json_status ns.pid <"$T/$name.json")" pass "$name: own pid namespace"
	is "$(json_status fs.rootfs_readonly <"$T/$name.json")" pass "$name --read-only: the write probe is refused"
	# negative control: the same image with a writable root must fail the strict check
	"$eng" run --name "sp-doctor-$$-$name" "$@" --network none "$tag" \
		--profile strict -k fs.rootfs_readonly --format json >"$T/$name-rw.json" 2>/dev/null
	is "$(json_status fs.rootfs_readonly <"$T/$name-rw.json")" fail "$name without --read-only: the strict check fails"
	is "$("$eng" inspect --format '{{.HostConfig.ReadonlyRootfs}}' "sp-doctor-$$-$name" 2>/dev/null)" false \
		"$name: the engine's own config agrees (ReadonlyRootfs false)"
	"$eng" rm -f "sp-doctor-$$-$name" >/dev/null 2>&1
}

# --- podman ---
if command -v podman >/dev/null; then
	at_exit "podman rmi -f '$tag' >/dev/null 2>&1"
	podman build -q -f "$SP_ROOT/Containerfile" -t "$tag" "$SP_ROOT" >"$T/pb.log" 2>&1
	is "$?" 0 "podman build -f Containerfile from the local build"
	podman save --format docker-archive -o "$T/p.tar" "$tag" >/dev/null 2>&1
	is "$(layer_files "$T/p.tar" | tr '\n' ' ')" "sandprobe-doctor " "podman image: one layer, one file: the doctor"
	is "$(podman image inspect --format '{{json .Config.Entrypoint}}' "$tag")" '["/sandprobe-doctor"]' "entrypoint is the doctor"
	TAP_NAME="the image's doctor is build/sandprobe-doctor, byte for byte" ok cmp -s "$T/from-image" "$D"
	check_runs podman podman --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024
else
	skip "podman not installed"
fi

# --- docker (a private dockerd; the legacy builder of the daemon's own client) ---
if command -v dockerd >/dev/null; then
	ok sp_dockerd_start
	dk=docker
	[ -x /usr/bin/docker ] && dk=/usr/bin/docker
	DOCKER_BUILDKIT=0 $dk build -q -f "$SP_ROOT/Containerfile" -t "$tag" "$SP_ROOT" >"$T/db.log" 2>&1
	rc=$?
	is "$rc" 0 "docker build -f Containerfile (private dockerd, no registry)"
	[ "$rc" = 0 ] || tail -5 "$T/db.log" | sed 's/^/# /'
	$dk save -o "$T/d.tar" "$tag" >/dev/null 2>&1
	is "$(layer_files "$T/d.tar" | tr '\n' ' ')" "sandprobe-doctor " "docker image: one layer, one file: the doctor"
	TAP_NAME="docker image: the doctor byte for byte" ok cmp -s "$T/from-image" "$D"
	check_runs "$dk" docker
	out=$($dk run --rm --runtime runsc --network none --read-only "$tag" --format json 2>/dev/null)
	gk=$(printf '%s' "$out" | jq -r .environment.kernel)
	like "$gk" '.' "under docker --runtime runsc (gVisor) the image runs the doctor (kernel $gk)"
	isnt "$gk" "$(uname -r)" "and the doctor talks to gVisor's kernel, not the host's ($(uname -r))"
	is "$(printf '%s' "$out" | json_status fs.rootfs_readonly)" pass "gVisor --read-only: the write probe is refused"
else
	skip "dockerd not installed"
fi
done_testing
