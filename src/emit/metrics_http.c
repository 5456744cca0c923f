/* metrics_http.c - where the exposition goes: --metrics FILE, rewritten
 * atomically each tick, and --metrics-listen, GET /metrics over HTTP.
 *
 * The HTTP server is libmicrohttpd driven from benchtop's own poll loop
 * (external polling with MHD_USE_EPOLL: one epoll descriptor joins the
 * loop's pollfd list, MHD_run answers what is ready without waiting), not
 * libmicrohttpd's internal thread.  That keeps DESIGN's one-loop rule as
 * it is: no thread in the parent, so no lock and no copy of the model; a
 * scrape is answered between two ticks from the snapshot the last tick
 * left, which nothing changes until the next tick.  Sockets are
 * non-blocking and a reply is a few kilobytes rendered at once, so a slow
 * or stuck scraper never holds up a tick.
 *
 * Nor does it shut others out.  benchtop accepts the connections itself
 * and hands one to libmicrohttpd only once its first byte is there; from
 * that byte the whole request and its answer must be done within
 * METRICS_REQUEST_S (libmicrohttpd's own timeout restarts with every byte,
 * so a client sending a header line every few seconds would hold its
 * connection for ever), and every answer closes its connection, so each
 * request has that deadline.  A connection that sends nothing goes after
 * METRICS_IDLE_S.  A client (an address) holds at most METRICS_PER_CLIENT
 * connections and all of them at most METRICS_CONNECTIONS; a newcomer over
 * either cap takes the place of that client's (or anyone's) oldest
 * connection that is slow (silent or mid-request for over METRICS_GRACE_S),
 * and is refused only when none is, so a scraper that sends its request
 * at once is answered while slow ones are held open.  A request without
 * a Host header is answered 400. */
#include "benchtop/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchtop/cli.h"
#include "benchtop/clock.h"
#include "benchtop/outfile.h"
#include "benchtop/xalloc.h"

#define METRICS_CONNECTIONS 16u   /* at once, every client together */
#define METRICS_PER_CLIENT 2u     /* at once, from one address */
#define METRICS_IDLE_S 10u        /* a connection that sends nothing */
#define METRICS_REQUEST_S 3.0     /* from a request's first byte to its answer */
#define METRICS_GRACE_S 0.5       /* slower than this: another may take its place */
#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* A connection benchtop accepted: waiting for its first byte (staged),
 * then libmicrohttpd's. */
struct conn {
	bool used, handed, done, dead;
	int fd;
	struct sockaddr_storage addr;
	socklen_t alen;
	double t_accept, t_first;
};

struct metrics {
	/* --metrics FILE */
	char *file;
	char *base;                   /* FILE's name inside its directory */
	int dirfd;
	bool written;                 /* FILE is benchtop's now: removed at close */
	bool force;                   /* an existing FILE may be replaced */
	/* --metrics-listen */
	struct MHD_Daemon *d;
	int epfd;                     /* what the caller polls: the listener, staged
	                               * connections and libmicrohttpd's epoll */
	int lfd, mhd_epfd;
	struct conn conns[METRICS_CONNECTIONS];
	char addr[80];
	struct metrics_view view;
};

/* ---- the file ------------------------------------------------------------- */

/* One write of the whole text into a new file beside FILE, then put at
 * FILE (outfile.h: nothing at FILE is ever opened or followed).  The
 * temporary name does not end in ".prom", so the textfile collector never
 * reads it half written.  After the first write FILE is benchtop's own. */
static int write_file(struct metrics *m)
{
	char msg[256];
	struct outfile o;
	unsigned fl = m->written || m->force ? OUTFILE_FORCE : 0;
	int rc = outfile_open(&o, "--metrics", m->file, fl, msg, sizeof msg);
	if (rc)
		return rc;
	size_t n;
	char *text = metrics_render_mem(&m->view, METRICS_TEXT, &n);
	rc = outfile_write_all(o.fd, text, n);
	free(text);
	if (close(o.fd) != 0 && !rc)
		rc = -errno;
	o.fd = -1;
	if (!rc)
		rc = outfile_publish(&o, fl);
	if (!rc)
		m->written = true;
	outfile_close(&o);
	return rc;
}

/* FILE's directory opened, FILE not there (unless force), and a new file
 * can be made there: checked before the run starts. */
static int open_file(struct metrics *m, const char *file, bool force, char *msg, size_t len)
{
	const char *slash = strrchr(file, '/');
	char *dir = slash ? xstrndup(file, slash == file ? 1 : (size_t)(slash - file)) : xstrdup(".");
	m->file = xstrdup(file);
	m->base = xstrdup(slash ? slash + 1 : file);
	m->force = force;
	m->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	struct outfile o;
	int rc = outfile_open(&o, "--metrics", file, force ? OUTFILE_FORCE : 0, msg, len);
	outfile_close(&o);
	return rc;
}

