/* SPDX-License-Identifier: GPL-2.0 */
/*
 * demand.h - the hooks below the entry points, on demand (demand.c): an
 * entry point takes them with nw_demand_get() before it sends a flagged
 * request down and drops them with nw_demand_put() when the submission
 * returns; they leave when no request has needed them for hook_idle_ms.
 * The engine's side: the one shared ftrace_ops they are installed with.
 */
#ifndef NW_DEMAND_H
#define NW_DEMAND_H

#include <linux/compiler.h>
#include <linux/types.h>

struct nw_hook;

extern unsigned int nw_hook_idle_ms;
#define NW_HOOK_IDLE_MS_MAX	3600000	/* an hour */
int nw_demand_get(void);
int nw_demand_get_wait(void);
/*
 * Are the hooks in right now?  A hint for choosing a path, one load on
 * every io_submit (a request that sees true may still be refused by
 * nw_demand_get() a moment later).
 */
extern bool nw_demand_on;
static inline bool nw_demand_hot(void)
{
	return READ_ONCE(nw_demand_on);
}
void nw_demand_hold(void);
void nw_demand_put(void);
void nw_demand_init(void);
void nw_demand_exit(void);
void nw_demand_release(void);
int nw_demand_set_idle(unsigned int ms);
size_t nw_demand_show(char *buf, size_t len);

/* the engine's: the shared ftrace_ops of the hooks below the entry points */
int nw_demand_ops_collect(void);
int nw_demand_ops_install(void);
void nw_demand_ops_remove(void);
void nw_demand_ops_release(void);
int nw_demand_filter_add(struct nw_hook *h);
void nw_demand_filter_del(struct nw_hook *h);

#endif /* NW_DEMAND_H */
