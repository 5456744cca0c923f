/* action.h - what a key press or an --at entry asks for.  The key table
 * (ui/keys.c) maps keys to these; the app applies them (action.c) and answers
 * with a status line; nothing here draws. */
#ifndef BENCHTOP_ACTION_H
#define BENCHTOP_ACTION_H

enum action_id {
	ACT_NONE,
	ACT_SEL_UP, ACT_SEL_DOWN,
	ACT_PIN_CPU,        /* arg.cpu */
	ACT_PIN_LIST,       /* arg.text: CPU list; arg.whole: whole workload */
	ACT_SPREAD, ACT_PACK, ACT_FREE,
	ACT_GOV_NEXT,
	ACT_GOV_SET,        /* arg.text: governor; arg.policy: -1 all */
	ACT_MAXFREQ,        /* arg.khz (<= 0 lifts); arg.policy: -1 all */
	ACT_MARKER,         /* arg.text */
	ACT_PAUSE,          /* toggles pause / resume */
	ACT_RESUME,
	ACT_RESTART, ACT_STOP,
	ACT_FASTER, ACT_SLOWER,
	ACT_UNITS, ACT_THEME, ACT_HELP,
	ACT_QUIT,
	/* Keys that open a prompt or a menu in the dashboard first. */
	ACT_PROMPT_PIN, ACT_PROMPT_MARKER, ACT_MENU_GOV, ACT_MENU_MAXFREQ,
	ACT_REPLAY_SLOWER, ACT_REPLAY_FASTER,
	/* Keys the dashboard handles itself (graph scale, sort, filter). */
	ACT_SCALE, ACT_SORT, ACT_PROMPT_FILTER,
	ACT_SELECT,         /* arg.cpu: the process at this index of the newest sample */
	ACT_NOTE,           /* arg.text: what a view key did, for the status line */
	ACT_SEEK_BACK, ACT_SEEK_FWD, ACT_SEEK_START, ACT_SEEK_END,   /* replay */
	/* More keys the dashboard handles itself: search, tree, the sort
	 * menu, paging, zoom, the frequency line; and the menus that end in
	 * an action (the signal menu, the affinity dialog). */
	ACT_SEARCH, ACT_TREE, ACT_MENU_SORT, ACT_PAGE_UP, ACT_PAGE_DOWN, ACT_FIRST, ACT_LAST,
	ACT_ZOOM, ACT_FREQ_LINE, ACT_MENU_SIGNAL, ACT_MENU_AFFINITY,
	ACT_SIGNAL,         /* arg.sig to arg.pid (a process of the run) */
	ACT_CAPTION,        /* arg.text: a lesson's caption (--at T:caption=TEXT) */
};

/* What applying an action asks of the loop that applied it (actions.h:
 * action_apply returns these).  Actions never call the UI or change the
 * loop's state themselves: the loop does the rest once, in its one draw
 * pass after the keys of one wake-up. */
enum reaction {
	REACT_NONE = 0,
	REACT_HELP = 1 << 0,     /* show or hide the help screen */
	REACT_THEME = 1 << 1,    /* switch to the next colour theme */
	REACT_REDRAW = 1 << 2,   /* what the screen shows changed */
	REACT_STATUS = 1 << 3,   /* the status line has new words (shown afresh) */
	REACT_EVENT = 1 << 4,    /* an event was recorded (a marker, a new phase) */
	REACT_QUIT = 1 << 5,     /* end the run */
	REACT_INTERVAL = 1 << 6, /* the sample interval changed */
	REACT_WORK = 1 << 7,     /* a workload started again: the run is not over */
	REACT_FAILED = 1 << 8,   /* it could not be done (the status line says why) */
};

struct action {
	enum action_id id;
	int cpu;
	int policy;
	long khz;
	int whole;
	int sig;            /* ACT_SIGNAL: the signal number */
	int pid;            /* ACT_SIGNAL, ACT_PIN_LIST: the process it is for (0: the selected) */
	char text[128];
};

#endif
