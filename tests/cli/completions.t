#!/usr/bin/env bash
# Shell completions (completions/): for every verb, the options each shell
# offers are exactly the options the verb's --help documents (so neither can
# drift), and completing values works: bash through its completion function,
# fish through `complete -C`, zsh through _arguments specs (stubbed).
. "$SP_ROOT/tests/lib/tap.sh"
C=$SP_ROOT/completions
T=$(sp_tmpdir)
# every verb sandprobe --help lists
verbs=$("$SP_BIN" --help | awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { printf "%s ", $1 } on && /^$/ { on = 0 }')
verbs=${verbs% }

helpopts() { # VERB: the options of the option column of --help
	"$SP_BIN" "$1" --help 2>&1 | grep -E '^\s+-' | sed -E 's/^\s+//; s/ {2,}.*//' |
		grep -oE '(^|[ ,])-(-[a-z][a-z0-9-]*|[a-zA-Z])\b' | sed 's/^[ ,]//' | sort -u | tr '\n' ' '
}
norm() { tr ' ' '\n' | grep -v '^--help$' | grep . | sort -u | tr '\n' ' '; }

# --- bash ---
TAP_NAME="bash: the completion script parses" ok bash -n "$C/sandprobe.bash"
for v in $verbs; do
	got=$(bash -c ". '$C/sandprobe.bash'; _sandprobe_opts $v" | norm)
	is "$got" "$(helpopts "$v")" "bash: $v options match its --help"
done
bcomp() { # WORDS...: what bash completes for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _sandprobe; echo "${COMPREPLY[*]}"' _ "$C/sandprobe.bash" "$@"
}
is "$(bcomp sandprobe '')" "$verbs --help --version" "bash: verbs"
is "$(bcomp sandprobe doctor --format '')" "text json tap junit" "bash: doctor --format values"
is "$(bcomp sandprobe-doctor --profile s)" "strict" "bash: sandprobe-doctor is the doctor verb"
is "$(bcomp sandprobe live --runtimes bwrap,ru)" "bwrap,runc bwrap,runsc" "bash: a comma list completes its last item"
is "$(bcomp sandprobe verify --format j)" "json junit" "bash: verify formats"
like "$(cd "$T" && mkdir -p bundle && bcomp sandprobe report bu)" '^bundle' "bash: report completes a directory"

# --- fish ---
if command -v fish >/dev/null; then
	TAP_NAME="fish: the completion script parses" ok fish -n "$C/sandprobe.fish"
	fcomp() { fish -c "source '$C/sandprobe.fish'; complete -C'$1'" | cut -f1 | sort -u | tr '\n' ' '; }
	for v in $verbs; do
		got=$( (fcomp "sandprobe $v --"; fcomp "sandprobe $v -") | tr ' ' '\n' | grep -E '^-' | norm)
		is "$got" "$(helpopts "$v")" "fish: $v options match its --help"
	done
	is "$(fcomp 'sandprobe live --accel ')" "auto kvm tcg " "fish: live --accel values"
	is "$(fcomp 'sandprobe-doctor --format ')" "json junit tap text " "fish: sandprobe-doctor --format values"
	is "$(fcomp 'sandprobe ' | tr ' ' '\n' | grep -v '^-' | grep . | sort | tr '\n' ' ')" "$(echo $verbs | tr ' ' '\n' | sort | tr '\n' ' ')" "fish: verbs"
else
	skip "fish not installed (tools/deps.sh installs it)"
fi

# --- zsh: _arguments and _describe stubbed to print their specs ---
if command -v zsh >/dev/null; then
	TAP_NAME="zsh: the completion script parses" ok zsh -n "$C/_sandprobe"
	zspecs() { # VERB: the _arguments specs zsh would use for "sandprobe VERB"
		zsh -f -c '_arguments() { shift; printf "%s\n" "$@"; }; _describe() { print -l -- ${(P)${@[-1]}}; }
			_files() {}; _sequence() {}; compadd() {}
			service=sandprobe; words=(sandprobe '"$1"' ""); CURRENT=3
			source "$0"' "$C/_sandprobe"
	}
	for v in $verbs; do
		got=$(zspecs "$v" | sed -E 's/^\(([^)]*)\)//; s/^\*//' | grep -oE '^(\{[^}]*\}|-[-a-zA-Z0-9]+)' |
			tr -d '{}' | tr ',' '\n' | norm)
		is "$got" "$(helpopts "$v")" "zsh: $v options match its --help"
	done
	like "$(zspecs doctor)" "--format\[report format\]:format:\(text json tap junit\)" "zsh: doctor --format values"
	like "$(zsh -f -c '_describe() { print -l -- ${(P)${@[-1]}}; }; service=sandprobe; words=(sandprobe ""); CURRENT=2; source "$0"' "$C/_sandprobe")" \
		'^doctor:' "zsh: verbs"
else
	skip "zsh not installed (tools/deps.sh installs it)"
fi

# --- installed by make install ---
D=$(sp_tmpdir)
make -s -C "$SP_ROOT" DESTDIR="$D" PREFIX=/usr install >/dev/null 2>&1
TAP_NAME="make install puts the bash, zsh and fish completions in their vendor directories" ok test \
	-s "$D/usr/share/bash-completion/completions/sandprobe" -a -s "$D/usr/share/zsh/vendor-completions/_sandprobe" \
	-a -s "$D/usr/share/fish/vendor_completions.d/sandprobe.fish"
done_testing
