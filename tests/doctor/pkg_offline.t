#!/usr/bin/env bash
# pkg.pip, pkg.dpkg, pkg.apt, pkg.npm: package managers that work offline,
# proven by function, in bwrap boxes over the host's root (read-only) that
# this test builds, the doctor's each in a network namespace of its own where
# a listener on 127.0.0.1:9 (the port apt's proxies and npm's registry point
# at) logs any connection. dpkg's database in every box is a fresh one of the test's own, so
# the host's is never touched (its status is compared byte for byte at the
# end). Ground truth from outside the doctor: a sitecustomize and a node
# --require hook log what the box's python and node actually imported,
# dpkg's own log records the install and the purge, and the same managers
# run by a shell in the same kind of box show each weakening.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need bwrap
need jq
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
for t in python3 npm node dpkg dpkg-deb dpkg-query apt-get; do need $t; done
python3 -c 'import venv, pip' 2>/dev/null || skip_all "python3 has no venv or pip"
PIPDIR=$(python3 -c 'import os, pip; print(os.path.dirname(pip.__file__))')
[ -d "$PIPDIR/_internal" ] || skip_all "pip has no _internal package at $PIPDIR"
host_status=$(sha256sum /var/lib/dpkg/status | cut -d' ' -f1)
T=$(sp_tmpdir)
[ -n "$T" ] && [ -d "$T" ] || { echo "Bail out! no temporary directory"; exit 1; }
mkdir -p "$T/gt" "$T/ulb" "$T/log" "$T/boxtmp"
# the ground-truth hooks: what python and node really imported, logged at exit
cat >"$T/gt/sitecustomize.py" <<'EOF'
import atexit, os, sys
def _sp_log():
    for n, m in list(sys.modules.items()):
        if n.startswith("sandprobe_probe_"):
            with open(os.environ["SP_GT_PY"], "a") as f:
                f.write("%s %s %s\n" % (n, m.__file__, m.ping()))
atexit.register(_sp_log)
EOF
cat >"$T/gt/hook.js" <<'EOF'
process.on('exit', () => {
  for (const k of Object.keys(require.cache))
    if (k.includes('/node_modules/sandprobe-probe-') && typeof require.cache[k].exports.ping === 'function')
      require('fs').appendFileSync(process.env.SP_GT_JS, k + ' ' + require.cache[k].exports.ping() + '\n');
});
EOF
cat >"$T/gt/listen.py" <<'EOF'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 9))
s.listen(16)
open(sys.argv[1], "w").close()
while True:
    c, a = s.accept()
    with open(sys.argv[2], "a") as f:
        f.write("%s:%d\n" % a)
    c.close()
EOF
newdb() { rm -rf "$T/db" && mkdir -p "$T/db/info" "$T/db/updates" "$T/db/triggers" && : >"$T/db/status"; }
box() {
	bwrap --die-with-parent --unshare-pid --ro-bind / / --proc /proc --dev /dev --bind "$T/boxtmp" /tmp \
		--ro-bind "$SP_ROOT" "$SP_ROOT" --bind "$T" "$T" --bind "$T/db" /var/lib/dpkg \
		--tmpfs /usr/local --bind "$T/ulb" /usr/local/bin --bind "$T/log" /var/log \
		--setenv PYTHONPATH "$T/gt" --setenv SP_GT_PY "$T/gt/py.log" \
		--setenv NODE_OPTIONS "--require $T/gt/hook.js" --setenv SP_GT_JS "$T/gt/js.log" "$@"
}
st() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
obs() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .observed + " | " + .detail'; }
# the doctor in a box with its own network namespace, the listener up first
doc() {
	rm -f "$T/gt/ready"
	box --unshare-net "$@" -- sh -c 'python3 "$1" "$2" "$3" & for _ in $(seq 1 100); do [ -e "$2" ] && break; sleep 0.05; done
		shift 3; exec "$@"' sh "$T/gt/listen.py" "$T/gt/ready" "$T/gt/dial.log" \
		"$SP_DOCTOR" --format json -k 'pkg.*' --set pkg.offline=pip,dpkg,apt,npm
}

