#!/usr/bin/env bash
# A3S Box evidence bundles of our own making, one per case of A3S's
# soak-evidence-self-test.sh (and a few where sandprobe is stricter), for
# tests/verify/a3s.t. The layout follows what A3S's runners write
# (scripts/host-integration-smoke.sh, deploy/scripts/runtimeclass-soak.sh);
# names, values and times are ours.
#
#   mkcase.sh CASE DIR     write the bundle of CASE (cases.tsv) into DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: mkcase.sh CASE DIR" >&2; exit 2; }
case_name=$1 dir=$2
[ ! -e "$dir" ] || { echo "mkcase.sh: $dir exists" >&2; exit 2; }
mkdir -p "$dir"

T0=2025-06-29
at() { # seconds after 00:00:00 on $T0 -> ISO 8601 UTC
	printf '%sT%02d:%02d:%02dZ' "$T0" $(($1 / 3600)) $(($1 / 60 % 60)) $(($1 % 60))
}
snap() { printf '# a3s-box ps -a\nBOX ID  STATUS\n# a3s-box images\nalpine:3.20\n' >"$dir/$1"; }
# replace the value of key in file (key=value lines)
setkv() { awk -v k="$2" -v v="$3" 'BEGIN { FS = OFS = "=" } $1 == k { print k "=" v; found = 1; next } { print } END { if (!found) print k "=" v }' "$dir/$1" >"$dir/$1.new" && mv "$dir/$1.new" "$dir/$1"; }
delkv() { awk -v k="$2" -F= '$1 != k' "$dir/$1" >"$dir/$1.new" && mv "$dir/$1.new" "$dir/$1"; }
# a column value in a TSV row (1-based data row, or "last")
setcell() {
	awk -F'\t' -v OFS='\t' -v row="$2" -v col="$3" -v val="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; print; next }
		{ line[NR] = $0 } END { for (n = 2; n <= NR; n++) { $0 = line[n]; if ((row == "last" && n == NR) || n - 1 == row) $c = val; print } }' \
		"$dir/$1" >"$dir/$1.new" && mv "$dir/$1.new" "$dir/$1"
}

# ---- host: two iterations of core + bench over two hours ----------------
host_bundle() {
	cat >"$dir/metadata.txt" <<EOF
run_id=20250629T000000Z-4242
started_at=$(at 0)
repo_root=/srv/a3s-box
workspace=/srv/a3s-box/src
git_sha=5f0c6d1e2a3b4c5d6e7f8091a2b3c4d5e6f70812
git_status_short:
host:
Linux soak-host-1 6.1.0-21-amd64 #1 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux
rust:
rustc 1.79.0
a3s_box:
a3s-box 0.9.2
selected_suites=core=1 host=0 linux_run=0 cri=0 bench=1
soak_duration_secs=7200
soak_iterations=0
soak_interval_secs=600
soak_verify_min_duration_secs=0
soak_verify_min_samples=0
soak_verify_min_sample_span_secs=0
soak_verify_max_sample_gap_secs=0
environment:
A3S_BOX=/usr/local/bin/a3s-box
A3S_HOME=/var/lib/a3s-soak
EOF
	cat >"$dir/summary.txt" <<EOF
finished_at=$(at 7230)
result=pass
duration_secs=7230
iterations=2
failed_iterations=0
evidence_dir=/var/lib/a3s-soak/evidence/20250629T000000Z-4242
EOF
	{
		printf 'timestamp\tphase\tshims\tmounts\tbox_dirs\tsocket_dirs\ta3s_home_bytes\n'
		printf '%s\t%s\t0\t2\t0\t0\t1048576\n' "$(at 0)" start
		local t it
		for it in 1 2; do
			t=$(( (it - 1) * 3600 ))
			[ "$it" = 2 ] && t=$((t + 600))
			printf '%s\titeration-%d-before\t0\t2\t0\t0\t1052672\n' "$(at $((t + 5)))" "$it"
			printf '%s\titeration-%d-after-core\t1\t3\t1\t1\t3145728\n' "$(at $((t + 1800)))" "$it"
			printf '%s\titeration-%d-after-bench-leak\t0\t2\t0\t0\t2097152\n' "$(at $((t + 2700 - (it - 1) * 600)))" "$it"
			printf '%s\titeration-%d-after-bench-race\t0\t2\t0\t0\t2097152\n' "$(at $((t + 3600 - (it - 1) * 600)))" "$it"
			printf '%s\titeration-%d-after\t0\t2\t0\t0\t2097152\n' "$(at $((t + 3605 - (it - 1) * 600)))" "$it"
		done
		printf '%s\t%s\t0\t2\t0\t0\t1048576\n' "$(at 7210)" final
	} >"$dir/resource-samples.tsv"
	snap start-cli-snapshot.txt
	snap final-cli-snapshot.txt
	local i
	for i in 1 2; do
		snap "iteration-$i-cli-snapshot.txt"
		printf 'running core suite, iteration %d\ntest result: ok. 212 passed\n' "$i" >"$dir/iteration-$i-core.log"
		printf 'leak bench: 500 boxes, 0 leaked\n' >"$dir/iteration-$i-bench-leak.log"
		printf 'race bench: 64 writers, 0 lost updates\n' >"$dir/iteration-$i-bench-race.log"
	done
}

