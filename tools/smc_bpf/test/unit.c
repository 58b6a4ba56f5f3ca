// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of smc_bpf's parts that need no kernel (rules.h): port and
 * address lists, unit names, the drop-in's text, the status report.
 *
 *   smc_bpf-unit            runs the tests: "ok"/"not ok" lines, then
 *                           "N passed, N failed"; exit 1 on a failure
 *   smc_bpf-unit --json     prints `status --json` of a made-up policy
 *                           whose names hold awkward bytes, for a real
 *                           JSON parser to read (test/run)
 *   smc_bpf-unit --text     the same status as text
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "rules.h"

static unsigned int passed, failed;

static void ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		passed++;
	else
		failed++;
	printf("%sok %u - ", cond ? "" : "not ", passed + failed);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* --ports @in gives @want (its ports_str), or fails when @want is NULL */
static void ports_case(const char *in, const char *want)
{
	char err[ERR_LEN] = "", buf[PORTS_STR_LEN];
	struct rules r = { 0 };
	const char *got;
	int rc;

	rc = parse_ports(in, &r, err, sizeof(err));
	if (!want) {
		ok(rc == -1 && err[0] && !r.ports_given,
		   "--ports '%s' refused: %s", in, err);
		return;
	}
	got = rc ? err : ports_str(r.ports, r.nports, buf, sizeof(buf));
	ok(!rc && r.ports_given && !strcmp(got, want),
	   "--ports '%s' is %s (got %s)", in, want, got);
}

static void addrs_case(const char *in, const char *want)
{
	char err[ERR_LEN] = "", buf[ADDRS_STR_LEN];
	struct rules r = { 0 };
	const char *got;
	int rc;

	rc = parse_addrs(in, &r, err, sizeof(err));
	if (!want) {
		ok(rc == -1 && err[0] && !r.addrs_given,
		   "--addr '%s' refused: %s", in, err);
		return;
	}
	got = rc ? err : addrs_str(r.addrs, r.naddrs, buf, sizeof(buf));
	ok(!rc && r.addrs_given && !strcmp(got, want),
	   "--addr '%s' is %s (got %s)", in, want, got);
}

static void unit_case(const char *in, const char *want)
{
	char err[ERR_LEN] = "", out[SMC_BPF_UNIT_LEN] = "";
	int rc = unit_name(in, out, sizeof(out), err, sizeof(err));

	if (!want)
		ok(rc == -1 && err[0], "--unit '%s' refused: %s", in, err);
	else
		ok(!rc && !strcmp(out, want), "--unit '%s' is %s (got %s%s)",
		   in, want, out, err);
}

static void test_ports(void)
{
	struct rules r = { 0 };
	char err[ERR_LEN], many[256];
	int i, off = 0;

	ports_case("80", "80");
	ports_case("80,443,8000-8099", "80,443,8000-8099");
	ports_case(" 443 , 80 ", "80,443");
	ports_case("8000 - 8099", "8000-8099");
	ports_case("443,80,443", "80,443");
	ports_case("80-90,85-100", "80-100");
	ports_case("80-90,90-100", "80-100");
	ports_case("8000-8099,8050", "8000-8099");
	ports_case("80,81,82", "80,81,82");
	ports_case("10-20,21-30", "10-20,21-30");
	ports_case("1-65535", "1-65535");
	ports_case("65535,1", "1,65535");
	ports_case("all", "all");
	ports_case("", NULL);
	ports_case("0", NULL);
	ports_case("65536", NULL);
	ports_case("99999999999999999999", NULL);
	ports_case("80,", NULL);
	ports_case(",80", NULL);
	ports_case("80,,443", NULL);
	ports_case("90-80", NULL);
	ports_case("8o", NULL);
	ports_case("-80", NULL);
	ports_case("+80", NULL);
	ports_case("80-", NULL);
	ports_case("1-2-3", NULL);
	ports_case("0x50", NULL);
	ports_case("80 443", NULL);
	ports_case("all,80", NULL);
	/* 16 separate entries fit, 17 do not; merged ones count once */
	for (i = 0; i < 16; i++)
		off += snprintf(many + off, sizeof(many) - off, "%s%d",
				i ? "," : "", 1000 + 2 * i);
	ports_case(many, many);
	snprintf(many + off, sizeof(many) - off, ",2000");
	ports_case(many, NULL);
	snprintf(many + off, sizeof(many) - off, ",1000-1002");
	ports_case(many, "1000-1002,1004,1006,1008,1010,1012,1014,1016,1018,"
		   "1020,1022,1024,1026,1028,1030");
	/* what the BPF program reads */
	ok(!parse_ports("8000-8099,80", &r, err, sizeof(err)) && r.nports == 2 &&
	   r.ports[0].lo == 80 && r.ports[0].hi == 80 &&
	   r.ports[1].lo == 8000 && r.ports[1].hi == 8099 && !r.ports[2].lo,
	   "ranges sorted, lo/hi in host order, the rest zero");
}

