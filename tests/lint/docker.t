#!/usr/bin/env bash
# The OCI config.json that Docker writes for containers this test starts (a
# private dockerd, tests/lib/engines.sh): one privileged, one hardened. What
# lint reports is judged against what `docker inspect` says about the same
# containers, and against the file read with jq. (--privileged cannot run
# here: the session lacks CAP_SYS_RESOURCE; the weak one adds CAP_SYS_ADMIN,
# drops seccomp and mounts the private dockerd's own socket instead.)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/engines.sh"
need_root
need jq
need dockerd "dockerd not installed (Debian package docker.io)"
T=$(sp_tmpdir)

sp_busybox_rootfs "$T/rootfs"
ok sp_dockerd_start
ok sp_docker_import "$T/rootfs" sp-lint-docker:1
weak=sp-lint-weak-$$
hard=sp-lint-hard-$$
docker run -d --name "$weak" --network none --cap-add SYS_ADMIN --security-opt seccomp=unconfined \
	-v "$SP_DOCKERD_DIR/docker.sock:/var/run/docker.sock" sp-lint-docker:1 /bin/sleep 120 >/dev/null
is "$?" 0 "docker run, weakened (CAP_SYS_ADMIN, seccomp=unconfined, the docker socket)"
docker run -d --name "$hard" --network none --read-only --cap-drop ALL --security-opt no-new-privileges \
	--pids-limit 64 --memory 64m --user 1000:1000 sp-lint-docker:1 /bin/sleep 120 >/dev/null
is "$?" 0 "docker run, hardened"

config_of() { # the config.json docker's containerd shim was given for container $1
	local id
	id=$(docker inspect --format '{{.Id}}' "$1")
	find "$SP_DOCKERD_DIR/exec" -path "*$id*" -name config.json 2>/dev/null | head -1
}
for c in "$weak" "$hard"; do
	f=$(config_of "$c")
	TAP_NAME="docker wrote an OCI config.json for $c" ok test -s "$f"
	cp "$f" "$T/$c.json" 2>/dev/null
	docker inspect "$c" >"$T/$c.inspect"
	"$SP_BIN" lint --format json --fail-on note "$T/$c.json" >"$T/$c.lint" 2>"$T/$c.err"
	is "$(jq -r '.files[0].kind' "$T/$c.lint")" oci "$c: docker's config.json is detected as oci"
done
rules() { jq -r '[.findings[].rule] | unique | join(" ")' "$T/$1.lint"; }
yn() { [ "$1" = true ] && echo yes || echo no; }
has() { rules "$1" | tr ' ' '\n' | grep -qx "$2" && echo yes || echo no; }

# weakened: the capability, the filter and the socket docker inspect reports
caps=$(jq -r '[.[0].HostConfig.CapAdd[]? | sub("^CAP_"; "")] | sort | join(" ")' "$T/$weak.inspect")
got=$(jq -r '[.findings[] | select(.rule == "oci.caps_dangerous") | .message | split(" ")[0] | sub("^CAP_"; "")] | unique | join(" ")' "$T/$weak.lint")
is "$got" "$caps" "weakened: oci.caps_dangerous names docker inspect's CapAdd ($caps)"
is "$(has "$weak" oci.seccomp_missing)" "$(yn "$(jq -r '.linux.seccomp == null' "$T/$weak.json")")" \
	"weakened: oci.seccomp_missing exactly when the file has no linux.seccomp"
is "$(has "$weak" oci.seccomp_missing)" \
	"$(yn "$(jq -r '[.[0].HostConfig.SecurityOpt[]? | select(. == "seccomp=unconfined" or . == "seccomp:unconfined")] | length > 0' "$T/$weak.inspect")")" \
	"weakened: and as docker inspect's SecurityOpt says"
src=$(jq -r '[.[0].Mounts[]? | select(.Destination == "/var/run/docker.sock") | .Source][0] // ""' "$T/$weak.inspect")
like "$(jq -r '[.findings[] | select(.rule == "oci.mount_runtime_socket") | .message] | join(" ")' "$T/$weak.lint")" \
	"^${src//./\\.} " "weakened: oci.mount_runtime_socket for the socket docker inspect mounts ($src)"

# hardened: each setting docker inspect reports silences its rule
is "$(has "$hard" oci.root_writable)" "$(yn "$(jq -r '.[0].HostConfig.ReadonlyRootfs != true' "$T/$hard.inspect")")" \
	"hardened: oci.root_writable as docker inspect's ReadonlyRootfs says"
is "$(has "$hard" oci.no_new_privileges)" \
	"$(yn "$(jq -r '[.[0].HostConfig.SecurityOpt[]? | select(startswith("no-new-privileges"))] | length == 0' "$T/$hard.inspect")")" \
	"hardened: oci.no_new_privileges as docker inspect's SecurityOpt says"
is "$(has "$hard" oci.pids_limit)" "$(yn "$(jq -r '(.[0].HostConfig.PidsLimit // 0) <= 0' "$T/$hard.inspect")")" \
	"hardened: oci.pids_limit as docker inspect's PidsLimit says"
is "$(has "$hard" oci.memory_limit)" "$(yn "$(jq -r '(.[0].HostConfig.Memory // 0) <= 0' "$T/$hard.inspect")")" \
	"hardened: oci.memory_limit as docker inspect's Memory says"
is "$(rules "$hard" | tr ' ' '\n' | grep -c '^oci\.caps_')" 0 "hardened (--cap-drop ALL): no capability finding"
is "$(jq '[.process.capabilities[]?[]?] | length' "$T/$hard.json")" 0 "and the file holds no capability at all"
is "$(has "$hard" oci.seccomp_missing)" no "hardened: docker's default seccomp profile is there"
unlike "$(rules "$hard")" "oci\.(namespace_missing|masked_paths_missing|readonly_paths_missing)" \
	"hardened: docker's namespaces, masked and read-only paths raise nothing"
done_testing
