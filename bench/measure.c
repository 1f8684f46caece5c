/* bench helper: run a command N times, print the median wall time in ms and
 * the largest peak RSS in KiB of the child (from wait4's rusage):
 *   measure N cmd args...   ->   "median_ms max_rss_kib"             */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: measure N cmd args...\n");
		return 2;
	}
	int n = atoi(argv[1]);
	if (n < 1 || n > 100000)
		return 2;
	double *t = calloc((size_t)n, sizeof *t);
	long maxrss = 0;
	for (int i = 0; i < n; i++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		pid_t p = fork();
		if (p == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		int st;
		struct rusage ru;
		wait4(p, &st, 0, &ru);
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[i] = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
			fprintf(stderr, "measure: cannot run %s\n", argv[2]);
			return 1;
		}
	}
	qsort(t, (size_t)n, sizeof *t, cmp);
	printf("%.3f %ld\n", t[n / 2], maxrss);
	free(t);
	return 0;
}