# ---- cluster: two nodes, smoke DaemonSet, four services, a 3-pod Job ----
cluster_bundle() {
	cat >"$dir/metadata.txt" <<EOF
run_id=20250629T000000Z-rc7
started_at=$(at 0)
repo_root=/srv/a3s-box
namespace=sp-a3s-soak
runtime_class=a3s-box
runtime_class_handler=a3s-box
image=registry.example.invalid/library/alpine:3.20
job_name=sp-churn-rc7
job_completions=3
job_parallelism=3
job_timeout_secs=3600
job_sleep_secs=1
soak_duration_secs=7200
sample_interval_secs=3600
verify_min_duration_secs=0
verify_min_samples=0
verify_min_sample_span_secs=0
verify_max_sample_gap_secs=0
cleanup_timeout_secs=300
skip_smoke=0
skip_complex=0
skip_jobs=0
cleanup=1
cleanup_only=0
dry_run=0
preflight_only=0
git_sha=5f0c6d1e2a3b4c5d6e7f8091a2b3c4d5e6f70812
kubectl_context=soak-cohort-1
EOF
	cat >"$dir/summary.txt" <<EOF
finished_at=$(at 7300)
result=pass
duration_secs=7300
evidence_dir=/srv/a3s-box/evidence/20250629T000000Z-rc7
EOF
	{
		printf 'timestamp\tphase\tselected_nodes\tpods_total\tpods_pending\tpods_running\tpods_succeeded\tpods_failed\tpods_unknown\tpod_restarts\tjob_active\tjob_succeeded\tjob_failed\n'
		printf '%s\tinterval\t2\t2\t0\t2\t0\t0\t0\t0\t0\t0\t0\n' "$(at 0)"
		printf '%s\tinterval\t2\t9\t0\t6\t3\t0\t0\t0\t0\t3\t0\n' "$(at 3600)"
		printf '%s\tinterval\t2\t9\t0\t6\t3\t0\t0\t0\t0\t3\t0\n' "$(at 7200)"
		printf '%s\tfinal\t2\t9\t0\t6\t3\t0\t0\t0\t0\t3\t0\n' "$(at 7260)"
	} >"$dir/resource-samples.tsv"
	printf 'node-a   Ready   <none>   40d   v1.30.2\nnode-b   Ready   <none>   40d   v1.30.2\n' >"$dir/selected-nodes.txt"
	printf 'node-a\nnode-b\n' >"$dir/selected-node-names.txt"
	printf 'node-a\ttrue\tproduction-soak\nnode-b\ttrue\tproduction-soak\n' >"$dir/selected-node-labels.tsv"
	cat >"$dir/runtimeclass.yaml" <<'EOF'
apiVersion: node.k8s.io/v1
handler: a3s-box
kind: RuntimeClass
metadata:
  creationTimestamp: "2025-05-01T00:00:00Z"
  name: a3s-box
scheduling:
  nodeSelector:
    a3s-box.io/runtime: "true"
EOF
	local pods="smoke-a smoke-b cplx-redis-0 cplx-postgres-0 cplx-nginx-0 cplx-python-0 churn-1 churn-2 churn-3"
	local p node
	: >"$dir/final-pod-runtimeclasses.tsv"
	: >"$dir/final-pod-nodes.tsv"
	: >"$dir/final-pod-statuses.tsv"
	for p in $pods; do
		case $p in smoke-b|cplx-postgres-0|cplx-python-0|churn-2) node=node-b ;; *) node=node-a ;; esac
		printf '%s\ta3s-box\n' "$p" >>"$dir/final-pod-runtimeclasses.tsv"
		printf '%s\t%s\n' "$p" "$node" >>"$dir/final-pod-nodes.tsv"
		case $p in churn-*) printf '%s\tSucceeded\t0\n' "$p" ;; *) printf '%s\tRunning\t0\n' "$p" ;; esac >>"$dir/final-pod-statuses.tsv"
	done
	printf 'NAME  READY  STATUS\npod/smoke-a  1/1  Running\n' >"$dir/final-get-all.txt"
	printf 'apiVersion: v1\nitems:\n  - metadata:\n      name: smoke-a\n    spec:\n      runtimeClassName: a3s-box\n' >"$dir/final-pods.yaml"
	printf 'LAST SEEN  TYPE  REASON  OBJECT  MESSAGE\n2m  Normal  Scheduled  pod/smoke-a  assigned\n' >"$dir/events.txt"
	printf 'Normal\tScheduled\tsmoke-a\tSuccessfully assigned sp-a3s-soak/smoke-a to node-a\nNormal\tStarted\tchurn-1\tStarted container churn\n' >"$dir/events.tsv"
	printf 'Name:  smoke-a\nNamespace:  sp-a3s-soak\nRuntime Class Name:  a3s-box\n' >"$dir/describe-pods.txt"
	cat >"$dir/smoke-exec.txt" <<'EOF'
