/* action.c - what keys and --at entries do: placement, governors, markers,
 * pause, stop, restart, view settings.  Each change of the machine or the
 * run becomes an event (a marker on the graph, a record, a new phase); the
 * result, or why it could not be done, goes to the status line. */
#include "benchtop/app.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/affinity.h"
#include "benchtop/cpufreq.h"
#include "benchtop/cpulist.h"
#include "benchtop/placement.h"
#include "benchtop/units.h"
#include "benchtop/journal.h"
#include "benchtop/sample.h"
#include "benchtop/workload.h"
#include "benchtop/xalloc.h"


static const struct proc_sample *selected_proc(struct app *a)
{
	const struct snapshot *s = history_last(a->hist);
	if (!s || s->nproc == 0)
		return NULL;
	view_clamp(&a->vs, s->nproc);
	const struct proc_sample *p = &s->procs[a->vs.selected];
	/* A process that has ended (a command's earlier run under --loop,
	 * kept for its totals) stands for its role: the action is on the
	 * process now in its place. */
	const char *slot = p->slot[0] ? p->slot : p->role;
	for (int i = 0; !p->alive && i < s->nproc; i++) {
		const struct proc_sample *q = &s->procs[i];
		if (q->alive && q->workload == p->workload && !strcmp(q->slot[0] ? q->slot : q->role, slot))
			return q;
	}
	return p;
}

/* The live process pid of the newest sample (the affinity dialog's), else
 * the selected one. */
static const struct proc_sample *proc_of(struct app *a, pid_t pid)
{
	const struct snapshot *s = history_last(a->hist);
	for (int i = 0; s && i < s->nproc; i++)
		if (s->procs[i].pid == pid && s->procs[i].alive)
			return &s->procs[i];
	return selected_proc(a);
}

/* The slot a process plays in its workload: placement rules are on it. */
static const char *slot_of(const struct proc_sample *p)
{
	return p->slot[0] ? p->slot : p->role;
}

/* The CPU a process is allowed on alone, or -1. */
static int single_cpu_of(struct app *a, const struct proc_sample *p)
{
	unsigned char *m = xcalloc((size_t)a->ncpu, 1);
	int cpu = -1;
	if (cpulist_parse(p->allowed, m, a->ncpu, NULL, 0) == 0 && cpulist_count(m, a->ncpu) == 1)
		for (int c = 0; c < a->ncpu; c++)
			if (m[c])
				cpu = c;
	free(m);
	return cpu;
}

/* "the writer of workload 1", "cp (writer) of workload 2", "attached
 * PID 42 (rsync)": what a rule on p's role is about, for the status line. */
static void role_words(const struct proc_sample *p, char *buf, size_t len)
{
	if (!strcmp(p->role, "attached") || (p->slot[0] && !strncmp(p->slot, "pid", 3)))
		snprintf(buf, len, "attached PID %d (%s)", (int)p->pid, p->comm);
	else if (!strncmp(p->comm, "bt-", 3) || !p->comm[0])
		snprintf(buf, len, "the %s of workload %d", p->role, p->workload);
	else
		snprintf(buf, len, "%s (%s) of workload %d", p->comm, p->role, p->workload);
}

/* Pids benchtop has placed; 1 in the second slot once a lost placement
 * was reported, so it is said once, not every tick. */
static int placed_index(struct app *a, pid_t pid, bool add)
{
	for (size_t i = 0; i < a->plog.n; i++)
		if (a->plog.v[i].pid == pid)
			return (int)i;
	if (!add)
		return -1;
	if (a->plog.n == a->plog.cap) {
		size_t n = a->plog.cap ? a->plog.cap * 2 : 32;
		struct placed *q = xrealloc(a->plog.v, n * sizeof *q);
		if (!q)
			return -1;
		a->plog.v = q;
		a->plog.cap = n;
	}
	a->plog.v[a->plog.n] = (struct placed){ .pid = pid };
	return (int)a->plog.n++;
}

/* A process that was placed and no longer matches reset its own affinity
 * (or something else did): say so once, then place it again. */
