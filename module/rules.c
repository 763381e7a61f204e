// SPDX-License-Identifier: GPL-2.0
/*
 * The floor below every part (rules.h): switches, counters, fault
 * injection, RWF_* flags onto a kiocb, the page-cache probe and the
 * filesystem of a file.
 */
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/pagevec.h>
#include <linux/random.h>

#include "rules.h"

bool nw_enabled = true;
bool nw_distrusted;
bool nw_check_on[NW_NR_CHECKS] = { true, true, true, true };
unsigned int nw_fault_inject;

const char *const nw_check_names[NW_NR_CHECKS] = {
	"lock", "pagecache", "alloc", "congestion",
};

DEFINE_PER_CPU(unsigned long, nw_counters[NW_NR_COUNTERS]);

/**
 * nw_counter_sum() - the value of a counter of /sys/kernel/nowait_aio/.
 * @c: the counter
 *
 * Each CPU counts on its own line (nw_count()); this adds them up, over
 * every possible CPU, without a lock.
 *
 * Return: the total since load.
 */
unsigned long nw_counter_sum(enum nw_counter c)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(nw_counters[c], cpu);
	return sum;
}

/**
 * nw_inject_eagain() - should this NOWAIT request be refused for testing?
 *
 * fault_inject=N refuses about one NOWAIT request in N, chosen at random,
 * with EAGAIN, so that an application's fallback is run on purpose.  The
 * caller refuses the request and counts it as eagain_injected.
 *
 * Return: true for a request picked; always false while fault_inject is 0.
 */
bool nw_inject_eagain(void)
{
	unsigned int n = READ_ONCE(nw_fault_inject);

	return n && prandom_u32() % n == 0;
}

unsigned int nw_fault_step;
static atomic_t nw_fault_steps = ATOMIC_INIT(0);

/**
 * nw_fault_at() - should this step fail for testing?
 * @what: the step, for dmesg
 *
 * fault_step=N makes the Nth step that can fail (a registration with
 * ftrace, sysfs or the module notifier, the allocation of a workqueue, at
 * load or later) fail with -ENOMEM, so that every error path is run on
 * purpose.  The steps are counted from load; only the Nth one fails.
 * Called before the real step, which the caller skips on an error.
 *
 * Return: 0, or -ENOMEM for the step that fails.
 */
int nw_fault_at(const char *what)
{
	unsigned int n = READ_ONCE(nw_fault_step);

	if (!n || atomic_inc_return(&nw_fault_steps) != n)
		return 0;
	pr_info("fault_step=%u: %s fails on purpose\n", n, what);
	return -ENOMEM;
}

#if !NW_KIOCB_FLAGS
static struct nw_marks nw_req_recs = NW_MARKS_INIT(nw_req_recs);

/**
 * nw_req_begin() - start the current task's record of @req's flags.
 * @rec: the record, on the caller's stack
 * @req: the request
 *
 * For a kernel whose kiocb has no ki_flags (before 4.1): from here until
 * nw_req_end(), nw_req_flags(), nw_req_flags_set() and nw_req_flags_clear()
 * of @req, called by the same task, read and write @rec.  The record starts
 * with no flag.  The submitting task keeps it around the kernel's run of
 * the request (aio.c).
 */
void nw_req_begin(struct nw_req_rec *rec, struct kiocb *req)
{
	rec->req = req;
	rec->flags = 0;
	nw_mark_push(&nw_req_recs, &rec->mark);
}

/**
 * nw_req_end() - end the current task's record of a request's flags.
 * @rec: the record nw_req_begin() started
 *
 * The request's flags other than the file's O_DIRECT and O_APPEND are
 * forgotten.
 */
void nw_req_end(struct nw_req_rec *rec)
{
	nw_mark_pop(&nw_req_recs, &rec->mark);
}

/* The current task's record of @req, if it keeps one. */
static struct nw_req_rec *nw_req_rec_of(struct kiocb *req)
{
	struct nw_req_rec *rec;

