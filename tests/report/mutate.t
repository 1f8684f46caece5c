#!/usr/bin/env bash
# sandprobe report on 150 deterministically mutated copies of a fixture
# bundle (bytes replaced, deleted, inserted: tabs, newlines, NUL, 0xff,
# nan, inf, 1e308, -1): every run either renders (exit 0) or refuses with
# one printable line (exit 2); never a crash, sanitizer report or hang.
. "$(dirname "$0")/../lib/tap.sh"
need python3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(sp_tmpdir)
"$here/mkbundle.sh" "$tmp/a" --duration 120 --interval 10
out=$(SANDPROBE_VERIFY=/nonexistent python3 - "$tmp" "$SP_BIN" <<'PY'
import os, random, shutil, subprocess, sys
tmp, binary = sys.argv[1], sys.argv[2]
random.seed(20260101)
files = ["metadata.txt", "resource-samples.tsv", "operations.tsv", "latency.tsv",
         "capability-results.tsv", "faults.tsv", "summary.json"]
codes, bad = {}, []
for i in range(150):
    d = f"{tmp}/m"
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(f"{tmp}/a", d)
    f = random.choice(files)
    p = f"{d}/{f}"
    b = bytearray(open(p, "rb").read())
    for _ in range(random.randint(1, 4)):
        op, pos = random.random(), random.randrange(len(b)) if b else 0
        if op < 0.4 and b:
            b[pos] = random.choice(b"\t\n0-.9aZ=\x00\xff,e")
        elif op < 0.7:
            del b[pos:pos + random.randint(1, 50)]
        else:
            b[pos:pos] = random.choice([b"\t", b"\n", b"1e308", b"nan", b"-1", b"\t\t", b"inf"])
    open(p, "wb").write(b)
    try:
        r = subprocess.run([binary, "report", d, "-o", f"{tmp}/o.html"], capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        bad.append(f"{i} {f}: timeout")
        continue
    err = r.stderr.decode("utf-8", "replace")
    codes[r.returncode] = codes.get(r.returncode, 0) + 1
    lines = err.strip().splitlines()
    if r.returncode not in (0, 2):
        bad.append(f"{i} {f}: exit {r.returncode}: {err[:300]!r}")
    elif r.returncode == 2 and (len(lines) != 1 or any(ord(c) < 32 or ord(c) > 126 for c in lines[0])):
        bad.append(f"{i} {f}: not one printable line: {err[:300]!r}")
    elif r.returncode == 2 and f not in lines[0]:
        bad.append(f"{i} {f}: error does not name the file: {err[:300]!r}")
print(f"codes {sorted(codes.items())}")
for x in bad:
    print("BAD " + x)
PY
)
echo "$out" | sed 's/^/# /'
unlike "$out" '^BAD' "150 mutated bundles: exit 0 or one printable line naming the mutated file with exit 2"
like "$out" 'codes \[\(0, [0-9]+\), \(2, [0-9]+\)\]' "both outcomes occur (the mutations reach the parsers)"
done_testing
