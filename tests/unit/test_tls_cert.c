/* test_tls_cert.c — what a certificate says about itself, for messages; Go's system roots. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster/tls_cert.h"
#include "old_cert.h"
#include "unit.h"


TEST(certificate_dates_and_subject)
{
	struct cert_info ci;
	char buf[160];
	CHECK_INT(cert_info_from_pem(old_cert, sizeof(old_cert) - 1, &ci), 0);
	CHECK_STR(ci.subject, "CN=old-admin,O=system:masters");
	CHECK(cert_validity_problem(&ci, time(NULL), buf, sizeof(buf)));
	CHECK_STR(buf, "expired on 2020-01-02 00:00:00 UTC (valid from 2020-01-01 00:00:00 UTC)");
	CHECK(cert_validity_problem(&ci, 1500000000, buf, sizeof(buf)));
	CHECK_STR(buf, "is not valid before 2020-01-01 00:00:00 UTC (valid until 2020-01-02 00:00:00 UTC)");
	CHECK(!cert_validity_problem(&ci, 1577880000, buf, sizeof(buf)));	/* 2020-01-01 12:00 */
	CHECK_INT(cert_info_from_pem("not a certificate", 17, &ci), -1);
}

static char tmpdir[] = "/tmp/kinf-tls-cert-XXXXXX";

static char *tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void write_tmp(const char *name, const char *text)
{
	char *path = tmp_path(name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	free(path);
}

/* How many certificates go_system_roots() takes (-1: none, and an error); *subject, the first's. */
static int roots(const char *file, const char *dirs, char subject[256])
{
	struct strbuf pem = STRBUF_INIT;
	struct cert_info ci = { .subject = "" };
	int n = go_system_roots(file, dirs, &pem);
	if (pem.len)
		cert_info_from_pem(pem.buf, pem.len, &ci);
	snprintf(subject, 256, "%s", ci.subject);
	strbuf_release(&pem);
	return n;
}

TEST(system_roots_as_go_reads_them)
{
	char subject[256], *a, *b, *dirs, *missing = tmp_path("missing");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	a = tmp_path("a");
	b = tmp_path("b");
	mkdir(a, 0700);
	mkdir(b, 0700);
	/* a certificate twice, text around it, and a block that is no certificate */
	char *bundle = xasprintf("junk\n%s%s-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n"
				 "-----END CERTIFICATE-----\n", old_cert, old_cert);
	write_tmp("bundle.pem", bundle);
	write_tmp("b/plain-name.pem", old_cert);
	write_tmp("a/not-pem", "nothing here\n");
	write_tmp("empty", "");

	char *file = tmp_path("bundle.pem"), *empty = tmp_path("empty");
	CHECK_INT(roots(file, missing, subject), 1);	/* each certificate once */
	CHECK_STR(subject, "CN=old-admin,O=system:masters");
	/* a file that is not there is passed over; every file of the folders is read */
	dirs = xasprintf("%s:%s:%s", missing, a, b);
	CHECK_INT(roots(missing, dirs, subject), 1);
	CHECK_STR(subject, "CN=old-admin,O=system:masters");
	/* an empty file and a folder of no certificate: none */
	CHECK_INT(roots(empty, a, subject), 0);
	/* nothing there at all: no roots, and no error */
	CHECK_INT(roots(missing, missing, subject), 0);
	/* a folder as the file cannot be read: no roots, and an error */
	CHECK_INT(roots(a, missing, subject), -1);

	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	free(dirs);
	free(file);
	free(empty);
	free(bundle);
	free(a);
	free(b);
	free(missing);
}

int main(void)
{
	RUN(certificate_dates_and_subject);
	RUN(system_roots_as_go_reads_them);
	return unit_done();
}
