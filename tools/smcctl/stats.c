// SPDX-License-Identifier: GPL-2.0
/*
 * smcctl stats [-d] [-a] [show|reset], smcctl fallback [-a].
 *
 * The module's counters only grow (per network namespace, from the
 * module's load on).  `stats reset` cannot zero them (the kernel has no
 * such command), so it remembers them in a baseline file of the user's,
 * one per network namespace:
 *
 *   ${XDG_CACHE_HOME:-$HOME/.cache}/smcctl/stats-net<INODE>
 *
 * and later `stats` and `fallback` show the counts since then; -a shows
 * the counts since the module was loaded.  A baseline is dropped (with a
 * note on stderr) when it cannot belong to the counters shown: another
 * boot, another SMC_GEN_NETLINK family id (the module was reloaded), or a
 * counter below its baseline.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/smc.h>

#include "reasons.h"
#include "smcctl.h"
#include "stats.h"

static const char *const size_label[ST_SIZES] = {
	"8K", "16K", "32K", "64K", "128K", "256K", "512K", "1024K", ">1024K"
};

/* in the order of SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT .. _DGRADE_CNT */
static const char *const bufev_key[ST_BUFEV] = {
	"small_peer", "small", "full_peer", "full", "reuse", "alloc",
	"downgrade"
};

static const char *const scalar_key[ST_RX_REQSIZE] = {
	[ST_CLNT_V1] = "client_v1", [ST_CLNT_V2] = "client_v2",
	[ST_SRV_V1] = "server_v1", [ST_SRV_V2] = "server_v2",
	[ST_HS_ERR_CLNT] = "hs_err_client", [ST_HS_ERR_SRV] = "hs_err_server",
	[ST_FB_CLNT] = "fallback_client", [ST_FB_SRV] = "fallback_server",
	[ST_RX_BYTES] = "rx_bytes", [ST_TX_BYTES] = "tx_bytes",
	[ST_RX_CNT] = "rx_calls", [ST_TX_CNT] = "tx_calls",
	[ST_CORK] = "cork", [ST_NDLY] = "nodelay", [ST_SENDPAGE] = "sendpage",
	[ST_SPLICE] = "splice", [ST_URG] = "urgent",
	[ST_RX_INUSE] = "rx_in_use", [ST_TX_INUSE] = "tx_in_use",
};

const char *st_key(unsigned int i)
{
	static char buf[32];

	if (i < ST_RX_REQSIZE)
		return scalar_key[i];
	if (i < ST_TX_REQSIZE)
		snprintf(buf, sizeof(buf), "rx_req_%s", size_label[i - ST_RX_REQSIZE]);
	else if (i < ST_RX_BUFSIZE)
		snprintf(buf, sizeof(buf), "tx_req_%s", size_label[i - ST_TX_REQSIZE]);
	else if (i < ST_TX_BUFSIZE)
		snprintf(buf, sizeof(buf), "rx_buf_%s", size_label[i - ST_RX_BUFSIZE]);
	else if (i < ST_RX_BUF)
		snprintf(buf, sizeof(buf), "tx_buf_%s", size_label[i - ST_TX_BUFSIZE]);
	else if (i < ST_TX_BUF)
		snprintf(buf, sizeof(buf), "rx_buf_%s", bufev_key[i - ST_RX_BUF]);
	else if (i < ST_N)
		snprintf(buf, sizeof(buf), "tx_buf_%s", bufev_key[i - ST_TX_BUF]);
	else
		return NULL;
	return buf;
}

bool st_monotonic(unsigned int i)
{
	return i != ST_RX_INUSE && i != ST_TX_INUSE;
}

/* ---- reading the counters ---- */

static void get_sizes(uint64_t *v, const struct nlattr *nest)
{
	const struct nlattr *tb[SMC_NLA_STATS_PLOAD_MAX + 1];
	unsigned int i;

	if (!nest)
		return;
	parse_nested(tb, SMC_NLA_STATS_PLOAD_MAX, nest);
	for (i = 0; i < ST_SIZES; i++)
		v[i] = attr_uint(tb[SMC_NLA_STATS_PLOAD_8K + i]);
}