selector=app=a3s-box-runtimeclass-smoke
pod_list_result=pass
pod=smoke-a node=node-a workload=<none>
pod=smoke-b node=node-b workload=<none>
exec_pod=smoke-a node=node-a workload=<none>
A3S_BOX_EXEC_OK smoke-a
x86_64
exec_result=pass pod=smoke-a node=node-a workload=<none>
exec_pod=smoke-b node=node-b workload=<none>
A3S_BOX_EXEC_OK smoke-b
x86_64
exec_result=pass pod=smoke-b node=node-b workload=<none>
EOF
	{
		echo "selector=soak=cplx"
		echo "pod_list_result=pass"
		local w
		for w in redis postgres nginx python; do
			case $w in postgres|python) node=node-b ;; *) node=node-a ;; esac
			echo "pod=cplx-$w-0 node=$node workload=$w"
		done
		for w in redis postgres nginx python; do
			case $w in postgres|python) node=node-b ;; *) node=node-a ;; esac
			echo "exec_pod=cplx-$w-0 node=$node workload=$w"
			echo "A3S_BOX_EXEC_OK cplx-$w-0"
			echo "x86_64"
			echo "exec_result=pass pod=cplx-$w-0 node=$node workload=$w"
		done
	} >"$dir/complex-exec.txt"
	printf 'cplx-redis-0 REDIS_SOAK tick=%s\ncplx-postgres-0 PG_SOAK tick=%s\ncplx-nginx-0 NGINX_SOAK tick=%s\ncplx-python-0 PY_SOAK tick=%s\n' \
		"$(at 60)" "$(at 60)" "$(at 60)" "$(at 60)" >"$dir/complex-logs.txt"
	printf 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: sp-churn-rc7\nspec:\n  template:\n    spec:\n      runtimeClassName: a3s-box\n' >"$dir/job.yaml"
	printf 'a3s-box\n' >"$dir/job-runtimeclass.txt"
	printf 'churn-1  0/1  Completed  0  2h\nchurn-2  0/1  Completed  0  2h\nchurn-3  0/1  Completed  0  2h\n' >"$dir/job-pods.txt"
	printf 'churn-1\tSucceeded\t0\tnode-a\nchurn-2\tSucceeded\t0\tnode-b\nchurn-3\tSucceeded\t0\tnode-a\n' >"$dir/job-pod-statuses.tsv"
	: >"$dir/job-logs.txt"
	for p in 1 2 3; do
		printf 'sp-churn-rc7 A3S_BOX_JOB_START %s churn-%d\nsp-churn-rc7 Linux churn-%d 6.1.0\nsp-churn-rc7 A3S_BOX_JOB_RUNTIME_CLASS=a3s-box\nsp-churn-rc7 A3S_BOX_JOB_DONE %s\n' \
			"$(at $((100 + p)))" "$p" "$p" "$(at $((102 + p)))" >>"$dir/job-logs.txt"
	done
	printf 'namespace=sp-a3s-soak status=not-found\n' >"$dir/post-cleanup-namespace.txt"
	printf 'namespace=sp-a3s-soak status=not-found; no Kubernetes resources remain\n' >"$dir/post-cleanup-get-all.txt"
	printf 'timestamp\tphase\tsmoke_daemonsets\tsmoke_pods\tcomplex_pods\tchurn_jobs\tchurn_pods\n%s\tpost-cleanup\t0\t0\t0\t0\t0\n' "$(at 7290)" \
		>"$dir/post-cleanup-counts.tsv"
}

