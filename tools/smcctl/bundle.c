// SPDX-License-Identifier: GPL-2.0
/*
 * smcctl debug-bundle [FILE.tar.gz | FILE.tgz | DIR]
 *
 * Collects what a report about SMC needs into a directory, packed as a
 * tar.gz unless the name says a directory: smcctl's own view (text and
 * JSON), the module (modinfo, /sys/module/smc, its parameters), the
 * sysctls net.smc.*, the RDMA devices and links (rdma), addresses, routes
 * and neighbours (ip), kernel messages about SMC and RDMA, the kernel
 * release.  INDEX.txt lists every file with the command that made it and
 * its exit status; a tool that is missing or fails costs its file only.
 * smcctl's own commands run only when the smc module is loaded, so that
 * collecting never loads it.  Files are readable by the caller only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "smcctl.h"

#define RUN_TIMEOUT_MS	15000

struct bundle {
	char dir[PATH_MAX];
	FILE *index;
	char self[PATH_MAX];	/* this smcctl */
	unsigned int files;
};

static void index_line(struct bundle *b, const char *file, const char *what,
		       const char *status)
{
	fprintf(b->index, "%-28s %-10s %s\n", file, status, what);
	b->files++;
}

static int open_out(struct bundle *b, const char *file)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", b->dir, file);
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* run @argv with stdout and stderr into @file; its exit status or -1 */
static int run(struct bundle *b, const char *file, char *const argv[])
{
	char what[512] = "", status[32];
	int fd, st, waited = 0;
	size_t i, n = 0;
	pid_t pid;

	for (i = 0; argv[i] && n < sizeof(what); i++)
		n += snprintf(what + n, sizeof(what) - n, "%s%s", i ? " " : "",
			      i == 0 && argv[0] == b->self ? "smcctl" : argv[i]);
	fd = open_out(b, file);
	if (fd < 0) {
		index_line(b, file, what, "no-file");
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		setenv("LC_ALL", "C", 1);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd);
	if (pid < 0) {
		index_line(b, file, what, "no-fork");
		return -1;
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (waited >= RUN_TIMEOUT_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			index_line(b, file, what, "timed-out");
			return -1;
		}
		usleep(20 * 1000);
		waited += 20;
	}
	if (WIFEXITED(st))
		snprintf(status, sizeof(status), "exit=%d", WEXITSTATUS(st));
	else
		snprintf(status, sizeof(status), "signal=%d", WTERMSIG(st));
	index_line(b, file, what, status);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* append the first line of file @src to @f as "@label: LINE" */
static void copy_line(FILE *f, const char *label, const char *src)
{
	char line[4096];
	FILE *in = fopen(src, "r");

	if (!in)
		return;
	if (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		fprintf(f, "%s: %s\n", label, line);
	}
	fclose(in);
}

/* every file of directory @dir as "@prefix NAME = VALUE" lines */
static void dir_values(FILE *f, const char *dir, const char *prefix)
{
	char path[PATH_MAX], line[4096];
	struct dirent **names;
	FILE *in;
	int i, n;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(f, "# %s: %s\n", dir, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] == '.')
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		in = fopen(path, "r");
		if (!in) {
			fprintf(f, "%s%s: %s\n", prefix, names[i]->d_name,
				strerror(errno));
			goto next;
		}
		if (!fgets(line, sizeof(line), in))
			line[0] = '\0';
		line[strcspn(line, "\n")] = '\0';
		fprintf(f, "%s%s = %s\n", prefix, names[i]->d_name, line);
		fclose(in);
next:
		free(names[i]);
	}
	free(names);
}

static FILE *out_file(struct bundle *b, const char *file, const char *what)
{
	int fd = open_out(b, file);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	index_line(b, file, what, f ? "ok" : "no-file");
	return f;
}

static void kernel_info(struct bundle *b)
{
	FILE *in, *f = out_file(b, "kernel.txt", "uname, /proc/version, "
				"/proc/cmdline, /etc/os-release");
	struct utsname u;
	char line[1024];

	if (!f)
		return;
	if (!uname(&u))
		fprintf(f, "uname: %s %s %s %s %s\n", u.sysname, u.nodename,
			u.release, u.version, u.machine);
	copy_line(f, "version", "/proc/version");
	copy_line(f, "cmdline", "/proc/cmdline");
	copy_line(f, "boot_id", "/proc/sys/kernel/random/boot_id");
	copy_line(f, "tainted", "/proc/sys/kernel/tainted");
	fprintf(f, "\n/etc/os-release:\n");
	in = fopen("/etc/os-release", "r");
	while (in && fgets(line, sizeof(line), in))
		fputs(line, f);
	if (in)
		fclose(in);
	fclose(f);
}

