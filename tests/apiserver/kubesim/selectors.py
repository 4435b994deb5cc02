"""Label and field selectors with the syntax and semantics of apimachinery.

Label:  key, !key, key=v, key==v, key!=v, key in (a,b), key notin (a,b),
        key>N, key<N; requirements joined by commas.
Field:  path=v, path==v, path!=v joined by commas; backslash escapes , = !
"""

import re


class SelectorError(Exception):
    pass


_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_DNS1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_SPECIAL = set("!(),=<>")


def _check_key(k):
    name = k
    if "/" in k:
        prefix, name = k.split("/", 1)
        if not prefix or len(prefix) > 253 or not _DNS1123.match(prefix):
            raise SelectorError('unable to parse requirement: <nil>: Invalid value: "%s": '
                                'prefix part a lowercase RFC 1123 subdomain must consist of '
                                "lower case alphanumeric characters, '-' or '.'" % k)
    if not name or len(name) > 63 or not _NAME.match(name):
        raise SelectorError('unable to parse requirement: <nil>: Invalid value: "%s": '
                            "name part must consist of alphanumeric characters, '-', '_' or '.', "
                            "and must start and end with an alphanumeric character" % k)


def _check_value(v):
    if v and (len(v) > 63 or not _NAME.match(v)):
        raise SelectorError('unable to parse requirement: <nil>: Invalid value: "%s": '
                            "a valid label must be an empty string or consist of alphanumeric "
                            "characters, '-', '_' or '.', and must start and end with an "
                            "alphanumeric character" % v)


def _lex(s):
    toks = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c in " \t\r\n":
            i += 1
        elif c in "(),":
            toks.append(c)
            i += 1
        elif c == "=":
            if s.startswith("==", i):
                toks.append("==")
                i += 2
            else:
                toks.append("=")
                i += 1
        elif c == "!":
            if s.startswith("!=", i):
                toks.append("!=")
                i += 2
            else:
                toks.append("!")
                i += 1
        elif c in "<>":
            toks.append(c)
            i += 1
        else:
            j = i
            while j < n and s[j] not in _SPECIAL and s[j] not in " \t\r\n":
                j += 1
            toks.append(("id", s[i:j]))
            i = j
    return toks


def parse_labels(s):
    """Returns a list of requirements (op, key, values); [] matches everything."""
    if s is None or s.strip() == "":
        return []
    toks = _lex(s)
    reqs = []
    i = 0

    def ident(tok, what):
        if not isinstance(tok, tuple):
            raise SelectorError("unable to parse requirement: found '%s', expected: %s" % (tok, what))
        return tok[1]

    while True:
        if i >= len(toks):
            raise SelectorError("unable to parse requirement: found '', expected: identifier")
        t = toks[i]
        if t == "!":
            i += 1
            key = ident(toks[i] if i < len(toks) else "", "identifier")
            _check_key(key)
            reqs.append(("!", key, ()))
            i += 1
        else:
            key = ident(t, "!, identifier")
            _check_key(key)
            i += 1
            op = toks[i] if i < len(toks) else None
            if op is None or op == ",":
                reqs.append(("exists", key, ()))
            elif op in ("=", "==", "!="):
                i += 1
                v = ""
                if i < len(toks) and isinstance(toks[i], tuple):
                    v = toks[i][1]
                    i += 1
                _check_value(v)
                reqs.append(("!=" if op == "!=" else "=", key, (v,)))
            elif op in ("<", ">"):
                i += 1
                v = ident(toks[i] if i < len(toks) else "", "identifier")
                try:
                    int(v)
                except ValueError:
                    raise SelectorError("unable to parse requirement: for 'Gt', 'Lt' operators, "
                                        "the value must be an integer")
                reqs.append(("gt" if op == ">" else "lt", key, (int(v),)))
                i += 1
            elif isinstance(op, tuple) and op[1] in ("in", "notin"):
                i += 1
                if i >= len(toks) or toks[i] != "(":
                    raise SelectorError("unable to parse requirement: found '%s', expected: '('"
                                        % (toks[i][1] if i < len(toks) and isinstance(toks[i], tuple) else (toks[i] if i < len(toks) else "")))
                i += 1
                vals = []
                while True:
                    if i >= len(toks):
                        raise SelectorError("unable to parse requirement: found '', expected: ')'")
                    if isinstance(toks[i], tuple):
                        _check_value(toks[i][1])
                        vals.append(toks[i][1])
                        i += 1
                    else:
                        vals.append("")
                    if i < len(toks) and toks[i] == ",":
                        i += 1
                        continue
                    if i < len(toks) and toks[i] == ")":
                        i += 1
                        break
                    raise SelectorError("unable to parse requirement: found '%s', expected: ',', ')'"
                                        % (toks[i] if i < len(toks) else ""))
                reqs.append((op[1], key, frozenset(vals)))
            else:
                raise SelectorError("unable to parse requirement: found '%s', expected: "
                                    "in, notin, =, ==, !=, gt, lt" % (op[1] if isinstance(op, tuple) else op))
        if i >= len(toks):
            break
        if toks[i] != ",":
            raise SelectorError("found '%s', expected: ',' or 'end of string'"
                                % (toks[i][1] if isinstance(toks[i], tuple) else toks[i]))
        i += 1
    return reqs


def match_labels(reqs, labels):
    for op, key, vals in reqs:
        v = labels.get(key)
        if op == "=":
            if v != vals[0]:
                return False
        elif op == "!=":
            if v == vals[0]:
                return False
        elif op == "exists":
            if v is None:
                return False
        elif op == "!":
            if v is not None:
                return False
        elif op == "in":
            if v is None or v not in vals:
                return False
        elif op == "notin":
            if v is not None and v in vals:
                return False
        elif op in ("gt", "lt"):
            try:
                n = int(v)
            except (TypeError, ValueError):
                return False
            if (op == "gt" and not n > vals[0]) or (op == "lt" and not n < vals[0]):
                return False
    return True


def _split_unescaped(s, sep):
    parts, cur, i = [], [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            cur.append(s[i:i + 2])
            i += 2
            continue
        if c == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


def _unescape(v):
    out, i = [], 0
    while i < len(v):
        if v[i] == "\\" and i + 1 < len(v):
            if v[i + 1] not in "\\,=!":
                raise SelectorError("invalid field selector: invalid escape sequence: \\%s" % v[i + 1])
            out.append(v[i + 1])
            i += 2
        else:
            out.append(v[i])
            i += 1
    return "".join(out)


def parse_fields(s, supported):
    """Returns [(key, op, value)]; raises SelectorError for bad syntax or an
    unsupported field label (like the apiserver, which answers 400)."""
    if s is None or s.strip() == "":
        return []
    out = []
    for term in _split_unescaped(s, ","):
        if term == "":
            continue
        op = None
        for i in range(len(term)):
            if term[i] == "\\":
                continue
            if i > 0 and term[i - 1] == "\\":
                continue
            if term.startswith("!=", i):
                op, k, v = "!=", term[:i], term[i + 2:]
            elif term.startswith("==", i):
                op, k, v = "=", term[:i], term[i + 2:]
            elif term[i] == "=":
                op, k, v = "=", term[:i], term[i + 1:]
            if op:
                break
        if op is None or not k.strip():
            raise SelectorError("invalid selector: '%s'; can't understand '%s'" % (s, term))
        k = k.strip()
        if k not in supported:
            raise SelectorError('field label not supported: %s' % k)
        out.append((k, op, _unescape(v)))
    return out


def match_fields(reqs, fields):
    for k, op, v in reqs:
        have = fields.get(k, "")
        if (have == v) != (op == "="):
            return False
    return True
