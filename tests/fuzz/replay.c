/*
 * replay.c — a main() for a fuzz target without libFuzzer: feeds each
 * file named on the command line (each file of a directory, in name order)
 * to LLVMFuzzerTestOneInput() once, in a buffer of exactly its size so
 * that AddressSanitizer sees any read past it.  What `make check` runs
 * over tests/fuzz/corpus/NAME/: the seeds and every crash ever found.
 * An input that takes longer than REPLAY_TIMEOUT seconds (default 10, as
 * `make fuzz` allows) fails too: some of them were found as timeouts.
 *
 *   NAME_replay FILE|DIR...    prints "NAME: N inputs replayed"
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned timeout_s = 10;

static void on_alarm(int sig)
{
	static const char msg[] = "replay: the input above took too long\n";
	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *data;

	if (!f || fstat(fileno(f), &st) < 0) {
		fprintf(stderr, "replay: cannot read '%s': %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	/* malloc(0) may be NULL; one spare byte that is never part of the input. */
	data = malloc((size_t)st.st_size ? (size_t)st.st_size : 1);
	if (!data || fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* Named first, so that a crash report says which input it was. */
	fprintf(stderr, "replay: %s\n", path);
	alarm(timeout_s);
	LLVMFuzzerTestOneInput(data, (size_t)st.st_size);
	alarm(0);
	free(data);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	size_t count = 0;
	int ret = 0;

	if (getenv("REPLAY_TIMEOUT"))
		timeout_s = (unsigned)atoi(getenv("REPLAY_TIMEOUT"));
	signal(SIGALRM, on_alarm);
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: cannot read '%s': %s\n", argv[i], strerror(errno));
			ret = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			ret |= replay_file(argv[i]) < 0;
			count++;
			continue;
		}
		struct dirent **names;
		int n = scandir(argv[i], &names, NULL, by_name);
		if (n < 0) {
			fprintf(stderr, "replay: cannot read '%s': %s\n", argv[i], strerror(errno));
			ret = 1;
			continue;
		}
		for (int j = 0; j < n; j++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], names[j]->d_name);
			if (names[j]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				ret |= replay_file(path) < 0;
				count++;
			}
			free(names[j]);
		}
		free(names);
	}
	printf("%s: %zu inputs replayed\n", name, count);
	return ret;
}