# ---- the cases ------------------------------------------------------------
case "$case_name" in
host-*) host_bundle ;;
cluster-*|dry-run*|runtimeclass-*) cluster_bundle ;;
*) echo "mkcase.sh: unknown case $case_name" >&2; exit 2 ;;
esac

S=resource-samples.tsv
case "$case_name" in
# host: the base bundle, with verifier flags at and beyond its own values
host-pass|host-min-*|host-max-gap-*|host-duration-at-span) ;;
host-metadata-gate-fail) setkv metadata.txt soak_verify_min_samples 13 ;;
host-duration-shorter-than-samples) setkv summary.txt duration_secs 7149 ;;
host-duration-at-skew) setkv summary.txt duration_secs 7150 ;;
host-missing-timestamp) cut -f2- "$dir/$S" >"$dir/x" && mv "$dir/x" "$dir/$S" ;;
host-non-numeric-sample) setcell $S last shims many ;;
host-bad-timestamp) setcell $S 1 timestamp not-a-timestamp ;;
host-feb30-timestamp) setcell $S 2 timestamp 2025-02-30T00:00:05Z ;;
host-duplicate-final) tail -1 "$dir/$S" >>"$dir/$S" ;;
host-leak-fails) setcell $S last shims 1 ;;
host-leak-boundary) setcell $S 1 shims 1; setcell $S last shims 1 ;;
host-failure-summary)
	cat >"$dir/summary.txt" <<EOF
finished_at=$(at 7230)
result=fail
duration_secs=7230
iterations=2
failed_iterations=1
exit_code=1
failed_at=iteration-2-core
failed_command=run_core_suite
evidence_dir=/var/lib/a3s-soak/evidence/20250629T000000Z-4242
EOF
	;;
host-missing-result) delkv summary.txt result ;;
host-bad-metadata-counter) setkv metadata.txt soak_iterations two ;;
host-bad-selected-suites) setkv metadata.txt selected_suites synthetic ;;
host-no-selected-work) setkv metadata.txt selected_suites "core=0 host=0 linux_run=0 cri=0 bench=0" ;;
host-missing-declared-log) rm "$dir/iteration-2-bench-race.log" ;;
host-missing-snapshot) rm "$dir/iteration-1-cli-snapshot.txt" ;;
host-zero-iterations) setkv summary.txt iterations 0 ;;
host-runner-rehearsal|host-runner-gate)
	# one iteration of the linux-run suite, no bench, no duration
	setkv metadata.txt selected_suites "core=0 host=0 linux_run=1 cri=0 bench=0"
	setkv metadata.txt soak_duration_secs 0
	setkv metadata.txt soak_iterations 1
	setkv metadata.txt soak_interval_secs 0
	[ "$case_name" = host-runner-gate ] && setkv metadata.txt soak_verify_min_samples 3
	printf 'timestamp\tphase\tshims\tmounts\tbox_dirs\tsocket_dirs\ta3s_home_bytes\n%s\tstart\t0\t0\t0\t0\t0\n%s\titeration-1-before\t0\t0\t0\t0\t0\n%s\titeration-1-after-linux-run\t0\t0\t0\t0\t4096\n%s\titeration-1-after\t0\t0\t0\t0\t4096\n%s\tfinal\t0\t0\t0\t0\t4096\n' \
		"$(at 0)" "$(at 1)" "$(at 40)" "$(at 41)" "$(at 42)" >"$dir/$S"
	printf 'finished_at=%s\nresult=pass\nduration_secs=43\niterations=1\nfailed_iterations=0\nevidence_dir=/tmp/soak\n' "$(at 43)" >"$dir/summary.txt"
	rm -f "$dir"/iteration-*
	snap iteration-1-cli-snapshot.txt
	printf 'linux run suite: 18 passed\n' >"$dir/iteration-1-linux-run.log"
	;;
