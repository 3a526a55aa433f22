#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The boards of a folder (kunit/boards), ready to boot: their idle
topologies extracted, and the malformed ones refused. Prints KTAP.

    boards.py --out DIR [--dtbs DIR] [--tree DIR] BOARDS_DIR

  - the in-tree corpus (BOARDS_DIR/corpus: kbuild DTB targets), built from
    TREE (build/linux) by tools/kernel/build-dtbs.sh into DTBS (build/dtbs);
  - the hand-written trees (handwritten-*.dts), compiled with dtc, whose
    header's "expect:" lines their topology carries on;
  - each one's idle topology extracted (harness/dtidle.py) into
    OUT/NAME.dtsi, for tools/boot/topologies.py to boot;
  - the malformed trees (refused-*.dts), and a file that is not a DTB,
    each refused with the message its header's "refused:" line gives.
"""
import argparse
import os
import subprocess
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import BUILD, TOOLS, TREE, base_of, die, dtidle, topology, words  # noqa: E402
from harness.ktap import Ktap  # noqa: E402

NOT_A_DTB = "not a flattened device tree"


def dtc(dts, dtb):
    r = subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", dtb, dts],
                       capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="where the topologies go")
    ap.add_argument("--dtbs", default=os.path.join(BUILD, "dtbs"),
                    help="where the corpus' DTBs are built")
    ap.add_argument("--tree", default=TREE, help="the tree they are built from (default build/linux)")
    ap.add_argument("boards", help="the folder of the boards (kunit/boards)")
    args = ap.parse_args()
    src = os.path.join(args.out, "src")
    os.makedirs(src, exist_ok=True)
    for f in os.listdir(args.out):
        if f.endswith(".dtsi"):
            os.unlink(os.path.join(args.out, f))
    try:
        corpus = words(os.path.join(args.boards, "corpus"))
    except OSError as err:
        die(f"no corpus: {err}")
    files = sorted(os.listdir(args.boards))
    handwritten = [f for f in files if f.startswith("handwritten-") and f.endswith(".dts")]
    refused = [f for f in files if f.startswith("refused-") and f.endswith(".dts")]
    t = Ktap(len(corpus) + len(handwritten) + len(refused) + 1)

    # The boards to extract: (name, DTB or None, why not, expect lines).
    boards = []
    r = subprocess.run([os.path.join(TOOLS, "kernel", "build-dtbs.sh"), "--tree", args.tree,
                        "--out", args.dtbs]
                       + corpus, capture_output=True, text=True)
    built = r.stdout.split()
    for target in corpus:
        name = os.path.basename(target)[:-len(".dtb")]
        dtb = next((b for b in built if b.endswith("/" + target)), None)
        boards.append((name, dtb, r.stderr.strip() or "not built", []))
    for f in handwritten:
        name = f[:-len(".dts")]
        dtb = os.path.join(src, f"{name}.dtb")
        ok, err = dtc(os.path.join(args.boards, f), dtb)
        expect = topology.Topology(os.path.join(args.boards, f), base_of(args.tree)).all("expect")
        boards.append((name, dtb if ok else None, f"dtc fails: {err}", expect))

    for name, dtb, why, expect in boards:
        what = f"{name}: the idle topology extracts from the DTB"
        if dtb is None:
            t.result(False, what, why.splitlines())
            continue
        try:
            text, changed, notes = dtidle.convert(dtb, expect)
        except dtidle.Refused as err:
            t.result(False, what, [str(err)])
            continue
        except Exception:
            t.result(False, what, traceback.format_exc().splitlines())
            continue
        with open(os.path.join(args.out, f"{name}.dtsi"), "w") as f:
            f.write(text)
        t.result(True, what, [f"changed: {c}" for c in changed] + [f"note: {c}" for c in notes])

    # Malformed trees: refused with the message that names the node.
    cases = []
    for f in refused:
        name = f[:-len(".dts")]
        want = topology.Topology(os.path.join(args.boards, f)).get("refused")
        dtb = os.path.join(src, f"{name}.dtb")
        ok, err = dtc(os.path.join(args.boards, f), dtb)
        cases.append((name, want, dtb if ok else None, err))
    garbage = os.path.join(src, "not-a-dtb.dtb")
    with open(garbage, "w") as f:
        f.write("not a device tree blob\n")
    cases.append(("not-a-dtb", NOT_A_DTB, garbage, ""))
    for name, want, dtb, err in cases:
        what = f"{name}: refused: {want}"
        if not want or dtb is None:
            t.result(False, what, [err or "no \"refused:\" line in its header"])
            continue
        try:
            dtidle.convert(dtb)
            t.result(False, what, ["the extractor took it"])
        except dtidle.Refused as got:
            t.result(want in str(got), what, [] if want in str(got) else [f"refused: {got}"])
        except Exception:
            t.result(False, what, traceback.format_exc().splitlines())
    return t.status()


if __name__ == "__main__":
    sys.exit(main())
