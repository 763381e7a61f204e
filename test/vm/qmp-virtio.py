#!/usr/bin/env python3
"""Print QEMU's state of every virtio device's queues (QMP, QEMU 7.2+).

    qmp-virtio.py QMP_SOCKET

For a hung guest: a virtio-blk request the device still holds shows in
'inuse'; one it completed is counted in 'used-idx' (and 'signalled-used'
once it notified the guest).
"""
import json
import socket
import sys


def main():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sys.argv[1])
    f = s.makefile("rw")
    f.readline()  # greeting

    def cmd(name, **args):
        f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        f.flush()
        while True:
            r = json.loads(f.readline())
            if "return" in r or "error" in r:
                return r

    cmd("qmp_capabilities")
    devs = cmd("x-query-virtio").get("return", [])
    for d in devs:
        path = d["path"]
        st = cmd("x-query-virtio-status", path=path).get("return", {})
        nq = st.get("num-vqs", 0)
        print(f"{path} {d.get('name')} queues={nq}")
        for q in range(nq):
            r = cmd("x-query-virtio-queue-status", path=path, queue=q)
            print(f"  queue {q}: {json.dumps(r.get('return', r))}")


if __name__ == "__main__":
    main()
