// SPDX-License-Identifier: GPL-2.0
/*
 * Seed generator for the fuzz corpora: valid messages of every kind,
 * written by the module's own encoders, plus a few hand-made edge cases.
 *
 * Usage: gen_seeds DIR  -- writes DIR/<target>/<name> for every target.
 * tests/fuzz/run --seed regenerates the corpora from these (merged with
 * what is already there).
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <linux/types.h>
#include <linux/unaligned.h>
#include "fuzz.h"
#include "../../net/smc/cdc_wire.h"
#include "../../net/smc/clc_nego.h"
#include "../../net/smc/llc_wire.h"

static const char *outdir;

static void put(const char *target, const char *name, const void *buf,
		size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void fill(void *p, size_t n, u8 start)
{
	u8 *b = p;

	while (n--)
		*b++ = start++;
}

static void set_eid(u8 eid[SMC_CLC_EID_LEN], const char *s)
{
	memset(eid, ' ', SMC_CLC_EID_LEN);
	memcpy(eid, s, strlen(s));
}

/* ------------------------------------------------------------------ */
/* CLC                                                                 */

static u8 msg[SMC_LLC_V2_MAX_LEN];

static void clc_prop(const char *name, u8 version, u8 t1, u8 t2, u8 v6,
		     u8 eids, u8 gids)
{
	struct smc_clc_proposal p;
	int len, i;

	memset(&p, 0, sizeof(p));
	p.hdr.type = SMC_CLC_PROPOSAL;
	p.hdr.version = version;
	p.hdr.typev1 = t1;
	p.hdr.typev2 = t2;
	p.hdr.smcd = t1 == SMC_TYPE_D;
	fill(p.id_for_peer, sizeof(p.id_for_peer), 1);
	fill(p.gid, sizeof(p.gid), 0x10);
	fill(p.mac, sizeof(p.mac), 0x20);
	p.ipv4_subnet = htobe32(0x0a000000);
	p.ipv4_prefix_len = 24;
	p.ipv6_prefix_cnt = v6;
	for (i = 0; i < v6; i++) {
		fill(p.ipv6_prefix[i].prefix, 16, 0x30 + i);
		p.ipv6_prefix[i].prefix_len = 64;
	}
	p.ism_gid = 0x1122334455667788ULL;
	p.ism_chid = 0x99aa;
	p.eid_cnt = eids;
	for (i = 0; i < eids; i++)
		set_eid(p.eids[i], i ? "SMC-EID-B" : "SMC-TESTBED-EID");
	p.release = SMC_CLC_RELEASE_1;
	p.seid = gids != 0;
	fill(p.roce_gid, 16, 0x40);
	p.max_conns = 255;
	p.max_links = 2;
	p.feature_mask = 1;
	set_eid(p.system_eid, "SEID");
	p.ism_gid_cnt = gids;
	for (i = 0; i < gids; i++) {
		p.ism_gidchid[i].gid = 0x0102030405060708ULL + i;
		p.ism_gidchid[i].chid = 0x100 + i;
	}
	len = smc_clc_proposal_encode(&p, msg, sizeof(msg));
	if (len < 0) {
		fprintf(stderr, "proposal %s: %d\n", name, len);
		exit(1);
	}
	put("clc", name, msg, len);
	/* the same, cut short: a truncated read */
	if (!strcmp(name, "prop-v2-rr"))
		put("clc", "prop-v2-rr-cut", msg, len - 5);
}

static void clc_ac(const char *name, u8 type, u8 version, bool fc, bool v2x,
		   int gle)
{
	struct smc_clc_accept_confirm ac;
	int len, i;

	memset(&ac, 0, sizeof(ac));
	ac.hdr.type = type;
	ac.hdr.version = version;
	ac.hdr.typev1 = SMC_TYPE_R;
	ac.hdr.first_contact = fc;
	fill(ac.id_for_peer, 8, 1);
	fill(ac.gid, 16, 0x10);
	fill(ac.mac, 6, 0x20);
	ac.qpn = 0x123456;
	ac.rmb_rkey = 0xdeadbeef;
	ac.rmbe_idx = 1;
	ac.rmbe_alert_token = 0x01020304;
	ac.rmbe_size = 2;
	ac.qp_mtu = 3;
	ac.rmb_dma_addr = 0xffff888012340000ULL;
	ac.psn = 0xabcdef;
	set_eid(ac.eid, "SMC-TESTBED-EID");
	ac.fce.os_type = SMC_CLC_OS_LINUX;
	ac.fce.release = v2x ? 1 : 0;
	memcpy(ac.fce.hostname, "testhost-a", 10);
	ac.fce.v2x = v2x;
	ac.fce.max_conns = 255;
	ac.fce.max_links = 2;
	ac.fce.feature_mask = 1;
	if (gle >= 0) {
		ac.has_gid_list = true;
		ac.gid_cnt = gle;
		for (i = 0; i < gle; i++) {
			memset(ac.gids[i], 0, 16);
			ac.gids[i][10] = 0xff;
			ac.gids[i][11] = 0xff;
			ac.gids[i][12] = 10;
			ac.gids[i][15] = 1 + i;
		}
	}
	len = smc_clc_accept_confirm_encode(&ac, msg, sizeof(msg));
	if (len < 0) {
		fprintf(stderr, "accept/confirm %s: %d\n", name, len);
		exit(1);
	}
	put("clc", name, msg, len);
}

