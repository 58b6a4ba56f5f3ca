// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the LLC codec (net/smc/llc_wire.c): the input is one
 * work request buffer as received on a link's queue pair, @size being the
 * received byte count.
 *
 * Properties checked besides the sanitizers:
 *  - smc_llc_decode() never writes outside its output, agrees with
 *    smc_llc_validate() and smc_llc_is_llc(), keeps the length field
 *    within 44..8192 and the received size, and the counts within limits;
 *  - every list accessor stays inside the message for every index below
 *    the present count (the input is an exact-size heap copy);
 *  - a decoded message whose lists are complete encodes to its length
 *    and decodes again to the same fields and list entries; one byte of
 *    capacity less gives -ENOSPC without writing;
 *  - the same input, read as the fields of a message, goes to the
 *    encoder: whatever it encodes decodes to the same fields.
 */
#include <linux/errno.h>
#include <linux/types.h>
#include "fuzz.h"
#include "../../net/smc/llc_wire.h"

static struct smc_llc_rkey_pair rt[SMC_LLC_ADD_LINK_V2_MAX_RKEYS];
static u32 rkeys[SMC_LLC_DEL_RKEY_V2_MAX];
static u8 gids[SMC_LLC_REQ_ADD_LINK_MAX_GIDS][SMC_LLC_GID_LEN];

/* Read every list entry; false when the list is not complete. */
static bool read_lists(struct smc_llc_msg *m)
{
	unsigned int i;

	switch (m->type) {
	case SMC_LLC_ADD_LINK:
		if (!m->add_link.has_ext)
			return true;
		FUZZ_CHECK(m->add_link.num_rkeys <=
			   SMC_LLC_ADD_LINK_V2_MAX_RKEYS);
		for (i = 0; i < m->add_link.num_rkeys; i++)
			smc_llc_add_link_rkey_at(m, i, &rt[i]);
		m->add_link.rkeys = rt;
		return true;
	case SMC_LLC_ADD_LINK_CONT:
		FUZZ_CHECK(m->add_link_cont.num_present <=
			   SMC_LLC_ADD_LINK_CONT_MAX);
		return true;
	case SMC_LLC_CONFIRM_RKEY:
		FUZZ_CHECK(m->confirm_rkey.num_rkeys <=
			   SMC_LLC_CONFIRM_RKEY_MAX);
		return true;
	case SMC_LLC_DELETE_RKEY:
		FUZZ_CHECK(m->delete_rkey.num_present <=
			   m->delete_rkey.num_rkeys);
		for (i = 0; i < m->delete_rkey.num_present; i++)
			rkeys[i] = smc_llc_del_rkey_at(m, i);
		m->delete_rkey.rkeys = rkeys;
		return m->delete_rkey.num_present == m->delete_rkey.num_rkeys;
	case SMC_LLC_REQ_ADD_LINK:
		FUZZ_CHECK(m->req_add_link.gid_cnt <=
			   SMC_LLC_REQ_ADD_LINK_MAX_GIDS);
		FUZZ_CHECK(m->req_add_link.num_present <=
			   m->req_add_link.gid_cnt);
		for (i = 0; i < m->req_add_link.num_present; i++)
			memcpy(gids[i], smc_llc_req_gid_at(m, i),
			       SMC_LLC_GID_LEN);
		m->req_add_link.gids = (const u8 (*)[SMC_LLC_GID_LEN])gids;
		return m->req_add_link.num_present ==
		       m->req_add_link.gid_cnt;
	}
	return true;
}

