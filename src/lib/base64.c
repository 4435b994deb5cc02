/* base64.c — see base64.h. */
#include "lib/base64.h"

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int sextet(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int base64_decode(const char *text, size_t len, struct strbuf *out)
{
	unsigned acc = 0;
	int bits = 0, pad = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		int v = sextet(c);
		if (v < 0 || pad)	/* data after padding is not base64 */
			return -1;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (char)((acc >> bits) & 0xff));
		}
	}
	/* A lone sextet cannot encode a byte; more than two '=' never occur. */
	if (bits == 6 || pad > 2)
		return -1;
	return 0;
}

void base64_encode(const void *data, size_t len, struct strbuf *out)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < len)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		char q[4] = { alphabet[v >> 18], alphabet[(v >> 12) & 63],
			      i + 1 < len ? alphabet[(v >> 6) & 63] : '=',
			      i + 2 < len ? alphabet[v & 63] : '=' };
		strbuf_add(out, q, 4);
	}
}

size_t base64_decoded_size(const char *text)
{
	size_t n = 0;

	for (const char *p = text; *p; p++)
		n += *p != '=' && *p != '\n' && *p != '\r';
	return n * 3 / 4;
}
