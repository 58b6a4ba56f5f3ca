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
#include <net/tcp.h>
#include "clc.h"
#include "smc.h"
#include "testhooks.h"

u8 smc_local_systemid[SMC_CLC_SYSTEMID_LEN];

int __init smc_clc_init(void)
{
	get_random_bytes(smc_local_systemid, sizeof(smc_local_systemid));
	return smc_clcsock_init();
}

/*
 * Waiting for the peer.  A clcsock's SO_RCVTIMEO and SO_SNDTIMEO belong to
 * the application (a TCP_ULP fd's are its own, changed whenever it likes;
 * an AF_SMC socket's fallback uses them), so CLC I/O neither reads nor
 * writes them.  Every call into TCP is made with MSG_DONTWAIT; between
 * calls we sleep on the socket with a timeout of our own, towards one
 * deadline per message.  Call with the clcsock unlocked (TCP locks it).
 */

/* Jiffies left until @deadline, 0 once it has passed. */
static long smc_clc_left(unsigned long deadline)
{
	long left = (long)(deadline - jiffies);

	return left > 0 ? left : 0;
}

/* The peer sent more than @rcv_nxt, or reading has ended. */
static bool smc_clc_rcv_news(const struct sock *clcsk, u32 rcv_nxt)
{
	return READ_ONCE(tcp_sk(clcsk)->rcv_nxt) != rcv_nxt ||
	       READ_ONCE(clcsk->sk_err) ||
	       (READ_ONCE(clcsk->sk_shutdown) & RCV_SHUTDOWN);
}

/*
 * Sleep until smc_clc_rcv_news() or @deadline.  0 to look again, -EAGAIN
 * once the deadline has passed, -EINTR on a signal.
 */
static int smc_clc_wait_rcv(struct sock *clcsk, u32 rcv_nxt,
			    unsigned long deadline)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	long timeo = smc_clc_left(deadline);

	if (!timeo)
		return -EAGAIN;
	lock_sock(clcsk);
	add_wait_queue(sk_sleep(clcsk), &wait);
	/* takes the news under the lock, then sleeps without it */
	sk_wait_event(clcsk, &timeo, smc_clc_rcv_news(clcsk, rcv_nxt), &wait);
	remove_wait_queue(sk_sleep(clcsk), &wait);
	release_sock(clcsk);
	return signal_pending(current) ? -EINTR : 0;
}

/*
 * Receive exactly @len bytes by @deadline; with MSG_PEEK in @flags, wait
 * until the first @len bytes of the stream are there and copy them,
 * consuming nothing.  0, -EAGAIN (not all there by the deadline),
 * -ECONNRESET (the peer closed) or TCP's error.
 */
