/* metrics.c - what --metrics and --metrics-listen cost per tick, with a
 * snapshot of 2 CPUs x 16 processes (frequency, residency and governor
 * families present, so the exposition is as long as it gets there).
 *
 *   metrics render COUNT   CPU us to render the exposition in memory
 *   metrics file TICKS     CPU us to render and atomically rewrite the file
 *                          (in $TMPDIR, else /tmp)
 *   metrics scrape COUNT   CPU us the serving loop spends per GET /metrics
 *                          asked on one kept-alive connection, as Prometheus
 *                          scrapes (a child process is the client, over
 *                          loopback); benchtop closes the connection after
 *                          each answer, so the next request dials again
 *   metrics scrape-new COUNT  the same with a new connection each time
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchtop/metrics.h"
#include "timing.h"

#define NCPU 2
#define NPROC 16

static const long khz[] = { 800000, 1600000, 2600000 };
static const double secs[] = { 10.5, 3.25, 40.125 };

static size_t residency(void *ctx, int cpu, const long **k, const double **s)
{
	(void)ctx, (void)cpu;
	*k = khz;
	*s = secs;
	return 3;
}

static struct metrics_wl wl[2] = { { "copy", "pipe", "copy engine=pipe procs=3" },
                                   { "write", "", "write bs=128k" } };

static void fill(struct snapshot *s, struct history *h, struct metrics_view *v)
{
	s->t = 100;
	s->dt = 0.5;
	for (int c = 0; c < NCPU; c++) {
		s->cpus[c].id = c;
		s->cpus[c].khz = khz[c];
		snprintf(s->cpus[c].governor, sizeof s->cpus[c].governor, "schedutil");
	}
	s->nproc = NPROC;
	for (int i = 0; i < NPROC; i++) {
		struct proc_sample *p = &s->procs[i];
		p->pid = 10000 + i;
		p->workload = 1 + i % 2;
		snprintf(p->role, sizeof p->role, "%s", i % 3 ? "writer" : "reader");
		p->cpu = i % NCPU;
		p->utime = 1.25 * i;
		p->stime = 0.5 * i;
		p->migrations = (uint64_t)i * 3;
	}
	for (int w = 0; w < 2; w++)
		s->wls[w] = (struct wl_sample){ .id = w + 1, .write_bps = 123456789.5, .bytes = 987654321ull,
		                                .utime = 12.5, .stime = 3.25 };
	snprintf(s->disk.device, sizeof s->disk.device, "vda");
	struct event e = { .t = 1, .kind = EV_PIN };
	history_add_event(h, &e);
	*v = (struct metrics_view){ .snap = s, .wl = wl, .nwl = 2, .have_freq = true, .residency = residency,
	                            .hist = h, .self_cpu_s = 1.5, .disk_read_bytes = 1e6,
	                            .disk_written_bytes = 5e9, .version = "bench" };
}

static int file_cost(int ticks)
{
	char dir[4096], path[4200], msg[512];
	const char *base = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/benchtop-metrics.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/benchtop.prom", dir);
	struct snapshot *s = snapshot_new(NCPU, NPROC, 2);
	struct history *h = history_new(4);
	struct metrics_view v;
	struct metrics *m;
	fill(s, h, &v);
	if (metrics_open(&m, path, NULL, false, msg, sizeof msg)) {
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	metrics_update(m, &v);
	double c0 = timing_self();
	for (int i = 0; i < ticks; i++)
		metrics_update(m, &v);
	double us = (timing_self() - c0) * 1e6 / ticks;
	FILE *fp = fopen(path, "r");
	long size = 0;
	if (fp && !fseek(fp, 0, SEEK_END))
		size = ftell(fp);
	if (fp)
		fclose(fp);
	printf("metrics file: cpus=%d procs=%d ticks=%d bytes=%ld cpu_us_per_write=%.1f\n", NCPU, NPROC,
	       ticks, size, us);
	metrics_close(m, false);
	rmdir(dir);
	snapshot_free(s);
	history_free(h);
	return 0;
}

static int dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a))
		_exit(1);
	return fd;
}

/* One reply on a kept-alive connection: headers, then Content-Length
 * bytes; true when it says the server closes the connection after it
 * (benchtop's does, after every answer). */
