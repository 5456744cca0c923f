/* fuzz_metrics_http.c - libFuzzer harness for the /metrics HTTP handler:
 * the input is what a client sends on one connection to
 * --metrics-listen 127.0.0.1:PORT (a free port) (served from this thread as benchtop's
 * loop does); the answer is read to the end and dropped.  The listener
 * holds the figures of a small snapshot, so every family is rendered. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "benchtop/metrics.h"
#include "benchtop/model.h"

static struct metrics *m;
static struct sockaddr_in addr;
static struct snapshot *snap;
static struct metrics_wl wl[1] = { { "copy", "pipe", "copy engine=pipe procs=1" } };
static struct metrics_view view;

static void start(void)
{
	char msg[256], listen[32];
	/* a free port of the loopback (0 is refused, as on the command line) */
	for (int i = 0; !m && i < 200; i++) {
		snprintf(listen, sizeof listen, "127.0.0.1:%d", 20000 + (getpid() * 7 + i * 131) % 40000);
		if (metrics_open(&m, NULL, listen, false, msg, sizeof msg) != 0)
			m = NULL;
	}
	if (!m) {
		fprintf(stderr, "fuzz_metrics_http: %s\n", msg);
		abort();
	}
	const char *a = metrics_address(m), *colon = strrchr(a, ':');
	if (!colon)
		abort();
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)atoi(colon + 1));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	snap = snapshot_new(2, 1, 1);
	view.snap = snap;
	view.wl = wl;
	view.nwl = 1;
	view.self_cpu_s = 1.5;
	view.disk_read_bytes = view.disk_written_bytes = -1;
	view.version = "fuzz";
	metrics_update(m, &view);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!m)
		start();
	int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c < 0)
		abort();
	if (connect(c, (struct sockaddr *)&addr, sizeof addr) != 0 && errno != EINPROGRESS)
		abort();
	size_t sent = 0;
	bool shut = false;
	char buf[65536];
	/* served from this thread: a bounded number of passes, each a
	 * short poll, as benchtop's loop would wake for them */
	for (int pass = 0; pass < 200; pass++) {
		metrics_serve(m);
		if (sent < size) {
			ssize_t w = send(c, data + sent, size - sent, MSG_NOSIGNAL);
			if (w > 0)
				sent += (size_t)w;
			else if (w < 0 && errno != EAGAIN)
				break;
		} else if (!shut) {
			shutdown(c, SHUT_WR);
			shut = true;
		}
		struct pollfd both[2] = { { c, POLLIN, 0 }, { metrics_fd(m), POLLIN, 0 } };
		poll(both, 2, 2);
		if (both[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t r = recv(c, buf, sizeof buf, 0);
			if (r == 0 || (r < 0 && errno != EAGAIN))
				break;
		}
	}
	close(c);
	metrics_serve(m);
	return 0;
}
