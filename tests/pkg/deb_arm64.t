#!/usr/bin/env bash
# The arm64 sandprobe-doctor package, cross-built from a copy of this tree:
#   dpkg-buildpackage -a arm64 -B -Ppkg.sandprobe.doctoronly
# (gcc-aarch64-linux-gnu and the arm64 -dev packages of tools/deps.sh). The
# package is arm64, ships only the doctor's files, its binary is a static
# aarch64 executable of at most 2.5 MiB that runs under qemu-user, and its
# Built-Using names the static libraries it links.
. "$SP_ROOT/tests/lib/tap.sh"
[ "${SP_SAN:-0}" = 1 ] && skip_na "a packaging test: the normal run covers it"
need dpkg-buildpackage "dpkg-dev not installed"
need dh "debhelper not installed"
need aarch64-linux-gnu-gcc "gcc-aarch64-linux-gnu not installed (tools/deps.sh)"
need qemu-aarch64-static "qemu-user-static not installed (tools/deps.sh)"
need file

T=$(sp_tmpdir)
at_exit "rm -rf '$T'"
src=$T/sandprobe-0.1.0
mkdir -p "$src"
if git -C "$SP_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$SP_ROOT" && git ls-files -co --exclude-standard | grep -vE '^build(-san|-fuzz|-arm64)?/' | tar -cf - -T -) | tar -xf - -C "$src"
else
	tar -C "$SP_ROOT" --exclude=./build --exclude=./build-san --exclude=./build-fuzz --exclude=./build-arm64 \
		--exclude=./.git -cf - . | tar -xf - -C "$src"
fi
(cd "$src" && DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -a arm64 -B -us -uc -Ppkg.sandprobe.doctoronly \
	>"$T/build.log" 2>&1)
rc=$?
is "$rc" 0 "dpkg-buildpackage -a arm64 -B -Ppkg.sandprobe.doctoronly builds"
[ "$rc" = 0 ] || tail -30 "$T/build.log" | sed 's/^/# /'
deb=$(ls "$T"/sandprobe-doctor_*_arm64.deb 2>/dev/null | head -1)
TAP_NAME="the arm64 doctor package exists" ok test -s "$deb"
is "$(ls "$T"/*.deb 2>/dev/null | wc -l)" 1 "the doctor-only profile builds no other package"
is "$(dpkg-deb -f "$deb" Architecture)" arm64 "Architecture: arm64"
like "$(dpkg-deb -f "$deb" Built-Using)" "mbedtls" "Built-Using names mbedtls (linked statically)"
like "$(dpkg-deb -f "$deb" Built-Using)" "jansson" "Built-Using names jansson"
like "$(dpkg-deb -c "$deb")" './usr/share/man/man1/sandprobe-doctor.1' "ships the doctor's man page"
mkdir "$T/x"
dpkg-deb -x "$deb" "$T/x"
bin=$T/x/usr/bin/sandprobe-doctor
desc=$(file -b "$bin")
like "$desc" "ARM aarch64" "the packaged doctor is aarch64 ($desc)"
like "$desc" "static" "the packaged doctor is static"
size=$(stat -c %s "$bin")
TAP_NAME="the packaged doctor is at most 2.5 MiB ($size bytes)" ok test "$size" -le 2621440
like "$(qemu-aarch64-static "$bin" --version 2>&1)" "^sandprobe-doctor " "it runs under qemu-aarch64-static"
done_testing
