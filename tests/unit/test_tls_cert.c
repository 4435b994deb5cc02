/* test_tls_cert.c — what a certificate says about itself, for messages. */
#include <time.h>

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

int main(void)
{
	RUN(certificate_dates_and_subject);
	return unit_done();
}
