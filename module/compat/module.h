/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/module.h - the state of other kernel modules (the filesystems the
 * module hooks when they are built as modules).
 */
#ifndef NOWAIT_AIO_COMPAT_MODULE_H
#define NOWAIT_AIO_COMPAT_MODULE_H

#include <linux/module.h>
#include <linux/version.h>

/* Is a module of this name loaded (not necessarily live yet)? */
static inline bool nw_module_loaded(const char *name)
{
	bool found;

	mutex_lock(&module_mutex);
	found = find_module(name) != NULL;
	mutex_unlock(&module_mutex);
	return found;
}

/*
 * Is a module of this name loaded but not finished loading (live, and its
 * init text freed)?  Freeing comes after do_init_module() has made the
 * core text read-only (module_enable_ro(mod, true), 4.9+), under
 * module_mutex.  Before 5.1 (9f255b632bf1 "module: Fix livepatch/ftrace
 * module text permissions race") ftrace can patch a module's text while
 * that happens, fail, and WARN in ftrace_bug() (a module loading during a
 * hook install): so a module's sites go into a filter only once this is
 * false.  4.4 names the init text module_init.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 5, 0)
#define NW_MODULE_INIT_TEXT(mod) ((mod)->init_layout.base)
#else
#define NW_MODULE_INIT_TEXT(mod) ((mod)->module_init)
#endif

static inline bool nw_module_unsettled(const char *name)
{
	struct module *mod;
	bool unsettled;

	mutex_lock(&module_mutex);
	mod = find_module(name);
	unsettled = mod && (mod->state != MODULE_STATE_LIVE ||
			    NW_MODULE_INIT_TEXT(mod));
	mutex_unlock(&module_mutex);
	return unsettled;
}

/* Is @addr in vmlinux, or in a module that is not on its way out? */
static inline bool nw_addr_in_live_code(unsigned long addr)
{
	struct module *mod;
	bool live;

	preempt_disable();
	mod = __module_address(addr);
	live = !mod || mod->state != MODULE_STATE_GOING;
	preempt_enable();
	return live;
}

#endif /* NOWAIT_AIO_COMPAT_MODULE_H */
