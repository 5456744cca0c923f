/* fuzz_json.c - libFuzzer harness for the JSON reader of recordings: parse,
 * walk the whole tree with every lookup, and write every string back with
 * the writer: it reads back the same. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/json.h"

/* s written by the writer, then read: the same string. */
static void string_back(const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	if (!fp)
		abort();
	struct jw w;
	jw_begin(&w, fp);
	jw_str(&w, NULL, s);
	fclose(fp);
	struct json *back = json_parse(text, len, NULL);
	if (!back || strcmp(json_str(back, "?"), s))
		abort();
	json_free(back);
	free(text);
}

static void walk(const struct json *v, int depth)
{
	if (depth > JSON_MAX_DEPTH + 1)
		abort(); /* deeper than the reader allows */
	switch (json_type(v)) {
	case JSON_STRING:
		if (strlen(json_str(v, "")) > json_strlen(v))
			abort();
		string_back(json_str(v, ""));
		break;
	case JSON_OBJECT:
		for (size_t i = 0; i < json_len(v); i++) {
			const char *k = json_key(v, i);
			if (!k)
				abort();
			json_get(v, k);
			walk(json_at(v, i), depth + 1);
		}
		break;
	case JSON_ARRAY:
		for (size_t i = 0; i < json_len(v); i++)
			walk(json_at(v, i), depth + 1);
		if (json_at(v, json_len(v)))
			abort();
		break;
	default:
		json_num(v, 0);
		json_bool(v, false);
		json_is_null(v);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_error err;
	struct json *root = json_parse((const char *)data, size, &err);

	if (!root) {
		if (!err.msg[0] || err.line < 1 || err.column < 1)
			abort(); /* every refusal says where and why */
		return 0;
	}
	walk(root, 0);
	json_free(root);
	return 0;
}