static void report_lost(struct app *a, const struct proc_sample *p, const unsigned char *m)
{
	int k = placed_index(a, p->pid, false);
	if (k < 0 || a->plog.v[k].reported)
		return;
	a->plog.v[k].reported = true;
	char want[MODEL_CPUS_LEN];
	cpulist_format(m, a->ncpu, want, sizeof want);
	snprintf(a->vs.status, sizeof a->vs.status,
	         "PID %d (%s) did not keep CPU %s (now %s): it sets its own affinity; benchtop re-applies it each tick",
	         (int)p->pid, p->comm, want, p->allowed);
	if (a->run->batch)
		fprintf(stderr, "benchtop: %s\n", a->vs.status);
}

const unsigned char *action_start_mask(struct app *a, int w)
{
	return placement_want(a->pl, w, "cmd", -1);
}

const unsigned char *action_placer(void *app, int w, const char *slot)
{
	struct app *a = app;
	return placement_want(a->pl, w, slot, -1);
}

/* A role that does little: it may share a CPU under spread. */
static bool idle_role(const struct proc_sample *p)
{
	return !strcmp(p->role, "control") || !strcmp(p->role, "idle");
}

/* The status line under spread: which role went where ("reader 1,
 * writer 0, control 0"), busy roles first. */
static void spread_say(struct app *a, const char *what)
{
	const struct snapshot *s = a->snap;
	char list[200] = "";
	size_t k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->nproc && k + 40 < sizeof list; i++) {
			const struct proc_sample *p = &s->procs[i];
			if (!p->alive || idle_role(p) != (pass == 1))
				continue;
			int c = placement_spread_cpu(a->pl, p->workload, slot_of(p));
			if (c >= 0)
				k += (size_t)snprintf(list + k, sizeof list - k, "%s%s %s\xe2\x86\x92%d",
				                      k ? ", " : "", p->role, p->comm, c);
		}
	snprintf(a->vs.status, sizeof a->vs.status, "%s: %s%s", what, list[0] ? list : "no process yet",
	         " (busy roles on CPUs of their own first; idle ones share)");
}

/* After each sample: every running process where the rules on its role
 * say (processes that start later get theirs before they run). */
void action_enforce_placement(struct app *a)
{
	/* At the end attached processes get back what they had, workloads
	 * are stopping: no rule is applied again. */
	if (a->finishing)
		return;
	const struct snapshot *s = a->snap;
	placement_live_begin(a->pl);
	for (int i = 0; i < s->nproc; i++)
		if (s->procs[i].alive) {
			placement_live(a->pl, s->procs[i].workload, slot_of(&s->procs[i]));
			placement_idle(a->pl, s->procs[i].workload, slot_of(&s->procs[i]), idle_role(&s->procs[i]));
		}
	/* under spread, roles found busy since get CPUs of their own */
	if (placement_rebalance(a->pl) > 0)
		spread_say(a, "spread again, as the roles showed what they do");
	for (int i = 0; i < s->nproc; i++) {
		const struct proc_sample *p = &s->procs[i];
		if (!p->alive)
			continue;
		const unsigned char *m = placement_want(a->pl, p->workload, slot_of(p), single_cpu_of(a, p));
		if (!m || affinity_pid_matches(p->pid, m, a->ncpu))
			continue;
		report_lost(a, p, m);
		char msg[200] = "";
		attach_remember(a, p->pid);
		int rc = affinity_set_pid(p->pid, m, a->ncpu, msg, sizeof msg);
		if (rc < 0) {
			a->plog.failed++;
			a->plog.err = -rc;
			snprintf(a->plog.error, sizeof a->plog.error, "%s", msg[0] ? msg : strerror(-rc));
			snprintf(a->vs.status, sizeof a->vs.status, "%s", a->plog.error);
		} else {
			placed_index(a, p->pid, true);
		}
	}
}

/* {"pid":"cpus",...} of the tracked processes (only pid when > 0), read
 * back from the kernel: the before and after of a placement event. */