static void clc_decl(const char *name, u8 version, bool smcd)
{
	struct smc_clc_decline d;
	int len;

	memset(&d, 0, sizeof(d));
	d.hdr.type = SMC_CLC_DECLINE;
	d.hdr.version = version;
	d.hdr.smcd = smcd;
	d.hdr.first_contact = true;
	fill(d.id_for_peer, 8, 1);
	d.peer_diagnosis = SMC_CLC_DECL_NOSMCRDEV;
	d.os_type = SMC_CLC_OS_LINUX;
	d.peer_diagnosis_v2[0] = SMC_CLC_DECL_NOUEID;
	len = smc_clc_decline_encode(&d, msg, sizeof(msg));
	if (len < 0)
		exit(1);
	put("clc", name, msg, len);
}

static void gen_clc(void)
{
	static const u8 smcd_accept_v1[48] = {
		0xe2, 0xd4, 0xc3, 0xc4, SMC_CLC_ACCEPT, 0, 48, 0x11,
		[44] = 0xe2, 0xd4, 0xc3, 0xc4,
	};

	clc_prop("prop-v2-rr", SMC_V2, SMC_TYPE_R, SMC_TYPE_R, 0, 2, 0);
	clc_prop("prop-v2-only", SMC_V2, SMC_TYPE_N, SMC_TYPE_R, 0, 1, 0);
	clc_prop("prop-v2-v6", SMC_V2, SMC_TYPE_R, SMC_TYPE_R, 3, 1, 0);
	clc_prop("prop-v2-bb", SMC_V2, SMC_TYPE_B, SMC_TYPE_B, 1, 8, 8);
	clc_prop("prop-v2-dd", SMC_V2, SMC_TYPE_D, SMC_TYPE_D, 0, 0, 2);
	clc_prop("prop-v1-r", SMC_V1, SMC_TYPE_R, SMC_TYPE_N, 0, 0, 0);
	clc_prop("prop-v1-r-v6", SMC_V1, SMC_TYPE_R, SMC_TYPE_N, 8, 0, 0);
	clc_prop("prop-v1-d", SMC_V1, SMC_TYPE_D, SMC_TYPE_N, 0, 0, 0);
	clc_prop("prop-v1-b", SMC_V1, SMC_TYPE_B, SMC_TYPE_N, 2, 0, 0);
	clc_ac("accept-v1", SMC_CLC_ACCEPT, SMC_V1, true, false, -1);
	clc_ac("confirm-v1", SMC_CLC_CONFIRM, SMC_V1, false, false, -1);
	clc_ac("accept-v2", SMC_CLC_ACCEPT, SMC_V2, false, false, -1);
	clc_ac("accept-v2-fce", SMC_CLC_ACCEPT, SMC_V2, true, false, -1);
	clc_ac("accept-v2-fce-v2x", SMC_CLC_ACCEPT, SMC_V2, true, true, -1);
	clc_ac("confirm-v2-gle", SMC_CLC_CONFIRM, SMC_V2, true, true, 2);
	clc_ac("confirm-v2-gle-max", SMC_CLC_CONFIRM, SMC_V2, true, true, 8);
	clc_ac("confirm-v2-base-gle", SMC_CLC_CONFIRM, SMC_V2, true, false, 1);
	clc_ac("confirm-v2-gle0", SMC_CLC_CONFIRM, SMC_V2, true, true, 0);
	clc_decl("decline-v1", SMC_V1, false);
	clc_decl("decline-v2", SMC_V2, false);
	clc_decl("decline-v2-smcd", SMC_V2, true);
	/* hand-made: a lone header, an SMC-D accept, an empty input */
	put("clc", "hdr-only", msg, SMC_CLC_HDR_LEN);
	put("clc", "empty", msg, 0);
	put("clc", "accept-smcd-v1", smcd_accept_v1, sizeof(smcd_accept_v1));
}

