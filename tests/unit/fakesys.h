/* fakesys.h - the fake cpufreq trees of tests/fakesys.sh, built in
 * process for unit tests (no shell, no process per file).  The options
 * are the script's, in one string: "--cpus N", "--layout policy|percpu",
 * "--per-policy K", "--governors 'a b'", "--governor NAME", "--freqs
 * 'f1 f2'", "--driver NAME", "--no-stats", "--junk".  The files and their contents
 * are the script's too; a test that changes one keeps both in step. */
#ifndef BENCHTOP_TESTS_FAKESYS_H
#define BENCHTOP_TESTS_FAKESYS_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fakesys_opts {
	int cpus, per, stats, percpu, junk;
	char govs[256], gov[64], freqs[256], driver[64];
};

/* The next word of *s (a quoted word may hold spaces) into w. */
static int fakesys_word(const char **s, char *w, size_t len)
{
	const char *p = *s;
	size_t n = 0;
	while (*p == ' ')
		p++;
	if (!*p)
		return 0;
	char q = (*p == '\'' || *p == '"') ? *p++ : 0;
	while (*p && (q ? *p != q : *p != ' ')) {
		if (n + 1 < len)
			w[n++] = *p;
		p++;
	}
	if (q && *p)
		p++;
	w[n] = '\0';
	*s = p;
	return 1;
}

static int fakesys_parse(const char *args, struct fakesys_opts *o)
{
	char w[256], v[256];
	*o = (struct fakesys_opts){ .cpus = 2, .per = 1, .stats = 1 };
	snprintf(o->govs, sizeof o->govs, "performance powersave ondemand schedutil");
	snprintf(o->freqs, sizeof o->freqs, "800000 1600000 2600000");
	snprintf(o->driver, sizeof o->driver, "acpi-cpufreq");
	while (fakesys_word(&args, w, sizeof w)) {
		if (!strcmp(w, "--no-stats") || !strcmp(w, "--junk")) {
			if (w[2] == 'n')
				o->stats = 0;
			else
				o->junk = 1;
			continue;
		}
		if (!fakesys_word(&args, v, sizeof v))
			return -EINVAL;
		if (!strcmp(w, "--cpus"))
			o->cpus = atoi(v);
		else if (!strcmp(w, "--per-policy"))
			o->per = atoi(v);
		else if (!strcmp(w, "--layout") && (!strcmp(v, "policy") || !strcmp(v, "percpu")))
			o->percpu = !strcmp(v, "percpu");
		else if (!strcmp(w, "--governors"))
			snprintf(o->govs, sizeof o->govs, "%s", v);
		else if (!strcmp(w, "--governor"))
			snprintf(o->gov, sizeof o->gov, "%s", v);
		else if (!strcmp(w, "--freqs"))
			snprintf(o->freqs, sizeof o->freqs, "%s", v);
		else if (!strcmp(w, "--driver"))
			snprintf(o->driver, sizeof o->driver, "%s", v);
		else
			return -EINVAL;
	}
	if (!o->gov[0]) {
		char padded[260];
		snprintf(padded, sizeof padded, " %s ", o->govs);
		if (strstr(padded, " ondemand "))
			snprintf(o->gov, sizeof o->gov, "ondemand");
		else
			snprintf(o->gov, sizeof o->gov, "%.*s", (int)strcspn(o->govs, " "), o->govs);
	}
	return o->cpus > 0 && o->per > 0 ? 0 : -EINVAL;
}

static int fakesys_put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	if (!fp)
		return -errno;
	fputs(text, fp);
	return fclose(fp) ? -errno : 0;
}

