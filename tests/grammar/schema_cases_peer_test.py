#!/usr/bin/env python3
"""ogai's own 2020-12 cases (tests/grammar/data/schema_2020_cases.json, read by schema_suite_diff)
hold the verdicts python3-jsonschema's Draft 2020-12 validator gives, formats checked: the hand-written
expectations are checked against a peer."""
import json
import os
import sys

import jsonschema

path = os.path.join(os.environ.get("OGAI_SOURCE_DIR", "."), "tests/grammar/data/schema_2020_cases.json")
bad = 0
for group in json.load(open(path)):
    cls = jsonschema.Draft202012Validator
    cls.check_schema(group["schema"])
    validator = cls(group["schema"], format_checker=cls.FORMAT_CHECKER)
    for test in group["tests"]:
        if validator.is_valid(test["data"]) != test["valid"]:
            print(f"MISMATCH {group['description']!r} / {test['description']!r}: jsonschema says "
                  f"{not test['valid']}")
            bad += 1
print(f"{path}: {'ok' if not bad else str(bad) + ' mismatches'}")
sys.exit(1 if bad else 0)