static void roundtrip(const struct smc_llc_msg *m)
{
	struct smc_llc_msg *m2, keep = *m;
	size_t cap = SMC_LLC_V2_MAX_LEN + 64;
	u8 *out, *exact;
	unsigned int i;
	int len;

	out = fuzz_guard_alloc(cap, FUZZ_GUARD_BYTE);
	len = smc_llc_encode(m, out, cap);
	fuzz_check_encoded(out, cap, len);
	FUZZ_CHECK(len == m->length);

	exact = fuzz_guard_alloc(len - 1, FUZZ_GUARD_BYTE);
	FUZZ_CHECK(smc_llc_encode(m, exact, len - 1) == -ENOSPC);
	FUZZ_CHECK(fuzz_all(exact, len - 1, FUZZ_GUARD_BYTE));
	fuzz_guard_free(exact, len - 1);

	exact = fuzz_guard_alloc(len, 0);
	memcpy(exact, out, len);
	m2 = fuzz_guard_alloc(sizeof(*m2), 0x3c);
	FUZZ_CHECK(smc_llc_decode(exact, len, m2) == 0);
	FUZZ_CHECK(m2->wire == exact);

	/* the same lists, read from the new buffer */
	switch (m2->type) {
	case SMC_LLC_ADD_LINK:
		for (i = 0; i < m2->add_link.num_rkeys; i++) {
			struct smc_llc_rkey_pair r;

			smc_llc_add_link_rkey_at(m2, i, &r);
			FUZZ_CHECK(!memcmp(&r, &m->add_link.rkeys[i],
					   sizeof(r)));
		}
		keep.add_link.rkeys = NULL;
		break;
	case SMC_LLC_DELETE_RKEY:
		for (i = 0; i < m2->delete_rkey.num_present; i++)
			FUZZ_CHECK(smc_llc_del_rkey_at(m2, i) ==
				   m->delete_rkey.rkeys[i]);
		keep.delete_rkey.rkeys = NULL;
		break;
	case SMC_LLC_REQ_ADD_LINK:
		for (i = 0; i < m2->req_add_link.num_present; i++)
			FUZZ_CHECK(!memcmp(smc_llc_req_gid_at(m2, i),
					   m->req_add_link.gids[i],
					   SMC_LLC_GID_LEN));
		keep.req_add_link.gids = NULL;
		break;
	}
	keep.wire = exact;
	FUZZ_CHECK(!memcmp(&keep, m2, sizeof(keep)));

	fuzz_guard_free(m2, sizeof(*m2));
	fuzz_guard_free(exact, len);
	fuzz_guard_free(out, cap);
}

