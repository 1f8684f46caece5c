#!/usr/bin/env bash
# The build with Debian's standard flags (dpkg-buildflags, hardening=+all:
# _FORTIFY_SOURCE, stack protector, PIE, full RELRO), the user's CFLAGS kept
# and placed after the project's own, and `make install` / `make uninstall`.
# Ground truth is the objects and binaries themselves: the compiler switches
# recorded in .GCC.command.line, the ELF headers, and the files on disk.
. "$SP_ROOT/tests/lib/tap.sh"
need dpkg-buildflags "dpkg-dev not installed"
need readelf "binutils not installed"
[ "${SP_SAN:-0}" = 1 ] && skip_na "a build test: the normal run covers it"

B=$(sp_tmpdir)/build
log=$(sp_tmpdir)/make.log
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
eval "$(dpkg-buildflags --export=sh)"
# user switches whose effect is visible in the objects: -g3 records every
# macro definition (so -D_FORTIFY_SOURCE=2 and our marker show in .debug_macro),
# and -fno-function-sections must override the Makefile's -ffunction-sections,
# which it only does when the user's CFLAGS come after the project's
CFLAGS="$CFLAGS -g3 -fno-function-sections -DSP_USER_FLAG_MARK=1"
export CFLAGS
cd "$SP_ROOT" || exit 1
TAP_NAME="make with dpkg-buildflags (CPPFLAGS=$CPPFLAGS) builds both binaries" \
	ok bash -c "make -j2 BUILD='$B' all >'$log' 2>&1"
[ -x "$B/sandprobe" ] || { tail -30 "$log" | sed 's/^/# /'; }

macros() { readelf --debug-dump=macro "$1" 2>/dev/null; }
util=$B/obj/src/core/util.o
m=$(macros "$util")
like "$m" 'macro : _FORTIFY_SOURCE 2' "core/util.c was compiled with dpkg's -D_FORTIFY_SOURCE=2"
like "$m" 'macro : __USE_FORTIFY_LEVEL 2' "glibc's fortify level 2 is in force there (banned.h after the fortified headers)"
like "$m" 'macro : SP_USER_FLAG_MARK 1' "the user's CFLAGS reach the compiler"
like "$m" 'macro : _GNU_SOURCE 1' "the project's own flags stay when the user gives CFLAGS"
# (.text.unlikely and its kin hold cold code whatever the flags: not function sections)
is "$(readelf -SW "$util" | grep -E '\.text\.' | grep -cvE '\.text\.(unlikely|hot|startup|exit)( |$)')" 0 \
	"the user's -fno-function-sections overrides the Makefile's (user flags last)"
like "$(readelf -p .GCC.command.line "$util" 2>/dev/null; readelf --debug-dump=info "$util" 2>/dev/null | grep -m1 DW_AT_producer)" \
	'fstack-protector-strong' "stack protector on"
nofort=0 nobj=0
# every object that includes a libc header (the generated policy table has none)
for o in $(find "$B/obj" -name '*.o' ! -path '*/gen/*'); do
	nobj=$((nobj + 1))
	macros "$o" | grep -q 'macro : __USE_FORTIFY_LEVEL 2' || { nofort=$((nofort + 1)); echo "# not fortified: $o"; }
done
TAP_NAME="objects found ($nobj)" ok test "$nobj" -ge 50
is "$nofort" 0 "every object was compiled fortified"

hdr() { readelf -h "$1" 2>/dev/null | awk '/Type:/{print $2}'; }
is "$(hdr "$B/sandprobe")" DYN "sandprobe is PIE"
is "$(hdr "$B/sandprobe-doctor")" DYN "sandprobe-doctor is PIE (static-pie)"
like "$(readelf -l "$B/sandprobe-doctor" 2>/dev/null)" '' "readelf reads the doctor"
unlike "$(readelf -l "$B/sandprobe-doctor" 2>/dev/null)" 'INTERP' "sandprobe-doctor has no ELF interpreter (static)"
for b in sandprobe sandprobe-doctor; do
	like "$(readelf -lW "$B/$b")" 'GNU_RELRO' "$b has a RELRO segment"
	like "$(readelf -dW "$B/$b")" 'BIND_NOW|FLAGS.*NOW' "$b is bound now (full RELRO)"
