/* listen.c - the --metrics-listen address: "[ADDR:]PORT" checked and
 * turned into a numeric address and a port, with one sentence naming the
 * bad part when it is not one.  No name lookups: a literal, or localhost. */
#include "cli_priv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LISTEN_HINT "use PORT (1-65535, on 127.0.0.1), or ADDR:PORT with ADDR an IPv4 address, " \
	"localhost or [IPv6], e.g. 9101, 0.0.0.0:9101 or [::1]:9101"

int cli_parse_listen(const char *s, char *addr, size_t alen, unsigned *port, char *err, size_t errlen)
{
	const char *colon = s ? strrchr(s, ':') : NULL, *ps = colon ? colon + 1 : s;
	char host[64], *end;
	unsigned char bin[16];
	if (!s || !*s)
		return fail(err, errlen, "empty address for --metrics-listen: %s", LISTEN_HINT);
	size_t hn = colon ? (size_t)(colon - s) : 0;
	if (hn >= sizeof host || (colon && hn == 0))
		return fail(err, errlen, "bad address \"%s\" for --metrics-listen: %s", s, LISTEN_HINT);
	memcpy(host, s, hn);
	host[hn] = 0;
	errno = 0;
	unsigned long p = (*ps >= '0' && *ps <= '9') ? strtoul(ps, &end, 10) : 0;
	if (p < 1 || p > 65535 || errno || *end)
		return fail(err, errlen, "bad port \"%s\" in --metrics-listen \"%s\": %s", ps, s, LISTEN_HINT);
	if (!colon || !strcmp(host, "localhost"))
		snprintf(host, sizeof host, "127.0.0.1");
	if (host[0] == '[' && hn > 2 && host[hn - 1] == ']') {
		memmove(host, host + 1, hn - 2);
		host[hn - 2] = 0;
		if (inet_pton(AF_INET6, host, bin) != 1)
			return fail(err, errlen, "bad IPv6 address \"%s\" in --metrics-listen \"%s\": %s", host, s, LISTEN_HINT);
	} else if (inet_pton(AF_INET, host, bin) != 1) {
		return fail(err, errlen, "bad address \"%s\" in --metrics-listen \"%s\": %s", host, s, LISTEN_HINT);
	}
	if (addr && alen)
		snprintf(addr, alen, "%s", host);
	*port = (unsigned)p;
	return 0;
}

