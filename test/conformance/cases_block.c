// SPDX-License-Identifier: GPL-2.0
/*
 * block.*: the block layer's part of no-wait AIO (request allocation on a
 * full queue, stacked devices).  The cases arrive with the block-layer work;
 * until then the group is empty and the runner lists nothing for it.
 */
#include "nwconf.h"

const struct nw_case nw_block_cases[] = {
	{ NULL }
};