/* Encoder on a message built from the input. */
static void fuzz_encoder(const u8 *data, size_t size)
{
	static struct smc_llc_rkey_pair in_rt[SMC_LLC_ADD_LINK_V2_MAX_RKEYS];
	static u32 in_rkeys[SMC_LLC_DEL_RKEY_V2_MAX];
	static u8 in_gids[SMC_LLC_REQ_ADD_LINK_MAX_GIDS][SMC_LLC_GID_LEN];
	struct fuzz_in in = { .p = data, .left = size };
	size_t cap = SMC_LLC_V2_MAX_LEN + 64;
	struct smc_llc_msg *m;
	unsigned int i, n;
	u8 *out, b;
	int len;

	m = fuzz_guard_alloc(sizeof(*m), 0);
	b = fuzz_u8(&in);
	m->type = b & 0x0f;
	m->version = b & 0x10 ? SMC_LLC_VERSION_V2 : SMC_LLC_VERSION_V1;
	if (b & 0x20)
		m->version = b >> 6;
	m->flags = fuzz_u8(&in);
	/* the union's bytes; only the bools need valid values */
	fuzz_bytes(&in, &m->confirm_link, sizeof(m->confirm_link));
	switch (m->type) {
	case SMC_LLC_ADD_LINK:
		fuzz_bytes(&in, &m->add_link, sizeof(m->add_link));
		m->add_link.has_ext = fuzz_u8(&in) & 1;
		m->add_link.v2_direct = fuzz_u8(&in) & 1;
		m->add_link.rkeys = NULL;
		n = min_t(unsigned int, m->add_link.num_rkeys,
			  SMC_LLC_ADD_LINK_V2_MAX_RKEYS);
		for (i = 0; i < n; i++)
			fuzz_bytes(&in, &in_rt[i], sizeof(in_rt[i]));
		if (fuzz_u8(&in) != 0xff)
			m->add_link.rkeys = in_rt;
		break;
	case SMC_LLC_ADD_LINK_CONT:
		fuzz_bytes(&in, &m->add_link_cont, sizeof(m->add_link_cont));
		break;
	case SMC_LLC_DELETE_LINK:
		fuzz_bytes(&in, &m->delete_link, sizeof(m->delete_link));
		break;
	case SMC_LLC_CONFIRM_RKEY:
	case SMC_LLC_CONFIRM_RKEY_CONT:
		fuzz_bytes(&in, &m->confirm_rkey, sizeof(m->confirm_rkey));
		break;
	case SMC_LLC_DELETE_RKEY:
		m->delete_rkey.num_rkeys = fuzz_u8(&in);
		m->delete_rkey.err_mask = fuzz_u8(&in);
		m->delete_rkey.rkeys = NULL;
		for (i = 0; i < m->delete_rkey.num_rkeys; i++)
			in_rkeys[i] = fuzz_u32(&in);
		if (fuzz_u8(&in) != 0xff)
			m->delete_rkey.rkeys = in_rkeys;
		break;
	case SMC_LLC_REQ_ADD_LINK:
		m->req_add_link.gid_cnt = fuzz_u8(&in);
		m->req_add_link.gids = NULL;
		n = min_t(unsigned int, m->req_add_link.gid_cnt,
			  SMC_LLC_REQ_ADD_LINK_MAX_GIDS);
		for (i = 0; i < n; i++)
			fuzz_bytes(&in, in_gids[i], SMC_LLC_GID_LEN);
		if (fuzz_u8(&in) != 0xff)
			m->req_add_link.gids =
				(const u8 (*)[SMC_LLC_GID_LEN])in_gids;
		break;
	}

	out = fuzz_guard_alloc(cap, FUZZ_GUARD_BYTE);
	len = smc_llc_encode(m, out, cap);
	fuzz_check_encoded(out, cap, len);
	if (len >= 0) {
		struct smc_llc_msg *back = fuzz_guard_alloc(sizeof(*back), 0);
		u8 *again = fuzz_guard_alloc(cap, FUZZ_GUARD_BYTE);

		FUZZ_CHECK(len >= SMC_LLC_MSG_LEN);
		FUZZ_CHECK(smc_llc_decode(out, len, back) == 0);
		FUZZ_CHECK(back->type == m->type &&
			   back->version == m->version &&
			   back->flags == m->flags && back->length == len);
		if (read_lists(back)) {
			FUZZ_CHECK(smc_llc_encode(back, again, cap) == len);
			FUZZ_CHECK(!memcmp(again, out, len));
		}
		fuzz_guard_free(again, cap);
		fuzz_guard_free(back, sizeof(*back));
	} else {
		FUZZ_CHECK(len == -EINVAL);
	}
	fuzz_guard_free(out, cap);
	fuzz_guard_free(m, sizeof(*m));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct smc_llc_msg *m;
	int rc;

	m = fuzz_guard_alloc(sizeof(*m), 0x5a);
	rc = smc_llc_decode(data, size, m);
	FUZZ_CHECK(smc_llc_validate(data, size) == rc);
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL || rc == -EPROTO ||
			   rc == -EOPNOTSUPP);
		goto out;
	}
	FUZZ_CHECK(smc_llc_is_llc(data[0]));
	FUZZ_CHECK(m->wire == data);
	FUZZ_CHECK(m->length >= SMC_LLC_MSG_LEN &&
		   m->length <= SMC_LLC_V2_MAX_LEN && m->length <= size);
	FUZZ_CHECK(m->version == SMC_LLC_VERSION_V1 ||
		   m->version == SMC_LLC_VERSION_V2);
	FUZZ_CHECK(strcmp(smc_llc_type_str(m->type), "unknown"));
	if (read_lists(m))
		roundtrip(m);
out:
	if (size)
		(void)smc_llc_is_llc(data[0]);
	fuzz_guard_free(m, sizeof(*m));
	fuzz_encoder(data, size);
	return 0;
}
