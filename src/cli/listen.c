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

/* Split s into host and port text: "[V6]:PORT", "ADDR:PORT" or "PORT".
 * 0, or -1 with err naming the whole word s. */
static int split(const char *s, char *host, size_t hlen, const char **ps, char *err, size_t errlen)
{
	const char *colon = strrchr(s, ':'), *word = s;
	size_t hn;
	host[0] = 0;
	*ps = s;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || close[1] != ':')
			return fail(err, errlen, "bad address \"%s\" for --metrics-listen: an IPv6 address is "
			            "written in brackets and followed by :PORT; %s", s, LISTEN_HINT);
		hn = (size_t)(close - s - 1);
		*ps = close + 2;
		s++;
	} else if (colon) {
		hn = (size_t)(colon - s);
		*ps = colon + 1;
		if (memchr(s, ':', hn))
			return fail(err, errlen, "bad address \"%s\" for --metrics-listen: an IPv6 address "
			            "goes in brackets; %s", s, LISTEN_HINT);
	} else {
		return 0;
	}
	if (hn == 0 || hn >= hlen)
		return fail(err, errlen, "bad address \"%s\" for --metrics-listen: %s", word, LISTEN_HINT);
	memcpy(host, s, hn);
	host[hn] = 0;
	return 0;
}

int cli_parse_listen(const char *s, char *addr, size_t alen, unsigned *port, char *err, size_t errlen)
{
	char host[64], *end;
	const char *ps;
	unsigned char bin[16];
	if (!s || !*s)
		return fail(err, errlen, "empty address for --metrics-listen: %s", LISTEN_HINT);
	if (split(s, host, sizeof host, &ps, err, errlen))
		return -1;
	bool v6 = s[0] == '[';
	errno = 0;
	unsigned long p = (*ps >= '0' && *ps <= '9') ? strtoul(ps, &end, 10) : 0;
	if (p < 1 || p > 65535 || errno || *end)
		return fail(err, errlen, "bad port \"%s\" in --metrics-listen \"%s\": %s", ps, s, LISTEN_HINT);
	if (!host[0] || !strcmp(host, "localhost"))
		snprintf(host, sizeof host, "127.0.0.1");
	if (inet_pton(v6 ? AF_INET6 : AF_INET, host, bin) != 1)
		return fail(err, errlen, "bad address \"%s\" for --metrics-listen (\"%s\" is not an %s "
		            "address): %s", s, host, v6 ? "IPv6" : "IPv4", LISTEN_HINT);
	if (addr && alen)
		snprintf(addr, alen, "%s", host);
	*port = (unsigned)p;
	return 0;
}
