#!/usr/bin/python3
"""Validate JSON documents against a schema of docs/schema/ with Debian's
python3-jsonschema (Draft 2020-12, formats checked where the library can).

  validate_json.py SCHEMA.json DOC.json...   one line per document:
      "ok DOC" or "invalid DOC: <path>: <message>" (every error); exit 1 if any
      document is invalid, 2 if the schema itself is not a valid schema.
No reference leaves the schema file (no network, no other file).
"""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"bad schema {sys.argv[1]}: {e.message}")
        return 2
    v = cls(schema, format_checker=cls.FORMAT_CHECKER)
    bad = 0
    for path in sys.argv[2:]:
        try:
            doc = json.load(open(path, encoding="utf-8"))
        except (ValueError, OSError) as e:
            print(f"invalid {path}: not JSON: {e}")
            bad += 1
            continue
        errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            bad += 1
            for e in errors[:10]:
                where = "/" + "/".join(str(p) for p in e.absolute_path)
                print(f"invalid {path}: {where}: {e.message[:300]}")
        else:
            print(f"ok {path}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
