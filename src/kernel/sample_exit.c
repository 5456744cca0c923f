/* sample_exit.c - each ended task's own last I/O counts, from the
 * kernel's exit records (taskstats over generic netlink, one record per
 * task as it exits, whoever reaps it).
 *
 * sample_reap.c finds what ended processes read in their reapers'
 * counts, which add a child's whole count to the reaper's: a process
 * last seen reading a pipe that ends in the same tick as children never
 * seen leaves its own last reads (pipe bytes) and theirs (file bytes) in
 * one total.  Its exit record holds its own count alone, so its own part
 * can be taken off (the kernel gives counts to the KiB below: a tail is
 * short by less than 1 KiB).  Registering needs CAP_NET_ADMIN in the first
 * network namespace; where the kernel refuses, no record is ever found
 * and the reaped accounting goes on as before. */
#include "sample_priv.h"

#include "benchtop/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define EXIT_KEEP 4096      /* the last records kept: a ring */

struct exit_rec {
	pid_t pid;
	uint64_t rchar, wchar;
	char comm[16];
};

struct sexit {
	int fd;
	int family;
	struct exit_rec ring[EXIT_KEEP];
	unsigned next;
};

struct nlmsg {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[256];
};

static void *nla_data(struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

/* The attribute at *p before end, *p moved past it; NULL at the end or
 * at one that does not fit. */
static struct nlattr *nla_next(char **p, const char *end)
{
	struct nlattr *a = (void *)*p;
	if (*p + NLA_HDRLEN > end || a->nla_len < NLA_HDRLEN || *p + a->nla_len > end)
		return NULL;
	*p += NLA_ALIGN(a->nla_len);
	return a;
}

/* The first attribute of a generic netlink message h, and its end. */
static char *genl_attrs(struct nlmsghdr *h, char **end)
{
	*end = (char *)h + h->nlmsg_len;
	return (char *)NLMSG_DATA(h) + GENL_HDRLEN;
}

static int nl_send(int fd, int type, int flags, int cmd, int atype, const void *data, int len)
{
	struct nlmsg m;
	memset(&m, 0, sizeof m);
	if (len > (int)sizeof m.buf - NLA_HDRLEN)
		return -EINVAL;
	m.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m.n.nlmsg_type = (unsigned short)type;
	m.n.nlmsg_flags = (unsigned short)(NLM_F_REQUEST | flags);
	m.g.cmd = (unsigned char)cmd;
	m.g.version = 1;
	struct nlattr *a = (struct nlattr *)((char *)&m + m.n.nlmsg_len);
	a->nla_type = (unsigned short)atype;
	a->nla_len = (unsigned short)(NLA_HDRLEN + len);
	memcpy(nla_data(a), data, (size_t)len);
	m.n.nlmsg_len += NLMSG_ALIGN(a->nla_len);
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	return sendto(fd, &m, m.n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof to) < 0 ? -errno : 0;
}

/* The taskstats family's id, from the generic netlink controller. */
static int family_id(int fd)
{
	const char *name = TASKSTATS_GENL_NAME;
	if (nl_send(fd, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME, name,
	            (int)strlen(name) + 1))
		return -1;
	char buf[4096] __attribute__((aligned(4)));
	for (int tries = 0; tries < 4; tries++) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		if (n <= 0)
			return -1;
		for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			char *end, *p = genl_attrs(h, &end);
			for (struct nlattr *a; (a = nla_next(&p, end));)
				if (a->nla_type == CTRL_ATTR_FAMILY_ID) {
					unsigned short id;
					memcpy(&id, nla_data(a), sizeof id);
					return id;
				}
		}
	}
	return -1;
}

/* The kernel's answer to the registration: 0 (taken) or an error
 * (EPERM without CAP_NET_ADMIN, another network namespace). */
static bool acked(int fd)
{
	char buf[4096] __attribute__((aligned(4)));
	for (int tries = 0; tries < 16; tries++) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		if (n <= 0)
			return false;
		for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type != NLMSG_ERROR)
				continue;  /* an exit record that came first */
			struct nlmsgerr e;
			memcpy(&e, NLMSG_DATA(h), sizeof e);
			return e.error == 0;
		}
	}
	return false;
}

