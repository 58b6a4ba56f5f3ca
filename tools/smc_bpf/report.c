// SPDX-License-Identifier: GPL-2.0
/*
 * smc_bpf status: the report, as text or JSON, of what smc_bpf.c found
 * (a struct status_view), so that the host test can render made-up ones.
 */
#include <string.h>
#include "json.h"
#include "rules.h"

const char *rule_state_name(enum rule_state s)
{
	switch (s) {
	case RULE_LIVE:
		return "live";
	case RULE_INACTIVE:
		return "inactive";
	default:
		return "stale";
	}
}

int status_stale(const struct status_view *v)
{
	int i, n = 0;

	for (i = 0; i < v->nrules; i++)
		n += v->rules[i].state == RULE_STALE;
	return n;
}

static const char *state_tag(enum rule_state s)
{
	return s == RULE_INACTIVE ? "INACTIVE" : "STALE";
}

static void rule_text(FILE *f, const struct rule_view *r)
{
	const struct smc_bpf_slot *s = &r->s;
	char ports[PORTS_STR_LEN], addrs[ADDRS_STR_LEN];
	bool unit = s->flags & SMC_BPF_F_UNIT;

	if (r->slot < 0) {
		fprintf(f, "unit %s: drop-in %s, not in the policy", s->unit,
			r->dropin);
	} else {
		if (unit)
			fprintf(f, "unit %s: ", s->unit);
		fprintf(f, "cgroup %s id=", s->path);
		if (s->cgroup_id)
			fprintf(f, "%llu", (unsigned long long)s->cgroup_id);
		else
			fputs("none", f);
		fprintf(f, " converted=%llu", (unsigned long long)s->converted);
	}
	if (r->state != RULE_LIVE)
		fprintf(f, " %s: %s", state_tag(r->state), r->why);
	fputc('\n', f);
	if (r->slot < 0)
		return;
	if (s->nports || s->naddrs) {
		fputs(" ", f);
		if (s->nports)
			fprintf(f, " ports %s", ports_str(s->ports, s->nports,
							  ports, sizeof(ports)));
		if (s->naddrs)
			fprintf(f, " addr %s", addrs_str(s->addrs, s->naddrs,
							 addrs, sizeof(addrs)));
		fprintf(f, ": %llu connect/listen kept TCP\n",
			(unsigned long long)s->to_tcp);
	}
	if (!unit)
		return;
	if (!r->dropin[0])
		fputs("  does NOT follow restarts: no drop-in (attach --unit again)\n", f);
	else if (!r->dropin_loaded)
		fprintf(f, "  does NOT follow restarts yet: systemd has not loaded %s (systemctl daemon-reload)\n",
			r->dropin);
	else
		fprintf(f, "  follows restarts: drop-in %s%s, refreshed %llu times\n",
			r->dropin,
			r->dropin_loaded < 0 ? " (systemd not running)" : "",
			(unsigned long long)s->refreshed);
}

void status_text(FILE *f, const struct status_view *v)
{
	int i, stale = status_stale(v);

	if (!v->attached) {
		fputs("smc_bpf: not attached\n", f);
	} else {
		if (v->link_id)
			fprintf(f, "attached: link %u, program %u, fmod_ret update_socket_protocol, pinned in %s\n",
				v->link_id, v->prog_id, v->pin_dir);
		else
			fprintf(f, "attached: pinned in %s\n", v->pin_dir);
		if (!v->ports_attached)
			fprintf(f, "port rules: not attached%s\n",
				v->module_btf ? "" : " (the smc module has no BTF)");
		else if (v->ports_link_id)
			fprintf(f, "port rules: link %u, program %u, fmod_ret smc_bpf_decide\n",
				v->ports_link_id, v->ports_prog_id);
		else
			fputs("port rules: attached\n", f);
		fprintf(f, "IPPROTO_SMC sockets: %s\n", v->smc_sockets ?
			"available" : "NOT available (TCP sockets in the cgroups fail)");
	}
	for (i = 0; i < v->nrules; i++)
		rule_text(f, &v->rules[i]);
	if (v->attached && !v->nrules)
		fputs("no cgroup\n", f);
	if (stale)
		fprintf(f, "%d rule%s STALE: applying to no task\n", stale,
			stale == 1 ? "" : "s");
}

