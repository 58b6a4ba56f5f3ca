// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the CLC negotiation (net/smc/clc_nego.c) on top of the
 * CLC codec.  The input starts with the local facts (devices, EIDs,
 * sysctls, prefixes: struct smc_nego_local), the rest is one CLC message
 * from the peer.
 *
 * Properties checked besides the sanitizers:
 *  - our own proposal encodes and decodes;
 *  - every decision is 0 or a defined decline reason code;
 *  - when the server accepts a decoded proposal, the result is sane
 *    (version, shared EID, limits within 16..255 and 1..2) and the rest
 *    of the handshake succeeds through the wire codec: the client accepts
 *    the server's accept for that proposal with the same result, and the
 *    server accepts the client's confirm;
 *  - whatever the client accepts from a decoded accept is sane.
 */
#include <linux/errno.h>
#include <linux/types.h>
#include "fuzz.h"
#include "../../net/smc/clc_nego.h"

#define MSG_CAP		(SMC_CLC_MAX_MSG_LEN + 64)

/* a few EIDs, so that the peer's and ours intersect often */
static const char *const eid_pool[] = {
	"SMC-TESTBED-EID", "SMC-EID-B", "X", "0.1-2",
};

static void read_eid(struct fuzz_in *in, u8 eid[SMC_CLC_EID_LEN])
{
	u8 pick = fuzz_u8(in);

	if (pick < 0xf0) {
		const char *s = eid_pool[pick % ARRAY_SIZE(eid_pool)];

		memset(eid, ' ', SMC_CLC_EID_LEN);
		memcpy(eid, s, strlen(s));
	} else {
		fuzz_bytes(in, eid, SMC_CLC_EID_LEN);
	}
}

static void read_local(struct fuzz_in *in, struct smc_nego_local *l)
{
	u8 flags = fuzz_u8(in);
	unsigned int i;

	memset(l, 0, sizeof(*l));
	l->r_v1 = flags & 1;
	l->r_v2 = flags & 2;
	l->ueid_cnt = fuzz_u8(in) % (SMC_CLC_MAX_UEID + 2);
	for (i = 0; i < SMC_CLC_MAX_UEID; i++)
		read_eid(in, l->ueids[i]);
	l->release = fuzz_u8(in) % 4;
	/* the sysctl ranges */
	l->max_conns = SMC_NEGO_CONNS_MIN +
		       fuzz_u8(in) % (SMC_NEGO_CONNS_MAX - SMC_NEGO_CONNS_MIN + 1);
	l->max_links = SMC_NEGO_LINKS_MIN + fuzz_u8(in) % 2;
	if (flags & 4) {
		fuzz_bytes(in, &l->ipv4_subnet, 4);
		l->ipv4_prefix_len = fuzz_u8(in);
	}
	if (flags & 8) {
		l->ipv6_cnt = fuzz_u8(in) % (SMC_CLC_MAX_V6_PREFIX + 2);
		for (i = 0; i < SMC_CLC_MAX_V6_PREFIX; i++) {
			fuzz_bytes(in, l->ipv6[i].prefix, 16);
			l->ipv6[i].prefix_len = fuzz_u8(in);
		}
	}
	fuzz_bytes(in, l->gid, SMC_CLC_GID_LEN);
	fuzz_bytes(in, l->roce_v2_gid, SMC_CLC_GID_LEN);
	fuzz_bytes(in, l->mac, SMC_CLC_MAC_LEN);
	fuzz_bytes(in, l->systemid, SMC_CLC_SYSTEMID_LEN);
	/* vendor extensions: ours, or any bits */
	if (flags & 0x10)
		l->vx = flags & 0x20 ? fuzz_u16(in) : SMC_NEGO_VX_ALL;
}

static void check_reason(u32 reason)
{
	FUZZ_CHECK(strcmp(smc_clc_decline_reason_str(reason),
			  "unknown reason code"));
}

