"""Runs the curl sessions of the files it is given (README.md, then the documents that continue its
session) and checks every answer against the `# =>` line under it.

All ```bash blocks between the curl-session markers, in the files in the order given, run in order
as one bash script, so shell variables carry over. Values that differ per run are written "…" for a non-empty string (ids,
e_tags) and … without quotes for a positive number (timestamps); "…tail" matches a string ending
in "tail"; anything else must be equal, type included (1 is not true, "1" is not 1), and objects
must have the same keys. An expectation that is not JSON is text, and matches a command whose
output is not JSON and reads the same (so `ls` is expected as 1.manifest, not "1.manifest"). A
command that prints anything must have an expectation.
"""
import json
import pathlib
import subprocess
import sys

ANY = "…"
NUMBER = "\u0001a number that differs per run"
MARK = "<<<lvg-readme-command-done>>>"


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


def expectation(text):
    """The expected value on a `# => ` line: JSON, where … outside a string stands for a number,
    or, when that is not JSON, the text itself (a Text)."""
    json_text, quoted, escaped = [], False, False
    for char in text:
        if quoted:
            quoted = char != '"' or escaped
            escaped = char == "\\" and not escaped
        elif char == '"':
            quoted = True
        elif char == ANY:
            json_text.append(json.dumps(NUMBER))
            continue
        json_text.append(char)
    try:
        return json.loads("".join(json_text))
    except json.JSONDecodeError:
        return Text(text)


class Text(str):
    """An expectation that is plain text."""


def matches(expected, actual, path="$"):
    if expected == NUMBER:
        if isinstance(actual, (int, float)) and not isinstance(actual, bool) and actual > 0:
            return []
        return [f"{path}: expected a positive number that differs per run, got {actual!r}"]
    if expected == ANY:
        if isinstance(actual, str) and actual:
            return []
        return [f"{path}: expected a string that differs per run, got {actual!r}"]
    if isinstance(expected, str) and expected.startswith(ANY):
        tail = expected[len(ANY):]
        if isinstance(actual, str) and actual.endswith(tail) and len(actual) > len(tail):
            return []
        return [f"{path}: expected a string ending in {tail!r}, got {actual!r}"]
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
    same_type = type(expected) is type(actual) or (
        isinstance(expected, (int, float)) and isinstance(actual, (int, float))
        and not isinstance(expected, bool) and not isinstance(actual, bool))
    if same_type and expected == actual:
        return []
    return [f"{path}: expected {expected!r}, got {actual!r}"]


def main():
    lines = [line for name in sys.argv[1:] for line in session_lines(pathlib.Path(name))]
    commands, expectations = [], {}
    for line in lines:
        if line.startswith("# => "):
            expectations[len(commands) - 1] = expectation(line[len("# => "):])
        elif line.strip() and not line.lstrip().startswith("#"):
            commands.append(line)
    script = "".join(f"{command}\nprintf '\\n{MARK}\\n'\n" for command in commands)
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300)
    outputs = result.stdout.split(f"\n{MARK}\n")
    failures = []
    for index, command in enumerate(commands):
        output = outputs[index] if index < len(outputs) else ""
        if index not in expectations and output.strip():
            failures.append(f"{command!r} printed {output.strip()!r} and has no expectation")
    for index, expected in expectations.items():
        output = outputs[index] if index < len(outputs) else ""
        if isinstance(expected, Text):
            if output.strip() != expected:
                failures.append(f"{commands[index]!r} printed {output.strip()!r}, not {expected!r}")
            continue
        try:
            actual = json.loads(output)
        except json.JSONDecodeError:
            failures.append(f"{commands[index]!r} printed {output!r}, not JSON")
            continue
        problems = matches(expected, actual)
        if problems:
            failures.append(f"{commands[index]!r}: " + "; ".join(problems))
    for failure in failures:
        print("README session mismatch:", failure)
    print(f"README session: {len(commands)} commands run, {len(expectations)} answers checked, "
          f"{len(failures)} mismatches")
    if failures or not expectations:
        sys.exit(1)


main()
