#!/usr/bin/env bash
# Bad input, verb by verb: a missing, empty, directory or binary input where
# the verb wants the other kind, and an unknown flag. Each is exactly one line
# on standard error ("sandprobe: ..."), exit 2 (sandprobe(1), EXIT STATUS),
# nothing on standard output, and nothing changed: the output file or
# directory the command names is not created.
. "$(dirname "$0")/../lib/tap.sh"
T=$(sp_tmpdir)
cd "$T" || exit 1
: >empty
mkdir dir emptydir
printf '\177ELF\001\001\001\000garbage\000\377\376' >binary
R=$SP_ROOT

# bad NAME OUTPUT -- CMD...: one stderr line, exit 2, no stdout, OUTPUT not created
bad() {
	local name=$1 output=$2
	shift 3
	rm -rf "$output"
	"$@" >"$T/.out" 2>"$T/.err" </dev/null
	local rc=$?
	local lines
	lines=$(wc -l <"$T/.err" | tr -d ' ')
	if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -q '^sandprobe: ' "$T/.err" && [ ! -s "$T/.out" ] && [ ! -e "$output" ]; then
		_tap_result 0 "$name: exit 2, one line ($(cut -c1-110 "$T/.err"))"
	else
		_tap_result 1 "$name" "exit $rc, $lines stderr line(s), stdout $(wc -c <"$T/.out") bytes, $output $([ -e "$output" ] && echo created || echo absent)
$(head -5 "$T/.err")"
	fi
}
S=$SP_BIN
# every verb rejects an unknown flag (before it reads or writes anything)
for verb in doctor live lint soak verify report gate fleet import keygen atlas; do
	bad "$verb --bogus" out -- "$S" "$verb" --bogus -o out
done
bad "sandprobe-doctor --bogus" out -- "$SP_DOCTOR" --bogus -o out

for kind in missing empty dir binary; do
	f=$kind
	[ "$kind" = missing ] && f=nonexistent
	# inputs that are files
	bad "doctor --policy ($kind)" out -- "$S" doctor --policy "$f" -o out
	bad "doctor --manifest ($kind)" out -- "$S" doctor --profile host --manifest "$f" -o out
	bad "live --runtime qemu --kernel ($kind)" out -- "$S" live --runtime qemu --kernel "$f" -o out
	bad "lint ($kind)" out -- "$S" lint "$f" -o out
	bad "lint ($kind) beside a good file" out -- "$S" lint "$R/tests/lint/fixtures/good/oci.json" "$f" -o out
	bad "soak --workload ($kind)" out -- "$S" soak --workload "$f" --profile R0 --out out
	bad "gate --plan ($kind)" out -- "$S" gate --plan "$f" "$T/dir" -o out
	bad "fleet render --plan ($kind)" out -- "$S" fleet render --plan "$f" -o out
	bad "fleet collect ($kind)" out -- "$S" fleet collect --plan "$R/docs/examples/fleet-plan.yaml" -o out "$([ "$kind" = dir ] && echo emptydir || echo "$f")"
	# inputs that are directories (a bundle): a file, nothing, or an empty one
	d=$f
	[ "$kind" = dir ] && d=emptydir
	bad "verify ($kind)" out -- "$S" verify "$d" -o out
	bad "report ($kind)" out.html -- "$S" report "$d" -o out.html
	bad "import a3s ($kind)" out -- "$S" import a3s "$d" out
done
# outputs that cannot be written: a directory, or in a directory that does not exist
bad "report -o DIR" dir/x -- "$S" report "$R/tests" -o dir
bad "atlas -o DIR" dir/x -- "$S" atlas -o dir
bad "atlas -o in a missing directory" nodir -- "$S" atlas -o nodir/x
bad "doctor -o in a missing directory" nodir -- "$S" doctor --profile host -o nodir/x
bad "keygen --out in a missing directory" nodir -- "$S" keygen --out nodir/run-key
like "$(cat "$T/.err")" "mkdir -p nodir" "keygen says the directory is missing and how to make it"
# selections that select nothing
bad "doctor -k matching nothing" out -- "$S" doctor -k 'id:no.such' -o out
bad "doctor -k matching only checks the profile turns off" out -- "$S" doctor --profile host -k 'id:proc.required' -o out
like "$(cat "$T/.err")" "id:proc.required.*'host'" "names the expression and the profile"
# unknown runtime, with the short name of one accepted
bad "live --runtime nosuch" out -- "$S" live --runtime nosuch -o out
like "$(cat "$T/.err")" "unknown runtime 'nosuch'" "names the runtime"
bad "live --runtime spawn" out -- "$S" live --runtime spawn -o out
like "$(cat "$T/.err")" "did you mean systemd-nspawn" "suggests the runtime"
# nspawn passes the name check: the next error is the variant's
bad "live --runtime nspawn --variant nosuch" out -- "$S" live --runtime nspawn --variant nosuch -o out
like "$(cat "$T/.err")" "unknown variant 'nosuch'" "live --runtime nspawn is accepted (systemd-nspawn)"
ok test -z "$(ls -A "$T" | grep -vE '^(\.out|\.err|empty|dir|emptydir|binary)$')"
done_testing
