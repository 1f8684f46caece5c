#!/usr/bin/env bash
# The Debian packages: dpkg-buildpackage -us -uc builds sandprobe and the
# static sandprobe-doctor from a copy of this tree (with dpkg-buildflags'
# hardening), lintian reports no error, the packages install with apt-get,
# the doctor and `live --runtime bwrap` work from the installed paths, and a
# purge leaves none of the packages' files behind.
. "$SP_ROOT/tests/lib/tap.sh"
[ "${SP_SAN:-0}" = 1 ] && skip_na "a packaging test: the normal run covers it"
need dpkg-buildpackage "dpkg-dev not installed"
need dh "debhelper not installed"
need lintian
need apt-get
need bwrap
need_root
for p in sandprobe sandprobe-doctor; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		skip_na "$p is already installed on this machine: not replacing it"
	fi
done
# one run of this file at a time on the machine (it installs packages)
exec 9>/tmp/sandprobe-deb-test.lock
flock -w 900 9 || skip_all "another run of tests/pkg/deb.t holds the lock"

T=$(sp_tmpdir)
at_exit "rm -rf '$T'"
src=$T/sandprobe-0.1.0
mkdir -p "$src"
if git -C "$SP_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$SP_ROOT" && git ls-files -co --exclude-standard | grep -vE '^build(-san|-fuzz)?/' | tar -cf - -T -) | tar -xf - -C "$src"
else
	tar -C "$SP_ROOT" --exclude=./build --exclude=./build-san --exclude=./build-fuzz --exclude=./.git -cf - . | tar -xf - -C "$src"
fi
(cd "$src" && DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -us -uc >"$T/build.log" 2>&1)
rc=$?
is "$rc" 0 "dpkg-buildpackage -us -uc builds"
[ "$rc" = 0 ] || tail -30 "$T/build.log" | sed 's/^/# /'
deb_d=$(ls "$T"/sandprobe-doctor_*_amd64.deb 2>/dev/null | head -1)
deb_s=$(ls "$T"/sandprobe_*_amd64.deb 2>/dev/null | head -1)
TAP_NAME="both binary packages exist" ok test -s "$deb_d" -a -s "$deb_s"
like "$(dpkg-deb -c "$deb_d")" './usr/bin/sandprobe-doctor' "sandprobe-doctor ships /usr/bin/sandprobe-doctor"
like "$(dpkg-deb -c "$deb_s")" './usr/bin/sandprobe$' "sandprobe ships /usr/bin/sandprobe"
like "$(dpkg-deb -f "$deb_s" Depends)" 'sandprobe-doctor \(= ' "sandprobe depends on the same version of sandprobe-doctor"
like "$(dpkg-deb -f "$deb_d" Built-Using)" 'glibc \(= .*jansson \(= ' "the static doctor records the static libraries it carries (Built-Using)"
mkdir -p "$T/x"
dpkg-deb -x "$deb_d" "$T/x"
unlike "$(readelf -l "$T/x/usr/bin/sandprobe-doctor" 2>&1)" 'INTERP' "the packaged doctor is static (no ELF interpreter)"
dpkg-deb -x "$deb_s" "$T/x"
like "$(readelf -dW "$T/x/usr/bin/sandprobe")" 'FLAGS.*NOW|BIND_NOW' "the packaged sandprobe is built with dpkg-buildflags' bindnow (hardening=+all)"
like "$(readelf -sW --dyn-syms "$T/x/usr/bin/sandprobe" | grep -c '__[a-z_]*_chk')" '^[1-9]' "and fortified (_FORTIFY_SOURCE: calls to __*_chk)"
is "$(readelf -h "$T/x/usr/bin/sandprobe" | awk '/Type:/{print $2}')" DYN "and PIE"
lint=$(cd "$T" && lintian --info ./*.changes 2>&1)
echo "$lint" | grep -E '^[WI]:' | head -20 | sed 's/^/# /'
is "$(echo "$lint" | grep -c '^E:')" 0 "lintian reports no error"

# --- install, use from the installed paths, purge ---
at_exit "apt-get purge -y -q -o DPkg::Lock::Timeout=600 sandprobe sandprobe-doctor >/dev/null 2>&1"
apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends "$deb_d" "$deb_s" >"$T/install.log" 2>&1
rc=$?
is "$rc" 0 "apt-get installs both packages"
[ "$rc" = 0 ] || tail -20 "$T/install.log" | sed 's/^/# /'
is "$(dpkg-query -S /usr/bin/sandprobe 2>/dev/null | cut -d: -f1)" sandprobe "/usr/bin/sandprobe belongs to the package"
is "$(dpkg-query -S /usr/bin/sandprobe-doctor 2>/dev/null | cut -d: -f1)" sandprobe-doctor "/usr/bin/sandprobe-doctor belongs to its package"
files=$(dpkg-query -L sandprobe sandprobe-doctor 2>/dev/null | while read -r f; do [ -f "$f" ] && echo "$f"; done)
like "$files" '/usr/share/man/man1/sandprobe-keygen.1' "man pages installed (keygen's too)"
like "$files" '/usr/share/bash-completion/completions/sandprobe' "bash completion installed"
like "$files" '/usr/share/sandprobe/schema/doctor.schema.json' "JSON schemas installed"
cd / || exit 1
out=$(/usr/bin/sandprobe-doctor --profile host -k 'ns or caps' 2>&1)
rc=$?
is "$rc" 0 "the installed doctor runs from / (host profile: advisory)"
like "$out" 'RESULT: PASS -- [0-9]+ passed' "and prints its verdict"
out=$(/usr/bin/sandprobe live --runtime bwrap 2>&1)
rc=$?
is "$rc" 0 "the installed sandprobe live --runtime bwrap passes (the doctor found next to it in /usr/bin)"
like "$out" 'RESULT: PASS' "live verdict PASS"
like "$out" 'PASS: host.ns.pid' "host-side checks ran"
like "$(man -w sandprobe-doctor 2>/dev/null)" '/usr/share/man/man1/sandprobe-doctor.1' "man finds the installed page"
apt-get purge -y -q -o DPkg::Lock::Timeout=600 sandprobe sandprobe-doctor >"$T/purge.log" 2>&1
is "$?" 0 "apt-get purge removes both"
TAP_NAME="dpkg no longer knows the packages" ok bash -c "! dpkg-query -W -f='\${Status}' sandprobe 2>/dev/null | grep -q installed"
left=0
for f in $files; do [ -e "$f" ] && { left=$((left + 1)); echo "# left behind: $f"; }; done
is "$left" 0 "no file of the packages is left after the purge ($(echo "$files" | wc -l | tr -d ' ') files checked)"
TAP_NAME="/usr/share/sandprobe is gone" ok test ! -e /usr/share/sandprobe
done_testing