static void test_addrs(void)
{
	struct rules r = { 0 };
	char err[ERR_LEN];
	const struct smc_bpf_prefix *p = &r.addrs[0];

	addrs_case("10.0.0.0/8", "10.0.0.0/8");
	addrs_case("10.1.2.3/8", "10.0.0.0/8");
	addrs_case("192.0.2.1", "192.0.2.1/32");
	addrs_case("0.0.0.0/0", "0.0.0.0/0");
	addrs_case("fd00::/8", "fd00::/8");
	addrs_case("fd12:3456::1/64", "fd12:3456::/64");
	addrs_case("::ffff:10.0.0.1", "::ffff:10.0.0.1/128");
	addrs_case(" 10.0.0.0/8 , fd00::/8 ", "10.0.0.0/8,fd00::/8");
	addrs_case("10.0.0.0/8,10.1.0.0/8", "10.0.0.0/8");
	addrs_case("all", "all");
	addrs_case("10.0.0.0/33", NULL);
	addrs_case("fd00::/129", NULL);
	addrs_case("10.0.0/8", NULL);
	addrs_case("10.0.0.0/", NULL);
	addrs_case("10.0.0.0/x", NULL);
	addrs_case("10.0.0.0/-1", NULL);
	addrs_case("10.0.0.0/+8", NULL);
	addrs_case("fe80::1%eth0", NULL);
	addrs_case("example.com", NULL);
	addrs_case("", NULL);
	addrs_case("10.0.0.1,,10.0.0.2", NULL);
	addrs_case("10.0.0.1,", NULL);
	addrs_case("1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4,1.0.0.5,1.0.0.6,1.0.0.7,1.0.0.8",
		   "1.0.0.1/32,1.0.0.2/32,1.0.0.3/32,1.0.0.4/32,1.0.0.5/32,"
		   "1.0.0.6/32,1.0.0.7/32,1.0.0.8/32");
	addrs_case("1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4,1.0.0.5,1.0.0.6,1.0.0.7,1.0.0.8,1.0.0.9",
		   NULL);
	/* masks as the program applies them, word by word */
	ok(!parse_addrs("10.20.30.40/12", &r, err, sizeof(err)) &&
	   p->family == SMC_BPF_V4 && p->bits == 12 &&
	   p->mask[0] == htonl(0xfff00000) && !p->mask[1] && !p->mask[3] &&
	   p->net[0] == htonl(0x0a100000) && !p->net[1],
	   "IPv4 /12: net 10.16.0.0, mask 255.240.0.0, words 1-3 zero");
	ok(!parse_addrs("fd12:3456:789a::/36", &r, err, sizeof(err)) &&
	   p->family == SMC_BPF_V6 && p->mask[0] == 0xffffffff &&
	   p->mask[1] == htonl(0xf0000000) && !p->mask[2] && !p->mask[3] &&
	   p->net[0] == htonl(0xfd123456) && p->net[1] == htonl(0x70000000),
	   "IPv6 /36: two words of mask, host bits cleared");
	ok(!parse_addrs("0.0.0.0/0", &r, err, sizeof(err)) && !p->mask[0] &&
	   !p->net[0], "/0: mask and net zero (every IPv4 address)");
}