	if (!nw_mark_maybe(&nw_req_recs))
		return NULL;
	rec = (struct nw_req_rec *)nw_mark_find(&nw_req_recs);
	return rec && rec->req == req ? rec : NULL;
}

/**
 * nw_req_flags() - the IOCB_* flags of @req, on a kernel without ki_flags.
 * @req: the request
 *
 * IOCB_DIRECT and IOCB_APPEND come from the file's O_DIRECT and O_APPEND;
 * the others from the current task's record of @req (nw_req_begin()), when
 * it keeps one.
 *
 * Return: the flags.
 */
int nw_req_flags(struct kiocb *req)
{
	struct nw_req_rec *rec = nw_req_rec_of(req);
	unsigned int f_flags = req->ki_filp->f_flags;
	int flags = rec ? rec->flags : 0;

	if (f_flags & O_DIRECT)
		flags |= IOCB_DIRECT;
	if (f_flags & O_APPEND)
		flags |= IOCB_APPEND;
	return flags;
}

/**
 * nw_req_flags_set() - set IOCB_* flags of @req, on a kernel without ki_flags.
 * @req: the request
 * @flags: the flags to set
 *
 * They go into the current task's record of @req; without one, nothing is
 * set.
 */
void nw_req_flags_set(struct kiocb *req, int flags)
{
	struct nw_req_rec *rec = nw_req_rec_of(req);

	if (rec)
		rec->flags |= flags;
}

/**
 * nw_req_flags_clear() - clear IOCB_* flags of @req, on a kernel without
 * ki_flags.
 * @req: the request
 * @flags: the flags to clear
 *
 * They are cleared in the current task's record of @req, if it keeps one.
 * The file's O_DIRECT and O_APPEND are not the record's: nw_req_flags()
 * still reports IOCB_DIRECT and IOCB_APPEND for them.
 */
void nw_req_flags_clear(struct kiocb *req, int flags)
{
	struct nw_req_rec *rec = nw_req_rec_of(req);

	if (rec)
		rec->flags &= ~flags;
}
#endif

/**
 * nw_apply_rw_flags() - a request's RWF_* flags onto its kiocb.
 * @iocb: the request
 * @flags: its RWF_* flags, already checked (nw_check_rw_flags())
 *
 * What 4.14's kiocb_set_rw_flags() does once the flags are valid:
 * RWF_HIPRI, RWF_DSYNC, RWF_SYNC (a data sync and a full one) and
 * RWF_NOWAIT become the kiocb's IOCB_* flags.  A NOWAIT request is counted
 * as accepted.
 */
void nw_apply_rw_flags(struct kiocb *iocb, unsigned int flags)
{
	if (flags & RWF_HIPRI)
		nw_req_flags_set(iocb, NW_IOCB_HIPRI);
	if (flags & RWF_DSYNC)
		nw_req_flags_set(iocb, NW_IOCB_DSYNC);
	if (flags & RWF_SYNC)
		nw_req_flags_set(iocb, NW_IOCB_DSYNC | NW_IOCB_SYNC);
	if (flags & RWF_NOWAIT) {
		nw_req_flags_set(iocb, NW_IOCB_NOWAIT);
		nw_count(NW_CNT_ACCEPTED);
	}
}

/* The index of the first page cached at or after @start, if any. */
static bool nw_first_cached_index(struct address_space *mapping,
				  pgoff_t start, pgoff_t *index)
{
	struct pagevec pvec;
	bool found;

	nw_pagevec_init(&pvec);
	found = nw_pagevec_lookup_from(&pvec, mapping, start);
	if (found)
		*index = pvec.pages[0]->index;
	pagevec_release(&pvec);
	return found;
}

/**
 * nw_range_has_page() - does the page cache hold a page of [@start, @end]?
 * @mapping: the file's pages
 * @start: the first byte
 * @end: the last byte (inclusive)
 *
 * One lookup, for the first page cached at or after @start's page; an
 * empty range or a mapping without pages is answered without one.
 *
 * Return: true when at least one page of the range is cached.
 */