# ---- every manager works: pass, and the installed things were used
newdb
rep=$(doc)
is "$(st pkg.pip "$rep")" pass "pip: a local wheel into a venv, imported: pass"
is "$(st pkg.dpkg "$rep")" pass "dpkg: a local .deb installed, run, purged: pass"
is "$(st pkg.npm "$rep")" pass "npm: a local tarball, offline, required, and installed -g whose bin ran: pass"
is "$(st pkg.apt "$rep")" pass "apt: a local .deb with no sources installed, run, purged: pass"
TAP_NAME="the listener on 127.0.0.1:9 was up in the box" ok test -e "$T/gt/ready"
is "$(cat "$T/gt/dial.log" 2>/dev/null)" "" "ground truth: nothing connected to 127.0.0.1:9 (apt's proxies, npm's registry)"
like "$(cat "$T/gt/py.log" 2>/dev/null)" '^sandprobe_probe_[0-9a-f]+ /tmp/\.sandprobe-[^/]+/venv/lib/python[0-9.]+/site-packages/sandprobe_probe_[0-9a-f]+/__init__\.py sandprobe-pip-ok-' \
	"ground truth: python imported the module from the venv's site-packages and ping() answered"
like "$(cat "$T/gt/js.log" 2>/dev/null)" '^/tmp/\.sandprobe-[^/]+/prefix/node_modules/sandprobe-probe-[0-9a-f]+/index\.js sandprobe-npm-ok-' \
	"ground truth: node required the package from the private prefix and ping() answered"
like "$(cat "$T/gt/js.log" 2>/dev/null)" '/tmp/\.sandprobe-[^/]+/global/lib/node_modules/sandprobe-probe-[0-9a-f]+/index\.js sandprobe-npm-ok-' \
	"ground truth: the bin from PREFIX/bin loaded the globally installed package and ping() answered"
aname=$(grep -o 'status installed sandprobe-apt-[0-9a-f]*' "$T/log/dpkg.log" | head -1 | cut -d' ' -f3)
like "$aname" '^sandprobe-apt-[0-9a-f]+$' "ground truth: dpkg's log records apt's probe package installed"
like "$(grep " $aname:all" "$T/log/dpkg.log" | tail -1)" 'status not-installed' "ground truth: dpkg's log records it purged last"
like "$(grep -A3 "apt-get install" "$T/log/apt/history.log" 2>/dev/null)" "Install: $aname:" "ground truth: apt's history records the install"
name=$(grep -o 'status installed sandprobe-probe-[0-9a-f]*' "$T/log/dpkg.log" | head -1 | cut -d' ' -f3)
like "$name" '^sandprobe-probe-[0-9a-f]+$' "ground truth: dpkg's log records the probe package installed"
like "$(grep " $name:all\| $name " "$T/log/dpkg.log" | tail -1)" 'status not-installed' "ground truth: dpkg's log records it purged last"
is "$(wc -c <"$T/db/status")" 0 "the box's dpkg status holds no package afterwards"
is "$(ls -A "$T/ulb")" "" "nothing is left in the box's /usr/local/bin"
is "$(find "$T/db/info" -mindepth 1 ! -name format)" "" "no info file of the probe package is left"
is "$(ls -d "$T"/boxtmp/.sandprobe-* 2>/dev/null)" "" "no private directory is left in the box's /tmp"
like "$(obs pkg.dpkg "$rep")" "purged: dpkg-query no longer knows $name" "the doctor proved the purge"
like "$(obs pkg.apt "$rep")" "purged: dpkg-query no longer knows $aname" "the doctor proved apt's package purged"

