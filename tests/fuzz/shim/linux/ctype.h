/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzz shim: character classes as the kernel defines them, which differ
 * from the C library's: bytes 0x80-0xff are ISO 8859-1 (0xa0 is a blank,
 * 0xc0-0xde but 0xd7 upper case, 0xdf-0xff but 0xf7 lower case) whatever
 * the locale, and toupper() only moves lower case letters by 32.
 */
#ifndef SHIM_LINUX_CTYPE_H
#define SHIM_LINUX_CTYPE_H

#include <linux/types.h>

static inline bool shim_isupper(u8 c)
{
	return (c >= 'A' && c <= 'Z') ||
	       (c >= 0xc0 && c <= 0xde && c != 0xd7);
}

static inline bool shim_islower(u8 c)
{
	return (c >= 'a' && c <= 'z') || (c >= 0xdf && c != 0xf7);
}

static inline bool shim_isdigit(u8 c)
{
	return c >= '0' && c <= '9';
}

static inline bool shim_isspace(u8 c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static inline bool shim_isalpha(u8 c)
{
	return shim_isupper(c) || shim_islower(c);
}

static inline bool shim_isalnum(u8 c)
{
	return shim_isalpha(c) || shim_isdigit(c);
}

#define isupper(c)	shim_isupper(c)
#define islower(c)	shim_islower(c)
#define isdigit(c)	shim_isdigit(c)
#define isalpha(c)	shim_isalpha(c)
#define isalnum(c)	shim_isalnum(c)
#define isspace(c)	shim_isspace(c)
#define isascii(c)	((u8)(c) <= 0x7f)

static inline u8 shim_toupper(u8 c)
{
	return shim_islower(c) ? c - ('a' - 'A') : c;
}

static inline u8 shim_tolower(u8 c)
{
	return shim_isupper(c) ? c + ('a' - 'A') : c;
}

#define toupper(c)	shim_toupper(c)
#define tolower(c)	shim_tolower(c)

#endif
