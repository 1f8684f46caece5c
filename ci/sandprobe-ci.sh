#!/usr/bin/env bash
# sandprobe in CI: the steps of the GitHub composite action (action.yml) and of
# the GitLab template (ci/gitlab/sandprobe.gitlab-ci.yml), one script for both.
#   sandprobe-ci.sh build     build sandprobe from this checkout unless $SANDPROBE is given
#   sandprobe-ci.sh doctor    run the doctor: JUnit, JSON and text reports in $SANDPROBE_OUT
#   sandprobe-ci.sh lint      lint $SANDPROBE_LINT_FILES: SARIF, JSON and text reports
#   sandprobe-ci.sh verdict   summary (GitHub step summary when there is one); exit 1 when
#                             a step above failed, 2 when one could not run
# doctor and lint record their exit status in $SANDPROBE_OUT/*.status and exit 0,
# so that the reports are uploaded before the verdict step fails the job.
# Settings (environment):
#   SANDPROBE               sandprobe binary (default: sandprobe on PATH, else built here)
#   SANDPROBE_DOCTOR        doctor binary (default: sandprobe-doctor next to SANDPROBE)
#   SANDPROBE_OUT           report directory (default: sandprobe-results)
#   SANDPROBE_PROFILE       doctor profile (default: container); SANDPROBE_POLICY is honoured
#   SANDPROBE_DOCTOR_ARGS   more doctor arguments (word-split), e.g. "-k 'ns or caps'"
#   SANDPROBE_FAIL_ON       doctor: fail or warn (default fail)
#   SANDPROBE_LINT_FILES    files to lint (word-split; none: no lint)
#   SANDPROBE_LINT_FAIL_ON  lint: error, warning or note (default warning)
#   SANDPROBE_ANNOTATE      github: workflow-command annotations (default: github under
#                           GitHub Actions, else none)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
out=${SANDPROBE_OUT:-sandprobe-results}
annotate=${SANDPROBE_ANNOTATE:-}
if [ -z "$annotate" ]; then
	[ "${GITHUB_ACTIONS:-}" = true ] && annotate=github || annotate=none
fi
case $annotate in github | none) ;; *) echo "sandprobe-ci: SANDPROBE_ANNOTATE=$annotate: expected github or none" >&2; exit 2 ;; esac
ann=()
[ "$annotate" = github ] && ann=(--annotate github)

find_sandprobe() {
	if [ -n "${SANDPROBE:-}" ]; then
		printf '%s\n' "$SANDPROBE"
	elif command -v sandprobe >/dev/null 2>&1; then
		command -v sandprobe
	else
		printf '%s\n' "$here/build/sandprobe"
	fi
}
SP=$(find_sandprobe)
DOC=${SANDPROBE_DOCTOR:-$(dirname "$SP")/sandprobe-doctor}

record() { # NAME STATUS
	mkdir -p "$out" && echo "$2" >"$out/$1.status"
}

case ${1:-} in
build)
	if [ -x "$SP" ] && [ -x "$DOC" ]; then
		echo "sandprobe-ci: using $SP"
		exit 0
	fi
	pkgs="make gcc pkg-config libjansson-dev libinih-dev libyaml-dev libssl-dev libmbedtls-dev libseccomp-dev libnghttp2-dev"
	missing=$(for p in $pkgs; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"; done)
	if [ -n "$missing" ]; then
		sudo=
		[ "$(id -u)" = 0 ] || sudo=sudo
		$sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q --no-install-recommends $missing >/dev/null || exit 2
	fi
	make -C "$here" -j"$(nproc)" all >/dev/null || exit 2
	echo "sandprobe-ci: built $here/build/sandprobe"
	;;
doctor)
	mkdir -p "$out"
	eval "extra=(${SANDPROBE_DOCTOR_ARGS:-})"
	common=(--profile "${SANDPROBE_PROFILE:-container}" --fail-on "${SANDPROBE_FAIL_ON:-fail}" "${extra[@]}")
	[ -n "${SANDPROBE_POLICY:-}" ] && common=(--policy "$SANDPROBE_POLICY" --fail-on "${SANDPROBE_FAIL_ON:-fail}" "${extra[@]}")
	"$DOC" "${common[@]}" --format junit -o "$out/doctor.xml" "${ann[@]}"
	rc=$?
	"$DOC" "${common[@]}" --format json -o "$out/doctor.json" -q
	"$DOC" "${common[@]}" >"$out/doctor.txt"
	tail -1 "$out/doctor.txt"
	record doctor "$rc"
	;;
lint)
	files=${SANDPROBE_LINT_FILES:-}
	if [ -z "$files" ]; then
		echo "sandprobe-ci: no SANDPROBE_LINT_FILES: lint skipped"
		exit 0
	fi
	mkdir -p "$out"
	eval "list=($files)"
	fo=(--fail-on "${SANDPROBE_LINT_FAIL_ON:-warning}")
	"$SP" lint "${fo[@]}" "${list[@]}" --format sarif -o "$out/lint.sarif"
	rc=$?
	"$SP" lint "${fo[@]}" "${list[@]}" --format json -o "$out/lint.json" -q
	"$SP" lint "${fo[@]}" "${list[@]}" "${ann[@]}" | tee "$out/lint.txt"
	record lint "$rc"
	;;
verdict)
	worst=0
	lines=("| step | exit | result |" "|---|---|---|")
	for s in doctor lint; do
		[ -f "$out/$s.status" ] || continue
		rc=$(cat "$out/$s.status")
		case $rc in 0) res=pass ;; 1) res=FAIL ;; *) res="could not run" ;; esac
		detail=
		[ -f "$out/$s.txt" ] && detail=$(grep -E '^RESULT:' "$out/$s.txt" | tail -1)
		lines+=("| $s | $rc | $res ${detail:+-- $detail} |")
		if [ "$rc" -gt 1 ] 2>/dev/null; then worst=2; elif [ "$rc" = 1 ] && [ "$worst" -lt 1 ]; then worst=1; fi
	done
	printf '%s\n' "${lines[@]}"
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		{ echo "### sandprobe"; printf '%s\n' "${lines[@]}"; } >>"$GITHUB_STEP_SUMMARY"
	fi
	if [ -n "${GITHUB_OUTPUT:-}" ]; then
		echo "result=$([ "$worst" = 0 ] && echo pass || echo fail)" >>"$GITHUB_OUTPUT"
		echo "report-dir=$out" >>"$GITHUB_OUTPUT"
	fi
	exit "$worst"
	;;
*)
	echo "usage: sandprobe-ci.sh build|doctor|lint|verdict" >&2
	exit 2
	;;
esac
