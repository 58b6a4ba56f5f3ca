// SPDX-License-Identifier: GPL-2.0
/*
 * smcctl's JSON writer (see json.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/*
 * Length of the valid UTF-8 sequence at @s (at most @n bytes), 0 if the
 * bytes there are not one (overlong forms, surrogates and code points
 * above U+10FFFF included).
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

void json_quote(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;

	fputc('"', f);
	while (i < n && s[i]) {
		unsigned char c = s[i];

		if (c >= 0x80) {
			len = utf8_len(s + i, n - i);
			if (len) {
				fwrite(s + i, 1, len, f);
				i += len;
			} else {
				fputs("\\ufffd", f);
				i++;
			}
			continue;
		}
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
		i++;
	}
	fputc('"', f);
}

/* the comma before a value and its key, if any */
static void json_sep(struct json *j, const char *key)
{
	if (j->more[j->depth])
		fputc(',', j->f);
	j->more[j->depth] = true;
	if (key) {
		json_quote(j->f, key, strlen(key));
		fputc(':', j->f);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_sep(j, key);
	fputc(c, j->f);
	if (j->depth == JSON_MAX_DEPTH)
		abort();		/* a bug in smcctl, not bad input */
	j->more[++j->depth] = false;
}

static void json_close(struct json *j, char c)
{
	if (!j->depth)
		abort();
	j->depth--;
	fputc(c, j->f);
}

void json_obj_open(struct json *j, const char *key)
{
	json_open(j, key, '{');
}

void json_obj_close(struct json *j)
{
	json_close(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	json_open(j, key, '[');
}

void json_arr_close(struct json *j)
{
	json_close(j, ']');
}

void json_strn(struct json *j, const char *key, const char *s, size_t n)
{
	json_sep(j, key);
	json_quote(j->f, s, n);
}

void json_str(struct json *j, const char *key, const char *s)
{
	if (!s) {
		json_null(j, key);
		return;
	}
	json_strn(j, key, s, strlen(s));
}

void json_strf(struct json *j, const char *key, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	json_strn(j, key, buf, n);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_sep(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	json_sep(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_sep(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_sep(j, key);
	fputs("null", j->f);
}