static void affinity_map(struct app *a, pid_t only, char *buf, size_t len)
{
	unsigned char *m = xcalloc((size_t)a->ncpu, 1);
	size_t k = (size_t)snprintf(buf, len, "{");
	const struct snapshot *s = a->snap;
	for (int i = 0; m && i < s->nproc && k < len; i++) {
		const struct proc_sample *p = &s->procs[i];
		if (!p->alive || (only > 0 && p->pid != only) || affinity_get_pid(p->pid, m, a->ncpu))
			continue;
		char list[MODEL_CPUS_LEN];
		cpulist_format(m, a->ncpu, list, sizeof list);
		k += (size_t)snprintf(buf + k, len - k, "%s\"%d\":\"%s\"", k > 1 ? "," : "",
		                      (int)p->pid, list);
	}
	if (k < len)
		snprintf(buf + k, len - k, "}");
	else
		snprintf(buf, len, "{}"); /* too many to list: better none than broken JSON */
	free(m);
}

/* s as the inside of a JSON string (quotes, backslashes and controls
 * escaped), cut to fit len. */
static void json_inner(const char *s, char *out, size_t len)
{
	size_t k = 0;
	for (; *s && k + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			out[k++] = '\\', out[k++] = (char)c;
		else if (c < 0x20)
			k += (size_t)snprintf(out + k, len - k, "\\u%04x", c);
		else
			out[k++] = (char)c;
	}
	out[k] = 0;
}

/* extra: more "key":value pairs for the detail, or "".  error: NULL when
 * it was done, else why it was not (for every process, or for some: the
 * event says which and the status line says so). */
static void placement_event(struct app *a, const char *action, const char *label,
                            const char *target, const char *cpus, const char *before,
                            pid_t only, const char *extra, const char *error)
{
	/* before (at most MODEL_DETAIL_LEN / 2 - 64), after, extra (at most
	 * 160) and the error always fit in one detail, so it is never cut into broken JSON */
	char detail[MODEL_DETAIL_LEN], after[MODEL_DETAIL_LEN / 2 - 384], err[160] = "";
	affinity_map(a, only, after, sizeof after);
	if (error)
		json_inner(error, err, sizeof err);
	snprintf(detail, sizeof detail,
	         "{\"target\":\"%s\",\"cpus\":\"%s\",%s\"ok\":%s%s%s%s,\"before\":%s,\"after\":%s}",
	         target, cpus, extra, error ? "false" : "true", error ? ",\"error\":\"" : "", err,
	         error ? "\"" : "", before, after);
	char failed[96];
	if (error)
		snprintf(failed, sizeof failed, "%s failed", label);
	app_event(a, action, error ? failed : label, detail);
}

/* After a placement: none of it failed (0), or the status line says what
 * failed and why, also on standard error in batch mode (-errno). */
static int placement_outcome(struct app *a, const char *what)
{
	if (!a->plog.failed)
		return 0;
	snprintf(a->vs.status, sizeof a->vs.status, "%s: %d process%s could not be placed: %s", what,
	         a->plog.failed, a->plog.failed == 1 ? "" : "es", a->plog.error);
	if (a->run->batch)
		fprintf(stderr, "benchtop: %s\n", a->vs.status);
	return -(a->plog.err ? a->plog.err : EPERM);
}

/* Pin p's role to mask: p now, and the next process in its place before
 * it runs.  Reports what p became. */
static int pin_pid(struct app *a, const struct proc_sample *p, const unsigned char *mask)
{
	char msg[200] = "", after[MODEL_CPUS_LEN], label[64], target[96], who[96];
	char before[MODEL_DETAIL_LEN / 2 - 64];
	cpulist_format(mask, a->ncpu, after, sizeof after);
	affinity_map(a, p->pid, before, sizeof before);
	attach_remember(a, p->pid);
	int rc = affinity_set_pid(p->pid, mask, a->ncpu, msg, sizeof msg);
	snprintf(label, sizeof label, "pin %d:%s", (int)p->pid, after);
	snprintf(target, sizeof target, "%d", (int)p->pid);
	/* A workload's process that ended between the last sample and the
	 * key (a --loop command between two runs): the rule is on its role,
	 * so it still holds for the next process in its place. */
	bool gone = rc == -ESRCH && p->workload > 0;
	if (rc < 0 && !gone) {
		snprintf(a->vs.status, sizeof a->vs.status, "cannot pin %s (PID %d) to CPU %s: %s", p->comm,
		         (int)p->pid, after, msg[0] ? msg : strerror(-rc));
		placement_event(a, "pin", label, target, after, before, p->pid, "", msg[0] ? msg : strerror(-rc));
		if (a->run->batch)
			fprintf(stderr, "benchtop: %s\n", a->vs.status);
		return rc;
	}
	placement_pin(a->pl, p->workload, slot_of(p), mask);
	placed_index(a, p->pid, true);
	role_words(p, who, sizeof who);
	snprintf(label, sizeof label, "pin %s:%s", p->role, after);
	char extra[160], role[40], slot[64];
	json_quote(role, sizeof role, p->role);
	json_quote(slot, sizeof slot, slot_of(p));
	snprintf(extra, sizeof extra, "\"pid\":%d,\"workload\":%d,\"role\":%s,\"slot\":%s,",
	         (int)p->pid, p->workload, role, slot);
	placement_event(a, "pin", label, target, after, before, p->pid, extra, NULL);
	if (gone)
		snprintf(a->vs.status, sizeof a->vs.status,
		         "pinned %s to CPU %s (PID %d); holds across restarts (that run had just ended)",
		         who, after, (int)p->pid);
	else
		snprintf(a->vs.status, sizeof a->vs.status, "pinned %s to CPU %s (PID %d)%s", who, after,
		         (int)p->pid, p->workload > 0 ? "; holds across restarts" : "");
	return 0;
}

