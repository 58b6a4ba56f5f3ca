// SPDX-License-Identifier: GPL-2.0
/*
 * smc_bpf: load, extend, show and remove the cgroup SMC policy
 * (smc_policy.bpf.c).  See smc_bpf(8).
 *
 *   smc_bpf attach --cgroup DIR [--ports LIST] [--addr LIST] [--force]
 *   smc_bpf attach --unit UNIT [--runtime] [--ports LIST] [--addr LIST] [--force]
 *   smc_bpf refresh [--ports LIST] [--addr LIST] [--force] UNIT
 *   smc_bpf detach [--cgroup DIR | --unit UNIT]
 *   smc_bpf status [--json]
 *
 * The programs, their links and the two maps are pinned in PIN_DIR, so the
 * policy stays when smc_bpf exits and the next smc_bpf finds it.  The
 * first link's pin is written last and removed first: it alone says
 * "attached".  Removing the pins drops the last references, which
 * detaches the programs.
 *
 * A systemd unit gets a new cgroup, with a new id, on every start; the
 * policy's map holds the cgroup, not its path.  So attach --unit writes a
 * drop-in whose ExecStartPre runs "smc_bpf refresh UNIT": it runs inside
 * the unit's new cgroup, before the service's own processes, and puts
 * that cgroup into the unit's slot (attaching the policy first when it is
 * gone, after a reboot).  status compares every rule's cgroup with the
 * one that is there now, and says STALE (exit 3) when they differ.
 *
 * The port and address rules need a second program, on the smc module's
 * smc_bpf_decide(), which only the module's BTF lets the kernel find.
 * Without that BTF the cgroup program is attached alone.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "rules.h"
#include "smc_policy.skel.h"

#define BPF_FS		"/sys/fs/bpf"
#define PIN_DIR		BPF_FS "/smc_bpf"
#define PIN_LINK	PIN_DIR "/link"
#define PIN_LINK_PORTS	PIN_DIR "/link-ports"
#define PIN_CGROUPS	PIN_DIR "/cgroups"
#define PIN_SLOTS	PIN_DIR "/slots"
#define LOCK_FILE	"/run/smc_bpf.lock"
#define SMC_BTF		"/sys/kernel/btf/smc"
#define CGROUP_FS	"/sys/fs/cgroup"
#define UNIT_DIR_ETC	"/etc/systemd/system"
#define UNIT_DIR_RUN	"/run/systemd/system"
#define NO_BTF_NOTICE	"smc_bpf: port rules unavailable: the smc module has no BTF (" \
			SMC_BTF "), see Documentation/networking/smc-usage.rst\n"

/* exit codes, as smcctl's: 0 ok, 1 failure, 2 usage; status: 3 stale */
#define EXIT_FAIL	1
#define EXIT_USAGE	2
#define EXIT_STALE	3

static bool verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: smc_bpf [-v] attach --cgroup DIR [--ports LIST] [--addr LIST] [--force]\n"
		"       smc_bpf [-v] attach --unit UNIT [--runtime] [--ports LIST] [--addr LIST] [--force]\n"
		"       smc_bpf [-v] refresh [--ports LIST] [--addr LIST] [--force] UNIT\n"
		"       smc_bpf [-v] detach [--cgroup DIR | --unit UNIT]\n"
		"       smc_bpf [-v] status [--json]\n"
		"TCP sockets created by tasks in (or below) the cgroup DIR, or in the\n"
		"systemd service UNIT (followed across restarts by a drop-in whose\n"
		"ExecStartPre runs refresh), become IPPROTO_SMC sockets.  --ports\n"
		"(ports and ranges, 80,443,8000-8099, at most %d) and --addr\n"
		"(destination addresses and prefixes, 10.0.0.0/8,fd00::/8, at most\n"
		"%d; connect() only) keep the other connect()s and listen()s on TCP;\n"
		"\"all\" lifts a list.  status exits 0 when every rule applies, 1 when\n"
		"not attached, 3 when a rule is STALE.  Pinned in " PIN_DIR ".\n",
		SMC_BPF_PORTS, SMC_BPF_ADDRS);
}

static int usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "smc_bpf: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(smc_bpf --help tells more)\n");
	return EXIT_USAGE;
}

/* 1 attached, 0 not, -1 cannot tell (said why) */
static int attached(void)
{
	if (access(PIN_LINK, F_OK) == 0)
		return 1;
	if (errno == ENOENT)
		return 0;
	fprintf(stderr, "smc_bpf: %s: %s\n", PIN_LINK, strerror(errno));
	return -1;
}

static bool module_btf(void)
{
	return access(SMC_BTF, F_OK) == 0;
}

