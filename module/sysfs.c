// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/nowait_aio/: one value per file.  Switches are 0644 (only
 * root writes), counters and features 0444.  A write that is not a clean
 * value for the file gets EINVAL and changes nothing.
 */
#include <linux/kobject.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "rules.h"
#include "hook.h"
#include "demand.h"
#include "sysfs.h"

static struct kobject *nw_kobj;

static ssize_t bool_show(bool *v, char *buf)
{
	return sprintf(buf, "%d\n", READ_ONCE(*v) ? 1 : 0);
}

static ssize_t bool_store(bool *v, const char *buf, size_t count)
{
	unsigned int val;

	if (kstrtouint(buf, 10, &val) || val > 1)
		return -EINVAL;
	WRITE_ONCE(*v, val == 1);
	return count;
}

static ssize_t enabled_show(struct kobject *k, struct kobj_attribute *a,
			    char *buf)
{
	return bool_show(&nw_enabled, buf);
}

static ssize_t enabled_store(struct kobject *k, struct kobj_attribute *a,
			     const char *buf, size_t count)
{
	return bool_store(&nw_enabled, buf, count);
}

#define NW_CHECK_ATTR(_name, _check)					\
static ssize_t _name##_show(struct kobject *k, struct kobj_attribute *a,\
			    char *buf)					\
{									\
	return bool_show(&nw_check_on[_check], buf);			\
}									\
static ssize_t _name##_store(struct kobject *k,				\
			     struct kobj_attribute *a,			\
			     const char *buf, size_t count)		\
{									\
	return bool_store(&nw_check_on[_check], buf, count);		\
}									\
static struct kobj_attribute nw_attr_##_name = __ATTR_RW(_name)

NW_CHECK_ATTR(lock, NW_CHECK_LOCK);
NW_CHECK_ATTR(pagecache, NW_CHECK_PAGECACHE);
NW_CHECK_ATTR(alloc, NW_CHECK_ALLOC);
NW_CHECK_ATTR(congestion, NW_CHECK_CONGESTION);

static ssize_t uint_show(unsigned int *v, char *buf)
{
	return sprintf(buf, "%u\n", READ_ONCE(*v));
}

/* a number up to @max, handed to @set (0 or -errno) */
static ssize_t uint_store(const char *buf, size_t count, unsigned int max,
			  int (*set)(unsigned int v))
{
	unsigned int v;
	int err;

	if (kstrtouint(buf, 10, &v) || v > max)
		return -EINVAL;
	err = set(v);
	return err ? err : count;
}

static int nw_set_fault_inject(unsigned int v)
{
	WRITE_ONCE(nw_fault_inject, v);
	return 0;
}

#define NW_UINT_ATTR(_name, _var, _max, _set)				\
static ssize_t _name##_show(struct kobject *k, struct kobj_attribute *a,\
			    char *buf)					\
{									\
	return uint_show(&(_var), buf);					\
}									\
static ssize_t _name##_store(struct kobject *k, struct kobj_attribute *a,\
			     const char *buf, size_t count)		\
{									\
	return uint_store(buf, count, (_max), (_set));			\
}									\
static struct kobj_attribute nw_attr_##_name = __ATTR_RW(_name)

NW_UINT_ATTR(fault_inject, nw_fault_inject, UINT_MAX, nw_set_fault_inject);
NW_UINT_ATTR(hook_idle_ms, nw_hook_idle_ms, NW_HOOK_IDLE_MS_MAX,
	     nw_demand_set_idle);

#define NW_COUNTER_ATTR(_name, _cnt)					\
static ssize_t _name##_show(struct kobject *k, struct kobj_attribute *a,\
			    char *buf)					\
{									\
	return sprintf(buf, "%lu\n", nw_counter_sum(_cnt));		\
}									\
static struct kobj_attribute nw_attr_##_name = __ATTR_RO(_name)

NW_COUNTER_ATTR(accepted, NW_CNT_ACCEPTED);
NW_COUNTER_ATTR(eagain_lock, NW_CNT_EAGAIN_LOCK);
NW_COUNTER_ATTR(eagain_pagecache, NW_CNT_EAGAIN_PAGECACHE);
NW_COUNTER_ATTR(eagain_alloc, NW_CNT_EAGAIN_ALLOC);
NW_COUNTER_ATTR(eagain_congestion, NW_CNT_EAGAIN_CONGESTION);
NW_COUNTER_ATTR(eagain_injected, NW_CNT_EAGAIN_INJECTED);
NW_COUNTER_ATTR(eagain_warmup, NW_CNT_EAGAIN_WARMUP);
NW_COUNTER_ATTR(refused_eopnotsupp, NW_CNT_EOPNOTSUPP);
NW_COUNTER_ATTR(refused_einval, NW_CNT_EINVAL);

/* Every hook, the demand set, each filesystem, the checks. */
static size_t nw_hook_show(const struct nw_hook *h, char *buf, size_t len)
{
	size_t off;

	if (READ_ONCE(h->bad_arg)) {
		off = scnprintf(buf, len, "hook %s off: ", h->name);
		off += nw_distrust_why(h, buf + off, len - off);
		return off + scnprintf(buf + off, len - off, "\n");
	}
	return scnprintf(buf, len, "hook %s %s%s%s\n", h->name,
			 h->live ? "live" : !h->addr ? "off" :
			 h->wrapper ? "standby" : "resolved",
			 h->off_reason ? ": " : "",
			 h->off_reason ? h->off_reason : "");
}

/**
 * nw_hooks_show() - one "hook" line per hook of every part (resolved helpers
 * left out).
 * @buf: the features text being written
 * @len: room left in @buf
 *
 * Return: the bytes written.
 */
