/* cpufreq_write.c - governor and max-frequency writes, each preceded by
 * the restore journal, and the restore itself. */
#include "cpufreq_impl.h"
#include "benchtop/journal.h"
#include "benchtop/sysfile.h"
#include "benchtop/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- writes ---- */

static int write_text(const char *dir, const char *name, const char *value)
{
	return sysfile_write(dir, name, value);
}

static int write_khz(const char *dir, const char *name, long khz)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", khz);
	return write_text(dir, name, buf);
}

/* The status-line sentence for a refused write. */
static void write_msg(char *msg, size_t len, int rc, const char *what, const char *dir,
                      const char *file)
{
	/* The reason first: a narrow status line must still say why. */
	const char *pol = strrchr(dir, '/');
	pol = pol ? pol + 1 : dir;
	if (rc == -EACCES || rc == -EPERM)
		snprintf(msg, len, "%s are read-only here: run as root (%s: %s/%s in %s)", what,
		         strerror(-rc), pol, file, dir);
	else if (rc == -EROFS)
		snprintf(msg, len, "%s are read-only here (%s): %s/%s in %s", what, strerror(-rc), pol,
		         file, dir);
	else if (rc == -EINVAL)
		snprintf(msg, len, "the kernel refused the %s value (%s: %s in %s)", file, strerror(-rc),
		         pol, dir);
	else
		snprintf(msg, len, "%s: cannot write %s/%s in %s", strerror(-rc), pol, file, dir);
}

int cpufreq_restore_policy(const char *dir, const char *gov, long min_khz, long max_khz,
                           char *msg, size_t len)
{
	char govs[GOVS_LEN], cur[MODEL_GOV_LEN];
	long cur_min = cpufreq_read_khz(dir, "scaling_min_freq");
	long cur_max = cpufreq_read_khz(dir, "scaling_max_freq");
	int rc = 0;

	snprintf(msg, len, "restored %s", dir);
	if (gov && gov[0]) {
		cpufreq_read_name(dir, "scaling_governor", cur, sizeof(cur));
		cpufreq_read_governors(dir, govs, sizeof(govs));
		if (strcmp(cur, gov) != 0 && !cpufreq_in_list(govs, gov)) {
			snprintf(msg, len, "cannot restore governor %s in %s: it is not among the "
			         "available governors (%s)", gov, dir, govs[0] ? govs : "none");
			return -EINVAL;
		}
		if (strcmp(cur, gov) != 0 && (rc = write_text(dir, "scaling_governor", gov)) < 0) {
			write_msg(msg, len, rc, "governors", dir, "scaling_governor");
			return rc;
		}
	}
	/* Raise the max before the min (and lower the min before the max), so
	 * that min <= max holds after each write. */
	bool min_first = max_khz > 0 && cur_min > 0 && max_khz < cur_min;
	for (int step = 0; step < 2; step++) {
		bool do_min = (step == 0) == min_first;
		long want = do_min ? min_khz : max_khz, have = do_min ? cur_min : cur_max;
		const char *file = do_min ? "scaling_min_freq" : "scaling_max_freq";
		if (want <= 0 || want == have)
			continue;
		if ((rc = write_khz(dir, file, want)) < 0) {
			write_msg(msg, len, rc, "frequency limits", dir, file);
			return rc;
		}
	}
	return 0;
}

/* Before the first change: every policy's original governor and limits
 * go to the journal, so a killed benchtop can still be undone. */
