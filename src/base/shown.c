/* shown.c - control characters of outside text escaped (see shown.h). */
#include "benchtop/shown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void shown_escape(char *s, size_t size)
{
	size_t n = strlen(s), k = 0;
	bool plain = true;
	for (size_t i = 0; i < n && plain; i++)
		plain = (unsigned char)s[i] >= 0x20 && s[i] != 0x7f;
	if (plain || size == 0)
		return;
	char *copy = malloc(n + 1);
	if (!copy) {
		for (size_t i = 0; i < n; i++)   /* no room to escape: never raw */
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
				s[i] = '?';
		return;
	}
	memcpy(copy, s, n + 1);
	for (size_t i = 0; i < n && k + 1 < size; i++) {
		unsigned char c = (unsigned char)copy[i];
		if (c >= 0x20 && c != 0x7f) {
			s[k++] = (char)c;
		} else if (k + 5 < size) {
			snprintf(s + k, size - k, "\\x%02x", c);
			k += 4;
		} else {
			break;
		}
	}
	s[k] = '\0';
	free(copy);
}
