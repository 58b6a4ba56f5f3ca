/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the fuzz targets: property checks that abort (so that
 * libFuzzer keeps the input as a crash), output objects with guard bands
 * around them, and a reader that turns fuzz input into structured values.
 */
#ifndef SMC_FUZZ_H
#define SMC_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/types.h>

#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: property violated: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

/* ------------------------------------------------------------------ */
/* guarded output objects                                              */

#define FUZZ_GUARD	64
#define FUZZ_GUARD_BYTE	0xa5

/*
 * Room for @size bytes with FUZZ_GUARD pattern bytes on either side; the
 * object itself is filled with @fill.  fuzz_guard_free() checks that the
 * bands are intact (nothing wrote outside the object) and frees it.
 */
static inline void *fuzz_guard_alloc(size_t size, int fill)
{
	u8 *p = malloc(size + 2 * FUZZ_GUARD);

	if (!p)
		abort();
	memset(p, FUZZ_GUARD_BYTE, FUZZ_GUARD);
	memset(p + FUZZ_GUARD, fill, size);
	memset(p + FUZZ_GUARD + size, FUZZ_GUARD_BYTE, FUZZ_GUARD);
	return p + FUZZ_GUARD;
}

static inline void fuzz_guard_free(void *obj, size_t size)
{
	u8 *p = (u8 *)obj - FUZZ_GUARD;
	size_t i;

	for (i = 0; i < FUZZ_GUARD; i++) {
		FUZZ_CHECK(p[i] == FUZZ_GUARD_BYTE);
		FUZZ_CHECK(p[FUZZ_GUARD + size + i] == FUZZ_GUARD_BYTE);
	}
	free(p);
}

/* Are the @n bytes at @p all @c? */
static inline bool fuzz_all(const void *p, size_t n, u8 c)
{
	const u8 *b = p;

	while (n--)
		if (*b++ != c)
			return false;
	return true;
}

/*
 * Check an encoder's output buffer of @cap bytes that was filled with
 * FUZZ_GUARD_BYTE before the call: after a failure (@rc < 0) it must be
 * untouched, after success nothing past the @rc bytes written may change.
 */
static inline void fuzz_check_encoded(const u8 *buf, size_t cap, int rc)
{
	if (rc < 0) {
		FUZZ_CHECK(fuzz_all(buf, cap, FUZZ_GUARD_BYTE));
		return;
	}
	FUZZ_CHECK((size_t)rc <= cap);
	FUZZ_CHECK(fuzz_all(buf + rc, cap - rc, FUZZ_GUARD_BYTE));
}

/* ------------------------------------------------------------------ */
/* structured input                                                    */

struct fuzz_in {
	const u8 *p;
	size_t left;
};

/* Next byte, 0 once the input is used up. */
static inline u8 fuzz_u8(struct fuzz_in *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static inline u16 fuzz_u16(struct fuzz_in *in)
{
	return (u16)fuzz_u8(in) << 8 | fuzz_u8(in);
}

static inline u32 fuzz_u32(struct fuzz_in *in)
{
	return (u32)fuzz_u16(in) << 16 | fuzz_u16(in);
}

static inline u64 fuzz_u64(struct fuzz_in *in)
{
	return (u64)fuzz_u32(in) << 32 | fuzz_u32(in);
}

/* @n bytes into @out, zero padded when the input runs out. */
static inline void fuzz_bytes(struct fuzz_in *in, void *out, size_t n)
{
	size_t have = n < in->left ? n : in->left;

	memcpy(out, in->p, have);
	memset((u8 *)out + have, 0, n - have);
	in->p += have;
	in->left -= have;
}

/*
 * The rest of the input as a separate heap buffer of exactly its size, so
 * that AddressSanitizer catches a read one byte past it.  Free with free().
 */
static inline u8 *fuzz_rest(struct fuzz_in *in, size_t *len)
{
	u8 *buf = malloc(in->left ? in->left : 1);

	if (!buf)
		abort();
	memcpy(buf, in->p, in->left);
	*len = in->left;
	in->p += in->left;
	in->left = 0;
	return buf;
}

#endif /* SMC_FUZZ_H */