/* /proc/modules lines of SMC and RDMA modules */
static void modules(struct bundle *b)
{
	static const char *const words[] = { "smc", "ib_", "rdma", "rxe",
					     "mlx", "siw", "irdma" };
	FILE *in, *f = out_file(b, "modules.txt",
				"/proc/modules: smc, RDMA drivers");
	char line[1024];
	size_t i;

	if (!f)
		return;
	in = fopen("/proc/modules", "r");
	if (!in)
		fprintf(f, "# /proc/modules: %s\n", strerror(errno));
	while (in && fgets(line, sizeof(line), in))
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strstr(line, words[i])) {
				fputs(line, f);
				break;
			}
	if (in)
		fclose(in);
	fclose(f);
}

static void module_smc(struct bundle *b)
{
	static const char *const attrs[] = { "version", "srcversion", "taint",
					     "initstate", "refcnt" };
	FILE *f = out_file(b, "module-smc.txt",
			   "/sys/module/smc and its parameters");
	char path[PATH_MAX];
	size_t i;

	if (!f)
		return;
	if (access("/sys/module/smc", F_OK)) {
		fprintf(f, "# /sys/module/smc: %s (module not loaded)\n",
			strerror(errno));
		fclose(f);
		return;
	}
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path), "/sys/module/smc/%s", attrs[i]);
		copy_line(f, attrs[i], path);
	}
	dir_values(f, "/sys/module/smc/parameters", "parameters/");
	fclose(f);
}

static void sysctls(struct bundle *b)
{
	FILE *f = out_file(b, "sysctl-net-smc.txt",
			   "/proc/sys/net/smc/* (net.smc.*)");

	if (!f)
		return;
	dir_values(f, "/proc/sys/net/smc", "net.smc.");
	fclose(f);
}

static bool has_word(const char *line)
{
	static const char *const words[] = { "smc", "rxe", "rdma",
					     "infiniband", "ib_", "roce" };
	char low[2048];
	size_t i;

	for (i = 0; line[i] && i < sizeof(low) - 1; i++)
		low[i] = (char)((line[i] >= 'A' && line[i] <= 'Z') ?
				line[i] + 32 : line[i]);
	low[i] = '\0';
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(low, words[i]))
			return true;
	return false;
}

/* dmesg, then only the lines about SMC and RDMA */
static void kernel_log(struct bundle *b)
{
	char *const argv[] = { "dmesg", "-T", NULL };
	char path[PATH_MAX + 64], all[PATH_MAX + 64], line[2048];
	FILE *in, *f;
	int rc;

	rc = run(b, "dmesg-all.tmp", argv);
	snprintf(all, sizeof(all), "%s/dmesg-all.tmp", b->dir);
	if (rc) {
		/* dmesg without -T where there is no clock for it */
		char *const plain[] = { "dmesg", NULL };

		run(b, "dmesg-all.tmp", plain);
	}
	snprintf(path, sizeof(path), "%s/dmesg-smc.txt", b->dir);
	in = fopen(all, "r");
	f = fopen(path, "w");
	while (in && f && fgets(line, sizeof(line), in))
		if (has_word(line))
			fputs(line, f);
	if (in)
		fclose(in);
	if (f)
		fclose(f);
	unlink(all);
	index_line(b, "dmesg-smc.txt", "dmesg lines with smc, rxe, rdma, "
		   "infiniband, ib_, roce (dmesg-all.tmp above)", f ? "ok" :
		   "no-file");
}

static void smcctl_views(struct bundle *b)
{
	static const char *const cmds[][4] = {
		{ "info" }, { "stats", "-d" }, { "stats", "-d", "-a" },
		{ "fallback", "-a" }, { "connections" }, { "devices" },
		{ "linkgroups" }, { "links" }, { "pnet", "show" },
		{ "ueid", "show" },
	};
	char file[64], *argv[8];
	size_t i, k, n;
	int json;

	if (access("/sys/module/smc", F_OK)) {
		index_line(b, "-", "smcctl views: the smc module is not loaded",
			   "skipped");
		return;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		for (json = 0; json < 2; json++) {
			n = snprintf(file, sizeof(file), "smcctl");
			argv[0] = b->self;
			for (k = 0; k < 4 && cmds[i][k]; k++) {
				argv[k + 1] = (char *)cmds[i][k];
				n += snprintf(file + n, sizeof(file) - n, "-%s",
					      cmds[i][k][0] == '-' ?
					      cmds[i][k] + 1 : cmds[i][k]);
			}
			if (json)
				argv[++k] = "--json";
			argv[k + 1] = NULL;
			snprintf(file + n, sizeof(file) - n, json ? ".json" :
				 ".txt");
			run(b, file, argv);
		}
	}
}

