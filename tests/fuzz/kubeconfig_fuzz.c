/*
 * kubeconfig_fuzz.c — libFuzzer target for the kubeconfig parser: any
 * bytes must give a kubeconfig or one error line, never a crash, a leak
 * or undefined behaviour.  Build and run with `make -C fuzz run`.
 *
 * Only the parser runs: resolving a context reads the files a kubeconfig
 * names, and fuzzed paths like /dev/zero would measure the disk, not the
 * code.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cluster/kubeconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct errbuf err = { "" };
	struct kubeconfig *kc = kubeconfig_parse("fuzz/config", (const char *)data, size, &err);
	if (!kc && !err.msg[0])
		__builtin_trap();	/* a failure must say why */
	kubeconfig_free(kc);
	return 0;
}