static int ensure_journal(struct cpufreq *cf, char *msg, size_t len)
{
	struct journal j = { .pid = getpid() };
	char dir[PATH_MAX];
	size_t rlen = strlen(cf->root);
	static int seq;
	int rc;

	if (cf->journaled)
		return 0;
	rc = journal_dir(cf->journal_fallback[0] ? cf->journal_fallback : NULL, dir, sizeof(dir));
	if (rc == 0) {
		j.starttime = journal_proc_starttime(j.pid);
		journal_boot_id(j.boot_id, sizeof(j.boot_id));
		if (!realpath(cf->root[0] ? cf->root : "/", j.sysfs_root))
			snprintf(j.sysfs_root, sizeof(j.sysfs_root), "%s", cf->root[0] ? cf->root : "/");
		j.pol = xcalloc((size_t)cf->npol + 1, sizeof(*j.pol));
		rc = j.pol ? 0 : -ENOMEM;
	}
	for (int i = 0; rc == 0 && i < cf->npol; i++) {
		struct policy *p = &cf->pol[i];
		cpufreq_read_state(cf, p);
		struct journal_policy *jp = &j.pol[j.n++];
		snprintf(jp->dir, sizeof(jp->dir), "%s", p->dir + rlen + 1);
		snprintf(jp->governor, sizeof(jp->governor), "%s", p->governor);
		jp->min_khz = p->min;
		jp->max_khz = p->max;
	}
	/* Another benchtop running on this tree may have changed the policies
	 * already: what is read now is then its setting, not the original.
	 * Its journal holds the true originals, so take them from there; then
	 * whichever benchtop exits last leaves the machine as it was.  The
	 * first to exit restores the true originals too, which undoes the
	 * other one's change early - accepted: the alternative leaves the
	 * machine changed for good.  (Two benchtops journaling at the very
	 * same moment can still miss each other.)  Failing to look is no
	 * reason to refuse the change: the values read now stand. */
	if (rc == 0)
		journal_live_originals(j.sysfs_root, cf->journal_fallback[0] ? cf->journal_fallback : NULL,
		                       j.pol, j.n);
	for (int i = 0; rc == 0 && i < cf->npol; i++) {
		struct policy *p = &cf->pol[i];
		const struct journal_policy *jp = &j.pol[i];
		snprintf(p->orig_gov, sizeof(p->orig_gov), "%s", jp->governor);
		p->orig_min = jp->min_khz;
		p->orig_max = jp->max_khz;
		p->saved = true;
	}
	if (rc == 0) {
		snprintf(cf->journal_path, sizeof(cf->journal_path), seq ? "%s/journal.%d.%d" : "%s/journal.%d",
		         dir, (int)j.pid, seq);
		rc = journal_save(cf->journal_path, &j);
	}
	free(j.pol);
	if (rc < 0) {
		snprintf(msg, len, "nothing changed: the restore journal cannot be written (%s: %s)",
		         rc == -ENOMEM ? "memory" : cf->journal_path[0] ? cf->journal_path : dir, strerror(-rc));
		return rc;
	}
	seq++;
	cf->journaled = true;
	return 0;
}

/* Why a frequency key can do nothing here, or 0. */
static int check_policies(const struct cpufreq *cf, int p, char *msg, size_t len)
{
	if (cf->npol == 0) {
		snprintf(msg, len, "no cpufreq policies to change: %s",
		         cf->reason[0] ? cf->reason : "this tree has no cpufreq directory");
		return -ENODEV;
	}
	if (p >= cf->npol) {
		snprintf(msg, len, "there is no policy %d: this machine has policies 0-%d", p, cf->npol - 1);
		return -EINVAL;
	}
	return 0;
}

static void targets_name(const struct cpufreq *cf, int p, char *buf, size_t len)
{
	if (p < 0 || cf->npol == 1)
		snprintf(buf, len, "all CPUs");
	else
		snprintf(buf, len, "CPUs %s", cf->pol[p].cpus);
}

static int gov_refused(const struct cpufreq *cf, int p, const char *gov, char *msg, size_t len)
{
	for (int i = p < 0 ? 0 : p; i < (p < 0 ? cf->npol : p + 1); i++) {
		if (gov && cpufreq_in_list(cf->pol[i].governors, gov))
			continue;
		snprintf(msg, len, "governor '%s' is not available on CPUs %s: choose from %s",
		         gov ? gov : "", cf->pol[i].cpus,
		         cf->pol[i].governors[0] ? cf->pol[i].governors : "(none listed)");
		return -EINVAL;
	}
	return 0;
}

int cpufreq_set_governor(struct cpufreq *cf, int p, const char *gov, char *msg, size_t len)
{
	char who[MODEL_CPUS_LEN + 16];
	int rc = check_policies(cf, p, msg, len);

	if (rc == 0)
		rc = gov_refused(cf, p, gov, msg, len);
	if (rc == 0)
		rc = ensure_journal(cf, msg, len);
	for (int i = p < 0 ? 0 : p; rc == 0 && i < (p < 0 ? cf->npol : p + 1); i++) {
		struct policy *pol = &cf->pol[i];
		cpufreq_read_name(pol->dir, "scaling_governor", pol->governor, sizeof(pol->governor));
		if (strcmp(pol->governor, gov) == 0)
			continue;
		pol->changed = true; /* even a failed write may have half-happened */
		rc = write_text(pol->dir, "scaling_governor", gov);
		if (rc < 0)
			write_msg(msg, len, rc, "governors", pol->dir, "scaling_governor");
		cpufreq_read_name(pol->dir, "scaling_governor", pol->governor, sizeof(pol->governor));
	}
	if (rc == 0) {
		targets_name(cf, p, who, sizeof(who));
		snprintf(msg, len, "governor %s on %s", gov, who);
	}
	return rc;
}

