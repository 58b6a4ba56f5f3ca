/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer: compact output (no blanks), members in
 * the order they are written, every string escaped so that the document
 * stays valid whatever bytes a name holds (quotes, backslashes, control
 * bytes, invalid UTF-8).
 *
 * Each value call takes the member's key, or NULL for an array element
 * or the top-level value; the writer adds the commas.
 */
#ifndef SMCCTL_JSON_H
#define SMCCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json {
	FILE *f;
	unsigned int depth;
	bool more[JSON_MAX_DEPTH + 1];	/* a value was written at this level */
};

void json_init(struct json *j, FILE *f);

void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);

/* a string; NULL writes null */
void json_str(struct json *j, const char *key, const char *s);
/* @n bytes of @s (a NUL among them ends the string) */
void json_strn(struct json *j, const char *key, const char *s, size_t n);
void json_strf(struct json *j, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

/*
 * Write @n bytes of @s as a quoted JSON string to @f: '"' and '\\'
 * escaped, control bytes as \n, \t, ... or \u00XX, valid UTF-8 kept,
 * every byte of an invalid sequence replaced by U+FFFD.  Stops at a NUL.
 */
void json_quote(FILE *f, const char *s, size_t n);

#endif /* SMCCTL_JSON_H */
