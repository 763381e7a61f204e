/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook engine's interface: the parts' hook tables, resolving them
 * (resolve.c), ftrace in and out (hook.c), the shared ops of the hooks
 * below the entry points (demand.c), filesystems built as modules
 * (owners.c), the trust checks (trust.c), and the counts unload waits on.
 */
#ifndef NW_HOOK_H
#define NW_HOOK_H

#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include "compat.h"

enum nw_need {
	NW_REQUIRED,	/* missing: the module does not load */
	NW_OPTIONAL,	/* a refinement: missing turns off only that */
	NW_FS,		/* a filesystem's: missing turns off that filesystem */
};

/*
 * What a hooked function's arguments must look like, register by register
 * (trust.c): given where the module took the prototype from no header it
 * was built against.  Only what the kernel chooses is ever checked.
 */
enum nw_arg {
	NW_ARG_ANY,		/* not checked (a user's value, or anything) */
	NW_ARG_KPTR,		/* a kernel address */
	NW_ARG_KPTR_NULL,	/* a kernel address or NULL */
	NW_ARG_RW,		/* READ or WRITE (an int) */
	NW_ARG_BOOL,		/* a bool */
	NW_ARG_U16,		/* a 16-bit value (an iocb's opcode) */
};

#define NW_MAX_ARGS 6
#define NW_ARGS(...) .args = { __VA_ARGS__ }

struct nw_hook {
	const char *name;	/* kernel symbol */
	void *wrapper;		/* NULL: resolve only, do not hook */
	void **orig;		/* receives the callable original */
	enum nw_need need;
	const char *why;	/* what the hook is for, for dmesg/features */
	bool entry;		/* an entry point: live from load to unload */
	bool gate;		/* where flagged requests come in (unload) */
	bool has_standin;	/* its part's stand-ins replace it if absent */
	u8 args[NW_MAX_ARGS];	/* enum nw_arg: its arguments (NW_ARGS) */
	/* filled in by the engine */
	bool filtered;		/* in the shared ops' filter */
	unsigned int nsyms;	/* kernel symbols of its name (nw_syms_count) */
	unsigned long addr;
	bool live;
	const char *off_reason;
	/* trust.c: an argument that did not fit (1 + its index), or 0 */
	int bad_arg;
	bool bad_said;		/* dmesg has said so */
	bool test_distrust;	/* distrust_test= names it */
	u8 nr_checked;		/* args[] up to its last checked one */
	struct ftrace_ops ops;
};

/*
 * A part of the module and the kernel functions it hooks or calls.  The
 * engine resolves, installs and removes every part; a part whose symbols
 * live in a kernel module (@owner: a filesystem built as one) is attached
 * when that module comes and detached before it goes, alone.
 */
struct nw_part {
	const char *owner;	/* "ext4", "xfs", "btrfs"; NULL: vmlinux */
	struct nw_hook *hooks;
	size_t nr_hooks;
	/*
	 * An older kernel's hook points for the hooks marked has_standin:
	 * used only where none of those resolves.
	 */
	struct nw_hook *standins;
	size_t nr_standins;
	/* after its hooks resolve, attach or detach; under nw_hooks_mutex */
	void (*setup)(void);
	/* a filesystem part with its hooks in that offers no NOWAIT: why */
	const char *(*off_why)(void);
};

/*
 * A hook table's entries: a function hooked (any further fields, such as
 * .entry or .has_standin, after the reason), or a symbol only resolved
 */
#define NW_HOOK(_name, _wrapper, _orig, _need, _why, ...)		\
	{ .name = (_name), .wrapper = (_wrapper), .orig = (void **)&(_orig), \
	  .need = (_need), .why = (_why), __VA_ARGS__ }
#define NW_SYMBOL(_name, _orig, _need, _why)				\
	{ .name = (_name), .orig = (void **)&(_orig), .need = (_need),	\
	  .why = (_why) }

#define NW_PART_HOOKS(h) .hooks = (h), .nr_hooks = ARRAY_SIZE(h)
#define NW_PART_STANDINS(h) .standins = (h), .nr_standins = ARRAY_SIZE(h)

/* the parts main.c handed to nw_parts_resolve(), deepest first */
extern const struct nw_part *const *nw_parts;
extern size_t nw_nr_parts;