static bool read_reply(int fd)
{
	char buf[65536];
	size_t have = 0;
	char *end = NULL;
	while (!end) {
		ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
		if (n <= 0)
			_exit(1);
		have += (size_t)n;
		buf[have] = 0;
		end = strstr(buf, "\r\n\r\n");
	}
	const char *cl = strcasestr(buf, "content-length:");
	size_t want = cl ? strtoul(cl + 15, NULL, 10) : 0, got = have - (size_t)(end + 4 - buf);
	bool closes = strcasestr(buf, "connection: close") != NULL;
	while (got < want) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n <= 0)
			_exit(1);
		got += (size_t)n;
	}
	return closes;
}

static int render_cost(int count)
{
	struct snapshot *s = snapshot_new(NCPU, NPROC, 2);
	struct history *h = history_new(4);
	struct metrics_view v;
	size_t n = 0;
	fill(s, h, &v);
	double c0 = timing_self();
	for (int i = 0; i < count; i++)
		free(metrics_render_mem(&v, i % 2 ? METRICS_OPENMETRICS : METRICS_TEXT, &n));
	printf("metrics render: cpus=%d procs=%d renders=%d bytes=%zu cpu_us_per_render=%.1f\n", NCPU, NPROC,
	       count, n, (timing_self() - c0) * 1e6 / count);
	snapshot_free(s);
	history_free(h);
	return 0;
}

/* The client: COUNT sequential GET /metrics, on one kept-alive
 * connection (as Prometheus scrapes) or on a new connection each. */
static void client(int port, int count, bool keepalive)
{
	char buf[65536];
	int fd = keepalive ? dial(port) : -1;
	for (int i = 0; i < count; i++) {
		if (!keepalive)
			fd = dial(port);
		const char *req = keepalive ? "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" :
		                  "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
		if (write(fd, req, strlen(req)) < 0)
			_exit(1);
		if (keepalive) {
			if (read_reply(fd)) {   /* not kept alive: the next on a new one */
				close(fd);
				fd = dial(port);
			}
			continue;
		}
		while (read(fd, buf, sizeof buf) > 0)
			;
		close(fd);
	}
	_exit(0);
}

static int scrape_cost(int count, bool keepalive)
{
	struct snapshot *s = snapshot_new(NCPU, NPROC, 2);
	struct history *h = history_new(4);
	struct metrics_view v;
	struct metrics *m = NULL;
	char spec[16], msg[512];
	int port = 0;
	fill(s, h, &v);
	for (port = 30000 + getpid() % 20000; port < 65000; port += 13) {
		snprintf(spec, sizeof spec, "%d", port);
		if (!metrics_open(&m, NULL, spec, false, msg, sizeof msg))
			break;
	}
	if (!m) {
		fprintf(stderr, "no free port: %s\n", msg);
		return 1;
	}
	metrics_update(m, &v);
	/* The client's end of a pipe closes when it is done: the loop below
	 * is only the serving loop's own work (poll, MHD_run). */
	int done[2];
	if (pipe(done))
		return 1;
	double c0 = timing_self();
	pid_t kid = fork();
	if (kid == 0) {
		close(done[0]);
		client(port, count, keepalive);
	}
	close(done[1]);
	for (;;) {
		struct pollfd p[2] = { { .fd = metrics_fd(m), .events = POLLIN }, { .fd = done[0], .events = POLLIN } };
		poll(p, 2, metrics_timeout_ms(m, 1000));
		metrics_serve(m);
		if (p[1].revents)
			break;
	}
	int st = 0;
	waitpid(kid, &st, 0);
	close(done[0]);
	double us = (timing_self() - c0) * 1e6 / count;
	printf("metrics scrape (%s): cpus=%d procs=%d scrapes=%d cpu_us_per_scrape=%.1f client=%s\n",
	       keepalive ? "one kept-alive connection" : "a new connection each", NCPU, NPROC, count, us,
	       WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "ok" : "failed");
	metrics_close(m, false);
	snapshot_free(s);
	history_free(h);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "file"))
		return file_cost(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "render"))
		return render_cost(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "scrape"))
		return scrape_cost(atoi(argv[2]), true);
	if (argc >= 3 && !strcmp(argv[1], "scrape-new"))
		return scrape_cost(atoi(argv[2]), false);
	fprintf(stderr, "usage: metrics render COUNT | file TICKS | scrape COUNT | scrape-new COUNT\n");
	return 2;
}