static void check_result(const struct smc_nego_result *r)
{
	FUZZ_CHECK(r->version == SMC_V1 || r->version == SMC_V2);
	FUZZ_CHECK(r->release <= SMC_NEGO_RELEASE);
	FUZZ_CHECK(r->max_conns >= SMC_NEGO_CONNS_MIN);
	FUZZ_CHECK(r->max_links >= SMC_NEGO_LINKS_MIN &&
		   r->max_links <= SMC_NEGO_LINKS_MAX);
	if (r->version == SMC_V1)
		FUZZ_CHECK(r->release == SMC_CLC_RELEASE_0 &&
			   fuzz_all(r->eid, SMC_CLC_EID_LEN, 0));
	/* only extensions this code knows, and only from release 1 on */
	FUZZ_CHECK(!(r->vx & ~SMC_NEGO_VX_ALL));
	if (r->release < SMC_CLC_RELEASE_1)
		FUZZ_CHECK(!r->vx);
}

static bool eid_in(const u8 (*eids)[SMC_CLC_EID_LEN], unsigned int n,
		   const u8 *eid)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!memcmp(eids[i], eid, SMC_CLC_EID_LEN))
			return true;
	return false;
}

/* Encode @ac and decode it into @out; both must work. */
static void over_the_wire(const struct smc_clc_accept_confirm *ac,
			  struct smc_clc_accept_confirm *out)
{
	u8 *buf = fuzz_guard_alloc(MSG_CAP, FUZZ_GUARD_BYTE);
	int len;

	len = smc_clc_accept_confirm_encode(ac, buf, MSG_CAP);
	fuzz_check_encoded(buf, MSG_CAP, len);
	FUZZ_CHECK(len > 0);
	FUZZ_CHECK(smc_clc_accept_confirm_decode(buf, len, out) == 0);
	fuzz_guard_free(buf, MSG_CAP);
}