/* ---- HTTP ------------------------------------------------------------------ */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             char *body, size_t n, const char *allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(n, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	/* one request per connection: each has its deadline from its first byte */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	enum MHD_Result ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *text,
                                  const char *allow)
{
	char *body = xstrdup(text);
	return reply(c, status, "text/plain; charset=utf-8", body, strlen(body), allow);
}

/* Read-only: GET (and HEAD) of /metrics with a Host header; anything else
 * is refused at the first call, before any request body is read.  A good
 * request is answered at the second call, once the whole request is in;
 * every answer closes the connection (see the top). */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **state)
{
	static int seen;
	struct metrics *m = cls;
	(void)version, (void)upload;
	if (!MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST))
		return reply_text(c, MHD_HTTP_BAD_REQUEST, "bad request: a Host header is required\n", NULL);
	if (strcmp(url, "/metrics"))
		return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: benchtop serves GET /metrics\n", NULL);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: use GET\n", "GET, HEAD");
	if (!*state) {
		*state = &seen;
		return MHD_YES;
	}
	*upload_size = 0;  /* a body on a GET is ignored */
	enum metrics_format f = metrics_negotiate(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	                                                                      MHD_HTTP_HEADER_ACCEPT));
	size_t n;
	char *body = metrics_render_mem(&m->view, f, &n);
	return reply(c, MHD_HTTP_OK, f == METRICS_OPENMETRICS ? CT_OPENMETRICS : CT_TEXT, body, n, NULL);
}

/* ---- the gate: accepting, staging, deadlines ---------------------------- */

static bool same_client(const struct conn *c, const struct sockaddr_storage *a)
{
	if (c->addr.ss_family != a->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)&c->addr)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)a)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)&c->addr)->sin6_addr,
	               &((const struct sockaddr_in6 *)a)->sin6_addr, sizeof(struct in6_addr));
}

/* End connection c: a staged one is closed here; libmicrohttpd's is shut
 * down, and libmicrohttpd closes it at its next run. */
