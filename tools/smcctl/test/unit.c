// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of smcctl's parts that need no kernel: the JSON writer (every
 * string escaped, whatever its bytes), the reason table, the stats
 * baseline (written, read back, subtracted).
 *
 *   smcctl-unit            runs the tests: "ok"/"not ok" lines, then
 *                          "N passed, N failed"; exit 1 on a failure
 *   smcctl-unit --awkward  prints one JSON document whose strings hold
 *                          awkward bytes, for a real JSON parser to read
 */
#include <stdlib.h>
#include <string.h>

#include "../json.h"
#include "../reasons.h"
#include "../smcctl.h"
#include "../stats.h"

struct opts opt;
const char *prog = "smcctl-unit";

static unsigned int passed, failed;

static void ok(bool cond, const char *what)
{
	if (cond) {
		passed++;
		printf("ok %u - %s\n", passed + failed, what);
	} else {
		failed++;
		printf("not ok %u - %s\n", passed + failed, what);
	}
}

/* what json_quote() makes of @n bytes of @in */
static char *quoted(const char *in, size_t n)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	json_quote(f, in, n);
	fclose(f);
	return buf;
}

static void quote_is(const char *in, size_t n, const char *want,
		     const char *what)
{
	char *got = quoted(in, n);

	ok(!strcmp(got, want), what);
	if (strcmp(got, want))
		printf("#   got %s\n#  want %s\n", got, want);
	free(got);
}

#define Q(in, want, what) quote_is(in, sizeof(in) - 1, want, what)

