// SPDX-License-Identifier: GPL-2.0
/*
 * CLC message exchange over the companion TCP socket.
 *
 * Messages are framed by the length in their header.  The header is first
 * peeked, so that a peer which announced SMC but then sends something that
 * is not CLC leaves its bytes in the stream for the application: nothing
 * is consumed until we know a whole CLC message is there to take.
 */
#include <linux/random.h>
#include <linux/uio.h>
#include <net/sock.h>
#include "clc.h"
#include "testhooks.h"

u8 smc_local_systemid[SMC_CLC_SYSTEMID_LEN];

void smc_clc_init(void)
{
	get_random_bytes(smc_local_systemid, sizeof(smc_local_systemid));
}

int smc_clc_send(struct socket *clcsock, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int rc;

	if (smc_hostile_clc(clcsock, buf, len, &rc))
		return rc;
	rc = kernel_sendmsg(clcsock, &msg, &iov, 1, len);
	if (rc < 0)
		return rc;
	return rc == len ? 0 : -EPIPE;
}

int smc_clc_send_decline(struct socket *clcsock, u32 reason, u8 version)
{
	struct smc_clc_decline d = {
		.hdr.type = SMC_CLC_DECLINE,
		.hdr.version = version >= SMC_V2 ? SMC_V2 : SMC_V1,
		.peer_diagnosis = reason,
		.os_type = SMC_CLC_OS_LINUX,
	};
	u8 buf[SMC_CLC_DECLINE_LEN_V2];
	int len;

	memcpy(d.id_for_peer, smc_local_systemid, sizeof(d.id_for_peer));
	len = smc_clc_decline_encode(&d, buf, sizeof(buf));
	if (len < 0)
		return len;
	return smc_clc_send(clcsock, buf, len);
}

/* Receive exactly @len bytes, waiting at most for the socket's timeout. */
static int smc_clc_recv(struct socket *clcsock, u8 *buf, size_t len,
			int flags)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};
	int rc;

	rc = kernel_recvmsg(clcsock, &msg, &iov, 1, len, flags | MSG_WAITALL);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return -ECONNRESET;
	return rc == len ? 0 : -EAGAIN;
}

/*
 * Take a CLC message that cannot be used (bad version, type or length, or
 * longer than @cap) out of the stream, by the length its header announces,
 * so that a fallback hands the application the byte after it.  Uses @buf
 * as scratch; all of it within @timeo.  Returns 0 or a negative errno.
 */
static int smc_clc_skip(struct socket *clcsock, u8 *buf, size_t cap,
			u16 length, long timeo)
{
	unsigned long end = jiffies + timeo;
	size_t left = max_t(size_t, length, SMC_CLC_HDR_LEN);
	size_t n;
	int rc;

	while (left) {
		if (time_after_eq(jiffies, end))
			return -EAGAIN;
		WRITE_ONCE(clcsock->sk->sk_rcvtimeo, end - jiffies);
		n = min(left, cap);
		rc = smc_clc_recv(clcsock, buf, n, 0);
		if (rc)
			return rc;
		left -= n;
	}
	return 0;
}

/*
 * Receive one CLC message into @buf.  Returns its length, or
 * -EAGAIN (nothing complete within @timeo), -ECONNRESET (peer gone),
 * -EPROTO (the stream does not start with a CLC header; nothing consumed),
 * -EBADMSG (a CLC message that is malformed or longer than @cap; taken out
 * of the stream whole, as far as its header tells).
 */
int smc_clc_recv_msg(struct socket *clcsock, u8 *buf, size_t cap, long timeo,
		     struct smc_clc_hdr *hdr)
{
	struct sock *clcsk = clcsock->sk;
	long old_timeo;
	u16 length;
	int rc;

	if (cap < SMC_CLC_HDR_LEN)
		return -EINVAL;
	old_timeo = READ_ONCE(clcsk->sk_rcvtimeo);
	WRITE_ONCE(clcsk->sk_rcvtimeo, timeo);

	rc = smc_clc_recv(clcsock, buf, SMC_CLC_HDR_LEN, MSG_PEEK);
	if (rc)
		goto out;
	if (!smc_clc_hdr_framed(buf, SMC_CLC_HDR_LEN, &length)) {
		rc = -EPROTO;
		goto out;
	}
	if (smc_clc_hdr_decode(buf, SMC_CLC_HDR_LEN, hdr) ||
	    hdr->length > cap) {
		rc = smc_clc_skip(clcsock, buf, cap, length, timeo) ?: -EBADMSG;
		goto out;
	}
	rc = smc_clc_recv(clcsock, buf, hdr->length, 0);
	if (!rc)
		rc = hdr->length;
out:
	WRITE_ONCE(clcsk->sk_rcvtimeo, old_timeo);
	return rc;
}