# ---- weakened, one property each, in one box: pip says 'Would install' and
# installs nothing (PIP_DRY_RUN), npm says 'added' and installs nothing
# (npm_config_dry_run), dpkg's database is read-only (dpkg and apt)
newdb
rm -f "$T/gt/py.log" "$T/gt/js.log"
rep=$(doc --setenv PIP_DRY_RUN 1 --setenv npm_config_dry_run true --remount-ro /var/lib/dpkg)
is "$(st pkg.pip "$rep")" fail "pip exits 0 but installs nothing (dry run): fail"
like "$(obs pkg.pip "$rep")" 'Would install' "pip's own output says nothing was installed"
is "$(st pkg.npm "$rep")" fail "npm exits 0 but installs nothing (dry run): fail"
is "$(st pkg.dpkg "$rep")" fail "dpkg's database read-only: fail"
like "$(obs pkg.dpkg "$rep")" 'dpkg -i .*exit [1-9]' "dpkg -i's refusal is named"
is "$(st pkg.apt "$rep")" fail "apt with dpkg's database read-only: fail"
like "$(obs pkg.apt "$rep")" 'apt-get install .*exit [1-9]' "apt-get's refusal is named"
is "$(cat "$T/gt/py.log" 2>/dev/null)" "" "ground truth: python never imported the probe module"
is "$(cat "$T/gt/js.log" 2>/dev/null)" "" "ground truth: node never loaded the probe package"
mkdir -p "$T/deb/DEBIAN" "$T/deb/usr/local/bin"
printf 'Package: sp-test-gt\nVersion: 1\nArchitecture: all\nMaintainer: t <t@invalid>\nDescription: t\n' >"$T/deb/DEBIAN/control"
dpkg-deb -b "$T/deb" "$T/gt.deb" >/dev/null 2>&1
box --remount-ro /var/lib/dpkg dpkg -i "$T/gt.deb" >/dev/null 2>&1
isnt "$?" 0 "ground truth: dpkg -i by a shell in a box with the database read-only fails too"
mkdir -p "$T/ac" "$T/al/partial"
box --unshare-net --remount-ro /var/lib/dpkg apt-get install -y -qq -o Dir::Cache="$T/ac" -o Dir::State::Lists="$T/al" \
	-o Dir::Etc::SourceList=/dev/null "$T/gt.deb" >/dev/null 2>&1
isnt "$?" 0 "ground truth: apt-get install by a shell in that box fails too"
is "$(cat "$T/gt/dial.log" 2>/dev/null)" "" "ground truth: nothing connected to 127.0.0.1:9"

# ---- weakened: pip half-removed (its _internal package hidden), node
# unusable (/dev/null over it), /usr/local/bin read-only (dpkg unpacks and
# must roll back: the purge path runs after a failed install)
newdb
rep=$(doc --tmpfs "$PIPDIR/_internal" --ro-bind /dev/null "$(readlink -f "$(command -v node)")" --remount-ro /usr/local/bin)
is "$(st pkg.pip "$rep")" fail "pip present but broken: fail, not skip"
like "$(obs pkg.pip "$rep")" "No module named 'pip\\._internal" "pip's error is named"
is "$(st pkg.npm "$rep")" fail "npm present, node unusable: fail"
is "$(st pkg.dpkg "$rep")" fail "/usr/local/bin read-only: fail"
unlike "$(obs pkg.dpkg "$rep")" 'LEFT BEHIND' "nothing was left behind after the failed install"
is "$(grep -c '^Package:' "$T/db/status")" 0 "the box's dpkg status holds no package after the failed install"
out=$(box --tmpfs "$PIPDIR/_internal" python3 -m pip --version 2>&1)
isnt "$?" 0 "ground truth: python3 -m pip fails in that box ($out)"
box --tmpfs "$PIPDIR/_internal" python3 -c 'import pip' 2>/dev/null
is "$?" 0 "ground truth: pip itself is there (import pip works)"

# ---- a package of the probe's name already known to dpkg: refused, nothing
# installed. A dpkg-query in front of the real one records the name the
# doctor asks about in the box's database before answering.
newdb
mkdir -p "$T/qbin"
cat >"$T/qbin/dpkg-query" <<EOF
#!/bin/sh
if [ "\$1" = -W ] && ! grep -q "^Package: \$2\$" /var/lib/dpkg/status; then
	printf 'Package: %s\nStatus: install ok installed\nVersion: 0\nArchitecture: all\nMaintainer: t <t@invalid>\nDescription: t\n\n' "\$2" >>/var/lib/dpkg/status
