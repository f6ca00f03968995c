#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The report of bench/run-all.sh: issue bars, tables and plots.

    report.py report OUT_DIR [--doc docs/performance.md]
        Reads the raw files run-all.sh wrote in OUT_DIR, writes
        OUT_DIR/summary.md (one table per bar: the measured ratio, the bar,
        met or not) and OUT_DIR/plots/*.png (gnuplot: per-layer ratios against
        oneDNN and PyTorch, thread scaling), and with --doc replaces the block
        between the "run-all:begin" and "run-all:end" markers of that file
        with the summary (plots linked relative to the doc).
    report.py near CONV_FILE SHAPES
        Prints "DIR KEY=VALUE..." for each convolution cell of CONV_FILE whose
        ratio lies within 10% of its bar, for run-all.sh to run again.

Ratios are peer time / FreeDNN time (> 1: FreeDNN is faster).  Where a cell
was rerun (CONV.rerunN.txt) the median of its runs is used.
"""
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys

CONV_RE = re.compile(r"^(\S+)\s+mb=(\d+)\s+(fwd|bwd_d|bwd_w)\s+algo=(\S+)\s+([\d.]+) ms\s+([\d.]+) GFLOP/s"
                     r"(?:.*?onednn\s+([\d.]+) ms ratio ([\d.]+))?")
RNN_RE = re.compile(r"^(\S.*?)\s+threads=(\d+)\s+FP32\s+([\d.]+) ms.*?BF16\s+([\d.]+) ms"
                    r".*?bf16-speedup ([\d.]+)x(?:\s+(oneDNN|PyTorch)-FP32\s+([\d.]+) ms.*?(onednn|torch)-ratio ([\d.]+)x)?")
NET_RE = re.compile(r"^(\S+) (train|infer) mb=(\d+) threads=(\d+) FreeDNN ([\d.]+) ms PyTorch ([\d.]+) ms "
                    r"oneDNN ([\d.]+) ms torch-ratio ([\d.]+) onednn-ratio ([\d.]+)")
RSS_RE = re.compile(r"^# (FreeDNN|PyTorch|oneDNN)\s+[\d.]+ ms.*peak RSS (\d+) MiB")
PEAK_RE = re.compile(r"FMA peak \(zmm loop\) ([\d.]+) GFLOP/s")

# The 3x3 layers (item 2), the dir=fwd,bwd lines (item 3).
BWD_LINES = ("r50_res2_3x3_64", "r50_res3_3x3s2_128", "r50_res4_1x1_1024_256", "r50_res5_3x3_512")


def read(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError:
        return []


def conv_cells(path):
    """{(name, mb, dir): (ours_ms, theirs_ms, gflops)} with reruns folded in (medians)."""
    runs = {}
    for p in [path] + sorted(glob.glob(path[:-4] + ".rerun*.txt")):
        for line in read(p):
            m = CONV_RE.match(line)
            if m:
                key = (m.group(1), int(m.group(2)), m.group(3))
                # no oneDNN side (HALF runs): its time is NaN
                theirs = float(m.group(7)) if m.group(7) else float("nan")
                runs.setdefault(key, []).append((float(m.group(5)), theirs, float(m.group(6))))
    cells = {}
    for key, rs in runs.items():
        cells[key] = tuple(statistics.median(r[i] for r in rs) for i in range(3))
    return cells


RT_RE = re.compile(r" rt=(\d+),(\d+) ns")


def placement_counts(out):
    """Per-layer rows of the 2-thread files by the vCPU placement they ran in
    (freednn-bench's rt=A,B: both round trips < 250 ns close, both > 350 far;
    the thresholds of the 2-core Zen 5 host, docs/performance.md session 15)."""
    n = {"close": 0, "far": 0, "mixed": 0}
    for p in glob.glob(os.path.join(out, "*_t2*.txt")):
        for line in read(p):
            m = RT_RE.search(line)
            if m:
                a, b = int(m.group(1)), int(m.group(2))
                n["close" if a < 250 and b < 250 else "far" if a > 350 and b > 350 else "mixed"] += 1
    return n


def ratio(cell):
    return cell[1] / cell[0] if cell[0] > 0 else 0.0


def bar_of(name, direction, layout):
    """The issue #19 bar of one convolution cell."""
    if name.startswith("mbv") or "_dw_" in name:
        return 1.0
    if direction != "fwd" and name in BWD_LINES:
        return 1.1
    if layout == "nhwc":
        return 1.2
    return 1.0


def fmt(x, bar=None):
    if x is None:
        return "-"
    s = f"{x:.2f}"
    return f"**{s}**" if bar is not None and x >= bar else s


def met(x, bar):
    return "met" if x is not None and x >= bar else "not met"


def set_ratio(cells, pred):
    ours = sum(c[0] for k, c in cells.items() if pred(k))
    theirs = sum(c[1] for k, c in cells.items() if pred(k))
    return theirs / ours if ours > 0 else None


# ---- plots ----------------------------------------------------------------

def gnuplot_bars(png, title, labels, series, bar=None, ylabel="peer time / FreeDNN time"):
    """A clustered bar chart: labels on x, one bar per (series name, values)."""
    if shutil.which("gnuplot") is None or not labels:
        return False
    dat = png[:-4] + ".dat"
    with open(dat, "w") as f:
        for i, lab in enumerate(labels):
            f.write(lab.replace(" ", "_") + " " + " ".join(f"{vals[i]:.4f}" for _, vals in series) + "\n")
    cols = " , ".join(f"'{dat}' using {j + 2}:xtic(1) title '{name}'" for j, (name, _) in enumerate(series))
    width = max(800, 18 * len(labels) * max(1, len(series)) + 200)
    script = f"""
set terminal png size {width},600 font ',9' noenhanced
set output '{png}'
set bmargin 16
set rmargin 10
set title '{title}'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -60 scale 0
set ylabel '{ylabel}'
set yrange [0:*]
set grid ytics
set key top left
"""
    if bar is not None:
        script += f"set arrow from graph 0, first {bar} to graph 1, first {bar} nohead lc rgb 'red' dt 2 lw 2\n"
    script += f"plot {cols}\n"
    subprocess.run(["gnuplot"], input=script, text=True, check=False, stderr=subprocess.DEVNULL)
    os.remove(dat)
    return os.path.exists(png)


# ---- the report -----------------------------------------------------------

def report(out, doc):
    lines = []
    plots = os.path.join(out, "plots")
    os.makedirs(plots, exist_ok=True)
    made = []

    def plot(name, *args, **kw):
        png = os.path.join(plots, name + ".png")
        if gnuplot_bars(png, *args, **kw):
            made.append(png)
            return png
        return None

    machine = read(os.path.join(out, "machine.txt"))
    peak = None
    for line in read(os.path.join(out, "gemm.txt")):
        m = PEAK_RE.search(line)
        if m:
            peak = float(m.group(1))
    lines += ["Machine and run: " + "; ".join(x.strip() for x in machine if x.strip()) + ".",
              f"FMA peak (bench-gemm, 1 core): {peak} GFLOP/s." if peak else "FMA peak: not measured.", ""]

    # item 1, 9: whole networks
    nets = []
    rss = {}
    for f in sorted(glob.glob(os.path.join(out, "net_*_t*.txt"))):
        side_rss = {}
        for line in read(f):
            m = RSS_RE.match(line)
            if m:
                side_rss[m.group(1)] = int(m.group(2))
            m = NET_RE.match(line)
            if m:
                nets.append(m.groups())
                rss[(m.group(1), m.group(2), m.group(4))] = side_rss
                side_rss = {}
    if nets:
        lines += ["### Whole networks (item 1: ResNet-50 training >= 1.5x PyTorch and >= 1.1x oneDNN; "
                  "inference mb=1 >= 1.3x PyTorch; item 9: peak RSS)", "",
                  "| network | step | mb | threads | FreeDNN ms | PyTorch ms | oneDNN ms | PyTorch / FreeDNN | "
                  "oneDNN / FreeDNN | peak RSS MiB (FreeDNN / PyTorch / oneDNN) | bars |",
                  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
        for n, step, mb, t, f, p, o, tr, orr in nets:
            tr, orr = float(tr), float(orr)
            bars = []
            if n == "resnet50" and step == "train":
                bars = [f"torch 1.5x {met(tr, 1.5)}", f"oneDNN 1.1x {met(orr, 1.1)}"]
            elif n == "resnet50" and step == "infer":
                bars = [f"torch 1.3x {met(tr, 1.3)}"]
            r = rss.get((n, step, t), {})
            lines.append(f"| {n} | {step} | {mb} | {t} | {f} | {p} | {o} | {tr:.2f} | {orr:.2f} | "
                         f"{r.get('FreeDNN', '-')} / {r.get('PyTorch', '-')} / {r.get('oneDNN', '-')} | "
                         f"{', '.join(bars) or '-'} |")
        lines.append("")

    # items 2, 3, 7, 8: convolution
    conv = {}
    for f in sorted(glob.glob(os.path.join(out, "conv_*_t*.txt"))):
        m = re.search(r"conv_(\w+?)_(nchw|nhwc)_t(\d+)\.txt$", f)
        if m:
            conv[(m.group(1), m.group(2), int(m.group(3)))] = conv_cells(f)
    if conv:
        lines += ["### Convolution against oneDNN (items 2, 3, 7)", "",
                  "Sets: sum of oneDNN times / sum of FreeDNN times. Bars: every 3x3 layer >= 1.0x (item 2); "
                  "backward data and filter >= 1.1x on the `dir=fwd,bwd` lines (item 3); NHWC sets >= 1.2x (item 7).",
                  "", "| set | layout | threads | fwd | bwd data | bwd filter | 3x3 cells >= 1.0 | "
                  "dir=fwd,bwd backward cells >= 1.1 |",
                  "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |"]
        for (s, layout, t), cells in sorted(conv.items()):
            d = {dd: set_ratio(cells, lambda k, dd=dd: k[2] == dd) for dd in ("fwd", "bwd_d", "bwd_w")}
            three = [ratio(c) for k, c in cells.items() if "3x3" in k[0]]
            bwd = [ratio(c) for k, c in cells.items() if k[0] in BWD_LINES and k[2] != "fwd"]
            b = 1.2 if layout == "nhwc" else None
            lines.append(f"| {s} | {layout} | {t} | {fmt(d['fwd'], b)} | {fmt(d['bwd_d'], b)} | "
                         f"{fmt(d['bwd_w'], b)} | {sum(x >= 1.0 for x in three)} of {len(three)} | "
                         f"{sum(x >= 1.1 for x in bwd)} of {len(bwd)} |")
        lines.append("")
        for (s, layout, t), cells in sorted(conv.items()):
            if t != 1:
                continue
            for dd in ("fwd", "bwd_d", "bwd_w"):
                keys = sorted(k for k in cells if k[2] == dd)
                if not keys:
                    continue
                labels = [f"{k[0]} mb{k[1]}" for k in keys]
                png = plot(f"conv_{s}_{layout}_{dd}", f"{s} {dd}, {layout}, 1 thread: oneDNN / FreeDNN", labels,
                           [("oneDNN / FreeDNN", [ratio(cells[k]) for k in keys])],
                           bar=bar_of(keys[0][0], dd, layout) if s != "r50" or dd == "fwd" else 1.0)
                if png:
                    lines.append(f"![{s} {dd} {layout}]({{plots}}/{os.path.basename(png)})")
        lines.append("")
        # item 8: threads
        scal = []
        for (s, layout, t), cells in conv.items():
            if t == 2 and (s, layout, 1) in conv:
                one = conv[(s, layout, 1)]
                for k, c in cells.items():
                    if k in one and c[0] > 0:
                        gflop = one[k][2] * one[k][0] * 1e-3
                        if gflop * 1e3 >= 100:  # >= 100 MFLOP
                            scal.append((f"{k[0]} mb{k[1]} {k[2]} {layout}", one[k][0] / c[0]))
        if scal:
            scal.sort()
            good = sum(x >= 1.85 for _, x in scal)
            lines += ["### Threads (item 8: 2 threads >= 1.85x one thread on layers >= 100 MFLOP)", "",
                      f"{good} of {len(scal)} cells at or above 1.85x; median {statistics.median(x for _, x in scal):.2f}x, "
                      f"lowest {min(x for _, x in scal):.2f}x (1-thread CPU time against 2-thread wall time: "
                      "a loaded machine lowers this).", ""]
            pc = placement_counts(out)
            if sum(pc.values()):
                lines += [f"The 2-thread rows ran with the vCPUs close (core-to-core round trip < 250 ns) in "
                          f"{pc['close']}, far apart (> 350 ns) in {pc['far']}, and mixed in {pc['mixed']}: "
                          "a small layer runs 10-20% slower far apart (docs/performance.md, session 15).", ""]
            png = plot("threads", "1-thread time / 2-thread time", [l for l, _ in scal],
                       [("speedup", [x for _, x in scal])], bar=1.85, ylabel="speedup")
            if png:
                lines += [f"![threads]({{plots}}/{os.path.basename(png)})", ""]

    # item 2: Winograd effective rate
    wino = conv_cells(os.path.join(out, "wino_t1.txt"))
    if wino:
        lines += ["### Winograd effective rate (item 2: >= 1.3x the FMA peak on res2-res4 3x3 at mb=32)", "",
                  "| layer | dir | ms | effective GFLOP/s | / FMA peak | oneDNN / FreeDNN |",
                  "| --- | --- | ---: | ---: | ---: | ---: |"]
        for k in sorted(wino):
            c = wino[k]
            rel = c[2] / peak if peak else None
            lines.append(f"| {k[0]} mb{k[1]} | {k[2]} | {c[0]:.1f} | {c[2]:.0f} | {fmt(rel, 1.3)} | {ratio(c):.2f} |")
        lines.append("")

    # item 4: depthwise
    dw = {}
    for f in sorted(glob.glob(os.path.join(out, "dw_mb*_*_t*.txt"))):
        m = re.search(r"dw_mb(\d+)_(nchw|nhwc)_t(\d+)\.txt$", f)
        dw[(int(m.group(1)), m.group(2), int(m.group(3)))] = conv_cells(f)
    if dw:
        lines += ["### Depthwise (item 4: every MobileNet depthwise layer >= 1.0x oneDNN)", "",
                  "| mb | layout | threads | fwd set | bwd data set | bwd filter set | cells >= 1.0 |",
                  "| ---: | --- | ---: | ---: | ---: | ---: | --- |"]
        images = [""]
        for (mb, layout, t), cells in sorted(dw.items()):
            d = {dd: set_ratio(cells, lambda k, dd=dd: k[2] == dd) for dd in ("fwd", "bwd_d", "bwd_w")}
            rs = [ratio(c) for c in cells.values()]
            lines.append(f"| {mb} | {layout} | {t} | {fmt(d['fwd'], 1.0)} | {fmt(d['bwd_d'], 1.0)} | "
                         f"{fmt(d['bwd_w'], 1.0)} | {sum(x >= 1.0 for x in rs)} of {len(rs)} |")
            if t == 1:
                keys = sorted(cells)
                png = plot(f"dw_mb{mb}_{layout}", f"depthwise mb={mb} {layout}, 1 thread: oneDNN / FreeDNN",
                           [f"{k[0]} {k[2]}" for k in keys], [("oneDNN / FreeDNN", [ratio(cells[k]) for k in keys])],
                           bar=1.0)
                if png:
                    images.append(f"![depthwise mb={mb} {layout}]({{plots}}/{os.path.basename(png)})")
        lines += images + [""]

    # items 5, 6 and #13's BF16 RNN/attention bar
    rnn = []
    for f in sorted(glob.glob(os.path.join(out, "rnn_t*.txt"))):
        for line in read(f):
            m = RNN_RE.match(line)
            if m:
                rnn.append(m.groups())
    if rnn:
        lines += ["### RNN against oneDNN (item 5: >= 1.1x), attention against PyTorch (item 6: >= 1.2x), "
                  "BF16 against FP32 (#13: >= 1.3x)", "",
                  "| case | threads | FP32 ms | BF16 ms | BF16 / FP32 speedup | peer | peer ms | peer / FreeDNN FP32 |",
                  "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |"]
        for name, t, f32, b16, sp, peer, pms, _, pr in rnn:
            bar = 1.1 if peer == "oneDNN" else 1.2
            lines.append(f"| {name} | {t} | {f32} | {b16} | {fmt(float(sp), 1.3)} | {peer or '-'} | {pms or '-'} | "
                         f"{fmt(float(pr), bar) if pr else '-'} |")
        lines.append("")
        one = [r for r in rnn if r[1] == "1" and r[8]]
        png = plot("rnn_attn", "RNN (vs oneDNN) and attention (vs PyTorch), 1 thread", [r[0] for r in one],
                   [("peer / FreeDNN FP32", [float(r[8]) for r in one]),
                    ("BF16 speedup", [float(r[4]) for r in one])], bar=1.1)
        if png:
            lines += [f"![rnn and attention]({{plots}}/{os.path.basename(png)})", ""]

    # #13: reduced precision convolution
    lowp = {t: conv_cells(os.path.join(out, f"lowp_{t}_t1.txt")) for t in ("bf16", "f16")}
    fp32 = conv.get(("r50", "nchw", 1), {})
    if any(lowp.values()) and fp32:
        lines += ["### Reduced precision, ResNet-50 forward, 1 thread (#13: BF16 TENSOR_OP >= 1.5x FP32 and "
                  ">= 1.0x oneDNN bf16; PSEUDO_HALF >= 0.9x FP32)", "",
                  "| mb | FP32 ms | BF16 ms | BF16 speedup | oneDNN bf16 / FreeDNN BF16 | HALF ms | HALF / FP32 speed |",
                  "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for mb in (1, 32):
            pred = lambda k, mb=mb: k[1] == mb and k[2] == "fwd"
            keys = [k for k in fp32 if pred(k)]
            f = sum(fp32[k][0] for k in keys)
            b = sum(lowp["bf16"][k][0] for k in keys if k in lowp["bf16"])
            bo = sum(lowp["bf16"][k][1] for k in keys if k in lowp["bf16"])
            h = sum(lowp["f16"][k][0] for k in keys if k in lowp["f16"])
            lines.append(f"| {mb} | {f:.1f} | {b:.1f} | {fmt(f / b if b else None, 1.5)} | "
                         f"{fmt(bo / b if b else None, 1.0)} | {h:.1f} | {fmt(f / h if h else None, 0.9)} |")
        lines.append("")

    # Memory-bound ops: bench-ops prints its own tables (bars: faster than
    # oneDNN, >= 70% of the stream triad).
    ops = os.path.join(out, "ops.txt")
    if os.path.exists(ops):
        lines += ["### Memory-bound operations (faster than oneDNN, >= 70% of the stream triad)", ""]
        lines += [l.replace("### ", "#### ") for l in read(ops)] + [""]
    for name in ("ops.txt", "int8_t1.txt", "fashion_mnist.txt"):
        if os.path.exists(os.path.join(out, name)):
            lines.append(f"Raw: `{name}`.")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text.replace("{plots}", "plots"))
    print(text.replace("{plots}", os.path.join(out, "plots")))
    if doc:
        rel = os.path.relpath(plots, os.path.dirname(os.path.abspath(doc)))
        begin, end = "<!-- run-all:begin -->", "<!-- run-all:end -->"
        src = open(doc).read()
        block = (f"{begin}\n## The last full run (generated by `bench/run-all.sh`, from `{out}`)\n\n"
                 + text.replace("{plots}", rel) + end)
        if begin in src and end in src:
            src = src[:src.index(begin)] + block + src[src.index(end) + len(end):]
        else:
            src = src.rstrip("\n") + "\n\n" + block + "\n"
        with open(doc, "w") as f:
            f.write(src)


def near(conv_file, shapes):
    m = re.search(r"_(nchw|nhwc)_t\d+", conv_file)
    layout = m.group(1) if m else "nchw"
    lines = {}
    for line in read(shapes):
        p = line.split()
        if len(p) > 2 and p[0] == "conv":
            mb = next((x for x in p if x.startswith("mb=")), "mb=1")
            lines[(p[1], mb)] = [x for x in p[1:] if not x.startswith("dir=")]
    for (name, mb, d), c in sorted(conv_cells(conv_file).items()):
        bar = bar_of(name, d, layout)
        if abs(ratio(c) - bar) <= 0.1 * bar and (name, f"mb={mb}") in lines:
            spec = lines[(name, f"mb={mb}")]
            print(d, "conv", " ".join(spec))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "report":
        doc = sys.argv[sys.argv.index("--doc") + 1] if "--doc" in sys.argv else None
        report(sys.argv[2], doc)
    elif len(sys.argv) == 4 and sys.argv[1] == "near":
        near(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