bool nw_range_has_page(struct address_space *mapping, loff_t start,
		       loff_t end)
{
	pgoff_t index;

	if (end < start || !mapping->nrpages)
		return false;
	if (!nw_first_cached_index(mapping, start >> PAGE_SHIFT, &index))
		return false;
	return index <= (end >> PAGE_SHIFT);
}

/*
 * Would a direct request that starts at @start (bytes), with no cached page
 * in its range, sleep in the kernel's writeback of that range on a page
 * past it?  btrfs's writeback of a range locks the first page tagged
 * TOWRITE from @start on before it looks whether the page is past the range
 * (compat/fs.h), so a sync writeback of another range of the file, holding
 * that page locked, makes it sleep.  True when that page is locked now.
 */
static bool nw_writeback_waits_past(struct address_space *mapping,
				    loff_t start)
{
	pgoff_t index = start >> PAGE_SHIFT;
	struct page *page;
	bool locked;

	if (!NW_BTRFS_WB_LOCKS_PAST_END ||
	    nw_fs_of(mapping->host) != NW_FS_BTRFS ||
	    !mapping_tagged(mapping, PAGECACHE_TAG_TOWRITE) ||
	    !find_get_pages_tag(mapping, &index, PAGECACHE_TAG_TOWRITE, 1,
				&page))
		return false;
	locked = PageLocked(page);
	put_page(page);
	return locked;
}

/**
 * nw_direct_would_wait() - 4.14's page-cache rule for a NOWAIT direct
 * request: would the writeback of its range before the I/O wait?
 * @mapping: the file's pages
 * @start: the request's first byte
 * @end: its last byte
 *
 * 4.14 refuses when the range has cached pages and skips that writeback
 * otherwise; these kernels run it, so it must also find nothing to wait for
 * past the range (nw_writeback_waits_past()).
 */
bool nw_direct_would_wait(struct address_space *mapping, loff_t start,
			  loff_t end)
{
	return nw_range_has_page(mapping, start, end) ||
	       nw_writeback_waits_past(mapping, start);
}

/*
 * Written by the parts under nw_hooks_mutex when their hooks attach or
 * detach; read on every flagged request.
 */
static struct {
	unsigned long write_iter;
	bool offered;
} nw_fs_slots[NW_NR_FS];

/**
 * nw_fs_set() - record where a filesystem part's write hook is.
 * @fs: the part's filesystem
 * @write_iter: the address of the write_iter (aio_write before 3.16) its
 *	hook is on, or 0 while it is not hooked
 * @offered: whether the part offers NOWAIT on that filesystem
 *
 * nw_fs_of() tells a file's filesystem by this address, and
 * nw_file_nowait_capable() answers with @offered, which counts only with a
 * @write_iter.  Called from the filesystem and block-device parts' setup
 * with nw_hooks_mutex held; the readers take no lock.
 */
void nw_fs_set(enum nw_fs fs, unsigned long write_iter, bool offered)
{
	WRITE_ONCE(nw_fs_slots[fs].offered, write_iter && offered);
	WRITE_ONCE(nw_fs_slots[fs].write_iter, write_iter);
}

/**
 * nw_fs_of() - which filesystem part hooks the writes to @inode?
 * @inode: a file's inode
 *
 * Only a regular file or a block device can have one.  Its file
 * operations' write_iter (aio_write before 3.16) is compared with the
 * address each part recorded (nw_fs_set()), never with the filesystem's
 * name: a filesystem module that went and came back has a new address.
 *
 * Return: the part's filesystem, or NW_FS_NONE when none hooks it.
 */
enum nw_fs nw_fs_of(struct inode *inode)
{
	unsigned long wi;
	int fs;

	if (!S_ISREG(inode->i_mode) && !S_ISBLK(inode->i_mode))
		return NW_FS_NONE;
	wi = NW_FOP_WRITE(inode->i_fop);
	if (!wi)
		return NW_FS_NONE;
	for (fs = NW_FS_NONE + 1; fs < NW_NR_FS; fs++)
		if (wi == READ_ONCE(nw_fs_slots[fs].write_iter))
			return fs;
	return NW_FS_NONE;
}