static void tools(struct bundle *b)
{
	static const struct {
		const char *file;
		const char *argv[8];
	} runs[] = {
		{ "modinfo-smc.txt", { "modinfo", "smc" } },
		{ "rdma-link.txt", { "rdma", "-d", "link", "show" } },
		{ "rdma-dev.txt", { "rdma", "-d", "dev", "show" } },
		{ "rdma-res.txt", { "rdma", "res", "show" } },
		{ "ip-addr.txt", { "ip", "-d", "addr", "show" } },
		{ "ip-route.txt", { "ip", "route", "show", "table", "all" } },
		{ "ip-route6.txt", { "ip", "-6", "route", "show", "table", "all" } },
		{ "ip-neigh.txt", { "ip", "neigh", "show" } },
		{ "ip-rule.txt", { "ip", "rule", "show" } },
	};
	size_t i;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		run(b, runs[i].file, (char *const *)runs[i].argv);
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

int cmd_debug_bundle(int argc, char **argv)
{
	char out[PATH_MAX], name[NAME_MAX], tmp[PATH_MAX] = "", when[32];
	char path[PATH_MAX + 16];
	const char *tmpdir = getenv("TMPDIR");
	struct bundle *b;
	struct utsname u;
	time_t now = time(NULL);
	bool tarball;
	struct tm tm;
	ssize_t n;
	char *dot;
	int rc;

	if (argc > 1)
		die(EXIT_USAGE, "debug-bundle: at most one FILE or DIR");
	b = calloc(1, sizeof(*b));
	if (!b)
		die(EXIT_ERR, "out of memory");
	if (uname(&u))
		snprintf(u.nodename, sizeof(u.nodename), "host");
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	if (argc)
		snprintf(out, sizeof(out), "%s", argv[0]);
	else
		snprintf(out, sizeof(out), "smcctl-debug-%s-%s.tar.gz",
			 u.nodename, when);
	tarball = has_suffix(out, ".tar.gz") || has_suffix(out, ".tgz");
	umask(077);
	n = readlink("/proc/self/exe", b->self, sizeof(b->self) - 1);
	if (n <= 0)
		snprintf(b->self, sizeof(b->self), "smcctl");

	if (tarball) {
		/* the directory inside: the file's name without .tar.gz */
		dot = strrchr(out, '/');
		snprintf(name, sizeof(name), "%s", dot ? dot + 1 : out);
		name[strlen(name) - (has_suffix(name, ".tgz") ? 4 : 7)] = '\0';
		snprintf(tmp, sizeof(tmp), "%s/smcctl-bundle.XXXXXX",
			 tmpdir && tmpdir[0] ? tmpdir : "/tmp");
		if (!mkdtemp(tmp))
			die(EXIT_ERR, "debug-bundle: %s: %s", tmp, strerror(errno));
		snprintf(b->dir, sizeof(b->dir), "%s/%s", tmp, name);
	} else {
		snprintf(b->dir, sizeof(b->dir), "%s", out);
	}
	if (mkdir(b->dir, 0700))
		die(EXIT_ERR, "debug-bundle: %s: %s", b->dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/INDEX.txt", b->dir);
	b->index = fopen(path, "w");
	if (!b->index)
		die(EXIT_ERR, "debug-bundle: %s: %s", path, strerror(errno));
	fprintf(b->index, "smcctl %s debug bundle of %s, %s, uid %u\n\n",
		SMCCTL_VERSION, u.nodename, when, (unsigned int)getuid());
	fprintf(b->index, "%-28s %-10s %s\n", "FILE", "STATUS", "FROM");
	kernel_info(b);
	modules(b);
	module_smc(b);
	sysctls(b);
	smcctl_views(b);
	tools(b);
	kernel_log(b);
	fclose(b->index);

	rc = 0;
	if (tarball) {
		char *const tar[] = { "tar", "-czf", out, "-C", tmp, name, NULL };
		pid_t pid;
		int st;

		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			execvp(tar[0], tar);
			dprintf(2, "%s: cannot run tar: %s\n", prog,
				strerror(errno));
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			rc = EXIT_ERR;
		nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		if (rc)
			die(EXIT_ERR, "debug-bundle: tar failed for %s", out);
	}
	if (opt.json) {
		struct json j;

		json_init(&j, stdout);
		json_obj_open(&j, NULL);
		json_str(&j, "path", out);
		json_bool(&j, "tarball", tarball);
		json_u64(&j, "files", b->files);
		json_obj_close(&j);
		putchar('\n');
	} else {
		printf("%s\n", out);
	}
	free(b);
	return rc;
}