static void get_bufev(uint64_t *v, const struct nlattr *nest)
{
	const struct nlattr *tb[SMC_NLA_STATS_RMB_MAX + 1];
	unsigned int i;

	if (!nest)
		return;
	parse_nested(tb, SMC_NLA_STATS_RMB_MAX, nest);
	for (i = 0; i < ST_BUFEV; i++)
		v[i] = attr_uint(tb[SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT + i]);
}

static void stats_cb(const struct nlmsghdr *nlh, void *arg)
{
	static const struct { unsigned int st, attr; } map[] = {
		{ ST_CLNT_V1, SMC_NLA_STATS_T_CLNT_V1_SUCC },
		{ ST_CLNT_V2, SMC_NLA_STATS_T_CLNT_V2_SUCC },
		{ ST_SRV_V1, SMC_NLA_STATS_T_SRV_V1_SUCC },
		{ ST_SRV_V2, SMC_NLA_STATS_T_SRV_V2_SUCC },
		{ ST_RX_BYTES, SMC_NLA_STATS_T_RX_BYTES },
		{ ST_TX_BYTES, SMC_NLA_STATS_T_TX_BYTES },
		{ ST_RX_CNT, SMC_NLA_STATS_T_RX_CNT },
		{ ST_TX_CNT, SMC_NLA_STATS_T_TX_CNT },
		{ ST_CORK, SMC_NLA_STATS_T_CORK_CNT },
		{ ST_NDLY, SMC_NLA_STATS_T_NDLY_CNT },
		{ ST_SENDPAGE, SMC_NLA_STATS_T_SENDPAGE_CNT },
		{ ST_SPLICE, SMC_NLA_STATS_T_SPLICE_CNT },
		{ ST_URG, SMC_NLA_STATS_T_URG_DATA_CNT },
		{ ST_RX_INUSE, SMC_NLA_STATS_T_RX_RMB_USAGE },
		{ ST_TX_INUSE, SMC_NLA_STATS_T_TX_RMB_USAGE },
	};
	const struct nlattr *tb[SMC_NLA_STATS_MAX + 1];
	const struct nlattr *t[SMC_NLA_STATS_T_MAX + 1];
	const struct nlattr *nest = smc_top(nlh, SMC_GEN_STATS);
	struct counters *c = arg;
	unsigned int i;

	if (!nest)
		return;
	parse_nested(tb, SMC_NLA_STATS_MAX, nest);
	c->v[ST_HS_ERR_CLNT] = attr_uint(tb[SMC_NLA_STATS_CLNT_HS_ERR_CNT]);
	c->v[ST_HS_ERR_SRV] = attr_uint(tb[SMC_NLA_STATS_SRV_HS_ERR_CNT]);
	if (!tb[SMC_NLA_STATS_SMCR_TECH])
		return;
	parse_nested(t, SMC_NLA_STATS_T_MAX, tb[SMC_NLA_STATS_SMCR_TECH]);
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		c->v[map[i].st] = attr_uint(t[map[i].attr]);
	get_sizes(&c->v[ST_RX_REQSIZE], t[SMC_NLA_STATS_T_RXPLOAD_SIZE]);
	get_sizes(&c->v[ST_TX_REQSIZE], t[SMC_NLA_STATS_T_TXPLOAD_SIZE]);
	get_sizes(&c->v[ST_RX_BUFSIZE], t[SMC_NLA_STATS_T_RX_RMB_SIZE]);
	get_sizes(&c->v[ST_TX_BUFSIZE], t[SMC_NLA_STATS_T_TX_RMB_SIZE]);
	get_bufev(&c->v[ST_RX_BUF], t[SMC_NLA_STATS_T_RX_RMB_STATS]);
	get_bufev(&c->v[ST_TX_BUF], t[SMC_NLA_STATS_T_TX_RMB_STATS]);
}

