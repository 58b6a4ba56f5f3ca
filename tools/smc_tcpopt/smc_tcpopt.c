// SPDX-License-Identifier: GPL-2.0
/*
 * smc_tcpopt: attach, show and remove the eBPF program that carries TCP's
 * SMC option (smc_tcpopt.bpf.c) on a kernel whose TCP has none.
 *
 *   smc_tcpopt [-v] attach
 *   smc_tcpopt [-v] detach
 *   smc_tcpopt [-v] status
 *
 * The program goes on the root of the cgroup v2 hierarchy, so that it sees
 * every TCP socket.  Its link and its stats map are pinned in PIN_DIR: the
 * program stays when smc_tcpopt exits, and the next smc_tcpopt finds it.
 * The link's pin is written last and removed first; it alone says
 * "attached".  Removing the pins detaches the program.
 *
 * The program calls the smc module's kfunc bpf_smc_tcpopt(), so it needs
 * our smc module, loaded, with its BTF; and while it is loaded the smc
 * module cannot be removed: detach first (detach waits until the kernel
 * has freed the program and with it that reference).
 *
 * Where TCP carries the option itself (a kernel built with CONFIG_SMC),
 * there is nothing to do, unless the smc module was loaded with
 * tcp_option_bpf=1 (for testing this path there).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "smc_tcpopt.h"
#include "smc_tcpopt.skel.h"

#define BPF_FS		"/sys/fs/bpf"
#define PIN_DIR		BPF_FS "/smc_tcpopt"
#define PIN_LINK	PIN_DIR "/link"
#define PIN_STATS	PIN_DIR "/stats"
#define SMC_PARAM	"/sys/module/smc/parameters/tcp_option_bpf"
#define SMC_REFCNT	"/sys/module/smc/refcnt"
#define SMC_BTF		"/sys/kernel/btf/smc"
/* how long detach waits for the kernel to free the program */
#define DETACH_WAIT_MS	10000

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
		"usage: smc_tcpopt [-v] attach|detach|status\n"
		"Carries TCP's SMC option (RFC 7609) by eBPF for the smc module, on a\n"
		"kernel whose TCP has none (built without CONFIG_SMC); elsewhere it has\n"
		"nothing to do.  attach: on the cgroup v2 root, pinned in " PIN_DIR ";\n"
		"detach: before the smc module can be removed.\n");
}

static bool attached(void)
{
	return access(PIN_LINK, F_OK) == 0;
}

/*
 * Does TCP carry the SMC option itself?  Its switch, tcp_have_smc, exists
 * only in a kernel built with CONFIG_SMC.  1 yes, 0 no, -1 unknown.
 */
static int tcp_has_smc(void)
{
	char line[512], path[PATH_MAX];
	struct utsname u;
	int rc = -1;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (f) {
		rc = 0;
		while (fgets(line, sizeof(line), f)) {
			char *name = strrchr(line, ' ');

			if (name && !strcmp(name + 1, "tcp_have_smc\n")) {
				rc = 1;
				break;
			}
		}
		fclose(f);
		return rc;
	}
	if (uname(&u))
		return -1;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "r");
	if (!f)
		return -1;
	rc = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "CONFIG_SMC=y\n") ||
		    !strcmp(line, "CONFIG_SMC=m\n")) {
			rc = 1;
			break;
		}
	}
	fclose(f);
	return rc;
}

/*
 * Is our smc module loaded, and does it want the program (its read-only
 * parameter tcp_option_bpf)?  1 yes, 0 loaded but TCP carries the option,
 * -1 not loaded (or not ours).
 */
static int module_wants_bpf(void)
{
	char c = 0;
	FILE *f;

	f = fopen(SMC_PARAM, "r");
	if (!f)
		return -1;
	if (fread(&c, 1, 1, f) != 1)
		c = 0;
	fclose(f);
	return c == 'Y' || c == '1';
}

