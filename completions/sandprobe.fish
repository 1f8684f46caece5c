# fish completion for sandprobe and sandprobe-doctor
# (installed as /usr/share/fish/vendor_completions.d/sandprobe.fish)

set -l verbs doctor live lint soak verify report gate fleet import atlas keygen
complete -c sandprobe -f
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a doctor -d 'run the isolation checks inside this sandbox'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a live -d 'launch a sandbox with a real runtime, check it from both sides'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a lint -d 'validate sandbox configuration files'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a soak -d 'run a workload, write an evidence bundle'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a verify -d 'judge an evidence bundle'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a report -d 'render an evidence bundle as HTML'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a gate -d 'decide a release candidate from a plan and bundles'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a import -d 'turn an A3S Box bundle into a sandprobe one'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a atlas -d 'print the MITRE ATLAS / ATT&CK crosswalk'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a fleet -d 'render one Kubernetes Job per RuntimeClass x node, collect their reports'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -a keygen -d 'create an Ed25519 key pair'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -l help -d 'show help'
complete -c sandprobe -n "not __fish_seen_subcommand_from $verbs" -l version -d 'show the version'

# doctor (also the static sandprobe-doctor)
for c in "sandprobe -n '__fish_seen_subcommand_from doctor'" "sandprobe-doctor"
	eval complete -c $c -l profile -x -a "'strict container host'" -d "'shipped policy'"
	eval complete -c $c -l policy -r -F -d "'policy file (INI)'"
	eval complete -c $c -l set -x -d "'override one policy key (KEY=VALUE)'"
	eval complete -c $c -s k -x -d "'select checks by id or category expression'"
	eval complete -c $c -s x -d "'stop after the first failure'"
	eval complete -c $c -s v -d "'print evidence for passing checks too'"
	eval complete -c $c -l strict -d "'a skipped check counts as a failure'"
	eval complete -c $c -l list -d "'print the catalogue, run nothing'"
	eval complete -c $c -l format -x -a "'text json tap junit'" -d "'report format'"
	eval complete -c $c -s o -l output -r -F -d "'write the report to FILE'"
	eval complete -c $c -l manifest -r -F -d "'JSON list of injected env vars and files'"
	eval complete -c $c -l timeout-ms -x -d "'per-check timeout in ms'"
	eval complete -c $c -s j -x -d "'checks run at once'"
	eval complete -c $c -l bundle -x -a "'(__fish_complete_directories)'" -d "'write an evidence tar into DIR'"
	eval complete -c $c -l fail-on -x -a "'fail warn'" -d "'what makes the exit status 1'"
	eval complete -c $c -s q -l quiet -d "'no report on standard output'"
	eval complete -c $c -l annotate -x -a github -d "'GitHub Actions annotations'"
	eval complete -c $c -l help -d "'show help'"
end

set -l live "__fish_seen_subcommand_from live"
set -l rts bwrap unshare runc crun runsc podman docker docker-runsc containerd-runc containerd-runsc firejail systemd-nspawn qemu
set -l vs strict host-pid host-net writable-root kept-caps host-dev no-seccomp privileged no-nnp
complete -c sandprobe -n $live -l runtime -x -a "$rts" -d 'the runtime of one lane'
complete -c sandprobe -n $live -l variant -x -a "$vs" -d "one lane's variant"
complete -c sandprobe -n $live -l matrix -d 'every available runtime and variant'
complete -c sandprobe -n $live -l runtimes -x -a "$rts" -d 'comma-separated runtimes for --matrix'
complete -c sandprobe -n $live -l variants -x -a "$vs" -d 'comma-separated variants for --matrix'
complete -c sandprobe -n $live -l list-runtimes -d 'list the runtimes and whether they work here'
complete -c sandprobe -n $live -l format -x -a 'text json html junit tap' -d 'report format'
complete -c sandprobe -n $live -s o -l output -r -F -d 'write the report to FILE'
complete -c sandprobe -n $live -l doctor -r -F -d 'static sandprobe-doctor'
complete -c sandprobe -n $live -l busybox -r -F -d 'static busybox'
complete -c sandprobe -n $live -l kernel -r -F -d 'qemu kernel image'
complete -c sandprobe -n $live -l accel -x -a 'auto kvm tcg' -d 'qemu accelerator'
complete -c sandprobe -n $live -l workspace -x -a '(__fish_complete_directories)' -d 'qemu: share DIR with the guest over 9p'
complete -c sandprobe -n $live -l workspace-export-parent -d "qemu, negative control: export DIR's parent"
complete -c sandprobe -n $live -l containerd-address -r -F -d 'socket of the containerd to use'
complete -c sandprobe -n $live -l image -x -d 'engine lanes from this local doctor image'
complete -c sandprobe -n $live -l doctor-image -d 'engine lanes from a doctor image built for the run'
complete -c sandprobe -n $live -l exec-under-filter -d 'run a command under the filter the runtime loads on itself'
complete -c sandprobe -n $live -l profile -x -a 'strict container host' -d "the doctor's base profile"
complete -c sandprobe -n $live -l set -x -d 'a policy setting KEY=VALUE for the doctor in every lane'
complete -c sandprobe -n $live -l timeout-ms -x -d 'per-lane timeout in ms'
complete -c sandprobe -n $live -l strict -d 'a skipped lane is a failure'
complete -c sandprobe -n $live -l keep -d "keep each lane's temp dir"
complete -c sandprobe -n $live -s v -d 'print expected/observed for passing checks too'
complete -c sandprobe -n $live -s q -l quiet -d 'no report on standard output, no progress'
complete -c sandprobe -n $live -l help -d 'show help'

