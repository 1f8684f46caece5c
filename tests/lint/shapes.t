#!/usr/bin/env bash
# The shapes real tools write (fixtures/shapes/, see regen.py there): for each,
# a file that must raise its rule and a hardened one of the same shape that
# must raise nothing at all, both linted without an input error. Then the
# shapes generated here: more than 4,096 documents, and a malformed file that
# does not stop the others.
. "$(dirname "$0")/../lib/tap.sh"
need jq
FIX=$(cd "$(dirname "$0")/fixtures/shapes" && pwd)
T=$(sp_tmpdir)

while read -r name rule; do
	trig=$(ls "$FIX/$name".trigger.*)
	clean=$(ls "$FIX/$name".clean.*)
	"$SP_BIN" lint --format json --fail-on note "$trig" >"$T/t.json" 2>"$T/t.err"
	rc=$?
	got=$(jq -r --arg r "$rule" '[.findings[] | select(.rule == $r)] | length' "$T/t.json")
	bad=$(jq -r '[.findings[] | select(.rule == "lint.input_invalid") | .message] | join("; ")' "$T/t.json")
	if [ "$rc" = 1 ] && [ "${got:-0}" -ge 1 ] && [ -z "$bad" ]; then
		_tap_result 0 "$name: the trigger raises $rule"
	else
		_tap_result 1 "$name: the trigger raises $rule" "exit $rc; $(jq -c '[.findings[].rule]' "$T/t.json" 2>&1) $(cat "$T/t.err")"
	fi
	"$SP_BIN" lint --format json --fail-on note "$clean" >"$T/c.json" 2>"$T/c.err"
	rc=$?
	n=$(jq '.findings | length' "$T/c.json")
	if [ "$rc" = 0 ] && [ "$n" = 0 ]; then
		_tap_result 0 "$name: the hardened file of the same shape raises nothing"
	else
		_tap_result 1 "$name: the hardened file of the same shape raises nothing" \
			"exit $rc; $(jq -c '[.findings[] | "\(.rule)@\(.line)"]' "$T/c.json" 2>&1) $(cat "$T/c.err")"
	fi
	kind=$(jq -r '.files[0].kind' "$T/c.json")
	case $name in
	*compose*) want=compose ;;
	oci_*) want=oci ;;
	*) want=kube ;;
	esac
	is "$kind" "$want" "$name: detected as $want"
done <"$FIX/SHAPES"

# the trigger of a List item is placed in the item
j=$("$SP_BIN" lint --format json "$FIX/list.trigger.yaml")
is "$(jq -r '[.findings[] | select(.rule == "kube.privileged") | .pointer][0]' <<<"$j")" \
	"/items/0/spec/containers/0/securityContext/privileged" "a List item's finding points into the item"
line=$(jq -r '[.findings[] | select(.rule == "kube.privileged") | .line][0]' <<<"$j")
like "$(sed -n "${line}p" "$FIX/list.trigger.yaml")" "privileged: true" "and its line is the privileged: true line"
# JSON: the finding's line is the member's line
j=$("$SP_BIN" lint --format json "$FIX/json_stream.trigger.json")
line=$(jq -r '[.findings[] | select(.rule == "kube.privileged") | .line][0]' <<<"$j")
like "$(sed -n "${line}p" "$FIX/json_stream.trigger.json")" '"privileged": true' \
	"JSON objects one after another: the second object's finding is on its own line ($line)"
# merge keys: the finding is where the merged value was written (the anchor)
j=$("$SP_BIN" lint --format json "$FIX/merge_compose.trigger.yaml")
line=$(jq -r '[.findings[] | select(.rule == "compose.privileged") | .line][0]' <<<"$j")
like "$(sed -n "${line}p" "$FIX/merge_compose.trigger.yaml")" "privileged: true" "a merged value is located at its definition"
# extends: the service that extends is named
like "$(jq -r '[.findings[] | select(.rule == "compose.cap_add") | .message] | join(" ")' \
	<("$SP_BIN" lint --format json "$FIX/compose_extends.trigger.yaml"))" "service 'agent' adds SYS_ADMIN" \
	"extends: the extending service's own setting is reported"
unlike "$("$SP_BIN" lint "$FIX/compose_extends.clean.yaml")" "agent" "extends: the base's hardening counts for the service"

# more than 4,096 documents, the last one privileged: read to the end
{
	for i in $(seq 1 5000); do sed "s/name: agent/name: agent-$i/" "$FIX/helm.clean.yaml"; done
	sed 's/name: agent/name: last/' "$FIX/helm.trigger.yaml"
} >"$T/many.yaml"
docs=$(grep -c '^kind: Pod' "$T/many.yaml")
"$SP_BIN" lint --format json --fail-on note "$T/many.yaml" >"$T/many.json"
is "$?" 1 "$docs documents: exit 1 (the last one is privileged)"
line=$(jq -r '[.findings[] | select(.rule == "kube.privileged") | .line][0]' "$T/many.json")
is "$(jq '.findings | length' "$T/many.json"):$(sed -n "${line}p" "$T/many.yaml" | tr -d ' ')" "1:privileged:true" \
	"$docs documents: exactly one finding, on the last document's privileged line ($line)"

# a JSON List is read item by item: memory is the text plus about one item
# (not meaningful under ASan, whose shadow memory dwarfs it)
if [ "${SP_SAN:-0}" != 1 ] && [ -x /usr/bin/time ]; then
	python3 - "$FIX/json_pod.clean.json" "$FIX/json_pod.trigger.json" "$T/list.json" <<'PY'
import json, sys
clean, trig = (json.load(open(p)) for p in sys.argv[1:3])
items = [clean] * 6000 + [trig]
json.dump({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}, open(sys.argv[3], "w"), indent=4)
PY
	size_kib=$(( $(stat -c %s "$T/list.json") / 1024 ))
	/usr/bin/time -f %M -o "$T/rss" "$SP_BIN" lint --format json "$T/list.json" >"$T/list.out"
	rss=$(cat "$T/rss")
	is "$(jq -r '[.findings[].rule] | join(" ")' "$T/list.out")" "kube.privileged" "a 6,001-item JSON List: the one privileged item is found"
	TAP_NAME="a $((size_kib / 1024)) MiB JSON List: peak RSS $((rss / 1024)) MiB, under the text plus 16 MiB" \
		ok test "$rss" -lt $((size_kib + 16384))
fi

# a document with a type error is reported where it is, and the next one is linted
{
	cat "$FIX/helm.clean.yaml"
	printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: broken}\nspec:\n  containers: {name: x}\n---\n'
	cat "$FIX/helm.trigger.yaml"
} >"$T/mixed.yaml"
"$SP_BIN" lint --format json "$T/mixed.yaml" >"$T/mixed.json" 2>"$T/mixed.err"
is "$?" 2 "a document with a type error: exit 2"
is "$(jq -r '[.findings[].rule] | unique | join(" ")' "$T/mixed.json")" "kube.privileged lint.input_invalid" \
	"the broken document is an input error and the next one is still linted"
like "$(cat "$T/mixed.err")" "mixed.yaml:[0-9]+:[0-9]+: /spec/containers: expected a sequence" "stderr names the broken document"
done_testing