static void drop(struct metrics *m, struct conn *c)
{
	if (!c->handed) {
		epoll_ctl(m->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		c->used = false;
		return;
	}
	if (!c->dead)
		shutdown(c->fd, SHUT_RDWR);
	c->dead = true;
}

/* Silent since it was accepted, or mid-request, for longer than grace. */
static bool slow(const struct conn *c, double now, double grace)
{
	if (!c->used || c->dead || c->done)
		return false;
	return c->handed ? now - c->t_first > grace : now - c->t_accept > grace;
}

/* Room for a newcomer from a: 0, else the oldest slow connection (of a's
 * over its cap, of anyone's over the total) gives its place; -1 when none
 * is slow. */
static int make_room(struct metrics *m, const struct sockaddr_storage *a, double now)
{
	unsigned mine = 0, all = 0;
	for (unsigned i = 0; i < METRICS_CONNECTIONS; i++) {
		const struct conn *c = &m->conns[i];
		if (c->used && !c->dead) {
			all++;
			mine += same_client(c, a);
		}
	}
	bool per = mine >= METRICS_PER_CLIENT;
	if (!per && all < METRICS_CONNECTIONS)
		return 0;
	struct conn *victim = NULL;
	for (unsigned i = 0; i < METRICS_CONNECTIONS; i++) {
		struct conn *c = &m->conns[i];
		if (!slow(c, now, METRICS_GRACE_S) || (per && !same_client(c, a)))
			continue;
		double t = c->handed ? c->t_first : c->t_accept;
		if (!victim || t < (victim->handed ? victim->t_first : victim->t_accept))
			victim = c;
	}
	if (!victim)
		return -1;
	drop(m, victim);
	return 0;
}

static struct conn *free_slot(struct metrics *m)
{
	for (unsigned i = 0; i < METRICS_CONNECTIONS; i++)
		if (!m->conns[i].used)
			return &m->conns[i];
	return NULL;  /* dead ones not yet closed by libmicrohttpd */
}

static void accept_all(struct metrics *m)
{
	for (int n = 0; n < 64; n++) {
		struct sockaddr_storage a;
		socklen_t alen = sizeof a;
		int fd = accept4(m->lfd, (struct sockaddr *)&a, &alen, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		double now = clock_mono();
		bool room = make_room(m, &a, now) == 0;
		struct conn *c = room ? free_slot(m) : NULL;
		if (room && !c) {
			MHD_run(m->d);  /* let it close the ones shut down just now */
			c = free_slot(m);
		}
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
		if (c) {
			*c = (struct conn){ .used = true, .fd = fd, .addr = a, .alen = alen, .t_accept = now };
			ev.data.u32 = (uint32_t)(c - m->conns);
		}
		if (!c || epoll_ctl(m->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
			close(fd);  /* refused: every place is held by a scraper that is not slow */
			if (c)
				c->used = false;
		}
	}
}

/* A staged connection is readable: its first byte is there (the deadline
 * starts), and libmicrohttpd takes it; or it closed without a word. */
static void first_byte(struct metrics *m, struct conn *c)
{
	char b;
	ssize_t n = recv(c->fd, &b, 1, MSG_PEEK);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	epoll_ctl(m->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	if (n <= 0) {
		close(c->fd);
		c->used = false;
		return;
	}
	c->t_first = clock_mono();
	c->handed = true;
	/* libmicrohttpd closes the socket itself if it cannot take it */
	if (MHD_add_connection(m->d, c->fd, (struct sockaddr *)&c->addr, c->alen) != MHD_YES)
		c->used = false;
}

static struct conn *conn_of(struct metrics *m, struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
	for (unsigned i = 0; ci && i < METRICS_CONNECTIONS; i++)
		if (m->conns[i].used && m->conns[i].handed && m->conns[i].fd == ci->connect_fd)
			return &m->conns[i];
	return NULL;
}

static void on_connection(void *cls, struct MHD_Connection *mc, void **ctx,
                          enum MHD_ConnectionNotificationCode code)
{
	struct metrics *m = cls;
	struct conn *c = code == MHD_CONNECTION_NOTIFY_STARTED ? conn_of(m, mc) : *ctx;
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		*ctx = c;
	else if (c)
		c->used = false;  /* closed: the place is free */
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **state,
                         enum MHD_RequestTerminationCode toe)
{
	(void)cls, (void)state, (void)toe;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci && ci->socket_context)
		((struct conn *)ci->socket_context)->done = true;
}

/* When connection c must be done: a silent one METRICS_IDLE_S after it
 * was accepted, a request METRICS_REQUEST_S after its first byte; 0 for
 * none (answered, or on its way out). */
static double end_of(const struct conn *c)
{
	if (!c->used || c->dead || (c->handed && c->done))
		return 0;
	return c->handed ? c->t_first + METRICS_REQUEST_S : c->t_accept + METRICS_IDLE_S;
}

/* End the connections past their time. */
static void enforce(struct metrics *m, double now)
{
	for (unsigned i = 0; i < METRICS_CONNECTIONS; i++) {
		double end = end_of(&m->conns[i]);
		if (end > 0 && end <= now)
			drop(m, &m->conns[i]);
	}
}

/* Seconds until the next end_of, -1 when there is none. */
static double next_end(const struct metrics *m, double now)
{
	double next = -1;
	for (unsigned i = 0; i < METRICS_CONNECTIONS; i++) {
		double end = end_of(&m->conns[i]);
		if (end > 0 && (next < 0 || end - now < next))
			next = end > now ? end - now : 0;
	}
	return next;
}

/* Everything ready on the gate's epoll, then libmicrohttpd's turn. */
static void gate_run(struct metrics *m)
{
	struct epoll_event ev[32];
	int n = epoll_wait(m->epfd, ev, 32, 0);
	for (int i = 0; i < n; i++) {
		if (ev[i].data.u32 == UINT32_MAX)
			accept_all(m);
		else if (ev[i].data.u32 < METRICS_CONNECTIONS && m->conns[ev[i].data.u32].used &&
		         !m->conns[ev[i].data.u32].handed)
			first_byte(m, &m->conns[ev[i].data.u32]);
	}
	enforce(m, clock_mono());
}

/* Bind and listen ourselves, so a refusal comes back as an errno that
 * names the cause (in use, not an address of this host, no permission). */
static int open_listener(struct metrics *m, const char *spec, char *msg, size_t len)
{
	char host[64], err[CLI_ERR_MAX];
	unsigned port;
	if (cli_parse_listen(spec, host, sizeof host, &port, err, sizeof err)) {
		snprintf(msg, len, "%s", err);
		return -EINVAL;
	}
	bool v6 = strchr(host, ':') != NULL;
	snprintf(m->addr, sizeof m->addr, v6 ? "[%s]:%u" : "%s:%u", host, port);
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	if (v6) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, host, &in6->sin6_addr);
	} else {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, host, &in4->sin_addr);
	}
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(fd, (struct sockaddr *)&ss, v6 ? sizeof *in6 : sizeof *in4) || listen(fd, 16)) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		snprintf(msg, len, "--metrics-listen %s: cannot listen on %s: %s%s", spec, m->addr, strerror(e),
		         e == EADDRINUSE ? " (another program has that port: choose another)" :
		         e == EADDRNOTAVAIL ? " (not an address of this machine)" :
		         e == EACCES ? " (ports below 1024 need root)" : "");
		return -e;
	}
	m->lfd = fd;
	m->d = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_NO_LISTEN_SOCKET | (v6 ? MHD_USE_IPv6 : 0), 0, NULL,
	                        NULL, on_request, m,
	                        MHD_OPTION_CONNECTION_LIMIT, METRICS_CONNECTIONS,
	                        MHD_OPTION_CONNECTION_TIMEOUT, METRICS_IDLE_S,
	                        MHD_OPTION_NOTIFY_CONNECTION, on_connection, m,
	                        MHD_OPTION_NOTIFY_COMPLETED, on_completed, m, MHD_OPTION_END);
	const union MHD_DaemonInfo *info = m->d ? MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	struct epoll_event lev = { .events = EPOLLIN, .data.u32 = UINT32_MAX };
	struct epoll_event mev = { .events = EPOLLIN, .data.u32 = UINT32_MAX - 1 };
	if (info) {
		m->mhd_epfd = info->epoll_fd;
		m->epfd = epoll_create1(EPOLL_CLOEXEC);
	}
	if (!info || m->epfd < 0 || epoll_ctl(m->epfd, EPOLL_CTL_ADD, fd, &lev) ||
	    epoll_ctl(m->epfd, EPOLL_CTL_ADD, m->mhd_epfd, &mev)) {
		snprintf(msg, len, "--metrics-listen %s: cannot start the HTTP server on %s", spec, m->addr);
		return -EIO;  /* metrics_close frees what was made */
	}
	return 0;
}

