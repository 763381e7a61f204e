#!/usr/bin/env python3
"""Print QEMU's state of every virtio device's queues (QMP, QEMU 7.2+).

    qmp-virtio.py [--sysrq] QMP_SOCKET

--sysrq first (a VM about to be killed for its time-out, whose guest may
no longer run its own dump) presses Alt-SysRq-W and Alt-SysRq-L on the
guest's keyboard, so that its kernel logs the blocked tasks and a
backtrace of every CPU, and prints each vCPU's instruction and stack
pointers as QEMU holds them.

For a hung guest: a virtio-blk request the device still holds shows in
'inuse'; one it completed is counted in 'used-idx' (and 'signalled-used'
once it decided whether to notify the guest; it does not say that it did).
The rings themselves, read from guest memory, say what the guest saw:
the avail ring's used_event is the used index past which the guest asked
to be interrupted (VIRTIO_RING_F_EVENT_IDX), written each time its
driver re-enables callbacks; equal to used-idx, the guest consumed every
completion; lower, it still waits for an interrupt.  Then the local APIC
of each vCPU (HMP "info lapic"): a vector left in IRR or ISR.
"""
import json
import socket
import sys
import time


def main():
    args = sys.argv[1:]
    sysrq = bool(args) and args[0] == "--sysrq"
    if sysrq:
        args = args[1:]
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(args[0])
    f = s.makefile("rw")
    f.readline()  # greeting

    def cmd(name, **args):
        f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        f.flush()
        while True:
            r = json.loads(f.readline())
            if "return" in r or "error" in r:
                return r

    def hmp(line):
        r = cmd("human-monitor-command", **{"command-line": line})
        return r.get("return", "")

    cmd("qmp_capabilities")
    if sysrq:
        for key in ("w", "l"):
            cmd("send-key", keys=[{"type": "qcode", "data": k}
                                  for k in ("alt", "sysrq", key)])
            time.sleep(5)
        cpu = None
        for line in hmp("info registers -a").splitlines():
            if line.startswith(("CPU#", "RAX", "RSI", "RIP")):
                print(f"registers: {line}")
            if line.startswith("CPU#"):
                cpu = line[4:].split()[0].rstrip(":")
            if line.startswith("RIP=") and cpu is not None:
                # the code there as guest memory holds it now (for an
                # instruction the vCPU keeps executing as another)
                rip = int(line.split()[0][4:], 16)
                hmp(f"cpu {cpu}")
                code = hmp(f"x /16bx {rip - 8:#x}").strip().replace("\r", "")
                print(f"code cpu {cpu} at rip-8: {' '.join(code.split())}")
    devs = cmd("x-query-virtio").get("return", [])
    for d in devs:
        path = d["path"]
        st = cmd("x-query-virtio-status", path=path).get("return", {})
        nq = st.get("num-vqs", 0)
        print(f"{path} {d.get('name')} queues={nq}")
        for q in range(nq):
            r = cmd("x-query-virtio-queue-status", path=path, queue=q)
            qs = r.get("return", {})
            print(f"  queue {q}: {json.dumps(qs or r)}")
            if qs.get("vring-num"):
                print(f"  queue {q} rings: {rings(hmp, qs)}")
    for c in cmd("query-cpus-fast").get("return", []):
        cpu = c["cpu-index"]
        out = hmp(f"info lapic {cpu}")
        print(f"lapic {cpu}:")
        for line in out.splitlines():
            if line.startswith(("ISR", "IRR", "PPR", "LVT", "Timer")):
                print(f"  {line}")


def rings(hmp, qs):
    """The guest-written and device-written indices of one split ring."""
    num, avail, used = qs["vring-num"], qs["vring-avail"], qs["vring-used"]

    def u16(addr):
        out = hmp(f"xp /1hx {addr}")
        try:
            return int(out.split(":")[1].split()[0], 16)
        except (IndexError, ValueError):
            return None

    return json.dumps({
        "avail-flags": u16(avail), "avail-idx": u16(avail + 2),
        "used-event": u16(avail + 4 + 2 * num),
        "used-flags": u16(used), "used-idx": u16(used + 2),
        "avail-event": u16(used + 4 + 8 * num),
    })


if __name__ == "__main__":
    main()
