// SPDX-License-Identifier: GPL-2.0
/*
 * smc_bpf: load, extend, show and remove the cgroup SMC policy
 * (smc_policy.bpf.c).
 *
 *   smc_bpf attach --cgroup /sys/fs/cgroup/PATH [--ports P1,P2...] [--force]
 *   smc_bpf detach [--cgroup /sys/fs/cgroup/PATH]
 *   smc_bpf status
 *
 * The programs, their links and the two maps are pinned in PIN_DIR, so the
 * policy stays when smc_bpf exits and the next smc_bpf finds it.  The
 * first link's pin is written last and removed first: it alone says
 * "attached".  Removing the pins drops the last references, which
 * detaches the programs.
 *
 * The port rules need a second program, on the smc module's
 * smc_bpf_decide(), which only the module's BTF lets the kernel find.
 * Without that BTF the cgroup program is attached alone.
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
#include <unistd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <netinet/in.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "smc_bpf.h"
#include "smc_policy.skel.h"

#define BPF_FS		"/sys/fs/bpf"
#define PIN_DIR		BPF_FS "/smc_bpf"
#define PIN_LINK	PIN_DIR "/link"
#define PIN_LINK_PORTS	PIN_DIR "/link-ports"
#define PIN_CGROUPS	PIN_DIR "/cgroups"
#define PIN_SLOTS	PIN_DIR "/slots"
#define SMC_BTF		"/sys/kernel/btf/smc"
#define NO_BTF_NOTICE	"smc_bpf: port rules unavailable: the smc module has no BTF (" \
			SMC_BTF "), see Documentation/networking/smc-usage.rst\n"

/* The port rules of one attach: none (every port) or a list. */
struct port_rules {
	__u32 n;
	__u16 port[SMC_BPF_PORTS];
};

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
		"usage: smc_bpf [-v] attach --cgroup DIR [--ports P1,P2...] [--force]\n"
		"       smc_bpf [-v] detach [--cgroup DIR]\n"
		"       smc_bpf [-v] status\n"
		"TCP sockets created by tasks in (or below) the cgroup DIR become\n"
		"IPPROTO_SMC sockets.  With --ports (at most %d), their connect()\n"
		"to other destination ports and listen() on other local ports\n"
		"stay plain TCP; attach again with --ports to replace the list.\n"
		"Pinned in " PIN_DIR ".\n", SMC_BPF_PORTS);
}

static bool attached(void)
{
	return access(PIN_LINK, F_OK) == 0;
}

static bool module_btf(void)
{
	return access(SMC_BTF, F_OK) == 0;
}

/* "5400,6379": distinct ports 1..65535, at most SMC_BPF_PORTS. */
static int parse_ports(const char *arg, struct port_rules *pr)
{
	const char *p = arg;
	unsigned long v;
	char *end;
	__u32 i;

	memset(pr, 0, sizeof(*pr));
	for (;;) {
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || v < 1 || v > 65535 ||
		    (*end && *end != ',')) {
			fprintf(stderr,
				"smc_bpf: --ports %s: want ports 1..65535, comma separated\n",
				arg);
			return -1;
		}
		for (i = 0; i < pr->n && pr->port[i] != v; i++)
			;
		if (i == pr->n) {
			if (pr->n == SMC_BPF_PORTS) {
				fprintf(stderr, "smc_bpf: --ports %s: at most %d ports\n",
					arg, SMC_BPF_PORTS);
				return -1;
			}
			pr->port[pr->n++] = v;
		}
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* "5400,6379" or "all", into @buf. */
static const char *ports_str(const struct smc_bpf_slot *slot, char *buf,
			     size_t len)
{
	size_t off = 0;
	__u32 i;

	if (!slot->nports || slot->nports > SMC_BPF_PORTS)
		return "all";
	buf[0] = '\0';
	for (i = 0; i < slot->nports && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%u", i ? "," : "",
				slot->ports[i]);
	return buf;
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

/* Open a cgroup v2 directory; its id is what the kernel reports. */
static int cgroup_open(const char *path, __u64 *id)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h;
	struct statfs st;
	int fd, mnt;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "smc_bpf: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &st) || st.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(stderr, "smc_bpf: %s is not a cgroup v2 directory\n",
			path);
		close(fd);
		return -1;
	}
	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(fd, "", &h.fh, &mnt, AT_EMPTY_PATH) ||
	    h.fh.handle_bytes != sizeof(h.id)) {
		fprintf(stderr, "smc_bpf: no cgroup id for %s\n", path);
		close(fd);
		return -1;
	}
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return fd;
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