/* ---- the object ------------------------------------------------------------ */

int metrics_open(struct metrics **out, const char *file, const char *listen, bool force,
                 char *msg, size_t len)
{
	*out = NULL;
	if (!file && !listen)
		return 0;
	struct metrics *m = xcalloc(1, sizeof *m);
	m->dirfd = m->epfd = m->lfd = m->mhd_epfd = -1;
	m->view.self_cpu_s = m->view.disk_read_bytes = m->view.disk_written_bytes = -1;
	int rc = file ? open_file(m, file, force, msg, len) : 0;
	if (!rc && listen)
		rc = open_listener(m, listen, msg, len);
	if (rc) {
		metrics_close(m, true);
		return rc;
	}
	*out = m;
	return 0;
}

int metrics_update(struct metrics *m, const struct metrics_view *v)
{
	if (!m)
		return 0;
	m->view = *v;
	if (m->d) {
		gate_run(m);
		MHD_run(m->d);  /* times out idle connections even without traffic */
	}
	return m->file ? write_file(m) : 0;
}

int metrics_fd(const struct metrics *m)
{
	return m && m->d ? m->epfd : -1;
}

int metrics_timeout_ms(const struct metrics *m, int loop_ms)
{
	MHD_UNSIGNED_LONG_LONG to;
	if (!m || !m->d)
		return loop_ms;
	int ms = MHD_get_timeout(m->d, &to) == MHD_YES ? (to > 60000 ? 60000 : (int)to) : -1;
	double next = next_end(m, clock_mono());
	int gate = next < 0 ? -1 : (int)(next * 1000) + 1;
	if (gate >= 0 && (ms < 0 || gate < ms))
		ms = gate;
	return ms < 0 ? loop_ms : loop_ms < 0 || ms < loop_ms ? ms : loop_ms;
}

void metrics_serve(struct metrics *m)
{
	MHD_UNSIGNED_LONG_LONG to;
	if (!m || !m->d)
		return;
	gate_run(m);
	/* Connections that were ready but not finished in one pass report a
	 * zero timeout: give them a few more passes now. */
	for (int i = 0; i < 8; i++)
		if (MHD_run(m->d) != MHD_YES || MHD_get_timeout(m->d, &to) != MHD_YES || to > 0)
			break;
}

const char *metrics_address(const struct metrics *m)
{
	return m && m->d ? m->addr : "";
}

void metrics_close(struct metrics *m, bool keep)
{
	if (!m)
		return;
	for (unsigned i = 0; i < METRICS_CONNECTIONS; i++)
		if (m->conns[i].used && !m->conns[i].handed)
			close(m->conns[i].fd);
	if (m->d)
		MHD_stop_daemon(m->d);  /* closes the connections it has */
	if (m->lfd >= 0)
		close(m->lfd);
	if (m->epfd >= 0)
		close(m->epfd);
	if (m->written && !keep)
		unlinkat(m->dirfd, m->base, 0);
	if (m->dirfd >= 0)
		close(m->dirfd);
	free(m->file);
	free(m->base);
	free(m);
}
