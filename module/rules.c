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

unsigned long nw_counter_sum(enum nw_counter c)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(nw_counters[c], cpu);
	return sum;
}

bool nw_inject_eagain(void)
{
	unsigned int n = READ_ONCE(nw_fault_inject);

	return n && prandom_u32() % n == 0;
}

unsigned int nw_fault_step;
static atomic_t nw_fault_steps = ATOMIC_INIT(0);

/*
 * fault_step=N: the Nth step that can fail (a registration with ftrace,
 * sysfs or the module notifier, at load or later) fails with -ENOMEM, so
 * that every error path is run on purpose.  0, or -ENOMEM.
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

void nw_req_begin(struct nw_req_rec *rec, struct kiocb *req)
{
	rec->req = req;
	rec->flags = 0;
	nw_mark_push(&nw_req_recs, &rec->mark);
}

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

void nw_req_flags_set(struct kiocb *req, int flags)
{
	struct nw_req_rec *rec = nw_req_rec_of(req);

	if (rec)
		rec->flags |= flags;
}

void nw_req_flags_clear(struct kiocb *req, int flags)
{
	struct nw_req_rec *rec = nw_req_rec_of(req);

	if (rec)
		rec->flags &= ~flags;
}
#endif

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

void nw_fs_set(enum nw_fs fs, unsigned long write_iter, bool offered)
{
	WRITE_ONCE(nw_fs_slots[fs].offered, write_iter && offered);
	WRITE_ONCE(nw_fs_slots[fs].write_iter, write_iter);
}

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

/*
 * 4.14's FMODE_NOWAIT test: 0, or -EOPNOTSUPP for a file whose
 * filesystem offers no NOWAIT (counted), or -EAGAIN (counted as
 * eagain_warmup) for one whose module has just come and whose hooks are
 * being attached: "not supported" would be final for the caller.
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

/*
 * 4.14's kiocb_set_rw_flags(): an unknown bit, or NOWAIT on a file without
 * FMODE_NOWAIT, is EOPNOTSUPP (counted); EAGAIN while its filesystem's
 * hooks attach.
 */
int nw_check_rw_flags(struct file *file, unsigned int flags)
{
	if (flags & ~NW_RWF_SUPPORTED)
		return nw_unsupported();
	return (flags & RWF_NOWAIT) ? nw_file_nowait_check(file) : 0;
}
