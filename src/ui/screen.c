/* screen.c - the dashboard's terminal: open, close, resize, theme and help
 * switches, the layout and the one draw pass per loop iteration (erase +
 * draw + one doupdate, so curses sends only the cells that changed).  What
 * the panels draw with (colours by role, text, the panel cache) is
 * draw.c's. */
#include "uipriv.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>
#include "benchtop/view.h"
#include "benchtop/xalloc.h"

#define MIN_ROWS 24
#define MIN_COLS 80
#define MAX_THEMES 64

bool ui_utf8;
bool ui_mono;

static SCREEN *scr;
static int term_fd = -1;
static bool help_on;
static struct theme cur;

static bool want_mono(bool no_color)
{
	const char *nc = getenv("NO_COLOR");
	return no_color || (nc && *nc);
}

/* Keys stay keys: Ctrl-\ must not end benchtop by SIGQUIT past its
 * clean-up (the quit character is switched off; Ctrl-C still quits as q
 * does, through SIGINT), and Ctrl-S must not stop the terminal's output,
 * which would stop the loop's writes and with them every tick (output
 * flow control off).  endwin gives the terminal its own settings back. */
static void keys_not_signals(void)
{
	struct termios t;
	if (term_fd < 0 || tcgetattr(term_fd, &t) != 0)
		return;
	t.c_cc[VQUIT] = _POSIX_VDISABLE;
	t.c_iflag &= ~(tcflag_t)IXON;
	if (tcsetattr(term_fd, TCSANOW, &t) == 0)
		def_prog_mode();  /* curses' own later mode changes keep it */
}

static void setup_curses(bool no_color)
{
	noecho();
	cbreak();
	keys_not_signals();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);   /* Esc cancels a prompt at once */
	ui_mono = want_mono(no_color) || !has_colors();
	if (!ui_mono) {
		/* Never called under --no-color / NO_COLOR: start_color alone
		 * already sends colour resets. */
		start_color();
		use_default_colors();
	}
	ui_theme_apply(&cur);
}

/* A frame leaves in one write.  Curses (6.4) flushes its output at every
 * cursor move until the screen has once come back from endwin, which
 * made a 200x50 frame a dozen writes, each waking the terminal; one
 * endwin and update at the start makes it one.  And it does not poll the
 * keyboard twice per frame to cut a frame short: benchtop's own loop
 * reads the keys, and a frame is small. */
static void one_write_per_frame(void)
{
	typeahead(-1);
	endwin();
	doupdate();
}

/* Out of memory while the dashboard is up: the terminal is given back
 * before the message prints (endwin only; nothing is freed). */
static void restore_terminal(void)
{
	if (scr)
		endwin();
}

static int open_common(const char *theme, bool no_color, char *err, size_t errlen)
{
	xalloc_on_fatal(restore_terminal);
	int rc = theme_load(theme, &cur, err, errlen);
	if (rc < 0) {
		endwin();
		delscreen(scr);
		scr = NULL;
		return -1;
	}
	setup_curses(no_color);
	one_write_per_frame();
	help_on = false;
	return 0;
}

