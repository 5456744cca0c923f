/* ptyhold MODE CLOSEFILE CMD [ARG]...: run CMD on a new 120x40 pty, read
 * (and drop) what it draws until the file CLOSEFILE exists, then close the
 * pty's master side and wait for CMD to end.
 *
 *   MODE ctty   the pty is CMD's controlling terminal: closing it hangs
 *               it up (SIGHUP to CMD, then EIO)
 *   MODE plain  it is not: CMD gets no SIGHUP, only what a read and poll
 *               of a terminal whose other side went away say
 *
 * CMD runs with TERM=xterm.  Prints its PID on the first line.  Exits
 * with CMD's status (128 + the signal that ended it); 124 when CMD was
 * still running 120 s after the close (it is killed then). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void child(const char *slave, int ctty, char **cmd)
{
	if (ctty && setsid() < 0)
		_exit(126);
	int fd = open(slave, O_RDWR | (ctty ? 0 : O_NOCTTY));
	if (fd < 0)
		_exit(126);
	if (ctty && ioctl(fd, TIOCSCTTY, 0) < 0)
		_exit(126);
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	setenv("TERM", "xterm", 1);  /* whatever the runner has (dumb, none) */
	execvp(cmd[0], cmd);
	_exit(127);
}

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	if (argc < 4 || (strcmp(argv[1], "ctty") && strcmp(argv[1], "plain"))) {
		fprintf(stderr, "usage: ptyhold ctty|plain CLOSEFILE CMD [ARG]...\n");
		return 2;
	}
	int ctty = !strcmp(argv[1], "ctty");
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		return 1;
	struct winsize ws = { .ws_row = 40, .ws_col = 120 };
	char *slave = ptsname(m);
	int s = slave ? open(slave, O_RDWR | O_NOCTTY) : -1;
	if (s < 0 || ioctl(s, TIOCSWINSZ, &ws) < 0)
		return 1;
	close(s);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(m);
		child(slave, ctty, argv + 3);
	}
	printf("%d\n", (int)pid);
	fflush(stdout);
	int st = 0;
	char buf[65536];
	for (;;) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return status_of(st);
		if (access(argv[2], F_OK) == 0)
			break;
		struct pollfd p = { .fd = m, .events = POLLIN };
		if (poll(&p, 1, 50) > 0 && read(m, buf, sizeof buf) < 0)
			usleep(50000);  /* nothing to read yet (EIO before the slave opens) */
	}
	close(m);
	for (int i = 0; i < 1200; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return status_of(st);
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	fprintf(stderr, "ptyhold: %d still ran 120 s after its terminal was closed\n", (int)pid);
	return 124;
}
