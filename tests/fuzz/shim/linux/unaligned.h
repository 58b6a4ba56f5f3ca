/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzz shim: unaligned and big-endian accessors built from byte loads and
 * stores, so that they are correct on any host and every byte they touch
 * is seen by AddressSanitizer.
 */
#ifndef SHIM_LINUX_UNALIGNED_H
#define SHIM_LINUX_UNALIGNED_H

#include <string.h>
#include <linux/types.h>

static inline u64 shim_get_be(const void *p, unsigned int n)
{
	const u8 *b = p;
	u64 v = 0;

	while (n--)
		v = v << 8 | *b++;
	return v;
}

static inline void shim_put_be(u64 v, void *p, unsigned int n)
{
	u8 *b = p;

	while (n--) {
		b[n] = v;
		v >>= 8;
	}
}

#define get_unaligned_be16(p)	((u16)shim_get_be(p, 2))
#define get_unaligned_be24(p)	((u32)shim_get_be(p, 3))
#define get_unaligned_be32(p)	((u32)shim_get_be(p, 4))
#define get_unaligned_be64(p)	((u64)shim_get_be(p, 8))
#define put_unaligned_be16(v, p)	shim_put_be((u16)(v), p, 2)
#define put_unaligned_be24(v, p)	shim_put_be((v) & 0xffffff, p, 3)
#define put_unaligned_be32(v, p)	shim_put_be((u32)(v), p, 4)
#define put_unaligned_be64(v, p)	shim_put_be((u64)(v), p, 8)

/* native byte order, any size up to 8 */
static inline u64 shim_get_native(const void *p, unsigned int n)
{
	u8 b1;
	u16 b2;
	u32 b4;
	u64 b8;

	switch (n) {
	case 1:
		memcpy(&b1, p, 1);
		return b1;
	case 2:
		memcpy(&b2, p, 2);
		return b2;
	case 4:
		memcpy(&b4, p, 4);
		return b4;
	default:
		memcpy(&b8, p, 8);
		return b8;
	}
}

#define get_unaligned(ptr) \
	((__typeof__(*(ptr)))shim_get_native(ptr, sizeof(*(ptr))))
#define put_unaligned(val, ptr) do {				\
	__typeof__(*(ptr)) shim_v = (val);			\
	memcpy((ptr), &shim_v, sizeof(shim_v));			\
} while (0)

#endif