static void test_units(void)
{
	char long_name[300];

	unit_case("nginx", "nginx.service");
	unit_case("nginx.service", "nginx.service");
	unit_case("getty@tty1", "getty@tty1.service");
	unit_case("getty@tty1.service", "getty@tty1.service");
	unit_case("foo\\x2dbar.service", "foo\\x2dbar.service");
	unit_case("a:b_c.d", "a:b_c.d.service");
	unit_case("", NULL);
	unit_case(".service", NULL);
	unit_case("foo.socket", NULL);
	unit_case("system.slice", NULL);
	unit_case("session-1.scope", NULL);
	unit_case("foo@.service", NULL);
	unit_case("foo@", NULL);
	unit_case("a@b@c", NULL);
	unit_case("../etc", NULL);
	unit_case("a/b", NULL);
	unit_case("a b", NULL);
	unit_case("a\"b", NULL);
	unit_case("a%ib", NULL);
	unit_case("a$b", NULL);
	unit_case("-x", NULL);
	unit_case("caf\xc3\xa9", NULL);
	memset(long_name, 'a', 250);
	long_name[250] = '\0';
	unit_case(long_name, NULL);
	long_name[247] = '\0';
	strcat(long_name, ".service");
	unit_case(long_name, long_name);
}

/* the drop-in's text for @unit with @ports/@addrs (NULL: all) */
static char *dropin(const char *exe, const char *unit, const char *ports,
		    const char *addrs, int *rc)
{
	struct smc_bpf_slot slot = { 0 };
	char err[ERR_LEN], *buf = NULL;
	struct rules r = { 0 };
	size_t size = 0;
	FILE *f;

	if (ports)
		parse_ports(ports, &r, err, sizeof(err));
	if (addrs)
		parse_addrs(addrs, &r, err, sizeof(err));
	memcpy(slot.ports, r.ports, sizeof(slot.ports));
	slot.nports = r.nports;
	memcpy(slot.addrs, r.addrs, sizeof(slot.addrs));
	slot.naddrs = r.naddrs;
	snprintf(slot.unit, sizeof(slot.unit), "%s", unit);
	f = open_memstream(&buf, &size);
	*rc = dropin_text(f, exe, &slot, err, sizeof(err));
	fclose(f);
	return buf;
}

/* the drop-in's ExecStartPre line */
static const char *exec_line(const char *text)
{
	static char line[1024];
	const char *p = strstr(text, "\nExecStartPre=");

	if (!p)
		return "";
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
	return line;
}

static void test_dropin(void)
{
	const char *line;
	char *t;
	int rc;

	t = dropin("/usr/sbin/smc_bpf", "nginx.service", NULL, NULL, &rc);
	ok(!rc && !strncmp(t, DROPIN_MARK, strlen(DROPIN_MARK)),
	   "drop-in starts with its marker");
	ok(strstr(t, "\n[Service]\n") != NULL, "drop-in has a [Service] section");
	line = exec_line(t);
	ok(!strcmp(line, "ExecStartPre=-+/usr/sbin/smc_bpf refresh \"nginx.service\""),
	   "all ports: %s", line);
	free(t);

	t = dropin("/usr/local/sbin/smc_bpf", "web.service", "8000-8099,80,443",
		   "fd00::/8,10.1.2.3/8", &rc);
	line = exec_line(t);
	ok(!rc && !strcmp(line, "ExecStartPre=-+/usr/local/sbin/smc_bpf refresh "
			  "--ports \"80,443,8000-8099\" --addr \"fd00::/8,10.0.0.0/8\" "
			  "\"web.service\""),
	   "rules, ports normalized, prefixes as given: %s", line);
	free(t);

	/* systemd undoes C escapes: a unit's backslash is written twice */
	t = dropin("/usr/sbin/smc_bpf", "foo\\x2dbar.service", "80", NULL, &rc);
	line = exec_line(t);
	ok(!rc && !strcmp(line, "ExecStartPre=-+/usr/sbin/smc_bpf refresh "
			  "--ports \"80\" \"foo\\\\x2dbar.service\""),
	   "backslash doubled: %s", line);
	free(t);

	t = dropin("/opt/my tools/smc_bpf", "nginx.service", NULL, NULL, &rc);
	ok(rc == -1, "an executable path with a blank is refused");
	free(t);
	t = dropin("smc_bpf", "nginx.service", NULL, NULL, &rc);
	ok(rc == -1, "a relative executable path is refused");
	free(t);
	t = dropin("/usr/sbin/smc_%bpf", "nginx.service", NULL, NULL, &rc);
	ok(rc == -1, "an executable path with %% is refused");
	free(t);
}