/* A CPU the user names must exist and be online (the message lists the
 * online ones). */
static int check_cpu(struct app *a, int cpu)
{
	char online[MODEL_CPUS_LEN];
	cpulist_format(a->online, a->ncpu, online, sizeof online);
	if (cpu < 0 || cpu >= a->ncpu) {
		snprintf(a->vs.status, sizeof a->vs.status,
		         "CPU %d is out of range: this machine has CPUs 0-%d (online: %s)", cpu,
		         a->ncpu - 1, online);
		return -EINVAL;
	}
	if (!a->online[cpu]) {
		snprintf(a->vs.status, sizeof a->vs.status, "CPU %d is offline: online CPUs are %s", cpu, online);
		return -EINVAL;
	}
	return 0;
}

static int act_pin_cpu(struct app *a, int cpu)
{
	const struct proc_sample *p = selected_proc(a);
	if (!p) {
		snprintf(a->vs.status, sizeof a->vs.status, "no process to pin");
		return -ESRCH;
	}
	int rc = check_cpu(a, cpu);
	if (rc)
		return rc;
	unsigned char *m = xcalloc((size_t)a->ncpu, 1);
	m[cpu] = 1;
	rc = pin_pid(a, p, m);
	free(m);
	return rc;
}

/* Every role of workload w (< 0: all), running or not yet started, to
 * mask; the running processes at once. */
static void apply_to_workloads(struct app *a, int w, const unsigned char *mask)
{
	placement_set_workload(a->pl, w, mask);
	action_enforce_placement(a);
}

static int act_pin_list(struct app *a, const struct action *act)
{
	unsigned char *m = xcalloc((size_t)a->ncpu, 1);
	char err[200];
	if (cpulist_parse(act->text, m, a->ncpu, err, sizeof err)) {
		snprintf(a->vs.status, sizeof a->vs.status, "%s", err);
		free(m);
		return -EINVAL;
	}
	for (int c = 0; c < a->ncpu; c++)
		if (m[c] && check_cpu(a, c)) {
			free(m);
			return -EINVAL;
		}
	int rc = 0;
	const struct proc_sample *p = act->pid ? proc_of(a, act->pid) : selected_proc(a);
	if (act->whole == 0) {
		if (!p) {
			snprintf(a->vs.status, sizeof a->vs.status, "no process to pin");
			rc = -ESRCH;
		} else {
			rc = pin_pid(a, p, m);
		}
	} else {
		int w = act->whole == 2 || !p ? -1 : p->workload;
		char after[MODEL_CPUS_LEN], label[64], target[32], before[MODEL_DETAIL_LEN / 2 - 64];
		cpulist_format(m, a->ncpu, after, sizeof after);
		affinity_map(a, 0, before, sizeof before);
		a->plog.failed = 0;
		apply_to_workloads(a, w, m);
		if (w < 0)
			snprintf(target, sizeof target, "all");
		else
			snprintf(target, sizeof target, "workload %d", w);
		snprintf(label, sizeof label, "pin %s:%s", w < 0 ? "all" : target, after);
		placement_event(a, "pin", label, target, after, before, 0, "",
		                a->plog.failed ? a->plog.error : NULL);
		snprintf(a->vs.status, sizeof a->vs.status, "%s pinned to CPU %s; holds for processes that start later",
		         w < 0 ? "every workload" : target, after);
		rc = placement_outcome(a, label);
	}
	free(m);
	return rc;
}