fi
exec /usr/bin/dpkg-query "\$@"
EOF
chmod 755 "$T/qbin/dpkg-query"
: >"$T/log/dpkg.log"
# In the same run, pip with no system pip (dist-packages hidden): a venv
# with pip from ensurepip, as an agent would make one; and npm with its bin
# links off (npm_config_bin_links=false): the global install leaves no
# PREFIX/bin program.
rm -f "$T/gt/py.log" "$T/gt/js.log"
rep=$(box --setenv PATH "$T/qbin:$PATH" --tmpfs "$(dirname "$PIPDIR")" --setenv npm_config_bin_links false \
	-- "$SP_DOCTOR" --format json -k 'pkg.*' --set pkg.offline=dpkg,pip,apt,npm)
is "$(st pkg.pip "$rep")" pass "no system pip: a venv with ensurepip's pip installs the wheel: pass"
like "$(obs pkg.pip "$rep")" 'no system pip; python3 -m venv with ensurepip: exit 0' "the fallback is named"
like "$(cat "$T/gt/py.log" 2>/dev/null)" '^sandprobe_probe_[0-9a-f]+ /tmp/\.sandprobe-[^/]+/venv-pip/lib/python[0-9.]+/site-packages/' \
	"ground truth: python imported the module from the ensurepip venv"
is "$(st pkg.dpkg "$rep")" error "a package of that name already known: error (refused)"
like "$(obs pkg.dpkg "$rep")" 'refused: sandprobe-probe-[0-9a-f]+ already is known to dpkg' "the refusal is named"
is "$(grep -c '^Package: sandprobe-probe-' "$T/db/status")" 1 "the existing entry is left as it was"
is "$(st pkg.apt "$rep")" error "apt: a package of that name already known: error (refused)"
like "$(obs pkg.apt "$rep")" 'refused: sandprobe-apt-[0-9a-f]+ already is known to dpkg' "apt's refusal is named"
is "$(grep -c '^Package: sandprobe-apt-' "$T/db/status")" 1 "that entry is left as it was too"
is "$(cat "$T/log/dpkg.log")" "" "ground truth: dpkg's log records no action at all"
is "$(st pkg.npm "$rep")" fail "npm -g with no bin link: fail"
like "$(obs pkg.npm "$rep")" 'npm install -g --prefix .*exit 0.*/global/bin/sandprobe-probe-[0-9a-f]+: No such file' "the missing bin is named"
like "$(cat "$T/gt/js.log" 2>/dev/null)" '/prefix/node_modules/sandprobe-probe-' "ground truth: the local install was required"
unlike "$(cat "$T/gt/js.log" 2>/dev/null)" '/global/' "ground truth: nothing of the global install was loaded"
mkdir -p "$T/np/package" "$T/gp"
printf '{"name":"sp-gt-bin","version":"1.0.0","bin":{"sp-gt-bin":"b.js"}}\n' >"$T/np/package/package.json"
printf '#!/usr/bin/env node\nconsole.log(1)\n' >"$T/np/package/b.js"
tar -C "$T/np" -cf "$T/np/sp-gt-bin-1.0.0.tar" package
box --unshare-net --setenv npm_config_bin_links false --setenv npm_config_cache "$T/np/cache" \
	npm install -g --offline --no-audit --no-fund --prefix "$T/gp" "$T/np/sp-gt-bin-1.0.0.tar" >/dev/null 2>&1
is "$?/$(ls -d "$T/gp/lib/node_modules/sp-gt-bin" 2>/dev/null)/$(ls -A "$T/gp/bin" 2>/dev/null)" "0/$T/gp/lib/node_modules/sp-gt-bin/" \
	"ground truth: npm -g by a shell with bin links off installs the package and links no bin"

