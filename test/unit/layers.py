#!/usr/bin/env python3
"""The module's files in layers: each file includes only headers of its own
layer or of one below, so no header reaches up to a file that builds on it.

usage: layers.py MODULE_DIR

Prints one line per file that includes a header of a layer above its own,
or that the table does not place; exits 1 if there is any.  The table is
the module's design (README, "Layout"): a new file needs a row here.
"""
import os
import re
import sys

# lowest first; a layer's files are its .c files and the headers they own
LAYERS = [
    ("compat", ["compat.h"]),                       # module/compat/: kernel differences
    ("task", ["task.c", "task.h"]),                 # per-task marks
    ("rules", ["rules.c", "rules.h"]),              # switches, counters, a request's flags
    ("engine", ["resolve.c", "hook.c", "trust.c", "owners.c", "demand.c",
                "hook.h", "demand.h"]),             # hooks: resolve, install, trust, owners
    ("services", ["queue.c", "queue.h", "sync.c", "sync.h"]),
    ("write", ["write.c", "write.h"]),              # the write path the parts share
    ("parts", ["aio.c", "rwf.c", "read.c", "ext4.c", "xfs.c", "btrfs.c",
               "blkdev.c", "block.c", "parts.h"]),
    ("top", ["sysfs.c", "sysfs.h", "main.c"]),
]
LEVEL = {f: i for i, (_, files) in enumerate(LAYERS) for f in files}
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def main(mdir):
    bad = []
    names = sorted(n for n in os.listdir(mdir)
                   if re.search(r"\.[ch]$", n) and not n.endswith(".mod.c"))
    for name in names:
        if name not in LEVEL:
            bad.append(f"{name}: not in the table of layers")
            continue
        with open(os.path.join(mdir, name)) as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            if inc not in LEVEL:
                bad.append(f"{name}: includes {inc}, which no layer owns")
            elif LEVEL[inc] > LEVEL[name]:
                bad.append(f"{name} ({LAYERS[LEVEL[name]][0]}) includes {inc}"
                           f" ({LAYERS[LEVEL[inc]][0]}), a layer above it")
    for line in bad:
        print(line)
    print(f"{len(names)} files, {len(bad)} upward or unplaced includes")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[3])
    sys.exit(main(sys.argv[1]))
