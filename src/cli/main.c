/*
 * main.c — kinf's entry point: global flags, then one subcommand from
 * the table below.
 */
#include <langinfo.h>
#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "lib/idle.h"
#include "lib/opt.h"
#include "lib/util.h"

static const struct command *const commands[] = {
	&command_watch,
	&command_get,
	&command_verify,
	&command_replay,
	&command_tui,
	&command_api_resources,
	&command_version,
	&command_help,
	&command_complete,
	NULL,
};

#ifdef __GLIBC__
static void trim_heap(void)
{
	malloc_trim(0);
}
#endif

/*
 * The process's memory policy, decided here once.
 *
 * Large blocks always mapped on their own.  glibc raises its mmap
 * threshold each time a mapped block is freed, until buffers of
 * megabytes (a transfer's backlog, hash tables, a listener's backlog) land in
 * the heap, where what they leave among live objects stays resident: in
 * make soak, RSS stepped up with every new relist peak while the heap in
 * use stayed flat.  A fixed threshold keeps them mapped and gives them
 * back when freed; the heap's top is trimmed past 64 MiB.  One arena for
 * every thread (M_ARENA_MAX 1) steadied RSS further but cost the
 * 100,000-pod sync 30 % more CPU in lock contention: not taken.
 *
 * After a burst: a burst of updates makes new objects while the old ones
 * are still queued or being printed; once they are freed, glibc keeps the
 * holes in its arenas (only the top of a heap is ever given back), so RSS
 * stayed ~110 MiB higher after 20,000 updates at 100,000 pods.  So once
 * the reflectors have been idle a second after decoding at least 1 MiB
 * (lib/idle.h), malloc_trim(0) returns the free pages of every arena
 * to the system.
 */
static void tune_malloc(void)
{
#ifdef __GLIBC__
	static const struct idle_hook trim = {
		.fn = trim_heap, .min_bytes = 1u << 20, .idle_ms = 1000,
	};

	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	idle_set_hook(&trim);
#endif
}

/*
 * Of the user's locale, only whether the terminal is UTF-8 (the TUI's
 * wide characters): the rest stays C's, as Go ignores locales (numbers
 * with '.', errors in English), and case and character classes are
 * C.UTF-8's in any language.  Turkish's toupper('i') is 'i', which made
 * kubectl's NOMINATED NODE "NOMiNATED NODE" and would let strcasecmp()
 * miss a header's name.
 */
static void set_locale(void)
{
	setlocale(LC_CTYPE, "");
	bool utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (!utf8 || !setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, utf8 ? NULL : "C");
}

int main(int argc, const char **argv)
{
	tune_malloc();
	set_locale();
	opt_set_commands(commands);
	/* Run as a kubectl plugin (kubectl kinf …), say so in usages. */
	const char *base = strrchr(argv[0], '/');
	if (!strcmp(base ? base + 1 : argv[0], "kubectl-kinf"))
		opt_set_program("kubectl kinf");
	/* Writes to a closed pipe fail with EPIPE and are handled there. */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		print_main_help(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		name = "help";
	else if (!strcmp(name, "--version"))
		name = "version";
	else if (name[0] == '-')
		usage_error(NULL, "unknown option '%s'; options come after the command", name);

	const struct command *cmd = command_find(name);
	if (!cmd)
		usage_error(NULL, "unknown command '%s'", name);
	return cmd->run(argc - 1, argv + 1);
}