struct sexit *sexit_new(int ncpu)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return NULL;
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	/* every task that ends on the machine sends one: room for a few
	 * thousand between two ticks (root may pass rmem_max) */
	int big = 4 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big) != 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
	struct timeval tv = { .tv_sec = 0, .tv_usec = 50000 };  /* the answers come at once */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	int fam = bind(fd, (struct sockaddr *)&me, sizeof me) == 0 ? family_id(fd) : -1;
	char mask[32];
	snprintf(mask, sizeof mask, "0-%d", ncpu > 0 ? ncpu - 1 : 0);
	if (fam < 0 || nl_send(fd, fam, NLM_F_ACK, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
	                       mask, (int)strlen(mask) + 1) || !acked(fd)) {
		close(fd);
		return NULL;
	}
	struct sexit *x = xcalloc(1, sizeof *x);
	if (!x) {
		close(fd);
		return NULL;
	}
	x->fd = fd;
	x->family = fam;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return x;
}

void sexit_free(struct sexit *x)
{
	if (!x)
		return;
	close(x->fd);
	free(x);
}

/* One TASKSTATS_TYPE_AGGR_PID: the pid, then the task's stats. */
static void take_aggr(struct sexit *x, struct nlattr *agg)
{
	char *p = nla_data(agg), *end = (char *)agg + agg->nla_len;
	pid_t pid = 0;
	for (struct nlattr *a; (a = nla_next(&p, end));) {
		size_t len = a->nla_len - NLA_HDRLEN;
		if (a->nla_type == TASKSTATS_TYPE_PID && len >= sizeof(uint32_t)) {
			uint32_t v;
			memcpy(&v, nla_data(a), sizeof v);
			pid = (pid_t)v;
		} else if (a->nla_type == TASKSTATS_TYPE_STATS && pid > 0 &&
		           len >= offsetof(struct taskstats, write_char) + sizeof(uint64_t)) {
			/* 4-byte aligned in the message: copied out, as long as
			 * this kernel's is (an older one's is shorter) */
			struct taskstats t = { 0 };
			memcpy(&t, nla_data(a), len < sizeof t ? len : sizeof t);
			struct exit_rec *r = &x->ring[x->next++ % EXIT_KEEP];
			r->pid = pid;
			r->rchar = t.read_char;
			r->wchar = t.write_char;
			memcpy(r->comm, t.ac_comm, sizeof r->comm);
			r->comm[sizeof r->comm - 1] = '\0';
		}
	}
}

void sexit_drain(struct sexit *x)
{
	char buf[16384] __attribute__((aligned(4)));
	ssize_t n;

	if (!x)
		return;
	while ((n = recv(x->fd, buf, sizeof buf, MSG_DONTWAIT)) > 0 || (n < 0 && errno == ENOBUFS)) {
		if (n < 0)
			continue;  /* records were dropped: those are not found */
		for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type != x->family)
				continue;
			char *end, *p = genl_attrs(h, &end);
			for (struct nlattr *a; (a = nla_next(&p, end));)
				if (a->nla_type == TASKSTATS_TYPE_AGGR_PID)
					take_aggr(x, a);
		}
	}
}

bool sexit_find(struct sexit *x, pid_t pid, const char *comm, uint64_t *rchar, uint64_t *wchar)
{
	if (!x)
		return false;
	for (int pass = 0; pass < 2; pass++) {
		/* newest first: a PID used again is its latest task */
		for (unsigned k = 1; k <= EXIT_KEEP && k <= x->next; k++) {
			const struct exit_rec *r = &x->ring[(x->next - k) % EXIT_KEEP];
			if (r->pid == pid && strncmp(r->comm, comm, sizeof r->comm - 1) == 0) {
				*rchar = r->rchar;
				*wchar = r->wchar;
				return true;
			}
		}
		sexit_drain(x);  /* it ended after this tick's first look */
	}
	return false;
}
