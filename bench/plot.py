#!/usr/bin/env python3
"""Turns kaio-bench's JSON (kaio-bench --json FILE) into a table or a plot.

  bench/plot.py results.json --table         a Markdown table on stdout
  bench/plot.py results.json --png out.png   KAIO against its peer, per
                                             benchmark (needs matplotlib:
                                             Debian's python3-matplotlib)

Each benchmark reports kaio_<unit> and peer_<unit> throughput (flop/s or
byte/s) and ratio_vs_peer (peer time / KAIO time: above 1, KAIO is faster).
Benchmarks that did not run (no GPU, no cuBLAS) are listed with the reason.
"""

import argparse
import json
import sys


def rows(data):
    """(name, unit, kaio, peer, ratio, error) per benchmark."""
    out = []
    for b in data.get("benchmarks", []):
        name = b.get("run_name") or b.get("name", "?")
        name = name.replace("/iterations:1", "").replace("/manual_time", "")
        if b.get("error_occurred"):
            out.append((name, None, None, None, None, b.get("error_message", "")))
            continue
        unit = next((k[len("kaio_"):] for k in b if k.startswith("kaio_")
                     and k != "kaio_ms"), None)
        if unit is None:
            out.append((name, None, None, None, None, "no kaio_<unit> counter"))
            continue
        out.append((name, unit, b["kaio_" + unit], b.get("peer_" + unit),
                    b.get("ratio_vs_peer"), None))
    return out


def scaled(value, unit):
    scale, prefix = (1e12, "T") if unit == "flop/s" else (1e9, "G")
    return f"{value / scale:.1f} {prefix}{unit}"


def table(data):
    lines = ["| benchmark | KAIO | peer | KAIO / peer |", "|---|---|---|---|"]
    for name, unit, kaio, peer, ratio, error in rows(data):
        if error is not None:
            lines.append(f"| {name} | not measured: {error} | | |")
        else:
            lines.append(f"| {name} | {scaled(kaio, unit)} | "
                         f"{scaled(peer, unit) if peer else '?'} | "
                         f"{f'{ratio * 100:.1f} %' if ratio is not None else '—'} |")
    context = data.get("context", {})
    if context:
        lines.append("")
        lines.append(f"host {context.get('host_name', '?')}, "
                     f"{context.get('date', '?')}")
    return "\n".join(lines)


def plot(data, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    measured = [r for r in rows(data) if r[5] is None]
    if not measured:
        sys.exit("plot.py: nothing was measured (no GPU?); not writing " + path)
    names = [r[0] for r in measured]
    kaio = [r[2] / (1e12 if r[1] == "flop/s" else 1e9) for r in measured]
    peer = [(r[3] or 0) / (1e12 if r[1] == "flop/s" else 1e9) for r in measured]
    fig, ax = plt.subplots(figsize=(max(6, len(names) * 0.9), 5))
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], kaio, width=0.4, label="KAIO")
    ax.bar([x + 0.2 for x in xs], peer, width=0.4, label="peer")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("TFLOP/s or GB/s")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json")
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--png")
    args = parser.parse_args()
    try:
        with open(args.json) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot.py: cannot read {args.json}: {e}")
    if args.table or not args.png:
        print(table(data))
    if args.png:
        plot(data, args.png)


if __name__ == "__main__":
    main()