set -l lint "__fish_seen_subcommand_from lint"
complete -c sandprobe -n $lint -F
complete -c sandprobe -n $lint -l kind -x -a 'auto oci allowlist seccomp compose kube squid' -d 'force the kind of every file'
complete -c sandprobe -n $lint -l format -x -a 'text json sarif' -d 'report format'
complete -c sandprobe -n $lint -s o -l output -r -F -d 'write the report to FILE'
complete -c sandprobe -n $lint -l fail-on -x -a 'error warning note' -d 'lowest severity that fails'
complete -c sandprobe -n $lint -l require-runtime-class -x -d 'every pod or service must use NAME'
complete -c sandprobe -n $lint -l list-rules -d 'print the rule catalogue'
complete -c sandprobe -n $lint -s q -l quiet -d 'no report on standard output'
complete -c sandprobe -n $lint -l annotate -x -a github -d 'GitHub Actions annotations'
complete -c sandprobe -n $lint -l help -d 'show help'

set -l soak "__fish_seen_subcommand_from soak"
complete -c sandprobe -n $soak -l workload -r -F -d 'the workload (YAML)'
complete -c sandprobe -n $soak -l profile -x -a 'R0 G2 R24 E72' -d 'soak profile'
complete -c sandprobe -n $soak -s o -l out -r -a '(__fish_complete_directories)' -d 'the bundle directory'
complete -c sandprobe -n $soak -l duration -x -d 'run length in seconds'
complete -c sandprobe -n $soak -l sample-interval -x -d 'seconds between samples'
complete -c sandprobe -n $soak -l concurrency -x -d 'worker threads'
complete -c sandprobe -n $soak -l seed -x -d 'seed of the scenario picks'
complete -c sandprobe -n $soak -l sign-key -r -F -d 'Ed25519 private key'
complete -c sandprobe -n $soak -l metrics-file -r -F -d 'Prometheus text file'
complete -c sandprobe -n $soak -l lane -x -d 'the release gate lane of the run'
complete -c sandprobe -n $soak -l reconcile -x -a '(__fish_complete_directories)' -d "remove a dead run's leftovers under STATE_ROOT"
complete -c sandprobe -n $soak -l artifact -x -d 'an artifact digest: NAME=FILE or NAME=sha256:HEX'
complete -c sandprobe -n $soak -s q -l quiet -d 'no progress'
complete -c sandprobe -n $soak -l sample-once -d 'one resource sample'
complete -c sandprobe -n $soak -l prefix -x -d 'process marker for --sample-once'
complete -c sandprobe -n $soak -l state -r -a '(__fish_complete_directories)' -d 'state directory for --sample-once'
complete -c sandprobe -n $soak -l repeat -x -d 'samples for --sample-once'
complete -c sandprobe -n $soak -l help -d 'show help'