/* ------------------------------------------------------------------ */
/* LLC                                                                 */

static void llc(const char *name, struct smc_llc_msg *m)
{
	int len = smc_llc_encode(m, msg, sizeof(msg));

	if (len < 0) {
		fprintf(stderr, "LLC seed %s: %d\n", name, len);
		exit(1);
	}
	put("llc", name, msg, len);
}

static void gen_llc(void)
{
	static struct smc_llc_rkey_pair rt[3] = {
		{ 1, 2, 0x1000 }, { 3, 4, 0x2000 }, { 5, 6, 0x3000 },
	};
	static struct smc_llc_rkey_pair many[SMC_LLC_ADD_LINK_V2_MAX_RKEYS];
	static u32 rkeys[20];
	static u8 gids[3][SMC_LLC_GID_LEN];
	struct smc_llc_msg m;
	u8 v;
	int i;

	for (i = 0; i < 20; i++)
		rkeys[i] = 0x100 + i;
	fill(gids, sizeof(gids), 0x50);
	for (v = 0; v <= 2; v += 2) {
		const char *sfx = v ? "-v2" : "-v1";
		char name[64];

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = SMC_LLC_CONFIRM_LINK;
		fill(m.confirm_link.mac, 6, 0x20);
		fill(m.confirm_link.gid, 16, 0x10);
		m.confirm_link.qpn = 0x1234;
		m.confirm_link.link_num = 1;
		m.confirm_link.max_links = 2;
		m.confirm_link.max_conns = 255;
		snprintf(name, sizeof(name), "confirm-link%s", sfx);
		llc(name, &m);

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = SMC_LLC_ADD_LINK;
		m.flags = v ? 0 : SMC_LLC_FLAG_RESP | SMC_LLC_FLAG_ADD_LNK_REJ;
		m.add_link.rej_rsn = v ? 0 : SMC_LLC_REJ_RSN_NO_ALT_PATH;
		m.add_link.qpn = 0x4567;
		m.add_link.qp_mtu = 3;
		m.add_link.psn = 0x89abc;
		snprintf(name, sizeof(name), "add-link%s", sfx);
		llc(name, &m);
		if (v) {
			m.add_link.has_ext = true;
			m.add_link.v2_direct = true;
			m.add_link.num_rkeys = 3;
			m.add_link.rkeys = rt;
			llc("add-link-ext-v2", &m);
			/* the largest LLC message there is: 4152 bytes */
			for (i = 0; i < SMC_LLC_ADD_LINK_V2_MAX_RKEYS; i++)
				many[i].rkey = i;
			m.add_link.num_rkeys = SMC_LLC_ADD_LINK_V2_MAX_RKEYS;
			m.add_link.rkeys = many;
			llc("add-link-ext-v2-max", &m);
		}

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = SMC_LLC_DELETE_LINK;
		m.flags = SMC_LLC_FLAG_DEL_LINK_ORDERLY;
		m.delete_link.link_num = 2;
		m.delete_link.reason = SMC_LLC_DEL_LOST_PATH;
		snprintf(name, sizeof(name), "delete-link%s", sfx);
		llc(name, &m);

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = SMC_LLC_CONFIRM_RKEY;
		m.confirm_rkey.num_rkeys = 2;
		for (i = 0; i < 3; i++) {
			m.confirm_rkey.tok[i].link_id = i;
			m.confirm_rkey.tok[i].rkey = 0x700 + i;
			m.confirm_rkey.tok[i].vaddr = 0x8000 * (i + 1);
		}
		snprintf(name, sizeof(name), "confirm-rkey%s", sfx);
		llc(name, &m);
		if (!v) {
			m.type = SMC_LLC_CONFIRM_RKEY_CONT;
			m.confirm_rkey.num_rkeys = 3;
			llc("confirm-rkey-cont-v1", &m);
		}

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = SMC_LLC_TEST_LINK;
		fill(m.test_link.user_data, 16, 0x60);
		snprintf(name, sizeof(name), "test-link%s", sfx);
		llc(name, &m);

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = SMC_LLC_DELETE_RKEY;
		m.delete_rkey.num_rkeys = v ? 20 : 3;
		m.delete_rkey.rkeys = rkeys;
		snprintf(name, sizeof(name), "delete-rkey%s", sfx);
		llc(name, &m);
	}

	memset(&m, 0, sizeof(m));
	m.version = 0;
	m.type = SMC_LLC_ADD_LINK_CONT;
	m.add_link_cont.link_num = 2;
	m.add_link_cont.num_rkeys = 2;
	memcpy(m.add_link_cont.rt, rt, sizeof(m.add_link_cont.rt));
	llc("add-link-cont-v1", &m);

	memset(&m, 0, sizeof(m));
	m.version = 2;
	m.type = SMC_LLC_REQ_ADD_LINK;
	m.req_add_link.gid_cnt = 3;
	m.req_add_link.gids = (const u8 (*)[SMC_LLC_GID_LEN])gids;
	llc("req-add-link-v2", &m);
	/* a response echoing the count without the list (as Linux does) */
	m.flags = SMC_LLC_FLAG_RESP;
	llc("req-add-link-v2-resp", &m);
	msg[1] = SMC_LLC_MSG_LEN;
	msg[2] = 0;
	put("llc", "req-add-link-v2-resp-cut", msg, SMC_LLC_MSG_LEN);
	/* a v2 buffer of the receive ring's size holding a short message */
	memset(&m, 0, sizeof(m));
	m.version = 2;
	m.type = SMC_LLC_TEST_LINK;
	memset(msg, 0, 256);
	smc_llc_encode(&m, msg, sizeof(msg));
	put("llc", "test-link-v2-in-256", msg, 256);
}