host-runner-gate-failure-diagnostic)
	setkv metadata.txt soak_verify_min_duration_secs 36000
	printf 'finished_at=%s\nresult=fail\nduration_secs=7230\niterations=2\nfailed_iterations=0\nexit_code=1\nfailed_at=verify\nfailed_command=verify-soak-evidence.sh --kind host --min-duration-secs 36000 /var/lib/a3s-soak/evidence\nevidence_dir=/var/lib/a3s-soak/evidence\n' \
		"$(at 7230)" >"$dir/summary.txt"
	;;
host-runner-failure-diagnostic)
	printf 'finished_at=%s\nresult=fail\nduration_secs=7230\niterations=1\nfailed_iterations=1\nexit_code=1\nfailed_at=iteration-1-bench-leak\nfailed_command=run_bench_leak\nevidence_dir=/var/lib/a3s-soak/evidence\n' \
		"$(at 7230)" >"$dir/summary.txt"
	;;
# stricter than A3S
host-claim-beyond-samples)
	# the summary claims two hours, the samples cover one minute
	printf 'timestamp\tphase\tshims\tmounts\tbox_dirs\tsocket_dirs\ta3s_home_bytes\n%s\tstart\t0\t2\t0\t0\t1\n%s\tfinal\t0\t2\t0\t0\t1\n' "$(at 0)" "$(at 60)" >"$dir/$S"
	setkv summary.txt duration_secs 7200
	;;
host-space-timestamp) setcell $S 2 timestamp "2025-06-29 00:00:05" ;;
host-start-not-first) setcell $S 1 phase iteration-1-before; setcell $S 2 phase start ;;
host-conflicting-result) printf 'result=fail\n' >>"$dir/summary.txt" ;;
host-future-samples) setcell $S last timestamp 2099-01-01T00:00:00Z; setkv summary.txt duration_secs 2400000000 ;;
host-before-started-at) setkv metadata.txt started_at "$(at 3)" ;;
host-claims-g2) printf 'profile=G2\n' >>"$dir/metadata.txt" ;;
host-rss-climb)
	awk -F'\t' -v OFS='\t' 'NR == 1 { print $0, "daemon_rss_bytes"; next } { print $0, 50000000 + (NR - 2) * 20000000 }' "$dir/$S" >"$dir/x" && mv "$dir/x" "$dir/$S" ;;

# cluster
cluster-pass|cluster-min-*|cluster-max-gap-*) ;;
cluster-metadata-gate-fail) setkv metadata.txt verify_min_samples 5 ;;
cluster-bad-skip-flag) setkv metadata.txt skip_smoke maybe ;;
cluster-duration-shorter-than-samples) setkv summary.txt duration_secs 7199 ;;
cluster-duration-at-skew) setkv summary.txt duration_secs 7200 ;;
cluster-no-cleanup) setkv metadata.txt cleanup 0; rm "$dir"/post-cleanup-* ;;
cluster-cleanup-missing-counts) rm "$dir/post-cleanup-counts.tsv" ;;
cluster-cleanup-nonzero) setcell post-cleanup-counts.tsv 1 smoke_pods 1 ;;
cluster-cleanup-duplicate-counts) tail -1 "$dir/post-cleanup-counts.tsv" >>"$dir/post-cleanup-counts.tsv" ;;
cluster-cleanup-kubectl-error) printf 'Error from server (ServiceUnavailable): the server is currently unable to handle the request\n' >"$dir/post-cleanup-get-all.txt" ;;
cluster-cleanup-bad-timestamp) setcell post-cleanup-counts.tsv 1 timestamp not-a-timestamp ;;
cluster-cleanup-early-timestamp) setcell post-cleanup-counts.tsv 1 timestamp "$(at 7259)" ;;
cluster-cleanup-at-final) setcell post-cleanup-counts.tsv 1 timestamp "$(at 7260)" ;;
cluster-missing-timestamp) cut -f2- "$dir/$S" >"$dir/x" && mv "$dir/x" "$dir/$S" ;;
cluster-failure-summary)
	printf 'finished_at=%s\nresult=fail\nduration_secs=7300\nexit_code=17\nfailed_at=runtimeclass-soak.sh:412\nfailed_command=kubectl get runtimeclass a3s-box\nevidence_dir=/srv/a3s-box/evidence\n' "$(at 7300)" >"$dir/summary.txt" ;;