static void test_quote(void)
{
	Q("eth0", "\"eth0\"", "plain name");
	Q("", "\"\"", "empty string");
	Q("a\"b", "\"a\\\"b\"", "quote escaped");
	Q("a\\b", "\"a\\\\b\"", "backslash escaped");
	Q("\"\\\"", "\"\\\"\\\\\\\"\"", "quote, backslash, quote");
	Q("a\nb\tc\rd\be\ff", "\"a\\nb\\tc\\rd\\be\\ff\"",
	  "short escapes for \\n \\t \\r \\b \\f");
	Q("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"",
	  "other control bytes and DEL as \\u00XX");
	Q("/", "\"/\"", "slash kept");
	Q("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
	  "valid 2, 3 and 4 byte UTF-8 kept");
	Q("\xff", "\"\\ufffd\"", "byte 0xff replaced");
	Q("a\x80z", "\"a\\ufffdz\"", "lone continuation byte replaced");
	Q("\xc0\x80", "\"\\ufffd\\ufffd\"", "overlong NUL replaced");
	Q("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"", "overlong 3 byte form replaced");
	Q("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "UTF-16 surrogate replaced");
	Q("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
	  "code point above U+10FFFF replaced");
	Q("x\xe2\x82", "\"x\\ufffd\\ufffd\"", "sequence cut by the end replaced");
	Q("ab\0cd", "\"ab\"", "a NUL ends the string");
	quote_is("abcdef", 3, "\"abc\"", "length bounds the string");
	quote_is("\xe2\x82\xac", 2, "\"\\ufffd\\ufffd\"",
		 "length cuts a sequence: replaced, not overread");
}

/* a writer's whole output */
static char *doc(void (*fill)(struct json *j))
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	struct json j;

	json_init(&j, f);
	fill(&j);
	fclose(f);
	return buf;
}

static void fill_nested(struct json *j)
{
	json_obj_open(j, NULL);
	json_arr_open(j, "a");
	json_u64(j, NULL, 1);
	json_str(j, NULL, "x");
	json_null(j, NULL);
	json_obj_open(j, NULL);
	json_bool(j, "b", true);
	json_obj_close(j);
	json_arr_close(j);
	json_obj_open(j, "c");
	json_obj_close(j);
	json_arr_open(j, "d");
	json_arr_close(j);
	json_i64(j, "e", -5);
	json_u64(j, "f", UINT64_MAX);
	json_str(j, "g", NULL);
	json_strf(j, "h", "0x%08x", 0x3010000u);
	json_strn(j, "k\"ey", "v\\al", 4);
	json_obj_close(j);
}

static void fill_top_array(struct json *j)
{
	json_arr_open(j, NULL);
	json_arr_close(j);
}

static void test_writer(void)
{
	char *s = doc(fill_nested);
	const char *want = "{\"a\":[1,\"x\",null,{\"b\":true}],\"c\":{},"
		"\"d\":[],\"e\":-5,\"f\":18446744073709551615,\"g\":null,"
		"\"h\":\"0x03010000\",\"k\\\"ey\":\"v\\\\al\"}";

	ok(!strcmp(s, want), "nested document: commas, keys, null, numbers");
	if (strcmp(s, want))
		printf("#   got %s\n#  want %s\n", s, want);
	free(s);
	s = doc(fill_top_array);
	ok(!strcmp(s, "[]"), "empty top-level array");
	free(s);
}

static void test_reasons(void)
{
	bool sorted = true, named = true, texts = true;
	size_t i;

	for (i = 0; i < smc_reasons_n; i++) {
		if (i && smc_reasons[i].code <= smc_reasons[i - 1].code)
			sorted = false;
		if (strncmp(smc_reasons[i].name, "SMC_CLC_DECL_", 13))
			named = false;
		if (!smc_reasons[i].meaning[0] || !smc_reasons[i].remedy[0] ||
		    strchr(smc_reasons[i].meaning, '\n'))
			texts = false;
	}
	ok(smc_reasons_n == 36, "36 reason codes (net/smc/clc_wire.h)");
	ok(sorted, "reason codes ascending and unique");
	ok(named, "reason names are SMC_CLC_DECL_*");
	ok(texts, "every reason has a meaning and a remedy");
	ok(!strcmp(smc_reason_name(0), "NONE"), "code 0 is NONE");
	ok(!strcmp(smc_reason_name(0x12345678), "UNKNOWN"),
	   "an undefined code is UNKNOWN");
	ok(!strcmp(smc_reason_name(0x03010000), "SMC_CLC_DECL_PEERNOSMC"),
	   "0x03010000 is PEERNOSMC");
	ok(!strcmp(smc_reason_text(0x12345678), "unknown reason code"),
	   "an undefined code's text");
	ok(smc_reason_find(0x03030008) && !smc_reason_find(0x03030008)->smcd,
	   "NOUEID concerns SMC-R");
}

static void test_baseline(void)
{
	struct baseline *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct counters *cur = calloc(1, sizeof(*cur));
	bool uniq = true, same = true;
	char *buf = NULL;
	size_t size = 0;
	unsigned int i, k;
	FILE *f;

	for (i = 0; i < ST_N; i++)
		for (k = 0; k < i; k++) {
			char one[32];

			snprintf(one, sizeof(one), "%s", st_key(i));
			if (!strcmp(one, st_key(k)))
				uniq = false;
		}
	ok(uniq, "counter names unique");

	snprintf(a->boot_id, sizeof(a->boot_id), "0b6f-boot");
	a->family = 31;
	a->netns = 4026531840u;
	a->time = 1700000000;
	for (i = 0; i < ST_N; i++)
		a->c.v[i] = st_monotonic(i) ? 1000 + i : 0;
	a->c.fb[0].n = 2;
	a->c.fb[0].code[0] = 0x03010000;
	a->c.fb[0].count[0] = 7;
	a->c.fb[0].code[1] = 0x03030002;
	a->c.fb[0].count[1] = 3;
	a->c.fb[1].n = 1;
	a->c.fb[1].code[0] = 0x03030008;
	a->c.fb[1].count[0] = 65535;

	f = open_memstream(&buf, &size);
	ok(!baseline_write(f, a), "baseline written");
	fclose(f);
	f = fmemopen(buf, size, "r");
	ok(!baseline_read(f, b), "baseline read back");
	fclose(f);
	for (i = 0; i < ST_N; i++)
		if (a->c.v[i] != b->c.v[i])
			same = false;
	ok(same && !strcmp(a->boot_id, b->boot_id) && a->family == b->family &&
	   a->netns == b->netns && a->time == b->time &&
	   !memcmp(&a->c.fb, &b->c.fb, sizeof(a->c.fb)),
	   "baseline round trip keeps every counter and reason");
	free(buf);

	f = fmemopen("not a baseline\n", 15, "r");
	ok(baseline_read(f, b), "a file that is no baseline is refused");
	fclose(f);
	f = fmemopen("smcctl-stats-baseline 1\nrx_bytes -4\n", 36, "r");
	ok(baseline_read(f, b), "a negative count is refused");
	fclose(f);

	/* now: 5 more of everything, one more PEERNOSMC, a new reason */
	*cur = a->c;
	for (i = 0; i < ST_N; i++)
		cur->v[i] += 5;
	cur->fb[0].count[0] += 1;
	cur->fb[0].n = 3;
	cur->fb[0].code[2] = 0x03070000;
	cur->fb[0].count[2] = 2;
	ok(!counters_sub(cur, &a->c), "counters above the baseline subtract");
	same = true;
	for (i = 0; i < ST_N; i++)
		if (cur->v[i] != 5)
			same = false;
	ok(same, "every counter shows what came since (gauges as they are)");
	ok(cur->fb[0].n == 2 && cur->fb[0].code[0] == 0x03010000 &&
	   cur->fb[0].count[0] == 1 && cur->fb[0].code[1] == 0x03070000 &&
	   cur->fb[0].count[1] == 2 && cur->fb[1].n == 0,
	   "reasons: new counts kept, unchanged ones dropped");

	*cur = a->c;
	cur->v[ST_TX_BYTES] = 3;
	ok(counters_sub(cur, &a->c) && cur->v[ST_TX_BYTES] == 3,
	   "a counter below its baseline: refused, counters left alone");
	free(a);
	free(b);
	free(cur);
}

/* strings an interface, device or host name could hold */
static void awkward(void)
{
	static const char *const names[] = {
		"eth\"0", "back\\slash", "tab\there", "nl\nx", "\x01\x02\x1b[31m",
		"\x7f", "\xff\xfe", "caf\xc3\xa9", "\xed\xa0\x80", "", "ok",
	};
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_obj_open(&j, NULL);
	json_arr_open(&j, "names");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		json_str(&j, NULL, names[i]);
	json_arr_close(&j);
	json_obj_open(&j, "keyed");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		json_str(&j, names[i], names[i]);
	json_obj_close(&j);
	json_obj_close(&j);
	putchar('\n');
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--awkward")) {
		awkward();
		return 0;
	}
	test_quote();
	test_writer();
	test_reasons();
	test_baseline();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