/**
 * nw_file_nowait_capable() - 4.14's FMODE_NOWAIT: may a NOWAIT request
 * reach @file?
 * @file: the request's file
 *
 * Return: true when a filesystem part hooks @file's writes and offers
 * NOWAIT there (nw_fs_set()).
 */
bool nw_file_nowait_capable(struct file *file)
{
	enum nw_fs fs = nw_fs_of(file_inode(file));

	return fs != NW_FS_NONE && READ_ONCE(nw_fs_slots[fs].offered);
}

/*
 * Filesystem types whose module has come but whose part is not attached
 * yet (owners.c, under nw_hooks_mutex): the owners' names, static strings.
 */
#define NW_MAX_ATTACHING 4
static const char *nw_attaching[NW_MAX_ATTACHING];

/**
 * nw_fs_attaching() - note that a filesystem's part is being attached, or no
 * longer is.
 * @name: the filesystem's name: its part's owner, a static string whose slot
 *	is found by address
 * @on: true when its module has come and the part is not attached yet, false
 *	when the part is attached or its module gone
 *
 * While it is noted, nw_file_nowait_check() answers a NOWAIT request on
 * that filesystem with EAGAIN instead of EOPNOTSUPP.  Up to
 * NW_MAX_ATTACHING names are noted at once; one past them is not.  Called
 * by owners.c, with nw_hooks_mutex held or at unload once its attach work
 * is gone; the reader takes no lock.
 */
void nw_fs_attaching(const char *name, bool on)
{
	int i, free = -1;

	for (i = 0; i < NW_MAX_ATTACHING; i++) {
		if (nw_attaching[i] == name) {
			if (!on)
				WRITE_ONCE(nw_attaching[i], NULL);
			return;
		}
		if (!nw_attaching[i] && free < 0)
			free = i;
	}
	if (on && free >= 0)
		WRITE_ONCE(nw_attaching[free], name);
}

/**
 * nw_file_nowait_check() - 4.14's FMODE_NOWAIT test, as an answer.
 * @file: the file of a NOWAIT request
 *
 * A file whose filesystem has just come as a module, and whose part is
 * being attached (nw_fs_attaching()), gets EAGAIN, not EOPNOTSUPP: "not
 * supported" would be final for the caller.
 *
 * Return: 0 when a NOWAIT request may reach @file (nw_file_nowait_capable());
 * -EAGAIN, counted as eagain_warmup, while its filesystem's part is being
 * attached; -EOPNOTSUPP, counted, otherwise.
 */
int nw_file_nowait_check(struct file *file)
{
	const char *type = file_inode(file)->i_sb->s_type->name;
	int i;

	if (nw_file_nowait_capable(file))
		return 0;
	for (i = 0; i < NW_MAX_ATTACHING; i++) {
		const char *name = READ_ONCE(nw_attaching[i]);

		if (name && !strcmp(name, type))
			return nw_eagain(NW_CNT_EAGAIN_WARMUP);
	}
	return nw_unsupported();
}

/**
 * nw_check_rw_flags() - 4.14's kiocb_set_rw_flags() tests.
 * @file: the request's file
 * @flags: the request's RWF_* flags
 *
 * A bit the module does not know, or RWF_NOWAIT on a file without
 * FMODE_NOWAIT (nw_file_nowait_check()), is refused before the flags go
 * onto the kiocb (nw_apply_rw_flags()).
 *
 * Return: 0; -EOPNOTSUPP, counted, for an unknown bit or a file that takes
 * no NOWAIT; -EAGAIN, counted as eagain_warmup, for RWF_NOWAIT while the
 * file's filesystem part is being attached.
 */
int nw_check_rw_flags(struct file *file, unsigned int flags)
{
	if (flags & ~NW_RWF_SUPPORTED)
		return nw_unsupported();
	return (flags & RWF_NOWAIT) ? nw_file_nowait_check(file) : 0;
}