/* Pack's CPU: the selected process's (where it is pinned alone, else where
 * it last ran), else the first online CPU. */
static int pack_cpu(struct app *a)
{
	const struct proc_sample *p = selected_proc(a);
	int cpu = p ? single_cpu_of(a, p) : -1;
	if (cpu < 0)
		cpu = p && p->cpu >= 0 && p->cpu < a->ncpu && a->online[p->cpu] ? p->cpu : 0;
	while (cpu < a->ncpu && !a->online[cpu])
		cpu++;
	return cpu < a->ncpu ? cpu : 0;
}

/* Which of two processes spread places first: busy roles before idle
 * ones, then the busier. */
static bool spread_before(const struct proc_sample *p, const struct proc_sample *q)
{
	if (idle_role(p) != idle_role(q))
		return !idle_role(p);
	return p->cpu_pct > q->cpu_pct;
}

/* Spread: busy roles get CPUs of their own first, the busiest first;
 * idle roles share. */
static void spread_now(struct app *a)
{
	placement_spread(a->pl);
	const struct snapshot *s = a->snap;
	int order[512], n = 0;
	for (int i = 0; i < s->nproc && n < 512; i++)
		if (s->procs[i].alive)
			order[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && spread_before(&s->procs[order[j]], &s->procs[order[j - 1]]); j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		const struct proc_sample *p = &s->procs[order[i]];
		placement_want(a->pl, p->workload, slot_of(p), single_cpu_of(a, p));
	}
	action_enforce_placement(a);
}

static int act_placement(struct app *a, enum action_id id)
{
	unsigned char *m = xcalloc((size_t)a->ncpu, 1);
	const char *name = id == ACT_PACK ? "pack" : id == ACT_FREE ? "free" : "spread";
	char after[MODEL_CPUS_LEN] = "", before[MODEL_DETAIL_LEN / 2 - 64];
	affinity_map(a, 0, before, sizeof before);
	a->plog.failed = 0;
	if (id == ACT_PACK) {
		m[pack_cpu(a)] = 1;
		apply_to_workloads(a, -1, m);
		cpulist_format(m, a->ncpu, after, sizeof after);
		snprintf(a->vs.status, sizeof a->vs.status,
		         "pack: every process on CPU %s (the selected process's), also those that start later",
		         after);
	} else if (id == ACT_FREE) {
		apply_to_workloads(a, -1, a->allowed);
		cpulist_format(a->allowed, a->ncpu, after, sizeof after);
		snprintf(a->vs.status, sizeof a->vs.status,
		         "free: every process on CPUs %s, also those that start later", after);
	} else {
		spread_now(a);
		snprintf(after, sizeof after, "round robin");
		spread_say(a, "spread");
	}
	free(m);
	placement_event(a, "placement", name, name, after, before, 0, "",
	                a->plog.failed ? a->plog.error : NULL);
	return placement_outcome(a, name);
}

static int act_governor(struct app *a, const struct action *act)
{
	if (!a->cf || cpufreq_npolicies(a->cf) == 0) {
		const char *why = a->cf ? cpufreq_unavailable_reason(a->cf) : NULL;
		snprintf(a->vs.status, sizeof a->vs.status, "no governors to change: %s",
		         why ? why : "no cpufreq here");
		return -ENODEV;
	}
	const char *gov = act->id == ACT_GOV_NEXT ? cpufreq_next_governor(a->cf) : act->text;
	if (!gov) {
		snprintf(a->vs.status, sizeof a->vs.status, "only one governor is available here");
		return -EINVAL;
	}
	char before[MODEL_GOV_LEN], name[MODEL_GOV_LEN];
	snprintf(before, sizeof before, "%s", cpufreq_policy_governor(a->cf, act->policy < 0 ? 0 : act->policy));
	snprintf(name, sizeof name, "%s", gov);
	int rc = cpufreq_set_governor(a->cf, act->policy, name, a->vs.status, sizeof a->vs.status);
	if (rc)
		return rc;
	char detail[MODEL_DETAIL_LEN], label[64];
	snprintf(detail, sizeof detail, "{\"policy\":%d,\"before\":\"%s\",\"after\":\"%s\"}",
	         act->policy, before, name);
	snprintf(label, sizeof label, "gov %s", name);
	app_event(a, "governor", label, detail);
	return 0;
}