# ---- the check killed between install and purge (a forced --timeout-ms
# shorter than its steps; a dpkg in front of the real one stays after -i):
# the janitor purges it. No pid namespace here, so the janitor outlives the
# doctor as it would in a sandbox that goes on running.
newdb
: >"$T/log/dpkg.log"
mkdir -p "$T/kbin"
cat >"$T/kbin/dpkg" <<'EOF'
#!/bin/sh
/usr/bin/dpkg "$@"
rc=$?
[ "$1" = -i ] && exec sleep 60
exit $rc
EOF
chmod 755 "$T/kbin/dpkg"
rep=$(bwrap --die-with-parent --ro-bind / / --proc /proc --dev /dev --bind "$T/boxtmp" /tmp --ro-bind "$SP_ROOT" "$SP_ROOT" \
	--bind "$T" "$T" --bind "$T/db" /var/lib/dpkg --tmpfs /usr/local --bind "$T/ulb" /usr/local/bin --bind "$T/log" /var/log \
	--setenv PATH "$T/kbin:$PATH" -- "$SP_DOCTOR" --format json -k pkg.dpkg --set pkg.offline=dpkg --timeout-ms 2500)
is "$(st pkg.dpkg "$rep")" error "killed at its bound: error, not pass"
like "$(grep -o 'status installed sandprobe-probe-[0-9a-f]*' "$T/log/dpkg.log")" 'status installed sandprobe-probe-' \
	"ground truth: dpkg's log records the package installed before the kill"
for _ in $(seq 1 150); do
	grep -q '^Package:' "$T/db/status" || break
	sleep 0.1
done
is "$(grep -c '^Package:' "$T/db/status")" 0 "the janitor purged it: the box's dpkg status holds no package"
like "$(tail -1 "$T/log/dpkg.log")" 'status not-installed sandprobe-probe-' "ground truth: dpkg's log records the purge last"
is "$(ls -A "$T/ulb")" "" "the installed file is gone"

# ---- tools absent: skip with the reason
rep=$(box --setenv PATH /nonexistent -- "$SP_DOCTOR" --format json -k 'pkg.*' --set pkg.offline=pip,dpkg,apt,npm)
is "$(st pkg.pip "$rep")/$(st pkg.dpkg "$rep")/$(st pkg.apt "$rep")/$(st pkg.npm "$rep")" skip/skip/skip/skip "nothing on PATH: all four skip"
like "$(obs pkg.apt "$rep")" 'apt-get is not on PATH' "apt's skip names apt-get"
like "$(obs pkg.pip "$rep")" 'python3 is not on PATH' "pip's skip names python3"
like "$(obs pkg.dpkg "$rep")" 'dpkg is not on PATH' "dpkg's skip names dpkg"

EP=$(python3 -c 'import os, ensurepip; print(os.path.dirname(ensurepip.__file__))')
rep=$(box --tmpfs "$(dirname "$PIPDIR")" --tmpfs "$EP" -- "$SP_DOCTOR" --format json -k pkg.pip --set pkg.offline=pip)
is "$(st pkg.pip "$rep")" skip "neither a system pip nor ensurepip: skip"
like "$(obs pkg.pip "$rep")" 'neither pip nor ensurepip' "the skip says why"

# ---- not asked for: skip (no install happens), and no writable place: error
rep=$("$SP_DOCTOR" --format json -k 'pkg.*')
is "$(st pkg.pip "$rep")/$(st pkg.dpkg "$rep")/$(st pkg.apt "$rep")/$(st pkg.npm "$rep")" skip/skip/skip/skip "pkg.offline empty: all four skip"
like "$(obs pkg.dpkg "$rep")" 'does not ask for dpkg \(pkg\.offline\)' "the skip names the key"
rep=$(bwrap --die-with-parent --unshare-pid --ro-bind / / --proc /proc --dev /dev --remount-ro /dev \
	--ro-bind "$SP_ROOT" "$SP_ROOT" -- "$SP_DOCTOR" --format json -k 'pkg.pip or pkg.npm' --set pkg.offline=pip,npm --set fs.writable=)
is "$(st pkg.pip "$rep")/$(st pkg.npm "$rep")" error/error "no writable directory for the install: error, not pass"

out=$("$SP_DOCTOR" -k pkg.pip --set pkg.offline=pip,yum 2>&1); rc=$?
is "$rc" 2 "an unknown manager is a usage error"
like "$out" "pkg\\.offline: 'yum': expected pip, dpkg, apt or npm" "the error names the key and the word"

is "$(sha256sum /var/lib/dpkg/status | cut -d' ' -f1)" "$host_status" "the host's dpkg status is byte-identical"
done_testing
