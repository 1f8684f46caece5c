# bash completion for sandprobe and sandprobe-doctor
# (installed as /usr/share/bash-completion/completions/sandprobe)

_sandprobe_opts() { # VERB: every option of the verb (tests/cli/completions.t checks them against --help)
	case $1 in
	doctor) echo "--profile --policy --set -k -x -v --strict --list --format -o --output --manifest --timeout-ms --bundle --fail-on -q --quiet --annotate -j --help" ;;
	live) echo "--runtime --variant --matrix --runtimes --variants --list-runtimes --format -o --output --doctor --busybox --kernel --accel --workspace --workspace-export-parent --containerd-address --image --doctor-image --profile --set --timeout-ms --strict --keep -v -q --quiet --exec-under-filter --help" ;;
	lint) echo "--kind --format -o --output --fail-on --require-runtime-class --list-rules -q --quiet --annotate --help" ;;
	soak) echo "--workload --profile -o --out --duration --sample-interval --concurrency --seed --sign-key --metrics-file --lane --artifact -q --quiet --reconcile --sample-once --prefix --state --repeat --help" ;;
	verify) echo "--profile --baseline --pubkey --format -o --output --emit-baseline --self-test --verbose -v -q --quiet --input --kind --allow-dry-run --min-duration-secs --min-samples --min-sample-span-secs --max-sample-gap-secs --help" ;;
	import) echo "--kind --help" ;;
	report) echo "-o --output --verify-timeout -q --quiet --help" ;;
	atlas) echo "--format -o --output -q --quiet --help" ;;
	gate) echo "--plan --at --format -q --quiet -o --output --archive --sign-key --from-archive --pubkey --help" ;;
	keygen) echo "-o --out -q --quiet --help" ;;
	fleet) echo "--plan -o --output --format --help" ;;
	esac
}

_sandprobe_values() { # VERB OPTION: the values it takes ("" files, "-" free text, else a list)
	case "$1 $2" in
	"doctor --profile" | "live --profile") echo "strict container host" ;;
	"doctor --format") echo "text json tap junit" ;;
	"doctor --fail-on") echo "fail warn" ;;
	"doctor --annotate" | "lint --annotate") echo "github" ;;
	"live --format") echo "text json html junit tap" ;;
	"live --runtime" | "live --runtimes") echo "bwrap unshare runc crun runsc podman docker docker-runsc containerd-runc containerd-runsc firejail systemd-nspawn qemu" ;;
	"live --variant" | "live --variants") echo "strict host-pid host-net writable-root kept-caps host-dev no-seccomp privileged no-nnp" ;;
	"live --accel") echo "auto kvm tcg" ;;
	"lint --kind") echo "auto oci allowlist seccomp compose kube squid" ;;
	"lint --format") echo "text json sarif" ;;
	"lint --fail-on") echo "error warning note" ;;
	"soak --profile" | "verify --profile") echo "R0 G2 R24 E72" ;;
	"verify --format") echo "text json junit tap a3s" ;;
	"verify --input") echo "auto sandprobe a3s" ;;
	"verify --kind" | "import --kind") echo "host cluster auto" ;;
	"atlas --format") echo "text json md" ;;
	"gate --format") echo "text json junit html" ;;
	"fleet --format") echo "text json html junit tap" ;;
	"doctor --set" | "doctor -k" | "doctor --timeout-ms" | "doctor -j" | "live --set" | "live --timeout-ms" | "live --image" | "lint --require-runtime-class" | \
		"soak --duration" | "soak --sample-interval" | "soak --concurrency" | "soak --seed" | "soak --prefix" | \
		"soak --repeat" | "report --verify-timeout" | "verify --min-duration-secs" | "verify --min-samples" | \
		"verify --min-sample-span-secs" | "verify --max-sample-gap-secs" | "soak --lane" | "soak --artifact" | "gate --at") echo "-" ;;
	"soak --out" | "soak -o" | "soak --state" | "soak --reconcile" | "doctor --bundle" | "gate --archive" | "gate --from-archive") echo "@dir" ;;
	"doctor --policy" | "doctor -o" | "doctor --output" | "doctor --manifest" | "live -o" | "live --output" | \
		"live --doctor" | "live --busybox" | "live --kernel" | "lint -o" | "lint --output" | "soak --workload" | \
		"soak --sign-key" | "soak --metrics-file" | "verify --baseline" | "verify --pubkey" | "verify -o" | \
		"verify --output" | "verify --emit-baseline" | "report -o" | "report --output" | "atlas -o" | \
		"atlas --output" | "keygen -o" | "keygen --out" | "live --containerd-address" | "gate --plan" | "gate -o" | \
		"gate --output" | "gate --sign-key" | "gate --pubkey" | "fleet --plan" | "fleet -o" | "fleet --output") echo "@file" ;;
	*) return 1 ;;
	esac
}

_sandprobe() {
	local cur prev verb i vals
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	if [ "${COMP_WORDS[0]##*/}" = sandprobe-doctor ]; then
		verb=doctor
	else
		verb=
		for ((i = 1; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			doctor | live | lint | soak | verify | report | gate | fleet | import | atlas | keygen) verb=${COMP_WORDS[i]}; break ;;
			esac
		done
		if [ -z "$verb" ]; then
			COMPREPLY=($(compgen -W "doctor live lint soak verify report gate fleet import atlas keygen --help --version" -- "$cur"))
			return
		fi
	fi
	if vals=$(_sandprobe_values "$verb" "$prev"); then
		case $vals in
		-) ;;
		@dir) COMPREPLY=($(compgen -d -- "$cur")) ;;
		@file) COMPREPLY=($(compgen -f -- "$cur")) ;;
		*)
			if [ "$prev" = --runtimes ] || [ "$prev" = --variants ]; then
				local head=${cur%,*} last=${cur##*,}
				[ "$head" = "$cur" ] && head= || head="$head,"
				COMPREPLY=($(compgen -P "$head" -W "$vals" -- "$last"))
			else
				COMPREPLY=($(compgen -W "$vals" -- "$cur"))
			fi
			;;
		esac
		return
	fi
	case $cur in
	-*) COMPREPLY=($(compgen -W "$(_sandprobe_opts "$verb")" -- "$cur")) ;;
	*)
		case $verb in
		verify | report | gate | import) COMPREPLY=($(compgen -d -- "$cur")) ;;
		lint) COMPREPLY=($(compgen -f -- "$cur")) ;;
		fleet) if [ "$prev" = fleet ]; then COMPREPLY=($(compgen -W "render collect" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
		esac
		;;
	esac
}
complete -o filenames -F _sandprobe sandprobe sandprobe-doctor
