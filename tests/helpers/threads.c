/* threads.c - a test workload: a process with N threads (the main one
 * included) that spin or sleep until killed.  `threads 1 spin` is a plain
 * busy loop.  Prints "ready" once every thread runs, so a test can wait
 * for it instead of sleeping a guessed time.
 *
 *   cc -pthread -o threads tests/helpers/threads.c
 *   threads N [spin|sleep] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int spin;

static void *run(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	for (;;) {
		if (spin)
			n++;
		else
			pause();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	if (n < 1 || n > 1024 || (argc > 2 && strcmp(argv[2], "spin") && strcmp(argv[2], "sleep"))) {
		fprintf(stderr, "usage: threads N [spin|sleep]  (N from 1 to 1024)\n");
		return 2;
	}
	spin = argc > 2 && strcmp(argv[2], "spin") == 0;
	for (int i = 1; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, run, NULL) != 0) {
			perror("threads: pthread_create");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	run(NULL);
	return 0;
}
