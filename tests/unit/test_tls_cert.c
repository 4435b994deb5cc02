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

/* go_key_pair_pem()'s error for cert and key (NULL: none). */
static const char *pair_error(const char *cert, const char *key)
{
	static char buf[256];
	struct strbuf c = STRBUF_INIT, k = STRBUF_INIT;
	const char *why = go_key_pair_pem(cert, strlen(cert), key, strlen(key), &c, &k, buf,
					  sizeof(buf));
	strbuf_release(&c);
	strbuf_release(&k);
	return why;
}

#define BLOCK(type) "-----BEGIN " type "-----\nAAAA\n-----END " type "-----\n"

TEST(key_pair_errors_are_gos)
{
	char *headers = xasprintf("-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n"
				  "DEK-Info: AES-256-CBC,FCEF090EC0C94876F954C9D364EF092B\n\n%s",
				  strchr(old_cert, '\n') + 1);

	CHECK_STR(pair_error("", ""), "tls: failed to find any PEM data in certificate input");
	CHECK_STR(pair_error(BLOCK("RSA PRIVATE KEY"), ""),
		  "tls: failed to find certificate PEM data in certificate input, but did find a "
		  "private key; PEM inputs may have been switched");
	CHECK_STR(pair_error(BLOCK("FOO") BLOCK("BAR"), ""),
		  "tls: failed to find \"CERTIFICATE\" PEM block in certificate input after "
		  "skipping PEM blocks of the following types: [FOO BAR]");
	CHECK_STR(pair_error(old_cert, ""), "tls: failed to find any PEM data in key input");
	CHECK_STR(pair_error(old_cert, old_cert),
		  "tls: found a certificate rather than a key in the PEM for the private key");
	CHECK_STR(pair_error(old_cert, BLOCK("FOO") BLOCK("CERTIFICATE")),
		  "tls: failed to find PEM block with type ending in \"PRIVATE KEY\" in key input "
		  "after skipping PEM blocks of the following types: [FOO CERTIFICATE]");
	CHECK_STR(pair_error(old_cert, BLOCK("ENCRYPTED PRIVATE KEY")), "tls: failed to parse private key");
	/* a certificate's headers are no matter to Go: the key is what fails */
	CHECK_STR(pair_error(headers, BLOCK("EC PRIVATE KEY")), "tls: failed to parse private key");
	CHECK_STR(pair_error(BLOCK("CERTIFICATE"), BLOCK("PRIVATE KEY")), "x509: malformed certificate");
	/* and the pool leaves it out */
	struct strbuf pem = STRBUF_INIT;
	CHECK_INT(go_cert_pool_pem(headers, strlen(headers), &pem), 0);
	CHECK_INT(go_cert_pool_pem(old_cert, strlen(old_cert), &pem), 1);
	strbuf_release(&pem);
	free(headers);
}

int main(void)
{
	RUN(certificate_dates_and_subject);
	RUN(system_roots_as_go_reads_them);
	RUN(key_pair_errors_are_gos);
	return unit_done();
}
