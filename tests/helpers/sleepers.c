/* sleepers N: start N children that sleep until killed, then wait for
 * them; a tree of N processes made in a moment, where a shell's loop
 * takes seconds.  Each child sleeps in pause(), so none ever runs again. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p == 0) {
			pause();
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