/* a made-up policy: a live cgroup, a unit, stale ones, a drop-in alone */
static void sample(struct status_view *v)
{
	char err[ERR_LEN];
	struct rules r = { 0 };
	struct rule_view *x;

	memset(v, 0, sizeof(*v));
	v->attached = true;
	v->pin_dir = "/sys/fs/bpf/smc_bpf";
	v->link_id = 12;
	v->prog_id = 57;
	v->ports_attached = true;
	v->ports_link_id = 11;
	v->ports_prog_id = 58;
	v->module_btf = true;
	v->smc_sockets = true;

	x = &v->rules[v->nrules++];
	x->slot = 0;
	x->s.flags = SMC_BPF_F_USED;
	x->s.cgroup_id = 4711;
	x->live_id = 4711;
	x->s.converted = 3;
	snprintf(x->s.path, sizeof(x->s.path), "/sys/fs/cgroup/we\"ird\\cg\n\t\x01");
	x->state = RULE_LIVE;
	x->dropin_loaded = -1;

	x = &v->rules[v->nrules++];
	x->slot = 1;
	x->s.flags = SMC_BPF_F_USED | SMC_BPF_F_UNIT;
	x->s.cgroup_id = 4799;
	x->live_id = 4799;
	x->s.converted = 5;
	x->s.to_tcp = 2;
	x->s.refreshed = 2;
	parse_ports("80,443,8000-8099", &r, err, sizeof(err));
	parse_addrs("10.0.0.0/8,fd00::/8", &r, err, sizeof(err));
	memcpy(x->s.ports, r.ports, sizeof(r.ports));
	x->s.nports = r.nports;
	memcpy(x->s.addrs, r.addrs, sizeof(r.addrs));
	x->s.naddrs = r.naddrs;
	snprintf(x->s.unit, sizeof(x->s.unit), "foo\\x2dbar.service");
	snprintf(x->s.path, sizeof(x->s.path),
		 "/sys/fs/cgroup/system.slice/foo\\x2dbar.service");
	snprintf(x->dropin, sizeof(x->dropin),
		 "/etc/systemd/system/foo\\x2dbar.service.d/smc-r.conf");
	x->dropin_loaded = 1;
	x->state = RULE_LIVE;

	x = &v->rules[v->nrules++];
	x->slot = 2;
	x->s.flags = SMC_BPF_F_USED;
	x->s.cgroup_id = 4712;
	snprintf(x->s.path, sizeof(x->s.path), "/sys/fs/cgroup/caf\xc3\xa9-\xff\xfe");
	x->state = RULE_STALE;
	x->dropin_loaded = -1;
	snprintf(x->why, sizeof(x->why), "its cgroup was removed");

	x = &v->rules[v->nrules++];
	x->slot = 3;
	x->s.flags = SMC_BPF_F_USED | SMC_BPF_F_UNIT;
	x->s.cgroup_id = 4800;
	x->live_id = 4811;
	snprintf(x->s.unit, sizeof(x->s.unit), "web.service");
	snprintf(x->s.path, sizeof(x->s.path), "/sys/fs/cgroup/system.slice/web.service");
	x->state = RULE_STALE;
	x->dropin_loaded = 0;
	snprintf(x->dropin, sizeof(x->dropin), "/run/systemd/system/web.service.d/smc-r.conf");
	snprintf(x->why, sizeof(x->why),
		 "restarted without a refresh (its cgroup is now id 4811): smc_bpf refresh web.service");

	x = &v->rules[v->nrules++];
	x->slot = -1;
	x->s.flags = SMC_BPF_F_UNIT;
	snprintf(x->s.unit, sizeof(x->s.unit), "idle.service");
	snprintf(x->dropin, sizeof(x->dropin), "/etc/systemd/system/idle.service.d/smc-r.conf");
	x->dropin_loaded = -1;
	x->state = RULE_INACTIVE;
	snprintf(x->why, sizeof(x->why), "not running; its next start attaches its rule");
}