cluster-missing-job-logs) rm "$dir/job-logs.txt" ;;
cluster-missing-job-log-marker) grep -v A3S_BOX_JOB_DONE "$dir/job-logs.txt" >"$dir/x"; mv "$dir/x" "$dir/job-logs.txt" ;;
cluster-incomplete-job-log-count) head -8 "$dir/job-logs.txt" >"$dir/x"; mv "$dir/x" "$dir/job-logs.txt" ;;
cluster-extra-job-log-count) printf 'sp-churn-rc7 A3S_BOX_JOB_DONE %s\n' "$(at 200)" >>"$dir/job-logs.txt" ;;
cluster-job-logs-kubectl-error) printf 'error: timed out waiting for the log stream\n' >"$dir/job-logs.txt" ;;
cluster-missing-events-tsv) rm "$dir/events.tsv" ;;
cluster-kubectl-error-artifact) printf 'The connection to the server 10.0.0.1:6443 was refused\n' >"$dir/final-get-all.txt" ;;
cluster-job-kubectl-error-artifact) printf 'Error from server (InternalError): an error on the server\n' >"$dir/job-pods.txt" ;;
cluster-missing-job-pod-statuses) rm "$dir/job-pod-statuses.tsv" ;;
cluster-incomplete-job-pod-statuses) head -2 "$dir/job-pod-statuses.tsv" >"$dir/x"; mv "$dir/x" "$dir/job-pod-statuses.tsv" ;;
cluster-bad-job-pod-phase) sed -i 's/^churn-2\tSucceeded/churn-2\tRunning/' "$dir/job-pod-statuses.tsv" ;;
cluster-restarted-job-pod) sed -i 's/^churn-2\tSucceeded\t0/churn-2\tSucceeded\t2/' "$dir/job-pod-statuses.tsv" ;;
cluster-unselected-job-pod) sed -i 's/\tnode-b$/\tnode-z/' "$dir/job-pod-statuses.tsv" ;;
cluster-duplicate-job-pod) sed -i 's/^churn-3\t/churn-1\t/' "$dir/job-pod-statuses.tsv" ;;
cluster-job-pod-not-final) sed -i 's/^churn-3\t/churn-9\t/' "$dir/job-pod-statuses.tsv" ;;
cluster-warning-event) printf 'Warning\tBackOff\tcplx-redis-0\tBack-off restarting failed container\n' >>"$dir/events.tsv" ;;
cluster-missing-selected-nodes) rm "$dir/selected-node-names.txt" ;;
cluster-missing-selected-nodes-wide) rm "$dir/selected-nodes.txt" ;;
cluster-missing-selected-node-labels) rm "$dir/selected-node-labels.tsv" ;;
cluster-bad-selected-node-label) sed -i 's/^node-b\ttrue\tproduction-soak/node-b\ttrue\tcanary/' "$dir/selected-node-labels.tsv" ;;
cluster-mismatched-selected-node-label) sed -i 's/^node-b\t/node-c\t/' "$dir/selected-node-labels.tsv" ;;
cluster-missing-smoke-exec) rm "$dir/smoke-exec.txt" ;;
cluster-missing-smoke-exec-node) grep -v 'smoke-b' "$dir/smoke-exec.txt" >"$dir/x"; mv "$dir/x" "$dir/smoke-exec.txt" ;;
cluster-smoke-exec-not-final) sed -i 's/smoke-b/smoke-x/g' "$dir/smoke-exec.txt" ;;
cluster-failed-complex-exec) sed -i 's/^exec_result=pass pod=cplx-nginx-0/exec_result=fail pod=cplx-nginx-0/' "$dir/complex-exec.txt" ;;
cluster-missing-complex-workload) grep -v 'cplx-python' "$dir/complex-exec.txt" >"$dir/x"; mv "$dir/x" "$dir/complex-exec.txt" ;;
cluster-complex-exec-not-final) sed -i 's/cplx-redis-0/cplx-redis-7/g' "$dir/complex-exec.txt" ;;
cluster-missing-complex-log-marker) grep -v NGINX_SOAK "$dir/complex-logs.txt" >"$dir/x"; mv "$dir/x" "$dir/complex-logs.txt" ;;
cluster-misattributed-complex-log) sed -i 's/^cplx-nginx-0 NGINX_SOAK/cplx-redis-0 NGINX_SOAK/' "$dir/complex-logs.txt" ;;
cluster-complex-logs-kubectl-error) printf 'error: a container name must be specified\n' >"$dir/complex-logs.txt" ;;
cluster-missing-runtimeclass-object) rm "$dir/runtimeclass.yaml" ;;
cluster-wrong-runtimeclass-name) sed -i 's/^  name: a3s-box/  name: runc-box/' "$dir/runtimeclass.yaml" ;;
cluster-wrong-runtimeclass-handler) sed -i 's/^handler: a3s-box/handler: runc/' "$dir/runtimeclass.yaml" ;;
cluster-missing-runtimeclass-selector) head -6 "$dir/runtimeclass.yaml" >"$dir/x"; mv "$dir/x" "$dir/runtimeclass.yaml" ;;
cluster-wrong-runtimeclass-selector) sed -i 's/a3s-box.io\/runtime: "true"/a3s-box.io\/runtime: "false"/' "$dir/runtimeclass.yaml" ;;
cluster-selected-node-count-mismatch) printf 'node-c\n' >>"$dir/selected-node-names.txt" ;;
cluster-duplicate-selected-node) sed -i 's/^node-b$/node-a/' "$dir/selected-node-names.txt" ;;
cluster-truncated-runtime-rows) sed -i '$d' "$dir/final-pod-runtimeclasses.tsv" ;;
cluster-truncated-node-rows) sed -i '$d' "$dir/final-pod-nodes.tsv" ;;
cluster-duplicate-runtime-name) sed -i 's/^churn-3\t/churn-2\t/' "$dir/final-pod-runtimeclasses.tsv" ;;
cluster-duplicate-node-name) sed -i 's/^churn-3\t/churn-2\t/' "$dir/final-pod-nodes.tsv" ;;
cluster-mismatched-pod-names) sed -i 's/^churn-3\t/churn-8\t/' "$dir/final-pod-nodes.tsv" ;;
cluster-truncated-status-rows) sed -i '$d' "$dir/final-pod-statuses.tsv" ;;
cluster-duplicate-status-name) sed -i 's/^churn-3\t/churn-2\t/' "$dir/final-pod-statuses.tsv" ;;
cluster-mismatched-status-names) sed -i 's/^smoke-b\t/smoke-q\t/' "$dir/final-pod-statuses.tsv" ;;
cluster-bad-pod-phase) sed -i 's/^cplx-nginx-0\tRunning/cplx-nginx-0\tPending/' "$dir/final-pod-statuses.tsv" ;;
cluster-bad-pod-restart) sed -i 's/^cplx-nginx-0\tRunning\t0/cplx-nginx-0\tRunning\t0,1/' "$dir/final-pod-statuses.tsv" ;;
cluster-no-final-pods) setcell $S last pods_total 0 ;;
cluster-missing-pod-runtime) sed -i 's/^smoke-a\ta3s-box/smoke-a\t<none>/' "$dir/final-pod-runtimeclasses.tsv" ;;
cluster-missing-job-runtime) printf '<none>\n' >"$dir/job-runtimeclass.txt" ;;
cluster-unselected-node) sed -i 's/^churn-3\tnode-a/churn-3\tnode-q/' "$dir/final-pod-nodes.tsv" ;;
cluster-missing-pod-node) sed -i 's/^churn-3\tnode-a/churn-3\t<none>/' "$dir/final-pod-nodes.tsv" ;;
cluster-final-pending) setcell $S last pods_pending 1 ;;
cluster-final-unknown) setcell $S last pods_unknown 1 ;;
cluster-final-active-job) setcell $S last job_active 1 ;;
cluster-pod-restarts) setcell $S 2 pod_restarts 1 ;;
cluster-non-numeric-sample) setcell $S 2 pods_pending many ;;
cluster-non-monotonic-timestamp) setcell $S 2 timestamp "$(at 7201)" ;;
cluster-duplicate-final) tail -1 "$dir/$S" >>"$dir/$S" ;;
cluster-bad-tsv) printf 'timestamp\tphase\tselected_nodes\tpods_total\tpods_failed\tjob_succeeded\n%s\tfinal\t2\t9\t0\t3\n' "$(at 7260)" >"$dir/$S" ;;
cluster-final-not-last) setcell $S 3 phase final; setcell $S 4 phase interval ;;
cluster-samples-in-future)
	setcell $S last timestamp 2099-01-01T00:00:00Z
	setcell post-cleanup-counts.tsv 1 timestamp 2099-01-01T00:00:30Z
	setkv summary.txt duration_secs 2400000000 ;;