static void fback_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[SMC_NLA_FBACK_STATS_MAX + 1];
	const struct nlattr *nest = smc_top(nlh, SMC_GEN_FBACK_STATS);
	struct counters *c = arg;
	struct side_fback *s;

	if (!nest)
		return;
	parse_nested(tb, SMC_NLA_FBACK_STATS_MAX, nest);
	if (tb[SMC_NLA_FBACK_STATS_SRV_CNT])
		c->v[ST_FB_SRV] = attr_uint(tb[SMC_NLA_FBACK_STATS_SRV_CNT]);
	if (tb[SMC_NLA_FBACK_STATS_CLNT_CNT])
		c->v[ST_FB_CLNT] = attr_uint(tb[SMC_NLA_FBACK_STATS_CLNT_CNT]);
	if (!tb[SMC_NLA_FBACK_STATS_RSN_CODE])
		return;
	s = &c->fb[attr_uint(tb[SMC_NLA_FBACK_STATS_TYPE]) ? 1 : 0];
	if (s->n == FB_MAX_REASONS)
		return;
	s->code[s->n] = (uint32_t)attr_uint(tb[SMC_NLA_FBACK_STATS_RSN_CODE]);
	s->count[s->n] = (uint32_t)attr_uint(tb[SMC_NLA_FBACK_STATS_RSN_CNT]);
	s->n++;
}

static void get_counters(int fd, int family, struct counters *c, bool all)
{
	memset(c, 0, sizeof(*c));
	if (all)
		smc_dump(fd, family, SMC_NETLINK_GET_STATS, stats_cb, c);
	smc_dump(fd, family, SMC_NETLINK_GET_FBACK_STATS, fback_cb, c);
}

/* ---- the baseline ---- */

#define BASELINE_MAGIC "smcctl-stats-baseline 1"

int baseline_write(FILE *f, const struct baseline *b)
{
	unsigned int i, s, k;

	fprintf(f, "%s\nboot_id %s\nfamily %d\nnetns %" PRIu64
		"\ntime %" PRId64 "\n", BASELINE_MAGIC, b->boot_id, b->family,
		b->netns, b->time);
	for (i = 0; i < ST_N; i++)
		if (st_monotonic(i))
			fprintf(f, "%s %" PRIu64 "\n", st_key(i), b->c.v[i]);
	for (s = 0; s < 2; s++)
		for (k = 0; k < b->c.fb[s].n; k++)
			fprintf(f, "reason_%s 0x%08" PRIx32 " %" PRIu32 "\n",
				s ? "server" : "client", b->c.fb[s].code[k],
				b->c.fb[s].count[k]);
	return fflush(f) || ferror(f) ? -1 : 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *s == '-' ? -1 : 0;
}

int baseline_read(FILE *f, struct baseline *b)
{
	char line[256], key[64], val[64], val2[64];
	struct side_fback *s;
	unsigned int i;
	uint64_t v, v2;
	int n;

	memset(b, 0, sizeof(*b));
	b->family = -1;
	if (!fgets(line, sizeof(line), f) ||
	    strncmp(line, BASELINE_MAGIC "\n", sizeof(BASELINE_MAGIC)))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%63s %63s %63s", key, val, val2);
		if (n < 2)
			return -1;
		if (!strcmp(key, "boot_id")) {
			snprintf(b->boot_id, sizeof(b->boot_id), "%.39s", val);
			continue;
		}
		if (!strncmp(key, "reason_", 7)) {
			if (n != 3 || parse_u64(val, &v) || parse_u64(val2, &v2) ||
			    v > UINT32_MAX || v2 > UINT32_MAX)
				return -1;
			if (!strcmp(key + 7, "client"))
				s = &b->c.fb[0];
			else if (!strcmp(key + 7, "server"))
				s = &b->c.fb[1];
			else
				return -1;
			if (s->n == FB_MAX_REASONS)
				return -1;
			s->code[s->n] = (uint32_t)v;
			s->count[s->n++] = (uint32_t)v2;
			continue;
		}
		if (parse_u64(val, &v))
			return -1;
		if (!strcmp(key, "family")) {
			b->family = v > INT_MAX ? -1 : (int)v;
		} else if (!strcmp(key, "netns")) {
			b->netns = v;
		} else if (!strcmp(key, "time")) {
			b->time = (int64_t)v;
		} else {
			/* unknown names (a later smcctl's) are left out */
			for (i = 0; i < ST_N; i++) {
				if (st_monotonic(i) && !strcmp(key, st_key(i))) {
					b->c.v[i] = v;
					break;
				}
			}
		}
	}
	return ferror(f) ? -1 : 0;
}

