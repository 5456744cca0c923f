/* fuzz_theme.c - libFuzzer harness for theme files (theme_parse over the
 * built-in theme), and the 8-colour fallback of whatever it produced. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct theme t;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	theme_builtin(&t);
	if (theme_parse(text, "fuzz.theme", &t, err, sizeof err) == 0) {
		for (int r = 0; r < ROLE_COUNT; r++) {
			if (t.fg[r] < -1 || t.fg[r] > 255 || t.bg[r] < -1 || t.bg[r] > 255)
				abort(); /* a colour no terminal has */
			theme_fallback8(t.fg[r]);
			theme_fallback8(t.bg[r]);
		}
	} else if (!err[0]) {
		abort();
	}
	free(text);
	return 0;
}