static void detect_locale(void)
{
	setlocale(LC_ALL, "");
	ui_utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

int ui_open(const char *theme, bool no_color, char *err, size_t errlen)
{
	struct theme probe;
	/* Check the theme before the screen changes, so an error prints on
	 * a normal terminal. */
	if (theme_load(theme, &probe, err, errlen) < 0)
		return -1;
	detect_locale();
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		snprintf(err, errlen, "cannot start the dashboard on terminal '%s' "
		         "(set TERM, or use --batch)", getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	term_fd = fileno(stdin);
	return open_common(theme, no_color, err, errlen);
}

int ui_open_term(const char *termtype, FILE *out, FILE *in, int rows, int cols,
                 const char *theme, bool no_color, char *err, size_t errlen)
{
	detect_locale();
	scr = newterm(termtype, out, in);
	if (!scr) {
		snprintf(err, errlen, "cannot start curses on terminal type '%s'", termtype);
		return -1;
	}
	term_fd = fileno(in);
	resizeterm(rows, cols);
	return open_common(theme, no_color, err, errlen);
}

void ui_close(void)
{
	if (!scr)
		return;
	xalloc_on_fatal(NULL);
	endwin();
	delscreen(scr);
	scr = NULL;
	term_fd = -1;
}

int ui_fd(void)
{
	return term_fd;
}

bool ui_terminal_usable(char *msg, size_t len)
{
	const char *which = !isatty(STDIN_FILENO) ? "standard input" :
	                    !isatty(STDOUT_FILENO) ? "standard output" : NULL;
	if (!which)
		return true;
	snprintf(msg, len, "the dashboard needs a terminal, and %s is not one: "
	         "use -b (--batch) for lines on standard output, or run it in a terminal", which);
	return false;
}

/* The terminal has gone only when it says so: a hang-up or an error from
 * poll, EIO, or an end of file.  Readable after ui_key read nothing at
 * all (not even a key that does nothing) is asked once more with a read
 * that cannot block: 0 bytes is the end of file, EIO a hung-up terminal,
 * EAGAIN a wake-up with nothing to read, and a byte goes back to curses. */
bool ui_terminal_lost(short revents, bool got_input)
{
	if (revents & (POLLHUP | POLLERR | POLLNVAL))
		return true;
	if (got_input || !(revents & POLLIN))
		return false;
	int n = 0;
	if (ioctl(term_fd, FIONREAD, &n) < 0)
		return errno != EINTR;   /* a hung-up terminal answers EIO */
	if (n > 0)
		return false;
	int fl = fcntl(term_fd, F_GETFL);
	if (fl < 0)
		return errno == EBADF || errno == EIO;
	if (!(fl & O_NONBLOCK) && fcntl(term_fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return errno == EIO;
	unsigned char c;
	ssize_t got = read(term_fd, &c, 1);
	int e = errno;
	if (!(fl & O_NONBLOCK))
		fcntl(term_fd, F_SETFL, fl);
	if (got == 1) {
		ungetch(c);
		return false;
	}
	return got == 0 || e == EIO || e == EBADF;
}

void ui_resize(void)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col &&
	    isatty(term_fd))
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
	ui_cache_invalidate();
}

size_t ui_history_need(void)
{
	int cols = stdscr && COLS > 0 ? COLS : 80;
	return (size_t)cols * 2 + 8;  /* two dots a column (braille), a little slack */
}

const char *ui_next_theme(void)
{
	static char names[MAX_THEMES][THEME_NAME_LEN];
	size_t n = theme_list(names, MAX_THEMES), i = 0;
	while (i < n && strcmp(names[i], cur.name) != 0)
		i++;
	char err[256];
	if (n == 0 || theme_load(names[(i + 1) % n], &cur, err, sizeof(err)) < 0)
		theme_builtin(&cur);
	if (scr)
		ui_theme_apply(&cur);
	return cur.name;
}

void ui_toggle_help(void)
{
	help_on = !help_on;
}

void ui_react(unsigned reactions, char *status, size_t len)
{
	if (reactions & REACT_HELP)
		ui_toggle_help();
	if (reactions & REACT_THEME)
		snprintf(status, len, "theme: %s", ui_next_theme());
}

bool ui_keys_drain(struct ui_view *v, struct view_state *vs, const bool *quit,
                   void (*apply)(void *ctx, const struct action *act),
                   void (*view)(void *ctx, struct ui_view *v), void *ctx)
{
	struct action act;
	view(ctx, v);
	while (!*quit && ui_key(v, &act) == 1) {
		apply(ctx, &act);
		/* the help and the theme at once: the next key's meaning
		 * depends on them; the other bits are the draw pass's */
		if (vs->react & (REACT_HELP | REACT_THEME)) {
			ui_react(vs->react, vs->status, sizeof vs->status);
			vs->react &= ~(unsigned)(REACT_HELP | REACT_THEME);
		}
		view(ctx, v);
	}
	return ui_input_seen();
}

bool ui_help_shown(void)
{
	return help_on;
}

/* ---- layout and the draw pass ---- */

struct layout { struct rect header, graph, freq, cpus, res, place, procs, status, keybar; };

static bool zoomed;

bool ui_toggle_zoom(void)
{
	ui_cache_invalidate();
	return zoomed = !zoomed;
}

/* Whether the last layout's graph had room for the frequency line. */
static bool freq_room = true;

bool ui_freqline_room(void)
{
	return freq_room;
}

/* The frequency line's rows, from the bottom of the graph's. */
static void split_freq(struct layout *l)
{
	l->freq = (struct rect){ 0, 0, 0, 0 };
	freq_room = l->graph.h >= 12;
	if (!ui_freqline_on() || !freq_room)
		return;
	int fh = l->graph.h >= 30 ? 6 : 4;
	l->graph.h -= fh;
	l->freq = (struct rect){ l->graph.y + l->graph.h, l->graph.x, fh, l->graph.w };
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Heights from the terminal size and the CPU count only (never from how
 * many processes are alive), so no border moves during a run: the CPUs
 * take a row each (up to a quarter of the screen), then Processes and
 * Placement fixed shares of the rest, and the graph what is left. */
static void layout(const struct ui_view *v, struct layout *l)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	int H = LINES, W = COLS, avail = H - 3;
	l->status = (struct rect){ H - 2, 0, 1, W };
	l->keybar = (struct rect){ H - 1, 0, 1, W };
	l->header = (struct rect){ 0, 0, 1, W };
	if (zoomed) {   /* the graph on every row but the header, status and key bar */
		l->graph = (struct rect){ 1, 0, avail, W };
		split_freq(l);
		l->cpus = l->res = l->place = l->procs = (struct rect){ 0, 0, 0, 0 };
		return;
	}
	/* before the first sample, the online CPUs: the same rows as after */
	int ncpu = s ? s->ncpu : v->ncpus_online > 0 ? v->ncpus_online : 1;
	int cpuh = 1 + clampi(ncpu, 1, avail / 4);
	int rest = avail - cpuh;
	int procsh = clampi(rest * 3 / 10, 4, 2 + 40);
	int placeh = clampi(rest / 5, 2, 1 + 30);
	int graphh = rest - procsh - placeh;
	/* The residency panel wants 74 columns for its two periods side by
	 * side; it takes them from the CPU panel when that keeps 46. */
	int y = 1, half = W / 2;
	if (W - half < 74 && W - 74 >= 46)
		half = W - 74;
	l->graph = (struct rect){ y, 0, graphh, W };
	split_freq(l);
	y += graphh;
	l->cpus = (struct rect){ y, 0, cpuh, half };
	l->res = (struct rect){ y, half, cpuh, W - half };
	y += cpuh;
	l->place = (struct rect){ y, 0, placeh, W };
	y += placeh;
	l->procs = (struct rect){ y, 0, procsh, W };
}

bool ui_too_small(void)
{
	return scr && (LINES < MIN_ROWS || COLS < MIN_COLS);
}

static char small_note[80];

void ui_note_small(const char *msg)
{
	snprintf(small_note, sizeof(small_note), "%s", msg ? msg : "");
}

void ui_set_mouse(bool on)
{
	if (!scr)
		return;
	mousemask(on ? BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED : 0, NULL);
	mouseinterval(0);
}

static void draw_too_small(void)
{
	char msg[80];
	snprintf(msg, sizeof(msg), "terminal too small (need 80%s24)", ui_utf8 ? "×" : "x");
	int w = ui_strwidth(msg);
	int y = LINES / 2, x = COLS > w ? (COLS - w) / 2 : 0;
	ui_text(y, x, COLS, ROLE_WARN, msg);
	ui_textf(y + 1 < LINES ? y + 1 : y, x, COLS, ROLE_NORMAL, "now %dx%d", COLS, LINES);
	if (small_note[0] && y + 2 < LINES)
		ui_text(y + 2, 0, COLS, ROLE_STATUS, small_note);
}

void ui_draw(const struct ui_view *v)
{
	if (!scr)
		return;
	erase();
	if (help_on) {
		ui_help_draw(v, (struct rect){ 0, 0, LINES, COLS });
	} else if (LINES < MIN_ROWS || COLS < MIN_COLS) {
		draw_too_small();
	} else {
		small_note[0] = 0;
		struct layout l;
		layout(v, &l);
		ui_header_draw(v, l.header);
		ui_graph_draw(v, l.graph);
		ui_caption_draw(v, l.graph);
		if (l.freq.h)
			ui_freqline_draw(v, l.freq);
		if (!zoomed) {
			ui_cpus_draw(v, l.cpus);
			ui_residency_draw(v, l.res);
			/* a replayed experiment at its end: its table instead */
			int study = ui_study_draw(v, l.place, l.procs);
			if (study == 0)
				ui_procs_draw(v, l.procs);
			if (study < 2)
				ui_placement_draw(v, l.place);
		}
		ui_status_draw(v, l.status);
		ui_keybar_draw(v, l.keybar);
		ui_menu_draw(v, (struct rect){ 0, 0, LINES, COLS });
	}
	wnoutrefresh(stdscr);
	doupdate();
}