static int cap_refused(const struct cpufreq *cf, int p, long khz, char *msg, size_t len)
{
	for (int i = p < 0 ? 0 : p; i < (p < 0 ? cf->npol : p + 1); i++) {
		const struct policy *pol = &cf->pol[i];
		long lo = pol->min > 0 ? pol->min : pol->cpuinfo_min;
		if ((lo > 0 && khz < lo) || (pol->cpuinfo_max > 0 && khz > pol->cpuinfo_max)) {
			snprintf(msg, len, "cannot cap CPUs %s at %ld kHz: choose from %ld to %ld kHz",
			         pol->cpus, khz, lo, pol->cpuinfo_max);
			return -EINVAL;
		}
	}
	return 0;
}

/* Lift the cap: back to the saved originals. */
static int lift_cap(struct cpufreq *cf, int p, char *msg, size_t len)
{
	int rc = 0, lifted = 0;

	for (int i = p < 0 ? 0 : p; rc == 0 && i < (p < 0 ? cf->npol : p + 1); i++) {
		struct policy *pol = &cf->pol[i];
		pol->max = cpufreq_read_khz(pol->dir, "scaling_max_freq");
		if (!pol->saved || pol->orig_max <= 0 || pol->max == pol->orig_max)
			continue;
		rc = write_khz(pol->dir, "scaling_max_freq", pol->orig_max);
		if (rc < 0)
			write_msg(msg, len, rc, "frequency limits", pol->dir, "scaling_max_freq");
		else
			lifted++;
		pol->max = cpufreq_read_khz(pol->dir, "scaling_max_freq");
	}
	if (rc == 0)
		snprintf(msg, len, lifted ? "frequency cap lifted" : "no frequency cap to lift");
	return rc;
}

int cpufreq_set_maxfreq(struct cpufreq *cf, int p, long khz, char *msg, size_t len)
{
	char who[MODEL_CPUS_LEN + 16];
	int rc = check_policies(cf, p, msg, len);

	if (rc == 0 && khz <= 0)
		return lift_cap(cf, p, msg, len);
	if (rc == 0)
		rc = cap_refused(cf, p, khz, msg, len);
	if (rc == 0)
		rc = ensure_journal(cf, msg, len);
	for (int i = p < 0 ? 0 : p; rc == 0 && i < (p < 0 ? cf->npol : p + 1); i++) {
		struct policy *pol = &cf->pol[i];
		pol->changed = true;
		rc = write_khz(pol->dir, "scaling_max_freq", khz);
		if (rc < 0)
			write_msg(msg, len, rc, "frequency limits", pol->dir, "scaling_max_freq");
		pol->max = cpufreq_read_khz(pol->dir, "scaling_max_freq");
	}
	if (rc == 0) {
		targets_name(cf, p, who, sizeof(who));
		snprintf(msg, len, "max frequency %.2f GHz on %s", (double)khz / 1e6, who);
	}
	return rc;
}

/* ---- restore ---- */

int cpufreq_restore_report(struct cpufreq *cf, FILE *report)
{
	int first = 0;

	for (int i = 0; i < cf->npol; i++) {
		struct policy *p = &cf->pol[i];
		char msg[PATH_MAX + 256];
		int rc;
		if (!p->changed || !p->saved)
			continue;
		rc = cpufreq_restore_policy(p->dir, p->orig_gov, p->orig_min, p->orig_max, msg, sizeof(msg));
		if (rc < 0) {
			if (report)
				fprintf(report, "benchtop: %s\n", msg);
			if (first == 0)
				first = rc;
			continue;
		}
		p->changed = false;
		cpufreq_read_state(cf, p);
	}
	if (first == 0 && cf->journaled) {
		unlink(cf->journal_path);
		cf->journaled = false;
	} else if (first < 0 && report && cf->journaled) {
		fprintf(report, "benchtop: the journal %s is kept: `benchtop --restore` tries again\n",
		        cf->journal_path);
	}
	return first;
}

void cpufreq_restore(struct cpufreq *cf)
{
	if (cf)
		cpufreq_restore_report(cf, NULL);
}