static uint32_t base_count(const struct side_fback *b, uint32_t code)
{
	unsigned int i;

	for (i = 0; i < b->n; i++)
		if (b->code[i] == code)
			return b->count[i];
	return 0;
}

int counters_sub(struct counters *cur, const struct counters *base)
{
	struct counters out = *cur;
	unsigned int i, s, k;
	uint32_t bc;

	for (i = 0; i < ST_N; i++) {
		if (!st_monotonic(i))
			continue;
		if (cur->v[i] < base->v[i])
			return -1;
		out.v[i] = cur->v[i] - base->v[i];
	}
	for (s = 0; s < 2; s++) {
		out.fb[s].n = 0;
		for (i = 0; i < cur->fb[s].n; i++) {
			bc = base_count(&base->fb[s], cur->fb[s].code[i]);
			if (cur->fb[s].count[i] < bc)
				return -1;
			if (cur->fb[s].count[i] == bc)
				continue;
			k = out.fb[s].n++;
			out.fb[s].code[k] = cur->fb[s].code[i];
			out.fb[s].count[k] = cur->fb[s].count[i] - bc;
		}
	}
	*cur = out;
	return 0;
}

static void read_boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static uint64_t netns_inode(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (uint64_t)st.st_ino;
}

/* $XDG_CACHE_HOME/smcctl, else ~/.cache/smcctl; NULL if no home */
static const char *cache_dir(void)
{
	static char dir[PATH_MAX];
	const char *base = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct passwd *pw;
	int n;

	if (base && base[0] == '/') {
		n = snprintf(dir, sizeof(dir), "%s/smcctl", base);
	} else {
		if (!home || home[0] != '/') {
			pw = getpwuid(getuid());
			home = pw ? pw->pw_dir : NULL;
		}
		if (!home)
			return NULL;
		n = snprintf(dir, sizeof(dir), "%s/.cache/smcctl", home);
	}
	return n > 0 && (size_t)n < sizeof(dir) ? dir : NULL;
}

static bool baseline_path(char *path, size_t len, uint64_t netns)
{
	const char *dir = cache_dir();
	int n;

	if (!dir)
		return false;
	n = snprintf(path, len, "%s/stats-net%" PRIu64, dir, netns);
	return n > 0 && (size_t)n < len;
}

/* mkdir -p, mode 0700 for what it creates */
static int mkdirs(const char *dir)
{
	char p[PATH_MAX];
	size_t i;

	snprintf(p, sizeof(p), "%s", dir);
	for (i = 1; p[i]; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			return -1;
		p[i] = '/';
	}
	return mkdir(p, 0700) && errno != EEXIST ? -1 : 0;
}

static void baseline_save(const struct baseline *b)
{
	char path[PATH_MAX], tmp[PATH_MAX + 32];
	const char *dir = cache_dir();
	FILE *f;
	int fd;

	if (!dir || !baseline_path(path, sizeof(path), b->netns))
		die(EXIT_ERR, "stats reset: no home directory for the baseline "
		    "(set HOME or XDG_CACHE_HOME)");
	if (mkdirs(dir))
		die(EXIT_ERR, "stats reset: cannot create %s: %s", dir,
		    strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f)
		die(EXIT_ERR, "stats reset: cannot write %s: %s", tmp,
		    strerror(errno));
	if (baseline_write(f, b) | fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		die(EXIT_ERR, "stats reset: cannot write %s: %s", path,
		    strerror(errno));
	}
}

/*
 * Subtract the baseline of this network namespace from @c, if there is
 * one that fits; returns its time, or 0.
 */
