// SPDX-License-Identifier: GPL-2.0
/*
 * The floor below every part (rules.h): switches, counters, fault
 * injection, RWF_* flags onto a kiocb, the page-cache probe and the
 * filesystem of a file.
 */
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/random.h>

#include "nowait_aio.h"

bool nw_enabled = true;
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

void nw_apply_rw_flags(struct kiocb *iocb, unsigned int flags)
{
	if (flags & RWF_HIPRI)
		iocb->ki_flags |= NW_IOCB_HIPRI;
	if (flags & RWF_DSYNC)
		iocb->ki_flags |= NW_IOCB_DSYNC;
	if (flags & RWF_SYNC)
		iocb->ki_flags |= NW_IOCB_DSYNC | NW_IOCB_SYNC;
	if (flags & RWF_NOWAIT) {
		iocb->ki_flags |= NW_IOCB_NOWAIT;
		nw_count(NW_CNT_ACCEPTED);
	}
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
	wi = (unsigned long)inode->i_fop->write_iter;
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