cluster-conflicting-dry-run) printf 'dry_run=1\n' >>"$dir/metadata.txt" ;;
# runner outputs
dry-run-*|runtimeclass-dry-run)
	# --dry-run writes its metadata (and the Job manifest) only
	find "$dir" -mindepth 1 ! -name metadata.txt -delete
	setkv metadata.txt dry_run 1
	printf 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: sp-churn-rc7\n' >"$dir/churn-job.yaml"
	;;
runtimeclass-preflight)
	# --preflight-only: RuntimeClass and nodes, one preflight sample, no workload
	setkv metadata.txt preflight_only 1
	setkv metadata.txt cleanup 0
	rm -f "$dir"/final-* "$dir"/events.* "$dir"/describe-pods.txt "$dir"/*exec.txt "$dir"/job* "$dir"/complex-logs.txt "$dir"/post-cleanup-*
	printf 'selected_nodes=2\n' >"$dir/preflight.txt"
	printf 'timestamp\tphase\tselected_nodes\tpods_total\tpods_pending\tpods_running\tpods_succeeded\tpods_failed\tpods_unknown\tpod_restarts\tjob_active\tjob_succeeded\tjob_failed\n%s\tpreflight\t2\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n' \
		"$(at 5)" >"$dir/$S"
	printf 'finished_at=%s\nresult=preflight\nduration_secs=6\nselected_nodes=2\nevidence_dir=/srv/a3s-box/evidence\n' "$(at 6)" >"$dir/summary.txt"
	;;
runtimeclass-cleanup-only)
	# --cleanup-only: evidence collected around a cleanup, result=cleanup
	setkv metadata.txt cleanup_only 1
	printf 'finished_at=%s\nresult=cleanup\nduration_secs=40\nevidence_dir=/srv/a3s-box/evidence\n' "$(at 40)" >"$dir/summary.txt"
	;;
runtimeclass-skip-jobs)
	# --skip-jobs: smoke and complex workloads only
	setkv metadata.txt skip_jobs 1
	delkv metadata.txt job_completions
	rm -f "$dir"/job*
	for f in final-pod-runtimeclasses.tsv final-pod-nodes.tsv final-pod-statuses.tsv; do
		grep -v '^churn-' "$dir/$f" >"$dir/x"; mv "$dir/x" "$dir/$f"
	done
	awk -F'\t' -v OFS='\t' 'NR > 1 { $4 = $4 > 6 ? 6 : $4; $7 = 0; $12 = 0 } { print }' "$dir/$S" >"$dir/x" && mv "$dir/x" "$dir/$S"
	grep -v churn "$dir/events.tsv" >"$dir/x"; mv "$dir/x" "$dir/events.tsv"
	;;
runtimeclass-gate-failure-diagnostic)
	printf 'finished_at=%s\nresult=fail\nduration_secs=7300\nexit_code=1\nfailed_at=verify\nfailed_command=verify-soak-evidence.sh --kind cluster --min-duration-secs 36000 /srv/a3s-box/evidence\nevidence_dir=/srv/a3s-box/evidence\n' \
		"$(at 7300)" >"$dir/summary.txt"
	setkv metadata.txt verify_min_duration_secs 36000
	;;
runtimeclass-failure-diagnostic)
	# the RuntimeClass could not be read: failure summary, evidence collected anyway
	printf 'finished_at=%s\nresult=fail\nduration_secs=3\nexit_code=17\nfailed_at=preflight\nfailed_command=kubectl get runtimeclass a3s-box\nevidence_dir=/srv/a3s-box/evidence\n' \
		"$(at 3)" >"$dir/summary.txt"
	printf 'Error from server (NotFound): runtimeclasses.node.k8s.io "a3s-box" not found\n' >"$dir/runtimeclass.yaml"
	;;
*) echo "mkcase.sh: unknown case $case_name" >&2; exit 2 ;;
esac
