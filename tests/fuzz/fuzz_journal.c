/* fuzz_journal.c - libFuzzer harness for run journals: what journal_parse
 * accepts is a journal --restore may act on, so everything it lets
 * through must satisfy the rules the restore side relies on, and
 * formatting it must give text that parses to the same journal. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/journal.h"

static void check(const struct journal *j)
{
	if (j->pid < 2)
		abort();
	for (size_t i = 0; i < j->n; i++) {
		const struct journal_policy *p = &j->pol[i];
		if (p->root < 0 || (size_t)p->root >= j->nroots || !journal_clean_path(p->dir, false))
			abort();
		if (p->governor[0] && !journal_governor_name(p->governor))
			abort();
		if (p->min_khz == 0 || p->min_khz < -1 || p->max_khz == 0 || p->max_khz < -1)
			abort();
	}
	for (size_t i = 0; i < j->nscratch; i++)
		if (!journal_clean_path(j->scratch[i], true))
			abort();
	for (size_t i = 0; i < j->ncgroup; i++)
		if (!journal_clean_path(j->cgroup[i], true))
			abort();
	for (size_t i = 0; i < j->npgid; i++)
		if (j->pgid[i].pid < 2)
			abort();
	for (size_t i = 0; i < j->npaused; i++)
		if (j->paused[i].pid < 2)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal j, back;
	char *text = NULL;
	size_t len = 0;

	if (journal_parse((const char *)data, size, &j) != 0)
		return 0;
	check(&j);
	if (journal_format(&j, &text, &len) != 0)
		abort();
	if (journal_parse(text, len, &back) != 0)
		abort(); /* what benchtop writes it must read */
	if (back.n != j.n || back.nscratch != j.nscratch || back.npgid != j.npgid ||
	    back.ncgroup != j.ncgroup || back.npaused != j.npaused || back.pid != j.pid)
		abort();
	for (size_t i = 0; i < j.nscratch; i++)
		if (strcmp(back.scratch[i], j.scratch[i]) != 0)
			abort();
	free(text);
	journal_free(&back);
	journal_free(&j);
	return 0;
}
