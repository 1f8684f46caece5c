#!/usr/bin/env bash
# Every command of every man page's EXAMPLES section, run as written from a
# fresh clone under /tmp (build/ on PATH, a fresh $HOME), asserting the exit
# code the page documents: 0 unless a troff comment ".\" example-exit: N"
# (or "N or M" for a verdict either way) before the command says otherwise. ".\" example-setup: CMD" lines prepare
# the command's input (they must exit 0), ".\" example-bound: S" stops a long
# run with SIGINT after S seconds (graceful: the documented exit is the one
# of a stopped run), ".\" example-netns" runs it in a network namespace this
# test creates (only loopback). Each page starts from a clean clone.
# SP_EXAMPLES=PAGE[,PAGE] limits the run to those pages (e.g. doctor,lint).
. "$SP_ROOT/tests/lib/tap.sh"
[ "${SP_SAN:-0}" = 1 ] && skip_na "runs the examples with the normal build"
need git
need bwrap
need unshare
need_root
C=$(mktemp -d /tmp/sp-examples-clone.XXXXXX)
H=$(mktemp -d /tmp/sp-examples-home.XXXXXX)
at_exit "rm -rf '$C' '$H'"
chmod 755 "$C" # as git clone leaves it
(cd "$SP_ROOT" && git ls-files -co --exclude-standard | grep -vE '^build(-san|-fuzz)?/' | tar -cf - -T -) | tar -xf - -C "$C"
mkdir -p "$C/build"
cp "$SP_ROOT/build/sandprobe" "$SP_ROOT/build/sandprobe-doctor" "$C/build/"
git -C "$C" init -q && git -C "$C" add -A && git -C "$C" -c user.name=t -c user.email=t@t commit -qm clone

# one JSON object a line: page, command, exit, setup[], bound, netns
examples=$(/usr/bin/python3 - "$C"/docs/man/*.1 <<'PY'
import json, re, sys
def unescape(t):
    t = t.replace(r"\\", "\x00").replace(r"\e", "\x00").replace(r"\-", "-").replace(r"\&", "")
    t = t.replace(r"\(mu", "x").replace(r"\(aq", "'")
    return t.replace("\x00", "\\")
for path in sys.argv[1:]:
    page = re.sub(r"^sandprobe-?|\.\d$", "", path.rsplit("/", 1)[1]) or "sandprobe"
    sec, inblock, acc, meta = None, False, "", {"exit": "0", "setup": [], "bound": 0, "netns": False}
    n = 0
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith(".SH "):
            sec = line[4:].strip().strip('"')
            continue
        if sec != "EXAMPLES":
            continue
        if line in (".nf", ".EX"):
            inblock = True
            continue
        if line in (".fi", ".EE"):
            inblock = False
            continue
        m = re.match(r'^\.\\" example-(exit|setup|bound|netns)(?::\s*(.*))?$', line)
        if m and inblock:
            k, v = m.group(1), (m.group(2) or "").strip()
            if k == "setup":
                meta["setup"].append(v)
            elif k == "netns":
                meta["netns"] = True
            elif k == "bound":
                meta[k] = int(v)
            else:
                meta[k] = ",".join(re.findall(r"\d", v))
            continue
        if not inblock or line.startswith("."):
            continue
        t = unescape(line)
        t = re.sub(r"\s{2,}#.*$", "", t)
        if re.match(r"^\s*(#|$)", t):
            continue
        if t.endswith("\\"):
            acc += t[:-1]
            continue
        n += 1
        print(json.dumps({"page": page, "n": n, "cmd": re.sub(r"\s+", " ", (acc + t).strip()), **meta}))
        acc, meta = "", {"exit": "0", "setup": [], "bound": 0, "netns": False}
PY
)
# every verb's page has examples
for page in doctor live lint soak verify report gate fleet import keygen atlas; do
	TAP_NAME="sandprobe-$page(1) has an EXAMPLES section with commands" ok grep -q "\"page\": \"$page\"" <<<"$examples"
done

export PATH="$C/build:$PATH" HOME="$H"
only=",${SP_EXAMPLES:-},"
prev=""
while IFS= read -r ex; do
	page=$(jq -r .page <<<"$ex")
	[ "$only" = ",," ] || [[ "$only" == *",$page,"* ]] || continue
	cmd=$(jq -r .cmd <<<"$ex")
	want=$(jq -r .exit <<<"$ex")
	bound=$(jq -r .bound <<<"$ex")
	netns=$(jq -r .netns <<<"$ex")
	name="$page(1) example $(jq -r .n <<<"$ex"): $cmd"
	if [ "$page" != "$prev" ]; then # each page from a clean clone and home
		git -C "$C" clean -fdxq -e /build/ && git -C "$C" checkout -q -- . && rm -rf "${H:?}"/* "$H"/.[!.]* 2>/dev/null
		prev=$page
	fi
	setup_ok=0
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		if ! so=$(cd "$C" && bash -c "$s" 2>&1 </dev/null); then
			_tap_result 1 "$name: setup '$s'" "$so"
			setup_ok=1
		fi
	done < <(jq -r '.setup[]' <<<"$ex")
	[ "$setup_ok" = 0 ] || continue
	run=(bash -c "$cmd")
	[ "$netns" = true ] && run=(unshare --net bash -c "ip link set lo up && $cmd")
	if [ "$bound" -gt 0 ]; then
		# a single command: bash execs it, so SIGINT reaches sandprobe itself
		out=$(cd "$C" && timeout --preserve-status -s INT -k 120 "$bound" "${run[@]}" 2>&1 </dev/null)
	else
		out=$(cd "$C" && timeout 900 "${run[@]}" 2>&1 </dev/null)
	fi
	rc=$?
	if [[ ",$want," == *",$rc,"* ]] && ! grep -qE '^usage:' <<<"$out"; then
		_tap_result 0 "$name (exit $rc)"
	else
		_tap_result 1 "$name (exit $rc, documented $want)" "$(tail -5 <<<"$out")"
	fi
done <<<"$examples"
done_testing