/* The @i-th hook of @p, its stand-ins after its own; NULL past the end. */
static inline struct nw_hook *nw_part_hook(const struct nw_part *p, size_t i)
{
	if (i < p->nr_hooks)
		return &p->hooks[i];
	i -= p->nr_hooks;
	return i < p->nr_standins ? &p->standins[i] : NULL;
}

#define nw_for_each_hook(p, h, i) \
	for ((i) = 0; ((h) = nw_part_hook((p), (i))); (i)++)

/* One of the hooks below the entry points, on the shared ops? */
static inline bool nw_is_demand(const struct nw_hook *h)
{
	return h->wrapper && !h->entry;
}

/* which hooks nw_hooks_install()/nw_hooks_remove() act on */
enum nw_hook_set {
	NW_HOOKS_GATES,		/* the entry points flagged requests come by */
	NW_HOOKS_ENTRY,		/* the entry points */
	NW_HOOKS_DEMAND,	/* the hooks below them (demand.c) */
	NW_HOOKS_ALL,
};

/* installs, removals, attaching and detaching owners' parts */
extern struct mutex nw_hooks_mutex;
extern bool nw_unload_pinned;

/* resolve.c: every part's symbols, before anything is installed */
int nw_parts_resolve(const struct nw_part *const parts[], size_t n);
void nw_parts_setup(void);
void nw_syms_count(const struct nw_part *only);
void nw_hook_resolve_one(struct nw_hook *h, const char *owner);
bool nw_hook_missing(const struct nw_hook *h);
int nw_hook_report(const struct nw_part *p, const struct nw_hook *h,
		   bool attach);
extern const char nw_reason_waiting[];

/* hook.c: ftrace in and out */
bool nw_hook_ready(const struct nw_hook *h);
int nw_hooks_install(enum nw_hook_set set);
void nw_hooks_remove(enum nw_hook_set set);
void nw_hooks_wait_idle(void);
void nw_hooks_drain_gates(void);
void nw_wait_while(long (*busy)(void), const char *what);
void nw_hooks_for_each(void (*fn)(const struct nw_part *p,
				  struct nw_hook *h));
int nw_filter_add(struct ftrace_ops *ops, const struct nw_hook *h);
int nw_ops_register(struct ftrace_ops *ops, const char *name);
bool nw_hook_clashes(struct nw_hook *h);

/* owners.c: filesystems built as modules, attached and detached */
int nw_owners_init(void);
void nw_owners_start(void);
void nw_owners_exit(void);
void nw_owners_defer(size_t i);
extern unsigned long nw_parts_pending;

/* sysfs.c's features text */
size_t nw_hooks_show(char *buf, size_t len);
size_t nw_owners_show(char *buf, size_t len);

/*
 * Trust in the kernel's functions (trust.c): the ftrace callbacks send a
 * call to the wrapper only when nw_hook_trusts() says its arguments fit.
 */
extern char *nw_distrust_test;
bool nw_hook_trusts(struct nw_hook *h, const struct pt_regs *regs);
void nw_hook_trust_init(struct nw_hook *h);
size_t nw_distrust_why(const struct nw_hook *h, char *buf, size_t len);
void nw_trust_exit(void);

/*
 * Every wrapper brackets its body with nw_enter()/nw_exit(), so unload can
 * wait until no task runs module code.  Two per-cpu ops, no shared line.
 */
DECLARE_PER_CPU(long, nw_active);
static inline void nw_enter(void)
{
	this_cpu_inc(nw_active);
}

static inline void nw_exit(void)
{
	this_cpu_dec(nw_active);
}

/*
 * The wrappers of the gates (.gate: io_submit's and preadv2/pwritev2's)
 * count themselves in a second time, so that unload can take the gates
 * out, wait until no flagged request is left between a gate and the
 * per-request hooks below it, and only then take those out.
 */
DECLARE_PER_CPU(long, nw_gate_active);
static inline void nw_gate_enter(void)
{
	nw_enter();
	this_cpu_inc(nw_gate_active);
}

static inline void nw_gate_exit(void)
{
	this_cpu_dec(nw_gate_active);
	nw_exit();
}

#endif /* NW_HOOK_H */
