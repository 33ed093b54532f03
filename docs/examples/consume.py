#!/usr/bin/env python3
"""A trainer's side of `bun core dataset follow --out FILE`, with Python's standard library only.

The follower appends one JSON line per record to FILE, PNGs first (in images/ beside FILE),
and fsyncs before it acknowledges; a crash can leave only the last line torn, and its restart
cuts that line away and writes the record again. So every complete line (one that ends in a
newline) stays where it is, and a byte offset at a line boundary is a position that never moves.

This consumer keeps that position in its own state file, next to how much of its own work
(here: OUT, one line per record handled) the position covers. It commits the two together
after every batch: OUT fsynced, then the state written through a temporary file and a rename.
On start it cuts OUT back to what the last commit covered and reads FILE from the committed
offset, so after a crash, even a SIGKILL in the middle of a batch, no record is lost and none
is handled twice. A real trainer commits its checkpoint where this one fsyncs OUT.

    python3 consume.py data/sft.jsonl --out trained.jsonl --follow

Stops at the end of FILE, or with --follow at SIGINT or SIGTERM (committing what it handled).
"""
import argparse
import json
import os
import signal
import sys
import time


def load_state(path):
    if not os.path.exists(path):
        return {"offset": 0, "out_bytes": 0, "records": 0, "first": None}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def save_state(path, state):
    """Replaces the state file whole: a crash leaves the old state or the new, never half."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


CHUNK = 1 << 24


def complete_lines(path, offset):
    """FILE's complete lines from offset on (a chunk at a time), each with the offset after it.

    A torn last line is left for the next look: the follower finishes or rewrites it."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        if size < offset:
            raise SystemExit(f"error: {path} is shorter than the committed position {offset}: not the file this state was kept for")
        f.seek(offset)
        data = f.read(CHUNK)
        while b"\n" not in data and len(data) % CHUNK == 0 and data:
            more = f.read(CHUNK)
            if not more:
                break
            data += more
    end = data.rfind(b"\n") + 1
    pos = offset
    for line in data[:end].splitlines(keepends=True):
        pos += len(line)
        yield line, pos


def first_record(path):
    """The id of FILE's first record: a file replaced under the same name starts with another."""
    with open(path, "rb") as f:
        line = f.readline()
    return json.loads(line)["record_id"] if line.endswith(b"\n") else None


def handle(record, base, out):
    """The training step's stand-in: checks the record's images are there and notes the record."""
    images = [os.path.join(base, p) for p in record.get("images", [])]
    missing = [p for p in images if not os.path.exists(p)]
    if missing:
        raise SystemExit(f"error: record {record['record_id']} names {missing[0]}, which is not there")
    note = {"record_id": record["record_id"], "format": record["format"], "images": len(images)}
    out.write((json.dumps(note) + "\n").encode())
    # Flushed, not fsynced: what reaches OUT after the last commit is undone after a crash.
    out.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("file", help="the JSONL file `dataset follow --out` appends to")
    p.add_argument("--out", required=True, help="where this consumer notes each record it handled")
    p.add_argument("--state", help="its position (default: OUT.state.json)")
    p.add_argument("--follow", action="store_true", help="wait for more records until SIGINT or SIGTERM")
    p.add_argument("--batch", type=int, default=64, help="records handled between two commits (default 64)")
    p.add_argument("--poll", type=float, default=0.2, help="seconds between looks at FILE when it has nothing new")
    p.add_argument("--pace", type=float, default=0.0, help="seconds each record takes, standing in for a training step")
    args = p.parse_args()
    state_path = args.state or args.out + ".state.json"
    base = os.path.dirname(os.path.abspath(args.file))

    state = load_state(state_path)
    if state["first"] is not None and os.path.exists(args.file) and first_record(args.file) != state["first"]:
        raise SystemExit(f"error: {args.file} starts with another record than the file {state_path} was kept for")
    if not os.path.exists(args.out):
        open(args.out, "wb").close()
    undone = os.path.getsize(args.out) - state["out_bytes"]
    os.truncate(args.out, state["out_bytes"])
    if undone > 0:
        print(f"consume: undid {undone} bytes of work not committed before a crash", file=sys.stderr)

    stopping = []
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda *_: stopping.append(True))

    with open(args.out, "ab") as out:

        def commit(offset, records):
            out.flush()
            os.fsync(out.fileno())
            first = state["first"] or first_record(args.file)
            state.update(offset=offset, out_bytes=out.tell(), records=records, first=first)
            save_state(state_path, state)

        while not stopping:
            offset, records, handled = state["offset"], state["records"], False
            if os.path.exists(args.file):
                for line, end in complete_lines(args.file, offset):
                    handle(json.loads(line), base, out)
                    time.sleep(args.pace)
                    offset, records, handled = end, records + 1, True
                    if records - state["records"] >= args.batch or stopping:
                        commit(offset, records)
                    if stopping:
                        break
            if offset != state["offset"]:
                commit(offset, records)
            if not args.follow:
                break
            if not handled:
                time.sleep(args.poll)
    print(f"consume: {state['records']} records handled, position {state['offset']} of {args.file}", file=sys.stderr)


if __name__ == "__main__":
    main()
