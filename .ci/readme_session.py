"""Runs the curl sessions of README.md and checks every answer against the `# =>` line under it.

"…" in an expected value matches anything; otherwise objects must have the same keys and values.
"""
import json
import pathlib
import subprocess
import sys

ANY = "…"


def session_lines(readme):
    """The lines of every ```bash block inside the curl-session markers, in document order."""
    text = readme.read_text()
    blocks = []
    for region in text.split("<!-- curl-session:start -->")[1:]:
        region = region.split("<!-- curl-session:end -->", 1)[0]
        blocks += [part.split("```", 1)[0] for part in region.split("```bash")[1:]]
    lines, pending = [], ""
    for raw in "\n".join(blocks).splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    return lines


def matches(expected, actual, path="$"):
    if expected == ANY:
        return []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        problems = []
        if set(expected) != set(actual):
            problems.append(f"{path}: keys {sorted(actual)} instead of {sorted(expected)}")
        for key in expected:
            if key in actual:
                problems += matches(expected[key], actual[key], f"{path}.{key}")
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected {len(expected)} items, got {actual!r}"]
        problems = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            problems += matches(e, a, f"{path}[{i}]")
        return problems
    return [] if expected == actual else [f"{path}: expected {expected!r}, got {actual!r}"]


def main():
    lines = session_lines(pathlib.Path(sys.argv[1]))
    checked, failures, last_output = 0, [], None
    for line in lines:
        if line.startswith("curl "):
            result = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=30)
            last_output = result.stdout
        elif line.startswith("# => "):
            expected = json.loads(line[len("# => "):])
            try:
                actual = json.loads(last_output)
            except (TypeError, json.JSONDecodeError):
                failures.append(f"not JSON after a command: {last_output!r}")
                continue
            problems = matches(expected, actual)
            checked += 1
            if problems:
                failures.append("; ".join(problems))
    for failure in failures:
        print("README session mismatch:", failure)
    print(f"README session: {checked} answers checked, {len(failures)} mismatches")
    if failures or checked == 0:
        sys.exit(1)


main()
