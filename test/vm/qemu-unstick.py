#!/usr/bin/env python3
"""Free vCPUs that QEMU 7.2 left looping on a stale translation.

    qemu-unstick.py QMP_SOCKET GDB_SOCKET

QEMU before 8.1 can translate guest code on one vCPU while another vCPU
rewrites it, and keep the translation made from the old bytes: nothing
invalidates it (upstream fix deba78709ae8, "accel/tcg: Always lock pages
before translation", v8.1.0).  A guest kernel that patches a function
entry with ftrace writes an int3 there first and the final instruction
last; a vCPU that translated the int3 in between runs it for ever after,
although memory holds the new instruction, and the kernel's int3 handler,
finding no int3 in memory, sends it back to run it again.  Every CPU that
calls the function is caught, and the guest stops (RCU stall, soft lockup,
a task waiting on those CPUs).  Nothing in the guest can end it.

First it asks the guest for every CPU's backtrace (SysRq l over the
guest's keyboard): before 4.10 an RCU stall report shows no registers,
and the NMI backtraces are where the kernel itself names the address a
CPU is held at (the verdict looks for it there).  Then it samples each
vCPU's instruction pointer while the guest runs (for
the record: the addresses where the CPUs are held), then attaches QEMU's
gdbstub, which stops the VM, and single-steps one vCPU by one
instruction.  When a step ends, the gdbstub flushes every translation
(gdb_vm_state_change(): tb_flush()), so each vCPU's next instruction is
translated from memory as it is; then it detaches and the VM runs on.
The guest sees one instruction stepped on one CPU and a pause.  It prints
one line per sampled kernel address ("unstick: cpu N at ADDR: byte BB
(int3 in memory: no)") and "unstick: flushed QEMU's translations".  Only
QEMU's state changes: a guest stuck for a reason of its own stays stuck.
"""
import json
import socket
import sys
import time


class Qmp:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(30)
        self.s.connect(path)
        self.f = self.s.makefile("rw")
        self.f.readline()
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.f.flush()
        while True:
            r = json.loads(self.f.readline())
            if "return" in r or "error" in r:
                return r

    def hmp(self, line):
        r = self.cmd("human-monitor-command", **{"command-line": line})
        return r.get("return", "")


class Gdb:
    """The few packets of the GDB remote protocol this needs."""

    def __init__(self, path):
        for _ in range(50):
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.settimeout(30)
                self.s.connect(path)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise OSError(f"no gdbstub at {path}")
        self.buf = b""

    def _read_packet(self):
        while True:
            while b"#" not in self.buf or len(self.buf) < self.buf.index(b"#") + 3:
                chunk = self.s.recv(4096)
                if not chunk:
                    raise OSError("gdbstub closed")
                self.buf += chunk
            start = self.buf.find(b"$")
            end = self.buf.index(b"#")
            if start < 0 or start > end:
                self.buf = self.buf[end + 3:]
                continue
            body = self.buf[start + 1:end]
            self.buf = self.buf[end + 3:]
            self.s.sendall(b"+")
            return body.decode()

    def req(self, body):
        csum = sum(body.encode()) % 256
        self.s.sendall(f"${body}#{csum:02x}".encode())
        reply = self._read_packet()
        # a stop notification can arrive ahead of the answer
        while body not in ("?", "s") and reply[:1] in ("T", "S"):
            reply = self._read_packet()
        return reply

    def close(self):
        try:
            self.s.sendall(b"$D#44")
        finally:
            self.s.close()


def sample_rips(q, rounds):
    seen = {}
    for _ in range(rounds):
        q.hmp("stop")
        cpu = None
        for line in q.hmp("info registers -a").splitlines():
            if line.startswith("CPU#"):
                cpu = line[4:].split()[0].rstrip(":")
            elif line.startswith("RIP=") and cpu is not None:
                seen.setdefault(int(line.split()[0][4:], 16), set()).add(cpu)
        q.hmp("cont")
        time.sleep(0.05)
    return seen


def ask_backtraces(q):
    """SysRq l: the kernel prints each CPU's registers and stack."""
    r = q.cmd("send-key", keys=[{"type": "qcode", "data": k}
                                for k in ("alt", "sysrq", "l")])
    time.sleep(3)
    print("unstick: asked the guest for every CPU's backtrace (SysRq l)"
          if "return" in r else f"unstick: SysRq l not sent: {r}")


def main():
    q = Qmp(sys.argv[1])
    ask_backtraces(q)
    seen = sample_rips(q, 20)
    q.hmp(f"gdbserver unix:{sys.argv[2]},server=on,wait=off")
    g = Gdb(sys.argv[2])
    flushed = False
    try:
        g.req("?")  # the stub stops the VM when a debugger attaches
        for addr, cpus in sorted(seen.items()):
            if addr < 0xffff800000000000:
                continue  # user space: not the kernel's code
            byte = g.req(f"m{addr:x},1")
            if len(byte) == 2:
                print(f"unstick: cpu {','.join(sorted(cpus))} at {addr:#x}: "
                      f"byte {byte} (int3 in memory: "
                      f"{'yes' if byte == 'cc' else 'no'})")
        # the end of a step flushes every translation
        flushed = g.req("s")[:1] in ("T", "S")
    finally:
        g.close()
        q.hmp("gdbserver none")
        q.hmp("cont")
    print("unstick: flushed QEMU's translations" if flushed else
          "unstick: the step did not stop; nothing flushed")


if __name__ == "__main__":
    main()
