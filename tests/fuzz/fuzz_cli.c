/* fuzz_cli.c - libFuzzer harness for the command line and spec parsers.
 * The input is split into argv words on NUL or newline; each word is its
 * own allocation so ASan sees any read past its end.  Every parser is run
 * and everything freed, so a leak is a finding too. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/cli.h"
#include "benchtop/units.h"

#define MAX_WORDS 64

static int split(const uint8_t *data, size_t size, char **argv)
{
	int argc = 0;
	size_t start = 0;
	argv[argc++] = strdup("benchtop");
	for (size_t i = 0; i <= size && argc < MAX_WORDS; i++) {
		if (i < size && data[i] != 0 && data[i] != '\n')
			continue;
		char *w = malloc(i - start + 1);
		if (!w)
			abort();
		memcpy(w, data + start, i - start);
		w[i - start] = 0;
		argv[argc++] = w;
		start = i + 1;
	}
	argv[argc] = NULL;
	return argc;
}

/* The single-value parsers on one word. */
static void scalars(const char *w)
{
	char err[CLI_ERR_MAX], buf[32];
	uint64_t size;
	double t;
	struct wl_spec spec;
	struct at_action at;
	unsigned char mask[64];

	if (cli_parse_size(w, &size, "fuzz", err, sizeof err) == 0) {
		units_fmt_bytes(UNITS_IEC, size, buf, sizeof buf);
		units_fmt_rate(UNITS_BITS, (double)size, buf, sizeof buf);
	}
	if (cli_parse_time(w, &t, "fuzz", err, sizeof err) == 0)
		units_fmt_rate(UNITS_SI, t, buf, sizeof buf);
	if (cli_parse_workload(w, &spec, err, sizeof err) == 0)
		cli_free_workload(&spec);
	if (cli_parse_at(w, &at, err, sizeof err) == 0)
		free(at.arg);
	cli_parse_cpulist(w, mask, (int)sizeof mask, err, sizeof err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_WORDS + 1], err[CLI_ERR_MAX];
	struct run r;
	int argc = split(data, size, argv);

	if (cli_parse(argc, argv, &r, err, sizeof err) == 0)
		cli_free(&r);
	else if (strlen(err) == 0)
		abort();  /* every failure must say why */
	scalars(argv[1]);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return 0;
}
