/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What smc_tcpopt.bpf.c and its loader (smc_tcpopt.c) share: the option
 * and the counters of the stats map (per CPU, summed by the loader).
 */
#ifndef SMC_TCPOPT_H
#define SMC_TCPOPT_H

/* RFC 7609's option: kind 254 (experimental), length 6, magic 0xE2D4C3D9 */
#define SMC_TCPOPT_KIND		254
#define SMC_TCPOPT_LEN		6
#define SMC_TCPOPT_MAGIC0	0xe2
#define SMC_TCPOPT_MAGIC1	0xd4
#define SMC_TCPOPT_MAGIC2	0xc3
#define SMC_TCPOPT_MAGIC3	0xd9

enum smc_tcpopt_stat {
	SMC_TCPOPT_SYN_SENT,		/* SYNs that carried the option */
	SMC_TCPOPT_SYNACK_SENT,		/* SYN-ACKs that carried it */
	SMC_TCPOPT_SYN_OFFERED,		/* SYNs with it that a listener took */
	SMC_TCPOPT_SYNACK_SEEN,		/* our SYNs answered with it */
	SMC_TCPOPT_NSTATS
};

#endif /* SMC_TCPOPT_H */
