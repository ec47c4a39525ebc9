#!/usr/bin/env python3
"""Peer check of `tracediff operators` against the PyTorch Profiler TensorBoard plugin.

    python3 -m venv /tmp/tbvenv && /tmp/tbvenv/bin/pip install torch-tb-profiler==0.4.3
    /tmp/tbvenv/bin/python scripts/peer_tb.py dump TRACE            # the plugin's operator table
    /tmp/tbvenv/bin/python scripts/peer_tb.py compare TRACE [TRACEDIFF_BINARY]
    /tmp/tbvenv/bin/python scripts/peer_tb.py modules TRACE [TRACEDIFF_BINARY]   # the module view
    ... --raw            # feed the plugin the trace unchanged (see plugin_ops)

`dump` loads one trace file with the plugin (torch_tb_profiler 0.4.3, pure Python) and prints its
operator view as CSV: name, calls, host self, host total, device self, device total (µs).

`compare` runs `tracediff operators TRACE TRACE --iteration all --format csv` and prints a count
of operators per verdict (equal to 2 ns, or the known reason of the difference, see
docs/peer-check.md and `reason`), then every differing row. The known reasons:
  - the plugin takes every operator of the trace, tracediff those of the selected steps;
  - the plugin merges an op with a same-named only child (key_averages style);
  - the plugin ignores launches it does not know (cuda_driver), so their kernels' time is not
    device time of any op.
Exit status 0 always: it reports, it does not judge.
"""
import csv
import io
import logging
import subprocess
import sys
import tempfile

logging.disable(logging.WARNING)


def plugin_ops(path, raw=False):
    """The plugin's operator table. Unless `raw`, `cuda_runtime` events are renamed to the
    `Runtime` category the plugin knows (it predates the rename, and would otherwise link no
    kernel to any operator and count every launch as self time); `cuda_driver` stays as it is,
    which the plugin ignores."""
    from torch_tb_profiler.profiler.data import RunProfileData

    with tempfile.TemporaryDirectory() as cache:
        _, trace = RunProfileData._preprocess_file(path, cache)
        if not raw:
            for e in trace["traceEvents"]:
                if e.get("cat") == "cuda_runtime":
                    e["cat"] = "Runtime"
        profile = RunProfileData.from_json("worker0", "span", trace)
    rows = {}
    for agg in profile.op_list_groupby_name:
        rows[agg.name] = (
            agg.calls,
            agg.self_host_duration,
            agg.host_duration,
            agg.self_device_duration,
            agg.device_duration,
        )
    return rows


def load_profile(path, raw=False):
    """The plugin's RunProfileData of one trace (see plugin_ops for `raw`)."""
    from torch_tb_profiler.profiler.data import RunProfileData

    with tempfile.TemporaryDirectory() as cache:
        _, trace = RunProfileData._preprocess_file(path, cache)
        if not raw:
            for e in trace["traceEvents"]:
                if e.get("cat") == "cuda_runtime":
                    e["cat"] = "Runtime"
        return RunProfileData.from_json("worker0", "span", trace)


def plugin_modules(path, raw=False):
    """The plugin's module view summed per module class (instance suffix `_k` dropped):
    class -> [occurrences, host duration, device duration] (µs)."""
    from torch_tb_profiler.profiler.module_op import aggegate_module_view

    profile = load_profile(path, raw)
    out = {}

    def walk(stats):
        for st in stats:
            name = st.name.rsplit("_", 1)[0] if st.name.rsplit("_", 1)[-1].isdigit() else st.name
            row = out.setdefault(name, [0, 0.0, 0.0])
            row[0] += st.occurences
            row[1] += st.host_duration
            row[2] += st.device_duration
            walk(st.children)

    walk(aggegate_module_view(profile.tid2tree, profile.events) or [])
    return out


