/* net.c - the net workload: writes that come from the network.  A sender
 * streams size bytes over a loopback TCP connection (TCP_MAXSEG = mss,
 * TCP_NODELAY); a receiver writes what each recv() returns into the file,
 * so its writes come in whatever the segments add up to, not in pages.
 * With align=BS the receiver gathers them into BS-byte writes first.
 * pattern=rewrite writes the file, flushes and evicts it, then overwrites
 * it in place with a second stream.  Only the receiver counts: bytes
 * written and write calls, on the side of the file.
 *
 * The parent made the listening socket (pipefd[0]); each stream is one
 * connection, accepted by the receiver, made by the sender. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "engines.h"

#define NET_DEFAULT_SIZE (1ull << 30)
#define RECV_SEGS 16    /* a recv asks for up to this many segments */
#define SEND_SEGS 64    /* a send hands over this many full segments */

static uint64_t net_size(const struct wl_spec *w)
{
	return w->size ? w->size : NET_DEFAULT_SIZE;
}

static int net_mss(const struct wl_spec *w)
{
	return w->mss > 0 ? w->mss : 1448;
}

int engine_net_listen(const struct wl_spec *w)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int mss = net_mss(w), fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	/* accepted connections inherit the segment size */
	if (setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof mss) != 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* ---- the receiver ---- */

struct rx {
	char *buf;
	size_t cap;     /* bytes one recv asks for */
	size_t align;   /* 0: write each recv as it came */
	size_t fill;    /* align: bytes gathered, not yet written */
};

/* One stream: accept it, write what arrives until the sender closes. */
static int rx_stream(struct eng_ctx *x, struct rx *r, int lfd, int fd)
{
	int s, rc = 0;

	/* the listening socket times out (SO_RCVTIMEO): a sender that failed
	 * before connecting has said so in the counter block */
	while ((s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0 &&
	       (errno == EINTR || errno == EAGAIN) && !__atomic_load_n(&x->c->err, __ATOMIC_ACQUIRE))
		;
	if (s < 0 && __atomic_load_n(&x->c->err, __ATOMIC_ACQUIRE))
		return -EPIPE;
	if (s < 0)
		return eng_fail(x->c, errno, "accepting the stream for", x->job->dst);
	for (;;) {
		size_t want = r->align ? r->align - r->fill : r->cap;
		ssize_t n = recv(s, r->buf + r->fill, want < r->cap ? want : r->cap, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = eng_fail(x->c, errno, "receiving the stream for", x->job->dst);
			break;
		}
		if (n == 0)
			break;
		if (!r->align) {
			rc = eng_write_all(x, fd, r->buf, (size_t)n, x->job->dst);
		} else if ((r->fill += (size_t)n) == r->align) {
			rc = eng_write_all(x, fd, r->buf, r->align, x->job->dst);
			r->fill = 0;
		}
		if (rc)
			break;
	}
	if (rc == 0 && r->fill) {
		rc = eng_write_all(x, fd, r->buf, r->fill, x->job->dst);
		r->fill = 0;
	}
	close(s);
	return rc;
}

/* Between the write and the rewrite: to disk, then out of the cache. */
static int rx_cold(struct eng_ctx *x, int fd)
{
	if (fdatasync(fd) != 0)
		return eng_fail(x->c, errno, "syncing", x->job->dst);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	eng_phase(x->c, 1);
	eng_count(x, 0, 0, 1);   /* the flush, after the mark, as write.c does */
	if (lseek(fd, 0, SEEK_SET) < 0)
		return eng_fail(x->c, errno, "seeking in", x->job->dst);
	return 0;
}

static int rx_passes(struct eng_ctx *x, struct rx *r, int lfd, int fd)
{
	int fl = fcntl(fd, F_GETFL), rc;

	for (;;) {
		rc = rx_stream(x, r, lfd, fd);
		if (rc == 0 && x->w->rewrite && (rc = rx_cold(x, fd)) == 0)
			rc = rx_stream(x, r, lfd, fd);
		if (rc || !x->loop)
			return rc;
		if ((rc = eng_pass_end(x, -1, fd, fl, x->job->dst)))
			return rc;
		if (x->w->rewrite)
			eng_phase(x->c, 0);
	}
}

static int net_receiver(struct eng_ctx *x)
{
	struct rx r = { .cap = (size_t)net_mss(x->w) * RECV_SEGS, .align = (size_t)x->w->align };
	struct timeval tick = { 0, 200 * 1000 };
	int lfd = x->pipefd[0], fd, rc;

	setsockopt(lfd, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof tick);
	x->counts_passes = true;
	if ((rc = eng_open_dst(x, &fd)))
		return rc;
	r.buf = eng_buffer(r.align > r.cap ? r.align : r.cap);
	if (!r.buf) {
		close(fd);
		return eng_fail(x->c, ENOMEM, "setting up writes to", x->job->dst);
	}
	rc = rx_passes(x, &r, lfd, fd);
	free(r.buf);
	close(lfd);
	return eng_wrap_up(x, rc, fd);
}

/* ---- the sender ---- */

static int tx_connect(struct eng_ctx *x, const struct sockaddr_in *a)
{
	int one = 1, mss = net_mss(x->w), s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return eng_fail(x->c, errno, "making the stream for", x->job->dst);
	if (setsockopt(s, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof mss) != 0 ||
	    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
	    connect(s, (const struct sockaddr *)a, sizeof *a) != 0) {
		int e = errno;

		close(s);
		return eng_fail(x->c, e, "connecting the stream for", x->job->dst);
	}
	return s;
}

static int tx_stream(struct eng_ctx *x, const struct sockaddr_in *a, const char *buf, size_t chunk)
{
	uint64_t left = net_size(x->w);
	int s = tx_connect(x, a), rc = 0;

	if (s < 0)
		return s;
	while (left > 0) {
		ssize_t n = send(s, buf, left < chunk ? (size_t)left : chunk, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = eng_fail(x->c, errno, "sending the stream for", x->job->dst);
			break;
		}
		left -= (uint64_t)n;
	}
	close(s);
	return rc;
}

static int net_sender(struct eng_ctx *x)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	size_t chunk = (size_t)net_mss(x->w) * SEND_SEGS;
	char *buf;
	int rc = 0;

	if (getsockname(x->pipefd[0], (struct sockaddr *)&a, &alen) != 0)
		return eng_fail(x->c, errno, "finding the stream's socket for", x->job->dst);
	close(x->pipefd[0]);
	if (!(buf = eng_buffer(chunk)))
		return eng_fail(x->c, ENOMEM, "setting up the stream for", x->job->dst);
	do {
		rc = tx_stream(x, &a, buf, chunk);
		if (rc == 0 && x->w->rewrite)
			rc = tx_stream(x, &a, buf, chunk);
	} while (rc == 0 && x->loop);
	free(buf);
	return rc;
}

int eng_net(struct eng_ctx *x, enum engine_role role)
{
	return role == ROLE_SENDER ? net_sender(x) : net_receiver(x);
}