static int64_t baseline_apply(struct counters *c, int family)
{
	char path[PATH_MAX], boot_id[40];
	struct baseline *b;
	int64_t t = 0;
	FILE *f;

	if (!baseline_path(path, sizeof(path), netns_inode()))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	b = malloc(sizeof(*b));
	if (!b)
		die(EXIT_ERR, "out of memory");
	read_boot_id(boot_id, sizeof(boot_id));
	if (baseline_read(f, b))
		fprintf(stderr, "%s: %s is not a stats baseline: ignored\n",
			prog, path);
	else if (strcmp(b->boot_id, boot_id) || b->family != family ||
		 counters_sub(c, &b->c))
		fprintf(stderr, "%s: the counters were reset since `stats reset` "
			"(reboot or module reload): counting from the module's load\n",
			prog);
	else
		t = b->time ? b->time : 1;
	fclose(f);
	free(b);
	return t;
}

/* ---- output ---- */

static void json_since(struct json *j, int64_t since)
{
	if (since)
		json_i64(j, "since_reset", since);
	else
		json_null(j, "since_reset");
}

static void json_reasons(struct json *j, const char *key,
			 const struct side_fback *s)
{
	unsigned int i;

	json_arr_open(j, key);
	for (i = 0; i < s->n; i++) {
		json_obj_open(j, NULL);
		json_u64(j, "reason", s->code[i]);
		json_strf(j, "hex", "0x%08" PRIx32, s->code[i]);
		json_str(j, "name", smc_reason_name(s->code[i]));
		json_u64(j, "count", s->count[i]);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void text_since(int64_t since)
{
	char when[64];
	time_t t = (time_t)since;
	struct tm tm;

	if (!since)
		return;
	if (!localtime_r(&t, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(when, sizeof(when), "%" PRId64, since);
	printf("since smcctl stats reset at %s (-a: since the module was loaded)\n",
	       when);
}

static void text_reasons(const char *side, const struct side_fback *s,
			 uint64_t total)
{
	unsigned int i;

	printf("%s fallbacks: %" PRIu64 "\n", side, total);
	for (i = 0; i < s->n; i++)
		printf("  0x%08" PRIx32 "  %-26s %10" PRIu32 "\n", s->code[i],
		       smc_reason_name(s->code[i]), s->count[i]);
}

static void json_dir(struct json *j, const char *key, const uint64_t *v,
		     unsigned int bytes, unsigned int calls, unsigned int req,
		     unsigned int buf, unsigned int ev, unsigned int inuse)
{
	unsigned int i;

	json_obj_open(j, key);
	json_u64(j, "bytes", v[bytes]);
	json_u64(j, "calls", v[calls]);
	json_obj_open(j, "req_sizes");
	for (i = 0; i < ST_SIZES; i++)
		json_u64(j, size_label[i], v[req + i]);
	json_obj_close(j);
	json_obj_open(j, "buf_sizes");
	for (i = 0; i < ST_SIZES; i++)
		json_u64(j, size_label[i], v[buf + i]);
	json_obj_close(j);
	json_obj_open(j, "buf");
	for (i = 0; i < ST_BUFEV; i++)
		json_u64(j, bufev_key[i], v[ev + i]);
	json_obj_close(j);
	json_u64(j, "buf_in_use", v[inuse]);
	json_obj_close(j);
}

static void stats_json(const struct counters *c, int64_t since)
{
	const uint64_t *v = c->v;
	struct json j;

	json_init(&j, stdout);
	json_obj_open(&j, NULL);
	json_obj_open(&j, "smcr_connections");
	json_u64(&j, "client", v[ST_CLNT_V1] + v[ST_CLNT_V2]);
	json_u64(&j, "server", v[ST_SRV_V1] + v[ST_SRV_V2]);
	json_u64(&j, "v1", v[ST_CLNT_V1] + v[ST_SRV_V1]);
	json_u64(&j, "v2", v[ST_CLNT_V2] + v[ST_SRV_V2]);
	json_u64(&j, "client_v1", v[ST_CLNT_V1]);
	json_u64(&j, "client_v2", v[ST_CLNT_V2]);
	json_u64(&j, "server_v1", v[ST_SRV_V1]);
	json_u64(&j, "server_v2", v[ST_SRV_V2]);
	json_obj_close(&j);
	json_obj_open(&j, "fallbacks");
	json_u64(&j, "client", v[ST_FB_CLNT]);
	json_u64(&j, "server", v[ST_FB_SRV]);
	json_obj_close(&j);
	json_obj_open(&j, "handshake_errors");
	json_u64(&j, "client", v[ST_HS_ERR_CLNT]);
	json_u64(&j, "server", v[ST_HS_ERR_SRV]);
	json_obj_close(&j);
	json_dir(&j, "rx", v, ST_RX_BYTES, ST_RX_CNT, ST_RX_REQSIZE,
		 ST_RX_BUFSIZE, ST_RX_BUF, ST_RX_INUSE);
	json_dir(&j, "tx", v, ST_TX_BYTES, ST_TX_CNT, ST_TX_REQSIZE,
		 ST_TX_BUFSIZE, ST_TX_BUF, ST_TX_INUSE);
	json_obj_open(&j, "special_calls");
	json_u64(&j, "cork", v[ST_CORK]);
	json_u64(&j, "nodelay", v[ST_NDLY]);
	json_u64(&j, "sendpage", v[ST_SENDPAGE]);
	json_u64(&j, "splice", v[ST_SPLICE]);
	json_u64(&j, "urgent", v[ST_URG]);
	json_obj_close(&j);
	json_obj_open(&j, "fallback_reasons");
	json_reasons(&j, "client", &c->fb[0]);
	json_reasons(&j, "server", &c->fb[1]);
	json_obj_close(&j);
	json_since(&j, since);
	json_obj_close(&j);
	putchar('\n');
}

static void row(const char *name, uint64_t a, uint64_t b)
{
	printf("%-24s %14" PRIu64 " %14" PRIu64 "\n", name, a, b);
}

static void hist(const char *name, const uint64_t *v)
{
	unsigned int i;

	printf("  %-4s", name);
	for (i = 0; i < ST_SIZES; i++)
		printf(" %7" PRIu64, v[i]);
	putchar('\n');
}

static void stats_text(const struct counters *c, int64_t since)
{
	const uint64_t *v = c->v;
	unsigned int i;

	text_since(since);
	printf("%-18s %12s %12s\n", "", "client", "server");
	printf("%-18s %12" PRIu64 " %12" PRIu64 "\n", "SMC-R (v1)",
	       v[ST_CLNT_V1], v[ST_SRV_V1]);
	printf("%-18s %12" PRIu64 " %12" PRIu64 "\n", "SMC-R (v2)",
	       v[ST_CLNT_V2], v[ST_SRV_V2]);
	printf("%-18s %12" PRIu64 " %12" PRIu64 "\n", "TCP fallback",
	       v[ST_FB_CLNT], v[ST_FB_SRV]);
	printf("%-18s %12" PRIu64 " %12" PRIu64 "\n", "handshake errors",
	       v[ST_HS_ERR_CLNT], v[ST_HS_ERR_SRV]);
	printf("rx %" PRIu64 " bytes in %" PRIu64 " calls, tx %" PRIu64
	       " bytes in %" PRIu64 " calls\n", v[ST_RX_BYTES], v[ST_RX_CNT],
	       v[ST_TX_BYTES], v[ST_TX_CNT]);
	if (!opt.details)
		return;

	putchar('\n');
	text_reasons("client", &c->fb[0], v[ST_FB_CLNT]);
	text_reasons("server", &c->fb[1], v[ST_FB_SRV]);
	putchar('\n');
	printf("%-24s %14s %14s\n", "buffers", "rx (RMB)", "tx (send)");
	row("full", v[ST_RX_BUF + 3], v[ST_TX_BUF + 3]);
	row("full (peer's)", v[ST_RX_BUF + 2], v[ST_TX_BUF + 2]);
	row("too small", v[ST_RX_BUF + 1], v[ST_TX_BUF + 1]);
	row("too small (peer's)", v[ST_RX_BUF + 0], v[ST_TX_BUF + 0]);
	row("allocated", v[ST_RX_BUF + 5], v[ST_TX_BUF + 5]);
	row("reused", v[ST_RX_BUF + 4], v[ST_TX_BUF + 4]);
	row("downgraded", v[ST_RX_BUF + 6], v[ST_TX_BUF + 6]);
	row("bytes in use", v[ST_RX_INUSE], v[ST_TX_INUSE]);
	putchar('\n');
	printf("%-6s", "sizes");
	for (i = 0; i < ST_SIZES; i++)
		printf(" %7s", size_label[i]);
	putchar('\n');
	printf("buffers\n");
	hist("rx", &v[ST_RX_BUFSIZE]);
	hist("tx", &v[ST_TX_BUFSIZE]);
	printf("requests\n");
	hist("rx", &v[ST_RX_REQSIZE]);
	hist("tx", &v[ST_TX_REQSIZE]);
	putchar('\n');
	printf("special calls: cork %" PRIu64 ", nodelay %" PRIu64 ", sendpage %"
	       PRIu64 ", splice %" PRIu64 ", urgent %" PRIu64 "\n", v[ST_CORK],
	       v[ST_NDLY], v[ST_SENDPAGE], v[ST_SPLICE], v[ST_URG]);
}

int cmd_stats(int argc, char **argv)
{
	struct counters *shown;
	bool reset = false;
	struct baseline *b;
	int fd, family;
	int64_t since = 0;

	if (argc > 1)
		die(EXIT_USAGE, "stats: one of show, reset at most");
	if (argc == 1 && !strcmp(argv[0], "reset"))
		reset = true;
	else if (argc == 1 && strcmp(argv[0], "show"))
		die(EXIT_USAGE, "stats: unknown subcommand %s (show, reset)",
		    argv[0]);
	b = calloc(1, sizeof(*b));
	shown = malloc(sizeof(*shown));
	if (!b || !shown)
		die(EXIT_ERR, "out of memory");
	fd = nl_open(NETLINK_GENERIC);
	family = smc_family(fd);
	get_counters(fd, family, &b->c, true);
	close(fd);

	/* what is shown: since the last reset (or load), reset or not */
	*shown = b->c;
	if (!opt.absolute)
		since = baseline_apply(shown, family);
	if (reset) {
		/* the absolute counts are the new baseline */
		read_boot_id(b->boot_id, sizeof(b->boot_id));
		b->family = family;
		b->netns = netns_inode();
		b->time = (int64_t)time(NULL);
		baseline_save(b);
	}
	if (opt.json)
		stats_json(shown, since);
	else
		stats_text(shown, since);
	free(shown);
	free(b);
	return 0;
}

int cmd_fallback(int argc, char **argv)
{
	struct counters *c;
	int64_t since = 0;
	struct json j;
	int fd, family;

	(void)argv;
	if (argc)
		die(EXIT_USAGE, "fallback: no arguments");
	c = calloc(1, sizeof(*c));
	if (!c)
		die(EXIT_ERR, "out of memory");
	fd = nl_open(NETLINK_GENERIC);
	family = smc_family(fd);
	get_counters(fd, family, c, !opt.absolute);
	close(fd);
	if (!opt.absolute)
		since = baseline_apply(c, family);
	if (opt.json) {
		json_init(&j, stdout);
		json_obj_open(&j, NULL);
		json_obj_open(&j, "client");
		json_u64(&j, "total", c->v[ST_FB_CLNT]);
		json_reasons(&j, "reasons", &c->fb[0]);
		json_obj_close(&j);
		json_obj_open(&j, "server");
		json_u64(&j, "total", c->v[ST_FB_SRV]);
		json_reasons(&j, "reasons", &c->fb[1]);
		json_obj_close(&j);
		json_since(&j, since);
		json_obj_close(&j);
		putchar('\n');
	} else {
		text_since(since);
		text_reasons("client", &c->fb[0], c->v[ST_FB_CLNT]);
		text_reasons("server", &c->fb[1], c->v[ST_FB_SRV]);
	}
	free(c);
	return 0;
}
