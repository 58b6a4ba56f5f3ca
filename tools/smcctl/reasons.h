/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SMC_CLC_DECL_* reason codes (fixed by the SMC protocol; the values
 * of net/smc/clc_wire.h): why a connection fell back to TCP, or why a
 * peer declined.  Each with a short meaning and what to do about it.
 */
#ifndef SMCCTL_REASONS_H
#define SMCCTL_REASONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct smc_reason {
	uint32_t code;
	const char *name;	/* the macro's name, SMC_CLC_DECL_... */
	const char *meaning;
	const char *remedy;
	bool smcd;		/* concerns SMC-D (ISM) only */
	bool local;		/* this project's module reports it itself */
};

extern const struct smc_reason smc_reasons[];
extern const size_t smc_reasons_n;

/* the entry of @code, NULL when the protocol does not define it */
const struct smc_reason *smc_reason_find(uint32_t code);

/* the macro name of @code; "NONE" for 0, "UNKNOWN" if not defined */
const char *smc_reason_name(uint32_t code);

/* the meaning of @code; "no fallback" for 0, "unknown reason code" */
const char *smc_reason_text(uint32_t code);

#endif /* SMCCTL_REASONS_H */