def tracediff_modules(path, binary):
    """`tracediff modules TRACE TRACE --iteration all` summed per module class, the same way."""
    import json

    text = subprocess.run(
        [binary, "modules", path, path, "--iteration", "all", "--format", "json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    out = {}

    def walk(n):
        if n["kind"] == "module":
            row = out.setdefault(n["key"], [0, 0.0, 0.0])
            c = n["control"]
            row[0] += c["calls"]
            row[1] += c["host_total_us"]
            row[2] += c["device_total_us"] or 0.0
        for ch in n["children"]:
            walk(ch)

    walk(json.loads(text))
    return out


def compare_modules(path, binary, raw):
    """Per module class: calls, host and device time against the plugin's module view."""
    ours, theirs = tracediff_modules(path, binary), plugin_modules(path, raw)
    names = sorted(set(ours) | set(theirs))
    equal = [n for n in names if n in ours and n in theirs and ours[n][0] == theirs[n][0]
             and all(abs(ours[n][k] - theirs[n][k]) <= 0.002 * max(1, ours[n][0]) for k in (1, 2))]
    print(f"{path}: {len(names)} module classes, {len(equal)} equal (calls, host, device time)")
    for n in names:
        if n not in equal:
            print(f"  {n}: tracediff {ours.get(n)} plugin {theirs.get(n)}")


def dump(path, raw):
    out = csv.writer(sys.stdout)
    out.writerow(["name", "calls", "host_self", "host_total", "device_self", "device_total"])
    for name, v in sorted(plugin_ops(path, raw).items()):
        out.writerow([name, *v])


def tracediff_ops(path, binary):
    text = subprocess.run(
        [binary, "operators", path, path, "--iteration", "all", "--format", "csv"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows = {}
    for r in csv.DictReader(io.StringIO(text)):
        rows[r["name"]] = tuple(
            float(r[f"control_{m}"]) for m in ["calls", "host_self", "host_total", "device_self", "device_total"]
        )
    return rows


COLUMNS = ["calls", "host_self", "host_total", "device_self", "device_total"]


def reason(a, b, name):
    """The known cause of a row's difference (docs/peer-check.md), from its shape."""
    if a is None:
        return "only-plugin"  # outside every step (tracediff takes the selected steps)
    if b is None:
        if name.startswith(("ProfilerStep#", "Optimizer.", "enumerate(DataLoader)")):
            return "plugin-excludes"  # steps, optimizer and DataLoader spans are not ops there
        return "only-tracediff"
    bad = [k for k in range(5) if abs(a[k] - b[k]) > 0.002]
    if 0 in bad:
        return "merge" if b[0] < a[0] else "outside-steps"
    # Float µs since the epoch: the plugin's times are quantised (0.25 µs at 1.7e15 µs).
    if all(abs(a[k] - b[k]) <= 1.0 * a[0] for k in bad):
        return "float"
    close = [k for k in bad if abs(a[k] - b[k]) > 1.0 * a[0]]
    if close == [1] and a[3] == 0 and a[4] == 0:
        return "host-children"  # children the plugin's tree does not hold (user_annotation)
    if b[3] == 0 and b[4] == 0 and set(close) <= {1, 3, 4}:
        return "no-launch-link"  # the plugin attached no launch (or no kernel) to this op
    if set(close) <= {1, 3, 4} and b[4] < a[4]:
        return "partial-launch-link"  # some launches unknown to the plugin (cuda_driver)
    return "other"


def compare(path, binary, raw):
    ours = tracediff_ops(path, binary)
    theirs = plugin_ops(path, raw)
    names = sorted(set(ours) | set(theirs))
    counts = {}
    diffs = []
    for n in names:
        a, b = ours.get(n), theirs.get(n)
        if a is not None and b is not None and all(abs(a[k] - b[k]) <= 0.002 for k in range(5)):
            counts["equal"] = counts.get("equal", 0) + 1
            continue
        r = reason(a, b, n)
        counts[r] = counts.get(r, 0) + 1
        diffs.append((n, r, a, b))
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"{path}: {len(names)} operators: {summary}")
    for n, r, a, b in diffs:
        print(f"  {n}: {r}\n    tracediff {a}\n    plugin    {b}")


if __name__ == "__main__":
    raw = "--raw" in sys.argv
    argv = [a for a in sys.argv if a != "--raw"]
    if len(argv) >= 3 and argv[1] == "dump":
        dump(argv[2], raw)
    elif len(argv) >= 3 and argv[1] == "modules":
        compare_modules(argv[2], argv[3] if len(argv) > 3 else "target/debug/tracediff", raw)
    elif len(argv) >= 3 and argv[1] == "compare":
        compare(argv[2], argv[3] if len(argv) > 3 else "target/debug/tracediff", raw)
    else:
        sys.exit(__doc__)
