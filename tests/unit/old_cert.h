/*
 * old_cert.h — a certificate for the unit tests: CN=old-admin,
 * O=system:masters, valid on 2020-01-01 only (made with `openssl ca
 * -startdate -enddate`).
 */
#ifndef KINF_TEST_OLD_CERT_H
#define KINF_TEST_OLD_CERT_H

static const char old_cert[] =
	"-----BEGIN CERTIFICATE-----\n"
	"MIIBJjCBzQIBATAKBggqhkjOPQQDAjASMRAwDgYDVQQDDAd0ZXN0LWNhMB4XDTIw\n"
	"MDEwMTAwMDAwMFoXDTIwMDEwMjAwMDAwMFowLTEXMBUGA1UECgwOc3lzdGVtOm1h\n"
	"c3RlcnMxEjAQBgNVBAMMCW9sZC1hZG1pbjBZMBMGByqGSM49AgEGCCqGSM49AwEH\n"
	"A0IABJ1ZQoo+b9w5+W160kcp7OMK/XopKVKxjj0kCAqmhBFc5QDPKALQDUg7G4he\n"
	"F3xLCgaesgP/qsMw+OMJdnZ1PfgwCgYIKoZIzj0EAwIDSAAwRQIhAPxvcIrHX8qm\n"
	"NrPm3Hi/uy/ZdMcxYKQKc52AcbL+deEcAiB3gMt+WHY1bsLRfDfBLLSNu17qvknb\n"
	"crUdJm96TOp3sw==\n"
	"-----END CERTIFICATE-----\n";

#endif
