/* fuzz_config.c - libFuzzer harness for the config file
 * ($XDG_CONFIG_HOME/benchtop/config): the input is the file's text; what
 * parses is merged with a command line and parsed as the command line is. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/cli.h"
#include "benchtop/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[CLI_ERR_MAX];
	struct config c;

	/* a copy of its own, so ASan sees a read past the end */
	char *text = malloc(size ? size : 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	if (config_parse_text(text, size, "fuzz.config", &c, err, sizeof err) != 0) {
		if (!err[0])
			abort(); /* every refusal says where and why */
		free(text);
		return 0;
	}
	char *argv[] = { "benchtop", "-b", "-t", "1", NULL }, **nargv = NULL;
	int nargc = 0;
	if (config_merge_argv(&c, 4, argv, &nargc, &nargv) == 0) {
		struct run r;
		if (nargc < 4)
			abort(); /* the command line's words are all there */
		if (cli_parse(nargc, nargv, &r, err, sizeof err) == 0)
			cli_free(&r);
		free(nargv);
	}
	config_free(&c);
	free(text);
	return 0;
}
