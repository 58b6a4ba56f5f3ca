#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smcr-2links.sh with a second RDMA device per VM (rxe1 on eth1): the
# second link of a link group goes device to device (symmetric).
# vmtest-nics: 2
SMCR_SYM=1 exec bash "$(dirname "${BASH_SOURCE[0]}")/smcr-2links.sh" "$@"