static int act_maxfreq(struct app *a, const struct action *act)
{
	if (!a->cf || cpufreq_npolicies(a->cf) == 0) {
		const char *why = a->cf ? cpufreq_unavailable_reason(a->cf) : NULL;
		snprintf(a->vs.status, sizeof a->vs.status, "no frequency limits to change: %s",
		         why ? why : "no cpufreq here");
		return -ENODEV;
	}
	long before = cpufreq_policy_max(a->cf, act->policy < 0 ? 0 : act->policy);
	int rc = cpufreq_set_maxfreq(a->cf, act->policy, act->khz, a->vs.status, sizeof a->vs.status);
	if (rc)
		return rc;
	char detail[MODEL_DETAIL_LEN], label[64];
	long after = cpufreq_policy_max(a->cf, act->policy < 0 ? 0 : act->policy);
	snprintf(detail, sizeof detail, "{\"policy\":%d,\"before\":%ld,\"after\":%ld}",
	         act->policy, before, after);
	if (act->khz > 0)
		snprintf(label, sizeof label, "max %.1fGHz", act->khz / 1e6);
	else
		snprintf(label, sizeof label, "max lifted");
	app_event(a, "maxfreq", label, detail);
	return 0;
}

static int act_pause(struct app *a, bool pause)
{
	if (pause == a->paused) {
		snprintf(a->vs.status, sizeof a->vs.status, pause ? "already paused" : "not paused");
		return 0;
	}
	for (int i = 0; i < a->nwl; i++)
		workload_pause(a->wl[i], pause);
	/* a paused process is in the journal until it runs again, so that
	 * --restore resumes it after a killed benchtop */
	for (size_t i = 0; i < a->attach.n; i++) {
		pid_t pid = a->attach.pids[i];
		/* one stopped when benchtop found it stays stopped: not benchtop's to resume */
		bool found_stopped = attach_found_stopped(a, pid);
		if (pause && !found_stopped)
			journal_note_paused(pid);
		if (pause || !found_stopped)
			kill(pid, pause ? SIGSTOP : SIGCONT);
		if (!pause)
			journal_note_resumed(pid);
	}
	a->paused = pause;
	app_event(a, pause ? "pause" : "resume", pause ? "pause" : "resume", "{}");
	snprintf(a->vs.status, sizeof a->vs.status, pause ? "workloads paused (SIGSTOP); space resumes" :
	                                              "workloads resumed (SIGCONT)");
	return 0;
}

static struct workload *selected_workload(struct app *a)
{
	const struct proc_sample *p = selected_proc(a);
	if (p && p->workload >= 1 && p->workload <= a->nwl)
		return a->wl[p->workload - 1];
	/* No live process selected: the first finished workload. */
	for (int i = 0; i < a->nwl; i++)
		if (!workload_running(a->wl[i]))
			return a->wl[i];
	return a->nwl ? a->wl[0] : NULL;
}

static int act_restart_stop(struct app *a, bool restart)
{
	struct workload *w = selected_workload(a);
	if (!w || !strcmp(workload_kind(w), "attached")) {
		snprintf(a->vs.status, sizeof a->vs.status, "no workload here (attached processes are not stopped or restarted)");
		return -ESRCH;
	}
	char detail[64], label[64];
	snprintf(detail, sizeof detail, "{\"workload\":%d,\"text\":\"w%d restart\"}", workload_id(w),
	         workload_id(w));
	if (!restart) {
		if (!workload_running(w)) {
			snprintf(a->vs.status, sizeof a->vs.status, "workload %d is not running", workload_id(w));
			return 0;
		}
		workload_stop(w);
		snprintf(a->vs.status, sizeof a->vs.status, "workload %d stopped", workload_id(w));
		return 0;
	}
	if (workload_running(w)) {
		snprintf(a->vs.status, sizeof a->vs.status, "workload %d is still running (x stops it)", workload_id(w));
		return -EBUSY;
	}
	char msg[256];
	workload_rearm(w);
	int i = workload_id(w);
	if (workload_start(w, a->sp, action_start_mask(a, i), a->ncpu, app_now(a), msg, sizeof msg)) {
		snprintf(a->vs.status, sizeof a->vs.status, "%s", msg);
		return -EIO;
	}
	a->all_done = false;
	snprintf(label, sizeof label, "w%d restart", i);
	app_event(a, "marker", label, detail);
	history_work_ended(a->hist, -1);
	snprintf(a->vs.status, sizeof a->vs.status, "workload %d restarted", i);
	return 0;
}

