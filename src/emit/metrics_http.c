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
 * non-blocking, a reply is a few kilobytes rendered at once, at most
 * METRICS_CONNECTIONS clients are served and an idle one is dropped after
 * METRICS_IDLE_S, so a slow or stuck scraper never holds up a tick. */
#include "benchtop/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchtop/cli.h"
#include "benchtop/outfile.h"
#include "benchtop/xalloc.h"

#define METRICS_CONNECTIONS 4u
#define METRICS_IDLE_S 10u
#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct metrics {
	/* --metrics FILE */
	char *file;
	char *base;                   /* FILE's name inside its directory */
	int dirfd;
	bool written;                 /* FILE is benchtop's now: removed at close */
	bool force;                   /* an existing FILE may be replaced */
	/* --metrics-listen */
	struct MHD_Daemon *d;
	int epfd;
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

/* Read-only: GET (and HEAD) of /metrics; anything else is refused at the
 * first call, before any request body is read (the connection is then
 * closed).  A good request is answered at the second call, once the whole
 * request is in, so that the connection can be kept alive for the next
 * scrape as Prometheus expects. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **state)
{
	static int seen;
	struct metrics *m = cls;
	(void)version, (void)upload;
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
	m->d = MHD_start_daemon(MHD_USE_EPOLL | (v6 ? MHD_USE_IPv6 : 0), (uint16_t)port, NULL, NULL,
	                        on_request, m, MHD_OPTION_LISTEN_SOCKET, fd,
	                        MHD_OPTION_CONNECTION_LIMIT, METRICS_CONNECTIONS,
	                        MHD_OPTION_CONNECTION_TIMEOUT, METRICS_IDLE_S, MHD_OPTION_END);
	const union MHD_DaemonInfo *info = m->d ? MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	if (!info) {
		if (m->d)
			MHD_stop_daemon(m->d);
		else
			close(fd);
		m->d = NULL;
		snprintf(msg, len, "--metrics-listen %s: cannot start the HTTP server on %s", spec, m->addr);
		return -EIO;
	}
	m->epfd = info->epoll_fd;
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
	m->dirfd = m->epfd = -1;
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
	if (m->d)
		MHD_run(m->d);  /* times out idle connections even without traffic */
	return m->file ? write_file(m) : 0;
}

int metrics_fd(const struct metrics *m)
{
	return m && m->d ? m->epfd : -1;
}

int metrics_timeout_ms(const struct metrics *m, int loop_ms)
{
	MHD_UNSIGNED_LONG_LONG to;
	if (!m || !m->d || MHD_get_timeout(m->d, &to) != MHD_YES)
		return loop_ms;
	int ms = to > 60000 ? 60000 : (int)to;
	return loop_ms < 0 || ms < loop_ms ? ms : loop_ms;
}

void metrics_serve(struct metrics *m)
{
	MHD_UNSIGNED_LONG_LONG to;
	if (!m || !m->d)
		return;
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
	if (m->d)
		MHD_stop_daemon(m->d);  /* closes the listening socket too */
	if (m->written && !keep)
		unlinkat(m->dirfd, m->base, 0);
	if (m->dirfd >= 0)
		close(m->dirfd);
	free(m->file);
	free(m->base);
	free(m);
}
