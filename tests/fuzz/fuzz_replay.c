/* fuzz_replay.c - libFuzzer harness for recordings as --replay and
 * --report read them: the input is the JSON Lines file (a memfd, so it is
 * a regular file), loaded, walked sample by sample, summarised and
 * rendered as SVG and HTML. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchtop/model.h"
#include "benchtop/replay.h"
#include "benchtop/report.h"
#include "recording_input.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recording *rec = load_input(data, size);

	if (!rec)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	for (size_t i = 0; i < recording_nitems(rec); i++) {
		bool ev;
		size_t k;
		recording_item(rec, i, &ev, &k);
		if (ev ? k >= recording_nevents(rec) : k >= recording_nsamples(rec))
			abort();
	}
	for (size_t i = 0; i < recording_nsamples(rec); i++)
		recording_sample(rec, i);
	recording_duration(rec);
	recording_print_summary(rec, UNITS_IEC, devnull);
	report_write(rec, REPORT_SVG, UNITS_SI, "fuzz.jsonl", devnull);
	report_write(rec, REPORT_HTML, UNITS_BITS, "fuzz.jsonl", devnull);
	recording_free(rec);
	return 0;
}