static char *render(const struct status_view *v, bool json)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (json)
		status_json(f, v);
	else
		status_text(f, v);
	fclose(f);
	return buf;
}

static void test_report(void)
{
	static struct status_view v;
	char *t;

	sample(&v);
	ok(status_stale(&v) == 2, "two stale rules counted");
	t = render(&v, false);
	ok(strstr(t, "\ncgroup /sys/fs/cgroup/we\"ird\\cg\n\t\x01 id=4711 converted=3\n") != NULL,
	   "text: a live cgroup rule is the line it always was");
	ok(strstr(t, "\nunit foo\\x2dbar.service: cgroup /sys/fs/cgroup/system.slice/foo\\x2dbar.service id=4799 converted=5\n"
		  "  ports 80,443,8000-8099 addr 10.0.0.0/8,fd00::/8: 2 connect/listen kept TCP\n"
		  "  follows restarts: drop-in /etc/systemd/system/foo\\x2dbar.service.d/smc-r.conf, refreshed 2 times\n") != NULL,
	   "text: a live unit, its rules and its drop-in");
	ok(strstr(t, "id=4712 converted=0 STALE: its cgroup was removed\n") != NULL,
	   "text: a removed cgroup is STALE");
	ok(strstr(t, "\nunit web.service: cgroup /sys/fs/cgroup/system.slice/web.service id=4800 converted=0 STALE: restarted without a refresh") != NULL &&
	   strstr(t, "  does NOT follow restarts yet: systemd has not loaded /run/systemd/system/web.service.d/smc-r.conf") != NULL,
	   "text: a restarted unit is STALE, an unloaded drop-in said");
	ok(strstr(t, "\nunit idle.service: drop-in /etc/systemd/system/idle.service.d/smc-r.conf, not in the policy INACTIVE: not running") != NULL,
	   "text: a drop-in without a rule, unit stopped: INACTIVE");
	ok(strstr(t, "\n2 rules STALE: applying to no task\n") != NULL,
	   "text: the STALE count last");
	free(t);
	t = render(&v, true);
	ok(strstr(t, "\"path\"") == NULL && strstr(t, "\"cgroup\":\"/sys/fs/cgroup/we\\\"ird\\\\cg\\n\\t\\u0001\"") != NULL,
	   "json: quote, backslash and control bytes escaped");
	ok(strstr(t, "caf\xc3\xa9-\\ufffd\\ufffd") != NULL,
	   "json: UTF-8 kept, invalid bytes U+FFFD");
	ok(strstr(t, "\"ports\":[{\"from\":80,\"to\":80},{\"from\":443,\"to\":443},{\"from\":8000,\"to\":8099}]") != NULL,
	   "json: port ranges");
	ok(t[strlen(t) - 1] == '\n' && strstr(t, "\"stale\":2}") != NULL,
	   "json: stale count, one line");
	free(t);
	v.attached = false;
	v.nrules = 0;
	t = render(&v, true);
	ok(!strcmp(t, "{\"attached\":false,\"pin_dir\":\"/sys/fs/bpf/smc_bpf\",\"rules\":[],\"stale\":0}\n"),
	   "json: not attached: %s", t);
	free(t);
	t = render(&v, false);
	ok(!strcmp(t, "smc_bpf: not attached\n"), "text: not attached");
	free(t);
}

int main(int argc, char **argv)
{
	static struct status_view v;

	if (argc == 2 && (!strcmp(argv[1], "--json") || !strcmp(argv[1], "--text"))) {
		sample(&v);
		if (!strcmp(argv[1], "--json"))
			status_json(stdout, &v);
		else
			status_text(stdout, &v);
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: smc_bpf-unit [--json | --text]\n");
		return 2;
	}
	test_ports();
	test_addrs();
	test_units();
	test_dropin();
	test_report();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