/* ------------------------------------------------------------------ */
/* CDC                                                                 */

static void gen_cdc(void)
{
	struct smc_cdc_msg m;
	u8 buf[128];
	size_t n;

	memset(&m, 0, sizeof(m));
	m.seqno = 0x1234;
	m.token = 0xdeadbeef;
	m.prod.wrap = 5;
	m.prod.count = 4096;
	m.cons.wrap = 0xffff;
	m.cons.count = 16383;
	m.write_blocked = true;
	m.cons_curs_upd_req = true;
	m.peer_done_writing = true;
	smc_cdc_encode(&m, buf, sizeof(buf));
	put("cdc", "msg", buf, SMC_CDC_MSG_LEN);

	memset(&m, 0, sizeof(m));
	m.urg_data_pending = true;
	m.urg_data_present = true;
	m.failover_validation = true;
	m.peer_conn_closed = true;
	m.peer_conn_abort = true;
	smc_cdc_encode(&m, buf, sizeof(buf));
	/* followed by a cursor program: ring 64 KiB, ops of every kind */
	n = SMC_CDC_MSG_LEN;
	{
		static const u8 prog[] = {
			0x00, 0x01, 0x00, 0x00, 0x01,		/* ring */
			0x01, 0x00, 0x07, 0x00, 0x00, 0xff, 0x00, /* cursor */
			0, 0x00, 0x01, 0x00, 0x00, 0x01,	/* add */
			1, 1, 0, 8, 0, 0, 0, 0, 1, 0, 9, 0, 0, 0, 0, 1,
			2, 1, 0, 1, 0, 0, 0x10, 0, 1, 0, 0, 0, 0, 0, 0,
			   1, 0, 7, 0, 0, 0x20, 0, 0x0b, 0, 0, 0, 0,
			3, 1, 16,
			4, 0xff, 0xff, 0x00, 0x00,
		};

		memcpy(buf + n, prog, sizeof(prog));
		n += sizeof(prog);
	}
	put("cdc", "msg-flags-prog", buf, n);
	/* a program alone (not a CDC message) */
	put("cdc", "prog", buf + SMC_CDC_MSG_LEN, n - SMC_CDC_MSG_LEN);
}

/* ------------------------------------------------------------------ */
/* negotiation                                                         */

struct wbuf {
	u8 b[4096];
	size_t n;
};

static void w8(struct wbuf *w, u8 v)
{
	w->b[w->n++] = v;
}