/* The server took proposal @q: the rest of the handshake must work. */
static void handshake(struct fuzz_in *in, const struct smc_clc_proposal *q,
		      const struct smc_nego_local *l,
		      const struct smc_nego_result *r)
{
	struct smc_clc_accept_confirm *acc, *conf, *wire;
	struct smc_nego_result r2;
	bool fc = fuzz_u8(in) & 1;
	u32 reason;
	u8 i;

	acc = fuzz_guard_alloc(sizeof(*acc), 0);
	conf = fuzz_guard_alloc(sizeof(*conf), 0);
	wire = fuzz_guard_alloc(sizeof(*wire), 0);

	smc_nego_fill_accept(r, fc, acc);
	over_the_wire(acc, wire);
	reason = smc_nego_client(q, wire, l, &r2);
	FUZZ_CHECK(reason == 0);
	check_result(&r2);
	FUZZ_CHECK(r2.version == r->version);
	FUZZ_CHECK(!memcmp(r2.eid, r->eid, SMC_CLC_EID_LEN));
	if (fc)
		FUZZ_CHECK(!memcmp(&r2, r, sizeof(r2)));

	smc_nego_fill_confirm(&r2, fc, conf);
	if (conf->has_gid_list) {
		conf->gid_cnt = fuzz_u8(in) % (SMC_CLC_MAX_GLE_GIDS + 1);
		for (i = 0; i < conf->gid_cnt; i++)
			fuzz_bytes(in, conf->gids[i], SMC_CLC_GID_LEN);
	}
	over_the_wire(conf, wire);
	FUZZ_CHECK(smc_nego_confirm(r, wire) == 0);
	/* both ends take the same extensions, all of them offered by both */
	FUZZ_CHECK(smc_nego_confirm_vx(r, wire) == (fc ? r2.vx : 0));
	FUZZ_CHECK(!(r->vx & ~l->vx));

	fuzz_guard_free(wire, sizeof(*wire));
	fuzz_guard_free(conf, sizeof(*conf));
	fuzz_guard_free(acc, sizeof(*acc));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { .p = data, .left = size };
	struct smc_clc_proposal *own, *q, *back;
	struct smc_clc_accept_confirm *ac;
	struct smc_nego_result *r;
	struct smc_nego_local l;
	u8 *msg, *buf, fc_bits;
	size_t msg_len;
	bool own_ok;
	u32 reason;
	int rc;

	read_local(&in, &l);
	fc_bits = fuzz_u8(&in);

	/* our proposal, on the wire and back */
	own = fuzz_guard_alloc(sizeof(*own), 0x5a);
	rc = smc_nego_proposal(&l, own, &reason);
	own_ok = !rc;
	if (rc) {
		FUZZ_CHECK(rc == -ENODEV || rc == -EINVAL);
		FUZZ_CHECK(reason == SMC_CLC_DECL_NOSMCDEV ||
			   reason == SMC_CLC_DECL_CNFERR ||
			   reason == SMC_CLC_DECL_INTERR);
	} else {
		FUZZ_CHECK(reason == 0);
		buf = fuzz_guard_alloc(MSG_CAP, FUZZ_GUARD_BYTE);
		rc = smc_clc_proposal_encode(own, buf, MSG_CAP);
		fuzz_check_encoded(buf, MSG_CAP, rc);
		FUZZ_CHECK(rc > 0);
		back = fuzz_guard_alloc(sizeof(*back), 0);
		FUZZ_CHECK(smc_clc_proposal_decode(buf, rc, back) == 0);
		FUZZ_CHECK(back->eid_cnt == own->eid_cnt &&
			   back->hdr.typev1 == own->hdr.typev1 &&
			   back->hdr.typev2 == own->hdr.typev2);
		fuzz_guard_free(back, sizeof(*back));
		fuzz_guard_free(buf, MSG_CAP);
	}

	msg = fuzz_rest(&in, &msg_len);
	r = fuzz_guard_alloc(sizeof(*r), 0x5a);

	/* the server's side: the message as a proposal */
	q = fuzz_guard_alloc(sizeof(*q), 0);
	if (!smc_clc_proposal_decode(msg, msg_len, q)) {
		reason = smc_nego_server(q, &l, r);
		if (reason) {
			check_reason(reason);
		} else {
			struct fuzz_in bits = { .p = &fc_bits, .left = 1 };

			check_result(r);
			if (r->version == SMC_V2) {
				FUZZ_CHECK(eid_in(q->eids, q->eid_cnt, r->eid));
				FUZZ_CHECK(eid_in(l.ueids, l.ueid_cnt, r->eid));
				FUZZ_CHECK(l.r_v2);
			} else {
				FUZZ_CHECK(l.r_v1);
			}
			handshake(&bits, q, &l, r);
		}
	}

	/* the client's side: the message as an accept to our proposal */
	ac = fuzz_guard_alloc(sizeof(*ac), 0);
	if (own_ok && !smc_clc_accept_confirm_decode(msg, msg_len, ac)) {
		reason = smc_nego_client(own, ac, &l, r);
		if (reason) {
			check_reason(reason);
		} else {
			check_result(r);
			if (r->version == SMC_V2)
				FUZZ_CHECK(eid_in(own->eids, own->eid_cnt,
						  r->eid));
			if (r->release >= SMC_CLC_RELEASE_1)
				FUZZ_CHECK(r->max_conns <= own->max_conns &&
					   r->max_links <= own->max_links);
		}
		/* and as a confirm to what we would have accepted */
		reason = smc_nego_confirm(r, ac);
		if (reason)
			check_reason(reason);
	}

	fuzz_guard_free(ac, sizeof(*ac));
	fuzz_guard_free(q, sizeof(*q));
	fuzz_guard_free(r, sizeof(*r));
	fuzz_guard_free(own, sizeof(*own));
	free(msg);
	return 0;
}