/* The smc module's reference count, -1 if unknown. */
static long module_refcnt(void)
{
	long n = -1;
	FILE *f;

	f = fopen(SMC_REFCNT, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/* "TCP carries the SMC option itself" and why, or NULL when it does not. */
static const char *native_reason(void)
{
	int want = module_wants_bpf();

	if (want == 1)
		return NULL;
	if (want == 0)
		return "the smc module leaves it to TCP (CONFIG_SMC)";
	if (tcp_has_smc() == 1)
		return "the kernel has CONFIG_SMC";
	return NULL;
}

/* A bpf file system on /sys/fs/bpf, mounted here if there is none. */
static int bpffs_ready(void)
{
	struct statfs st;

	if (statfs(BPF_FS, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", BPF_FS, "bpf", 0, "mode=0700")) {
		fprintf(stderr, "smc_tcpopt: cannot mount bpffs on %s: %s\n",
			BPF_FS, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * An fd of the cgroup v2 root: where the hierarchy is mounted with its
 * root, else through a mount of our own, gone again once the fd is open.
 */
static int cgroup_root_open(void)
{
	char line[4096], dir[] = "/run/smc_tcpopt.XXXXXX";
	int fd = -1;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "r");
	while (f && fd < 0 && fgets(line, sizeof(line), f)) {
		char root[PATH_MAX], point[PATH_MAX], *sep;

		/* ID PARENT MAJ:MIN ROOT POINT OPTIONS... - TYPE SOURCE ... */
		sep = strstr(line, " - cgroup2 ");
		if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root,
				   point) != 2 || strcmp(root, "/"))
			continue;
		fd = open(point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (f)
		fclose(f);
	if (fd >= 0)
		return fd;
	if (!mkdtemp(dir)) {
		fprintf(stderr, "smc_tcpopt: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (mount("cgroup2", dir, "cgroup2", 0, NULL)) {
		fprintf(stderr, "smc_tcpopt: cannot mount cgroup2: %s\n",
			strerror(errno));
	} else {
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			fprintf(stderr, "smc_tcpopt: %s: %s\n", dir,
				strerror(errno));
		umount2(dir, MNT_DETACH);
	}
	rmdir(dir);
	return fd;
}

static void unpin_all(void)
{
	unlink(PIN_LINK);
	unlink(PIN_STATS);
	rmdir(PIN_DIR);
}

static int cmd_attach(void)
{
	struct smc_tcpopt_bpf *skel = NULL;
	const char *native = native_reason();
	struct bpf_link *link = NULL;
	int cg = -1, rc = 1;

	if (native) {
		printf("smc_tcpopt: TCP carries the SMC option itself (%s): nothing to do\n",
		       native);
		return 0;
	}
	if (module_wants_bpf() < 0) {
		fprintf(stderr, "smc_tcpopt: load the smc module first (no %s)\n",
			SMC_PARAM);
		return 1;
	}
	if (bpffs_ready())
		return 1;
	if (attached()) {
		printf("smc_tcpopt: already attached (%s)\n", PIN_DIR);
		return 0;
	}
	if (access(SMC_BTF, F_OK)) {
		fprintf(stderr,
			"smc_tcpopt: the smc module has no BTF (%s), so its kfunc cannot be\n"
			"smc_tcpopt: called: build it with pahole (package dwarves)\n",
			SMC_BTF);
		return 1;
	}
	skel = smc_tcpopt_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "smc_tcpopt: cannot load the program: %s%s\n",
			strerror(errno), verbose ? "" : " (-v tells more)");
		return 1;
	}
	cg = cgroup_root_open();
	if (cg < 0)
		goto out;
	link = bpf_program__attach_cgroup(skel->progs.smc_tcpopt, cg);
	if (!link) {
		fprintf(stderr, "smc_tcpopt: cannot attach to the root cgroup: %s\n",
			strerror(errno));
		goto out;
	}
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST) {
		fprintf(stderr, "smc_tcpopt: %s: %s\n", PIN_DIR, strerror(errno));
		goto out;
	}
	if (bpf_map__pin(skel->maps.stats, PIN_STATS) ||
	    bpf_link__pin(link, PIN_LINK)) {
		fprintf(stderr, "smc_tcpopt: cannot pin in %s: %s\n", PIN_DIR,
			strerror(errno));
		unpin_all();
		goto out;
	}
	printf("smc_tcpopt: attached to the root cgroup, pinned in %s\n",
	       PIN_DIR);
	rc = 0;
out:
	bpf_link__destroy(link);
	smc_tcpopt_bpf__destroy(skel);
	if (cg >= 0)
		close(cg);
	return rc;
}

/* The ids of the pinned link and of its program, 0 when unknown. */
static void link_ids(__u32 *link_id, __u32 *prog_id)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	int fd;

	*link_id = 0;
	*prog_id = 0;
	fd = bpf_obj_get(PIN_LINK);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
		*link_id = info.id;
		*prog_id = info.prog_id;
	}
	close(fd);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The kernel frees a detached program after an RCU grace period and a
 * work item; only then is its reference on the smc module gone.  Wait
 * for the program's id to go, then for the module's count to drop below
 * @refcnt (what it was with the program), for DETACH_WAIT_MS at most.
 */
static bool wait_freed(__u32 prog_id, long refcnt)
{
	long deadline = now_ms() + DETACH_WAIT_MS;
	int fd;

	while (prog_id) {
		fd = bpf_prog_get_fd_by_id(prog_id);
		if (fd < 0 && errno == ENOENT)
			break;
		if (fd >= 0)
			close(fd);
		if (now_ms() > deadline)
			return false;
		usleep(20000);
	}
	while (refcnt > 0) {
		long n = module_refcnt();

		if (n < 0 || n < refcnt)
			break;
		if (now_ms() > deadline)
			return false;
		usleep(20000);
	}
	return true;
}

static int cmd_detach(void)
{
	__u32 link_id, prog_id;
	long refcnt;

	if (!attached()) {
		unpin_all();	/* leftovers of an interrupted attach */
		printf("smc_tcpopt: not attached\n");
		return 0;
	}
	link_ids(&link_id, &prog_id);
	refcnt = module_refcnt();
	unpin_all();
	if (!wait_freed(prog_id, refcnt)) {
		fprintf(stderr,
			"smc_tcpopt: detached, but program %u still holds the smc module after %d ms\n",
			prog_id, DETACH_WAIT_MS);
		return 1;
	}
	printf("smc_tcpopt: detached\n");
	return 0;
}

static const char *const stat_names[SMC_TCPOPT_NSTATS] = {
	[SMC_TCPOPT_SYN_SENT] = "SYNs sent with the option",
	[SMC_TCPOPT_SYNACK_SENT] = "SYN-ACKs sent with the option",
	[SMC_TCPOPT_SYN_OFFERED] = "SYNs with the option offered SMC",
	[SMC_TCPOPT_SYNACK_SEEN] = "SYN-ACKs received with the option",
};

/* Each counter of the pinned stats map, summed over the CPUs. */
static int print_stats(void)
{
	int ncpu = libbpf_num_possible_cpus(), fd, i, c;
	__u64 *v;

	if (ncpu <= 0)
		return -1;
	fd = bpf_obj_get(PIN_STATS);
	v = calloc(ncpu, sizeof(*v));
	if (fd < 0 || !v) {
		fprintf(stderr, "smc_tcpopt: cannot read %s: %s\n", PIN_STATS,
			strerror(errno));
		free(v);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (i = 0; i < SMC_TCPOPT_NSTATS; i++) {
		__u32 key = i;
		__u64 sum = 0;

		if (bpf_map_lookup_elem(fd, &key, v))
			continue;
		for (c = 0; c < ncpu; c++)
			sum += v[c];
		printf("  %-36s %llu\n", stat_names[i],
		       (unsigned long long)sum);
	}
	free(v);
	close(fd);
	return 0;
}

static int cmd_status(void)
{
	const char *native = native_reason();
	int want = module_wants_bpf();
	__u32 link_id, prog_id;

	printf("TCP's own SMC option: %s\n",
	       tcp_has_smc() == 1 ? "yes (CONFIG_SMC)" :
	       tcp_has_smc() == 0 ? "no" : "unknown");
	printf("smc module: %s\n",
	       want < 0 ? "not loaded" :
	       want ? "loaded, wants the option by eBPF (tcp_option_bpf=Y)" :
	       "loaded, TCP carries the option (tcp_option_bpf=N)");
	if (!attached()) {
		printf("smc_tcpopt: not attached\n");
		if (native) {
			printf("smc_tcpopt: not needed: %s\n", native);
			return 0;
		}
		return 1;
	}
	link_ids(&link_id, &prog_id);
	printf("smc_tcpopt: attached: link %u, program %u (sock_ops, root cgroup), pinned in %s\n",
	       link_id, prog_id, PIN_DIR);
	return print_stats() ? 2 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd;
	int c;

	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			verbose = true;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		default:
			print_help(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		print_help(stderr);
		return 2;
	}
	cmd = argv[optind];
	libbpf_set_print(libbpf_print);
	if (!strcmp(cmd, "attach"))
		return cmd_attach();
	if (!strcmp(cmd, "detach"))
		return cmd_detach();
	if (!strcmp(cmd, "status"))
		return cmd_status();
	print_help(stderr);
	return 2;
}
