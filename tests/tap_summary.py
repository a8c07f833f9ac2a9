#!/usr/bin/env python3
"""Counts TAP test cases across a meson test run (meson-logs/testlog.json).

Each "ok"/"not ok" line of a test program is one case; "# SKIP" cases are
skipped. A program that exits non-zero or prints fewer cases than its plan
without a matching "not ok" line adds one failed case, so a crash can never
pass silently. So does a sanitizer report ("SUMMARY: ...Sanitizer: ...") in
a program's output, even when the program passed: it may come from a process
it started whose failure it tolerates (a sanitizer build, see
tests/README.md). Prints the failing cases and ends with "N passed, N failed"
(", N skipped" when any). Exits 1 when anything failed.
"""
import json
import re
import sys

CASE = re.compile(r"^(not ok|ok)\b(.*)$")
PLAN = re.compile(r"^1\.\.(\d+)")
SANITIZER = re.compile(r"SUMMARY: \w*Sanitizer: .*")


def main(path):
    passed = failed = skipped = 0
    failures = []
    with open(path, encoding="utf-8", errors="replace") as f:
        runs = [json.loads(line) for line in f if line.strip()]
    for run in runs:
        name = run.get("name", "?")
        seen = run_failed = 0
        plan = None
        for line in (run.get("stdout") or "").splitlines():
            m = CASE.match(line)
            if m:
                seen += 1
                rest = m.group(2)
                if re.search(r"#\s*SKIP", rest, re.I):
                    skipped += 1
                elif m.group(1) == "ok":
                    passed += 1
                else:
                    failed += 1
                    run_failed += 1
                    failures.append(f"{name}: not ok{rest}")
                continue
            p = PLAN.match(line)
            if p:
                plan = int(p.group(1))
        result = run.get("result", "")
        crashed = result not in ("OK", "EXPECTEDFAIL", "SKIP") and run_failed == 0
        short = plan is not None and seen < plan
        if crashed or short or (seen == 0 and result != "SKIP"):
            failed += 1
            failures.append(f"{name}: {result} (exit {run.get('returncode')}, "
                            f"{seen} cases seen, plan {plan})")
        output = (run.get("stdout") or "") + "\n" + (run.get("stderr") or "")
        reports = SANITIZER.findall(output)
        if reports:
            failed += 1
            failures.append(f"{name}: {len(reports)} sanitizer report(s), "
                            f"the first: {reports[0]}")
    for line in failures:
        print("FAIL " + line)
    tail = f", {skipped} skipped" if skipped else ""
    print(f"{passed} passed, {failed} failed{tail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "build/meson-logs/testlog.json"))
