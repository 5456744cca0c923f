/* main.c - command line to a run: help, version, restore, or app_main. */
#include <stdio.h>
#include <string.h>

#include "benchtop/app.h"
#include "benchtop/cli.h"
#include "benchtop/experiment.h"
#include "benchtop/replay.h"
#include "benchtop/report.h"

#define BENCHTOP_VERSION "0.1.0"

/* Options the parser knows whose feature is not built yet: refused at run
 * time by name, never silently ignored.  (None at the moment: --sweep,
 * --matrix, --cell and --preset run through experiment_main.) */
static int refuse_unbuilt(const struct run *r)
{
	(void)r;
	return 0;
}

int main(int argc, char **argv)
{
	struct run r;
	char err[CLI_ERR_MAX];
	if (cli_parse(argc, argv, &r, err, sizeof err)) {
		fprintf(stderr, "benchtop: %s\n", err);
		fprintf(stderr, "Try 'benchtop --help' for more information.\n");
		return 2;
	}
	int status = 0;
	switch (r.mode) {
	case MODE_HELP:
		cli_print_help(stdout);
		break;
	case MODE_VERSION:
		printf("benchtop %s\n", BENCHTOP_VERSION);
		break;
	case MODE_RESTORE:
		/* Without --sysfs every journal is applied (each names its own
		 * root); with it, only that tree's. */
		status = app_restore(strcmp(r.sysfs, "/sys") ? r.sysfs : NULL, stderr);
		break;
	case MODE_REPLAY:
		status = replay_main(&r);
		break;
	case MODE_REPORT:
		status = report_main(&r);
		break;
	default:
		status = refuse_unbuilt(&r);
		if (status)
			break;
		if (r.sweep || r.matrix || r.preset)
			status = experiment_main(&r, argc, argv);
		else
			status = app_main(&r);
	}
	cli_free(&r);
	return status;
}