static void rule_json(struct json *j, const struct rule_view *r)
{
	const struct smc_bpf_slot *s = &r->s;
	char buf[ADDRS_STR_LEN];
	bool unit = s->flags & SMC_BPF_F_UNIT;
	__u32 i;

	json_obj_open(j, NULL);
	if (r->slot >= 0)
		json_u64(j, "slot", r->slot);
	else
		json_null(j, "slot");
	json_str(j, "kind", unit ? "unit" : "cgroup");
	json_str(j, "unit", unit ? s->unit : NULL);
	json_str(j, "state", rule_state_name(r->state));
	json_str(j, "why", r->state == RULE_LIVE ? NULL : r->why);
	json_str(j, "cgroup", s->path[0] ? s->path : NULL);
	if (s->cgroup_id)
		json_u64(j, "cgroup_id", s->cgroup_id);
	else
		json_null(j, "cgroup_id");
	if (r->live_id)
		json_u64(j, "live_cgroup_id", r->live_id);
	else
		json_null(j, "live_cgroup_id");
	json_u64(j, "converted", s->converted);
	json_u64(j, "kept_tcp", s->to_tcp);
	if (!s->nports || s->nports > SMC_BPF_PORTS) {
		json_null(j, "ports");
	} else {
		json_arr_open(j, "ports");
		for (i = 0; i < s->nports; i++) {
			json_obj_open(j, NULL);
			json_u64(j, "from", s->ports[i].lo);
			json_u64(j, "to", s->ports[i].hi);
			json_obj_close(j);
		}
		json_arr_close(j);
	}
	if (!s->naddrs || s->naddrs > SMC_BPF_ADDRS) {
		json_null(j, "addrs");
	} else {
		json_arr_open(j, "addrs");
		for (i = 0; i < s->naddrs; i++)
			json_str(j, NULL, prefix_str(&s->addrs[i], buf,
						     sizeof(buf)));
		json_arr_close(j);
	}
	if (unit) {
		json_u64(j, "refreshed", s->refreshed);
		json_str(j, "dropin", r->dropin[0] ? r->dropin : NULL);
		if (r->dropin_loaded < 0)
			json_null(j, "dropin_loaded");
		else
			json_bool(j, "dropin_loaded", r->dropin_loaded);
		json_bool(j, "follows_restarts", r->dropin[0] &&
			  r->dropin_loaded != 0);
	}
	json_obj_close(j);
}

void status_json(FILE *f, const struct status_view *v)
{
	struct json j;
	int i;

	json_init(&j, f);
	json_obj_open(&j, NULL);
	json_bool(&j, "attached", v->attached);
	json_str(&j, "pin_dir", v->pin_dir);
	if (v->attached) {
		json_obj_open(&j, "policy");
		if (v->link_id) {
			json_u64(&j, "link_id", v->link_id);
			json_u64(&j, "prog_id", v->prog_id);
		}
		json_obj_close(&j);
		json_obj_open(&j, "port_rules");
		json_bool(&j, "attached", v->ports_attached);
		if (v->ports_link_id) {
			json_u64(&j, "link_id", v->ports_link_id);
			json_u64(&j, "prog_id", v->ports_prog_id);
		}
		json_bool(&j, "module_btf", v->module_btf);
		json_obj_close(&j);
		json_bool(&j, "smc_sockets", v->smc_sockets);
	}
	json_arr_open(&j, "rules");
	for (i = 0; i < v->nrules; i++)
		rule_json(&j, &v->rules[i]);
	json_arr_close(&j);
	json_u64(&j, "stale", status_stale(v));
	json_obj_close(&j);
	fputc('\n', f);
}
