/* main.c - command line to a run: help, version, restore, or app_main. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/fdlimit.h"
#include "benchtop/restore.h"
#include "benchtop/run.h"
#include "benchtop/cli.h"
#include "benchtop/compare.h"
#include "benchtop/config.h"
#include "benchtop/experiment.h"
#include "benchtop/replay.h"
#include "benchtop/report.h"
#include "benchtop/ui.h"
#include "benchtop/version.h"

/* Options the parser knows whose feature is not built yet: refused at run
 * time by name, never silently ignored.  (None at the moment: --sweep,
 * --matrix, --cell and --preset run through experiment_main.) */
static int refuse_unbuilt(const struct run *r)
{
	(void)r;
	return 0;
}

/* The command line with the config file's defaults before it (*cfg and
 * *words hold them; free both at the end): 0, or 2 after printing why (a
 * bad config line names its file and line). */
static int parse_with_config(int argc, char **argv, struct config *cfg, int *n,
                             char ***words, struct run *r)
{
	char err[CLI_ERR_MAX], path[4096];
	if (config_path(path, sizeof path) == 0 &&
	    config_load(path, cfg, err, sizeof err) < 0) {
		fprintf(stderr, "benchtop: %s\n", err);
		return 2;
	}
	if (config_merge_argv(cfg, argc, argv, n, words) < 0) {
		fprintf(stderr, "benchtop: out of memory\n");
		return 2;
	}
	if (cli_parse(*n, *words, r, err, sizeof err)) {
		fprintf(stderr, "benchtop: %s\n", err);
		fprintf(stderr, "Try 'benchtop --help' for more information.\n");
		return 2;
	}
	return 0;
}

/* The dashboard's keys for --help, from the key table that dispatches
 * them. */
static void print_keys(FILE *fp)
{
	fputs("\nDashboard keys (F1, h or ? shows them with what every heading means):\n", fp);
	for (size_t i = 0; i < ui_nkeys; i++)
		fprintf(fp, "  %-8s %s%s\n", ui_keys[i].name, ui_keys[i].replay_only ? "" : "",
		        ui_keys[i].help);
	fputs("  mouse    a click selects a process, the wheel moves the selection (--no-mouse: off)\n", fp);
}

/* Run what the command line asks for (argv: the words it was parsed
 * from, config defaults included); returns the exit status. */
static int run_mode(struct run *r, int argc, char **argv)
{
	int status;

	switch (r->mode) {
	case MODE_HELP:
		cli_print_help(stdout);
		print_keys(stdout);
		return 0;
	case MODE_VERSION:
		printf("benchtop %s\n", BENCHTOP_VERSION);
		return 0;
	case MODE_RESTORE:
		/* Without --sysfs every journal is applied (each names its own
		 * root); with it, only that tree's. */
		return app_restore(strcmp(r->sysfs, "/sys") ? r->sysfs : NULL, stderr);
	case MODE_REPLAY:
		return replay_main(r);
	case MODE_REPORT:
		return report_main(r);
	case MODE_COMPARE:
		return compare_main(r);
	default:
		break;
	}
	if ((status = refuse_unbuilt(r)))
		return status;
	if (r->sweep || r->matrix || r->preset)
		return experiment_main(r, argc, argv);
	return app_main(r);
}

int main(int argc, char **argv)
{
	struct run r;
	struct config cfg = { 0 };
	char **words = NULL;
	fdlimit_raise();
	if (parse_with_config(argc, argv, &cfg, &argc, &words, &r)) {
		free(words);
		config_free(&cfg);
		return 2;
	}
	int status = run_mode(&r, argc, words);
	cli_free(&r);
	free(words);
	config_free(&cfg);
	return status;
}