done
like "$(readelf -sW --dyn-syms "$B/sandprobe" | grep -c '__[a-z]*_chk')" '^[1-9]' "sandprobe calls the fortified _chk variants"
like "$("$B/sandprobe-doctor" --version 2>&1)" '^sandprobe-doctor ' "the fortified doctor runs"
TAP_NAME="the fortified doctor judges this host" ok bash -c "'$B/sandprobe-doctor' --profile host -k ns >/dev/null; test \$? -le 1"

# CFLAGS on the command line (make CFLAGS=-O0) replace the default -O2 but
# not the project's flags: the strict warnings and the hardening stay. One
# object each is enough: the flags are the same for every object.
C=$(sp_tmpdir)/cmdline
TAP_NAME="make CFLAGS='-O0 -g3 ...' on the command line compiles" \
	ok bash -c "make BUILD='$C' CFLAGS='-O0 -g3 -DSP_CMDLINE_MARK=1' '$C/obj/src/core/util.o' >>'$log' 2>&1"
m=$(macros "$C/obj/src/core/util.o")
like "$m" 'macro : SP_CMDLINE_MARK 1' "the command line's CFLAGS reach the compiler"
unlike "$m" 'macro : __OPTIMIZE__ ' "the command line's -O0 replaces the default -O2"
like "$m" 'macro : _GNU_SOURCE 1' "the project's own flags stay with CFLAGS on the command line"
prod=$(readelf --debug-dump=info "$C/obj/src/core/util.o" 2>/dev/null | grep -m1 DW_AT_producer)
for f in -fstack-protector-strong -fstack-clash-protection -fcf-protection=full; do
	like "$prod" "$f" "hardening kept with CFLAGS on the command line: $f"
done
# the strict warnings stay errors: a header that trips -Wundef, forced into
# a real source file by the user's flags, must fail the build
W=$(sp_tmpdir)
printf '#if SP_NOT_DEFINED_ANYWHERE\n#endif\n' >"$W/undef.h"
for how in cmdline env; do
	if [ $how = cmdline ]; then
		make BUILD="$W/b-$how" CFLAGS="-O0 -include $W/undef.h" "$W/b-$how/obj/src/core/util.o" >"$W/$how.log" 2>&1
	else
		CFLAGS="$CFLAGS -include $W/undef.h" make BUILD="$W/b-$how" "$W/b-$how/obj/src/core/util.o" >"$W/$how.log" 2>&1
	fi
	isnt "$?" 0 "a warning is an error with the user's CFLAGS ($how)"
	like "$(cat "$W/$how.log")" 'Werror=undef' "the compiler names the strict warning ($how)"
done

# install and uninstall into a DESTDIR, with the same flags (no rebuild)
D=$(sp_tmpdir)/dest
TAP_NAME="make install DESTDIR PREFIX=/usr" ok bash -c "make BUILD='$B' DESTDIR='$D' PREFIX=/usr install >>'$log' 2>&1"
for f in usr/bin/sandprobe usr/bin/sandprobe-doctor usr/share/man/man1/sandprobe-doctor.1 \
	usr/share/man/man7/sandprobe-checks.7 usr/share/sandprobe/policies/strict.ini; do
	TAP_NAME="installed $f" ok test -s "$D/$f"
done
like "$("$D/usr/bin/sandprobe" --version 2>&1)" 'sandprobe' "the installed binary runs"
TAP_NAME="make uninstall with the same DESTDIR and PREFIX" ok bash -c "make BUILD='$B' DESTDIR='$D' PREFIX=/usr uninstall >>'$log' 2>&1"
is "$(find "$D" -type f | wc -l | tr -d ' ')" 0 "uninstall left no file behind"
is "$(find "$D" -mindepth 1 -name '*sandprobe*' | wc -l | tr -d ' ')" 0 "nor a sandprobe directory"
done_testing
