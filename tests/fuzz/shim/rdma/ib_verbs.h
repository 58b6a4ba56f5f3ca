/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: what net/smc/ib.h needs to declare its structures. */
#ifndef SHIM_RDMA_IB_VERBS_H
#define SHIM_RDMA_IB_VERBS_H

#define IB_DEVICE_NAME_MAX	64

struct ib_device;

struct ib_event_handler {
	struct ib_device *device;
};

#endif