static void act_interval(struct app *a, bool longer)
{
	static const double steps[] = { 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10 };
	size_t n = sizeof steps / sizeof *steps, i = 0;
	while (i < n - 1 && steps[i] < a->interval - 1e-9)
		i++;
	if (longer && i < n - 1 && steps[i] <= a->interval + 1e-9)
		i++;
	else if (!longer && i > 0)
		i--;
	app_set_interval(a, steps[i]);
	snprintf(a->vs.status, sizeof a->vs.status, "sample interval %.2f s", steps[i]);
}

/* A lesson's caption: an event (a marker, a new phase) whose detail
 * holds the whole text; the graph shows it as a banner until the next. */
static int act_caption(struct app *a, const struct action *act)
{
	char detail[MODEL_DETAIL_LEN];
	int k = snprintf(detail, sizeof detail, "{\"text\":");
	k += (int)json_quote(detail + k, sizeof detail - k - 1, act->text);
	snprintf(detail + k, sizeof detail - k, "}");
	/* right after an action that opened a phase (the same --at time, no
	 * sample since): the caption names that phase instead of opening an
	 * empty one */
	size_t np = history_nphases(a->hist);
	const struct phase *cur = np > 1 ? history_phase(a->hist, np - 1) : NULL;
	if (cur && app_now(a) - cur->from < 0.5 && !phase_moved(cur) && cur->cpu_s == 0 &&
	    cur->khz_time == 0) {
		history_label_phase(a->hist, act->text);
		app_note_event(a, "caption", act->text, detail);
	} else {
		app_event(a, "caption", act->text, detail);
	}
	snprintf(a->vs.status, sizeof a->vs.status, "%s", act->text);
	return 0;
}

static int act_view(struct app *a, const struct action *act)
{
	const struct snapshot *s = history_last(a->hist);
	if (view_apply(&a->vs, act, s ? s->nproc : 0, a->dashboard))
		return 0;
	if (act->id == ACT_FASTER || act->id == ACT_SLOWER)
		act_interval(a, act->id == ACT_SLOWER);
	return 0;
}

int action_apply(struct app *a, const struct action *act)
{
	switch (act->id) {
	case ACT_PIN_CPU:
		return act_pin_cpu(a, act->cpu);
	case ACT_PIN_LIST:
		return act_pin_list(a, act);
	case ACT_SPREAD:
	case ACT_PACK:
	case ACT_FREE:
		return act_placement(a, act->id);
	case ACT_GOV_NEXT:
	case ACT_GOV_SET:
		return act_governor(a, act);
	case ACT_MAXFREQ:
		return act_maxfreq(a, act);
	case ACT_MARKER: {
		char detail[MODEL_DETAIL_LEN];
		int k = snprintf(detail, sizeof detail, "{\"text\":");
		k += (int)json_quote(detail + k, sizeof detail - k - 1, act->text);
		snprintf(detail + k, sizeof detail - k, "}");
		app_event(a, "marker", act->text[0] ? act->text : "marker", detail);
		snprintf(a->vs.status, sizeof a->vs.status, "marker: %s", act->text);
		return 0;
	}
	case ACT_CAPTION:
		return act_caption(a, act);
	case ACT_SIGNAL:
		return action_signal(a, act);
	case ACT_PAUSE:
		return act_pause(a, !a->paused);
	case ACT_RESUME:
		return act_pause(a, false);
	case ACT_RESTART:
	case ACT_STOP:
		return act_restart_stop(a, act->id == ACT_RESTART);
	case ACT_QUIT:
		a->quit = true;
		return 0;
	default:
		return act_view(a, act);
	}
}