size_t nw_hooks_show(char *buf, size_t len)
{
	const struct nw_part *p;
	struct nw_hook *h;
	size_t i, j, off = 0;

	for (i = 0; i < nw_nr_parts; i++) {
		p = nw_parts[i];
		nw_for_each_hook(p, h, j) {
			if (off >= len)
				return off;
			if (!h->wrapper && h->addr)
				continue;
			if (h->off_reason == nw_reason_waiting) {
				off += scnprintf(buf + off, len - off,
						 "hook %s off: waiting for %s.ko\n",
						 h->name, p->owner);
				continue;
			}
			off += nw_hook_show(h, buf + off, len - off);
		}
	}
	return off;
}

/* The features line of a part with an owner: "fs xfs live", ... */
static size_t nw_owner_show(const struct nw_part *p, char *buf, size_t len)
{
	const struct nw_hook *bad = NULL, *h;
	const char *why;
	size_t i;

	nw_for_each_hook(p, h, i)
		if (h->need == NW_FS && !bad &&
		    (!h->addr || READ_ONCE(h->bad_arg)))
			bad = h;
	if (!bad) {
		why = p->off_why ? p->off_why() : NULL;
		if (why)
			return scnprintf(buf, len, "fs %s off: %s\n", p->owner,
					 why);
		return scnprintf(buf, len, "fs %s live\n", p->owner);
	}
	if (bad->off_reason == nw_reason_waiting)
		return scnprintf(buf, len, "fs %s waiting for %s.ko\n",
				 p->owner, p->owner);
	if (READ_ONCE(bad->bad_arg))
		return scnprintf(buf, len, "fs %s off: %s: distrusted\n",
				 p->owner, bad->name);
	return scnprintf(buf, len, "fs %s off: %s: %s\n", p->owner, bad->name,
			 bad->off_reason);
}

/**
 * nw_owners_show() - one features line per filesystem part.
 * @buf: the features text being written
 * @len: room left in @buf
 *
 * Takes nw_hooks_mutex.
 *
 * Return: the bytes written.
 */
size_t nw_owners_show(char *buf, size_t len)
{
	size_t i, off = 0;

	mutex_lock(&nw_hooks_mutex);
	for (i = 0; i < nw_nr_parts && off < len; i++)
		if (nw_parts[i]->owner)
			off += nw_owner_show(nw_parts[i], buf + off, len - off);
	mutex_unlock(&nw_hooks_mutex);
	return off;
}

static ssize_t features_show(struct kobject *k, struct kobj_attribute *a,
			     char *buf)
{
	size_t len = PAGE_SIZE, off;
	int c;

	off = nw_hooks_show(buf, len);
	if (off < len)
		off += nw_demand_show(buf + off, len - off);
	if (off < len)
		off += nw_owners_show(buf + off, len - off);
	if (nw_unload_pinned && off < len)
		off += scnprintf(buf + off, len - off,
				 "unload refused: preemptible kernel without TASKS_RCU\n");
	for (c = 0; c < NW_NR_CHECKS && off < len; c++)
		off += scnprintf(buf + off, len - off, "check %s %s\n",
				 nw_check_names[c],
				 nw_check_on[c] ? "on" : "off");
	return off;
}

static struct kobj_attribute nw_attr_enabled = __ATTR_RW(enabled);
static struct kobj_attribute nw_attr_features = __ATTR_RO(features);

static struct attribute *nw_attrs[] = {
	&nw_attr_enabled.attr,
	&nw_attr_lock.attr,
	&nw_attr_pagecache.attr,
	&nw_attr_alloc.attr,
	&nw_attr_congestion.attr,
	&nw_attr_fault_inject.attr,
	&nw_attr_hook_idle_ms.attr,
	&nw_attr_accepted.attr,
	&nw_attr_eagain_lock.attr,
	&nw_attr_eagain_pagecache.attr,
	&nw_attr_eagain_alloc.attr,
	&nw_attr_eagain_congestion.attr,
	&nw_attr_eagain_injected.attr,
	&nw_attr_eagain_warmup.attr,
	&nw_attr_refused_eopnotsupp.attr,
	&nw_attr_refused_einval.attr,
	&nw_attr_features.attr,
	NULL,
};

static const struct attribute_group nw_group = {
	.attrs = nw_attrs,
};

/**
 * nw_sysfs_init() - at load: /sys/kernel/nowait_aio/ and its files.
 *
 * Before the hooks go in.  Each of the two steps can be made to fail with
 * fault_step; a failure leaves nothing behind.
 *
 * Return: 0, or the errno of the step that failed.
 */
int nw_sysfs_init(void)
{
	int err;

	if (nw_fault_at("kobject_create_and_add"))
		return -ENOMEM;
	nw_kobj = kobject_create_and_add("nowait_aio", kernel_kobj);
	if (!nw_kobj)
		return -ENOMEM;
	err = nw_fault_at("sysfs_create_group");
	if (!err)
		err = sysfs_create_group(nw_kobj, &nw_group);
	if (err) {
		kobject_put(nw_kobj);
		nw_kobj = NULL;
	}
	return err;
}

/**
 * nw_sysfs_exit() - unload or a failed load: /sys/kernel/nowait_aio/ goes.
 *
 * Does nothing when nw_sysfs_init() did not succeed.
 */
void nw_sysfs_exit(void)
{
	if (!nw_kobj)
		return;
	sysfs_remove_group(nw_kobj, &nw_group);
	kobject_put(nw_kobj);
	nw_kobj = NULL;
}
