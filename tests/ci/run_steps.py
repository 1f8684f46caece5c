#!/usr/bin/python3
"""Run CI definitions here the way their runners would (standard library + yaml).

  run_steps.py github ACTION.yml WORKDIR KEY=VALUE...
      the composite action's steps in order: `run` steps through bash with the
      step's env (${{ inputs.X }} from the inputs' defaults and the KEY=VALUE
      given), GITHUB_ACTION_PATH = the action's directory; `uses` steps are
      not run but their `with` is checked (paths must exist). Prints one JSON
      line per step: {"name", "kind", "rc", "stdout"} and exits 0; checks
      of the file's own consistency print {"error": ...}.
  run_steps.py gitlab TEMPLATE.yml WORKDIR JOB KEY=VALUE...
      a job's before_script and script (extends resolved), with the
      template's variables then KEY=VALUE exported, stopping at the first
      failing line as GitLab does; prints {"job", "rc", "stdout", "junit",
      "paths"} (artifacts after variable expansion).
"""
import json
import os
import re
import subprocess
import sys

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def sub_inputs(s, inputs, errors):
    def one(m):
        e = m.group(1)
        k = re.fullmatch(r"inputs\.([A-Za-z0-9_-]+)", e)
        if not k:
            errors.append(f"unsupported expression {e!r}")
            return ""
        if k.group(1) not in inputs:
            errors.append(f"undeclared input {k.group(1)!r}")
            return ""
        return inputs[k.group(1)]
    return EXPR.sub(one, s) if isinstance(s, str) else s


def condition(expr, inputs, errors):
    """a step's `if`: always(), inputs.X, 'literals', ==, !=, &&, ||, ! (GitHub's subset used here)"""
    e = EXPR.sub(lambda m: m.group(1), expr or "true").strip()
    toks = re.findall(r"always\(\)|success\(\)|inputs\.[A-Za-z0-9_-]+|'[^']*'|==|!=|&&|\|\||!|\(|\)|true|false|\S+", e)
    py = []
    for t in toks:
        if t in ("always()", "success()", "true"):
            py.append("True")
        elif t == "false":
            py.append("False")
        elif t.startswith("inputs."):
            if t[7:] not in inputs:
                errors.append(f"undeclared input {t[7:]!r} in a condition")
            py.append(repr(inputs.get(t[7:], "")))
        elif t.startswith("'"):
            py.append(repr(t[1:-1]))
        elif t in ("==", "!=", "(", ")"):
            py.append(t)
        elif t == "&&":
            py.append("and")
        elif t == "||":
            py.append("or")
        elif t == "!":
            py.append("not")
        else:
            errors.append(f"unsupported token {t!r} in condition {expr!r}")
            return True
    return bool(eval(" ".join(py), {"__builtins__": {}}))


def github(path, work, kv):
    act = yaml.safe_load(open(path))
    errors = []
    if act.get("runs", {}).get("using") != "composite":
        errors.append("runs.using is not composite")
    inputs = {k: str(v.get("default", "")) for k, v in act.get("inputs", {}).items()}
    for k, v in kv.items():
        if k not in inputs:
            errors.append(f"no input named {k!r}")
        inputs[k] = v
    ids = {s.get("id") for s in act["runs"]["steps"] if s.get("id")}
    for name, o in act.get("outputs", {}).items():
        for m in re.finditer(r"steps\.([A-Za-z0-9_-]+)\.outputs", o.get("value", "")):
            if m.group(1) not in ids:
                errors.append(f"output {name} reads step {m.group(1)} that does not exist")
    env0 = dict(os.environ, GITHUB_ACTION_PATH=os.path.dirname(os.path.abspath(path)), GITHUB_ACTIONS="true")
    for st in act["runs"]["steps"]:
        if not condition(st.get("if"), inputs, errors):
            print(json.dumps({"name": st.get("name"), "kind": "run" if "run" in st else "uses", "skipped": True}))
            continue
        if "run" in st:
            if st.get("shell") != "bash":
                errors.append(f"step {st.get('name')}: shell is not bash (composite steps need one)")
            env = dict(env0)
            for k, v in (st.get("env") or {}).items():
                env[k] = sub_inputs(str(v), inputs, errors)
            p = subprocess.run(["bash", "-e", "-c", sub_inputs(st["run"], inputs, errors)], cwd=work, env=env,
                               capture_output=True, text=True, errors="replace")
            print(json.dumps({"name": st.get("name"), "kind": "run", "rc": p.returncode, "stdout": p.stdout,
                              "stderr": p.stderr[-2000:]}))
        else:
            w = {k: sub_inputs(str(v), inputs, errors) for k, v in (st.get("with") or {}).items()}
            missing = [v for k, v in w.items() if k in ("sarif_file", "path") and
                       not os.path.exists(os.path.join(work, v))]
            print(json.dumps({"name": st.get("name"), "kind": "uses", "uses": st["uses"], "with": w,
                              "skipped": False, "missing": missing}))
    for e in errors:
        print(json.dumps({"error": e}))


def gitlab(path, work, job, kv):
    doc = yaml.safe_load(open(path))
    j = dict(doc[job])
    seen = set()
    while "extends" in j:
        base = j.pop("extends")
        if base in seen:
            sys.exit("extends loop")
        seen.add(base)
        b = dict(doc[base])
        for k, v in j.items():  # GitLab deep-merges hashes
            if isinstance(v, dict) and isinstance(b.get(k), dict):
                m = dict(b[k])
                m.update(v)
                b[k] = m
            else:
                b[k] = v
        j = b
    env = dict(os.environ)
    env.update({k: str(v) for k, v in doc.get("variables", {}).items()})
    env.update({k: str(v) for k, v in (j.get("variables") or {}).items()})
    env.update(kv)
    lines = list(j.get("before_script", [])) + list(j.get("script", []))
    out, rc = "", 0
    for line in lines:
        p = subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True, text=True, errors="replace")
        out += p.stdout
        rc = p.returncode
        if rc:
            break
    expand = lambda s: re.sub(r"\$([A-Z_][A-Z0-9_]*)", lambda m: env.get(m.group(1), ""), s)
    arts = j.get("artifacts", {})
    print(json.dumps({"job": job, "rc": rc, "stdout": out,
                      "junit": expand(arts.get("reports", {}).get("junit", "")),
                      "paths": [expand(p) for p in arts.get("paths", [])], "when": arts.get("when"),
                      "rules": j.get("rules")}))


if __name__ == "__main__":
    kind, path, work = sys.argv[1:4]
    if kind == "github":
        github(path, work, dict(a.split("=", 1) for a in sys.argv[4:]))
    else:
        gitlab(path, work, sys.argv[4], dict(a.split("=", 1) for a in sys.argv[5:]))