set -l verify "__fish_seen_subcommand_from verify"
complete -c sandprobe -n $verify -a '(__fish_complete_directories)'
complete -c sandprobe -n $verify -l profile -x -a 'R0 G2 R24 E72' -d 'also judge against a profile'
complete -c sandprobe -n $verify -l baseline -r -F -d 'latency baseline'
complete -c sandprobe -n $verify -l pubkey -r -F -d 'Ed25519 public key'
complete -c sandprobe -n $verify -l format -x -a 'text json junit tap' -d 'verdict format'
complete -c sandprobe -n $verify -s o -l output -r -F -d 'write the verdict to FILE'
complete -c sandprobe -n $verify -l emit-baseline -r -F -d 'write a latency baseline'
complete -c sandprobe -n $verify -l self-test -d 'check the verifier itself'
complete -c sandprobe -n $verify -s v -l verbose -d 'more output for --self-test'
complete -c sandprobe -n $verify -s q -l quiet -d 'no verdict on standard output'
complete -c sandprobe -n $verify -l input -x -a 'auto sandprobe a3s' -d "the bundle's kind"
complete -c sandprobe -n $verify -l kind -x -a 'host cluster auto' -d "an A3S bundle's kind"
complete -c sandprobe -n $verify -l allow-dry-run -d 'accept an A3S dry run on its metadata'
complete -c sandprobe -n $verify -l min-duration-secs -x -d 'A3S gate: minimum duration'
complete -c sandprobe -n $verify -l min-samples -x -d 'A3S gate: minimum samples'
complete -c sandprobe -n $verify -l min-sample-span-secs -x -d 'A3S gate: minimum sample span'
complete -c sandprobe -n $verify -l max-sample-gap-secs -x -d 'A3S gate: maximum sample gap'
complete -c sandprobe -n $verify -l help -d 'show help'

set -l import "__fish_seen_subcommand_from import"
complete -c sandprobe -n $import -a '(__fish_complete_directories)'
complete -c sandprobe -n $import -l kind -x -a 'host cluster auto' -d "the A3S bundle's kind"
complete -c sandprobe -n $import -l help -d 'show help'

set -l report "__fish_seen_subcommand_from report"
complete -c sandprobe -n $report -a '(__fish_complete_directories)'
complete -c sandprobe -n $report -s o -l output -r -F -d 'write the page to FILE'
complete -c sandprobe -n $report -l verify-timeout -x -d 'seconds the verifier may take'
complete -c sandprobe -n $report -s q -l quiet -d 'no page on standard output'
complete -c sandprobe -n $report -l help -d 'show help'

set -l gate "__fish_seen_subcommand_from gate"
complete -c sandprobe -n $gate -a '(__fish_complete_directories)'
complete -c sandprobe -n $gate -l plan -r -F -d 'the release plan (YAML)'
complete -c sandprobe -n $gate -l at -x -d 'decide at this UTC time'
complete -c sandprobe -n $gate -l format -x -a 'text json junit html' -d 'decision format'
complete -c sandprobe -n $gate -s o -l output -r -F -d 'write the decision to FILE'
complete -c sandprobe -n $gate -s q -l quiet -d 'no decision on standard output'
complete -c sandprobe -n $gate -l archive -x -a '(__fish_complete_directories)' -d 'retain the evidence in DIR'
complete -c sandprobe -n $gate -l sign-key -r -F -d 'sign the archive MANIFEST'
complete -c sandprobe -n $gate -l from-archive -x -a '(__fish_complete_directories)' -d 're-make an archived decision'
complete -c sandprobe -n $gate -l pubkey -r -F -d 'key the archive MANIFEST.sig must verify with'
complete -c sandprobe -n $gate -l help -d 'show help'

set -l atlas "__fish_seen_subcommand_from atlas"
complete -c sandprobe -n $atlas -l format -x -a 'text json md' -d 'crosswalk format'
complete -c sandprobe -n $atlas -s o -l output -r -F -d 'write the crosswalk to FILE'
complete -c sandprobe -n $atlas -s q -l quiet -d 'nothing on standard output'
complete -c sandprobe -n $atlas -l help -d 'show help'

set -l keygen "__fish_seen_subcommand_from keygen"
complete -c sandprobe -n $keygen -s o -l out -r -F -d 'prefix of the key files'
complete -c sandprobe -n $keygen -s q -l quiet -d 'do not print the paths'
complete -c sandprobe -n $keygen -l help -d 'show help'

set -l fleet "__fish_seen_subcommand_from fleet"
complete -c sandprobe -n "$fleet; and not __fish_seen_subcommand_from render collect" -a render -d 'render the plan as Jobs'
complete -c sandprobe -n "$fleet; and not __fish_seen_subcommand_from render collect" -a collect -d 'merge the Jobs\' reports into the matrix'
complete -c sandprobe -n $fleet -l plan -r -F -d 'the fleet plan (YAML)'
complete -c sandprobe -n $fleet -s o -l output -r -F -d 'render: DIR for the Jobs; collect: FILE for the matrix'
complete -c sandprobe -n $fleet -l format -x -a 'text json html junit tap' -d 'collect: matrix format'
complete -c sandprobe -n $fleet -l help -d 'show help'
