/* study_net.c - netwrite: writes that come from the network.  The same
 * file written and then rewritten in place from four sources - local
 * writes of 8192 and of 5000 bytes, a loopback TCP stream written as each
 * recv() returns it, and the same stream gathered into 8192-byte writes -
 * one copy and five at once, in aligntest's layout.  A socket hands over
 * what its segments add up to (multiples of the ~1448-byte payload, not of
 * the page), so the rewrite of a file that has left the cache becomes a
 * read-modify-write of nearly every page, as the odd local bs does. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "studies.h"

#define NET_MSS 1448
#define NET_ALIGN 8192

int study_netwrite(struct exp *e, struct st_table *t)
{
	uint64_t size;
	struct acols k;
	char sz[32], what[200], spec[PATH_MAX + 160], means[4][48] = { "", "", "", "" };
	static const char *const labels[] = { "local bs 8192", "local bs 5000", "network", "network aligned" };
	static const int jobs[] = { 1, 5 };
	int status = study_size(e, "netwrite", 128 * MIB, &size);
	if (status || (status = exp_scratch(e)))
		return status;
	study_size_text(size, sz, sizeof sz);
	snprintf(what, sizeof what, "a %s file written, then rewritten in place, from local writes and from a "
	         "loopback TCP stream (mss %d)", sz, NET_MSS);
	align_table(e, t, &k, "netwrite", what, true);
	for (int j = 0; j < 2 && !status && !e->stop; j++)
		for (int s = 0; s < 4 && !status && !e->stop; s++) {
			unsigned long long n = (unsigned long long)size;
			if (s < 2)
				snprintf(spec, sizeof spec, "write:path=%s,pattern=rewrite,bs=%d,size=%llu,jobs=%d",
				         e->scratch, s == 0 ? 8192 : 5000, n, jobs[j]);
			else
				snprintf(spec, sizeof spec, "net:path=%s,pattern=rewrite,mss=%d,align=%s,size=%llu,jobs=%d",
				         e->scratch, NET_MSS, s == 3 ? "8192" : "none", n, jobs[j]);
			struct align_case c = { labels[s], spec, 0, jobs[j], size };
			double per;
			status = align_row(e, t, &k, &c, &per);
			if (isfinite(per))
				snprintf(means[s] + strlen(means[s]), sizeof means[s] - strlen(means[s]), "%s%.0f",
				         means[s][0] ? " and " : "", per);
		}
	st_note(t, "mean bytes per write call (write phase, 1 copy and 5 copies): local bs 8192 %s; local bs 5000 %s; "
	        "network %s; network aligned %s", means[0][0] ? means[0] : "-", means[1][0] ? means[1] : "-",
	        means[2][0] ? means[2] : "-", means[3][0] ? means[3] : "-");
	st_note(t, "network: a sender streams the file over 127.0.0.1 (TCP_MAXSEG %d, TCP_NODELAY) and the receiver "
	        "writes what each recv() returns; network aligned gathers it into %d-byte writes first; "
	        "the bytes are counted once, as written", NET_MSS, NET_ALIGN);
	st_note(t, "factor = rewrite s / write s; both include the flush; before the rewrite each file is flushed and "
	        "evicted (fdatasync + posix_fadvise DONTNEED), so writes that are not whole pages read each page first");
	st_note(t, "from disk: bytes the test read from the disk per byte rewritten");
	return status;
}