static int read_slot(int fd, __u32 i, struct smc_bpf_slot *slot)
{
	if (bpf_map_lookup_elem(fd, &i, slot)) {
		fprintf(stderr, "smc_bpf: cannot read slot %u: %s\n", i,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* The slot holding cgroup @id (or, with @id 0, named @path), or -1. */
static int find_slot(int slots, __u64 id, const char *path)
{
	struct smc_bpf_slot slot;
	__u32 i;

	for (i = 0; i < SMC_BPF_SLOTS; i++) {
		if (read_slot(slots, i, &slot))
			return -2;
		if (!slot.cgroup_id)
			continue;
		if (id ? slot.cgroup_id == id : !strcmp(slot.path, path))
			return i;
	}
	return -1;
}

/* A free slot, -1 if none, -2 on error. */
static int free_slot(int slots)
{
	struct smc_bpf_slot slot;
	__u32 i;

	for (i = 0; i < SMC_BPF_SLOTS; i++) {
		if (read_slot(slots, i, &slot))
			return -2;
		if (!slot.cgroup_id)
			return i;
	}
	return -1;
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

/* A cgroup already in the policy gets the port rules @pr. */
static int set_ports(int slots, int i, const struct port_rules *pr,
		     const char *path)
{
	struct smc_bpf_slot slot;
	char buf[SMC_BPF_PORTS * 6 + 1];

	if (read_slot(slots, i, &slot))
		return -1;
	memcpy(slot.ports, pr->port, sizeof(slot.ports));
	slot.nports = pr->n;
	if (bpf_map_update_elem(slots, &i, &slot, BPF_ANY)) {
		fprintf(stderr, "smc_bpf: cannot update %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	printf("smc_bpf: %s (slot %d) ports %s\n", path, i,
	       ports_str(&slot, buf, sizeof(buf)));
	return 0;
}

/*
 * Put cgroup @cg (fd, @id) into a free slot of the maps, with the port
 * rules @pr (NULL: all ports).  For a cgroup already there, @pr replaces
 * its rules.
 */
static int add_cgroup(int cgroups, int slots, int cg, __u64 id,
		      const char *path, const struct port_rules *pr)
{
	struct smc_bpf_slot slot = { .cgroup_id = id };
	char buf[SMC_BPF_PORTS * 6 + 1];
	__u32 fd = cg;
	int i;

	i = find_slot(slots, id, NULL);
	if (i >= 0) {
		if (pr)
			return set_ports(slots, i, pr, path);
		printf("smc_bpf: %s already in the policy (slot %d)\n", path, i);
		return 0;
	}
	if (i < -1)
		return -1;
	i = free_slot(slots);
	if (i < 0) {
		if (i == -1)
			fprintf(stderr, "smc_bpf: all %d slots in use\n",
				SMC_BPF_SLOTS);
		return -1;
	}
	if (!realpath(path, slot.path))
		snprintf(slot.path, sizeof(slot.path), "%s", path);
	if (pr) {
		memcpy(slot.ports, pr->port, sizeof(slot.ports));
		slot.nports = pr->n;
	}
	/* the slot first, so that every match is counted */
	if (bpf_map_update_elem(slots, &i, &slot, BPF_ANY) ||
	    bpf_map_update_elem(cgroups, &i, &fd, BPF_ANY)) {
		fprintf(stderr, "smc_bpf: cannot add %s: %s\n", path,
			strerror(errno));
		memset(&slot, 0, sizeof(slot));
		bpf_map_update_elem(slots, &i, &slot, BPF_ANY);
		return -1;
	}
	printf("smc_bpf: %s (cgroup id %llu) added in slot %d, ports %s\n",
	       slot.path, (unsigned long long)id, i,
	       ports_str(&slot, buf, sizeof(buf)));
	return 0;
}

/* Load the programs: the port one only with the module's BTF. */
static struct smc_policy *load_policy(bool want_ports)
{
	struct smc_policy *skel;
	bool ports = module_btf();

	if (want_ports && !ports) {
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

static int cmd_attach(const char *path, const struct port_rules *pr,
		      bool force)
{
	struct bpf_link *link = NULL, *link_ports = NULL;
	struct smc_policy *skel = NULL;
	int cgroups, slots, cg, rc = -1;
	__u64 id;

	rc = smc_available();
	if (rc && !force) {
		fprintf(stderr,
			"smc_bpf: socket(AF_INET, SOCK_STREAM, IPPROTO_SMC): %s\n"
			"smc_bpf: load an SMC module with IPPROTO_SMC first (--force attaches anyway,\n"
			"smc_bpf: and TCP sockets in the cgroup then fail)\n",
			strerror(-rc));
		return 1;
	}
	rc = -1;
	cg = cgroup_open(path, &id);
	if (cg < 0)
		return 1;
	if (bpffs_ready())
		goto out;
	if (attached()) {
		if (pr && access(PIN_LINK_PORTS, F_OK)) {
			fprintf(stderr,
				"smc_bpf: the policy was attached without port rules (no module BTF\n"
				"smc_bpf: then): detach, then attach again\n");
			goto out;
		}
		cgroups = bpf_obj_get(PIN_CGROUPS);
		slots = bpf_obj_get(PIN_SLOTS);
		if (cgroups < 0 || slots < 0) {
			fprintf(stderr, "smc_bpf: pins in %s incomplete: run detach\n",
				PIN_DIR);
		} else {
			rc = add_cgroup(cgroups, slots, cg, id, path, pr);
		}
		if (cgroups >= 0)
			close(cgroups);
		if (slots >= 0)
			close(slots);
		goto out;
	}

	skel = load_policy(pr);
	if (!skel)
		goto out;
	cgroups = bpf_map__fd(skel->maps.cgroups);
	slots = bpf_map__fd(skel->maps.slots);
	if (add_cgroup(cgroups, slots, cg, id, path, pr))
		goto out;
	/* the port rules first: a socket made SMC finds them in force */
	if (bpf_program__autoload(skel->progs.smc_ports)) {
		link_ports = bpf_program__attach(skel->progs.smc_ports);
		if (!link_ports) {
			fprintf(stderr,
				"smc_bpf: cannot attach to smc_bpf_decide: %s\n",
				strerror(errno));
			goto out;
		}
	}
	link = bpf_program__attach(skel->progs.smc_policy);
	if (!link) {
		fprintf(stderr,
			"smc_bpf: cannot attach to update_socket_protocol: %s\n",
			strerror(errno));
		goto out;
	}
	rc = pin_all(skel, link, link_ports);
	if (!rc)
		printf("smc_bpf: attached%s, pinned in %s\n",
		       link_ports ? " with port rules" : "", PIN_DIR);
out:
	bpf_link__destroy(link);
	bpf_link__destroy(link_ports);
	smc_policy__destroy(skel);
	close(cg);
	return rc ? 1 : 0;
}

static int remove_slot(int cgroups, int slots, int i)
{
	struct smc_bpf_slot slot = { 0 };
	__u32 key = i;

	if (bpf_map_delete_elem(cgroups, &key) && errno != ENOENT) {
		fprintf(stderr, "smc_bpf: cannot clear slot %d: %s\n", i,
			strerror(errno));
		return -1;
	}
	return bpf_map_update_elem(slots, &key, &slot, BPF_ANY);
}

static int cmd_detach(const char *path)
{
	int cgroups = -1, slots = -1, cg, i, rc = 1;
	__u64 id = 0;

	if (!attached()) {
		unpin_all();	/* leftovers of an interrupted attach */
		printf("smc_bpf: not attached\n");
		return 0;
	}
	if (!path) {
		unpin_all();
		printf("smc_bpf: detached\n");
		return 0;
	}
	cg = cgroup_open(path, &id);
	if (cg >= 0)
		close(cg);
	cgroups = bpf_obj_get(PIN_CGROUPS);
	slots = bpf_obj_get(PIN_SLOTS);
	if (cgroups < 0 || slots < 0) {
		fprintf(stderr, "smc_bpf: pins in %s incomplete: run detach without --cgroup\n",
			PIN_DIR);
		goto out;
	}
	/* a removed cgroup is found by the path it was added with */
	i = cg >= 0 ? find_slot(slots, id, NULL) : -1;
	if (i == -1) {
		char real[PATH_MAX];

		i = find_slot(slots, 0, realpath(path, real) ? real : path);
	}
	if (i < 0) {
		fprintf(stderr, "smc_bpf: %s is not in the policy\n", path);
		goto out;
	}
	if (remove_slot(cgroups, slots, i))
		goto out;
	printf("smc_bpf: %s removed from slot %d\n", path, i);
	rc = 0;
	for (i = 0; i < SMC_BPF_SLOTS; i++) {
		struct smc_bpf_slot slot;

		if (read_slot(slots, i, &slot) || slot.cgroup_id)
			goto out;
	}
	unpin_all();
	printf("smc_bpf: no cgroup left: detached\n");
out:
	if (cgroups >= 0)
		close(cgroups);
	if (slots >= 0)
		close(slots);
	return rc;
}

static void link_ports_status(void)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	int fd;

	fd = bpf_obj_get(PIN_LINK_PORTS);
	if (fd < 0) {
		printf("port rules: not attached%s\n",
		       module_btf() ? "" : " (the smc module has no BTF)");
		return;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		printf("port rules: attached\n");
	else
		printf("port rules: link %u, program %u, %s\n", info.id,
		       info.prog_id, "fmod_ret smc_bpf_decide");
	close(fd);
}

static int cmd_status(void)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	char buf[SMC_BPF_PORTS * 6 + 1];
	struct smc_bpf_slot slot;
	int link, slots, n = 0;
	__u32 i;

	if (!attached()) {
		printf("smc_bpf: not attached\n");
		return 1;
	}
	link = bpf_obj_get(PIN_LINK);
	slots = bpf_obj_get(PIN_SLOTS);
	if (link < 0 || slots < 0) {
		fprintf(stderr, "smc_bpf: cannot open the pins in %s: %s\n",
			PIN_DIR, strerror(errno));
		return 2;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(link, &info, &len))
		printf("attached: pinned in %s\n", PIN_DIR);
	else
		printf("attached: link %u, program %u, %s, pinned in %s\n",
		       info.id, info.prog_id,
		       "fmod_ret update_socket_protocol", PIN_DIR);
	link_ports_status();
	printf("IPPROTO_SMC sockets: %s\n",
	       smc_available() ? "NOT available (TCP sockets in the cgroups fail)" :
	       "available");
	for (i = 0; i < SMC_BPF_SLOTS; i++) {
		if (read_slot(slots, i, &slot))
			break;
		if (!slot.cgroup_id)
			continue;
		slot.path[sizeof(slot.path) - 1] = '\0';
		printf("cgroup %s id=%llu converted=%llu%s\n", slot.path,
		       (unsigned long long)slot.cgroup_id,
		       (unsigned long long)slot.converted,
		       access(slot.path, F_OK) ? " (removed)" : "");
		if (slot.nports)
			printf("  ports %s: %llu connect/listen kept TCP\n",
			       ports_str(&slot, buf, sizeof(buf)),
			       (unsigned long long)slot.to_tcp);
		n++;
	}
	if (!n)
		printf("no cgroup\n");
	close(link);
	close(slots);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cgroup", required_argument, NULL, 'c' },
		{ "force", no_argument, NULL, 'f' },
		{ "ports", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cgroup = NULL, *ports = NULL, *cmd;
	struct port_rules pr;
	bool force = false;
	int c;

	while ((c = getopt_long(argc, argv, "c:fp:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cgroup = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'p':
			ports = optarg;
			break;
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

	if (!strcmp(cmd, "attach")) {
		if (!cgroup) {
			fprintf(stderr, "smc_bpf: attach needs --cgroup DIR\n");
			return 2;
		}
		if (ports && parse_ports(ports, &pr))
			return 2;
		return cmd_attach(cgroup, ports ? &pr : NULL, force);
	}
	if (ports) {
		print_help(stderr);
		return 2;
	}
	if (!strcmp(cmd, "detach"))
		return cmd_detach(cgroup);
	if (!strcmp(cmd, "status") && !cgroup)
		return cmd_status();
	print_help(stderr);
	return 2;
}