/* mkdir -p */
static int fakesys_mkdirs(const char *dir)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", dir);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static int fakesys_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Junk of a different kind in every file of d, then of d/stats, in name
 * order (the script's junkify): binary, negative, huge, words. */
static int fakesys_junk(const char *d, int *i)
{
	static const char *kinds[] = { "", "-5", "99999999999999999999", "garbage here", "\x01\x02\xff",
	                               "nan", "0x10", " 12 34", "800000 x\n1600000", "performance\tpowersave" };
	struct dirent **names;
	int n = scandir(d, &names, NULL, NULL), rc = 0;
	if (n < 0)
		return -errno;
	qsort(names, (size_t)n, sizeof *names, fakesys_cmp);
	for (int k = 0; k < n; k++) {
		char path[PATH_MAX + 300];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", d, names[k]->d_name);
		if (rc == 0 && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			rc = fakesys_put(d, names[k]->d_name, kinds[(*i)++ % 10]);
		free(names[k]);
	}
	free(names);
	return rc;
}

/* One policy directory's files (the script's fill). */
static int fakesys_fill(const char *d, const char *list, const struct fakesys_opts *o)
{
	char line[320], fmin[32] = "0", fmax[32] = "0", fmid[32] = "0", f[16][32];
	int nf = 0, rc = fakesys_mkdirs(d);
	for (const char *p = o->freqs; rc == 0 && nf < 16 && fakesys_word(&p, f[nf], sizeof f[0]);)
		nf++;
	if (nf) {
		snprintf(fmin, sizeof fmin, "%s\n", f[0]);
		snprintf(fmax, sizeof fmax, "%s\n", f[nf - 1]);
		snprintf(fmid, sizeof fmid, "%s\n", f[nf / 2]);
	}
	const struct { const char *name, *text; } files[] = {
		{ "affected_cpus", list }, { "related_cpus", list },
		{ "scaling_available_governors", o->govs }, { "scaling_governor", o->gov },
		{ "scaling_available_frequencies", o->freqs }, { "scaling_driver", o->driver },
		{ "cpuinfo_min_freq", fmin }, { "cpuinfo_max_freq", fmax },
		{ "scaling_min_freq", fmin }, { "scaling_max_freq", fmax },
		{ "scaling_cur_freq", fmid }, { "scaling_setspeed", "<unsupported>" },
	};
	for (size_t i = 0; rc == 0 && i < sizeof files / sizeof *files; i++) {
		snprintf(line, sizeof line, "%s", files[i].text);
		if (!strchr(line, '\n'))
			strncat(line, "\n", sizeof line - strlen(line) - 1);
		rc = fakesys_put(d, files[i].name, line);
	}
	if (rc == 0 && o->stats) {
		char sd[PATH_MAX], tis[16 * 40] = "";
		snprintf(sd, sizeof sd, "%s/stats", d);
		rc = fakesys_mkdirs(sd);
		for (int i = 0; i < nf; i++)
			snprintf(tis + strlen(tis), sizeof tis - strlen(tis), "%s 0\n", f[i]);
		if (rc == 0)
			rc = fakesys_put(sd, "time_in_state", tis);
		if (rc == 0)
			rc = fakesys_put(sd, "total_trans", "0\n");
		if (rc == 0)
			rc = fakesys_put(sd, "reset", "\n");
	}
	if (rc == 0 && o->junk) {
		char sd[PATH_MAX];
		int i = 0;
		snprintf(sd, sizeof sd, "%s/stats", d);
		rc = fakesys_junk(d, &i);
		if (rc == 0 && o->stats)
			rc = fakesys_junk(sd, &i);
	}
	return rc;
}

/* Build the tree of args under root: 0 or -errno. */
static int fakesys_build(const char *root, const char *args)
{
	struct fakesys_opts o;
	char base[PATH_MAX], dir[PATH_MAX + 64], link[PATH_MAX + 64], target[64], list[1024];
	int rc = fakesys_parse(args, &o);
	snprintf(base, sizeof base, "%s/devices/system/cpu", root);
	if (rc == 0)
		rc = fakesys_mkdirs(base);
	for (int c = 0; rc == 0 && c < o.cpus; c += o.per) {
		list[0] = '\0';
		for (int m = c; m < c + o.per && m < o.cpus; m++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", m > c ? " " : "", m);
		for (int m = c; rc == 0 && m < c + o.per && m < o.cpus; m++) {
			if (o.percpu) {
				snprintf(dir, sizeof dir, "%s/cpu%d/cpufreq", base, m);
				rc = fakesys_fill(dir, list, &o);
				continue;
			}
			if (m == c) {
				snprintf(dir, sizeof dir, "%s/cpufreq/policy%d", base, c);
				rc = fakesys_fill(dir, list, &o);
			}
			snprintf(dir, sizeof dir, "%s/cpu%d", base, m);
			snprintf(link, sizeof link, "%s/cpufreq", dir);
			snprintf(target, sizeof target, "../cpufreq/policy%d", c);
			if (rc == 0)
				rc = fakesys_mkdirs(dir);
			if (rc == 0 && symlink(target, link) < 0)
				rc = -errno;
		}
	}
	snprintf(list, sizeof list, "0-%d\n", o.cpus - 1);
	const char *ranges[] = { "online", "possible", "present" };
	for (size_t i = 0; rc == 0 && i < 3; i++)
		rc = fakesys_put(base, ranges[i], list);
	return rc;
}

#endif
