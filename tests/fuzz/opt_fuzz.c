/*
 * opt_fuzz.c — the option parser (lib/opt.c) against kinf's real command
 * tables: whatever argv a user types must end in parsed options, `--help`,
 * or one usage error, never a crash or a read past argv.
 *
 * Input: the first byte picks the command, the rest is its arguments
 * separated by NUL bytes.  opt_parse() ends the process on --help and on
 * usage errors; here its exit hook jumps back instead.  What it prints
 * goes to /dev/null; the sanitizers still report to the real stderr.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sanitizer/common_interface_defs.h>

#include "cli/cmd.h"
#include "lib/opt.h"
#include "lib/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_ARGS 64

static const struct command *const commands[] = {
	&command_watch, &command_get, &command_tui, &command_api_resources,
	&command_version, &command_help, &command_complete, NULL,
};

static jmp_buf back;
static int null_fd, saved_out, saved_err;

static void exit_hook(int status)
{
	longjmp(back, status + 1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	null_fd = open("/dev/null", O_WRONLY);
	saved_out = dup(STDOUT_FILENO);
	saved_err = dup(STDERR_FILENO);
	__sanitizer_set_report_fd((void *)(intptr_t)saved_err);
	opt_set_commands(commands);
	opt_set_exit_hook(exit_hook);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const struct command *cmd = commands[data[0] % (ARRAY_SIZE(commands) - 1)];
	/* Each argument its own allocation, so a read past one is caught. */
	static char *args[MAX_ARGS + 1];
	static const char *argv[MAX_ARGS + 2];
	static int argc;
	size_t start = 1;

	argc = 0;
	argv[argc++] = cmd->name;
	for (size_t i = 1; i <= size && argc <= MAX_ARGS; i++) {
		if (i < size && data[i])
			continue;
		size_t n = i - start;
		args[argc - 1] = malloc(n + 1);
		memcpy(args[argc - 1], data + start, n);
		args[argc - 1][n] = '\0';
		argv[argc] = args[argc - 1];
		argc++;
		start = i + 1;
	}
	argv[argc] = NULL;
	fflush(stdout);
	dup2(null_fd, STDOUT_FILENO);
	dup2(null_fd, STDERR_FILENO);
	if (setjmp(back) == 0) {
		int npos = opt_parse(cmd, argc, argv);
		if (npos < 0 || npos >= argc || argv[npos]) {
			dprintf(saved_err, "opt_parse returned %d of %d arguments\n", npos, argc);
			abort();
		}
	}
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	for (int i = 0; i < argc - 1; i++)
		free(args[i]);
	return 0;
}
