/* fuzz_preset.c - libFuzzer harness for preset files: the parser, the
 * word splitter and the merge of each run with a command line.  The input
 * is the file's text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/preset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct preset p;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	if (preset_parse(text, "fuzz.preset", &p, err, sizeof err) == 0) {
		char *argv[] = { "benchtop", "--preset", "fuzz", "-b", NULL };
		for (int k = 0; k < p.nruns; k++) {
			struct run r;
			if (preset_merge(&p, k, "fuzz", 4, argv, &r, err, sizeof err) == 0)
				cli_free(&r);
		}
	} else if (!err[0]) {
		abort(); /* every refusal says why */
	}
	preset_free(&p);
	/* the splitter on the whole text as one value */
	int argc;
	char **words;
	if (preset_split(text, &argc, &words, err, sizeof err) == 0)
		preset_free_words(words);
	free(text);
	return 0;
}