static void wbytes(struct wbuf *w, const void *p, size_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void nego_v6(struct smc_clc_ipv6_prefix *v6, int i)
{
	static const u8 pfx[2][16] = {
		{ 0x20, 0x01, 0x0d, 0xb8 },
		{ 0xfd, 0x00, 0x00, 0x01, 0x00, 0x00, 0x10 },
	};

	memset(v6, 0, sizeof(*v6));
	if (i > 1)
		return;
	memcpy(v6->prefix, pfx[i], 16);
	v6->prefix_len = i ? 52 : 32;
}

/*
 * The local facts as fuzz_nego.c reads them: EIDs are picks from its
 * pool (0: "SMC-TESTBED-EID", 1: "SMC-EID-B"), IPv4 10.0.0.0/24, or /20
 * with flag 0x10 (a bit fuzz_nego.c ignores); flag 8 adds IPv6 prefixes.
 */
static void nego_local(struct wbuf *w, u8 flags, u8 ueid_cnt, u8 pick0,
		       u8 release, u8 conns, u8 links)
{
	struct smc_clc_ipv6_prefix v6;
	u8 gid[16];
	int i;

	w8(w, flags | 4);
	w8(w, ueid_cnt);
	for (i = 0; i < SMC_CLC_MAX_UEID; i++)
		w8(w, i ? i : pick0);
	w8(w, release);
	w8(w, conns - SMC_NEGO_CONNS_MIN);
	w8(w, links - SMC_NEGO_LINKS_MIN);
	wbytes(w, "\x0a\x00\x00\x00", 4);
	w8(w, flags & 0x10 ? 20 : 24);
	if (flags & 8) {
		/* two IPv6 prefixes: 2001:db8::/32 and fd00:1::/52 */
		w8(w, 2);
		for (i = 0; i < SMC_CLC_MAX_V6_PREFIX; i++) {
			nego_v6(&v6, i);
			wbytes(w, v6.prefix, 16);
			w8(w, v6.prefix_len);
		}
	}
	fill(gid, 16, 0x10);
	wbytes(w, gid, 16);
	fill(gid, 16, 0x40);
	wbytes(w, gid, 16);
	wbytes(w, "\x02\x00\x00\x00\x00\x01", 6);
	wbytes(w, "SYSTEMID", 8);
}

/* the decoded local facts, for building the peer's messages */
static void local_struct(struct smc_nego_local *l, u8 flags, u8 ueid_cnt,
			 u8 pick0, u8 release, u8 conns, u8 links)
{
	static const char *const pool[] = {
		"SMC-TESTBED-EID", "SMC-EID-B", "X", "0.1-2",
	};
	int i;

	memset(l, 0, sizeof(*l));
	l->r_v1 = flags & 1;
	l->r_v2 = flags & 2;
	l->ueid_cnt = ueid_cnt;
	for (i = 0; i < SMC_CLC_MAX_UEID; i++)
		set_eid(l->ueids[i], pool[(i ? i : pick0) % 4]);
	l->release = release;
	l->max_conns = conns;
	l->max_links = links;
	l->ipv4_subnet = htobe32(0x0a000000);
	l->ipv4_prefix_len = flags & 0x10 ? 20 : 24;
	if (flags & 8) {
		/* a client offering only the second prefix */
		l->ipv6_cnt = 1;
		nego_v6(&l->ipv6[0], 1);
	}
	fill(l->gid, 16, 0x10);
	fill(l->roce_v2_gid, 16, 0x40);
}

static enum { NEGO_AS_IS, NEGO_SMCD_V2, NEGO_NO_EID } nego_tweak;

static void nego(const char *name, u8 sflags, u8 spick, u8 srel, u8 cflags,
		 u8 cpick, u8 crel, u8 cconns, bool fc, bool as_accept)
{
	struct smc_clc_proposal p;
	struct smc_nego_local cl, sl;
	struct smc_nego_result r;
	struct wbuf w = { .n = 0 };
	u32 reason;
	int len;

	nego_local(&w, sflags, 2, spick, srel, 255, 2);
	w8(&w, fc);
	local_struct(&cl, cflags, 2, cpick, crel, cconns, 2);
	if (smc_nego_proposal(&cl, &p, &reason)) {
		fprintf(stderr, "negotiation seed %s: no proposal\n", name);
		exit(1);
	}
	/* proposals Linux would not send, for the server's declines */
	if (nego_tweak == NEGO_SMCD_V2) {
		p.hdr.typev2 = SMC_TYPE_B;
		p.ism_gid_cnt = 1;
		p.ism_gidchid[0].gid = 0x0102030405060708ULL;
	} else if (nego_tweak == NEGO_NO_EID) {
		p.eid_cnt = 0;
	}
	if (as_accept) {
		struct smc_clc_accept_confirm ac;
		struct smc_clc_proposal own;

		/* the server's answer to the fuzzer's own proposal */
		local_struct(&sl, sflags, 2, spick, srel, 255, 2);
		smc_nego_proposal(&sl, &own, &reason);
		memset(&ac, 0, sizeof(ac));
		if (smc_nego_server(&own, &cl, &r)) {
			fprintf(stderr, "negotiation seed %s: declined\n", name);
			exit(1);
		}
		smc_nego_fill_accept(&r, fc, &ac);
		len = smc_clc_accept_confirm_encode(&ac, msg, sizeof(msg));
	} else {
		len = smc_clc_proposal_encode(&p, msg, sizeof(msg));
	}
	if (len < 0)
		exit(1);
	wbytes(&w, msg, len);
	put("nego", name, w.b, w.n);
}

static void gen_nego(void)
{
	nego("v2-fc", 3, 0, 1, 3, 0, 1, 255, true, false);
	nego("v2-nofc", 3, 0, 1, 3, 0, 1, 255, false, false);
	nego("v2-rel0", 3, 0, 0, 2, 0, 0, 255, true, false);
	nego("v2-conns16", 3, 0, 1, 2, 0, 1, 16, true, false);
	nego("v1-only", 1, 0, 1, 1, 0, 1, 255, true, false);
	nego("eid-mismatch", 3, 2, 1, 3, 3, 1, 255, true, false);
	nego("accept-v2-fc", 3, 0, 1, 3, 0, 1, 255, true, true);
	nego("accept-v2-nofc", 3, 0, 1, 3, 0, 1, 255, false, true);
	nego("accept-v1", 1, 0, 1, 1, 0, 1, 255, true, true);
	nego("v1-ipv6", 1 | 8, 0, 1, 1 | 8, 0, 1, 255, true, false);
	nego("v1-ipv4-20", 1 | 0x10, 0, 1, 1 | 0x10, 0, 1, 255, true, false);
	nego("v1-prefix-mismatch", 1 | 8, 0, 1, 1 | 0x10, 0, 1, 255, true, false);
	nego_tweak = NEGO_SMCD_V2;
	nego("v2-smcd-offered", 3, 0, 1, 3, 0, 1, 255, true, false);
	nego_tweak = NEGO_NO_EID;
	nego("v2-no-eid", 2, 0, 1, 3, 0, 1, 255, true, false);
	nego_tweak = NEGO_AS_IS;
}

/* ------------------------------------------------------------------ */
/* EID table and PNET IDs                                              */

static void gen_eid(void)
{
	static const u8 prog_add[] = {
		1, 15, 'S', 'M', 'C', '-', 'T', 'E', 'S', 'T', 'B', 'E', 'D',
		'-', 'E', 'I', 'D',
		1, 3, 'A', '.', 'B',
		1, 3, 'A', '.', 'B',
		3, 'A', '.', 'B', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
		' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
		' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
		2, 3, 'A', '.', 'B',
	};
	static const u8 prog_param[] = {
		4, 24, 'A', ',', ',', 'B', ',', 'b', ',', 'C', 'D', ',', 'E',
		',', 'F', ',', 'A', ',', '-', 'X', ',', 'G', 'H', 'I', ',',
		5,
		0, 34, 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K',
		'L', 'M', 'N', 'O', 'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W',
		'X', 'Y', 'Z', '0', '1', '2', '3', '4', '5', ' ', ' ',
	};

	put("eid", "add-remove", prog_add, sizeof(prog_add));
	put("eid", "param", prog_param, sizeof(prog_param));
}

static void gen_pnet(void)
{
	static const char pair[] =
		"net1\0\0\0\0\0\0\0\0\0\0\0\0NET1            ";

	put("pnet", "plain", "NET1", 4);
	put("pnet", "blanks-lower", "  net25\t", 8);
	put("pnet", "max", "ABCDEFGHIJKLMNOP", 16);
	put("pnet", "too-long", "ABCDEFGHIJKLMNOPQ", 17);
	put("pnet", "latin1", "\xa0\x61\xe9\x62", 4);
	put("pnet", "pair", pair, 32);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	outdir = argv[1];
	mkdir(outdir, 0755);
	gen_clc();
	gen_llc();
	gen_cdc();
	gen_nego();
	gen_eid();
	gen_pnet();
	return 0;
}