static int smc_clc_recv(struct socket *clcsock, u8 *buf, size_t len,
			int flags, unsigned long deadline)
{
	struct sock *clcsk = clcsock->sk;
	struct msghdr msg;
	struct kvec iov;
	size_t got = 0;
	u32 rcv_nxt;
	int rc;

	while (got < len) {
		/* before the call: what arrives after it is news */
		rcv_nxt = READ_ONCE(tcp_sk(clcsk)->rcv_nxt);
		iov.iov_base = buf + got;
		iov.iov_len = len - got;
		memset(&msg, 0, sizeof(msg));
		rc = kernel_recvmsg(clcsock, &msg, &iov, 1, len - got,
				    flags | MSG_DONTWAIT);
		if (rc == 0)
			return -ECONNRESET;
		if (rc > 0) {
			/* a peek looks at the head of the stream every time */
			if (!(flags & MSG_PEEK))
				got += rc;
			else if (rc == len)
				got = len;
			if (got == len)
				break;
		} else if (rc != -EAGAIN) {
			return rc;
		}
		rc = smc_clc_wait_rcv(clcsk, rcv_nxt, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Send all of @len bytes by @deadline.  0, -EAGAIN (no room in time),
 * -EINTR or TCP's error.
 */
static int smc_clc_send_all(struct socket *clcsock, const u8 *buf,
			    size_t len, unsigned long deadline)
{
	struct sock *clcsk = clcsock->sk;
	struct msghdr msg;
	struct kvec iov;
	size_t sent = 0;
	long timeo;
	int rc;

	while (sent < len) {
		iov.iov_base = (void *)(buf + sent);
		iov.iov_len = len - sent;
		memset(&msg, 0, sizeof(msg));
		msg.msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT;
		rc = kernel_sendmsg(clcsock, &msg, &iov, 1, len - sent);
		if (rc > 0) {
			sent += rc;
			continue;
		}
		if (rc != -EAGAIN)
			return rc ?: -EPIPE;
		timeo = smc_clc_left(deadline);
		if (!timeo)
			return -EAGAIN;
		lock_sock(clcsk);
		/* TCP's own wait for send room, with our timeout */
		rc = sk_stream_wait_memory(clcsk, &timeo);
		release_sock(clcsk);
		/* -EPIPE: the next sendmsg names the error */
		if (rc && rc != -EPIPE)
			return rc == -EAGAIN ? -EAGAIN : -EINTR;
	}
	return 0;
}

int smc_clc_send_timeo(struct socket *clcsock, const void *buf, size_t len,
		       long timeo)
{
	int rc;

	/* TCP's sendmsg and our wait lock the clcsock themselves */
	lockdep_assert_not_held(&clcsock->sk->sk_lock);
	if (WARN_ON_ONCE(timeo <= 0 || timeo == MAX_SCHEDULE_TIMEOUT))
		return -EINVAL;
	if (smc_hostile_clc(clcsock, buf, len, &rc))
		return rc;
	return smc_clc_send_all(clcsock, buf, len, jiffies + timeo);
}

int smc_clc_send(struct socket *clcsock, const void *buf, size_t len)
{
	return smc_clc_send_timeo(clcsock, buf, len, SMC_CLC_WAIT_TIME);
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

/*
 * Take a CLC message that cannot be used (bad version, type or length, or
 * longer than @cap) out of the stream, by the length its header announces,
 * so that a fallback hands the application the byte after it.  Uses @buf
 * as scratch; all of it by @deadline.  Returns 0 or a negative errno.
 */
static int smc_clc_skip(struct socket *clcsock, u8 *buf, size_t cap,
			u16 length, unsigned long deadline)
{
	size_t left = max_t(size_t, length, SMC_CLC_HDR_LEN);
	size_t n;
	int rc;

	while (left) {
		n = min(left, cap);
		rc = smc_clc_recv(clcsock, buf, n, 0, deadline);
		if (rc)
			return rc;
		left -= n;
	}
	return 0;
}

/*
 * Receive one CLC message into @buf, all of it within @timeo jiffies
 * (finite), whatever the socket's own timeouts say.  Returns its length,
 * or -EAGAIN (nothing complete within @timeo), -ECONNRESET (peer gone),
 * -EPROTO (the stream does not start with a CLC header; nothing consumed),
 * -EBADMSG (a CLC message that is malformed or longer than @cap; taken out
 * of the stream whole, as far as its header tells).
 */
int smc_clc_recv_msg(struct socket *clcsock, u8 *buf, size_t cap, long timeo,
		     struct smc_clc_hdr *hdr)
{
	unsigned long deadline;
	u16 length;
	int rc;

	/* TCP's recvmsg and our wait lock the clcsock themselves */
	lockdep_assert_not_held(&clcsock->sk->sk_lock);
	if (cap < SMC_CLC_HDR_LEN ||
	    WARN_ON_ONCE(timeo <= 0 || timeo == MAX_SCHEDULE_TIMEOUT))
		return -EINVAL;
	deadline = jiffies + timeo;

	rc = smc_clc_recv(clcsock, buf, SMC_CLC_HDR_LEN, MSG_PEEK, deadline);
	if (rc)
		return rc;
	if (!smc_clc_hdr_framed(buf, SMC_CLC_HDR_LEN, &length))
		return -EPROTO;
	if (smc_clc_hdr_decode(buf, SMC_CLC_HDR_LEN, hdr) ||
	    hdr->length > cap)
		return smc_clc_skip(clcsock, buf, cap, length, deadline) ?:
		       -EBADMSG;
	rc = smc_clc_recv(clcsock, buf, hdr->length, 0, deadline);
	return rc ?: hdr->length;
}