/* Is IPPROTO_SMC there?  Without it the policy breaks every TCP socket. */
static int smc_available(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SMC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int check_smc(bool force)
{
	int rc = smc_available();

	if (!rc || force)
		return 0;
	fprintf(stderr,
		"smc_bpf: socket(AF_INET, SOCK_STREAM, IPPROTO_SMC): %s\n"
		"smc_bpf: load an SMC module with IPPROTO_SMC first (--force attaches anyway,\n"
		"smc_bpf: and TCP sockets in the cgroup then fail)\n",
		strerror(-rc));
	return -1;
}

/* One smc_bpf at a time changes the policy (a unit's refresh included). */
static int take_lock(void)
{
	int fd = open(LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0 || flock(fd, LOCK_EX)) {
		fprintf(stderr, "smc_bpf: %s: %s\n", LOCK_FILE, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* A bpf file system on /sys/fs/bpf, mounted here if there is none. */
static int bpffs_ready(void)
{
	struct statfs st;

	if (statfs(BPF_FS, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", BPF_FS, "bpf", 0, "mode=0700")) {
		fprintf(stderr, "smc_bpf: cannot mount bpffs on %s: %s\n",
			BPF_FS, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Open a cgroup v2 directory; its id is what the kernel reports.  -1 and
 * errno (ENOENT: no such cgroup) after saying why, unless @quiet.
 */
static int cgroup_open(const char *path, __u64 *id, bool quiet)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h;
	struct statfs st;
	int fd, mnt, err;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (!quiet)
			fprintf(stderr, "smc_bpf: %s: %s\n", path, strerror(err));
		errno = err;
		return -1;
	}
	if (fstatfs(fd, &st) || st.f_type != CGROUP2_SUPER_MAGIC) {
		if (!quiet)
			fprintf(stderr, "smc_bpf: %s is not a cgroup v2 directory\n",
				path);
		close(fd);
		errno = ENOTDIR;
		return -1;
	}
	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(fd, "", &h.fh, &mnt, AT_EMPTY_PATH) ||
	    h.fh.handle_bytes != sizeof(h.id)) {
		if (!quiet)
			fprintf(stderr, "smc_bpf: no cgroup id for %s\n", path);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return fd;
}

/* the id of the cgroup at @path now, 0 if there is none */
static __u64 cgroup_id_now(const char *path)
{
	__u64 id;
	int fd = cgroup_open(path, &id, true);

	if (fd < 0)
		return 0;
	close(fd);
	return id;
}

/* ---- systemd ---- */

/* PID 1 is systemd (a /run/systemd/system we wrote a drop-in into is not proof) */
static bool systemd_running(void)
{
	char comm[32] = "";
	FILE *f = fopen("/proc/1/comm", "re");

	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	return !strcmp(comm, "systemd\n");
}

/*
 * Run @argv (a program on PATH), its standard output into @out (NUL
 * ended, may be cut), standard input from /dev/null.  Its exit status, or
 * -1 when it could not run.
 */
static int run_capture(char *const argv[], char *out, size_t len)
{
	size_t off = 0;
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null >= 0)
			dup2(null, 0);
		dup2(pfd[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], out + off, len - 1 - off)) > 0 ||
	       (n < 0 && errno == EINTR)) {
		if (n > 0)
			off += n;
		if (off == len - 1) {
			char skip[256];

			while (read(pfd[0], skip, sizeof(skip)) > 0)
				;
			break;
		}
	}
	out[off] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* systemctl show -p PROP --value UNIT, its one line into @out; -1 failed */
static int systemctl_show(const char *unit, const char *prop, char *out,
			  size_t len)
{
	char *argv[] = { "systemctl", "show", "-p", (char *)prop, "--value",
			 "--", (char *)unit, NULL };

	if (run_capture(argv, out, len))
		return -1;
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

static int daemon_reload(void)
{
	char *argv[] = { "systemctl", "daemon-reload", NULL };
	char out[256];

	if (!systemd_running()) {
		printf("smc_bpf: systemd is not running: no daemon-reload\n");
		return 0;
	}
	if (run_capture(argv, out, sizeof(out))) {
		fprintf(stderr, "smc_bpf: systemctl daemon-reload failed: the drop-in takes effect after the next one\n");
		return -1;
	}
	return 0;
}

/* the mount of the cgroup v2 hierarchy: pure, or hybrid's "unified" */
static const char *cgroup2_root(void)
{
	struct statfs st;

	if (statfs(CGROUP_FS, &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC)
		return CGROUP_FS;
	if (statfs(CGROUP_FS "/unified", &st) == 0 &&
	    st.f_type == CGROUP2_SUPER_MAGIC)
		return CGROUP_FS "/unified";
	return NULL;
}

/*
 * The cgroup of this process when it runs in @unit (as an ExecStartPre
 * does: in the unit's cgroup or, delegated, below it): the path up to the
 * last component named @unit.  0 and the path in @out, else -1.
 */
static int self_unit_cgroup(const char *root, const char *unit, char *out,
			    size_t len)
{
	char line[PATH_MAX + 8], *p, *c, *end = NULL;
	size_t ul = strlen(unit);
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			break;
	fclose(f);
	if (strncmp(line, "0::", 3))
		return -1;
	p = line + 3;
	p[strcspn(p, "\n")] = '\0';
	for (c = p; (c = strchr(c, '/')); c++)
		if (!strncmp(c + 1, unit, ul) &&
		    (c[1 + ul] == '/' || !c[1 + ul]))
			end = c + 1 + ul;
	if (!end)
		return -1;
	*end = '\0';
	if ((size_t)snprintf(out, len, "%s%s", root, p) >= len)
		return -1;
	return 0;
}

enum cg_source {
	CG_SELF,	/* this process runs in the unit */
	CG_SYSTEMD,	/* systemctl show -p ControlGroup */
	CG_STOPPED,	/* systemd says the unit has no cgroup: not running */
	CG_RECORDED,	/* the path the rule has */
	CG_LAYOUT,	/* systemd's layout: system.slice/UNIT */
};

/*
 * Where @unit's cgroup is (whether it exists or not): with @self, this
 * process's when it runs in the unit; then what systemd says; else the
 * rule's @recorded path, or the default system.slice/UNIT.  -1 when there
 * is no cgroup v2 hierarchy or the path is too long.
 */
static int unit_cgroup(const char *unit, bool self, const char *recorded,
		       char *out, size_t len, enum cg_source *src)
{
	const char *root = cgroup2_root();
	char cg[PATH_MAX];

	if (!root) {
		fprintf(stderr, "smc_bpf: no cgroup v2 hierarchy at %s\n", CGROUP_FS);
		return -1;
	}
	if (self && !self_unit_cgroup(root, unit, out, len)) {
		*src = CG_SELF;
		return 0;
	}
	if (systemd_running() &&
	    !systemctl_show(unit, "ControlGroup", cg, sizeof(cg))) {
		if (cg[0] == '/') {
			*src = CG_SYSTEMD;
			if ((size_t)snprintf(out, len, "%s%s", root, cg) >= len)
				goto toolong;
			return 0;
		}
		*src = CG_STOPPED;
	} else {
		*src = CG_LAYOUT;
	}
	if (recorded && recorded[0]) {
		if (*src == CG_LAYOUT)
			*src = CG_RECORDED;
		snprintf(out, len, "%s", recorded);
		return 0;
	}
	if ((size_t)snprintf(out, len, "%s/system.slice/%s", root, unit) >= len)
		goto toolong;
	return 0;
toolong:
	fprintf(stderr, "smc_bpf: %s: cgroup path too long\n", unit);
	return -1;
}

static void dropin_path(char *buf, size_t len, const char *unit, bool runtime)
{
	snprintf(buf, len, "%s/%s.d/" DROPIN_NAME,
		 runtime ? UNIT_DIR_RUN : UNIT_DIR_ETC, unit);
}

/* 1: a drop-in of ours at @path, 0: none, -1: someone else's file */
static int dropin_ours(const char *path)
{
	char line[64] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		return errno == ENOENT ? 0 : -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return strncmp(line, DROPIN_MARK, strlen(DROPIN_MARK)) ? -1 : 1;
}

/* @unit's drop-in in effect (/etc's before /run's) into @buf; false: none */
static bool dropin_find(const char *unit, char *buf, size_t len)
{
	dropin_path(buf, len, unit, false);
	if (dropin_ours(buf) == 1)
		return true;
	dropin_path(buf, len, unit, true);
	if (dropin_ours(buf) == 1)
		return true;
	buf[0] = '\0';
	return false;
}

/* 1 systemd has loaded @path for @unit, 0 not (or needs a reload), -1 no systemd */
static int dropin_loaded(const char *unit, const char *path)
{
	char out[4096], *p;
	size_t n = strlen(path);

	if (!systemd_running())
		return -1;
	if (!systemctl_show(unit, "NeedDaemonReload", out, sizeof(out)) &&
	    !strcmp(out, "yes"))
		return 0;
	if (systemctl_show(unit, "DropInPaths", out, sizeof(out)))
		return 0;
	for (p = out; (p = strstr(p, path)); p += n)
		if ((p == out || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return 1;
	return 0;
}

/* mkdir -p for the directories of @path (not its last component) */
static int mkdirs(const char *path)
{
	char buf[PATH_MAX], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

/* Remove our drop-in for @unit from @runtime's place: 1 removed, 0 none, -1 error. */
static int dropin_unlink(const char *unit, bool runtime)
{
	char path[PATH_MAX];

	dropin_path(path, sizeof(path), unit, runtime);
	switch (dropin_ours(path)) {
	case 0:
		return 0;
	case -1:
		if (errno == ENOENT || access(path, F_OK))
			return 0;
		fprintf(stderr, "smc_bpf: %s is not smc_bpf's: left alone\n", path);
		return 0;
	}
	if (unlink(path)) {
		fprintf(stderr, "smc_bpf: cannot remove %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	printf("smc_bpf: removed %s\n", path);
	*strrchr(path, '/') = '\0';
	rmdir(path);		/* if nothing else is in it */
	return 1;
}

/* Remove @unit's drop-ins: how many, -1 on an error. */
static int dropin_remove(const char *unit)
{
	int a = dropin_unlink(unit, false), b = dropin_unlink(unit, true);

	return a < 0 || b < 0 ? -1 : a + b;
}

/*
 * Write @slot's drop-in for its unit, in /run with @runtime, else in
 * /etc.  What was there before is returned in *@old (malloc'd, NULL:
 * nothing) for dropin_restore().
 */
static int dropin_write(const struct smc_bpf_slot *slot, bool runtime,
			char **old)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16], exe[PATH_MAX], err[ERR_LEN];
	size_t size = 0;
	FILE *f;
	int rc;

	*old = NULL;
	if (!realpath("/proc/self/exe", exe)) {
		fprintf(stderr, "smc_bpf: /proc/self/exe: %s\n", strerror(errno));
		return -1;
	}
	dropin_path(path, sizeof(path), slot->unit, runtime);
	rc = dropin_ours(path);
	if (rc < 0 && access(path, F_OK) == 0) {
		fprintf(stderr, "smc_bpf: %s exists and is not smc_bpf's: not overwritten\n",
			path);
		return -1;
	}
	if (rc == 1) {
		f = fopen(path, "re");
		if (f) {
			*old = malloc(8192);
			if (*old) {
				size = fread(*old, 1, 8191, f);
				(*old)[size] = '\0';
			}
			fclose(f);
		}
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	if (mkdirs(path)) {
		fprintf(stderr, "smc_bpf: cannot create the directory of %s: %s\n",
			path, strerror(errno));
		return -1;
	}
	f = fopen(tmp, "we");
	if (!f) {
		fprintf(stderr, "smc_bpf: %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	rc = dropin_text(f, exe, slot, err, sizeof(err));
	if (rc)
		fprintf(stderr, "smc_bpf: no drop-in: %s\n", err);
	if (fchmod(fileno(f), 0644) || fclose(f)) {
		if (!rc)
			fprintf(stderr, "smc_bpf: %s: %s\n", tmp, strerror(errno));
		rc = -1;
	}
	if (!rc && rename(tmp, path)) {
		fprintf(stderr, "smc_bpf: %s: %s\n", path, strerror(errno));
		rc = -1;
	}
	if (rc) {
		unlink(tmp);
		free(*old);
		*old = NULL;
		return -1;
	}
	printf("smc_bpf: %s written: every start of %s refreshes its rule\n",
	       path, slot->unit);
	return 0;
}

/* Put back what dropin_write() replaced (after a failure of the rest). */
static void dropin_restore(const char *unit, bool runtime, char *old)
{
	char path[PATH_MAX];
	FILE *f;

	dropin_path(path, sizeof(path), unit, runtime);
	if (!old) {
		dropin_unlink(unit, runtime);
		return;
	}
	f = fopen(path, "we");
	if (f) {
		fputs(old, f);
		fclose(f);
	}
	free(old);
}

/* Call @fn for each unit that has a drop-in of ours, /etc's and /run's. */
static void dropin_scan(void (*fn)(const char *unit, bool runtime, void *arg),
			void *arg)
{
	static const char suffix[] = ".service.d";
	char unit[SMC_BPF_UNIT_LEN], path[PATH_MAX];
	struct dirent *e;
	int runtime;
	size_t n;
	DIR *d;

	for (runtime = 0; runtime < 2; runtime++) {
		d = opendir(runtime ? UNIT_DIR_RUN : UNIT_DIR_ETC);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			n = strlen(e->d_name);
			if (n <= strlen(suffix) - 2 || n >= sizeof(unit) + 2 ||
			    strcmp(e->d_name + n - strlen(suffix), suffix))
				continue;
			snprintf(unit, sizeof(unit), "%.*s", (int)(n - 2),
				 e->d_name);
			dropin_path(path, sizeof(path), unit, runtime);
			if (dropin_ours(path) == 1)
				fn(unit, runtime, arg);
		}
		closedir(d);
	}
}

/* ---- the maps ---- */

struct policy {
	struct smc_policy *skel;	/* loaded here, attached by commit */
	int cgroups, slots;		/* map fds */
	bool ports;			/* the rules' program is there */
	struct smc_bpf_slot all[SMC_BPF_SLOTS];
};

static int read_slot(int fd, __u32 i, struct smc_bpf_slot *slot)
{
	if (bpf_map_lookup_elem(fd, &i, slot)) {
		fprintf(stderr, "smc_bpf: cannot read slot %u: %s\n", i,
			strerror(errno));
		return -1;
	}
	slot->path[sizeof(slot->path) - 1] = '\0';
	slot->unit[sizeof(slot->unit) - 1] = '\0';
	return 0;
}

static int read_all(struct policy *p)
{
	__u32 i;

	for (i = 0; i < SMC_BPF_SLOTS; i++)
		if (read_slot(p->slots, i, &p->all[i]))
			return -1;
	return 0;
}

static bool used(const struct smc_bpf_slot *s)
{
	return s->flags & SMC_BPF_F_USED;
}

static bool is_unit(const struct smc_bpf_slot *s)
{
	return used(s) && (s->flags & SMC_BPF_F_UNIT);
}

static int find_id(const struct policy *p, __u64 id)
{
	int i;

	for (i = 0; id && i < SMC_BPF_SLOTS; i++)
		if (used(&p->all[i]) && p->all[i].cgroup_id == id)
			return i;
	return -1;
}

static int find_unit(const struct policy *p, const char *unit)
{
	int i;

	for (i = 0; i < SMC_BPF_SLOTS; i++)
		if (is_unit(&p->all[i]) && !strcmp(p->all[i].unit, unit))
			return i;
	return -1;
}

static int find_path(const struct policy *p, const char *path)
{
	int i;

	for (i = 0; i < SMC_BPF_SLOTS; i++)
		if (used(&p->all[i]) && !is_unit(&p->all[i]) &&
		    !strcmp(p->all[i].path, path))
			return i;
	return -1;
}

static int find_free(const struct policy *p)
{
	int i;

	for (i = 0; i < SMC_BPF_SLOTS; i++)
		if (!used(&p->all[i]))
			return i;
	fprintf(stderr, "smc_bpf: all %d slots in use\n", SMC_BPF_SLOTS);
	return -1;
}

/* Open the pinned maps, made by this smc_bpf's layout; -1 said why. */
static int open_pins(struct policy *p)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	p->cgroups = bpf_obj_get(PIN_CGROUPS);
	p->slots = bpf_obj_get(PIN_SLOTS);
	if (p->cgroups < 0 || p->slots < 0) {
		fprintf(stderr, "smc_bpf: pins in %s incomplete (%s): run smc_bpf detach\n",
			PIN_DIR, strerror(errno));
		return -1;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(p->slots, &info, &len)) {
		fprintf(stderr, "smc_bpf: %s: %s\n", PIN_SLOTS, strerror(errno));
		return -1;
	}
	if (info.value_size != sizeof(struct smc_bpf_slot) ||
	    info.max_entries != SMC_BPF_SLOTS) {
		fprintf(stderr,
			"smc_bpf: the policy in %s was attached by another smc_bpf version\n"
			"smc_bpf: (slots of %u bytes, this one's are %zu): smc_bpf detach, then attach again\n",
			PIN_DIR, info.value_size, sizeof(struct smc_bpf_slot));
		return -1;
	}
	p->ports = access(PIN_LINK_PORTS, F_OK) == 0;
	return read_all(p);
}

/* Load the programs: the rules' one only with the module's BTF. */
static struct smc_policy *load_policy(bool want_rules)
{
	struct smc_policy *skel;
	bool ports = module_btf();

	if (want_rules && !ports) {
		fprintf(stderr, NO_BTF_NOTICE);
		return NULL;
	}
	skel = smc_policy__open();
	if (!skel) {
		fprintf(stderr, "smc_bpf: cannot open the policy: %s\n",
			strerror(errno));
		return NULL;
	}
	if (!ports) {
		printf(NO_BTF_NOTICE);
		bpf_program__set_autoload(skel->progs.smc_ports, false);
	}
	if (smc_policy__load(skel)) {
		fprintf(stderr, "smc_bpf: cannot load the policy%s: %s%s\n",
			ports ? " (with port rules)" : "", strerror(errno),
			verbose ? "" : " (-v tells more)");
		smc_policy__destroy(skel);
		return NULL;
	}
	return skel;
}

/*
 * The policy to change: the pinned one, or (@create) one loaded now and
 * attached by policy_commit().  @want_rules: the program on
 * smc_bpf_decide() is needed.  0, 1 (not attached, !@create), -1.
 */
static int policy_open(struct policy *p, bool create, bool want_rules)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->cgroups = p->slots = -1;
	rc = attached();
	if (rc < 0)
		return -1;
	if (rc) {
		if (open_pins(p))
			return -1;
		if (want_rules && !p->ports) {
			fprintf(stderr,
				"smc_bpf: the policy was attached without port rules (no module BTF\n"
				"smc_bpf: then): detach, then attach again\n");
			return -1;
		}
		return 0;
	}
	if (!create)
		return 1;
	if (bpffs_ready())
		return -1;
	p->skel = load_policy(want_rules);
	if (!p->skel)
		return -1;
	p->cgroups = bpf_map__fd(p->skel->maps.cgroups);
	p->slots = bpf_map__fd(p->skel->maps.slots);
	p->ports = bpf_program__autoload(p->skel->progs.smc_ports);
	return read_all(p);
}

static void policy_close(struct policy *p)
{
	if (p->skel) {
		smc_policy__destroy(p->skel);
	} else {
		if (p->cgroups >= 0)
			close(p->cgroups);
		if (p->slots >= 0)
			close(p->slots);
	}
	p->skel = NULL;
	p->cgroups = p->slots = -1;
}

static void unpin_all(void)
{
	unlink(PIN_LINK);
	unlink(PIN_LINK_PORTS);
	unlink(PIN_CGROUPS);
	unlink(PIN_SLOTS);
	rmdir(PIN_DIR);
}

static int pin_all(struct smc_policy *skel, struct bpf_link *link,
		   struct bpf_link *link_ports)
{
	int rc;

	if (mkdir(PIN_DIR, 0700) && errno != EEXIST) {
		fprintf(stderr, "smc_bpf: %s: %s\n", PIN_DIR, strerror(errno));
		return -1;
	}
	rc = bpf_map__pin(skel->maps.cgroups, PIN_CGROUPS);
	if (!rc)
		rc = bpf_map__pin(skel->maps.slots, PIN_SLOTS);
	if (!rc && link_ports)
		rc = bpf_link__pin(link_ports, PIN_LINK_PORTS);
	if (!rc)
		rc = bpf_link__pin(link, PIN_LINK);
	if (rc) {
		fprintf(stderr, "smc_bpf: cannot pin in %s: %s\n", PIN_DIR,
			strerror(-rc));
		unpin_all();
		return -1;
	}
	return 0;
}

/* Attach and pin a policy policy_open() loaded; nothing for a pinned one. */
static int policy_commit(struct policy *p)
{
	struct bpf_link *link = NULL, *link_ports = NULL;
	int rc = -1;

	if (!p->skel)
		return 0;
	/* the rules first: a socket made SMC finds them in force */
	if (p->ports) {
		link_ports = bpf_program__attach(p->skel->progs.smc_ports);
		if (!link_ports) {
			fprintf(stderr,
				"smc_bpf: cannot attach to smc_bpf_decide: %s\n",
				strerror(errno));
			goto out;
		}
	}
	link = bpf_program__attach(p->skel->progs.smc_policy);
	if (!link) {
		fprintf(stderr,
			"smc_bpf: cannot attach to update_socket_protocol: %s\n",
			strerror(errno));
		goto out;
	}
	rc = pin_all(p->skel, link, link_ports);
	if (!rc)
		printf("smc_bpf: attached%s, pinned in %s\n",
		       link_ports ? " with port rules" : "", PIN_DIR);
out:
	bpf_link__destroy(link);
	bpf_link__destroy(link_ports);
	return rc;
}

/*
 * Write slot @i as @slot, and its cgroup @cg (an fd; -1: none, the entry
 * is cleared).  The slot first, so that every match is counted.
 */
static int slot_write(struct policy *p, int i, const struct smc_bpf_slot *slot,
		      int cg)
{
	__u32 key = i, fd = cg;

	if (bpf_map_update_elem(p->slots, &key, slot, BPF_ANY) ||
	    (cg >= 0 ? bpf_map_update_elem(p->cgroups, &key, &fd, BPF_ANY) :
	     bpf_map_delete_elem(p->cgroups, &key) && errno != ENOENT)) {
		fprintf(stderr, "smc_bpf: cannot write slot %d: %s\n", i,
			strerror(errno));
		return -1;
	}
	p->all[i] = *slot;
	return 0;
}

static int slot_clear(struct policy *p, int i)
{
	struct smc_bpf_slot empty = { 0 };

	return slot_write(p, i, &empty, -1);
}

static bool any_used(const struct policy *p)
{
	int i;

	for (i = 0; i < SMC_BPF_SLOTS; i++)
		if (used(&p->all[i]))
			return true;
	return false;
}

/* @r's given lists into @slot */
static void apply_rules(struct smc_bpf_slot *slot, const struct rules *r)
{
	if (r->ports_given) {
		memcpy(slot->ports, r->ports, sizeof(slot->ports));
		slot->nports = r->nports;
	}
	if (r->addrs_given) {
		memcpy(slot->addrs, r->addrs, sizeof(slot->addrs));
		slot->naddrs = r->naddrs;
	}
}

static bool rules_nonempty(const struct rules *r)
{
	return (r->ports_given && r->nports) || (r->addrs_given && r->naddrs);
}

static void print_rules(const struct smc_bpf_slot *s)
{
	char ports[PORTS_STR_LEN], addrs[ADDRS_STR_LEN];

	printf("ports %s, addr %s\n", ports_str(s->ports, s->nports, ports,
						sizeof(ports)),
	       addrs_str(s->addrs, s->naddrs, addrs, sizeof(addrs)));
}

/* ---- commands ---- */

static int cmd_attach_cgroup(const char *path, const struct rules *r,
			     bool force)
{
	struct smc_bpf_slot slot;
	char real[PATH_MAX];
	int cg, lock, i, rc = -1;
	struct policy p;
	__u64 id;

	/* the argument first, then what the host has */
	cg = cgroup_open(path, &id, false);
	if (cg < 0)
		return EXIT_FAIL;
	errno = 0;
	if (!realpath(path, real) || strlen(real) >= SMC_BPF_PATH_LEN) {
		fprintf(stderr, "smc_bpf: %s: %s\n", path,
			errno ? strerror(errno) : "path too long");
		close(cg);
		return EXIT_FAIL;
	}
	if (check_smc(force)) {
		close(cg);
		return EXIT_FAIL;
	}
	lock = take_lock();
	if (lock < 0) {
		close(cg);
		return EXIT_FAIL;
	}
	if (policy_open(&p, true, rules_nonempty(r)))
		goto out;
	i = find_id(&p, id);
	if (i >= 0 && is_unit(&p.all[i])) {
		fprintf(stderr, "smc_bpf: %s is the cgroup of unit %s (slot %d): use --unit %s\n",
			real, p.all[i].unit, i, p.all[i].unit);
		goto out;
	}
	if (i >= 0 && !r->ports_given && !r->addrs_given) {
		printf("smc_bpf: %s already in the policy (slot %d)\n", real, i);
		rc = 0;
		goto out;
	}
	if (i < 0)	/* a stale rule for the same path gets the new cgroup */
		i = find_path(&p, real);
	if (i < 0) {
		i = find_free(&p);
		if (i < 0)
			goto out;
		memset(&slot, 0, sizeof(slot));
	} else {
		slot = p.all[i];
	}
	slot.flags = SMC_BPF_F_USED;
	slot.cgroup_id = id;
	snprintf(slot.path, sizeof(slot.path), "%s", real);
	apply_rules(&slot, r);
	if ((slot.nports || slot.naddrs) && !p.ports) {
		fprintf(stderr, "smc_bpf: the policy has no port rules program: detach, then attach again\n");
		goto out;
	}
	if (slot_write(&p, i, &slot, cg))
		goto out;
	printf("smc_bpf: %s (cgroup id %llu) in slot %d, ", real,
	       (unsigned long long)id, i);
	print_rules(&slot);
	rc = policy_commit(&p);
out:
	policy_close(&p);
	close(lock);
	close(cg);
	return rc ? EXIT_FAIL : 0;
}

/*
 * attach --unit (@attach) and refresh: the unit's slot gets its cgroup
 * now (none while the unit is not running) and the given rules.  attach
 * writes the drop-in; refresh, which that drop-in runs at every start,
 * looks at its own cgroup first and needs the unit to be in the policy or
 * to have a drop-in (after a reboot, only the drop-in is left).
 */
static int cmd_unit(const char *unit, const struct rules *r, bool force,
		    bool attach, bool runtime)
{
	char path[PATH_MAX], dropin[PATH_MAX], *old = NULL;
	struct smc_bpf_slot slot, before;
	int cg = -1, lock, i, rc = -1;
	bool wrote = false;
	enum cg_source src;
	struct policy p = { .cgroups = -1, .slots = -1 };
	__u64 id = 0;

	if (check_smc(force))
		return EXIT_FAIL;
	lock = take_lock();
	if (lock < 0)
		return EXIT_FAIL;
	rc = policy_open(&p, false, false);
	if (rc < 0)
		goto out;
	i = rc ? -1 : find_unit(&p, unit);
	if (!attach && i < 0 && !dropin_find(unit, dropin, sizeof(dropin))) {
		fprintf(stderr, "smc_bpf: %s is not in the policy and has no smc_bpf drop-in: attach --unit %s\n",
			unit, unit);
		rc = -1;
		goto out;
	}
	rc = -1;
	if (unit_cgroup(unit, !attach, i >= 0 ? p.all[i].path : NULL, path,
			sizeof(path), &src))
		goto out;
	if (strlen(path) >= SMC_BPF_PATH_LEN) {
		fprintf(stderr, "smc_bpf: %s: cgroup path too long\n", path);
		goto out;
	}
	if (src != CG_STOPPED) {
		cg = cgroup_open(path, &id, true);
		if (cg < 0 && errno != ENOENT) {
			cgroup_open(path, &id, false);	/* says why */
			goto out;
		}
		if (cg < 0)
			id = 0;
	}
	/* now with the programs, loaded if not attached */
	if (!p.skel && p.slots < 0) {
		policy_close(&p);
		if (policy_open(&p, true, rules_nonempty(r)))
			goto out;
	}
	if (i < 0) {
		i = find_id(&p, id);
		if (i >= 0 && is_unit(&p.all[i])) {
			fprintf(stderr, "smc_bpf: %s is the cgroup of unit %s (slot %d)\n",
				path, p.all[i].unit, i);
			goto out;
		}
		if (i >= 0)
			printf("smc_bpf: the rule for %s (slot %d) now follows %s\n",
			       p.all[i].path, i, unit);
		else
			i = find_free(&p);
		if (i < 0)
			goto out;
	}
	before = p.all[i];
	slot = used(&before) ? before : (struct smc_bpf_slot){ 0 };
	if (!is_unit(&before))
		slot.refreshed = 0;
	slot.flags = SMC_BPF_F_USED | SMC_BPF_F_UNIT;
	snprintf(slot.unit, sizeof(slot.unit), "%s", unit);
	snprintf(slot.path, sizeof(slot.path), "%s", path);
	if (is_unit(&before) && id && id != before.cgroup_id)
		slot.refreshed++;
	slot.cgroup_id = id;
	apply_rules(&slot, r);
	if ((slot.nports || slot.naddrs) && !p.ports) {
		fprintf(stderr, "smc_bpf: the policy has no port rules program: detach, then attach again\n");
		goto out;
	}
	if (attach) {
		if (dropin_write(&slot, runtime, &old))
			goto out;
		wrote = true;
	}
	if (slot_write(&p, i, &slot, cg))
		goto out;
	if (!id)
		printf("smc_bpf: %s is not running (no cgroup %s): slot %d holds its rule for its next start, ",
		       unit, path, i);
	else if (is_unit(&before) && before.cgroup_id == id)
		printf("smc_bpf: %s: cgroup %s id %llu unchanged (slot %d), ",
		       unit, path, (unsigned long long)id, i);
	else if (is_unit(&before) && before.cgroup_id)
		printf("smc_bpf: %s: cgroup %s id %llu, was %llu (slot %d), ",
		       unit, path, (unsigned long long)id,
		       (unsigned long long)before.cgroup_id, i);
	else
		printf("smc_bpf: %s: cgroup %s id %llu in slot %d, ", unit,
		       path, (unsigned long long)id, i);
	print_rules(&slot);
	/* a policy loaded here is attached now; nothing to undo before */
	if (policy_commit(&p))
		goto out;
	rc = 0;
	if (wrote) {
		/* one drop-in: /etc's would hide /run's */
		wrote = false;
		if (dropin_unlink(unit, !runtime) < 0 || daemon_reload())
			rc = -1;
	}
out:
	if (wrote) {
		dropin_restore(unit, runtime, old);
		old = NULL;
	}
	free(old);
	policy_close(&p);
	if (cg >= 0)
		close(cg);
	close(lock);
	return rc ? EXIT_FAIL : 0;
}

struct detach_all {
	int removed;
	bool error;
};

static void detach_dropin(const char *unit, bool runtime, void *arg)
{
	struct detach_all *d = arg;
	int rc = dropin_unlink(unit, runtime);

	if (rc < 0)
		d->error = true;
	else
		d->removed += rc;
}

static int cmd_detach_all(void)
{
	struct detach_all d = { 0 };
	struct policy p;
	int rc;

	/* the units' drop-ins, with a slot or not (a reboot drops the pins) */
	rc = policy_open(&p, false, false);
	if (rc < 0)
		fprintf(stderr, "smc_bpf: removing the pins all the same\n");
	policy_close(&p);
	dropin_scan(detach_dropin, &d);
	unpin_all();
	printf("smc_bpf: %s\n", rc == 1 ? "not attached" : "detached");
	if (d.removed && daemon_reload())
		d.error = true;
	return d.error ? EXIT_FAIL : 0;
}

static int cmd_detach(const char *cgroup, const char *unit)
{
	int lock, i = -1, rc, cg, removed = 0;
	char real[PATH_MAX];
	struct policy p;
	__u64 id = 0;

	lock = take_lock();
	if (lock < 0)
		return EXIT_FAIL;
	if (!cgroup && !unit) {
		rc = cmd_detach_all();
		close(lock);
		return rc;
	}
	rc = policy_open(&p, false, false);
	if (rc < 0)
		goto fail;
	if (unit) {
		if (!rc)
			i = find_unit(&p, unit);
	} else {
		if (rc) {
			fprintf(stderr, "smc_bpf: not attached\n");
			goto fail;
		}
		cg = cgroup_open(cgroup, &id, true);
		if (cg >= 0) {
			close(cg);
			i = find_id(&p, id);
		}
		/* a removed cgroup is found by the path it was added with */
		if (i < 0)
			i = find_path(&p, realpath(cgroup, real) ? real : cgroup);
		if (i < 0) {
			fprintf(stderr, "smc_bpf: %s is not in the policy\n", cgroup);
			goto fail;
		}
		if (is_unit(&p.all[i])) {
			fprintf(stderr, "smc_bpf: %s is the cgroup of unit %s: detach --unit %s\n",
				cgroup, p.all[i].unit, p.all[i].unit);
			goto fail;
		}
	}
	if (i >= 0) {
		if (slot_clear(&p, i))
			goto fail;
		printf("smc_bpf: %s removed from slot %d\n", unit ? unit : cgroup, i);
		if (!any_used(&p)) {
			unpin_all();
			printf("smc_bpf: no rule left: detached\n");
		}
	}
	if (unit) {
		/* the drop-in too, with a slot or without (after a reboot) */
		removed = dropin_remove(unit);
		if (removed < 0 || (removed && daemon_reload()))
			goto fail;
		if (i < 0 && !removed) {
			fprintf(stderr, "smc_bpf: %s is not in the policy\n", unit);
			goto fail;
		}
	}
	policy_close(&p);
	close(lock);
	return 0;
fail:
	policy_close(&p);
	close(lock);
	return EXIT_FAIL;
}

/* ---- status ---- */

static void view_unit(struct rule_view *v, const char *unit, bool in_policy)
{
	const struct smc_bpf_slot *s = &v->s;
	char path[PATH_MAX];
	enum cg_source src;
	bool follows;

	if (dropin_find(unit, v->dropin, sizeof(v->dropin)))
		v->dropin_loaded = dropin_loaded(unit, v->dropin);
	follows = v->dropin[0] && v->dropin_loaded != 0;
	v->live_id = 0;
	if (!unit_cgroup(unit, false, s->path, path, sizeof(path), &src) &&
	    src != CG_STOPPED)
		v->live_id = cgroup_id_now(path);
	if (!in_policy) {
		if (v->live_id) {
			v->state = RULE_STALE;
			snprintf(v->why, sizeof(v->why),
				 "running (cgroup id %llu) but not in the policy: smc_bpf refresh %s",
				 (unsigned long long)v->live_id, unit);
		} else {
			v->state = follows ? RULE_INACTIVE : RULE_STALE;
			snprintf(v->why, sizeof(v->why), "not running; %s",
				 follows ? "its next start attaches its rule" :
				 "systemd has not loaded the drop-in");
		}
		return;
	}
	if (!v->live_id) {
		v->state = follows ? RULE_INACTIVE : RULE_STALE;
		snprintf(v->why, sizeof(v->why), "not running; %s",
			 follows ? "its next start applies the rule" :
			 "nothing applies the rule at its next start (no drop-in loaded)");
	} else if (v->live_id == s->cgroup_id && !strcmp(path, s->path)) {
		v->state = RULE_LIVE;
	} else {
		v->state = RULE_STALE;
		if (!s->cgroup_id)
			snprintf(v->why, sizeof(v->why),
				 "started without a refresh (its cgroup is id %llu): smc_bpf refresh %s",
				 (unsigned long long)v->live_id, unit);
		else
			snprintf(v->why, sizeof(v->why),
				 "restarted without a refresh (its cgroup is now id %llu): smc_bpf refresh %s",
				 (unsigned long long)v->live_id, unit);
	}
}

static void view_cgroup(struct rule_view *v)
{
	const struct smc_bpf_slot *s = &v->s;

	v->live_id = cgroup_id_now(s->path);
	if (v->live_id == s->cgroup_id) {
		v->state = RULE_LIVE;
	} else if (!v->live_id) {
		v->state = RULE_STALE;
		snprintf(v->why, sizeof(v->why), "its cgroup was removed");
	} else {
		v->state = RULE_STALE;
		snprintf(v->why, sizeof(v->why),
			 "the cgroup there now is another one (id %llu): attach --cgroup again",
			 (unsigned long long)v->live_id);
	}
}

static void view_orphan(const char *unit, bool runtime, void *arg)
{
	struct status_view *v = arg;
	struct rule_view *r;
	int i;

	(void)runtime;
	for (i = 0; i < v->nrules; i++)
		if ((v->rules[i].s.flags & SMC_BPF_F_UNIT) &&
		    !strcmp(v->rules[i].s.unit, unit))
			return;		/* in the policy, or /etc's seen */
	if (v->nrules == (int)(sizeof(v->rules) / sizeof(v->rules[0])))
		return;
	r = &v->rules[v->nrules++];
	memset(r, 0, sizeof(*r));
	r->slot = -1;
	r->dropin_loaded = -1;
	r->s.flags = SMC_BPF_F_UNIT;
	snprintf(r->s.unit, sizeof(r->s.unit), "%s", unit);
	view_unit(r, unit, false);
}

static void link_ids(const char *pin, __u32 *link, __u32 *prog)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	int fd = bpf_obj_get(pin);

	*link = *prog = 0;
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
		*link = info.id;
		*prog = info.prog_id;
	}
	close(fd);
}

static int cmd_status(bool json)
{
	static struct status_view v;
	struct policy p;
	int rc, i;

	memset(&v, 0, sizeof(v));
	v.pin_dir = PIN_DIR;
	rc = policy_open(&p, false, false);
	if (rc < 0)
		return EXIT_FAIL;
	v.attached = !rc;
	if (v.attached) {
		link_ids(PIN_LINK, &v.link_id, &v.prog_id);
		v.ports_attached = p.ports;
		link_ids(PIN_LINK_PORTS, &v.ports_link_id, &v.ports_prog_id);
		v.module_btf = module_btf();
		v.smc_sockets = !smc_available();
		for (i = 0; i < SMC_BPF_SLOTS; i++) {
			struct rule_view *r = &v.rules[v.nrules];

			if (!used(&p.all[i]))
				continue;
			v.nrules++;
			r->slot = i;
			r->s = p.all[i];
			r->dropin_loaded = -1;
			if (is_unit(&r->s))
				view_unit(r, r->s.unit, true);
			else
				view_cgroup(r);
		}
	}
	policy_close(&p);
	dropin_scan(view_orphan, &v);
	if (json)
		status_json(stdout, &v);
	else
		status_text(stdout, &v);
	if (!v.attached)
		return EXIT_FAIL;
	return status_stale(&v) ? EXIT_STALE : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cgroup", required_argument, NULL, 'c' },
		{ "unit", required_argument, NULL, 'u' },
		{ "ports", required_argument, NULL, 'p' },
		{ "addr", required_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'f' },
		{ "runtime", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cgroup = NULL, *unit_arg = NULL, *ports = NULL;
	const char *addrs = NULL, *cmd;
	bool force = false, runtime = false, json = false;
	char unit[SMC_BPF_UNIT_LEN], err[ERR_LEN];
	struct rules r = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, "c:u:p:a:frjvh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cgroup = optarg;
			break;
		case 'u':
			unit_arg = optarg;
			break;
		case 'p':
			ports = optarg;
			break;
		case 'a':
			addrs = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'r':
			runtime = true;
			break;
		case 'j':
			json = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		default:
			print_help(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind == argc)
		return usage("%s", "no command (attach, refresh, detach or status)");
	cmd = argv[optind++];
	if (strcmp(cmd, "attach") && strcmp(cmd, "refresh") &&
	    strcmp(cmd, "detach") && strcmp(cmd, "status"))
		return usage("unknown command '%s'", cmd);
	if (!strcmp(cmd, "refresh") && optind < argc && !unit_arg)
		unit_arg = argv[optind++];
	if (optind != argc)
		return usage("unexpected argument '%s'", argv[optind]);
	if (cgroup && unit_arg)
		return usage("%s", "--cgroup and --unit exclude each other");
	if (json && strcmp(cmd, "status"))
		return usage("%s", "--json is for status");
	if (runtime && (strcmp(cmd, "attach") || !unit_arg))
		return usage("%s", "--runtime is for attach --unit");
	if (force && strcmp(cmd, "attach") && strcmp(cmd, "refresh"))
		return usage("%s", "--force is for attach and refresh");
	if ((ports || addrs) && strcmp(cmd, "attach") && strcmp(cmd, "refresh"))
		return usage("%s", "--ports and --addr are for attach and refresh");
	if (ports && parse_ports(ports, &r, err, sizeof(err))) {
		fprintf(stderr, "smc_bpf: --ports %s: %s\n", ports, err);
		return EXIT_USAGE;
	}
	if (addrs && parse_addrs(addrs, &r, err, sizeof(err))) {
		fprintf(stderr, "smc_bpf: --addr %s: %s\n", addrs, err);
		return EXIT_USAGE;
	}
	if (unit_arg && unit_name(unit_arg, unit, sizeof(unit), err, sizeof(err))) {
		fprintf(stderr, "smc_bpf: --unit %s: %s\n", unit_arg, err);
		return EXIT_USAGE;
	}
	libbpf_set_print(libbpf_print);

	if (!strcmp(cmd, "status")) {
		if (cgroup || unit_arg)
			return usage("%s", "status takes no --cgroup or --unit");
		return cmd_status(json);
	}
	if (!strcmp(cmd, "detach"))
		return cmd_detach(cgroup, unit_arg ? unit : NULL);
	if (!strcmp(cmd, "refresh")) {
		if (cgroup || !unit_arg)
			return usage("%s", "refresh needs a UNIT (and no --cgroup)");
		return cmd_unit(unit, &r, force, false, false);
	}
	if (!cgroup && !unit_arg)
		return usage("%s", "attach needs --cgroup DIR or --unit UNIT");
	if (cgroup)
		return cmd_attach_cgroup(cgroup, &r, force);
	return cmd_unit(unit, &r, force, true, runtime);
}
